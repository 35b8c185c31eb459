/* SPDX-License-Identifier: MIT */
/* check.c - a solver call that keeps its time limit.  Z3's "timeout"
 * parameter is polled by the search, not by every step before it: on a
 * long window of the lock-heavy bench trace one check ran for minutes
 * past a 60 s limit.  Z3_interrupt, called from another thread, reaches
 * more of Z3, so each check with a deadline arms a timer thread that
 * interrupts the context when the deadline passes; the check then
 * returns Z3_L_UNDEF and the context is marked tainted (not reused,
 * smt/context.c).  Not every step polls that either: on dense windows
 * checks still returned up to 10 s late (docs/prediction.md). */
#include "smt/smt.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

typedef struct timer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec at; /* CLOCK_MONOTONIC */
    int done, fired;
    Z3_context z;
} timer;

static void *timer_main(void *arg)
{
    timer *t = arg;
    pthread_mutex_lock(&t->mu);
    int rc = 0;
    while (!t->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&t->cv, &t->mu, &t->at);
    if (!t->done) {
        Z3_interrupt(t->z);
        t->fired = 1;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

Z3_lbool ft_smt_check(ft_smt *e, double deadline)
{
    if (deadline <= 0) {
        Z3_lbool r = Z3_solver_check(e->z, e->s);
        e->tainted |= r == Z3_L_UNDEF;
        return r;
    }
    timer t = {.done = 0, .z = e->z};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&t.mu, NULL);
    pthread_cond_init(&t.cv, &ca);
    pthread_condattr_destroy(&ca);
    double whole;
    double frac = modf(deadline, &whole);
    t.at.tv_sec = (time_t)whole;
    t.at.tv_nsec = (long)(frac * 1e9);
    pthread_t th;
    /* Without a timer thread the check still has Z3's own timeout. */
    int armed = pthread_create(&th, NULL, timer_main, &t) == 0;
    Z3_lbool r = Z3_solver_check(e->z, e->s);
    if (armed) {
        pthread_mutex_lock(&t.mu);
        t.done = 1;
        pthread_cond_signal(&t.cv);
        pthread_mutex_unlock(&t.mu);
        pthread_join(th, NULL);
    }
    /* An interrupt may land just after the check returned: either way
     * the context is not handed to another encoding. */
    e->tainted |= r == Z3_L_UNDEF || t.fired;
    pthread_cond_destroy(&t.cv);
    pthread_mutex_destroy(&t.mu);
    return r;
}

/* SPDX-License-Identifier: MIT */
/* check.c - a solver call that keeps its time limit.  Z3's "timeout"
 * parameter is polled by the search, not by every step before it: on a
 * long window of the lock-heavy bench trace one check ran for minutes
 * past a 60 s limit.  Z3_interrupt, called from another thread, reaches
 * more of Z3, so each check with a deadline arms a timer thread that
 * interrupts the context when the deadline passes; the check then
 * returns Z3_L_UNDEF and the context is marked tainted (not reused,
 * smt/context.c).  Not every step polls that either: on dense windows
 * checks still returned up to 10 s late (docs/prediction.md).
 * It also owns the way out of Z3's difference-logic theory where that
 * gives up: the same assertions go to the general arithmetic one. */
#include "smt/smt.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
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

void ft_smt_set_params(ft_smt *e, unsigned timeout_ms)
{
    Z3_params prm = Z3_mk_params(e->z);
    Z3_params_inc_ref(e->z, prm);
    if (timeout_ms)
        Z3_params_set_uint(e->z, prm, Z3_mk_string_symbol(e->z, "timeout"),
                           timeout_ms);
    if (e->difflogic == FT_SMT_DL_CORE)
        Z3_params_set_uint(e->z, prm,
                           Z3_mk_string_symbol(e->z, "arith.solver"), 1);
    Z3_solver_set_params(e->z, e->s, prm);
    Z3_params_dec_ref(e->z, prm);
}

static Z3_lbool check_once(ft_smt *e, double deadline, int *fired)
{
    *fired = 0;
    if (deadline <= 0)
        return Z3_solver_check(e->z, e->s);
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
    *fired = t.fired;
    pthread_cond_destroy(&t.cv);
    pthread_mutex_destroy(&t.mu);
    return r;
}

/* The difference-logic theory gave up (not the clock): the same
 * assertions go to the next solver, the QF_IDL tactic (which decided
 * in 0.5 s a property of bench/predict's wrong_lock that the theory in
 * the SMT core found "incomplete", and the general solver took 3.7 s
 * over), then the general one.  Only without scopes, as a push made by
 * the caller would be lost. */
static int to_next(ft_smt *e, double deadline)
{
    if (Z3_solver_get_num_scopes(e->z, e->s) != 0)
        return -1;
    const char *why = Z3_solver_get_reason_unknown(e->z, e->s);
    if (!why || strstr(why, "timeout") || strstr(why, "canceled"))
        return -1;
    unsigned ms = e->timeout_ms;
    if (deadline > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = deadline - (now.tv_sec + now.tv_nsec / 1e9);
        if (left < 0.01)
            return -1;
        if (!ms || left * 1000 < ms)
            ms = (unsigned)(left * 1000);
    }
    Z3_ast_vector all = Z3_solver_get_assertions(e->z, e->s);
    Z3_ast_vector_inc_ref(e->z, all);
    e->difflogic--;
    Z3_solver next = e->difflogic == FT_SMT_DL_TACTIC
                         ? Z3_mk_solver_for_logic(
                               e->z, Z3_mk_string_symbol(e->z, "QF_IDL"))
                         : Z3_mk_simple_solver(e->z);
    Z3_solver_inc_ref(e->z, next);
    unsigned n = Z3_ast_vector_size(e->z, all);
    for (unsigned i = 0; i < n; i++)
        Z3_solver_assert(e->z, next, Z3_ast_vector_get(e->z, all, i));
    Z3_ast_vector_dec_ref(e->z, all);
    Z3_solver_dec_ref(e->z, e->s);
    e->s = next;
    ft_smt_set_params(e, ms);
    return 0;
}

Z3_lbool ft_smt_check(ft_smt *e, double deadline)
{
    int fired;
    Z3_lbool r = check_once(e, deadline, &fired);
    /* An interrupt may land just after the check returned, and a solver
     * that gave up (a memout) may have left the context large: either
     * way it is not handed to another encoding, even when the next
     * solver decides. */
    e->tainted |= r == Z3_L_UNDEF || fired;
    while (r == Z3_L_UNDEF && !fired && e->difflogic &&
           to_next(e, deadline) == 0) {
        r = check_once(e, deadline, &fired);
        e->tainted |= fired;
    }
    /* sat, but the interrupt landed as it returned: the context is
     * cancelled and its model cannot be read (the kinds' tests saw
     * "unusable model" errors with 1 ms timeouts): out of time */
    if (r == Z3_L_TRUE && fired) {
        e->late = 1;
        r = Z3_L_UNDEF;
    }
    return r;
}

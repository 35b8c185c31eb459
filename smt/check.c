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
 * The same thread keeps the check's memory bounded: Z3's
 * memory_high_watermark (smt/order.c) is polled by its search only, and
 * a data-race candidate of C-Thread-Pool's conc_increment test (3,153
 * events) took the process to 4.2 GB in one check.  So the timer also
 * reads the process's resident size every 100 ms and interrupts a check
 * under which it grew by more than FT_SMT_RSS_FACTOR times the bound
 * (e->memout); with that bound on (the default), every check arms the
 * thread, also one without a deadline.
 * It also owns the way out of Z3's difference-logic theory where that
 * gives up: the same assertions go to the general arithmetic one. */
#include "smt/smt.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct timer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double at; /* CLOCK_MONOTONIC seconds, 0: no deadline */
    int done, fired, memout;
    Z3_context z;
    int statm;       /* /proc/self/statm, -1: no memory guard */
    long rss0, grow; /* pages: resident at the start, growth allowed */
} timer;

/* How often the memory guard looks, in seconds. */
#define FT_SMT_RSS_POLL_S 0.1

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_pages(int fd)
{
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long size, rss;
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return sscanf(buf, "%ld %ld", &size, &rss) == 2 ? rss : -1;
}

static void *timer_main(void *arg)
{
    timer *t = arg;
    pthread_mutex_lock(&t->mu);
    while (!t->done) {
        double now = mono_now(), wake = t->at;
        if (t->at > 0 && now >= t->at) {
            Z3_interrupt(t->z);
            t->fired = 1;
            break;
        }
        if (t->statm >= 0) {
            if (rss_pages(t->statm) > t->rss0 + t->grow) {
                Z3_interrupt(t->z);
                t->memout = 1;
                break;
            }
            if (wake <= 0 || now + FT_SMT_RSS_POLL_S < wake)
                wake = now + FT_SMT_RSS_POLL_S;
        }
        double whole, frac = modf(wake, &whole);
        struct timespec w = {(time_t)whole, (long)(frac * 1e9)};
        pthread_cond_timedwait(&t->cv, &t->mu, &w);
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

static Z3_lbool check_once(ft_smt *e, double deadline, int *fired, int *memout)
{
    *fired = *memout = 0;
    timer t = {.done = 0, .z = e->z, .statm = -1};
    unsigned long mb = ft_smt_memory_mb();
    long page = sysconf(_SC_PAGESIZE);
    if (mb && page > 0 &&
        (t.statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) >= 0) {
        t.rss0 = rss_pages(t.statm);
        t.grow =
            (long)(FT_SMT_RSS_FACTOR * mb * (1ul << 20) / (unsigned long)page);
        if (t.rss0 < 0) {
            close(t.statm);
            t.statm = -1;
        }
    }
    if (deadline <= 0 && t.statm < 0)
        return Z3_solver_check(e->z, e->s);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&t.mu, NULL);
    pthread_cond_init(&t.cv, &ca);
    pthread_condattr_destroy(&ca);
    t.at = deadline > 0 ? deadline : 0;
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
    *memout = t.memout;
    if (t.statm >= 0)
        close(t.statm);
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
        double left = deadline - mono_now();
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
    int fired, memout;
    Z3_lbool r = check_once(e, deadline, &fired, &memout);
    /* An interrupt may land just after the check returned, and a solver
     * that gave up (a memout) may have left the context large: either
     * way it is not handed to another encoding, even when the next
     * solver decides. */
    e->memout |= memout;
    e->tainted |= r == Z3_L_UNDEF || fired || memout;
    while (r == Z3_L_UNDEF && !fired && !memout && e->difflogic &&
           to_next(e, deadline) == 0) {
        r = check_once(e, deadline, &fired, &memout);
        e->memout |= memout;
        e->tainted |= fired || memout;
    }
    /* sat, but the interrupt landed as it returned: the context is
     * cancelled and its model cannot be read (the kinds' tests saw
     * "unusable model" errors with 1 ms timeouts): out of time (or of
     * memory) */
    if (r == Z3_L_TRUE && (fired || memout)) {
        e->late = fired;
        r = Z3_L_UNDEF;
    }
    return r;
}

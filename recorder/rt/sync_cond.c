/* SPDX-License-Identifier: MIT */
/* sync_cond.c - condition variables, modelled.  A waiter releases the
 * modelled mutex and blocks on the condvar; signal hands one waiter (the
 * policy chooses; recording picks the oldest) back to the mutex queue,
 * broadcast hands all.  A timed wait ends when its deadline passes or when
 * nothing else can run (see sched.c).  There are no spurious wakeups. */
#define _GNU_SOURCE
#include "rt.h"

#include <errno.h>

int __real_pthread_cond_wait(pthread_cond_t *, pthread_mutex_t *);
int __real_pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
                                  const struct timespec *);
int __real_pthread_cond_signal(pthread_cond_t *);
int __real_pthread_cond_broadcast(pthread_cond_t *);
int __real_pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                                  const struct timespec *);

int ft_cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
                 const struct timespec *ts, int timed, int clk, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t) {
        if (timed && clk >= 0)
            return __real_pthread_cond_clockwait(c, m, (clockid_t)clk, ts);
        return timed ? __real_pthread_cond_timedwait(c, m, ts)
                     : __real_pthread_cond_wait(c, m);
    }
    if (timed && (!ts || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
        ft_leave(t);
        return EINVAL;
    }
    ft_cancel_point(t, pc); /* with the mutex held, as POSIX says */
    uint32_t site = ft_site_id(pc);
    ft_event ev = {.kind = FT_EV_COND_WAIT, .site = site, .addr = (uintptr_t)c,
                   .obj2 = (uintptr_t)m};
    ft_emit(&ev);
    ft_lock();
    int count = ft_mutex_release_all(t, (uintptr_t)m);
    t->woken = 0;
    ft_block(t, FT_W_COND, (uintptr_t)c, pc, timed ? ft_deadline_of(ts, clk) : 0);
    int timedout = !t->woken;
    /* Woken by a cancellation request, not a signal: it acts on it with
     * the mutex taken back (POSIX), after a wake that consumed no signal
     * (recorded as a timeout, which needs none). */
    int cancelled = timedout && ft_cancel_due(t);
    t->woken = 0;
    ft_lock();
    ft_mutex_reacquire(t, (uintptr_t)m, count, pc);
    ft_unlock();
    ev.kind = FT_EV_COND_WAKE;
    ev.arg = (uint32_t)timedout;
    ft_emit(&ev);
    if (cancelled)
        ft_cancel_act(t, pc);
    ft_leave(t);
    return timedout ? ETIMEDOUT : 0;
}

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    return ft_cond_wait(c, m, NULL, 0, -1, FT_PC());
}

int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *ts);
int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *ts)
{
    return ft_cond_wait(c, m, ts, 1, -1, FT_PC());
}

int __wrap_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  clockid_t clk, const struct timespec *ts);
int __wrap_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  clockid_t clk, const struct timespec *ts)
{
    return ft_cond_wait(c, m, ts, 1, (int)clk, FT_PC());
}

/* Waiters of c, oldest first. */
static int waiters_of(uintptr_t c, int *out)
{
    int n = 0;
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state != FT_T_BLOCKED || b->wait_kind != FT_W_COND ||
            b->wait_obj != c)
            continue;
        int k = n++;
        while (k > 0 && ft_threads[out[k - 1]].wait_seq > b->wait_seq) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = i;
    }
    return n;
}

static void wake(ft_thread *w)
{
    w->woken = 1;
    w->state = FT_T_RUNNABLE;
}

int ft_cond_signal(pthread_cond_t *c, uintptr_t pc)
{
    static int list[FT_MAX_THREADS];
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_cond_signal(c);
    ft_lock();
    int n = waiters_of((uintptr_t)c, list), woken = -1;
    if (n) {
        woken = ft_rt.policy->pick_waiter(list, n);
        wake(&ft_threads[woken]);
    }
    ft_unlock();
    ft_event ev = {.kind = FT_EV_COND_SIGNAL, .site = ft_site_id(pc),
                   .addr = (uintptr_t)c, .arg = woken >= 0,
                   .value = woken >= 0 ? (uint64_t)woken : 0};
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}

int ft_cond_broadcast(pthread_cond_t *c, uintptr_t pc)
{
    static int list[FT_MAX_THREADS];
    ft_thread *t = ft_enter();
    if (!t)
        return __real_pthread_cond_broadcast(c);
    ft_lock();
    int n = waiters_of((uintptr_t)c, list);
    for (int i = 0; i < n; i++)
        wake(&ft_threads[list[i]]);
    ft_unlock();
    ft_event ev = {.kind = FT_EV_COND_BROADCAST, .site = ft_site_id(pc),
                   .addr = (uintptr_t)c, .arg = (uint32_t)n};
    ft_emit(&ev);
    ft_leave(t);
    return 0;
}

int __wrap_pthread_cond_signal(pthread_cond_t *c);
int __wrap_pthread_cond_signal(pthread_cond_t *c)
{
    return ft_cond_signal(c, FT_PC());
}

int __wrap_pthread_cond_broadcast(pthread_cond_t *c);
int __wrap_pthread_cond_broadcast(pthread_cond_t *c)
{
    return ft_cond_broadcast(c, FT_PC());
}

/* SPDX-License-Identifier: MIT */
/* watchdog.c - a helper thread (not a program thread, never recorded)
 * that keeps the serialised run moving.  When the baton holder has reached
 * no hook for FORETELL_WATCHDOG_MS while another thread could run (it is
 * blocked in I/O or in a libc-internal lock, or computing uninstrumented
 * code), the watchdog takes the baton away (STEAL event) and lets another
 * thread run; the stolen thread queues for the baton at its next hook.  A
 * thread inside the runtime (in_hook) is never stolen from: the two sides
 * use a store-then-load handshake on has_baton and in_hook (the fence
 * of the hooks' side is done here, by membarrier: fence.c).
 * It also starts timed waits that expire while nobody holds the baton, and
 * publishes the run's progress on the progress page (progress.c) at each
 * tick, also when stealing is off (FORETELL_WATCHDOG_MS=0).
 *
 * And it bounds what a SIGKILL (OOM killer, CI timeout) can lose: events
 * wait in the open EVENTS chunk until it is full, so a slow or hung
 * program would lose all of them.  Once the open chunk is
 * FORETELL_FLUSH_MS old, the watchdog hands it to the writer itself,
 * with the holder's baton taken for that moment by the steal handshake
 * (never while the holder is inside the runtime, which may be appending). */
#define _GNU_SOURCE
#include "rt_emit.h"

#include <signal.h>

static int steal_locked(ft_thread *t)
{
    __atomic_store_n(&t->has_baton, 0, __ATOMIC_SEQ_CST);
    if (ft_fence_remote() < 0 ||
        __atomic_load_n(&t->in_hook, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&t->has_baton, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    ft_pending_flush(t);
    ft_event ev = {.kind = FT_EV_STEAL, .value = (uint64_t)t->tid};
    ft_emit(&ev);
    ft_rt_verbose("watchdog: took the baton from thread %d", t->tid);
    ft_release_locked(t, FT_T_OUTSIDE); /* unlocks */
    return 1;
}

/* Lock held.  The open chunk goes to the writer now, unless the baton
 * holder is inside the runtime: then the holder is asked to do it at its
 * next slow path (ft_flush_req, sched.c; every quantum of key points),
 * and the watchdog tries again at its next tick.  The holder keeps the
 * baton: if it reaches a hook meanwhile, it waits for the lock and finds
 * the baton still its own (reclaim_lent, sched.c).  Its pending write
 * stays pending: its value is read back at its next event, in the new
 * chunk. */
static void flush_locked(void)
{
    int r = ft_rt.running;
    if (r < 0) {
        ft_tb_rotate();
        return;
    }
    ft_thread *t = &ft_threads[r];
    __atomic_store_n(&t->has_baton, 0, __ATOMIC_SEQ_CST);
    if (ft_fence_remote() == 0 &&
        !__atomic_load_n(&t->in_hook, __ATOMIC_SEQ_CST)) {
        ft_tb_rotate();
        __atomic_store_n(&ft_flush_req, 0, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(&ft_flush_req, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&t->has_baton, 1, __ATOMIC_SEQ_CST);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    /* Not a program thread: a permanent in_hook makes every hook and
     * wrapper this thread reaches (libc internals) pass through. */
    static ft_thread self = {.in_hook = 1, .state = FT_T_EXITED};
    ft_self = &self;
    const int64_t tick_ns = 10 * 1000000;
    int64_t limit_ns = (int64_t)ft_rt.watchdog_ms * 1000000;
    int64_t flush_ns = (int64_t)ft_rt.flush_ms * 1000000;
    int last_tid = -1;
    uint64_t last_kp = 0;
    int64_t since = ft_now_ns();
    for (;;) {
        struct timespec ts = {0, tick_ns};
        __real_nanosleep(&ts, NULL);
        if (ft_rt.finished)
            return NULL;
        ft_progress_tick();
        int64_t now = ft_now_ns();
        ft_lock();
        if (ft_rt.finished) {
            ft_unlock();
            return NULL;
        }
        if (flush_ns > 0 && ft_trace_flush_due(flush_ns))
            flush_locked();
        ft_replay_poll_tail();
        if (limit_ns <= 0) {
            ft_unlock();
            continue;
        }
        int r = ft_rt.running;
        if (r < 0) {
            ft_kick_locked();
            last_tid = -1;
        } else {
            ft_thread *t = &ft_threads[r];
            uint64_t kp = __atomic_load_n(&t->keypoints, __ATOMIC_RELAXED);
            if (r != last_tid || kp != last_kp) {
                last_tid = r;
                last_kp = kp;
                since = now;
            } else if (limit_ns > 0 && now - since >= limit_ns &&
                       ft_others_enabled(r) &&
                       ft_replay_steal_ok(r)) {
                last_tid = -1;
                if (steal_locked(t))
                    continue;
            }
        }
        ft_unlock();
    }
}

void ft_watchdog_start(void)
{
    if (ft_rt.watchdog_ms <= 0 && ft_rt.flush_ms <= 0 && !ft_progress_active())
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* inherited: program signals
                                                 go to program threads */
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    __real_pthread_create(&th, &attr, watchdog_main, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

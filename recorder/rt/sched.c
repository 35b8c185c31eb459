/* SPDX-License-Identifier: MIT */
/* sched.c - the baton: one recorded thread runs at a time.  Owns the
 * thread table, the scheduler lock, parking on per-thread futexes, blocking
 * on modelled objects, timed-wait expiry and deadlock detection.  Every
 * choice is delegated to ft_rt.policy, so replay and exploration reuse all
 * of this with another policy. */
#define _GNU_SOURCE
#include "rt_emit.h"

#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

ft_thread ft_threads[FT_MAX_THREADS];
int ft_flush_req;
__thread ft_thread *ft_self __attribute__((tls_model("initial-exec")));

static int sched_word; /* 0 free, 1 locked, 2 locked with waiters */

void ft_futex_wait(int *addr, int val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void ft_futex_wake(int *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void ft_lock(void)
{
    int c = 0;
    if (__atomic_compare_exchange_n(&sched_word, &c, 1, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
        return;
    for (int i = 0; i < 100; i++) {
        __builtin_ia32_pause();
        c = 0;
        if (__atomic_compare_exchange_n(&sched_word, &c, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
    if (c != 2)
        c = __atomic_exchange_n(&sched_word, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        ft_futex_wait(&sched_word, 2);
        c = __atomic_exchange_n(&sched_word, 2, __ATOMIC_ACQUIRE);
    }
}

int ft_trylock(void)
{
    int c = 0;
    return __atomic_compare_exchange_n(&sched_word, &c, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

void ft_unlock(void)
{
    if (__atomic_fetch_sub(&sched_word, 1, __ATOMIC_RELEASE) != 1) {
        __atomic_store_n(&sched_word, 0, __ATOMIC_RELEASE);
        ft_futex_wake(&sched_word);
    }
}

int64_t ft_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Absolute timeouts of the *_timed* calls are CLOCK_REALTIME unless the
 * object was configured for CLOCK_MONOTONIC; we cannot see that setting
 * portably, so (clk < 0) a deadline earlier than 2001 is taken to be
 * monotonic (documented in recorder.md).  The *_clock* calls name their
 * clock.  Deadlines are kept as CLOCK_REALTIME nanoseconds. */
int64_t ft_deadline_of(const struct timespec *abstime, int clk)
{
    if (!abstime)
        return 0;
    int64_t d = (int64_t)abstime->tv_sec * 1000000000 + abstime->tv_nsec;
    if (clk < 0)
        clk = abstime->tv_sec < 1000000000 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    if (clk != CLOCK_REALTIME) {
        struct timespec m;
        clock_gettime((clockid_t)clk, &m);
        d = ft_now_ns() + (d - ((int64_t)m.tv_sec * 1000000000 + m.tv_nsec));
    }
    return d > 0 ? d : 1;
}

/* Waits for t's turn: spin briefly (a switch on an idle core is then a
 * few hundred ns), yield the CPU a few times (the baton holder may be
 * waiting for this core: there are often more threads than cores), then
 * sleep on t's futex word. */
static void park(ft_thread *t)
{
    for (int i = 0; i < 100; i++) {
        if (__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
            goto got;
        __builtin_ia32_pause();
    }
    for (int i = 0; i < 3; i++) {
        if (__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
            goto got;
        syscall(SYS_sched_yield);
    }
    while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
        ft_futex_wait(&t->go, 0);
got:
    __atomic_store_n(&t->go, 0, __ATOMIC_RELAXED);
}

/* The heap oracle and spin detection must see every key point. */
static int every_keypoint(void)
{
    return ft_rt.heap_check || ft_rt.spin_looks || ft_rt.fair_kps;
}

/* Sets t's budget from the policy.  To see every key point, the budget
 * stays at 1 and the policy's budget is counted in pbudget;
 * FORETELL_MAX_STEPS needs a look at least every 1024. */
void ft_set_budget(ft_thread *t)
{
    int64_t b = ft_rt.policy->budget(t->tid);
    if (every_keypoint()) {
        t->pbudget = b;
        b = 1;
    } else if (ft_rt.max_steps && b > 1024) {
        b = 1024;
    }
    t->budget = b;
    /* A handler queued by a signal (sigdeliver.c) runs at the next key
     * point: a signal that came before the store above saw its budget 0
     * overwritten.  Checked after the store, a later one sets it itself. */
    if (FT_UNLIKELY(__atomic_load_n(&t->sig_pending, __ATOMIC_ACQUIRE)))
        t->budget = 1;
}

static void take(ft_thread *n)
{
    n->run_kps = 0;
    n->state = FT_T_RUNNING;
    ft_rt.running = n->tid;
    ft_set_budget(n);
    __atomic_store_n(&n->has_baton, 1, __ATOMIC_SEQ_CST);
}

static void give(ft_thread *n)
{
    take(n);
    ft_rt.switches++;
    __atomic_store_n(&n->go, 1, __ATOMIC_RELEASE);
    ft_futex_wake(&n->go);
}

/* The watchdog's timed flush, when it found the holder inside the
 * runtime (watchdog.c): the holder hands the open chunk over itself. */
static void flush_requested(void)
{
    if (FT_UNLIKELY(__atomic_load_n(&ft_flush_req, __ATOMIC_RELAXED)) &&
        !ft_rt.finished) {
        __atomic_store_n(&ft_flush_req, 0, __ATOMIC_RELAXED);
        ft_tb_rotate();
    }
}

/* A thread that waited for the baton (often the holder the watchdog
 * found inside the runtime: woken, not yet running) has it now. */
static void after_park(ft_thread *t)
{
    flush_requested();
    if (ft_trace_cur_tid() != t->tid && !ft_rt.finished)
        ft_emit_switch(t->tid);
}

/* Timed waits whose deadline passed become enabled (timed out). */
static void expire_timeouts(void)
{
    int64_t now = 0;
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state != FT_T_BLOCKED || !b->deadline_ns)
            continue;
        if (!now)
            now = ft_now_ns();
        if (ft_rt.policy->expire(i, b->deadline_ns, now)) {
            b->timedout = 1;
            b->state = FT_T_RUNNABLE;
        }
    }
}

/* Fills enabled[] and decides what to do when nothing is enabled: time
 * out the earliest timed wait, or report a deadlock.  Returns the count,
 * or 0 when someone outside (sleeping, stolen) may still come back. */
static int collect_enabled(int *enabled)
{
    expire_timeouts();
    int n = 0, outside = 0;
    ft_thread *earliest = NULL;
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state == FT_T_RUNNABLE)
            enabled[n++] = i;
        else if (b->state == FT_T_OUTSIDE)
            outside = 1;
        else if (b->state == FT_T_BLOCKED && b->deadline_ns &&
                 (!earliest || b->deadline_ns < earliest->deadline_ns))
            earliest = b;
    }
    if (n || outside)
        return n;
    if (earliest) {
        /* Nothing else can happen before the deadline: it passes now. */
        earliest->timedout = 1;
        earliest->state = FT_T_RUNNABLE;
        enabled[0] = earliest->tid;
        return 1;
    }
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (ft_threads[i].state == FT_T_BLOCKED)
            ft_die_deadlock();
    return 0;
}

void ft_switch_locked(ft_thread *t)
{
    static int enabled[FT_MAX_THREADS];
    ft_pending_flush(t);
    int n = collect_enabled(enabled);
    if (n == 0) {
        ft_rt.running = -1;
    } else {
        ft_thread *next = &ft_threads[ft_rt.policy->pick(enabled, n, t->tid)];
        if (next == t) {
            take(t);
            ft_unlock();
            return;
        }
        __atomic_store_n(&t->has_baton, 0, __ATOMIC_SEQ_CST);
        give(next);
    }
    __atomic_store_n(&t->has_baton, 0, __ATOMIC_SEQ_CST);
    ft_unlock();
    if (FT_UNLIKELY(t->sig_pending) && t->state == FT_T_BLOCKED)
        ft_signals_pass_on(t);
    park(t);
    after_park(t);
}

void ft_release_locked(ft_thread *t, int newstate)
{
    static int enabled[FT_MAX_THREADS];
    ft_pending_flush(t);
    t->state = newstate;
    __atomic_store_n(&t->has_baton, 0, __ATOMIC_SEQ_CST);
    int n = collect_enabled(enabled);
    if (n == 0)
        ft_rt.running = -1;
    else
        give(&ft_threads[ft_rt.policy->pick(enabled, n, t->tid)]);
    ft_unlock();
}

/* Whether the watchdog only held t's baton for a moment (the steal
 * handshake that found t inside a hook, or the timed flush) and t keeps
 * it: then t has it again. */
static int reclaim_lent(ft_thread *t)
{
    ft_lock();
    int lent = ft_rt.running == t->tid && t->state == FT_T_RUNNING;
    if (lent)
        __atomic_store_n(&t->has_baton, 1, __ATOMIC_SEQ_CST);
    ft_unlock();
    return lent;
}

void ft_acquire(ft_thread *t)
{
    ft_lock();
    if (ft_rt.running < 0) {
        take(t);
        ft_unlock();
        after_park(t);
        return;
    }
    if (ft_rt.running == t->tid && t->state == FT_T_RUNNING) {
        /* The watchdog held the baton for a moment (its timed flush,
         * watchdog.c): t never lost its turn. */
        __atomic_store_n(&t->has_baton, 1, __ATOMIC_SEQ_CST);
        ft_unlock();
        return;
    }
    t->state = FT_T_RUNNABLE;
    ft_unlock();
    park(t);
    after_park(t);
}

void ft_acquire_start(ft_thread *t)
{
    park(t);
    after_park(t);
}

void ft_block(ft_thread *t, int kind, uintptr_t obj, uintptr_t pc,
              int64_t deadline_ns)
{
    t->state = FT_T_BLOCKED;
    t->wait_kind = kind;
    t->wait_obj = obj;
    t->wait_pc = pc;
    t->wait_seq = ++ft_rt.wait_seq;
    t->deadline_ns = deadline_ns;
    t->timedout = 0;
    ft_switch_locked(t);
    t->wait_kind = FT_W_NONE;
    t->deadline_ns = 0;
    if (FT_UNLIKELY(t->sig_pending) && !ft_rt.finished)
        ft_signals_run(t);
}

int ft_wake_all(int kind, uintptr_t obj)
{
    int n = 0;
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state == FT_T_BLOCKED && b->wait_kind == kind &&
            b->wait_obj == obj) {
            b->state = FT_T_RUNNABLE;
            n++;
        }
    }
    return n;
}

/* The heap oracle looks at the access after any switch: another thread
 * may have freed the block while this one waited. */
static void keypoint_end(ft_thread *t)
{
    if (ft_rt.heap_check && !ft_rt.finished)
        ft_heap_check_kp(t);
}

/* Whether t, entering its key point, is spinning: since anything last
 * changed (ft_rt.wseq), it has done nothing but look at the same few
 * addresses (reads, atomics, lock and unlock) ft_rt.spin_looks times.
 * Under a policy that lets the running thread keep the baton (none, the
 * tail of a replay, ICB's default) such a loop would wait forever for a
 * thread that never runs; a yield lets the others move.  Deterministic
 * (it depends on the thread's key points and on wseq only), so a replay
 * yields at the same key point. */
static int spinning(ft_thread *t)
{
    if (ft_rt.fair_kps && ++t->run_kps >= ft_rt.fair_kps)
        return 1; /* fairness: it has run long enough */
    if (!ft_rt.spin_looks)
        return 0;
    switch (t->kp_kind) {
    case FT_KP_FUNC:
        return 0;
    case FT_KP_READ:
    case FT_KP_LOCK:
    case FT_KP_UNLOCK:
    case FT_KP_AREAD:
    case FT_KP_AWRITE:
        break;
    default: /* a write, or sync that may change state */
        ft_rt.wseq++;
        return 0;
    }
    uintptr_t a = t->kp_addr;
    int i = 0;
    if (t->spin_wseq != ft_rt.wseq) {
        t->spin_wseq = ft_rt.wseq;
        t->spin_naddr = 0;
        t->spin_looks = 0;
    }
    while (i < t->spin_naddr && t->spin_addr[i] != a)
        i++;
    if (i == t->spin_naddr) {
        if (i == FT_SPIN_ADDRS) { /* too many places: not a tight loop */
            t->spin_naddr = 0;
            t->spin_looks = 0;
            i = 0;
        }
        t->spin_addr[t->spin_naddr++] = a;
    }
    if (++t->spin_looks < ft_rt.spin_looks)
        return 0;
    t->spin_looks = 0;
    return 1;
}

void ft_keypoint_slow(ft_thread *t)
{
    if (t->state == FT_T_EXITED || ft_rt.finished)
        return;
    if (FT_UNLIKELY(t->heap_abort))
        ft_heap_check_kp(t); /* the faulty access is recorded: abort */
    if (!__atomic_load_n(&t->has_baton, __ATOMIC_SEQ_CST)) {
        if (!reclaim_lent(t)) {
            ft_acquire(t);
            if (FT_UNLIKELY(t->cancel_async) && ft_cancel_due(t))
                ft_cancel_act(t, t->kp_pc); /* asynchronous: any key point */
            keypoint_end(t);
            return;
        }
        /* An ordinary key point after all: count it as the fast path
         * would have (ft_enter_core did not, seeing no baton), so that
         * budgets, and the schedules of replay and exploration, do not
         * depend on when the watchdog looked. */
        if (--t->budget > 0 || t->kp_defer)
            return;
    }
    flush_requested();
    if (FT_UNLIKELY(t->cancel_async) && ft_cancel_due(t))
        ft_cancel_act(t, t->kp_pc);
    if (FT_UNLIKELY(t->sig_pending))
        ft_signals_run(t); /* handlers queued while it could not run them */
    if (ft_rt.max_steps) {
        ft_rt.kp_total += t->keypoints - t->kp_counted;
        t->kp_counted = t->keypoints;
        if (ft_rt.kp_total > ft_rt.max_steps) {
            ft_lock();
            ft_pending_flush(t);
            fprintf(stderr, "foretell: stopped after %llu key points "
                    "(FORETELL_MAX_STEPS): the program may hang\n",
                    (unsigned long long)ft_rt.max_steps);
            ft_die("max-steps", FT_MAX_STEPS_STATUS);
        }
    }
    if ((ft_rt.spin_looks || ft_rt.fair_kps) && spinning(t)) {
        ft_rt_verbose("thread %d spins: it yields", t->tid);
        ft_yield(t);
        keypoint_end(t);
        return;
    }
    if (every_keypoint() && --t->pbudget > 0) {
        t->budget = 1;
        keypoint_end(t);
        return;
    }
    if (!ft_rt.policy->preempt(t->tid)) {
        ft_set_budget(t);
        keypoint_end(t);
        return;
    }
    ft_lock();
    t->state = FT_T_RUNNABLE;
    ft_switch_locked(t);
    keypoint_end(t);
}

void ft_kick_locked(void)
{
    static int enabled[FT_MAX_THREADS];
    if (ft_rt.running >= 0)
        return;
    int n = collect_enabled(enabled);
    if (n)
        give(&ft_threads[ft_rt.policy->pick(enabled, n, -1)]);
}

int ft_others_enabled(int holder)
{
    expire_timeouts();
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (i != holder && ft_threads[i].state == FT_T_RUNNABLE)
            return 1;
    return 0;
}

void ft_yield(ft_thread *t)
{
    ft_lock();
    t->state = FT_T_RUNNABLE;
    ft_switch_locked(t);
}

static const char *wait_name(int k)
{
    static const char *const names[] = {
        "nothing", "mutex", "rwlock (read)", "rwlock (write)", "condvar",
        "semaphore", "barrier", "once", "join",
    };
    return k >= 0 && k <= FT_W_JOIN ? names[k] : "?";
}

void ft_die(const char *reason, int status)
{
    ft_trace_end(reason, (int64_t)status << 8);
    _exit(status);
}

void ft_die_deadlock(void)
{
    /* One BLOCKED per thread, then DEADLOCK: the run ends there. */
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state != FT_T_BLOCKED)
            continue;
        ft_event bl = {.kind = FT_EV_BLOCKED, .value = (uint64_t)i,
                       .site = ft_site_id(b->wait_pc), .addr = b->wait_obj,
                       .arg = (uint32_t)b->wait_kind};
        ft_emit(&bl);
    }
    ft_event ev = {.kind = FT_EV_DEADLOCK};
    ft_emit(&ev);
    fprintf(stderr, "foretell: deadlock: no thread can run\n");
    for (int i = 0; i < ft_rt.nthreads; i++) {
        ft_thread *b = &ft_threads[i];
        if (b->state != FT_T_BLOCKED)
            continue;
        const char *mod = "?";
        uintptr_t off = b->wait_pc;
        ft_module_of(b->wait_pc, &mod, &off);
        if (b->wait_kind == FT_W_JOIN)
            fprintf(stderr, "  thread %d waits to join thread %lu at %s+0x%lx\n",
                    i, (unsigned long)b->wait_obj, mod, (unsigned long)off);
        else
            fprintf(stderr, "  thread %d waits for %s %#lx at %s+0x%lx\n", i,
                    wait_name(b->wait_kind), (unsigned long)b->wait_obj, mod,
                    (unsigned long)off);
    }
    ft_trace_end("deadlock", FT_DEADLOCK_STATUS << 8);
    _exit(FT_DEADLOCK_STATUS);
}

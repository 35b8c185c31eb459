/* SPDX-License-Identifier: MIT */
/* policy_pos.c - partial order sampling, `pos:seed=X` (Yuan, Yang and
 * Gu, "Partial Order Aware Concurrency Sampling", CAV'18, algorithm 2):
 * every event gets a random priority; the enabled event of highest
 * priority runs; once it has run, the pending events of the other threads
 * that race with it (the same memory word or lock, one of them a write or
 * an acquisition) get fresh random priorities.  An event is a key point:
 * a thread's pending event is the key point it is parked at
 * (ft_thread.kp_kind, kp_addr), and it has run when the thread has passed
 * another one (ft_thread.keypoints moved).  The bookkeeping of pending
 * events (ft_pos_sync) is shared with SURW (policy_surw.c), whose
 * pickFrom is the same random priority per event, without the
 * reassignment; the decision rules themselves are in policy_sample.c. */
#define _GNU_SOURCE
#include "policy_pos.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    ft_rng rng;
    ft_pend pend[FT_MAX_THREADS];
    uint64_t seen[FT_MAX_THREADS]; /* keypoints at the last look */
    int asked;                     /* preempt() just asked for a switch */
} pos;

void ft_pos_event_of(const ft_thread *t, uint64_t *obj, int *write)
{
    uintptr_t a = t->kp_addr;
    *obj = 0;
    *write = 0;
    if (!a)
        return;
    switch (t->kp_kind) {
    case FT_KP_READ:
    case FT_KP_AREAD:
        *obj = (uint64_t)(a >> 3) << 1; /* memory: 8-byte words, even */
        break;
    case FT_KP_WRITE:
    case FT_KP_AWRITE:
        *obj = (uint64_t)(a >> 3) << 1;
        *write = 1;
        break;
    case FT_KP_LOCK:
    case FT_KP_DESTROY: /* conflicts with the lock's acquisitions */
        *obj = (uint64_t)a | 1; /* locks: odd, never a memory word */
        *write = 1;
        break;
    default:
        break;
    }
}

int ft_pos_sync(ft_rng *r, ft_pend *p, uint64_t *seen, int tid, int reassign)
{
    const ft_thread *t = &ft_threads[tid];
    uint64_t kp = __atomic_load_n(&t->keypoints, __ATOMIC_RELAXED);
    if (p[tid].live && kp == seen[tid])
        return 0;
    if (p[tid].live && reassign)
        ft_pos_executed(r, p, ft_rt.nthreads, tid);
    uint64_t obj;
    int write;
    ft_pos_event_of(t, &obj, &write);
    ft_pend_new(r, p, tid, obj, write);
    seen[tid] = kp;
    return 1;
}

/* Every live thread's pending event up to date, in thread order (the
 * order only matters for the draws: it is fixed, so a seed decides the
 * run). */
static void sync_all(void)
{
    for (int i = 0; i < ft_rt.nthreads; i++)
        if (__atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) != FT_T_EXITED)
            ft_pos_sync(&pos.rng, pos.pend, pos.seen, i, 1);
}

int64_t ft_pos_budget(int tid)
{
    (void)tid;
    return 1;
}

static int pos_preempt(int tid)
{
    sync_all();
    uint64_t mine = pos.pend[tid].prio;
    for (int i = 0; i < ft_rt.nthreads; i++) {
        if (i == tid ||
            __atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED) != FT_T_RUNNABLE)
            continue;
        if (pos.pend[i].prio > mine) {
            pos.asked = 1;
            return 1;
        }
    }
    return 0;
}

static int pos_pick(const int *enabled, int n, int cur)
{
    int asked = pos.asked;
    pos.asked = 0;
    sync_all();
    int cur_enabled = 0;
    for (int i = 0; i < n; i++)
        cur_enabled |= enabled[i] == cur;
    if (cur_enabled && !asked) {
        /* A yield (sched_yield, a sleep): an event of its own, which ran;
         * the thread's next event gets a fresh priority, so a spin loop
         * leaves the baton to the others with their chance. */
        ft_pos_executed(&pos.rng, pos.pend, ft_rt.nthreads, cur);
        ft_pend_new(&pos.rng, pos.pend, cur, pos.pend[cur].obj, pos.pend[cur].write);
    }
    return ft_pend_best(pos.pend, enabled, n);
}

static int pos_pick_waiter(const int *waiters, int n)
{
    return waiters[ft_rng_below(&pos.rng, (uint64_t)n)];
}

int ft_pos_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid;
    (void)deadline_ns;
    (void)now_ns;
    return 0;
}

static const ft_policy ft_policy_pos = {
    .budget = ft_pos_budget,
    .preempt = pos_preempt,
    .pick = pos_pick,
    .pick_waiter = pos_pick_waiter,
    .expire = ft_pos_expire,
};

int ft_pos_select(const char *spec)
{
    uint64_t seed = 0;
    const char *p = spec + 3;
    while (*p == ':') {
        p++;
        if (strncmp(p, "seed=", 5) != 0) {
            ft_rt_refuse(FT_BAD_STRATEGY_STATUS, "FORETELL_STRATEGY=%s: pos "
                         "takes only seed=X, got %s", spec, p);
        }
        char *e;
        p += 5;
        if (*p < '0' || *p > '9') {
            ft_rt_refuse(FT_BAD_STRATEGY_STATUS, "FORETELL_STRATEGY=%s: "
                         "expected a number >= 0 for seed", spec);
        }
        seed = strtoull(p, &e, 10);
        p = e;
    }
    if (*p) {
        ft_rt_refuse(FT_BAD_STRATEGY_STATUS,
                     "FORETELL_STRATEGY=%s: unexpected '%s'", spec, p);
    }
    memset(&pos, 0, sizeof pos);
    ft_rng_seed(&pos.rng, seed);
    ft_rt.policy = &ft_policy_pos;
    ft_rt_verbose("strategy %s", spec);
    return 0;
}

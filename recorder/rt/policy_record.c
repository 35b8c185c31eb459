/* SPDX-License-Identifier: MIT */
/* policy_record.c - the recording policy: the running thread keeps the
 * baton until it blocks, yields, sleeps or exits, or until a quantum of
 * FORETELL_QUANTUM key points expires; then the next enabled thread runs,
 * round-robin, or drawn at random when FORETELL_SEED is set.  A condvar
 * signal wakes the longest waiter. */
#include "rt.h"

static uint64_t rng_state;

static uint64_t next_random(void)
{
    /* xorshift64*: deterministic for a given seed. */
    uint64_t x = rng_state ? rng_state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

static int64_t record_budget(int tid)
{
    (void)tid;
    return ft_rt.quantum > 0 ? ft_rt.quantum : INT64_MAX;
}

static int record_preempt(int tid)
{
    (void)tid;
    return ft_rt.quantum > 0;
}

static int record_pick(const int *enabled, int n, int cur)
{
    if (ft_rt.seed) {
        if (!rng_state)
            rng_state = ft_rt.seed;
        return enabled[next_random() % (uint64_t)n];
    }
    /* Round-robin: the first enabled tid after cur, wrapping around. */
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (enabled[i] > cur && (best < 0 || enabled[i] < best))
            best = enabled[i];
    }
    if (best >= 0)
        return best;
    best = enabled[0];
    for (int i = 1; i < n; i++)
        if (enabled[i] < best)
            best = enabled[i];
    return best;
}

static int record_pick_waiter(const int *waiters, int n)
{
    (void)n;
    return waiters[0];
}

/* A timed wait times out when its real deadline has passed. */
static int record_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid;
    return deadline_ns <= now_ns;
}

const ft_policy ft_policy_record = {
    .expire = record_expire,
    .budget = record_budget,
    .preempt = record_preempt,
    .pick = record_pick,
    .pick_waiter = record_pick_waiter,
};

/* SPDX-License-Identifier: MIT */
/* policy_sample.h - the random draws of the exploring policies (PCT,
 * RPro, PCTVB change points; priority permutations), kept apart from the
 * runtime so that unit tests can check their distributions directly. */
#ifndef FORETELL_POLICY_SAMPLE_H
#define FORETELL_POLICY_SAMPLE_H

#include <stdint.h>

/* splitmix64: a fixed seed gives a fixed sequence on every machine. */
typedef struct ft_rng { uint64_t s; } ft_rng;
void ft_rng_seed(ft_rng *r, uint64_t seed);
uint64_t ft_rng_next(ft_rng *r);
uint64_t ft_rng_below(ft_rng *r, uint64_t n); /* uniform in [0, n), n > 0 */

/* PCT: count distinct change points uniform over [1, k], in draw order
 * (the i-th drawn gets priority i+1).  Returns how many were drawn
 * (min(count, k)). */
int ft_sample_pct(ft_rng *r, uint64_t k, int count, uint64_t *out);

/* RPro: the first point uniform over [1, k]; the other count-1 distinct,
 * uniform over [k1 - radius, k1 + radius] cut to [1, k], never k1.
 * Returns how many were drawn (fewer when the window is too small). */
int ft_sample_rpro(ft_rng *r, uint64_t k, uint64_t radius, int count,
                   uint64_t *out);

/* A uniform random permutation of 0..n-1 (Fisher-Yates). */
void ft_sample_perm(ft_rng *r, int n, int *out);

/* count distinct values uniform over [0, n) (count <= n). */
int ft_sample_distinct(ft_rng *r, uint64_t n, int count, uint64_t *out);

/* ---- POS and SURW: one pending event per thread ----
 * The decision rules of policy_pos.c and policy_surw.c, kept here (no
 * runtime state) so that the unit tests run them on models. */
typedef struct ft_pend {
    uint64_t prio;  /* random priority of the pending event */
    uint64_t obj;   /* what it touches: a memory word or a lock; 0 none */
    int write;      /* writes the word, or acquires the lock */
    int live;       /* the thread has a pending event */
} ft_pend;

/* t's next event, touching obj (0: nothing shared): a fresh priority. */
void ft_pend_new(ft_rng *r, ft_pend *p, int t, uint64_t obj, int write);
/* Two pending events race: the same object, one of them a write. */
int ft_pend_race(const ft_pend *a, const ft_pend *b);
/* POS (Yuan, Yang and Gu, CAV'18, algorithm 2): t's pending event ran;
 * every other live pending event among p[0..n) racing with it gets a
 * fresh priority.  Returns how many did. */
int ft_pos_executed(ft_rng *r, ft_pend *p, int n, int t);
/* The candidate whose pending event has the highest priority (ties, which
 * have probability 2^-64: the first). */
int ft_pend_best(const ft_pend *p, const int *cand, int n);
/* One SURW step (Zhao et al., ASPLOS'25): among the candidates cand[0..n),
 * a thread whose pending event is not interesting runs first, the one of
 * highest priority (pickFrom: a random priority per event); when every
 * candidate waits at an interesting event, thread t is drawn with
 * probability rem[t] / sum(rem) (rem at least 1 for a candidate: an
 * estimate that ran out still has this event), and rem[t] drops by one. */
int ft_surw_step(ft_rng *r, const ft_pend *p, const unsigned char *interesting,
                 uint64_t *rem, const int *cand, int n);
/* The same step over classes: when every candidate waits at an
 * interesting event, candidates of equal key[t] (threads waiting at the
 * same instruction on the same object: interchangeable for this step)
 * form one class, a class is drawn with probability proportional to the
 * mean of its members' rem, then a member with probability proportional
 * to its rem.  With every key distinct it is ft_surw_step. */
int ft_surw_step_grouped(ft_rng *r, const ft_pend *p,
                         const unsigned char *interesting, uint64_t *rem,
                         const uint64_t *key, const int *cand, int n);

#endif

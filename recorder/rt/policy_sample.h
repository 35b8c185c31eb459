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

#endif

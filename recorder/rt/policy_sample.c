/* policy_sample.c - random draws for the exploring policies (see
 * policy_sample.h).  No state beyond the caller's ft_rng, no libc calls:
 * it runs inside the program under test. */
#include "policy_sample.h"

void ft_rng_seed(ft_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x6a09e667f3bcc909ull;
}

uint64_t ft_rng_next(ft_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Rejection sampling: no modulo bias even for large n. */
uint64_t ft_rng_below(ft_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = ft_rng_next(r);
    while (x >= limit);
    return x % n;
}

static int seen(const uint64_t *v, int n, uint64_t x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

int ft_sample_distinct(ft_rng *r, uint64_t n, int count, uint64_t *out)
{
    if (count < 0)
        count = 0;
    if ((uint64_t)count > n)
        count = (int)n;
    for (int i = 0; i < count; i++) {
        uint64_t x;
        do
            x = ft_rng_below(r, n);
        while (seen(out, i, x));
        out[i] = x;
    }
    return count;
}

int ft_sample_pct(ft_rng *r, uint64_t k, int count, uint64_t *out)
{
    int got = ft_sample_distinct(r, k, count, out);
    for (int i = 0; i < got; i++)
        out[i] += 1;
    return got;
}

int ft_sample_rpro(ft_rng *r, uint64_t k, uint64_t radius, int count,
                   uint64_t *out)
{
    if (count <= 0 || k == 0)
        return 0;
    uint64_t k1 = 1 + ft_rng_below(r, k);
    out[0] = k1;
    uint64_t lo = k1 > radius ? k1 - radius : 1;
    uint64_t hi = k1 + radius < k ? k1 + radius : k;
    uint64_t width = hi - lo; /* points in [lo, hi] other than k1 */
    int rest = count - 1;
    if ((uint64_t)rest > width)
        rest = (int)width;
    for (int i = 1; i <= rest; i++) {
        uint64_t x;
        do {
            x = lo + ft_rng_below(r, width);
            if (x >= k1)
                x++; /* skip k1 itself */
        } while (seen(out, i, x));
        out[i] = x;
    }
    return 1 + rest;
}

void ft_sample_perm(ft_rng *r, int n, int *out)
{
    for (int i = 0; i < n; i++)
        out[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)ft_rng_below(r, (uint64_t)i + 1);
        int t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

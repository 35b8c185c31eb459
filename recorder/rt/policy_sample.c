/* SPDX-License-Identifier: MIT */
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

void ft_pend_new(ft_rng *r, ft_pend *p, int t, uint64_t obj, int write)
{
    p[t].prio = ft_rng_next(r);
    p[t].obj = obj;
    p[t].write = write;
    p[t].live = 1;
}

int ft_pend_race(const ft_pend *a, const ft_pend *b)
{
    return a->live && b->live && a->obj && a->obj == b->obj &&
           (a->write || b->write);
}

int ft_pos_executed(ft_rng *r, ft_pend *p, int n, int t)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i != t && ft_pend_race(&p[i], &p[t])) {
            p[i].prio = ft_rng_next(r);
            k++;
        }
    return k;
}

int ft_pend_best(const ft_pend *p, const int *cand, int n)
{
    int best = cand[0];
    for (int i = 1; i < n; i++)
        if (p[cand[i]].prio > p[best].prio)
            best = cand[i];
    return best;
}

int ft_surw_step(ft_rng *r, const ft_pend *p, const unsigned char *interesting,
                 uint64_t *rem, const int *cand, int n)
{
    int best = -1;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        int t = cand[i];
        if (!interesting[t]) {
            if (best < 0 || p[t].prio > p[best].prio)
                best = t;
        } else {
            total += rem[t] ? rem[t] : 1;
        }
    }
    if (best >= 0)
        return best;
    uint64_t x = ft_rng_below(r, total);
    int t = cand[n - 1];
    for (int i = 0; i < n; i++) {
        uint64_t w = rem[cand[i]] ? rem[cand[i]] : 1;
        if (x < w) {
            t = cand[i];
            break;
        }
        x -= w;
    }
    if (rem[t])
        rem[t]--;
    return t;
}

/* Class sizes of cand[0..n) by key, through an open table (n <= 1024:
 * linear in n where a pairwise count would be quadratic at every step). */
#define SURW_TABLE 2048
static void class_sizes(const uint64_t *key, const int *cand, int n, int *size)
{
    static uint64_t tkey[SURW_TABLE];
    static int tcount[SURW_TABLE], tused[SURW_TABLE], slot[SURW_TABLE / 2];
    for (int i = 0; i < n; i++) {
        uint64_t h = key[cand[i]] * 0x9e3779b97f4a7c15ull >> 53;
        while (tused[h] && tkey[h] != key[cand[i]])
            h = (h + 1) & (SURW_TABLE - 1);
        if (!tused[h]) {
            tused[h] = 1;
            tkey[h] = key[cand[i]];
            tcount[h] = 0;
        }
        tcount[h]++;
        slot[i] = (int)h;
    }
    for (int i = 0; i < n; i++)
        size[i] = tcount[slot[i]];
    for (int i = 0; i < n; i++)
        tused[slot[i]] = 0;
}

int ft_surw_step_grouped(ft_rng *r, const ft_pend *p,
                         const unsigned char *interesting, uint64_t *rem,
                         const uint64_t *key, const int *cand, int n)
{
    static int size[SURW_TABLE / 2];
    int shared = 0;
    if (n > SURW_TABLE / 2)
        return ft_surw_step(r, p, interesting, rem, cand, n);
    for (int i = 0; i < n; i++)
        if (!interesting[cand[i]])
            return ft_surw_step(r, p, interesting, rem, cand, n);
    class_sizes(key, cand, n, size);
    for (int i = 0; i < n; i++)
        shared |= size[i] > 1;
    if (!shared) /* every class a single thread: the plain step */
        return ft_surw_step(r, p, interesting, rem, cand, n);
    /* Each candidate weighs w(t) / |class(t)|: a class then weighs the
     * mean of its members' w, and within it a member weighs its w.  The
     * draw: the first candidate whose cumulative weight passes x. */
    static double cum[SURW_TABLE / 2];
    double total = 0;
    for (int i = 0; i < n; i++) {
        total += (double)(rem[cand[i]] ? rem[cand[i]] : 1) / size[i];
        cum[i] = total;
    }
    double x = (double)(ft_rng_next(r) >> 11) * 0x1.0p-53 * total;
    int k = 0;
    while (k < n - 1 && x >= cum[k])
        k++;
    int t = cand[k];
    rem[t] -= rem[t] != 0;
    return t;
}

/* SPDX-License-Identifier: MIT */
/* test_explore_possurw.c - the decision rules of POS and SURW
 * (recorder/rt/policy_sample.c, as policy_pos.c and policy_surw.c apply
 * them) run on models: threads of events, each touching an object
 * (read or write) and interesting or not, without blocking.
 *
 * SURW: with exact counts, every order of the interesting events (the
 * projection of the run on them) is equally likely (the paper's
 * uniformity); checked by a chi-square over thousands of walks, and the
 * same statistic on a plain random walk must be far off (the check has
 * the power to fail).  Uninteresting events run first.
 * POS: probabilities that follow from its definition (priority per event,
 * fresh for a thread's next event, reassigned for the pending events that
 * race with the one that ran), computed by hand: 1/3 for a thread to run
 * two events before another's unrelated one, 1/4 when that one races
 * with the first; and the law over all interleavings of a three-thread
 * model against an independent simulation of the definition (two-sample
 * chi-square). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "recorder/rt/policy_sample.h"

#define MAXT 4
#define MAXE 6

typedef struct mev {
    uint64_t obj; /* 0: nothing shared */
    int write, interesting;
} mev;

typedef struct model {
    int n;
    int len[MAXT];
    mev ev[MAXT][MAXE];
} model;

/* Encodes a sequence of thread ids (base n+1, so prefixes differ). */
static uint64_t encode(const int *seq, int k, int n)
{
    uint64_t c = 0;
    for (int i = 0; i < k; i++)
        c = c * (uint64_t)(n + 1) + (uint64_t)(seq[i] + 1);
    return c;
}

/* Counts of codes: a small open table. */
typedef struct hist {
    uint64_t code[4096], count[4096];
    int used;
} hist;

static void hist_add(hist *h, uint64_t code)
{
    for (int i = 0; i < h->used; i++)
        if (h->code[i] == code) {
            h->count[i]++;
            return;
        }
    assert_true(h->used < 4096);
    h->code[h->used] = code;
    h->count[h->used++] = 1;
}

static uint64_t hist_get(const hist *h, uint64_t code)
{
    for (int i = 0; i < h->used; i++)
        if (h->code[i] == code)
            return h->count[i];
    return 0;
}

static double chi2_uniform(const hist *h, int classes, uint64_t runs)
{
    double e = (double)runs / classes, s = 0;
    for (int i = 0; i < h->used; i++) {
        double d = (double)h->count[i] - e;
        s += d * d / e;
    }
    return s + (double)(classes - h->used) * e; /* classes never seen */
}

/* One walk of m; mode 0: SURW, 1: uniform random walk.  Returns the code
 * of the interesting events' order; *first_ok says whether every step
 * with an uninteresting candidate ran one. */
static uint64_t walk(const model *m, ft_rng *r, int mode, int *first_ok)
{
    ft_pend p[MAXT];
    unsigned char interesting[MAXT];
    uint64_t rem[MAXT];
    int pos[MAXT] = {0}, seq[MAXT * MAXE], k = 0;
    memset(p, 0, sizeof p);
    for (int t = 0; t < m->n; t++) {
        rem[t] = 0;
        for (int e = 0; e < m->len[t]; e++)
            rem[t] += (uint64_t)m->ev[t][e].interesting;
        ft_pend_new(r, p, t, m->ev[t][0].obj, m->ev[t][0].write);
        interesting[t] = (unsigned char)m->ev[t][0].interesting;
    }
    for (;;) {
        int cand[MAXT], nc = 0, any_u = 0;
        for (int t = 0; t < m->n; t++)
            if (pos[t] < m->len[t]) {
                cand[nc++] = t;
                any_u |= !interesting[t];
            }
        if (!nc)
            break;
        int c = mode == 0 ? ft_surw_step(r, p, interesting, rem, cand, nc)
                          : cand[ft_rng_below(r, (uint64_t)nc)];
        if (any_u && interesting[c])
            *first_ok = 0;
        if (interesting[c])
            seq[k++] = c;
        if (++pos[c] < m->len[c]) {
            const mev *e = &m->ev[c][pos[c]];
            ft_pend_new(r, p, c, e->obj, e->write);
            interesting[c] = (unsigned char)e->interesting;
        }
    }
    return encode(seq, k, m->n);
}

static const model surw_model = {
    .n = 3,
    .len = {4, 2, 3},
    .ev = {{{0, 0, 0}, {2, 1, 1}, {0, 0, 0}, {2, 0, 1}},
           {{2, 1, 1}, {0, 0, 0}},
           {{0, 0, 0}, {4, 1, 0}, {2, 0, 1}}},
};

static void test_surw_uniform(void **state)
{
    (void)state;
    /* Interesting events per thread 2, 1, 1: 4!/(2! 1! 1!) = 12 orders. */
    enum { RUNS = 24000, CLASSES = 12 };
    static hist h, rw;
    memset(&h, 0, sizeof h);
    memset(&rw, 0, sizeof rw);
    ft_rng r;
    ft_rng_seed(&r, 2025);
    int first_ok = 1;
    for (int i = 0; i < RUNS; i++) {
        hist_add(&h, walk(&surw_model, &r, 0, &first_ok));
        int dummy = 1;
        hist_add(&rw, walk(&surw_model, &r, 1, &dummy));
    }
    assert_true(first_ok);
    assert_int_equal(h.used, CLASSES);
    /* 11 degrees of freedom: p < 1e-6 above ~50. */
    double s = chi2_uniform(&h, CLASSES, RUNS);
    assert_true(s < 50);
    /* The random walk reaches the same orders, far from uniformly. */
    assert_int_equal(rw.used, CLASSES);
    assert_true(chi2_uniform(&rw, CLASSES, RUNS) > 500);
}

/* Estimates that are too low still leave every thread a chance (weight
 * at least 1) and never go below zero. */
static void test_surw_low_estimates(void **state)
{
    (void)state;
    ft_rng r;
    ft_rng_seed(&r, 3);
    ft_pend p[2] = {{0}};
    unsigned char in[2] = {1, 1};
    uint64_t seen[2] = {0};
    for (int i = 0; i < 4000; i++) {
        uint64_t rem[2] = {0, 0};
        int cand[2] = {0, 1};
        seen[ft_surw_step(&r, p, in, rem, cand, 2)]++;
        assert_true(rem[0] == 0 && rem[1] == 0);
    }
    assert_true(seen[0] > 1700 && seen[1] > 1700);
    /* Weights 3 : 1. */
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 8000; i++) {
        uint64_t rem[2] = {3, 1};
        int cand[2] = {0, 1};
        seen[ft_surw_step(&r, p, in, rem, cand, 2)]++;
    }
    assert_true(seen[0] > 5700 && seen[0] < 6300);
}

/* POS on a model, with the library's rules (reassign: 1) or without the
 * reassignment (BasicPOS, 0).  Returns the code of the whole run. */
static uint64_t pos_walk(const model *m, ft_rng *r, int reassign)
{
    ft_pend p[MAXT];
    int pos[MAXT] = {0}, seq[MAXT * MAXE], k = 0;
    memset(p, 0, sizeof p);
    for (int t = 0; t < m->n; t++)
        ft_pend_new(r, p, t, m->ev[t][0].obj, m->ev[t][0].write);
    for (;;) {
        int cand[MAXT], nc = 0;
        for (int t = 0; t < m->n; t++)
            if (pos[t] < m->len[t])
                cand[nc++] = t;
        if (!nc)
            break;
        int c = ft_pend_best(p, cand, nc);
        seq[k++] = c;
        if (reassign)
            ft_pos_executed(r, p, m->n, c);
        if (++pos[c] < m->len[c]) {
            const mev *e = &m->ev[c][pos[c]];
            ft_pend_new(r, p, c, e->obj, e->write);
        } else {
            p[c].live = 0;
        }
    }
    return encode(seq, k, m->n);
}

/* The definition simulated independently: real-valued priorities from
 * the C library's generator, one per (thread, event index), redrawn for
 * the pending events that conflict with the one executed. */
static uint64_t pos_reference(const model *m, unsigned *seed)
{
    double prio[MAXT];
    int pos[MAXT] = {0}, seq[MAXT * MAXE], k = 0;
    for (int t = 0; t < m->n; t++)
        prio[t] = (double)rand_r(seed) / ((double)RAND_MAX + 1);
    for (;;) {
        int best = -1;
        for (int t = 0; t < m->n; t++)
            if (pos[t] < m->len[t] && (best < 0 || prio[t] > prio[best]))
                best = t;
        if (best < 0)
            break;
        seq[k++] = best;
        const mev *done = &m->ev[best][pos[best]];
        for (int t = 0; t < m->n; t++) {
            if (t == best || pos[t] >= m->len[t])
                continue;
            const mev *e = &m->ev[t][pos[t]];
            if (done->obj && e->obj == done->obj && (done->write || e->write))
                prio[t] = (double)rand_r(seed) / ((double)RAND_MAX + 1);
        }
        if (++pos[best] < m->len[best])
            prio[best] = (double)rand_r(seed) / ((double)RAND_MAX + 1);
    }
    return encode(seq, k, m->n);
}

static double share(const model *m, int reassign, uint64_t code, int runs)
{
    ft_rng r;
    ft_rng_seed(&r, 99);
    int hit = 0;
    for (int i = 0; i < runs; i++)
        hit += pos_walk(m, &r, reassign) == code;
    return (double)hit / runs;
}

static void test_pos_by_hand(void **state)
{
    (void)state;
    int seq[3] = {0, 0, 1};
    /* T0 runs two events before T1's one: unrelated objects, 1/3 (T1's
     * priority below both of T0's); a random walk gives 1/4. */
    model m1 = {.n = 2, .len = {2, 1},
                .ev = {{{2, 1, 0}, {4, 1, 0}}, {{6, 1, 0}}}};
    double a = share(&m1, 1, encode(seq, 3, 2), 60000);
    assert_true(a > 0.323 && a < 0.344);
    /* T1's event writes the object T0's first event wrote: it is
     * reassigned once that ran, so 1/2 * 1/2 = 1/4; without the
     * reassignment (BasicPOS) it stays 1/3. */
    model m2 = {.n = 2, .len = {2, 1},
                .ev = {{{2, 1, 0}, {4, 1, 0}}, {{2, 1, 0}}}};
    double b = share(&m2, 1, encode(seq, 3, 2), 60000);
    assert_true(b > 0.240 && b < 0.260);
    double c = share(&m2, 0, encode(seq, 3, 2), 60000);
    assert_true(c > 0.323 && c < 0.344);
}

static void test_pos_law(void **state)
{
    (void)state;
    /* T0: w x, r y; T1: w y, w x; T2: r x, r z: 6!/(2! 2! 2!) = 90 runs. */
    model m = {.n = 3, .len = {2, 2, 2},
               .ev = {{{2, 1, 0}, {4, 0, 0}},
                      {{4, 1, 0}, {2, 1, 0}},
                      {{2, 0, 0}, {6, 0, 0}}}};
    enum { RUNS = 90000 };
    static hist h, ref;
    memset(&h, 0, sizeof h);
    memset(&ref, 0, sizeof ref);
    ft_rng r;
    ft_rng_seed(&r, 11);
    unsigned seed = 5;
    for (int i = 0; i < RUNS; i++) {
        hist_add(&h, pos_walk(&m, &r, 1));
        hist_add(&ref, pos_reference(&m, &seed));
    }
    assert_int_equal(h.used, 90);
    assert_int_equal(ref.used, 90);
    /* Two-sample chi-square, 89 degrees of freedom: p < 1e-6 above ~160. */
    double s = 0;
    for (int i = 0; i < h.used; i++) {
        double x = (double)h.count[i], y = (double)hist_get(&ref, h.code[i]);
        s += (x - y) * (x - y) / (x + y);
    }
    assert_true(s < 160);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_surw_uniform),
        cmocka_unit_test(test_surw_low_estimates),
        cmocka_unit_test(test_pos_by_hand),
        cmocka_unit_test(test_pos_law),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

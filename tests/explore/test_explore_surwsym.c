/* SPDX-License-Identifier: MIT */
/* test_explore_surwsym.c - the class draw of surw-sym
 * (ft_surw_step_grouped, recorder/rt/policy_sample.c) on models.
 *
 * - With every class a single thread it is SURW's step, draw for draw.
 * - Its law, computed by hand: a class weighs the mean of its members'
 *   remaining counts, a member within its class its own count.
 * - "One checker among N setters" (data/reorder.c): the probability of
 *   the bug under the walk, computed exactly by a recursion over the
 *   model's states (an oracle that shares no code with the library), for
 *   SURW's step and for the class draw; Monte Carlo walks of the library
 *   functions must agree with both within four standard errors, and the
 *   class draw's probability must not fall with N where SURW's does
 *   (1/(N+1) or so: the check can fail).
 * - surw-sym's choice of variables (fx_surw_draw_vars): on random small
 *   calibrations, the law of the ordered pair drawn, computed exactly
 *   from the definition (first uniform, the second by the Jaccard
 *   similarity of thread sets plus 0.1), against 4,000 seeds; the
 *   stages-like case by hand (the pair both the last stage and the
 *   reader touch: 2/3 x 1.1/1.2); surw's draw stays uniform.
 * - The runs' specs: the class draw (g=1) in surw-sym's even runs only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* cmocka.h needs the headers above first */
#include <cmocka.h>

#include "recorder/rt/policy_sample.h"
#include "replay/explore.h"

#define MAXN 64

static void test_singletons_are_plain(void **state)
{
    (void)state;
    ft_rng a, b, shape;
    ft_rng_seed(&a, 11);
    ft_rng_seed(&b, 11);
    ft_rng_seed(&shape, 5);
    for (int i = 0; i < 20000; i++) {
        int n = 1 + (int)ft_rng_below(&shape, 8), cand[8];
        ft_pend p[8];
        unsigned char in[8];
        uint64_t ra[8], rb[8], key[8];
        for (int t = 0; t < n; t++) {
            cand[t] = t;
            p[t].prio = ft_rng_next(&shape);
            p[t].obj = 0;
            p[t].write = 0;
            p[t].live = 1;
            in[t] = (unsigned char)(ft_rng_below(&shape, 4) != 0);
            ra[t] = rb[t] = ft_rng_below(&shape, 5);
            key[t] = (uint64_t)t * 7 + 1; /* all distinct */
        }
        int x = ft_surw_step(&a, p, in, ra, cand, n);
        int y = ft_surw_step_grouped(&b, p, in, rb, key, cand, n);
        assert_int_equal(x, y);
        assert_memory_equal(ra, rb, sizeof(uint64_t) * (size_t)n);
    }
}

/* Draws from one state, counting picks. */
static void draws(int n, const uint64_t *rem0, const uint64_t *key,
                  const unsigned char *in, int runs, uint64_t *seen)
{
    ft_rng r;
    ft_rng_seed(&r, 77);
    ft_pend p[MAXN];
    int cand[MAXN];
    memset(p, 0, sizeof p);
    for (int t = 0; t < n; t++) {
        cand[t] = t;
        p[t].prio = (uint64_t)t;
        seen[t] = 0;
    }
    for (int i = 0; i < runs; i++) {
        uint64_t rem[MAXN];
        memcpy(rem, rem0, sizeof(uint64_t) * (size_t)n);
        int c = ft_surw_step_grouped(&r, p, in, rem, key, cand, n);
        assert_true(rem[c] + (in[c] && rem0[c] != 0) == rem0[c]);
        seen[c]++;
    }
}

static void test_class_law(void **state)
{
    (void)state;
    enum { RUNS = 40000 };
    unsigned char in[MAXN];
    uint64_t rem[MAXN], key[MAXN], seen[MAXN];
    memset(in, 1, sizeof in);
    /* One checker (rem 2) and nine setters at one instruction (rem 2):
     * 1/2 for the checker, where SURW's step gives it 1/10. */
    for (int t = 0; t < 10; t++) {
        rem[t] = 2;
        key[t] = t == 0 ? 1 : 2;
    }
    draws(10, rem, key, in, RUNS, seen);
    assert_true(fabs((double)seen[0] / RUNS - 0.5) < 0.015);
    /* The checker at its last event (rem 1): 1/3. */
    rem[0] = 1;
    draws(10, rem, key, in, RUNS, seen);
    assert_true(fabs((double)seen[0] / RUNS - 1.0 / 3) < 0.015);
    /* A class of two with counts 3 and 1 (mean 2) and a single thread
     * with 2: 1/2 for the single one, 3/8 and 1/8 within the class. */
    uint64_t rem3[3] = {2, 3, 1}, key3[3] = {5, 9, 9};
    draws(3, rem3, key3, in, RUNS, seen);
    assert_true(fabs((double)seen[0] / RUNS - 0.5) < 0.015);
    assert_true(fabs((double)seen[1] / RUNS - 0.375) < 0.015);
    assert_true(fabs((double)seen[2] / RUNS - 0.125) < 0.015);
    /* An uninteresting candidate still runs first. */
    unsigned char mixed[3] = {1, 0, 1};
    draws(3, rem3, key3, mixed, 1000, seen);
    assert_true(seen[1] == 1000);
}

/* The reorder model: the checker reads a, then b; each of n setters
 * writes a = 1, then b = -1.  The bug: the checker sees a == 0 and
 * b == -1, or a == 1 and b == 0.  Exact probability under the walk, by
 * recursion over (checker's events done, setters at their first event,
 * at their second, done, the a it read); grouped: the setters at one
 * instruction form one class. */
static double exact(int c, int n0, int n1, int n2, int sa, int grouped)
{
    if (c == 2)
        return 0;
    double wc = 2 - c, w0 = n0 ? (grouped ? 2 : 2.0 * n0) : 0,
           w1 = n1 ? (grouped ? 1 : 1.0 * n1) : 0, tot = wc + w0 + w1, r = 0;
    if (c == 0) {
        r += wc / tot * exact(1, n0, n1, n2, n1 + n2 > 0, grouped);
    } else {
        int b = n2 > 0 ? -1 : 0;
        r += wc / tot * !((sa == 0 && b == 0) || (sa == 1 && b == -1));
    }
    if (n0)
        r += w0 / tot * exact(c, n0 - 1, n1 + 1, n2, sa, grouped);
    if (n1)
        r += w1 / tot * exact(c, n0, n1 - 1, n2 + 1, sa, grouped);
    return r;
}

/* Memo for exact() at n setters: (c, n0, n1) determine n2. */
static double memo[2][3][MAXN + 1][MAXN + 1][2];
static unsigned char known[2][3][MAXN + 1][MAXN + 1][2];
static double exact_memo(int n, int c, int n0, int n1, int sa, int g);

static double exact_at(int n, int grouped)
{
    memset(known, 0, sizeof known);
    return exact_memo(n, 0, n, 0, 0, grouped);
}

static double exact_memo(int n, int c, int n0, int n1, int sa, int g)
{
    if (c == 2)
        return 0;
    if (known[g][c][n0][n1][sa])
        return memo[g][c][n0][n1][sa];
    int n2 = n - n0 - n1;
    double wc = 2 - c, w0 = n0 ? (g ? 2 : 2.0 * n0) : 0,
           w1 = n1 ? (g ? 1 : 1.0 * n1) : 0, tot = wc + w0 + w1, r = 0;
    if (c == 0) {
        r += wc / tot * exact_memo(n, 1, n0, n1, n1 + n2 > 0, g);
    } else {
        int b = n2 > 0 ? -1 : 0;
        r += wc / tot * !((sa == 0 && b == 0) || (sa == 1 && b == -1));
    }
    if (n0)
        r += w0 / tot * exact_memo(n, c, n0 - 1, n1 + 1, sa, g);
    if (n1)
        r += w1 / tot * exact_memo(n, c, n0, n1 - 1, sa, g);
    known[g][c][n0][n1][sa] = 1;
    memo[g][c][n0][n1][sa] = r;
    return r;
}

/* One walk of the model with the library's step; 1 if the bug happens. */
static int walk(ft_rng *r, int n, int grouped)
{
    ft_pend p[MAXN + 1];
    unsigned char in[MAXN + 1];
    uint64_t rem[MAXN + 1], key[MAXN + 1];
    int pos[MAXN + 1], cand[MAXN + 1], a = 0, b = 0, seen_a = 0;
    memset(p, 0, sizeof p);
    memset(in, 1, sizeof in);
    for (int t = 0; t <= n; t++) { /* thread n is the checker */
        rem[t] = 2;
        pos[t] = 0;
        key[t] = t == n ? 100 : 0;
    }
    for (;;) {
        int nc = 0;
        for (int t = 0; t <= n; t++)
            if (pos[t] < 2)
                cand[nc++] = t;
        if (pos[n] == 2 || !nc)
            break;
        int c = grouped ? ft_surw_step_grouped(r, p, in, rem, key, cand, nc)
                        : ft_surw_step(r, p, in, rem, cand, nc);
        if (c == n) {
            if (pos[n] == 0)
                seen_a = a;
            else
                return !((seen_a == 0 && b == 0) || (seen_a == 1 && b == -1));
        } else if (pos[c] == 0) {
            a = 1;
        } else {
            b = -1;
        }
        pos[c]++;
        key[c] = c == n ? 101 : (uint64_t)pos[c]; /* its next instruction */
    }
    return 0;
}

static void test_reorder_exact(void **state)
{
    (void)state;
    enum { RUNS = 20000 };
    const int sizes[] = {4, 10, 50};
    double prev_u = 1;
    /* The recursion without memo on the smallest size, as a check of the
     * memo itself. */
    assert_true(fabs(exact(0, 4, 0, 0, 0, 0) - exact_at(4, 0)) < 1e-12);
    assert_true(fabs(exact(0, 4, 0, 0, 0, 1) - exact_at(4, 1)) < 1e-12);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        for (int g = 0; g < 2; g++) {
            double want = exact_at(n, g);
            ft_rng r;
            ft_rng_seed(&r, (uint64_t)(1000 + n * 2 + g));
            int hit = 0;
            for (int i = 0; i < RUNS; i++)
                hit += walk(&r, n, g);
            double got = (double)hit / RUNS,
                   se = sqrt(want * (1 - want) / RUNS);
            print_message("reorder n=%d %s: exact %.4f, walks %.4f\n", n,
                          g ? "surw-sym" : "surw", want, got);
            assert_true(fabs(got - want) < 4 * se + 1e-9);
            if (g) /* 1/3 whatever n is */
                assert_true(fabs(want - 1.0 / 3) < 1e-9);
            else { /* falls with n: about 2/(n+2) */
                assert_true(want < prev_u);
                prev_u = want;
            }
        }
    }
    assert_true(prev_u < 0.05); /* SURW at 50 setters */
}

/* A calibration of nv variables over nt threads: var v touched by the
 * threads whose bit is set in set[v]. */
typedef struct calib_buf {
    fx_calib c;
    uint64_t first[9];
    uint32_t tid[8 * 16];
    uint64_t count[8 * 16];
    char names[8][48];
} calib_buf;

static void make_calib(calib_buf *b, int nv, int nt, const unsigned *set)
{
    memset(b, 0, sizeof *b);
    uint64_t k = 0;
    for (int v = 0; v < nv; v++) {
        b->first[v] = k;
        for (int t = 0; t < nt; t++)
            if (set[v] >> t & 1) {
                b->tid[k] = (uint32_t)t;
                b->count[k++] = 1;
            }
    }
    b->first[nv] = k;
    b->c.threads = (uint64_t)nt;
    b->c.nsvars = (uint64_t)nv;
    b->c.svar = b->names;
    b->c.sv_first = b->first;
    b->c.sv_tid = b->tid;
    b->c.sv_count = b->count;
}

/* The definition, independently: P(first = i, second = j). */
static double pair_law(int nv, const unsigned *set, int i, int j)
{
    if (i == j)
        return 0;
    double total = 0, wj = 0;
    for (int k = 0; k < nv; k++) {
        if (k == i)
            continue;
        int inter = __builtin_popcount(set[i] & set[k]),
            uni = __builtin_popcount(set[i] | set[k]);
        double w = (uni ? (double)inter / uni : 0) + 0.1;
        total += w;
        if (k == j)
            wj = w;
    }
    return 1.0 / nv * wj / total;
}

static void test_correlated_vars(void **state)
{
    (void)state;
    enum { SEEDS = 4000 };
    static calib_buf b;
    ft_rng shape;
    ft_rng_seed(&shape, 8);
    for (int round = 0; round < 30; round++) {
        int nv = 3 + (int)ft_rng_below(&shape, 4), nt = 6;
        unsigned set[8];
        for (int v = 0; v < nv; v++) /* at least two threads each */
            do
                set[v] = (unsigned)ft_rng_below(&shape, 1u << nt);
            while (__builtin_popcount(set[v]) < 2);
        make_calib(&b, nv, nt, set);
        static uint64_t hits[8][8];
        memset(hits, 0, sizeof hits);
        for (uint64_t seed = 0; seed < SEEDS; seed++) {
            uint64_t ch[16];
            assert_int_equal(fx_surw_draw_vars(&b.c, seed, 2, 1, ch), 2);
            assert_true(ch[0] < (uint64_t)nv && ch[1] < (uint64_t)nv &&
                        ch[0] != ch[1]);
            hits[ch[0]][ch[1]]++;
        }
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < nv; j++) {
                double p = pair_law(nv, set, i, j),
                       got = (double)hits[i][j] / SEEDS,
                       se = sqrt(p * (1 - p) / SEEDS);
                if (fabs(got - p) > 4.5 * se + 1e-9)
                    fail_msg("round %d pair %d,%d: %.4f, expected %.4f", round,
                             i, j, got, p);
            }
        /* asking for more than there are gives each once */
        uint64_t all[16];
        assert_int_equal(fx_surw_draw_vars(&b.c, 7, 16, 1, all), nv);
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < i; j++)
                assert_true(all[i] != all[j]);
    }
    /* stages: a lock every stage takes (threads 0-9) and the two
     * variables of the last stage (9) and the reader (10) */
    unsigned stages[3] = {0x3ff, 0x600, 0x600};
    make_calib(&b, 3, 11, stages);
    int pair = 0, pair_uniform = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        uint64_t ch[16];
        fx_surw_draw_vars(&b.c, seed, 2, 1, ch);
        pair += ch[0] + ch[1] == 3;
        fx_surw_draw_vars(&b.c, seed, 2, 0, ch);
        pair_uniform += ch[0] + ch[1] == 3;
    }
    /* J(lock, either) = 1/11: 2/3 x 1.1/(1.1 + 1/11 + 0.1) */
    double want = 2.0 / 3 * 1.1 / (1.2 + 1.0 / 11);
    assert_true(fabs((double)pair / SEEDS - want) < 0.03);
    assert_true(fabs((double)pair_uniform / SEEDS - 1.0 / 3) < 0.03);
}

/* The runs' specs: surw-sym asks for the class draw (g=1) in the even
 * runs only, surw never; both give each thread its count. */
static void test_specs_alternate(void **state)
{
    (void)state;
    static calib_buf b;
    unsigned set[2] = {0x7, 0x6};
    make_calib(&b, 2, 3, set);
    snprintf(b.names[0], sizeof b.names[0], "g0.10");
    snprintf(b.names[1], sizeof b.names[1], "g0.20");
    fx_opts o;
    fx_opts_default(&o);
    for (int sym = 0; sym < 2; sym++) {
        void *st = fx_surw_init(&o, &b.c);
        assert_non_null(st);
        for (uint64_t i = 0; i < 8; i++) {
            char spec[256];
            assert_true(fx_surw_next(st, i, sym, spec, sizeof spec));
            int g = strstr(spec, ":g=1") != NULL;
            assert_int_equal(g, sym && i % 2 == 0);
            assert_non_null(strstr(spec, ":w=1,2*2"));
        }
        free(st);
    }
    /* a spec that does not fit is refused, not cut */
    void *st = fx_surw_init(&o, &b.c);
    char small[36]; /* fits "surw:seed=0:v=g0.10,g0.20:w=1,2*2" (33), not ":g=1"
                     */
    assert_false(fx_surw_next(st, 0, 1, small, sizeof small));
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_singletons_are_plain),
        cmocka_unit_test(test_class_law),
        cmocka_unit_test(test_reorder_exact),
        cmocka_unit_test(test_correlated_vars),
        cmocka_unit_test(test_specs_alternate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

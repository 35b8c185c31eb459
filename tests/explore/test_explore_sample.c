/* SPDX-License-Identifier: MIT */
/* test_explore_sample.c - the random draws of the exploring policies
 * (recorder/rt/policy_sample.c) against their specifications: PCT's
 * change points are distinct and uniform over [1, k]; RPro's first point
 * is uniform over [1, k] and the others distinct, inside the radius and
 * never the first; permutations are uniform.  Frequencies are checked
 * with a chi-square bound far beyond chance (fixed seeds: the test is
 * deterministic, but it would fail for a biased or shifted sampler). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "recorder/rt/policy_sample.h"
#include "replay/explore.h"

/* Chi-square statistic of counts against a uniform expectation. */
static double chi2(const uint64_t *count, int bins, double expect)
{
    double s = 0;
    for (int i = 0; i < bins; i++) {
        double d = (double)count[i] - expect;
        s += d * d / expect;
    }
    return s;
}

static void test_below_uniform(void **state)
{
    (void)state;
    ft_rng r;
    ft_rng_seed(&r, 7);
    uint64_t count[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t x = ft_rng_below(&r, 7);
        assert_true(x < 7);
        count[x]++;
    }
    /* 6 degrees of freedom: p < 1e-6 above ~35. */
    assert_true(chi2(count, 7, 10000) < 35);
}

static void test_pct_points(void **state)
{
    (void)state;
    enum { K = 12, D1 = 3, N = 60000 };
    ft_rng r;
    ft_rng_seed(&r, 42);
    uint64_t count[K + 1] = {0}, first[K + 1] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t p[D1];
        assert_int_equal(ft_sample_pct(&r, K, D1, p), D1);
        for (int a = 0; a < D1; a++) {
            assert_true(p[a] >= 1 && p[a] <= K);
            for (int b = 0; b < a; b++)
                assert_true(p[a] != p[b]);
            count[p[a]]++;
        }
        first[p[0]]++;
    }
    assert_int_equal(count[0], 0);
    /* Every point equally likely, and so is the first drawn (the one that
     * gets priority 1). 11 dof: p < 1e-6 above ~48. */
    assert_true(chi2(count + 1, K, (double)N * D1 / K) < 48);
    assert_true(chi2(first + 1, K, (double)N / K) < 48);
    /* k smaller than the points asked: each point once. */
    uint64_t p[5];
    assert_int_equal(ft_sample_pct(&r, 3, 5, p), 3);
    assert_int_equal(p[0] + p[1] + p[2], 6);
}

static void test_rpro_radius(void **state)
{
    (void)state;
    enum { K = 200, R = 5, N = 40000 };
    ft_rng r;
    ft_rng_seed(&r, 3);
    uint64_t first[K + 1] = {0}, offset[2 * R + 1] = {0};
    uint64_t inner = 0;
    for (int i = 0; i < N; i++) {
        uint64_t p[4];
        int n = ft_sample_rpro(&r, K, R, 4, p);
        assert_int_equal(n, 4);
        assert_true(p[0] >= 1 && p[0] <= K);
        first[p[0]]++;
        for (int a = 1; a < n; a++) {
            assert_true(p[a] >= 1 && p[a] <= K);
            assert_true(p[a] != p[0]);
            uint64_t dist = p[a] > p[0] ? p[a] - p[0] : p[0] - p[a];
            assert_true(dist <= R);
            for (int b = 0; b < a; b++)
                assert_true(p[a] != p[b]);
            if (p[0] > R && p[0] + R <= K) { /* window not cut */
                offset[(int)(p[a] - p[0]) + R]++;
                inner++;
            }
        }
    }
    /* First point uniform over [1, K] (199 dof: p < 1e-6 above ~300). */
    assert_true(chi2(first + 1, K, (double)N / K) < 300);
    /* The others uniform over the 2R window positions, never offset 0. */
    assert_int_equal(offset[R], 0);
    uint64_t w[2 * R];
    for (int i = 0, j = 0; i <= 2 * R; i++)
        if (i != R)
            w[j++] = offset[i];
    assert_true(chi2(w, 2 * R, (double)inner / (2 * R)) < 40);
    /* A window too small for the points asked: as many as fit. */
    uint64_t p[6];
    int n = ft_sample_rpro(&r, 3, 1, 6, p);
    assert_true(n >= 2 && n <= 3);
    for (int a = 1; a < n; a++)
        assert_true(p[a] != p[0] && p[a] >= 1 && p[a] <= 3);
}

static void test_perm_uniform(void **state)
{
    (void)state;
    ft_rng r;
    ft_rng_seed(&r, 11);
    uint64_t count[27] = {0};
    for (int i = 0; i < 60000; i++) {
        int p[3];
        ft_sample_perm(&r, 3, p);
        assert_true(p[0] != p[1] && p[1] != p[2] && p[0] != p[2]);
        count[p[0] * 9 + p[1] * 3 + p[2]]++;
    }
    uint64_t six[6];
    int j = 0;
    for (int i = 0; i < 27; i++)
        if (count[i])
            six[j++] = count[i];
    assert_int_equal(j, 6);
    assert_true(chi2(six, 6, 10000) < 31);
}

static void test_seed_determinism(void **state)
{
    (void)state;
    ft_rng a, b;
    ft_rng_seed(&a, 99);
    ft_rng_seed(&b, 99);
    for (int i = 0; i < 100; i++)
        assert_int_equal(ft_rng_next(&a), ft_rng_next(&b));
    ft_rng_seed(&b, 100);
    assert_true(ft_rng_next(&a) != ft_rng_next(&b));
}

/* Runs of two base seeds never share a seed (in the first 10,000 runs of
 * base seeds 0..49), and base 0 keeps the plain run numbers. */
static void test_run_seeds_disjoint(void **state)
{
    (void)state;
    enum { BASES = 50, RUNS = 10000 };
    for (uint64_t i = 0; i < RUNS; i++)
        assert_int_equal(fx_run_seed(0, i), i);
    for (uint64_t a = 0; a < BASES; a++)
        for (uint64_t b = a + 1; b < BASES; b++) {
            /* run i of a equals run j of b iff (b - a) * phi = i - j */
            uint64_t d = fx_run_seed(b, 0) - fx_run_seed(a, 0);
            assert_true(d >= RUNS && -d >= RUNS);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_below_uniform),
        cmocka_unit_test(test_pct_points),
        cmocka_unit_test(test_rpro_radius),
        cmocka_unit_test(test_perm_uniform),
        cmocka_unit_test(test_seed_determinism),
        cmocka_unit_test(test_run_seeds_disjoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

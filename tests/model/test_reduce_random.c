/* SPDX-License-Identifier: MIT */
/* test_reduce_random.c - the reductions against the oracle over thousands
 * of generated traces (2 and 3 threads; locks, trylocks, recursive
 * mutexes, condvars, semaphores, rwlocks, fork/join): CXT keeps a
 * representative of every equivalence class of feasible schedules (with
 * and without the read-value constraint), lockset/HB never rules out a
 * switch a feasible run takes, and merging and slicing preserve the
 * orders of the transitions they must preserve; the slice's closure
 * keeps what the plain backward scan keeps. */
#include "check.h"
#include "gen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

static unsigned nseeds(void)
{
    const char *s = getenv("FT_MODEL_SEEDS");
    return s ? (unsigned)strtoul(s, NULL, 10) : 1000;
}

static ft_ctm *make(uint64_t seed, char *tag, size_t taglen)
{
    gen_params p;
    gen_small_params(seed, &p);
    evbuf b = {0};
    gen_run(seed, &p, &b);
    snprintf(tag, taglen, "seed %llu (%u threads)", (unsigned long long)seed,
             p.nthreads);
    ft_ctm *c = load_events(&b, "rand");
    evbuf_free(&b);
    return c;
}

static void run_all(unsigned flags)
{
    unsigned n = nseeds(), failures = 0, checked = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        char tag[64];
        ft_ctm *c = make(seed, tag, sizeof tag);
        assert_non_null(c);
        if (c->ntrans > ORACLE_MAX_TRANS || c->ntrans > 26) {
            ft_ctm_free(c);
            continue;
        }
        ft_reduced *r = ft_reduce(c, flags);
        assert_non_null(r);
        checked++;
        int bad = check_cxt_sound(r, 1, tag) || check_cxt_sound(r, 0, tag) ||
                  check_lockset_sound(r, tag) || check_merge_preserves(r, tag);
        /* slice for one and for two shared transitions */
        uint32_t prop[2], np = 0;
        for (uint32_t x = c->ntrans; x-- > 0 && np < 2;)
            if (ft_ctm_is_shared(c, x) && (seed + x) % 3 == 0)
                prop[np++] = x;
        if (!bad && np)
            bad = check_slice_preserves(c, prop, np, flags, tag) != 0;
        failures += bad;
        ft_reduced_free(r);
        ft_ctm_free(c);
    }
    fprintf(stderr, "checked %u generated models, %u failed\n", checked,
            failures);
    assert_true(checked > n / 2);
    assert_int_equal(failures, 0);
}

/* The slice's closure as it was computed before the index (reduce/
 * slice.c): each kept transition scans every other thread backwards from
 * its end for the last transition that conflicts with it and need not
 * happen after it.  Quadratic, and obviously the rule: the oracle of
 * ft_slice_mark. */
static void scan_slice(ft_ctm *c, const uint32_t *prop, uint32_t n,
                       uint8_t *keep)
{
    uint32_t nt = c->nthreads;
    uint32_t *cut = calloc(nt + 1, sizeof *cut);
    uint32_t *done = calloc(nt + 1, sizeof *done);
    assert_non_null(cut);
    assert_non_null(done);
    assert_int_equal(c->hb_vc || !ft_ctm_hb_prepare(c), 1);
    for (uint32_t i = 0; i < n; i++)
        if (c->pos[prop[i]] + 1 > cut[c->tid[prop[i]]])
            cut[c->tid[prop[i]]] = c->pos[prop[i]] + 1;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++)
            while (done[t] < cut[t]) {
                uint32_t x = ft_ctm_at(c, t, done[t]++);
                for (uint32_t j = 0; j < nt; j++) {
                    if (j == t)
                        continue;
                    uint32_t need = ft_ctm_hb_before(c, x, j);
                    if (need > c->len[j])
                        need = c->len[j];
                    if (ft_ctm_is_shared(c, x))
                        for (uint32_t q = c->len[j]; q > need && q > cut[j];
                             q--) {
                            uint32_t y = ft_ctm_at(c, j, q - 1);
                            if (ft_ctm_conflict(c, x, y) &&
                                !ft_ctm_must_hb(c, x, y)) {
                                need = q;
                                break;
                            }
                        }
                    if (need > cut[j]) {
                        cut[j] = need;
                        changed = 1;
                    }
                }
            }
    }
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t q = 0; q < c->len[t]; q++)
            keep[ft_ctm_at(c, t, q)] = q < cut[t];
    free(cut);
    free(done);
}

/* ft_slice_mark (through the index) keeps exactly what the backward scan
 * keeps, on generated models of every shape (the random runs, lock-heavy
 * and heap ones), for one to three target transitions. */
static void test_slice_matches_scan(void **state)
{
    (void)state;
    unsigned n = 4 * nseeds(), compared = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        evbuf b = {0};
        if (seed % 3 == 0) {
            gen_locks(seed, &b);
        } else if (seed % 3 == 1) {
            gen_heap(seed, &b);
        } else {
            gen_params p;
            gen_small_params(seed, &p);
            gen_run(seed, &p, &b);
        }
        ft_ctm *c = load_events(&b, "slice");
        evbuf_free(&b);
        assert_non_null(c);
        if (!c->ntrans) {
            ft_ctm_free(c);
            continue;
        }
        uint8_t *k1 = calloc(c->ntrans, 1), *k2 = calloc(c->ntrans, 1);
        assert_non_null(k1);
        assert_non_null(k2);
        uint32_t prop[3], np = 1 + (uint32_t)(seed % 3);
        for (uint32_t i = 0; i < np; i++)
            prop[i] = (uint32_t)((seed * 2654435761u + i * 40503u) % c->ntrans);
        assert_int_equal(ft_slice_mark(c, prop, np, k1), 0);
        scan_slice(c, prop, np, k2);
        for (uint32_t x = 0; x < c->ntrans; x++)
            if (k1[x] != k2[x])
                fail_msg("seed %llu: transition %u kept %d by the index, %d "
                         "by the scan",
                         (unsigned long long)seed, x, k1[x], k2[x]);
        /* a bound on the slice's size: passed exactly when the slice
         * is bigger (ft_slice_mark_window stops there) */
        uint32_t size = 0, nt = c->nthreads;
        for (uint32_t x = 0; x < c->ntrans; x++)
            size += k2[x];
        ft_slice_index *ix = ft_slice_index_new(c);
        uint32_t *lo = calloc(nt + 1, sizeof *lo);
        uint32_t *cut = calloc(nt + 1, sizeof *cut);
        assert_non_null(ix);
        assert_non_null(lo);
        assert_non_null(cut);
        assert_int_equal(
            ft_slice_mark_window(c, ix, prop, np, lo, c->len, cut, size), 0);
        assert_int_equal(
            ft_slice_mark_window(c, ix, prop, np, lo, c->len, cut, size - 1),
            size > 1 ? 1 : 0);
        ft_slice_index_free(ix);
        free(lo);
        free(cut);
        compared++;
        free(k1);
        free(k2);
        ft_ctm_free(c);
    }
    fprintf(stderr, "slices compared on %u generated models\n", compared);
    assert_true(compared > n / 2);
}

static void test_reductions_match_oracle(void **state)
{
    (void)state;
    run_all(0);
}

static void test_reductions_skip_unreachable(void **state)
{
    (void)state;
    run_all(FT_REDUCE_SKIP_UNREACHABLE);
}

/* Over its state budget, MAT gives up soundly: switches fall back to the
 * lockset/HB-feasible ones and every block is an i-transaction; the same
 * oracle checks must pass, and the fallback must really have been taken. */
static void test_mat_over_budget_falls_back(void **state)
{
    (void)state;
    uint64_t saved = ft_mat_max_states;
    ft_mat_max_states = 2;
    run_all(0);
    unsigned abandoned = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        char tag[64];
        ft_ctm *c = make(seed, tag, sizeof tag);
        assert_non_null(c);
        ft_reduced *r = ft_reduce(c, 0);
        assert_non_null(r);
        if (r->stats.mat_abandoned) {
            abandoned++;
            assert_int_equal(r->ncxt, 0);
            assert_int_equal(r->nitrans, r->nblocks);
        }
        ft_reduced_free(r);
        ft_ctm_free(c);
    }
    ft_mat_max_states = saved;
    assert_true(abandoned > 25);
}

/* Why the third-thread dependences are there: the plain union of the
 * pairwise MAT switches loses equivalence classes with three threads. */
static void test_naive_union_is_unsound(void **state)
{
    (void)state;
    unsigned lost = 0;
    check_quiet = 1;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char tag[64];
        ft_ctm *c = make(seed, tag, sizeof tag);
        assert_non_null(c);
        if (c->nthreads > 2 && c->ntrans <= 26) {
            ft_reduced *r = ft_reduce(c, FT_REDUCE_NAIVE_UNION);
            assert_non_null(r);
            lost += check_cxt_sound(r, 0, tag) != 0;
            ft_reduced_free(r);
        }
        ft_ctm_free(c);
    }
    check_quiet = 0;
    fprintf(stderr, "naive union lost classes in %u of 300 models\n", lost);
    assert_true(lost > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reductions_match_oracle),
        cmocka_unit_test(test_slice_matches_scan),
        cmocka_unit_test(test_reductions_skip_unreachable),
        cmocka_unit_test(test_naive_union_is_unsound),
        cmocka_unit_test(test_mat_over_budget_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

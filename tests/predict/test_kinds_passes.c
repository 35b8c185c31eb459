/* SPDX-License-Identifier: MIT */
/* test_kinds_passes.c - the two passes of the solving (predict/kinds.c,
 * solve_short_first, for the other kinds; predict/pipeline.c,
 * solve_in_two_passes, for the atomicity properties): every undecided
 * property with a short timeout first, then the ones that reached it
 * with the full timeout.  On sync-heavy random traces (tests/model/gen.c),
 * a first pass of 1 ms, which sends most of the solved properties to the
 * second, must give every property the verdict a single pass gives it. */
#include "predict/kind.h"
#include "../model/gen.h"
#include "stdtrace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#define MAXK 4096

/* The kinds' verdicts of the trace at path by candidate id (out[0..*n))
 * with a first pass of first_ms; *slow: how many took at least 0.9 ms
 * (the ones a 1 ms first pass tries again). */
static char why[MAXK][96];

static void verdicts(const char *path, unsigned first_ms, int *out, size_t *n,
                     unsigned *slow, int *aout, size_t *na, unsigned *aslow)
{
    ft_pipeline pl;
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.timeout_ms = 20000;
    po.first_pass_ms = first_ms;
    assert_int_equal(ft_test_pipeline_run(&pl, path, NULL, &po), 0);
    /* the atomicity properties, by their inference id */
    assert_true(pl.infer.nprops <= MAXK);
    *na = pl.infer.nprops;
    for (size_t i = 0; i < pl.infer.nprops; i++)
        aout[i] = -1; /* not mapped to the model */
    for (size_t i = 0; i < pl.nprops; i++) {
        const ft_presult *r = &pl.results[i];
        aout[pl.props[i].id] = r->covered ? -2 : r->verdict;
        *aslow += r->seconds >= 0.0009;
        assert_false(r->not_solved);
    }
    uint32_t mask = 0;
    for (unsigned i = 0; i < ft_npkinds; i++)
        mask |= 1u << ft_pkinds[i]->kind;
    assert_int_equal(ft_pipeline_kind_candidates(&pl, mask, 0), 0);
    assert_true(ft_pipeline_predict_kinds(&pl, &po) >= 0);
    assert_true(pl.nkprops <= MAXK);
    *n = pl.nkprops;
    for (size_t i = 0; i < pl.nkprops; i++) {
        const ft_presult *r = &pl.kresults[i];
        assert_true(pl.kprops[i].id < pl.nkprops);
        out[pl.kprops[i].id] = r->verdict;
        snprintf(why[pl.kprops[i].id], sizeof why[0], "%.3f s %s",
                 r->seconds, ft_presult_reason(r));
        *slow += r->seconds >= 0.0009;
        assert_false(r->not_solved);
    }
    ft_pipeline_free(&pl);
}

static void test_two_passes_same_verdicts(void **state)
{
    (void)state;
    static int one[MAXK], two[MAXK], aone[MAXK], atwo[MAXK];
    unsigned slow = 0, solved = 0, ignored = 0, aslow = 0, asolved = 0;
    char path[64]; /* as stdtrace.c names its traces */
    snprintf(path, sizeof path, "/tmp/ft_kinds_passes_%d.ftrace",
             (int)getpid());
    for (uint64_t seed = 1; seed <= 24; seed++) {
        gen_params gp;
        gen_small_params(seed, &gp);
        gp.sync_heavy = 1;
        gp.nconds = gp.nconds ? gp.nconds : 1;
        evbuf b = {0};
        gen_run(seed, &gp, &b);
        assert_int_equal(trace_write(path, &b), 0);
        evbuf_free(&b);
        size_t n1 = 0, n2 = 0, na1 = 0, na2 = 0;
        /* over 20 s: one pass */
        verdicts(path, 60000, one, &n1, &slow, aone, &na1, &aslow);
        verdicts(path, 1, two, &n2, &ignored, atwo, &na2, &ignored);
        assert_int_equal(n1, n2);
        assert_int_equal(na1, na2);
        for (size_t i = 0; i < na1; i++) {
            if (aone[i] != atwo[i])
                fail_msg("seed %llu property %zu: %d in one pass, %d in two",
                         (unsigned long long)seed, i, aone[i], atwo[i]);
            asolved += aone[i] == FT_VIOLATED || aone[i] == FT_HOLDS;
        }
        for (size_t i = 0; i < n1; i++) {
            if (one[i] != two[i])
                fail_msg("seed %llu candidate %zu: %d in one pass, %d in "
                         "two (%s)",
                         (unsigned long long)seed, i, one[i], two[i], why[i]);
            solved += one[i] == FT_VIOLATED || one[i] == FT_HOLDS;
        }
    }
    unlink(path);
    /* the second pass had work: candidates that took 0.9 ms */
    assert_true(slow > 0);
    assert_true(solved > 0);
    assert_true(aslow > 0);
    assert_true(asolved > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_passes_same_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

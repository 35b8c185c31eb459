/* SPDX-License-Identifier: MIT */
/* test_kinds_passes.c - the other kinds' two passes (predict/kinds.c,
 * solve_short_first): every undecided candidate with a short timeout
 * first, then the ones that reached it with the full timeout.  On
 * sync-heavy random traces (tests/model/gen.c), a first pass of 1 ms,
 * which sends most of the solved candidates to the second, must give
 * every candidate the verdict a single pass gives it; and the two
 * passes share the candidate's timeout. */
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
                     unsigned *slow)
{
    ft_pipeline pl;
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.timeout_ms = 20000;
    po.kind_first_ms = first_ms;
    assert_int_equal(ft_test_pipeline_run(&pl, path, NULL, &po), 0);
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
    static int one[MAXK], two[MAXK];
    unsigned slow = 0, solved = 0, ignored = 0;
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
        size_t n1 = 0, n2 = 0;
        verdicts(path, 60000, one, &n1, &slow); /* over 20 s: one pass */
        verdicts(path, 1, two, &n2, &ignored);
        assert_int_equal(n1, n2);
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
}

/* --timeout bounds a candidate's two passes together: the second gets
 * what the first left (it had the whole timeout again: 2.5 + 60 s). */
static void test_passes_share_the_timeout(void **state)
{
    (void)state;
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.kind_first_ms = 0; /* the default first pass, 2.5 s */
    po.timeout_ms = 10000;
    assert_int_equal(ft_kind_pass_ms(&po, 0), 2500);
    assert_int_equal(ft_kind_pass_ms(&po, 1), 7500);
    po.kind_first_ms = 300;
    assert_int_equal(ft_kind_pass_ms(&po, 0) + ft_kind_pass_ms(&po, 1), 10000);
    /* a timeout no longer than the first pass: one pass of it */
    po.timeout_ms = 200;
    assert_int_equal(ft_kind_pass_ms(&po, 0), 200);
    assert_int_equal(ft_kind_pass_ms(&po, 1), 0);
    /* no timeout: neither pass has one after the first */
    po.timeout_ms = 0;
    assert_int_equal(ft_kind_pass_ms(&po, 0), 300);
    assert_int_equal(ft_kind_pass_ms(&po, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passes_share_the_timeout),
        cmocka_unit_test(test_two_passes_same_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

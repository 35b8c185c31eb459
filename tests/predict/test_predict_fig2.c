/* SPDX-License-Identifier: MIT */
/* test_predict_fig2.c - stage iv on the BEST paper's running example
 * (figure 2, section VIII): CA(tr1), CA(tr2) and CMA(tr1, tr2) are each
 * predicted violated, in both modes, with witnesses that the independent
 * checker (avcheck.c) accepts; and the paper's schedules (a) and (b),
 * written out as transition sequences of our CTM, violate the properties
 * the paper says they violate.  tests/infer/test_infer_paper.c covers how
 * tr1..tr3 are inferred and tr3 proved; this file starts from the
 * properties.
 *
 * CTM positions (tests/model/fig2.h): Ma 0 lock L2 (s1), 1 z++ (s2), 2
 * x = malloc (s3), 3 lock L1 (s4), 4-5 wait (s5), 6 unlock L2, 7 y =, 8
 * unlock L1; Mb 0 lock L1 (s6), 1 notify (s7), 2 unlock L1 (s8), 3 lock
 * L1 (s12), 4 read z, 5 read x, 6 write y (s13), 7-9 s14-s16.
 * tr1 = {s2, s3} = Ma 1..2, tr2 = {s13} = Mb 4..6. */
#include "avcheck.h"
#include "../model/fig2.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

enum { MA = 0, MB = 1 };

static ft_ctm *fig2_ctm(void)
{
    evbuf b = {0};
    fig2_events(&b);
    ft_ctm *c = ft_ctm_new();
    assert_non_null(c);
    char msg[256];
    for (size_t i = 0; i < b.n; i++) {
        b.ev[i].index = i;
        if (ft_ctm_add(c, &b.ev[i], msg, sizeof msg) != 0)
            fail_msg("ctm rejects event %zu: %s", i, msg);
    }
    evbuf_free(&b);
    assert_int_equal(ft_ctm_finish(c), 0);
    return c;
}

static const ft_prop ca1 = {.id = 0, .kind = FT_PROP_CA, .r = {{MA, 1, 2}}};
static const ft_prop ca2 = {.id = 1, .kind = FT_PROP_CA, .r = {{MB, 4, 6}}};
static const ft_prop cma = {.id = 2, .kind = FT_PROP_CMA,
                            .r = {{MA, 1, 2}, {MB, 4, 6}}};

/* The layout above is what this file assumes: check it first. */
static void ctm_layout(void **state)
{
    (void)state;
    ft_ctm *c = fig2_ctm();
    assert_int_equal(c->nthreads, 2);
    assert_int_equal(c->op[ft_ctm_at(c, MA, 1)], FT_OP_RMW);
    assert_int_equal(c->op[ft_ctm_at(c, MA, 2)], FT_OP_WRITE);
    assert_int_equal(c->op[ft_ctm_at(c, MB, 4)], FT_OP_READ);
    assert_int_equal(c->op[ft_ctm_at(c, MB, 5)], FT_OP_READ);
    assert_int_equal(c->op[ft_ctm_at(c, MB, 6)], FT_OP_WRITE);
    ft_ctm_free(c);
}

static void each_property_violated(void **state)
{
    (void)state;
    const ft_prop *props[3] = {&ca1, &ca2, &cma};
    for (int mode = 0; mode < 2; mode++) {
        ft_ctm *c = fig2_ctm();
        ft_reduced *whole = ft_reduce(c, 0);
        assert_non_null(whole);
        for (int i = 0; i < 3; i++) {
            ft_predict_opts o;
            ft_predict_opts_default(&o);
            o.timeout_ms = 0;
            o.mode = mode ? FT_PREDICT_FINDAV : FT_PREDICT_DIRECT;
            ft_presult res;
            int v = ft_predict_one(c, whole, props[i], &o, &res);
            if (v != FT_VIOLATED)
                fail_msg("mode %d property %d: verdict %d (%s)", mode, i, v,
                         ft_presult_reason(&res));
            uint32_t seq[64];
            assert_true(res.nsteps > 0 && res.nsteps <= 64);
            for (uint32_t k = 0; k < res.nsteps; k++)
                seq[k] = res.steps[k].trans;
            assert_true(av_violates(c, props[i], seq, res.nsteps));
            assert_true(av_data_ok(c, props[i], seq, res.nsteps));
            assert_true(res.nvars > 0);
            ft_presult_free(&res);
        }
        ft_reduced_free(whole);
        ft_ctm_free(c);
    }
}

/* A schedule as (thread, first, last) runs of positions. */
typedef struct run {
    uint32_t t, first, last;
} run;

static uint32_t build(const ft_ctm *c, const run *r, size_t n, uint32_t *seq)
{
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t p = r[i].first; p <= r[i].last; p++)
            seq[k++] = ft_ctm_at(c, r[i].t, p);
    return k;
}

/* (a) tb1 ta1 tb2 tb3 ta2, up to x = malloc (Ma 2): Mb reads the new z
 * and the old x inside tr1: violates CA(tr1) and CMA.  (The paper's text
 * lists CA twice for (a); in this prefix tr2's accesses only read, so
 * nothing of Ma after them conflicts back into tr2: CA(tr2) needs Ma's
 * later write of y, which the prefix does not reach.)
 * (b) tb1 tb2 ta1 ta2 tb3, up to Mb's read of x: Mb reads the old z and
 * the new x; the paper: violates CA(tr2) and CMA, not CA(tr1).  (The
 * paper's ta2 also takes lock(L1) while Mb holds it; the prefixes stop at
 * the violating access, before that.) */
static void paper_schedules(void **state)
{
    (void)state;
    ft_ctm *c = fig2_ctm();
    uint32_t seq[64];
    const run a[] = {{MB, 0, 2}, {MA, 0, 1}, {MB, 3, 5}, {MA, 2, 2}};
    uint32_t n = build(c, a, 4, seq);
    assert_true(av_violates(c, &ca1, seq, n));
    assert_false(av_violates(c, &ca2, seq, n));
    assert_true(av_violates(c, &cma, seq, n));
    const run b[] = {{MB, 0, 4}, {MA, 0, 2}, {MB, 5, 5}};
    n = build(c, b, 3, seq);
    assert_false(av_violates(c, &ca1, seq, n));
    assert_true(av_violates(c, &ca2, seq, n));
    assert_true(av_violates(c, &cma, seq, n));
    /* the recorded run itself is serial for all three */
    const run rec[] = {{MA, 0, 4}, {MB, 0, 2}, {MA, 5, 8}, {MB, 3, 9}};
    n = build(c, rec, 4, seq);
    assert_false(av_violates(c, &ca1, seq, n));
    assert_false(av_violates(c, &ca2, seq, n));
    assert_false(av_violates(c, &cma, seq, n));
    ft_ctm_free(c);
}

/* A result's reason (ft_presult_why): a constant pointed to, a formatted
 * text owned and bounded, cleared by ft_presult_free; and the text
 * report of a property that holds puts it in parentheses on the note's
 * own line. */
static void reasons(void **state)
{
    (void)state;
    ft_presult r;
    memset(&r, 0, sizeof r);
    assert_string_equal(ft_presult_reason(&r), "");
    static const char constant[] = "value order";
    ft_presult_why(&r, constant);
    assert_ptr_equal(ft_presult_reason(&r), constant);
    assert_false(r.reason_owned);
    ft_presult_why(&r, "window %u..%u", 3u, 9u);
    assert_string_equal(ft_presult_reason(&r), "window 3..9");
    assert_true(r.reason_owned);
    ft_presult_why(&r, "%0300d", 1);
    assert_int_equal(strlen(ft_presult_reason(&r)), 255);
    ft_presult_free(&r);
    assert_string_equal(ft_presult_reason(&r), "");

    ft_ctm *c = fig2_ctm();
    r.verdict = FT_HOLDS;
    ft_presult_why(&r, "proved by %s", "the value order");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    ft_report_text(out, c, NULL, &ca1, &r, NULL);
    fclose(out);
    assert_non_null(strstr(text, "holds: no feasible schedule violates it "
                                 "(proved by the value order)\n"));
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 1);
    free(text);
    ft_presult_free(&r);
    ft_ctm_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ctm_layout),
        cmocka_unit_test(each_property_violated),
        cmocka_unit_test(paper_schedules),
        cmocka_unit_test(reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* test_budget.c - `analyze --time` stops every stage (ft_budget, issue 16):
 * the budget is made to run out the first time a given stage reports
 * (its progress hook moves the deadline into the past), and the pipeline
 * must then come back with a consistent, partial result: before solving,
 * pl.stopped names a stage no earlier than the one that ran out and no
 * property is solved; in deciding or solving, every property left is
 * unknown and counted not solved, and what was decided agrees with an
 * unbounded run.  The trace: two threads, each updating x in 12
 * annotated regions (96 events), written in
 * the foretell format from RAPID's STD text. */
#include "predict/predict.h"
#include "predict/window.h"
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

static char trace_path[64];

static const char *const stages[] = {"loading",   "model",    "reduction",
                                     "inference", "properties", "deciding",
                                     "solving"};
enum { NSTAGES = sizeof stages / sizeof *stages, FIRST_SOLVING = 5 };

static int stage_index(const char *s)
{
    for (int i = 0; i < NSTAGES; i++)
        if (strcmp(stages[i], s) == 0)
            return i;
    return -1;
}

typedef struct hook {
    ft_budget *b;
    const char *at; /* the stage where the budget runs out */
    int fired;
    int seen[NSTAGES];
} hook;

static void on_progress(void *arg, const char *stage, uint64_t done,
                        uint64_t total)
{
    (void)done;
    (void)total;
    hook *h = arg;
    int i = stage_index(stage);
    if (i >= 0)
        h->seen[i] = 1;
    if (!h->fired && h->at && strcmp(stage, h->at) == 0) {
        h->fired = 1;
        h->b->until = 1; /* long past */
    }
}

static int setup(void **state)
{
    (void)state;
    char text[2048];
    size_t n = 0;
    for (int t = 1; t <= 2; t++)
        for (int i = 0; i < 12; i++)
            n += (size_t)snprintf(
                text + n, sizeof text - n,
                "T%d|begin|10\nT%d|r(x)|11\nT%d|w(x)|12\nT%d|end|13\n", t,
                t, t, t);
    assert_true(n < sizeof text);
    assert_int_equal(
        ft_test_trace_from_std(text, "budget", trace_path, sizeof trace_path),
        0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace_path);
    return 0;
}

/* Runs the pipeline as cmd_analyze does; b may be NULL. */
static void run(ft_pipeline *pl, ft_budget *b)
{
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.timeout_ms = 20000;
    /* the regions repeat one code: solve every instance, as a run of
     * distinct code would be solved (test_groups.c covers covering) */
    po.every_instance = 1;
    assert_int_equal(ft_test_pipeline_run(pl, trace_path, b, &po), 0);
    assert_false(pl->abandoned);
}

static void stops_in_every_stage(void **state)
{
    (void)state;
    /* unbounded, for the verdicts; and the stages it goes through */
    ft_pipeline whole;
    ft_budget wb = {0};
    hook wh = {&wb, NULL, 0, {0}};
    wb.progress = on_progress;
    wb.arg = &wh;
    run(&whole, &wb);
    assert_null(whole.stopped);
    assert_true(whole.nprops > 50);
    assert_int_equal(whole.nskipped, 0);
    for (int s = 0; s < NSTAGES; s++)
        if (!wh.seen[s])
            fail_msg("an unbounded run never reported stage %s", stages[s]);
    for (int s = 0; s < NSTAGES; s++) {
        ft_pipeline pl;
        ft_budget b = {0};
        hook h = {&b, stages[s], 0, {0}};
        b.progress = on_progress;
        b.arg = &h;
        b.seconds = 1;
        run(&pl, &b);
        assert_true(h.fired);
        assert_true(b.spent);
        if (s < FIRST_SOLVING) {
            if (!pl.stopped)
                fail_msg("out of time in %s: not stopped", stages[s]);
            int at = stage_index(pl.stopped);
            /* "reduction" is not polled inside: inference stops */
            if (at < s && !(s == 2 && at == 3))
                fail_msg("out of time in %s: stopped in %s", stages[s],
                         pl.stopped);
            /* nothing was solved, and nothing claims to be */
            assert_int_equal(pl.nviolated + pl.nholds, 0);
            assert_true(pl.nprops <= whole.nprops);
        } else {
            assert_null(pl.stopped);
            assert_int_equal(pl.nprops, whole.nprops);
            /* in solving, with nothing left after the decisions, nothing
             * is skipped */
            uint64_t cheap = pl.decide.holds + pl.decide.violated;
            if (pl.nskipped == 0 && !(s > FIRST_SOLVING && cheap == pl.nprops))
                fail_msg("out of time in %s: nothing skipped (%zu "
                         "properties, %llu decided without the solver)",
                         stages[s], pl.nprops, (unsigned long long)cheap);
            assert_int_equal(pl.nviolated + pl.nholds + pl.nunknown +
                                 pl.nerror + pl.ncovered,
                             pl.nprops);
            /* the decided agree with the unbounded run (same property
             * ids); the rest are unknown because of the time */
            for (size_t i = 0; i < pl.nprops; i++) {
                const ft_presult *r = &pl.results[i];
                size_t k = 0;
                while (k < whole.nprops &&
                       whole.props[k].id != pl.props[i].id)
                    k++;
                assert_true(k < whole.nprops);
                if (r->covered) /* its static property is violated */
                    continue;
                if (r->verdict == FT_UNKNOWN) {
                    assert_non_null(strstr(ft_presult_reason(r), "time"));
                    continue;
                }
                assert_int_equal(r->verdict, whole.results[k].verdict);
            }
        }
        ft_pipeline_free(&pl);
    }
    ft_pipeline_free(&whole);
}

/* The solving stage reports while one property takes the solver long
 * (FORETELL_TEST_SOLVE_STALL stands in for it): a heartbeat a second,
 * with the same count, not one line that stays for a minute. */
typedef struct beats {
    unsigned solving, same; /* reports; reports repeating the last count */
    uint64_t last;
} beats;

static void on_beat(void *arg, const char *stage, uint64_t done, uint64_t total)
{
    (void)total;
    beats *b = arg;
    if (strncmp(stage, "solving", 7) != 0)
        return;
    b->same += b->solving && done == b->last;
    b->solving++;
    b->last = done;
}

static void solving_heartbeat(void **state)
{
    (void)state;
    ft_pipeline pl;
    ft_budget b = {0};
    beats h = {0, 0, 0};
    b.progress = on_beat;
    b.arg = &h;
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.timeout_ms = 20000;
    po.every_instance = 1;
    po.no_value_order = po.no_search = 1; /* every property to the solver */
    setenv("FORETELL_TEST_SOLVE_STALL", "2.5", 1);
    ft_error err;
    fi_options fo;
    fi_options_default(&fo);
    assert_int_equal(
        ft_pipeline_load_bounded(&pl, trace_path, FT_INPUT_FORETELL, &b, &err),
        0);
    assert_int_equal(ft_pipeline_infer(&pl, &fo, &err), 0);
    /* the first violation ends it (solving every property takes 40 s) */
    assert_true(ft_pipeline_predict(&pl, &po, 1, NULL, NULL) >= 0);
    unsetenv("FORETELL_TEST_SOLVE_STALL");
    assert_true(pl.nviolated > 0);
    if (h.same < 2)
        fail_msg("%u solving reports, %u repeating the count: no heartbeat "
                 "while the solver ran",
                 h.solving, h.same);
    ft_pipeline_free(&pl);
}

/* The value order under a bound (3 s at 10^7 events, built after the
 * bound had run out, made `--time 8` take 10.7 s): given up when the
 * bound is past, the window index kept without it; built whole
 * without a bound. */
static void value_order_bounded(void **state)
{
    (void)state;
    ft_pipeline pl;
    run(&pl, NULL);
    ft_window_index *w = ft_window_index_new_until(pl.ctm, 1.0);
    assert_non_null(w);
    assert_null(ft_window_index_vorder(w));
    assert_null(
        ft_value_order_new_until(pl.ctm, ft_window_index_slice(w), 1.0));
    ft_window_index_free(w);
    w = ft_window_index_new_until(pl.ctm, ft_now() + 3600);
    assert_non_null(w);
    assert_non_null(ft_window_index_vorder(w));
    ft_window_index_free(w);
    w = ft_window_index_new_until(pl.ctm, 0);
    assert_non_null(w);
    assert_non_null(ft_window_index_vorder(w));
    ft_window_index_free(w);
    ft_pipeline_free(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stops_in_every_stage),
        cmocka_unit_test(value_order_bounded),
        cmocka_unit_test(solving_heartbeat),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

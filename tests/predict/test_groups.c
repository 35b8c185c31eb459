/* SPDX-License-Identifier: MIT */
/* test_groups.c - static CA/CMA properties (predict/groups.c): dynamic
 * instances of the same code share a group, and once one instance of a
 * group is violated the pipeline leaves the group's unsolved instances
 * covered instead of solving them.  The trace (RAPID's STD text, saved in
 * the foretell format): two threads updating x in annotated regions,
 * thread 1's at one code location, thread 2's alternating between two.
 * The cheap decisions are switched off so that every property reaches
 * the solver.  Checked against a run with every_instance: the same
 * properties, every verdict the default run decides is that run's,
 * covered ones only in groups that run violates, every group it violates
 * violated here too, and nothing covered there. */
#include "predict/predict.h"
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

static int setup(void **state)
{
    (void)state;
    char text[2048];
    size_t n = 0;
    for (int i = 0; i < 6; i++)
        for (int t = 1; t <= 2; t++) {
            int at = t == 1 ? 10 : i % 2 ? 30 : 20;
            n += (size_t)snprintf(
                text + n, sizeof text - n,
                "T%d|begin|g.c:%d\nT%d|r(x)|g.c:%d\nT%d|w(x)|g.c:%d\n"
                "T%d|end|g.c:%d\n",
                t, at, t, at + 1, t, at + 2, t, at + 3);
        }
    assert_true(n < sizeof text);
    assert_int_equal(
        ft_test_trace_from_std(text, "groups", trace_path, sizeof trace_path),
        0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace_path);
    return 0;
}

static void run(ft_pipeline *pl, int every)
{
    ft_predict_opts po;
    ft_predict_opts_default(&po);
    po.timeout_ms = 20000;
    po.no_search = 1;
    po.no_value_order = 1;
    po.every_instance = every;
    assert_int_equal(ft_test_pipeline_run(pl, trace_path, NULL, &po), 0);
}

static const fi_region *region(const ft_pipeline *pl, const ft_prop *p,
                               int g)
{
    const fi_property *fp = &pl->infer.props[p->id];
    return ft_pipeline_region(pl, g ? fp->r2 : fp->r1);
}

static int same_code(const fi_region *a, const fi_region *b)
{
    return a->line_lo == b->line_lo && a->line_hi == b->line_hi &&
           !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
           !strcmp(a->function ? a->function : "",
                   b->function ? b->function : "");
}

/* Properties i and j have the same kind and code (CMA: either order). */
static int same_static(const ft_pipeline *pl, size_t i, size_t j)
{
    const ft_prop *a = &pl->props[i], *b = &pl->props[j];
    if (a->kind != b->kind)
        return 0;
    if (a->kind != FT_PROP_CMA)
        return same_code(region(pl, a, 0), region(pl, b, 0));
    return (same_code(region(pl, a, 0), region(pl, b, 0)) &&
            same_code(region(pl, a, 1), region(pl, b, 1))) ||
           (same_code(region(pl, a, 0), region(pl, b, 1)) &&
            same_code(region(pl, a, 1), region(pl, b, 0)));
}

static void covered_instances(void **state)
{
    (void)state;
    ft_pipeline all, pl;
    run(&all, 1);
    run(&pl, 0);
    assert_int_equal(pl.nprops, all.nprops);
    assert_true(pl.nprops > 20);
    /* thread 1's code, thread 2's two codes, and the CMA pairs between */
    assert_int_equal(pl.ngroups, all.ngroups);
    if (!(pl.ngroups >= 3 && pl.ngroups < pl.nprops / 4))
        fail_msg("%zu groups of %zu properties", pl.ngroups, pl.nprops);
    for (size_t i = 0; i < pl.nprops; i++)
        for (size_t j = 0; j < pl.nprops; j++)
            if ((pl.props[i].group == pl.props[j].group) !=
                same_static(&pl, i, j))
                fail_msg("properties %zu and %zu: groups %u and %u", i, j,
                         pl.props[i].group, pl.props[j].group);
    assert_int_equal(all.ncovered, 0);
    assert_int_equal(all.nunknown + all.nerror, 0);
    assert_true(all.nviolated > 0);
    assert_true(pl.ncovered > 0);
    assert_int_equal(pl.nviolated + pl.nholds + pl.nunknown + pl.nerror +
                         pl.ncovered,
                     pl.nprops);
    uint8_t *viol_all = calloc(all.ngroups + 1, 1);
    uint8_t *viol = calloc(pl.ngroups + 1, 1);
    assert_non_null(viol_all);
    assert_non_null(viol);
    for (size_t i = 0; i < pl.nprops; i++) {
        size_t k = 0;
        while (k < all.nprops && all.props[k].id != pl.props[i].id)
            k++;
        assert_true(k < all.nprops);
        const ft_presult *r = &pl.results[i];
        if (all.results[k].verdict == FT_VIOLATED)
            viol_all[pl.props[i].group] = 1;
        if (r->verdict == FT_VIOLATED)
            viol[pl.props[i].group] = 1;
        if (r->covered) {
            assert_int_equal(r->verdict, FT_UNKNOWN);
            assert_non_null(strstr(ft_presult_reason(r), "--every-instance"));
            continue;
        }
        assert_int_equal(r->verdict, all.results[k].verdict);
    }
    for (size_t i = 0; i < pl.nprops; i++) {
        uint32_t g = pl.props[i].group;
        assert_int_equal(viol[g], viol_all[g]);
        if (pl.results[i].covered)
            assert_true(viol[g]);
    }
    free(viol_all);
    free(viol);
    ft_pipeline_free(&all);
    ft_pipeline_free(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(covered_instances),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

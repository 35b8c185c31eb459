/* SPDX-License-Identifier: MIT */
/* test_build_map.c - fr_schedule_map (replay/build_map.c) against an
 * oracle that knows the answer: random runs of a "program" (per-thread
 * sequences of events at sites 1..40) written as two builds' traces, each
 * build inserting events of its own (build A at sites 41..60, the
 * reference B at 61..80, in runs shorter than the look-ahead) and
 * interleaving the threads its own way.  The oracle numbers every program
 * event in both traces, computes A's switch points itself, and expects
 * each to land after B's copy of the last program event at or before it,
 * runs of one thread merged and steps that add nothing dropped.  Then the
 * mapping must be exact.  Also: builds that share their insertions
 * (ambiguous pairings) still give a schedule B can follow (per-thread
 * indexes rising, each naming B's event of the step's kind), and an
 * unreadable trace is an error, not a crash. */
#include "replay/replay.h"
#include "tests/unit/fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka.h after the headers it needs */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT 4
#define MAXP 60 /* program events per thread */
#define MAXE 4096

typedef struct build {
    ft_event ev[MAXE];
    size_t n;
    /* where each thread's program event k is among its events */
    uint64_t pos[MAXT][MAXP];
    uint64_t count[MAXT];
} build;

typedef struct prog {
    int nthreads, np[MAXT];
    uint16_t kind[MAXT][MAXP];
    uint32_t site[MAXT][MAXP];
} prog;

static void gen_prog(rng *r, prog *p, int few_sites)
{
    p->nthreads = 2 + (int)rng_below(r, MAXT - 1);
    for (int t = 0; t < p->nthreads; t++) {
        p->np[t] = 1 + (int)rng_below(r, MAXP);
        for (int k = 0; k < p->np[t]; k++) {
            static const uint16_t kinds[] = {
                FT_EV_READ, FT_EV_WRITE, FT_EV_MUTEX_LOCK, FT_EV_MUTEX_UNLOCK};
            p->kind[t][k] = kinds[rng_below(r, 4)];
            p->site[t][k] = 1 + (uint32_t)rng_below(r, few_sites ? 3 : 40);
        }
    }
}

static void put(build *b, int t, uint16_t kind, uint32_t site)
{
    ft_event *e = &b->ev[b->n++];
    memset(e, 0, sizeof *e);
    e->tid = (uint32_t)t;
    e->kind = kind;
    e->site = site;
    e->size = 4;
    e->addr = 0x1000 + 8 * site;
    b->count[t]++;
}

/* One build's run: each thread's program events with this build's own
 * insertions (sites ins_lo..ins_lo+19, runs of up to 8) before any of
 * them, the threads interleaved in random slices. */
static void gen_build(rng *r, const prog *p, build *b, uint32_t ins_lo)
{
    memset(b, 0, sizeof *b);
    int next[MAXT] = {0};
    int left = p->nthreads;
    while (left) {
        int t = (int)rng_below(r, (uint64_t)p->nthreads);
        if (next[t] >= p->np[t])
            continue;
        int slice = 1 + (int)rng_below(r, 6);
        for (int s = 0; s < slice && next[t] < p->np[t]; s++) {
            if (rng_below(r, 3) == 0) {
                int run = 1 + (int)rng_below(r, 8);
                for (int i = 0; i < run; i++)
                    put(b, t, FT_EV_READ, ins_lo + (uint32_t)rng_below(r, 20));
            }
            int k = next[t]++;
            b->pos[t][k] = b->count[t];
            put(b, t, p->kind[t][k], p->site[t][k]);
        }
        if (next[t] == p->np[t])
            left--;
    }
    for (size_t i = 0; i < b->n; i++)
        b->ev[i].index = i;
}

typedef struct xstep {
    uint32_t tid;
    uint64_t index;
} xstep;

/* The oracle: A's switch points, each after B's copy of the last program
 * event at or before it. */
static size_t expected(const prog *p, const build *a, const build *b,
                       int absent, xstep *out)
{
    size_t n = 0;
    int64_t last[MAXT];
    uint64_t seen[MAXT] = {0};
    for (int t = 0; t < MAXT; t++)
        last[t] = -1;
    for (size_t i = 0; i < a->n; i++) {
        uint32_t t = a->ev[i].tid;
        uint64_t idx = seen[t]++;
        if (i + 1 < a->n && a->ev[i + 1].tid == t)
            continue;
        int64_t j = -1;
        for (int k = 0; k < p->np[t]; k++)
            if (a->pos[t][k] <= idx)
                j = (int64_t)b->pos[t][k];
        if ((int)t == absent) /* B never ran it: A's own index */
            j = (int64_t)idx;
        if (j <= last[t])
            continue;
        last[t] = j;
        if (n && out[n - 1].tid == t)
            n--;
        out[n].tid = t;
        out[n++].index = (uint64_t)j;
    }
    return n;
}

/* The mapping is the oracle's, step for step. */
static void check_steps(int c, const ft_schedule *s, const xstep *want,
                        size_t n)
{
    if (s->nsteps != n)
        fail_msg("case %d: %u steps, the oracle %zu", c, s->nsteps, n);
    for (size_t i = 0; i < n; i++)
        if (s->steps[i].tid != want[i].tid ||
            s->steps[i].tindex != want[i].index)
            fail_msg("case %d step %zu: thread %u index %llu, the oracle "
                     "thread %u index %llu",
                     c, i, s->steps[i].tid,
                     (unsigned long long)s->steps[i].tindex, want[i].tid,
                     (unsigned long long)want[i].index);
}

static void write_build(const char *path, const build *b)
{
    assert_int_equal(fx_write_trace(path, b->ev, b->n, 80, "exit"), 0);
}

/* One case: a program, build A's run and the reference B's (inserting
 * from b_ins on; without thread gone when it is not -1), written to pa
 * and pb and mapped into s. */
static void map_case(rng *r, prog *p, build *a, build *b, int few,
                     uint32_t b_ins, int gone, const char *pa, const char *pb,
                     ft_schedule *s, fr_map_stats *st)
{
    static build kept;
    gen_prog(r, p, few);
    gen_build(r, p, a, 41);
    gen_build(r, p, b, b_ins);
    kept = *b;
    kept.n = 0;
    for (size_t i = 0; i < b->n; i++)
        if ((int)b->ev[i].tid != gone)
            kept.ev[kept.n++] = b->ev[i];
    write_build(pa, a);
    write_build(pb, &kept);
    ft_error err;
    if (fr_schedule_map(pa, pb, s, st, &err) != 0)
        fail_msg("%s: %s", err.path, err.message);
}

static void test_exact(void **state)
{
    (void)state;
    static prog p;
    static build a, b;
    static xstep want[MAXE];
    char pa[256], pb[256];
    fx_temp_path(pa, sizeof pa, "map-a");
    fx_temp_path(pb, sizeof pb, "map-b");
    rng r = {20261129};
    int cases = 0;
    for (int c = 0; c < 1500; c++) {
        ft_schedule s;
        fr_map_stats st;
        map_case(&r, &p, &a, &b, c % 3 == 0, 61, -1, pa, pb, &s, &st);
        check_steps(c, &s, want, expected(&p, &a, &b, -1, want));
        uint64_t prog_events = 0;
        for (int t = 0; t < p.nthreads; t++)
            prog_events += (uint64_t)p.np[t];
        /* every program event, and nothing else, was paired */
        assert_int_equal(st.matched, prog_events);
        assert_int_equal(st.events, a.n);
        assert_int_equal(st.mapped, s.nsteps);
        ft_schedule_free(&s);
        cases++;
    }
    assert_int_equal(cases, 1500);
    unlink(pa);
    unlink(pb);
}

/* A thread the reference never ran (its main ended first): its steps
 * stay as recorded, the others mapped as before. */
static void test_absent(void **state)
{
    (void)state;
    static prog p;
    static build a, b;
    static xstep want[MAXE];
    char pa[256], pb[256];
    fx_temp_path(pa, sizeof pa, "mapabs-a");
    fx_temp_path(pb, sizeof pb, "mapabs-b");
    rng r = {99};
    for (int c = 0; c < 300; c++) {
        int gone = 1; /* gen_prog makes at least two threads */
        ft_schedule s;
        fr_map_stats st;
        map_case(&r, &p, &a, &b, 0, 61, gone, pa, pb, &s, &st);
        size_t n = expected(&p, &a, &b, gone, want);
        check_steps(c, &s, want, n);
        uint32_t unmapped = 0;
        for (size_t i = 0; i < n; i++)
            unmapped += want[i].tid == (uint32_t)gone;
        assert_int_equal(st.unmapped, unmapped);
        ft_schedule_free(&s);
    }
    unlink(pa);
    unlink(pb);
}

/* Both builds insert from one range: pairings may be wrong, the schedule
 * must still be one B can follow. */
static void test_ambiguous(void **state)
{
    (void)state;
    static prog p;
    static build a, b;
    char pa[256], pb[256];
    fx_temp_path(pa, sizeof pa, "mapx-a");
    fx_temp_path(pb, sizeof pb, "mapx-b");
    rng r = {7};
    for (int c = 0; c < 500; c++) {
        ft_schedule s;
        fr_map_stats st;
        map_case(&r, &p, &a, &b, 1, 41, -1, pa, pb, &s, &st);
        int64_t last[MAXT] = {-1, -1, -1, -1};
        for (uint32_t i = 0; i < s.nsteps; i++) {
            uint32_t t = s.steps[i].tid;
            assert_true(t < (uint32_t)p.nthreads);
            assert_true((int64_t)s.steps[i].tindex > last[t]);
            assert_true(s.steps[i].tindex < b.count[t]);
            if (i)
                assert_true(s.steps[i - 1].tid != t);
            last[t] = (int64_t)s.steps[i].tindex;
            /* the step names B's event at that index */
            uint64_t seen = 0;
            for (size_t e = 0; e < b.n; e++)
                if (b.ev[e].tid == t && seen++ == s.steps[i].tindex) {
                    assert_string_equal(s.steps[i].kind,
                                        ft_kind_name(b.ev[e].kind));
                    break;
                }
        }
        assert_true(st.matched <= st.events);
        ft_schedule_free(&s);
    }
    unlink(pa);
    unlink(pb);
}

/* A tie (each side's event is as near in the other): the recorded run's
 * event is kept and the reference's skipped, since the recorded events
 * are the ones switches follow.  Recorded P Q P Q, reference Q' P Q P Q
 * (Q' at Q's line): all four pair, the first switch after P lands on the
 * reference's P (index 1), not on Q'. */
static void test_tie(void **state)
{
    (void)state;
    static build a, b;
    char pa[256], pb[256];
    fx_temp_path(pa, sizeof pa, "maptie-a");
    fx_temp_path(pb, sizeof pb, "maptie-b");
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    const uint32_t sites[] = {1, 2, 1, 2};
    put(&a, 0, FT_EV_READ, 1);
    put(&a, 1, FT_EV_WRITE, 9); /* a switch after A's first P */
    for (int k = 1; k < 4; k++)
        put(&a, 0, FT_EV_READ, sites[k]);
    put(&b, 0, FT_EV_READ, 2);
    put(&b, 1, FT_EV_WRITE, 9);
    for (int k = 0; k < 4; k++)
        put(&b, 0, FT_EV_READ, sites[k]);
    for (size_t i = 0; i < a.n; i++)
        a.ev[i].index = i;
    for (size_t i = 0; i < b.n; i++)
        b.ev[i].index = i;
    write_build(pa, &a);
    write_build(pb, &b);
    ft_schedule s;
    fr_map_stats st;
    ft_error err;
    assert_int_equal(fr_schedule_map(pa, pb, &s, &st, &err), 0);
    assert_int_equal(st.matched, 5);
    assert_int_equal(s.nsteps, 3);
    assert_int_equal(s.steps[0].tid, 0);
    assert_int_equal(s.steps[0].tindex, 1);
    assert_int_equal(s.steps[2].tindex, 4);
    ft_schedule_free(&s);
    unlink(pa);
    unlink(pb);
}

static void test_bad_trace(void **state)
{
    (void)state;
    char pa[256], pb[256];
    fx_temp_path(pa, sizeof pa, "mapbad-a");
    fx_temp_path(pb, sizeof pb, "mapbad-b");
    assert_int_equal(fx_write_file(pa, "not a trace", 11), 0);
    static build b;
    static prog p;
    rng r = {1};
    gen_prog(&r, &p, 0);
    gen_build(&r, &p, &b, 61);
    write_build(pb, &b);
    ft_schedule s;
    fr_map_stats st;
    ft_error err;
    assert_int_equal(fr_schedule_map(pa, pb, &s, &st, &err), -1);
    assert_non_null(strstr(err.path, "mapbad-a"));
    assert_int_equal(fr_schedule_map(pb, pa, &s, &st, &err), -1);
    assert_non_null(strstr(err.path, "mapbad-a"));
    assert_int_equal(fr_schedule_map(pb, "/nonexistent/x", &s, &st, &err), -1);
    unlink(pa);
    unlink(pb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),     cmocka_unit_test(test_ambiguous),
        cmocka_unit_test(test_tie),       cmocka_unit_test(test_absent),
        cmocka_unit_test(test_bad_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* test_explore_period.c - Period's schedule generation (replay/
 * period_gen.c, strategy_period.c) on models:
 *  - the generator against a brute-force oracle: every sequence of p
 *    (thread, count) periods over the slice's threads, kept iff it obeys
 *    the parallel scheduler's rules (adjacent periods of different
 *    threads, a key point at least per period, every named thread's key
 *    points exactly) and the prefix, sorted in the paper's order
 *    (combination by size then lexicographically, pattern
 *    lexicographically, counts descending); the generator must produce
 *    exactly that sequence;
 *  - the paper's examples: the serialised 4-period schedules of the slice
 *    (3, 2, 1) (section 3.2.1), the prefix of figure 3f ({t0x4}[t1]), the
 *    first prefixes [t0] and [t1], common prefixes;
 *  - algorithm 1 on a model program whose slice depends on the schedule:
 *    new slices become jobs with the right prefix, a slice seen again
 *    widens its job's prefix, every schedule satisfies its job's prefix,
 *    and the search stops at the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "replay/strategy_period.h"

#define MAXO 200000

static fx_pslice slice(int n, const uint64_t *k)
{
    fx_pslice s;
    memset(&s, 0, sizeof s);
    s.n = n;
    for (int t = 0; t < n; t++)
        s.k[t] = k[t];
    return s;
}

/* The combination (sorted thread set) of s as a bit mask. */
static unsigned mask_of(const fx_pschedule *s)
{
    unsigned m = 0;
    for (int i = 0; i < s->np; i++)
        m |= 1u << s->thr[i];
    return m;
}

static int cmp_order(const void *pa, const void *pb)
{
    const fx_pschedule *a = pa, *b = pb;
    unsigned ma = mask_of(a), mb = mask_of(b);
    int ca = __builtin_popcount(ma), cb = __builtin_popcount(mb);
    if (ca != cb)
        return ca - cb;
    if (ma != mb) { /* lexicographic on the sorted thread lists */
        unsigned d = ma ^ mb;
        return (ma & (d & -d)) ? -1 : 1;
    }
    for (int i = 0; i < a->np; i++)
        if (a->thr[i] != b->thr[i])
            return a->thr[i] - b->thr[i];
    for (int i = 0; i < a->np; i++)
        if (a->cnt[i] != b->cnt[i])
            return a->cnt[i] > b->cnt[i] ? -1 : 1;
    return 0;
}

/* Every p-period schedule of s satisfying pfx, in the paper's order. */
static size_t oracle(const fx_pslice *s, int p, const fx_pprefix *pfx,
                     fx_pschedule *out)
{
    size_t n = 0;
    fx_pschedule c;
    memset(&c, 0, sizeof c);
    c.np = p;
    uint64_t kmax = 0;
    for (int t = 0; t < s->n; t++)
        kmax = s->k[t] > kmax ? s->k[t] : kmax;
    for (int i = 0; i < p; i++) {
        c.thr[i] = 0;
        c.cnt[i] = 1;
    }
    for (;;) {
        int ok = 1;
        uint64_t sum[FX_PERIOD_THREADS] = {0};
        for (int i = 0; i < p && ok; i++) {
            ok = (i == 0 || c.thr[i] != c.thr[i - 1]) && s->k[c.thr[i]] > 0;
            sum[c.thr[i]] += c.cnt[i];
        }
        unsigned m = mask_of(&c);
        for (int t = 0; t < s->n && ok; t++)
            ok = !(m & (1u << t)) || sum[t] == s->k[t];
        if (ok && pfx)
            ok = fx_pprefix_match(pfx, &c);
        if (ok) {
            assert_true(n < MAXO);
            out[n++] = c;
        }
        int i = p - 1; /* odometer: counts fastest, then threads */
        while (i >= 0) {
            if (++c.cnt[i] <= kmax)
                break;
            c.cnt[i] = 1;
            if (++c.thr[i] < s->n)
                break;
            c.thr[i] = 0;
            i--;
        }
        if (i < 0)
            break;
    }
    qsort(out, n, sizeof *out, cmp_order);
    return n;
}

static size_t generate(const fx_pslice *s, int p, const fx_pprefix *pfx,
                       fx_pschedule *out)
{
    fx_pgen g;
    fx_pgen_init(&g, s, p, pfx);
    size_t n = 0;
    while (n < MAXO && fx_pgen_next(&g, &out[n]))
        n++;
    return n;
}

static void check_against_oracle(const fx_pslice *s, int p, const fx_pprefix *pfx)
{
    static fx_pschedule want[MAXO], got[MAXO];
    size_t nw = oracle(s, p, pfx, want), ng = generate(s, p, pfx, got);
    assert_int_equal(ng, nw);
    for (size_t i = 0; i < nw; i++) {
        assert_int_equal(got[i].np, p);
        for (int q = 0; q < p; q++) {
            assert_int_equal(got[i].thr[q], want[i].thr[q]);
            assert_int_equal(got[i].cnt[q], want[i].cnt[q]);
        }
    }
}

static void test_generator_oracle(void **state)
{
    (void)state;
    static const uint64_t models[][4] = {
        {1, 1, 0, 0}, {2, 2, 0, 0}, {3, 2, 1, 0}, {4, 1, 2, 0},
        {1, 1, 1, 1}, {3, 0, 2, 0}, {5, 3, 0, 0},
    };
    static const int nthreads[] = {2, 2, 3, 3, 4, 3, 2};
    for (size_t m = 0; m < sizeof nthreads / sizeof nthreads[0]; m++) {
        fx_pslice s = slice(nthreads[m], models[m]);
        for (int p = 1; p <= 6; p++)
            check_against_oracle(&s, p, NULL);
    }
    /* With prefixes: literal periods, then patterns. */
    uint64_t k[] = {4, 3, 2};
    fx_pslice s = slice(3, k);
    fx_pprefix pfx[4];
    memset(pfx, 0, sizeof pfx);
    pfx[0] = (fx_pprefix){.nlit = 0, .npat = 1, .thr = {1}};
    pfx[1] = (fx_pprefix){.nlit = 1, .npat = 1, .thr = {0, 1}, .cnt = {2}};
    pfx[2] = (fx_pprefix){.nlit = 2, .npat = 1, .thr = {0, 2, 0}, .cnt = {3, 2}};
    pfx[3] = (fx_pprefix){.nlit = 0, .npat = 2, .thr = {2, 0}};
    for (int i = 0; i < 4; i++)
        for (int p = 1; p <= 5; p++)
            check_against_oracle(&s, p, &pfx[i]);
}

/* Section 3.2.1: the slice with 3, 2 and 1 key points; its first
 * serialised 4-period pattern is <t0 t1 t0 t2>, giving {t0x2}{t1x2}{t0}{t2}
 * then {t0}{t1x2}{t0x2}{t2}; the next pattern is <t0 t1 t2 t0>. */
static void test_paper_serialised_example(void **state)
{
    (void)state;
    uint64_t k[] = {3, 2, 1};
    fx_pslice s = slice(3, k);
    fx_pgen g;
    fx_pgen_init(&g, &s, 4, NULL);
    fx_pschedule x, all3[64];
    int n = 0;
    while (fx_pgen_next(&g, &x))
        if (mask_of(&x) == 7 && n < 64)
            all3[n++] = x;
    assert_true(n >= 3);
    const int t0[] = {0, 1, 0, 2}, t2[] = {0, 1, 2, 0};
    const uint64_t c0[] = {2, 2, 1, 1}, c1[] = {1, 2, 2, 1};
    for (int q = 0; q < 4; q++) {
        assert_int_equal(all3[0].thr[q], t0[q]);
        assert_int_equal(all3[0].cnt[q], c0[q]);
        assert_int_equal(all3[1].thr[q], t0[q]);
        assert_int_equal(all3[1].cnt[q], c1[q]);
        assert_int_equal(all3[2].thr[q], t2[q]);
    }
    /* The parallel scheduler: with t0 and t1 chosen, 3 periods suffice
     * for <t1 t0 t1> with t2 free in the last (the reorder example). */
    uint64_t k10[] = {2, 2, 1};
    fx_pslice s10 = slice(3, k10);
    fx_pgen_init(&g, &s10, 3, NULL);
    int found = 0;
    while (fx_pgen_next(&g, &x))
        found |= x.thr[0] == 1 && x.thr[1] == 0 && x.thr[2] == 1;
    assert_true(found);
}

static fx_pschedule sched(int np, const int *thr, const uint64_t *cnt)
{
    fx_pschedule s;
    memset(&s, 0, sizeof s);
    s.np = np;
    for (int i = 0; i < np; i++) {
        s.thr[i] = thr[i];
        s.cnt[i] = cnt[i];
    }
    return s;
}

static void expect_prefix(const fx_pprefix *pfx, const char *want)
{
    char buf[256];
    fx_pprefix_str(pfx, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_prefixes(void **state)
{
    (void)state;
    uint64_t k[] = {7, 8};
    fx_pslice s = slice(2, k);
    fx_pprefix out;
    /* The first schedule: compared with the empty one. */
    fx_pschedule a = sched(2, (int[]){0, 1}, (uint64_t[]){1, 1});
    fx_pprefix_of(&a, &s, NULL, NULL, &out);
    expect_prefix(&out, "[t0]");
    fx_pschedule b = sched(2, (int[]){1, 0}, (uint64_t[]){1, 1});
    fx_pprefix_of(&b, &s, &a, &s, &out);
    expect_prefix(&out, "[t1]");
    /* Figure 3f: {t0x4}{t1..}{t0..} after {t0x5}{t1..}{t0..}. */
    fx_pschedule f = sched(3, (int[]){0, 1, 0}, (uint64_t[]){4, 8, 3});
    fx_pschedule e = sched(3, (int[]){0, 1, 0}, (uint64_t[]){5, 8, 2});
    fx_pprefix_of(&f, &s, &e, &s, &out);
    expect_prefix(&out, "{t0x4}[t1]");
    /* A difference inside a period: the period becomes the pattern. */
    fx_pschedule g = sched(3, (int[]){0, 1, 0}, (uint64_t[]){2, 3, 1});
    fx_pschedule h = sched(3, (int[]){0, 1, 0}, (uint64_t[]){2, 2, 2});
    fx_pprefix_of(&g, &s, &h, &s, &out);
    expect_prefix(&out, "{t0x2}[t1]");
    /* In the last period, among the neglected threads (t2 before t3). */
    uint64_t k4[] = {2, 2, 1, 1};
    fx_pslice s4 = slice(4, k4);
    fx_pschedule i1 = sched(2, (int[]){0, 1}, (uint64_t[]){2, 2});
    fx_pschedule i2 = sched(2, (int[]){0, 2}, (uint64_t[]){2, 1});
    fx_pprefix_of(&i1, &s4, &i2, &s4, &out); /* t0 t0 t1 t1 t2 t3 */
    expect_prefix(&out, "{t0x2}[t1]");       /* vs t0 t0 t2 t1 t1 t3 */
    fx_pschedule j1 = sched(2, (int[]){0, 1}, (uint64_t[]){2, 2});
    fx_pslice s4b = slice(4, (uint64_t[]){2, 2, 1, 3});
    fx_pprefix_of(&j1, &s4b, &i1, &s4, &out); /* t3's second key point */
    expect_prefix(&out, "{t0x2}[t3]");
    /* Common prefixes. */
    fx_pprefix p1 = {.nlit = 1, .npat = 1, .thr = {0, 1}, .cnt = {4}};
    fx_pprefix p2 = {.nlit = 1, .npat = 1, .thr = {0, 1}, .cnt = {3}};
    fx_pprefix p3 = {.nlit = 2, .npat = 1, .thr = {0, 1, 0}, .cnt = {4, 2}};
    fx_pprefix p4 = {.nlit = 0, .npat = 1, .thr = {1}};
    fx_pprefix_common(&p1, &p2, &out);
    expect_prefix(&out, "[t0][t1]");
    fx_pprefix_common(&p1, &p3, &out);
    expect_prefix(&out, "{t0x4}[t1]");
    fx_pprefix_common(&p3, &p3, &out);
    expect_prefix(&out, "{t0x4}{t1x2}[t0]");
    fx_pprefix_common(&p1, &p4, &out);
    expect_prefix(&out, "");
}

/* A model of the figure-1 program's shape: t1 returns early (2 key
 * points) if t0 finished first, else runs 6; t0 likewise. */
static fx_pslice model_run(const fx_pschedule *s)
{
    fx_pslice r;
    memset(&r, 0, sizeof r);
    r.n = 2;
    int first = s->thr[0];
    int whole_first = 1;
    for (int q = 1; q < s->np; q++)
        whole_first &= s->thr[q] != first;
    r.k[first] = 6;
    r.k[1 - first] = whole_first ? 2 : 6;
    return r;
}

static void test_algorithm1(void **state)
{
    (void)state;
    fx_period *x = fx_period_new(2, 5, 1);
    assert_non_null(x);
    fx_pschedule s;
    int p, lastp = 0, runs = 0;
    while (fx_period_next(x, &s, &p)) {
        assert_true(p >= lastp); /* rounds in order */
        lastp = p;
        assert_int_equal(s.np, p);
        fx_pslice seen = model_run(&s);
        fx_period_feed(x, &seen);
        assert_true(++runs < 100000);
    }
    assert_int_equal(lastp, 5);
    /* Jobs: the initial one, then (6,2) and (2,6) from the first
     * schedules [t0] and [t1], then (6,6). */
    size_t nj = fx_period_njobs(x);
    assert_int_equal(nj, 4);
    fx_pprefix pfx;
    int done;
    const fx_pslice *j = fx_period_job(x, 0, &pfx, &done);
    assert_int_equal(j->k[0], 1);
    assert_true(done); /* p = 3 exceeds its 2 key points */
    for (size_t i = 1; i < nj; i++) {
        j = fx_period_job(x, i, &pfx, &done);
        assert_false(done);
        for (size_t m = 0; m < i; m++) /* one job per slice */
            assert_false(fx_period_job(x, m, NULL, NULL)->k[0] == j->k[0] &&
                         fx_period_job(x, m, NULL, NULL)->k[1] == j->k[1]);
    }
    char buf[128];
    fx_period_job(x, 1, &pfx, NULL);
    fx_pprefix_str(&pfx, buf, sizeof buf);
    assert_string_equal(buf, "[t0]");
    fx_period_free(x);

    /* Every schedule meets its job's prefix, and a job's p-period
     * schedules are the generator's: count them against the oracle. */
    x = fx_period_new(2, 4, 1);
    static fx_pschedule want[MAXO];
    size_t expect = 0, got = 0;
    while (fx_period_next(x, &s, &p)) {
        int matched = 0;
        for (size_t i = 0; i < fx_period_njobs(x); i++) {
            const fx_pslice *js = fx_period_job(x, i, &pfx, &done);
            fx_pgen g;
            fx_pgen_init(&g, js, p, &pfx);
            fx_pschedule y;
            while (!matched && fx_pgen_next(&g, &y))
                matched = memcmp(&y, &s, sizeof y) == 0;
        }
        assert_true(matched);
        got++;
        fx_pslice seen = model_run(&s);
        fx_period_feed(x, &seen);
    }
    /* Rounds 1..4 on the final jobs, whose prefixes no longer change. */
    for (p = 1; p <= 4; p++)
        for (size_t i = 0; i < fx_period_njobs(x); i++) {
            const fx_pslice *js = fx_period_job(x, i, &pfx, NULL);
            uint64_t tot = 0;
            for (int t = 0; t < js->n; t++)
                tot += js->k[t];
            if ((uint64_t)p <= tot)
                expect += oracle(js, p, &pfx, want);
        }
    /* Jobs created in round r miss rounds 1..r-1: fewer, never more. */
    assert_true(got <= expect);
    assert_true(got > expect / 2);
    fx_period_free(x);
}

static void test_spec(void **state)
{
    (void)state;
    fx_pschedule s = sched(3, (int[]){0, 1, 0}, (uint64_t[]){4, 8, 3});
    char buf[64];
    assert_int_equal(fx_period_spec(&s, buf, sizeof buf), 0);
    assert_string_equal(buf, "period:p=0.4,1.8,0.3");
    assert_int_equal(fx_period_spec(&s, buf, 12), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_oracle),
        cmocka_unit_test(test_paper_serialised_example),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_algorithm1),
        cmocka_unit_test(test_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

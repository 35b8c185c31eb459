/* SPDX-License-Identifier: MIT */
/* test_explore_bounded.c - the ICB/IDB enumeration (replay/
 * strategy_bounded.c) on a tiny model: n threads of k steps each, no
 * synchronisation, decision points exactly where the runtime's prefix
 * policy has them (whenever two or more threads are enabled; the running
 * thread is the default, the lowest tid at the start and round-robin after
 * a thread ends).  Checked against
 *  - the closed form for 2 threads: with p preemptions a schedule has p+2
 *    blocks, so there are 2*C(k-1, ceil((p+2)/2)-1)*C(k-1, floor((p+2)/2)-1)
 *    of them (p=0: 2, p=1: 2(k-1), p=2: 2(k-1)^2);
 *  - a brute-force oracle: every interleaving of the model, its
 *    preemptions and delays counted on the whole schedule, which must be
 *    enumerated exactly once, at its own bound, iff within the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "replay/explore.h"

#define MAXS 32

/* Runs the model under spec; fills the decisions and the schedule. */
static int simulate(int nthreads, int k, const char *spec, fx_decision *dec,
                    uint64_t *ndec, char *sched)
{
    uint64_t at_step[MAXS];
    int at_tid[MAXS], nat = 0;
    const char *p = strstr(spec, "at=");
    if (p) {
        p += 3;
        while (*p) {
            unsigned long long s;
            int t, used;
            assert_int_equal(sscanf(p, "%llu.%d%n", &s, &t, &used), 2);
            at_step[nat] = s;
            at_tid[nat++] = t;
            p += used;
            if (*p == ',')
                p++;
        }
    }
    int left[8];
    for (int i = 0; i < nthreads; i++)
        left[i] = k;
    int cur = -1, len = 0, forced = 0;
    uint64_t step = 0;
    *ndec = 0;
    for (;;) {
        int en[8], n = 0;
        for (int i = 0; i < nthreads; i++)
            if (left[i])
                en[n++] = i;
        if (n == 0)
            break;
        int chosen;
        if (n == 1) {
            chosen = en[0];
        } else {
            step++;
            int cur_en = cur >= 0 && left[cur];
            int dflt = cur_en ? cur : -1;
            if (!cur_en) { /* round-robin after cur */
                for (int i = 0; i < n && dflt < 0; i++)
                    if (en[i] > cur)
                        dflt = en[i];
                if (dflt < 0)
                    dflt = en[0];
            }
            chosen = dflt;
            if (forced < nat && at_step[forced] == step) {
                chosen = at_tid[forced++];
                assert_true(left[chosen] > 0);
            }
            fx_decision *d = &dec[(*ndec)++];
            memset(d, 0, sizeof *d);
            d->step = step;
            d->cur = cur;
            d->chosen = chosen;
            d->kind = cur_en ? 'p' : 'b';
            d->n = n;
            memcpy(d->enabled, en, (size_t)n * sizeof en[0]);
        }
        sched[len++] = (char)('0' + chosen);
        left[chosen]--;
        cur = chosen;
    }
    sched[len] = 0;
    assert_int_equal(forced, nat); /* every forced choice was a decision */
    return len;
}

/* Preemptions and delays of a whole schedule, counted directly. */
static void costs(int nthreads, int k, const char *s, int *pre, int *del)
{
    int left[8];
    for (int i = 0; i < nthreads; i++)
        left[i] = k;
    *pre = *del = 0;
    int cur = -1;
    for (const char *c = s; *c; c++) {
        int t = *c - '0';
        int en[8], n = 0;
        for (int i = 0; i < nthreads; i++)
            if (left[i])
                en[n++] = i;
        if (n > 1) {
            int cur_en = cur >= 0 && left[cur];
            if (cur_en && t != cur)
                (*pre)++;
            int from = 0; /* the default's position in tid order */
            if (cur_en) {
                for (int i = 0; i < n; i++)
                    if (en[i] == cur)
                        from = i;
            } else {
                from = -1;
                for (int i = 0; i < n && from < 0; i++)
                    if (en[i] > cur)
                        from = i;
                if (from < 0)
                    from = 0;
            }
            for (int j = 0; j < n; j++)
                if (en[(from + j) % n] == t)
                    *del += j;
        }
        left[t]--;
        cur = t;
    }
}

typedef struct seen {
    char (*s)[MAXS];
    int *bound;
    int n, cap;
} seen;

/* Runs the whole enumeration; returns the number of runs per bound. */
static void enumerate(int delay, int nthreads, int k, int max_bound,
                      uint64_t *per_bound, seen *out)
{
    fx_bounded *b = fx_bounded_new(delay, max_bound);
    assert_non_null(b);
    char spec[4096];
    int bound;
    fx_decision dec[MAXS];
    memset(per_bound, 0, (size_t)(max_bound + 1) * sizeof per_bound[0]);
    int guard = 0;
    while (fx_bounded_next(b, spec, sizeof spec, &bound)) {
        assert_true(++guard < 200000);
        uint64_t n;
        char s[MAXS];
        simulate(nthreads, k, spec, dec, &n, s);
        fx_bounded_feed(b, dec, n);
        assert_true(bound >= 0 && bound <= max_bound);
        per_bound[bound]++;
        if (out) {
            if (out->n == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 256;
                out->s = realloc(out->s, (size_t)out->cap * sizeof *out->s);
                out->bound = realloc(out->bound, (size_t)out->cap * sizeof(int));
            }
            memcpy(out->s[out->n], s, sizeof s);
            out->bound[out->n++] = bound;
        }
    }
    fx_bounded_free(b);
}

static uint64_t binom(int n, int r)
{
    if (r < 0 || r > n)
        return 0;
    uint64_t v = 1;
    for (int i = 1; i <= r; i++)
        v = v * (uint64_t)(n - r + i) / (uint64_t)i;
    return v;
}

static void test_icb_two_threads_closed_form(void **state)
{
    (void)state;
    for (int k = 1; k <= 7; k++) {
        uint64_t per[3];
        enumerate(0, 2, k, 2, per, NULL);
        for (int p = 0; p <= 2; p++) {
            int blocks = p + 2;
            uint64_t want = 2 * binom(k - 1, (blocks + 1) / 2 - 1) *
                            binom(k - 1, blocks / 2 - 1);
            assert_int_equal(per[p], want);
        }
    }
    /* The named values for k = 5: 2, 2(k-1), 2(k-1)^2. */
    uint64_t per[3];
    enumerate(0, 2, 5, 2, per, NULL);
    assert_int_equal(per[0], 2);
    assert_int_equal(per[1], 8);
    assert_int_equal(per[2], 32);
}

/* All interleavings of n threads x k steps, by recursion. */
static void all_schedules(int nthreads, int k, int *left, char *buf, int len,
                          seen *out)
{
    int done = 1;
    for (int t = 0; t < nthreads; t++) {
        if (!left[t])
            continue;
        done = 0;
        left[t]--;
        buf[len] = (char)('0' + t);
        all_schedules(nthreads, k, left, buf, len + 1, out);
        left[t]++;
    }
    if (done) {
        buf[len] = 0;
        if (out->n == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 256;
            out->s = realloc(out->s, (size_t)out->cap * sizeof *out->s);
        }
        memcpy(out->s[out->n++], buf, MAXS);
    }
}

static void check_against_oracle(int delay, int nthreads, int k, int max_bound)
{
    seen got = {0}, all = {0};
    uint64_t per[8];
    enumerate(delay, nthreads, k, max_bound, per, &got);
    int left[8];
    char buf[MAXS];
    for (int i = 0; i < nthreads; i++)
        left[i] = k;
    all_schedules(nthreads, k, left, buf, 0, &all);
    int expected = 0;
    for (int i = 0; i < all.n; i++) {
        int pre, del;
        costs(nthreads, k, all.s[i], &pre, &del);
        int cost = delay ? del : pre;
        int found = 0;
        for (int j = 0; j < got.n; j++) {
            if (strcmp(got.s[j], all.s[i]) == 0) {
                found++;
                assert_int_equal(got.bound[j], cost);
            }
        }
        if (cost <= max_bound) {
            expected++;
            if (found != 1)
                fail_msg("%s: schedule %s (cost %d) enumerated %d times",
                         delay ? "idb" : "icb", all.s[i], cost, found);
        } else {
            assert_int_equal(found, 0);
        }
    }
    assert_int_equal(got.n, expected);
    free(got.s);
    free(got.bound);
    free(all.s);
}

static void test_icb_oracle(void **state)
{
    (void)state;
    check_against_oracle(0, 2, 4, 3);
    check_against_oracle(0, 3, 2, 2);
    check_against_oracle(0, 3, 3, 2);
}

static void test_idb_oracle(void **state)
{
    (void)state;
    check_against_oracle(1, 2, 4, 3);
    check_against_oracle(1, 3, 2, 3);
    check_against_oracle(1, 3, 3, 2);
}

static void test_read_log(void **state)
{
    (void)state;
    char path[] = "/tmp/ft_explore_logXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "1 0 0 p 0 1 2\n2 0 2 b 1 2\ngarbage\n3 1 1 y 1\n");
    fclose(f);
    uint64_t n;
    fx_decision *d = fx_read_log(path, &n);
    remove(path);
    assert_non_null(d);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].n, 3);
    assert_int_equal(d[1].chosen, 2);
    assert_int_equal(d[1].kind, 'b');
    assert_int_equal(d[2].step, 3);
    assert_int_equal(d[2].kind, 'y');
    free(d);
    assert_null(fx_read_log("/nonexistent/log", &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_icb_two_threads_closed_form),
        cmocka_unit_test(test_icb_oracle),
        cmocka_unit_test(test_idb_oracle),
        cmocka_unit_test(test_read_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

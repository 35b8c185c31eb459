/* SPDX-License-Identifier: MIT */
/* test_infer_serial.c - the observed-serializability checker (one pass,
 * vector clocks) against the brute-force dependence-graph oracle on
 * thousands of generated traces, plus the textbook cases by hand.  Every
 * violated region must be found, none invented, and each witness must be a
 * real path out of the region and back into it. */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Random trace: threads forked by thread 0 (or by other started threads),
 * joined only once finished; reads/writes of a few objects. */
static size_t gen_trace(uint64_t *seed, fi_sev *ev, size_t max,
                        uint32_t *nthreads, uint32_t *nobj)
{
    uint32_t T = 2 + rnd_below(seed, 3);
    uint32_t O = 1 + rnd_below(seed, 3);
    int started[8] = {1}, done[8] = {0}, joined[8] = {0};
    uint32_t nstarted = 1;
    size_t n = 4 + rnd_below(seed, (uint32_t)max - 4);
    size_t k = 0;
    while (k < n) {
        uint32_t t = rnd_below(seed, T);
        if (!started[t] || done[t])
            continue;
        uint32_t c = rnd_below(seed, 20);
        fi_sev e = {t, 0, FI_OP_NONE};
        if (c < 2 && nstarted < T) {
            e.op = FI_OP_FORK;
            e.obj = nstarted;
            started[nstarted++] = 1;
        } else if (c < 3) {
            /* join a child that is marked finished from now on */
            uint32_t u = rnd_below(seed, T);
            if (u == t || u == 0 || !started[u] || joined[u])
                continue;
            done[u] = joined[u] = 1;
            e.op = FI_OP_JOIN;
            e.obj = u;
        } else if (c < 4) {
            e.op = FI_OP_NONE;
        } else {
            e.op = c < 11 ? FI_OP_READ : FI_OP_WRITE;
            e.obj = rnd_below(seed, O);
        }
        ev[k++] = e;
    }
    *nthreads = T;
    *nobj = O;
    return k;
}

static size_t gen_spans(uint64_t *seed, const fi_sev *ev, size_t n,
                        fi_span *spans, size_t max)
{
    size_t ns = 1 + rnd_below(seed, (uint32_t)max);
    size_t k = 0;
    for (size_t tries = 0; k < ns && tries < 100; tries++) {
        size_t i = rnd_below(seed, (uint32_t)n);
        size_t j = i + rnd_below(seed, (uint32_t)(n - i));
        while (ev[j].tid != ev[i].tid)
            j--;
        spans[k++] = (fi_span){ev[i].tid, i, j};
    }
    return k;
}

static int reaches(const fi_sev *ev, size_t n, size_t from, size_t to)
{
    /* Same edge rules as the oracle, restated for the witness check. */
    char *r = calloc(n, 1);
    r[from] = 1;
    for (size_t i = from; i < to; i++) {
        if (!r[i])
            continue;
        for (size_t j = i + 1; j <= to; j++) {
            const fi_sev *a = &ev[i], *b = &ev[j];
            int e = a->tid == b->tid ||
                    (a->op == FI_OP_FORK && a->obj == b->tid) ||
                    (b->op == FI_OP_JOIN && b->obj == a->tid) ||
                    ((a->op == FI_OP_READ || a->op == FI_OP_WRITE) &&
                     (b->op == FI_OP_READ || b->op == FI_OP_WRITE) &&
                     a->obj == b->obj &&
                     (a->op == FI_OP_WRITE || b->op == FI_OP_WRITE));
            if (e)
                r[j] = 1;
        }
    }
    int ok = r[to];
    free(r);
    return ok;
}

static void against_oracle(void **state)
{
    (void)state;
    enum { MAXN = 28, MAXS = 6, CASES = 20000 };
    fi_sev ev[MAXN];
    fi_span spans[MAXS];
    uint8_t bad[MAXS];
    fi_witness wit[MAXS];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t violations = 0, checked = 0;
    for (int c = 0; c < CASES; c++) {
        uint32_t T, O;
        size_t n = gen_trace(&seed, ev, MAXN, &T, &O);
        size_t ns = gen_spans(&seed, ev, n, spans, MAXS);
        long nv = fi_serial_check(ev, n, T, O, spans, ns, bad, wit);
        assert_true(nv >= 0);
        long count = 0;
        for (size_t s = 0; s < ns; s++) {
            int want = oracle_violated(ev, n, &spans[s]);
            if (want != bad[s]) {
                for (size_t i = 0; i < n; i++)
                    print_message("%zu: T%u op %u obj %u\n", i, ev[i].tid,
                                  ev[i].op, ev[i].obj);
                print_message("witness out %llu via %llu in %llu\n",
                              (unsigned long long)wit[s].out,
                              (unsigned long long)wit[s].via,
                              (unsigned long long)wit[s].in);
            }
            if (want != bad[s])
                fail_msg("case %d span %zu (T%u %zu-%zu): checker %d, "
                         "oracle %d",
                         c, s, spans[s].tid, (size_t)spans[s].first,
                         (size_t)spans[s].last, bad[s], want);
            checked++;
            if (!bad[s])
                continue;
            count++;
            const fi_witness *w = &wit[s];
            assert_true(w->out >= spans[s].first && w->out < w->in);
            assert_true(w->in <= spans[s].last);
            assert_int_equal(ev[w->out].tid, spans[s].tid);
            assert_int_equal(ev[w->in].tid, spans[s].tid);
            assert_int_not_equal(ev[w->via].tid, spans[s].tid);
            assert_true(w->out < w->via && w->via < w->in);
            assert_true(reaches(ev, n, w->out, w->via));
        }
        assert_int_equal(nv, count);
        violations += (size_t)count;
    }
    /* The generator must exercise both answers often. */
    assert_true(violations > checked / 20);
    assert_true(violations < checked - checked / 20);
}

/* Lost update: T0 reads x, T1 writes x, T0 writes x. */
static void lost_update(void **state)
{
    (void)state;
    fi_sev ev[] = {{0, 0, FI_OP_READ}, {1, 0, FI_OP_WRITE},
                   {0, 0, FI_OP_WRITE}};
    fi_span sp[] = {{0, 0, 2}, {1, 1, 1}};
    uint8_t bad[2];
    fi_witness w[2];
    assert_int_equal(fi_serial_check(ev, 3, 2, 1, sp, 2, bad, w), 1);
    assert_int_equal(bad[0], 1);
    assert_int_equal(bad[1], 0);
    assert_int_equal(w[0].out, 0);
    assert_int_equal(w[0].via, 1);
    assert_int_equal(w[0].in, 2);
}

/* Two critical sections of one lock with another thread's write between:
 * race-free but not atomic (locks are writes of the lock object). */
static void two_critical_sections(void **state)
{
    (void)state;
    enum { X = 0, L = 1 };
    fi_sev ev[] = {
        {0, L, FI_OP_WRITE}, {0, X, FI_OP_READ},  {0, L, FI_OP_WRITE},
        {1, L, FI_OP_WRITE}, {1, X, FI_OP_WRITE}, {1, L, FI_OP_WRITE},
        {0, L, FI_OP_WRITE}, {0, X, FI_OP_WRITE}, {0, L, FI_OP_WRITE},
    };
    fi_span sp[] = {{0, 1, 7}};
    uint8_t bad[1];
    fi_witness w[1];
    assert_int_equal(fi_serial_check(ev, 9, 2, 2, sp, 1, bad, w), 1);
    /* The same program without the interleaving is serializable. */
    fi_sev ok[] = {
        {0, L, FI_OP_WRITE}, {0, X, FI_OP_READ},  {0, L, FI_OP_WRITE},
        {0, L, FI_OP_WRITE}, {0, X, FI_OP_WRITE}, {0, L, FI_OP_WRITE},
        {1, L, FI_OP_WRITE}, {1, X, FI_OP_WRITE}, {1, L, FI_OP_WRITE},
    };
    fi_span sp2[] = {{0, 1, 4}};
    assert_int_equal(fi_serial_check(ok, 9, 2, 2, sp2, 1, bad, w), 0);
}

/* Reads by the region's own thread are program order, not a cycle; reads
 * by others are. */
static void own_reads_are_not_cycles(void **state)
{
    (void)state;
    fi_sev ev[] = {{0, 0, FI_OP_READ}, {1, 1, FI_OP_READ},
                   {0, 0, FI_OP_WRITE}};
    fi_span sp[] = {{0, 0, 2}};
    uint8_t bad[1];
    assert_int_equal(fi_serial_check(ev, 3, 2, 2, sp, 1, bad, NULL), 0);
    fi_sev ev2[] = {{0, 0, FI_OP_WRITE}, {1, 0, FI_OP_READ},
                    {0, 0, FI_OP_WRITE}};
    assert_int_equal(fi_serial_check(ev2, 3, 2, 1, sp, 1, bad, NULL), 1);
}

/* Fork and join inside a region close cycles too. */
static void fork_join_cycle(void **state)
{
    (void)state;
    fi_sev ev[] = {{0, 0, FI_OP_WRITE}, {0, 1, FI_OP_FORK},
                   {1, 0, FI_OP_READ},  {0, 1, FI_OP_JOIN}};
    fi_span sp[] = {{0, 0, 3}, {0, 0, 1}};
    uint8_t bad[2];
    fi_witness w[2];
    assert_int_equal(fi_serial_check(ev, 4, 2, 1, sp, 2, bad, w), 1);
    assert_int_equal(bad[0], 1);
    assert_int_equal(bad[1], 0);
    assert_int_equal(w[0].via, 2);
    assert_int_equal(w[0].in, 3);
}

static void bad_input(void **state)
{
    (void)state;
    fi_sev ev[] = {{0, 0, FI_OP_READ}, {1, 0, FI_OP_WRITE}};
    uint8_t bad[1];
    fi_span wrong_tid[] = {{1, 0, 1}};
    assert_int_equal(fi_serial_check(ev, 2, 2, 1, wrong_tid, 1, bad, NULL),
                     -1);
    fi_span past_end[] = {{0, 0, 5}};
    assert_int_equal(fi_serial_check(ev, 2, 2, 1, past_end, 1, bad, NULL),
                     -1);
    fi_sev obj_out[] = {{0, 7, FI_OP_READ}};
    assert_int_equal(fi_serial_check(obj_out, 1, 1, 1, NULL, 0, bad, NULL),
                     -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lost_update),
        cmocka_unit_test(two_critical_sections),
        cmocka_unit_test(own_reads_are_not_cycles),
        cmocka_unit_test(fork_join_cycle),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

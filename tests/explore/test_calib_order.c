/* SPDX-License-Identifier: MIT */
/* test_calib_order.c - SURW's candidate variables (replay/calib_order.c
 * through fx_calibrate) against an independent oracle on thousands of
 * random runs: threads that create and join threads, take two locks
 * (nested, in one order), and read and write three globals.  The oracle
 * builds the happens-before graph (program order, creation, join) and
 * its transitive closure, and applies the two rules as calib_order.c
 * states them, pair by pair: a shared variable is dropped when every
 * write happens before the creation of each other thread that touches
 * it, or when the accesses concurrent with another thread's all hold one
 * lock that two threads take.  Also data/stages.c's shape by hand, and
 * counts that both rules fire (the test can fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "replay/explore.h"
#include "tests/unit/fixture.h"

#define MAXT 6
#define MAXEV 256
#define NVARS 3
#define NLOCKS 2
#define BASE 0x400000ull
#define VAR_ADDR(v) (BASE + 0x100 + 0x10 * (uint64_t)(v))
#define LOCK_ADDR(l) (BASE + 0x800 + 0x40 * (uint64_t)(l))

typedef struct run {
    ft_event ev[MAXEV];
    int n;
    int var[MAXEV];      /* data variable of an access, -1 none */
    int lock[MAXEV];     /* lock of a lock operation, -1 none */
    int write[MAXEV];
    unsigned held[MAXEV]; /* locks the thread held at an access (bits) */
    int create_ev[MAXT]; /* the event that created thread t, -1 main */
    int nthreads;
} run;

typedef struct sim {
    int alive, started, exited, budget, forks, parent;
    unsigned held;
    int joined[MAXT];
} sim;

static void push(run *r, uint32_t tid, uint16_t kind, uint64_t addr,
                 uint64_t value, int var, int lock, int write, unsigned held)
{
    ft_event *e = &r->ev[r->n];
    memset(e, 0, sizeof *e);
    e->tid = tid;
    e->kind = kind;
    e->addr = addr;
    e->value = value;
    e->size = addr && var >= 0 ? 4 : 0;
    e->site = 1;
    r->var[r->n] = var;
    r->lock[r->n] = lock;
    r->write[r->n] = write;
    r->held[r->n] = held;
    r->n++;
}

/* One random run, scheduled by a random walk over the threads that can
 * make progress. */
static void gen(rng *g, run *r)
{
    sim s[MAXT];
    memset(s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    for (int t = 0; t < MAXT; t++)
        r->create_ev[t] = -1;
    r->nthreads = 1;
    s[0] = (sim){.alive = 1, .budget = 2 + (int)rng_below(g, 8), .parent = -1};
    push(r, 0, FT_EV_THREAD_START, 0, 0, -1, -1, 0, 0);
    s[0].started = 1;
    int owner[NLOCKS] = {-1, -1};
    /* half the runs guard variable 2 with lock 0 (as a program with a
     * discipline does); main may read every variable after its joins */
    int guarded = rng_below(g, 2) == 0, epilogue = rng_below(g, 2) == 0;
    while (r->n < MAXEV - 16) {
        int cand[MAXT], nc = 0;
        for (int t = 0; t < r->nthreads; t++) {
            if (!s[t].alive)
                continue;
            if (s[t].budget == 0 && !s[t].held) {
                /* at the end: join the children, one at a time */
                int blocked = 0;
                for (int c = 1; c < r->nthreads; c++)
                    if (s[c].parent == t && !s[t].joined[c] && !s[c].exited)
                        blocked = 1;
                if (blocked)
                    continue;
            }
            cand[nc++] = t;
        }
        if (!nc)
            break;
        uint32_t t = (uint32_t)cand[rng_below(g, (uint64_t)nc)];
        sim *me = &s[t];
        if (!me->started) {
            push(r, t, FT_EV_THREAD_START, 0, (uint64_t)me->parent, -1, -1, 0, 0);
            me->started = 1;
            continue;
        }
        if (me->budget == 0) {
            if (me->held) { /* release the inner lock first */
                int l = (me->held & 2) ? 1 : 0;
                push(r, t, FT_EV_MUTEX_UNLOCK, LOCK_ADDR(l), 0, -1, l, 1, me->held);
                me->held &= ~(1u << l);
                owner[l] = -1;
                continue;
            }
            int joined = 0;
            for (int c = 1; c < r->nthreads && !joined; c++)
                if (s[c].parent == (int)t && !me->joined[c]) {
                    push(r, t, FT_EV_THREAD_JOIN, 0, (uint64_t)c, -1, -1, 0, me->held);
                    me->joined[c] = 1;
                    joined = 1;
                }
            if (joined)
                continue;
            for (int v = 0; t == 0 && epilogue && v < NVARS; v++)
                push(r, t, FT_EV_READ, VAR_ADDR(v), 1, v, -1, 0, me->held);
            push(r, t, FT_EV_THREAD_EXIT, 0, 0, -1, -1, 0, 0);
            me->alive = 0;
            me->exited = 1;
            continue;
        }
        me->budget--;
        uint64_t op = rng_below(g, 10);
        if (op < 2 && r->nthreads < MAXT && me->forks < 2) {
            int c = r->nthreads++;
            s[c] = (sim){.alive = 1, .budget = 1 + (int)rng_below(g, 9), .parent = (int)t};
            r->create_ev[c] = r->n;
            push(r, t, FT_EV_THREAD_CREATE, 0, (uint64_t)c, -1, -1, 0, me->held);
            me->forks++;
        } else if (op < 4) {
            /* locks in order 0 then 1; skip when taken (no blocking to
             * model: the walk just picks another step) */
            int l = (me->held & 1) ? 1 : (int)rng_below(g, NLOCKS);
            if (!(me->held & (1u << l)) && owner[l] < 0 && !(l == 0 && me->held)) {
                push(r, t, FT_EV_MUTEX_LOCK, LOCK_ADDR(l), 0, -1, l, 1, me->held);
                me->held |= 1u << l;
                owner[l] = (int)t;
            } else if (me->held) {
                int u = (me->held & 2) ? 1 : 0;
                push(r, t, FT_EV_MUTEX_UNLOCK, LOCK_ADDR(u), 0, -1, u, 1, me->held);
                me->held &= ~(1u << u);
                owner[u] = -1;
            }
        } else {
            int v = (int)rng_below(g, NVARS);
            if (guarded && v == 2 && !(me->held & 1))
                v = (int)rng_below(g, 2);
            else if (guarded && (me->held & 1) && rng_below(g, 2))
                v = 2;
            int w = rng_below(g, 2) == 0;
            push(r, t, w ? FT_EV_WRITE : FT_EV_READ, VAR_ADDR(v), 1, v, -1, w, me->held);
        }
    }
}

/* The oracle: anc[j] holds every event that happens before event j. */
static void closure(const run *r, uint64_t (*anc)[MAXEV / 64])
{
    int last[MAXT], first[MAXT];
    for (int t = 0; t < MAXT; t++)
        last[t] = first[t] = -1;
    for (int j = 0; j < r->n; j++) {
        memset(anc[j], 0, sizeof anc[j]);
        int preds[2], np = 0;
        uint32_t t = r->ev[j].tid;
        if (last[t] >= 0)
            preds[np++] = last[t];
        else if (r->create_ev[t] >= 0)
            preds[np++] = r->create_ev[t]; /* creation before the child */
        if (r->ev[j].kind == FT_EV_THREAD_JOIN)
            preds[np++] = last[r->ev[j].value]; /* the child's end */
        for (int k = 0; k < np; k++) {
            int p = preds[k];
            for (int w = 0; w < MAXEV / 64; w++)
                anc[j][w] |= anc[p][w];
            anc[j][p / 64] |= 1ull << (p % 64);
        }
        if (first[t] < 0)
            first[t] = j;
        last[t] = j;
    }
}

static int hb(uint64_t (*anc)[MAXEV / 64], int a, int b)
{
    return a == b || (anc[b][a / 64] >> (a % 64)) & 1;
}

/* Bit v: the oracle keeps variable v (shared ones only). */
static unsigned oracle(const run *r, int *by_init, int *by_lock)
{
    static uint64_t anc[MAXEV][MAXEV / 64];
    closure(r, anc);
    unsigned lock_threads[NLOCKS] = {0};
    for (int j = 0; j < r->n; j++)
        if (r->lock[j] >= 0)
            lock_threads[r->lock[j]] |= 1u << r->ev[j].tid;
    unsigned keep = 0;
    for (int v = 0; v < NVARS; v++) {
        unsigned threads = 0;
        for (int j = 0; j < r->n; j++)
            if (r->var[j] == v)
                threads |= 1u << r->ev[j].tid;
        if (__builtin_popcount(threads) < 2)
            continue;
        int init_only = 1;
        for (int w = 0; w < r->n && init_only; w++) {
            if (r->var[w] != v || !r->write[w])
                continue;
            for (int a = 0; a < r->n && init_only; a++) {
                if (r->var[a] != v || r->ev[a].tid == r->ev[w].tid)
                    continue;
                int c = r->create_ev[r->ev[a].tid];
                init_only = c >= 0 && hb(anc, w, c);
            }
        }
        unsigned ls = (1u << NLOCKS) - 1;
        int refined = 0;
        for (int a = 0; a < r->n; a++) {
            if (r->var[a] != v)
                continue;
            int conc = 0;
            for (int b = 0; b < r->n && !conc; b++)
                conc = r->var[b] == v && r->ev[b].tid != r->ev[a].tid &&
                       !hb(anc, a, b) && !hb(anc, b, a);
            if (conc) {
                ls &= r->held[a];
                refined = 1;
            }
        }
        int protected_ = 0;
        for (int l = 0; l < NLOCKS && refined; l++)
            if ((ls >> l & 1) && __builtin_popcount(lock_threads[l]) >= 2)
                protected_ = 1;
        if (init_only)
            (*by_init)++;
        else if (protected_)
            (*by_lock)++;
        else
            keep |= 1u << v;
    }
    return keep;
}

static unsigned implementation(const run *r, unsigned *locks_kept)
{
    char path[256];
    fx_temp_path(path, sizeof path, "calib-order");
    assert_int_equal(fx_write_trace(path, r->ev, (size_t)r->n, 1, "exit"), 0);
    fx_calib c;
    ft_error err;
    assert_int_equal(fx_calibrate(path, &c, &err), 0);
    unlink(path);
    unsigned keep = 0;
    *locks_kept = 0;
    for (uint64_t i = 0; i < c.nsvars; i++) {
        unsigned long off = strtoul(c.svar[i] + 3, NULL, 16); /* "g0.OFF" */
        assert_true(strncmp(c.svar[i], "g0.", 3) == 0);
        if (off >= 0x800)
            *locks_kept |= 1u << ((off - 0x800) / 0x40);
        else
            keep |= 1u << ((off - 0x100) / 0x10);
    }
    fx_calib_free(&c);
    return keep;
}

static void test_random_runs(void **state)
{
    (void)state;
    rng g = {0x5eed};
    int by_init = 0, by_lock = 0, kept = 0, cases = 3000;
    static run r;
    for (int i = 0; i < cases; i++) {
        gen(&g, &r);
        unsigned locks_kept;
        unsigned want = oracle(&r, &by_init, &by_lock);
        unsigned got = implementation(&r, &locks_kept);
        if (want != got) {
            fprintf(stderr, "case %d: oracle keeps %#x, calibration %#x\n", i, want, got);
            for (int j = 0; j < r.n; j++)
                fprintf(stderr, "  %d t%u kind %u var %d lock %d held %#x value %llu\n",
                        j, r.ev[j].tid, r.ev[j].kind, r.var[j], r.lock[j], r.held[j],
                        (unsigned long long)r.ev[j].value);
        }
        assert_int_equal(want, got);
        /* a lock two threads take is always a candidate */
        for (int l = 0; l < NLOCKS; l++) {
            unsigned th = 0;
            for (int j = 0; j < r.n; j++)
                if (r.lock[j] == l)
                    th |= 1u << r.ev[j].tid;
            assert_int_equal(__builtin_popcount(th) >= 2, (locks_kept >> l) & 1);
        }
        kept += __builtin_popcount(got);
    }
    fprintf(stderr, "calib_order: %d runs, %d variables kept, %d dropped as "
            "initialised before use, %d as protected\n", cases, kept, by_init, by_lock);
    /* both rules fire, and most shared variables stay */
    assert_true(by_init > cases / 20);
    assert_true(by_lock > cases / 50);
    assert_true(kept > by_init + by_lock);
}

/* data/stages.c with two stages: main writes n, creates the reader and
 * the stages; each stage takes m, reads and writes token, releases m,
 * reads n; the last writes finished and result; the reader read finished
 * before; main joins all and reads result and token. */
static void test_stages_shape(void **state)
{
    (void)state;
    static run r;
    memset(&r, 0, sizeof r);
    for (int t = 0; t < MAXT; t++)
        r.create_ev[t] = -1;
    enum { N, TOKEN, FINISHED, RESULT };
    (void)N;
    /* variables 0..2 only in the random test; here by address directly */
#define A(t, k, var, w) push(&r, t, k, VAR_ADDR(var), 1, var, -1, w, 0)
#define L(t, k) push(&r, t, k, LOCK_ADDR(0), 0, -1, 0, 1, 0)
    push(&r, 0, FT_EV_THREAD_START, 0, 0, -1, -1, 0, 0);
    A(0, FT_EV_WRITE, N, 1);
    for (uint32_t c = 1; c <= 3; c++) {
        r.create_ev[c] = r.n;
        push(&r, 0, FT_EV_THREAD_CREATE, 0, c, -1, -1, 0, 0);
    }
    push(&r, 1, FT_EV_THREAD_START, 0, 0, -1, -1, 0, 0);
    A(1, FT_EV_READ, FINISHED, 0);
    for (uint32_t s = 2; s <= 3; s++) {
        push(&r, s, FT_EV_THREAD_START, 0, 0, -1, -1, 0, 0);
        L(s, FT_EV_MUTEX_LOCK);
        A(s, FT_EV_READ, TOKEN, 0);
        A(s, FT_EV_WRITE, TOKEN, 1);
        L(s, FT_EV_MUTEX_UNLOCK);
        A(s, FT_EV_READ, N, 0);
    }
    A(3, FT_EV_WRITE, FINISHED, 1);
    A(3, FT_EV_WRITE, RESULT, 1);
    for (uint32_t c = 1; c <= 3; c++)
        push(&r, 0, FT_EV_THREAD_JOIN, 0, c, -1, -1, 0, 0);
    A(0, FT_EV_READ, RESULT, 0);
    A(0, FT_EV_READ, TOKEN, 0);
#undef A
#undef L
    unsigned locks_kept;
    /* kept: finished and result (and the lock m); dropped: n, initialised
     * before use, and token, protected by m */
    assert_int_equal(implementation(&r, &locks_kept),
                     (1u << FINISHED) | (1u << RESULT));
    assert_int_equal(locks_kept, 1u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_shape),
        cmocka_unit_test(test_random_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* test_predict_random.c - prediction against brute force on thousands of
 * generated traces: for a CA and a CMA property per trace, a violation is
 * predicted (direct encoding, FindAV, and without slicing) if and only if
 * the reference enumerator finds a feasible prefix that obeys the data
 * rule and is not serializable; every witness is such a prefix.  Windows
 * (predict/window.c) too, with a window of 1-2 transitions each side so
 * that the cut, the start state and the recorded prefix are exercised:
 * widened until they cover the trace, the answers equal the oracle's;
 * bounded, every violation found is the oracle's and "holds" is never
 * claimed for a window.  The value order (predict/vorder.c) claims
 * "holds" only where the oracle finds no violation, on these and on
 * further properties per trace. */
#include "avcheck.h"
#include "predict/window.h"
#include "../model/gen.h"
#include "../model/check.h"
#include "../model/oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static unsigned nseeds(void)
{
    const char *s = getenv("FT_PREDICT_SEEDS");
    return s ? (unsigned)strtoul(s, NULL, 10) : 1200;
}

/* The first seed (FT_PREDICT_SEED_FROM): to look at one failure. */
static unsigned seed_from(void)
{
    const char *s = getenv("FT_PREDICT_SEED_FROM");
    return s ? (unsigned)strtoul(s, NULL, 10) : 1;
}

/* Bigger models make the enumeration (not the solver) slow. */
static uint32_t max_trans(void)
{
    const char *s = getenv("FT_PREDICT_MAX_TRANS");
    return s ? (uint32_t)strtoul(s, NULL, 10) : 20;
}

/* Properties per trace checked against the value order only. */
#define NEXTRA 6
/* Properties per counter run (test_value_order_counters). */
#define NCOUNTER 8

/* Modes: 0 direct, 1 FindAV, 2 no slicing, 3 windows widened to the
 * whole trace, 4 windows bounded (at most 10 transitions per slice: a
 * larger smallest window is not solved). */
#define NMODES 5

/* Whether a witness's steps obey the straight-line bound: 1, 0, -1
 * out of memory. */
static int steps_obey(const ft_ctm *c, const ft_prop *p, const ft_presult *r)
{
    ft_step *own; /* packed steps (ft_presult_trim) read unpacked */
    const ft_step *steps = ft_presult_steps(r, &own);
    uint32_t *seq = malloc(sizeof *seq * (r->nsteps + 1));
    if (!seq || (r->nsteps && !steps)) {
        free(seq);
        free(own);
        return -1;
    }
    for (uint32_t k = 0; k < r->nsteps; k++)
        seq[k] = steps[k].trans;
    int ok = av_data_ok(c, p, seq, r->nsteps);
    free(seq);
    free(own);
    return ok;
}

static void test_predict_matches_oracle(void **state)
{
    (void)state;
    unsigned n = nseeds(), checked = 0, viol = 0, failures = 0, trimmed = 0;
    unsigned in_window = 0, window_viol = 0, window_unknown = 0;
    unsigned strict_checked = 0, relaxed = 0, glued_models = 0;
    unsigned vo_claims = 0, vo_props = 0, vo_holds = 0;
    /* seeds past the default count that once failed: 1528, a CMA claim
     * that rested on a region's free read (a fork after it); 2585 (and
     * 1981, 2945, 3589, 4405), a glued chain's end left local in a slice
     * (ctm/model.c); 4214, a failed trywrlock run in a clipped window
     * with its holder cut away; 4326, FindAV's blocking clause; 2952 (and
     * 3592, 4324), a thread of local work forked and joined in a region;
     * 2068 (and 2605), a relaxed data witness taken over a strict one;
     * 8013, FindAV's only boundary in a region a glued read; 13815, a
     * violation that needs a context switch MAT did not list */
    static const uint64_t again[] = {1528, 1981, 2068, 2585, 2605,
                                     2945, 2952, 3589, 3592, 4214,
                                     4324, 4326, 4405, 8013, 13815};
    uint64_t nagain = sizeof again / sizeof again[0];
    for (uint64_t ks = seed_from(); ks <= n + nagain; ks++) {
        uint64_t seed = ks <= n ? ks : again[ks - n - 1];
        gen_params gp;
        gen_small_params(seed, &gp);
        evbuf b = {0};
        gen_run(seed, &gp, &b);
        if (seed % 4 == 1) /* glued steps, as the runtime marks them */
            gen_pair_reads(&b, seed);
        ft_ctm *c = load_events(&b, "pred");
        evbuf_free(&b);
        assert_non_null(c);
        if (seed % 3) /* straight-line spans, as a symbolised trace has */
            av_random_code(c, seed);
        if (c->ntrans > max_trans() || c->nthreads < 2) {
            ft_ctm_free(c);
            continue;
        }
        glued_models += c->nglue != 0;
        uint64_t rs = seed * 0x9e3779b97f4a7c15ull;
        ft_prop props[2 + NEXTRA];
        int np = 0;
        uint32_t t0 = (uint32_t)(seed % c->nthreads);
        uint32_t t1 = (t0 + 1) % c->nthreads;
        props[np] = (ft_prop){.id = (uint32_t)np, .kind = FT_PROP_CA};
        if (!av_pick_region(c, &rs, t0, &props[np].r[0]))
            np++;
        props[np] = (ft_prop){.id = (uint32_t)np, .kind = FT_PROP_CMA};
        if (!av_pick_region(c, &rs, t0, &props[np].r[0]) &&
            !av_pick_region(c, &rs, t1, &props[np].r[1]))
            np++;
        if (!np) {
            ft_ctm_free(c);
            continue;
        }
        int nsolve = np;
        for (int k = 0; k < NEXTRA; k++) {
            ft_prop *q = &props[np];
            uint32_t a = (uint32_t)((seed + (uint64_t)k) % c->nthreads);
            *q = (ft_prop){.id = (uint32_t)np, .kind = (uint8_t)(k % 2)};
            if (!av_pick_region(c, &rs, a, &q->r[0]) &&
                (q->kind == FT_PROP_CA ||
                 !av_pick_region(c, &rs, (a + 1 + (uint32_t)k / 2) %
                                      c->nthreads, &q->r[1])) &&
                (q->kind == FT_PROP_CA || q->r[0].thread != q->r[1].thread))
                np++;
        }
        av_walk w = {c, props, np, {0}, {{0}}, {0}};
        oracle_opts oo;
        memset(&oo, 0, sizeof oo);
        long visited = oracle_walk(c, &oo, av_visit, &w);
        assert_true(visited > 0);
        av_walk_sort(&w);
        ft_slice_index *ix = ft_slice_index_new(c);
        assert_non_null(ix);
        ft_value_order *vo = ft_value_order_new(c, ix);
        assert_non_null(vo);
        for (int i = 0; i < np; i++) {
            vo_props++;
            vo_holds += !w.found[i];
            if (!ft_value_order_holds(vo, &props[i]))
                continue;
            vo_claims++;
            if (w.found[i]) {
                failures++;
                char name[96];
                fprintf(stderr, "%s: value order claims holds, oracle "
                        "violates\n", av_prop_name(seed, &props[i], name,
                                                 sizeof name));
            }
        }
        ft_value_order_free(vo);
        ft_slice_index_free(ix);
        ft_reduced *whole = ft_reduce(c, 0);
        assert_non_null(whole);
        for (int i = 0; i < nsolve; i++) {
            checked++;
            viol += w.found[i];
            for (int mode = 0; mode < (getenv("FT_PREDICT_NOSMT") ? 0 : NMODES);
                 mode++) {
                ft_predict_opts o;
                ft_predict_opts_default(&o);
                o.timeout_ms = 0;
                o.mode = mode == 1 ? FT_PREDICT_FINDAV : FT_PREDICT_DIRECT;
                o.no_slice = mode == 2;
                if (mode >= 3) {
                    o.window = 1 + (uint32_t)(seed % 2);
                    o.window_max_trans = mode == 4 ? 10 : 0;
                }
                ft_presult res;
                int v = ft_predict_one(c, whole, &props[i], &o, &res);
                int bad = v != (w.found[i] ? FT_VIOLATED : FT_HOLDS);
                if (bad && getenv("FT_PREDICT_DEBUG") && v == FT_VIOLATED)
                    av_witness_ok(c, &props[i], &res, &w.valid[i]);
                if (mode == 4 && v == FT_UNKNOWN &&
                    (res.window_holds || res.windows == 0)) {
                    bad = 0; /* bounded: no claim either way */
                    window_unknown++;
                }
                if (mode >= 3 && res.window_first > 0)
                    in_window++;
                if (!bad && v == FT_HOLDS &&
                    (res.window_first != 0 || res.window_end != c->ntrans))
                    bad = 4; /* holds claimed on a part of the trace */
                if (!bad && v == FT_VIOLATED && res.prefix) {
                    window_viol++;
                    ft_presult full;
                    av_expand_prefix(&res, &full);
                    if (!av_witness_ok(c, &props[i], &full, &w.valid[i]))
                        bad = 2;
                    free(full.steps);
                } else if (!bad && v == FT_VIOLATED &&
                           !av_witness_ok(c, &props[i], &res, &w.valid[i])) {
                    bad = 2;
                }
                /* a witness marked relaxed exactly when it does not obey
                 * the straight-line bound; the whole model solved
                 * directly: one that obeys it whenever one exists (FindAV
                 * keeps the paper's rule) */
                if (!bad && v == FT_VIOLATED && !res.prefix) {
                    int whole_model = mode == 0 || mode == 2;
                    int obeys = steps_obey(c, &props[i], &res);
                    if (obeys < 0 || res.relaxed != !obeys ||
                        (whole_model && w.found_strict[i] && !obeys))
                        bad = 5;
                    strict_checked += whole_model && w.found_strict[i];
                    relaxed += res.relaxed;
                }
                /* The trimmed witness (what analyze writes) must be a
                 * feasible, data-consistent, violating prefix too. */
                if (!bad && v == FT_VIOLATED && !res.prefix) {
                    uint32_t before = res.nsteps;
                    assert_int_equal(ft_presult_trim(c, &props[i], &res), 0);
                    assert_true(res.nsteps <= before);
                    trimmed += res.nsteps < before;
                    if (!av_witness_ok(c, &props[i], &res, &w.valid[i]) ||
                        (!res.relaxed && steps_obey(c, &props[i], &res) != 1))
                        bad = 3;
                    if (res.alt_steps) { /* the strict trim, too */
                        ft_presult alt = res;
                        alt.steps = res.alt_steps;
                        alt.nsteps = res.nalt_steps;
                        if (!av_witness_ok(c, &props[i], &alt, &w.valid[i]))
                            bad = 3;
                    }
                }
                if (bad) {
                    failures++;
                    char name[96];
                    fprintf(stderr,
                            "%s mode %d: predicted %d, oracle %d%s %s\n",
                            av_prop_name(seed, &props[i], name, sizeof name),
                            mode, v, w.found[i],
                            bad == 2   ? " (bad witness)"
                            : bad == 3 ? " (bad trimmed witness)"
                            : bad == 4 ? " (holds claimed for a window)"
                            : bad == 5 ? " (straight-line bound: witness "
                                         "relaxed while one obeys it, or "
                                         "marked wrongly)"
                                       : "",
                            ft_presult_reason(&res));
                }
                ft_presult_free(&res);
            }
        }
        for (int i = 0; i < np; i++)
            free(w.valid[i].k);
        ft_reduced_free(whole);
        ft_ctm_free(c);
    }
    fprintf(stderr, "checked %u properties, %u violable, %u failures, "
            "%u witnesses trimmed; windows: %u solved after a cut, %u "
            "violations after a recorded prefix, %u unknown when bounded; "
            "value order: holds claimed for %u of the %u of %u properties "
            "that hold\n",
            checked, viol, failures, trimmed, in_window, window_viol,
            window_unknown, vo_claims, vo_holds, vo_props);
    assert_true(vo_claims > vo_holds / 10); /* the value order was used */
    /* the windows' own paths were taken */
    assert_true(in_window > checked / 10);
    assert_true(window_viol > 0);
    assert_true(window_unknown > 0);
    assert_true(trimmed > 0); /* the trimming was exercised */
    fprintf(stderr, "straight-line bound: %u witnesses where one obeying "
            "it exists, %u relaxed ones; %u models with glued steps\n",
            strict_checked, relaxed, glued_models);
    assert_true(n < 40 || glued_models > 0);
    assert_true(strict_checked > 0 && relaxed > 0);
    assert_true(checked > n / 2);
    assert_true(viol > checked / 20);
    assert_true(viol < checked);
    assert_int_equal(failures, 0);
}


/* Update regions of worker t in a counter run, one per update: from the
 * read of the bound to what precedes the next one (variant 0), or from
 * the transition after it to the next read of the bound (variant 1, the
 * shape infer/ draws). */
static uint32_t counter_regions(const ft_ctm *c, uint32_t t, int variant,
                                ft_pregion *out)
{
    uint32_t b[16], nb = 0, n = 0;
    for (uint32_t p = 0; p < c->len[t] && nb < 16; p++) {
        uint32_t x = ft_ctm_at(c, t, p);
        if (c->op[x] == FT_OP_READ &&
            c->vars[c->obj[x]].addr == gen_counters_bound_addr())
            b[nb++] = p;
    }
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t first = b[i] + (uint32_t)variant;
        uint32_t last = i + 1 < nb ? b[i + 1] - 1 + (uint32_t)variant
                                   : c->len[t] - 1;
        if (first <= last && last < c->len[t])
            out[n++] = (ft_pregion){t, first, last};
    }
    return n;
}

/* Thread t's first write: its position, or len[t] if none. */
static uint32_t first_write_pos(const ft_ctm *c, uint32_t t)
{
    uint32_t q = 0;
    while (q < c->len[t] && c->op[ft_ctm_at(c, t, q)] != FT_OP_WRITE)
        q++;
    return q;
}

/* Loads b (freed) into a model, and into p the CMA property of thread
 * 1's first write against thread 2's first two writes. */
static ft_ctm *load_first_writes(evbuf *b, const char *tag, ft_prop *p)
{
    ft_ctm *c = load_events(b, tag);
    evbuf_free(b);
    assert_non_null(c);
    uint32_t wa = first_write_pos(c, 1), wb = first_write_pos(c, 2);
    assert_true(wa < c->len[1] && wb + 1 < c->len[2]);
    *p = (ft_prop){.kind = FT_PROP_CMA,
                   .r = {{1, wa, wa}, {2, wb, wb + 1}}};
    return c;
}

/* Whether the value order of c claims that p holds. */
static int value_order_claims(const ft_ctm *c, const ft_prop *p)
{
    ft_slice_index *ix = ft_slice_index_new(c);
    ft_value_order *vo = ix ? ft_value_order_new(c, ix) : NULL;
    assert_non_null(vo);
    int claim = ft_value_order_holds(vo, p);
    ft_value_order_free(vo);
    ft_slice_index_free(ix);
    return claim;
}

/* Loads b (freed) as variant k of a case named stem. */
static ft_ctm *load_variant(evbuf *b, const char *stem, int k)
{
    char tag[16];
    snprintf(tag, sizeof tag, "%s%d", stem, k);
    ft_ctm *c = load_events(b, tag);
    evbuf_free(b);
    assert_non_null(c);
    return c;
}

/* The value order claims p of c (freed) exactly when claims, and the
 * oracle finds a violation of it exactly when violable. */
static void claim_as_oracle(ft_ctm *c, const ft_prop *p, int claims,
                            int violable)
{
    assert_int_equal(value_order_claims(c, p), claims);
    av_walk w = {c, p, 1, {0}, {{0}}, {0}};
    oracle_opts oo;
    memset(&oo, 0, sizeof oo);
    assert_true(oracle_walk(c, &oo, av_visit, &w) > 0);
    assert_int_equal(w.found[0] != 0, violable);
    free(w.valid[0].k);
    ft_ctm_free(c);
}

/* The value order claims that b's first-writes property holds, and the
 * oracle finds no violation of it. */
static void claim_holds_for_oracle(evbuf *b, const char *tag)
{
    ft_prop p;
    ft_ctm *c = load_first_writes(b, tag, &p);
    claim_as_oracle(c, &p, 1, 0);
}

/* A read of a value that 65 writes wrote (the value order once gave up
 * past 64): thread 2's read of F = 1 can only read thread 1's writes of
 * it, the first of which follows thread 1's write of A, so thread 2's
 * writes after the read follow that write of A in every schedule and the
 * CMA property of the two holds.  (The oracle takes at most 64
 * transitions; the generated traces check the same code with fewer
 * writes.) */
static void test_value_order_many_writes(void **state)
{
    (void)state;
    enum { NW = 65, A = 0x100, F = 0x108, B = 0x110, C = 0x118 };
    evbuf b = {0};
    for (uint32_t t = 1; t <= 2; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 1, 0, 0);
    for (int i = 0; i < NW; i++)
        evbuf_add(&b, FT_EV_WRITE, 1, F, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_READ, 2, F, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, B, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, C, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_READ, 1, B, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_READ, 2, A, 0, 1, 0, 0);
    ft_prop p;
    ft_ctm *c = load_first_writes(&b, "many", &p);
    assert_true(value_order_claims(c, &p));
    ft_ctm_free(c);
}

/* A woken condition wait follows the only other thread's signal: thread
 * 2's writes after its wake follow thread 1's first write of A, which
 * precedes the signal, though no value flows from thread 1 to thread 2.
 * The oracle agrees that the CMA property of the two (both write A)
 * holds. */
static void test_value_order_cond_wake(void **state)
{
    (void)state;
    enum { A = 0x100, C = 0x118, M = 0x200, CV = 0x300 };
    evbuf b = {0};
    for (uint32_t t = 1; t <= 2; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, M, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_COND_WAIT, 2, CV, M, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_COND_SIGNAL, 1, CV, 0, 2, 1, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 2, 0, 0);
    evbuf_add(&b, FT_EV_COND_WAKE, 2, CV, M, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, M, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, A, 0, 3, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, C, 0, 1, 0, 0);
    claim_holds_for_oracle(&b, "wake");
}

/* A semaphore wait that needs one post, when only thread 1 posts:
 * thread 2's writes after it follow thread 1's write of A before the
 * post.  The oracle agrees that the CMA property of the two (both write
 * A) holds. */
static void test_value_order_sem_post(void **state)
{
    (void)state;
    enum { A = 0x100, C = 0x118, S = 0x400 };
    evbuf b = {0};
    evbuf_add(&b, FT_EV_SEM_INIT, 0, S, 0, 0, 0, 0);
    for (uint32_t t = 1; t <= 2; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_SEM_POST, 1, S, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_SEM_WAIT, 2, S, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, A, 0, 2, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, C, 0, 1, 0, 0);
    claim_holds_for_oracle(&b, "sem");
}

/* Two regions each inside a section of one mutex, taken before the
 * region (pigz's `twist` under its caller's `possess`): thread 1's write
 * of A and thread 2's writes of A and C never overlap, so their CMA
 * property holds.  Thread 3 writes A outside the lock, which the other
 * CMA rule cannot get past (a conflict of each region with a thread the
 * value order does not place); the oracle agrees no schedule violates. */
static void test_value_order_one_lock(void **state)
{
    (void)state;
    enum { A = 0x100, C = 0x118, L = 0x200 };
    evbuf b = {0};
    for (uint32_t t = 1; t <= 3; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 3, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 3, A, 0, 3, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, A, 0, 2, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, C, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
    claim_holds_for_oracle(&b, "onelock");
}

/* Regions that run past their lock's section (C-Thread-Pool's thread_do:
 * `num_threads_alive += 1` under a mutex, then reads after the unlock):
 * threads 1 and 2 each write A inside a section of L, release it and
 * read D or F, written only before the threads start; thread 3 writes A
 * outside the lock.  Nothing enters a region after its section, and the
 * value order claims the CMA property, as the oracle agrees.  When
 * thread 3 also writes D, which thread 1 (racy 1) or thread 2 (racy 2)
 * reads after it: a cycle runs the reader's section first, the other's,
 * thread 3's writes of A and D, then the reader's read of D.  The oracle
 * finds it, and the value order must not claim (each side of the rule's
 * case split is what sees one of the two). */
static void test_value_order_lock_then_quiet(void **state)
{
    (void)state;
    enum { A = 0x100, D = 0x108, F = 0x110, L = 0x200 };
    for (int racy = 0; racy <= 2; racy++) {
        evbuf b = {0};
        evbuf_add(&b, FT_EV_WRITE, 0, D, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_WRITE, 0, F, 0, 0, 0, 0);
        for (uint32_t t = 1; t <= 3; t++)
            evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_START, 3, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_WRITE, 3, A, 0, 3, 0, 0);
        if (racy)
            evbuf_add(&b, FT_EV_WRITE, 3, D, 0, 1, 0, 0);
        for (uint32_t t = 2; t >= 1; t--) {
            int reads_d = racy == 0 || (uint32_t)racy == t;
            evbuf_add(&b, FT_EV_THREAD_START, t, 0, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_MUTEX_LOCK, t, L, 0, 0, FT_HOW_BLOCK, 0);
            evbuf_add(&b, FT_EV_WRITE, t, A, 0, t, 0, 0);
            evbuf_add(&b, FT_EV_MUTEX_UNLOCK, t, L, 0, 0, 0, 0);
            evbuf_add(&b, FT_EV_READ, t, reads_d ? D : F, 0, reads_d && racy, 0,
                      0);
        }
        ft_ctm *c = load_variant(&b, "lockq", racy);
        uint32_t wa = first_write_pos(c, 1), wb = first_write_pos(c, 2);
        assert_true(wa + 2 < c->len[1] && wb + 2 < c->len[2]);
        ft_prop p = {.kind = FT_PROP_CMA,
                     .r = {{1, wa, wa + 2}, {2, wb, wb + 2}}};
        claim_as_oracle(c, &p, !racy, racy != 0);
    }
}

/* A region inside a section its thread releases only past the region
 * (sysprog21's tpool: main's `future->flag &= ~TIMEOUT` under the
 * future's mutex, released after it read FINISHED), against a region
 * that spans two sections of that lock (a worker's `flag |= RUNNING`,
 * then, in its next section, its read of the flag).  Thread 2 reaches
 * its unlock only when its read of F returned 3, which thread 1 writes
 * in its second section, so thread 2's section never falls between
 * thread 1's two: the value order claims the CMA property, and the
 * oracle finds no violation.  When thread 2's section reads nothing of
 * thread 1's (racy: it writes F = 5 and reads H, never written), it can
 * run between them, the oracle finds the violation, and the value order
 * must not claim. */
static void test_value_order_held_past(void **state)
{
    (void)state;
    enum { F = 0x100, H = 0x108, L = 0x200 };
    for (int racy = 0; racy <= 1; racy++) {
        evbuf b = {0};
        for (uint32_t t = 1; t <= 2; t++)
            evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_READ, 1, F, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_WRITE, 1, F, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 1, L, 0, 0, FT_HOW_BLOCK, 0);
        evbuf_add(&b, FT_EV_READ, 1, F, 0, 1, 0, 0);
        evbuf_add(&b, FT_EV_WRITE, 1, F, 0, 3, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 1, L, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
        evbuf_add(&b, FT_EV_MUTEX_LOCK, 2, L, 0, 0, FT_HOW_BLOCK, 0);
        if (racy) {
            evbuf_add(&b, FT_EV_WRITE, 2, F, 0, 5, 0, 0);
            evbuf_add(&b, FT_EV_READ, 2, H, 0, 0, 0, 0);
        } else {
            evbuf_add(&b, FT_EV_READ, 2, F, 0, 3, 0, 0);
            evbuf_add(&b, FT_EV_WRITE, 2, F, 0, 3, 0, 0);
            evbuf_add(&b, FT_EV_READ, 2, F, 0, 3, 0, 0);
        }
        evbuf_add(&b, FT_EV_MUTEX_UNLOCK, 2, L, 0, 0, 0, 0);
        ft_ctm *c = load_variant(&b, "heldpast", racy);
        uint32_t wa = first_write_pos(c, 1), wb = first_write_pos(c, 2);
        assert_true(wa + 3 < c->len[1] && wb + 2 < c->len[2]);
        ft_prop p = {.kind = FT_PROP_CMA,
                     .r = {{1, wa, wa + 3}, {2, racy ? wb : wb - 1, wb}}};
        claim_as_oracle(c, &p, !racy, racy);
    }
}

/* A read's source is never a write that another write of the variable
 * by the same thread follows, when that later write must precede the
 * read.  Thread 2 reads X = 1 after reading thread 3's F, so thread 3's
 * X = 2 precedes the read, and thread 3's earlier X = 1 cannot be its
 * source: only thread 1's X = 1, which follows thread 1's write of A,
 * can be.  So thread 2's writes follow that write of A, and their CMA
 * property holds (with both writes of X = 1 as sources, nothing ordered
 * thread 1 and thread 2). */
static void test_value_order_overwritten_source(void **state)
{
    (void)state;
    enum { A = 0x100, C = 0x118, X = 0x120, F = 0x128 };
    evbuf b = {0};
    for (uint32_t t = 1; t <= 3; t++)
        evbuf_add(&b, FT_EV_THREAD_CREATE, 0, 0, 0, t, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 3, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 3, X, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 3, X, 0, 2, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 3, F, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 1, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, A, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 1, X, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_THREAD_START, 2, 0, 0, 0, 0, 0);
    evbuf_add(&b, FT_EV_READ, 2, F, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_READ, 2, X, 0, 1, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, A, 0, 2, 0, 0);
    evbuf_add(&b, FT_EV_WRITE, 2, C, 0, 1, 0, 0);
    claim_holds_for_oracle(&b, "overwritten");
}

/* Lock-protected counter runs recorded in quanta (tests/model/
 * gen_counter.c): the value order's claims and the windowed prediction
 * (whose first step is the clipped hunt) against the oracle, on every
 * update's CA property and on CMA pairs of updates of two workers. */
static void test_value_order_counters(void **state)
{
    (void)state;
    if (seed_from() > 1)
        skip(); /* looking at one generated trace's failure */
    unsigned n = nseeds() / 2, traces = 0, props_n = 0, viol = 0;
    unsigned claims = 0, holds = 0, failures = 0, wviol = 0;
    unsigned rw_traces = 0, rw_claims = 0, rw_holds = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        evbuf b = {0};
        int rw = gen_counters(seed, &b);
        ft_ctm *c = load_events(&b, "ctr");
        evbuf_free(&b);
        assert_non_null(c);
        uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 3;
        ft_prop props[NCOUNTER];
        int np = 0;
        for (int tries = 0; tries < 4 * NCOUNTER && np < NCOUNTER; tries++) {
            rs = rs * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(rs >> 33);
            uint32_t t0 = 1 + r % (c->nthreads - 1);
            uint32_t t1 = 1 + (t0 + r / 7 % (c->nthreads - 2)) %
                                  (c->nthreads - 1);
            ft_pregion g0[16], g1[16];
            uint32_t n0 = counter_regions(c, t0, (int)(r / 3 % 2), g0);
            uint32_t n1 = counter_regions(c, t1, (int)(r / 5 % 2), g1);
            if (!n0)
                continue;
            ft_prop *q = &props[np];
            *q = (ft_prop){.id = (uint32_t)np, .kind = FT_PROP_CA,
                           .r = {g0[r / 11 % n0]}};
            if (r / 13 % 2 && n1 && t1 != t0) {
                q->kind = FT_PROP_CMA;
                q->r[1] = g1[r / 17 % n1];
            }
            np++;
        }
        av_walk w = {c, props, np, {0}, {{0}}, {0}};
        oracle_opts oo;
        memset(&oo, 0, sizeof oo);
        oo.max_visits = 300000; /* counted first: the oracle's time */
        if (oracle_walk(c, &oo, av_count_visit, NULL) < 0) {
            ft_ctm_free(c);
            continue;
        }
        traces++;
        rw_traces += rw;
        oo.max_visits = 0;
        assert_true(oracle_walk(c, &oo, av_visit, &w) > 0);
        av_walk_sort(&w);
        ft_slice_index *ix = ft_slice_index_new(c);
        ft_value_order *vo = ix ? ft_value_order_new(c, ix) : NULL;
        assert_non_null(vo);
        ft_reduced *whole = ft_reduce(c, 0);
        assert_non_null(whole);
        for (int i = 0; i < np; i++) {
            props_n++;
            viol += w.found[i];
            holds += !w.found[i];
            int claim = ft_value_order_holds(vo, &props[i]);
            claims += claim;
            rw_holds += rw && !w.found[i];
            rw_claims += rw && claim;
            ft_predict_opts o;
            ft_predict_opts_default(&o);
            o.timeout_ms = 0;
            o.window = 1 + (uint32_t)(seed % 3);
            o.window_max_trans = 0;
            ft_presult res;
            int v = ft_predict_one(c, whole, &props[i], &o, &res);
            int bad = (claim && w.found[i]) ||
                      v != (w.found[i] ? FT_VIOLATED : FT_HOLDS);
            if (!bad && v == FT_VIOLATED) {
                ft_presult full;
                av_expand_prefix(&res, &full);
                bad = !av_witness_ok(c, &props[i], &full, &w.valid[i]);
                wviol += res.prefix > 0;
                free(full.steps);
            }
            if (bad) {
                failures++;
                char name[96];
                fprintf(stderr, "counters %s: value order %d, predicted %d, "
                        "oracle %d: %s\n",
                        av_prop_name(seed, &props[i], name, sizeof name), claim,
                        v, w.found[i], ft_presult_reason(&res));
            }
            ft_presult_free(&res);
        }
        for (int i = 0; i < np; i++)
            free(w.valid[i].k);
        ft_reduced_free(whole);
        ft_value_order_free(vo);
        ft_slice_index_free(ix);
        ft_ctm_free(c);
    }
    fprintf(stderr, "counter runs: %u traces, %u properties (%u violable), "
            "%u failures; value order: holds claimed for %u of %u that "
            "hold (rwlock runs: %u traces, %u of %u); %u violations after "
            "a recorded prefix\n",
            traces, props_n, viol, failures, claims, holds, rw_traces,
            rw_claims, rw_holds, wviol);
    assert_true(traces > n / 20);
    assert_true(viol > props_n / 20);
    assert_true(claims > holds / 4);
    /* read and write holds of rwlocks are used, not only mutexes (the
     * sanitizer pass runs too few seeds to meet a rwlock run surely) */
    if (traces >= 40)
        assert_true(rw_traces > 0);
    assert_true(rw_holds == 0 || rw_claims > rw_holds / 4);
    assert_true(wviol > 0);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_order_counters),
        cmocka_unit_test(test_value_order_many_writes),
        cmocka_unit_test(test_value_order_cond_wake),
        cmocka_unit_test(test_value_order_sem_post),
        cmocka_unit_test(test_value_order_one_lock),
        cmocka_unit_test(test_value_order_lock_then_quiet),
        cmocka_unit_test(test_value_order_held_past),
        cmocka_unit_test(test_value_order_overwritten_source),
        cmocka_unit_test(test_predict_matches_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

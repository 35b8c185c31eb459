/* SPDX-License-Identifier: MIT */
/* test_decide_random.c - the decisions made without the solver
 * (predict/decide.c, exec.c, vorder_holds.c) against brute force on
 * generated traces:
 *   - the executor: on every feasible prefix the oracle enumerates, it
 *     accepts the prefix only if the data rule holds (and, on models
 *     without signals, whose choice of waiter it fixes, whenever it
 *     holds), and its monitor says "violated" exactly when the prefix is
 *     not (mutually) serializable, with every conflict and with data
 *     conflicts only;
 *   - the decider: every "holds" it claims, the oracle finds no violation
 *     for, and every violation it reports is a feasible, data-consistent,
 *     violating prefix the oracle knows (also once trimmed), a data
 *     violation unless marked sync_only; and it decides a good share of
 *     the properties, on random programs and on quantum-recorded counter
 *     runs (the shape of real lock-based code). */
#include "avcheck.h"
#include "predict/decide.h"
#include "predict/exec.h"
#include "../model/check.h"
#include "../model/gen.h"
#include "../model/oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define NPROPS 6

static unsigned nseeds(void)
{
    const char *s = getenv("FT_DECIDE_SEEDS");
    return s ? (unsigned)strtoul(s, NULL, 10) : 800;
}

typedef struct exec_walk {
    av_walk w;
    ft_exec *x, *xr; /* xr relaxed: the paper's data rule */
    int has_notify;
    unsigned prefixes, accepted, rejected_ok, failures;
    unsigned relaxed_accepted, broke; /* xr: accepted, of them past the bound */
} exec_walk;

/* Runs seq[0..n) on x for p; whether every step ran. */
static int exec_all(ft_exec *x, const ft_ctm *c, const ft_prop *p,
                    const uint32_t *seq, uint32_t n, const uint32_t *last)
{
    ft_exec_reset(x);
    ft_exec_set_prop(x, p);
    int acc = 1;
    for (uint32_t i = 0; i < n && acc; i++)
        acc = ft_exec_step(x, seq[i], last[c->tid[seq[i]]] == i) == FT_EXEC_OK;
    return acc;
}

/* The executor on one oracle prefix, for every property. */
static void exec_visit(void *vctx, const uint32_t *seq, uint32_t n,
                       int maximal, const uint8_t *blocked)
{
    exec_walk *e = vctx;
    const ft_ctm *c = e->w.c;
    av_visit(&e->w, seq, n, maximal, blocked);
    uint32_t last[ORACLE_MAX_THREADS];
    for (uint32_t t = 0; t < c->nthreads; t++)
        last[t] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        last[c->tid[seq[i]]] = i;
    for (int k = 0; k < e->w.nprops; k++) {
        const ft_prop *p = &e->w.props[k];
        int acc = exec_all(e->x, c, p, seq, n, last);
        int ok = av_data_ok(c, p, seq, n);
        e->prefixes++;
        int bad = acc && !ok;
        if (!acc && ok && !e->has_notify)
            bad = 1;
        /* relaxed: the paper's rule, and the first step past the bound
         * noted exactly when the prefix breaks it */
        int racc = exec_all(e->xr, c, p, seq, n, last);
        int rok = av_data_ok_paper(c, p, seq, n);
        bad |= (racc && !rok) || (!racc && rok && !e->has_notify);
        if (racc) {
            int broke = ft_exec_broke(e->xr) != UINT32_MAX;
            e->relaxed_accepted++;
            e->broke += broke;
            bad |= broke == ok;
            bad |= ft_exec_violated(e->xr) != (av_violates(c, p, seq, n) |
                                               av_violates_data(c, p, seq, n) << 1);
        }
        if (acc) {
            e->accepted++;
            int v = ft_exec_violated(e->x);
            bad |= (v & 1) != av_violates(c, p, seq, n);
            bad |= !!(v & 2) != av_violates_data(c, p, seq, n);
        } else if (!ok) {
            e->rejected_ok++;
        }
        if (bad && e->failures++ < 10) {
            char name[96];
            fprintf(stderr, "%s: executor accepted %d, data rule %d, "
                    "violated %d/%d, oracle %d/%d; prefix:",
                    av_prop_name(0, p, name, sizeof name), acc, ok,
                    acc ? ft_exec_violated(e->x) & 1 : -1,
                    acc ? ft_exec_violated(e->x) >> 1 & 1 : -1,
                    av_violates(c, p, seq, n),
                    av_violates_data(c, p, seq, n));
            for (uint32_t i = 0; i < n; i++)
                fprintf(stderr, " t%u.%u:%s", c->tid[seq[i]],
                        c->pos[seq[i]], ft_op_name(c->op[seq[i]]));
            fprintf(stderr, "\n");
        }
    }
}

/* Up to NPROPS random properties of c (CA and CMA alternately). */
static int make_props(const ft_ctm *c, uint64_t seed, ft_prop *props)
{
    uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 11;
    int np = 0;
    for (int k = 0; k < NPROPS; k++) {
        ft_prop *q = &props[np];
        uint32_t a = (uint32_t)((seed + (uint64_t)k) % c->nthreads);
        uint32_t b = (a + 1 + (uint32_t)k / 2) % c->nthreads;
        *q = (ft_prop){.id = (uint32_t)np, .kind = (uint8_t)(k % 2)};
        if (!av_pick_region(c, &rs, a, &q->r[0]) &&
            (q->kind == FT_PROP_CA ||
             (a != b && !av_pick_region(c, &rs, b, &q->r[1]))))
            np++;
    }
    return np;
}

static void test_exec_matches_oracle(void **state)
{
    (void)state;
    unsigned n = nseeds() / 2, traces = 0;
    exec_walk total;
    memset(&total, 0, sizeof total);
    for (uint64_t seed = 1; seed <= n; seed++) {
        gen_params gp;
        gen_small_params(seed, &gp);
        evbuf b = {0};
        gen_run(seed, &gp, &b);
        if (seed % 4 == 1) /* glued steps, as the runtime marks them */
            gen_pair_reads(&b, seed);
        ft_ctm *c = load_events(&b, "exec");
        evbuf_free(&b);
        assert_non_null(c);
        if (seed % 3) /* straight-line spans, as a symbolised trace has */
            av_random_code(c, seed);
        ft_prop props[NPROPS];
        int np = c->ntrans > 18 || c->nthreads < 2 ? 0
                                                   : make_props(c, seed, props);
        if (!np) {
            ft_ctm_free(c);
            continue;
        }
        exec_walk e;
        memset(&e, 0, sizeof e);
        e.w = (av_walk){c, props, np, {0}, {{0}}, {0}};
        e.x = ft_exec_new(c);
        e.xr = ft_exec_new(c);
        assert_non_null(e.x);
        assert_non_null(e.xr);
        ft_exec_set_relaxed(e.xr, 1);
        for (uint32_t x = 0; x < c->ntrans; x++)
            e.has_notify |= c->op[x] == FT_OP_NOTIFY;
        oracle_opts oo;
        memset(&oo, 0, sizeof oo);
        assert_true(oracle_walk(c, &oo, exec_visit, &e) > 0);
        traces++;
        total.prefixes += e.prefixes;
        total.accepted += e.accepted;
        total.rejected_ok += e.rejected_ok;
        total.failures += e.failures;
        total.relaxed_accepted += e.relaxed_accepted;
        total.broke += e.broke;
        av_walk_free(&e.w);
        ft_exec_free(e.x);
        ft_exec_free(e.xr);
        ft_ctm_free(c);
    }
    fprintf(stderr, "executor: %u traces, %u prefix checks, %u accepted, "
            "%u rejected by the data rule, %u failures; relaxed: %u "
            "accepted, %u of them past the bound\n", traces,
            total.prefixes, total.accepted, total.rejected_ok,
            total.failures, total.relaxed_accepted, total.broke);
    /* the relaxed executor accepts what the strict one does and more */
    assert_true(total.relaxed_accepted == total.accepted + total.broke);
    assert_true(total.broke > 0);
    assert_true(traces > n / 4);
    assert_true(total.accepted > total.prefixes / 4);
    assert_true(total.rejected_ok > 0);
    assert_int_equal(total.failures, 0);
}

typedef struct tally {
    unsigned props, violable, holds_claimed, viol_found, sync_found;
    unsigned relaxed_found, relaxed_marked; /* the relaxed search's */
    unsigned failures;
} tally;

/* A witness with its recorded prefix made explicit (full, its steps to
 * free) and its transitions as a sequence (to free). */
static uint32_t *expanded_seq(const ft_presult *res, ft_presult *full)
{
    av_expand_prefix(res, full);
    uint32_t *seq = malloc(sizeof *seq * (full->nsteps + 1));
    assert_non_null(seq);
    for (uint32_t k = 0; k < full->nsteps; k++)
        seq[k] = full->steps[k].trans;
    return seq;
}

/* The relaxed search (the pipeline's fallback) on what the strict one
 * left undecided: every witness feasible under the paper's rule, marked
 * relaxed exactly when it breaks the straight-line bound. */
static void check_relaxed(ft_ctm *c, uint64_t seed, const ft_prop *props,
                          int np, const av_walk *w, ft_window_index *wi,
                          const uint8_t *decided, tally *ty)
{
    ft_decider *d = ft_decider_new(c, wi);
    assert_non_null(d);
    ft_presult res[AV_MAX_PROPS];
    uint8_t dec[AV_MAX_PROPS];
    memset(res, 0, sizeof res);
    memcpy(dec, decided, sizeof dec);
    ft_decide_opts o = {1, 0, 0, 1, NULL, NULL, NULL};
    assert_true(ft_decide_run(d, props, (size_t)np, &o, res, dec) >= 0);
    for (int i = 0; i < np; i++) {
        if (!dec[i] || decided[i]) {
            ft_presult_free(&res[i]);
            continue;
        }
        int bad = res[i].verdict != FT_VIOLATED;
        if (!bad) {
            ft_presult full;
            uint32_t *seq = expanded_seq(&res[i], &full);
            bad = !av_witness_ok(c, &props[i], &full, &w->valid[i]) ? 5
                  : res[i].relaxed == av_data_ok(c, &props[i], seq,
                                                 full.nsteps) ? 6 : 0;
            free(seq);
            free(full.steps);
        }
        ty->relaxed_found++;
        ty->relaxed_marked += res[i].relaxed != 0;
        if (bad) {
            ty->failures++;
            char name[96];
            fprintf(stderr, "%s: relaxed search verdict %d relaxed %d, "
                    "failure %d\n",
                    av_prop_name(seed, &props[i], name, sizeof name),
                    res[i].verdict, res[i].relaxed, bad);
        }
        ft_presult_free(&res[i]);
    }
    ft_decider_free(d);
}

/* Runs the decider on props of c and checks its claims against the
 * oracle's walk w. */
static void check_decisions(ft_ctm *c, uint64_t seed, const ft_prop *props,
                            int np, const av_walk *w, tally *ty)
{
    ft_window_index *wi = ft_window_index_new(c);
    assert_non_null(wi);
    ft_decider *d = ft_decider_new(c, wi);
    assert_non_null(d);
    ft_presult res[AV_MAX_PROPS];
    uint8_t decided[AV_MAX_PROPS];
    memset(res, 0, sizeof res);
    memset(decided, 0, sizeof decided);
    ft_decide_opts o = {0, 0, 0, 0, NULL, NULL, NULL};
    assert_true(ft_decide_run(d, props, (size_t)np, &o, res, decided) >= 0);
    assert_int_equal(ft_decider_stats(d)->unconfirmed, 0);
    check_relaxed(c, seed, props, np, w, wi, decided, ty);
    for (int i = 0; i < np; i++) {
        ty->props++;
        ty->violable += w->found[i];
        int bad = 0;
        if (decided[i] && res[i].verdict == FT_HOLDS) {
            ty->holds_claimed++;
            bad = w->found[i];
        } else if (decided[i] && res[i].verdict == FT_VIOLATED) {
            ty->viol_found++;
            ty->sync_found += res[i].sync_only;
            ft_presult full;
            uint32_t *seq = expanded_seq(&res[i], &full);
            bad = !av_witness_ok(c, &props[i], &full, &w->valid[i]);
            if (!bad && !res[i].sync_only &&
                !av_violates_data(c, &props[i], seq, full.nsteps))
                bad = 2;
            free(seq);
            free(full.steps);
            if (!bad && !res[i].prefix) {
                /* trimmed when decided (the witness checked above); a
                 * second trim changes nothing */
                assert_true(res[i].trimmed);
                uint32_t ns = res[i].nsteps, na = res[i].nalt_steps;
                assert_int_equal(ft_presult_trim(c, &props[i], &res[i]), 0);
                assert_int_equal(res[i].nsteps, ns);
                assert_int_equal(res[i].nalt_steps, na);
                if (!av_witness_ok(c, &props[i], &res[i], &w->valid[i]))
                    bad = 3;
            }
        } else if (decided[i]) {
            bad = 4;
        }
        if (bad) {
            ty->failures++;
            char name[96];
            fprintf(stderr, "%s: decided %d verdict %d (%s), oracle %d, "
                    "failure %d\n",
                    av_prop_name(seed, &props[i], name, sizeof name),
                    decided[i], res[i].verdict, ft_presult_reason(&res[i]), w->found[i],
                    bad);
        }
        ft_presult_free(&res[i]);
    }
    ft_decider_free(d);
    ft_window_index_free(wi);
}

static void report(const char *what, const tally *ty)
{
    fprintf(stderr, "%s: %u properties, %u violable; decided: %u hold, %u "
            "violated (%u through synchronisation only); then relaxed: %u "
            "violated, %u of them past the bound; %u failures\n",
            what, ty->props, ty->violable, ty->holds_claimed, ty->viol_found,
            ty->sync_found, ty->relaxed_found, ty->relaxed_marked,
            ty->failures);
}

static void test_decide_matches_oracle(void **state)
{
    (void)state;
    unsigned n = nseeds();
    tally ty;
    memset(&ty, 0, sizeof ty);
    /* seeds past the default count that once failed (at 5x): a thread
     * of local work forked and joined inside a CA region, which the
     * search's monitor and witness counted as a violation */
    static const uint64_t again[] = {1621, 1737, 3320, 3592, 3889};
    uint64_t nagain = sizeof again / sizeof again[0];
    for (uint64_t ks = 1; ks <= n + nagain; ks++) {
        uint64_t seed = ks <= n ? ks : again[ks - n - 1];
        gen_params gp;
        gen_small_params(seed, &gp);
        evbuf b = {0};
        gen_run(seed, &gp, &b);
        if (seed % 4 == 1) /* glued steps, as the runtime marks them */
            gen_pair_reads(&b, seed);
        ft_ctm *c = load_events(&b, "decide");
        evbuf_free(&b);
        assert_non_null(c);
        if (seed % 3) /* straight-line spans, as a symbolised trace has */
            av_random_code(c, seed);
        ft_prop props[NPROPS];
        int np = c->ntrans > 20 || c->nthreads < 2 ? 0
                                                   : make_props(c, seed, props);
        if (np) {
            av_walk w = {c, props, np, {0}, {{0}}, {0}};
            oracle_opts oo;
            memset(&oo, 0, sizeof oo);
            assert_true(oracle_walk(c, &oo, av_visit, &w) > 0);
            av_walk_sort(&w);
            check_decisions(c, seed, props, np, &w, &ty);
            av_walk_free(&w);
        }
        ft_ctm_free(c);
    }
    report("generated traces", &ty);
    assert_true(ty.props > n);
    /* the search finds most violations of these small programs, and the
     * value order proves a share of what holds */
    assert_true(ty.viol_found > ty.violable / 2);
    /* the relaxed search adds violations past the bound (14 in the 400
     * seeds of the normal build) */
    assert_true(n < 300 || ty.relaxed_found > 0);
    assert_true(ty.holds_claimed > (ty.props - ty.violable) / 10);
    assert_int_equal(ty.failures, 0);
}

static void test_decide_counters(void **state)
{
    (void)state;
    unsigned n = nseeds() / 2, traces = 0;
    tally ty;
    memset(&ty, 0, sizeof ty);
    for (uint64_t seed = 1; seed <= n; seed++) {
        evbuf b = {0};
        gen_counters(seed, &b);
        ft_ctm *c = load_events(&b, "dctr");
        evbuf_free(&b);
        assert_non_null(c);
        ft_prop props[NPROPS];
        int np = make_props(c, seed, props);
        oracle_opts oo;
        memset(&oo, 0, sizeof oo);
        oo.max_visits = 300000; /* counted first: the oracle's time */
        if (!np || oracle_walk(c, &oo, av_count_visit, NULL) < 0) {
            ft_ctm_free(c);
            continue;
        }
        oo.max_visits = 0;
        av_walk w = {c, props, np, {0}, {{0}}, {0}};
        assert_true(oracle_walk(c, &oo, av_visit, &w) > 0);
        av_walk_sort(&w);
        check_decisions(c, seed, props, np, &w, &ty);
        av_walk_free(&w);
        traces++;
        ft_ctm_free(c);
    }
    report("counter runs", &ty);
    assert_true(traces > n / 20);
    assert_true(ty.viol_found > ty.violable / 2);
    assert_int_equal(ty.failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_matches_oracle),
        cmocka_unit_test(test_decide_matches_oracle),
        cmocka_unit_test(test_decide_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

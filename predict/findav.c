/* SPDX-License-Identifier: MIT */
/* findav.c - per-property prediction: slice the CTM for the property,
 * merge and MAT-reduce the slice (reduce/), encode it (smt/), then either
 * one SMT call on sched and the direct violation condition, or the
 * paper's FindAV loop: check sched and NAV, test the model's schedule with
 * is_serializable, and add the blocking clause (paper eqn. 2) until a
 * violation is found or the formula is unsat.  The witness is cut right
 * after the access that completes the violation. */
#include "predict/kind.h"
#include "predict/window.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE UINT32_MAX
void ft_predict_opts_default(ft_predict_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = FT_PREDICT_DIRECT;
    /* 10 s, not 60 (until 2026-11-29): on the traces of
     * docs/benchmarks.md ("stop 56") no property or candidate that
     * 10 s leave undecided was decided with 60; they only took the
     * time (C-Thread-Pool: 76 s to 37 s, the same verdicts) */
    o->timeout_ms = FT_PREDICT_TIMEOUT_MS;
    o->jobs = 1;
    o->window = 512;
    o->window_max_trans = 4000;
}

void ft_presult_free(ft_presult *r)
{
    free(r->steps);
    free(r->alt_steps);
    free(r->vars);
    r->steps = r->alt_steps = NULL;
    r->vars = NULL;
    r->nsteps = r->nvars = r->nalt_steps = 0;
    r->trimmed = r->packed = 0;
    ft_presult_why(r, NULL);
}

void ft_presult_why(ft_presult *r, const char *fmt, ...)
{
    if (r->reason_owned)
        free((char *)r->reason);
    r->reason = NULL;
    r->reason_owned = 0;
    if (!fmt)
        return;
    if (!strchr(fmt, '%')) {
        r->reason = fmt;
        return;
    }
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *own = strdup(buf);
    r->reason = own ? own : "out of memory";
    r->reason_owned = own != NULL;
}

const char *ft_presult_reason(const ft_presult *r)
{
    return r->reason ? r->reason : "";
}

void ft_presult_why_smt(const ft_smt *e, ft_presult *r)
{
    char buf[256];
    ft_smt_unknown_reason(e, buf, sizeof buf);
    ft_presult_why(r, "%s", buf);
}

double ft_predict_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int ft_pregion_from_events(const ft_ctm *c, uint32_t tid, uint64_t first_event,
                           uint64_t last_event, ft_pregion *out)
{
    if (tid >= c->nthreads)
        return -1;
    /* A thread's transitions come in trace order: event indices grow with
     * the position, so both ends are binary searches (called once per
     * property: a linear scan was quadratic on long traces). */
    uint32_t n = c->len[tid], a = 0, b = n;
    while (a < b) { /* first position with event >= first_event */
        uint32_t m = a + (b - a) / 2;
        if (c->event[ft_ctm_at(c, tid, m)] < first_event)
            a = m + 1;
        else
            b = m;
    }
    uint32_t lo = a;
    b = n;
    while (a < b) { /* first position with event > last_event */
        uint32_t m = a + (b - a) / 2;
        if (c->event[ft_ctm_at(c, tid, m)] <= last_event)
            a = m + 1;
        else
            b = m;
    }
    if (lo >= n || a == lo)
        return -1;
    *out = (ft_pregion){tid, lo, a - 1};
    return 0;
}

/* The blocks of r whose shared transition lies in region g (positions
 * of the original model c: r's own positions differ in a window).  0 ok,
 * 1 no shared transition in it. */
static int region_blocks(const ft_ctm *orig, const ft_reduced *r,
                         const ft_pregion *g, ft_smt_region *out)
{
    const ft_ctm *c = r->ctm;
    if (g->thread >= c->nthreads)
        return 1;
    uint32_t lo = NONE, hi = 0;
    for (uint32_t k = 0; k < r->bcount[g->thread]; k++) {
        uint32_t b = r->bfirst[g->thread] + k, x = r->bkey[b];
        if (x == FT_CTM_NONE)
            continue;
        uint32_t pos = orig->pos[r->orig ? r->orig[x] : x];
        if (pos < g->first || pos > g->last)
            continue;
        if (lo == NONE)
            lo = b;
        hi = b;
    }
    if (lo == NONE)
        return 1;
    *out = (ft_smt_region){g->thread, lo, hi};
    return 0;
}

/* Single shared variable, all reads or all writes, in every region: NAV
 * alone is then claimed sufficient (paper, "special case"). */
static int special_case(const ft_reduced *r, const ft_smt_region *reg,
                        uint32_t nreg)
{
    const ft_ctm *c = r->ctm;
    for (uint32_t g = 0; g < nreg; g++) {
        uint32_t var = NONE;
        int rd = 0, wr = 0;
        for (uint32_t b = reg[g].first_block; b <= reg[g].last_block; b++) {
            uint32_t x = r->bkey[b];
            if (x == FT_CTM_NONE)
                continue;
            if (c->op[x] != FT_OP_READ && c->op[x] != FT_OP_WRITE)
                return 0;
            if (var != NONE && c->obj[x] != var)
                return 0;
            var = c->obj[x];
            rd |= c->op[x] == FT_OP_READ;
            wr |= c->op[x] == FT_OP_WRITE;
        }
        if (rd && wr)
            return 0;
    }
    return 1;
}

static void set_timeout(ft_smt *e, double deadline)
{
    if (deadline <= 0)
        return;
    double left = deadline - ft_predict_now();
    ft_smt_set_params(e, left <= 0.001 ? 1 : (unsigned)(left * 1000));
}

/* Blocking clause for a serializable schedule: some boundary of a region
 * must change its executed / interrupted status, or an interrupted one
 * must see another sequence of blocks in its gap (the paper's "another
 * chain of context switches", taken block by block). */
static Z3_ast blocking(ft_smt *e, const uint32_t *order, const uint32_t *at)
{
    uint32_t *bd;
    uint32_t nbd = ft_smt_boundaries(e, &bd);
    if (!bd)
        return NULL;
    /* every literal fits: a clause cut short would block more than S */
    size_t cap = 2 * (size_t)nbd + e->nb + 4, nl = 0;
    for (uint32_t i = 0; i < nbd; i++)
        if (at[bd[i] + 1] != NONE && at[bd[i]] != NONE &&
            at[bd[i] + 1] > at[bd[i]])
            cap += at[bd[i] + 1] - at[bd[i]];
    Z3_ast *lit = malloc(sizeof *lit * cap);
    if (!lit) {
        free(bd);
        return NULL;
    }
    /* which region blocks ran: a longer prefix may close the cycle */
    for (uint32_t g = 0; g < e->nreg; g++)
        for (uint32_t b = e->reg[g].first_block; b <= e->reg[g].last_block;
             b++) {
            Z3_ast ea = ft_smt_exec(e, b);
            lit[nl++] = at[b] != NONE ? Z3_mk_not(e->z, ea) : ea;
        }
    for (uint32_t i = 0; i < nbd; i++) {
        uint32_t k = bd[i];
        int ex = at[k + 1] != NONE;
        int intr = ex && at[k + 1] != at[k] + 1;
        Z3_ast ea = ft_smt_exec(e, k + 1);
        Z3_ast ia = Z3_mk_not(e->z, ft_smt_next(e, k, k + 1));
        lit[nl++] = ex ? Z3_mk_not(e->z, ea) : ea;
        if (!ex)
            continue;
        lit[nl++] = intr ? Z3_mk_not(e->z, ia) : ia;
        if (!intr)
            continue;
        /* every step of the gap, a thread's own consecutive blocks too:
         * with the switches alone, a schedule whose gap held one more
         * block between two of a thread's (b3 b2 b4 for S's b3 b4) kept
         * every switch of S's and was blocked with it, though its
         * conflicts differ (test_predict_random's seed 4326: FindAV
         * blocked the only violation and said "holds") */
        for (uint32_t j = at[k]; j < at[k + 1] && nl < cap; j++)
            lit[nl++] = Z3_mk_not(e->z, ft_smt_next(e, order[j], order[j + 1]));
    }
    Z3_ast cls = ft_smt_or(e, lit, (unsigned)nl);
    free(lit);
    free(bd);
    return cls;
}

/* Whether a join of thread t runs in order(i..closing]. */
static int joined_later(const ft_ctm *c, const uint32_t *order,
                        uint32_t closing, uint32_t i, const ft_reduced *r,
                        uint32_t t)
{
    for (uint32_t j = i + 1; j <= closing; j++) {
        uint32_t x = r->bkey[order[j]];
        if (x != FT_CTM_NONE && c->op[x] == FT_OP_JOIN && c->value[x] == t)
            return 1;
    }
    return 0;
}

/* Witness steps from the executed blocks order[0..closing]. */
int ft_witness_from_blocks(const ft_reduced *r, const uint32_t *order,
                           uint32_t closing, const uint8_t *mark,
                           ft_presult *res)
{
    const ft_ctm *c = r->ctm;
    uint32_t n = 0;
    for (uint32_t i = 0; i <= closing; i++)
        n += r->bend[order[i]] - r->bstart[order[i]] + 1;
    res->steps = malloc(sizeof *res->steps * (n + 1));
    res->vars = malloc(sizeof *res->vars * (closing + 2));
    if (!res->steps || !res->vars)
        return -1;
    res->nsteps = res->nvars = 0;
    for (uint32_t i = 0; i <= closing; i++) {
        uint32_t b = order[i];
        uint32_t x0 = NONE;
        for (uint32_t tt = 0; tt < c->nthreads && x0 == NONE; tt++)
            if (b >= r->bfirst[tt] && b < r->bfirst[tt] + r->bcount[tt])
                x0 = tt;
        /* the locals after a thread's last shared transition run only
         * when a join needs the thread finished (data.c, "tails") */
        uint32_t until = r->bend[b];
        if (r->bkey[b] != FT_CTM_NONE && !joined_later(c, order, closing, i,
                                                       r, x0))
            until = c->pos[r->bkey[b]];
        for (uint32_t p = r->bstart[b]; p <= until; p++) {
            uint32_t x = ft_ctm_at(c, x0, p);
            int m = mark[b] && x == r->bkey[b];
            uint32_t orig = r->orig ? r->orig[x] : x;
            res->steps[res->nsteps++] = (ft_step){orig, (uint8_t)m, 0, 0};
            if (m && c->obj[x] < c->nvars &&
                c->vars[c->obj[x]].kind == FT_VAR_MEMORY) {
                uint32_t v = c->obj[x], dup = 0;
                for (uint32_t q = 0; q < res->nvars; q++)
                    dup |= res->vars[q] == v;
                if (!dup)
                    res->vars[res->nvars++] = v;
            }
        }
    }
    return 0;
}

static int solve(ft_smt *e, const ft_smt_region *reg, uint32_t nreg,
                 const ft_predict_opts *o, double deadline, ft_presult *res)
{
    const ft_reduced *r = e->r;
    uint32_t nb = e->nb;
    uint32_t *order = malloc(sizeof *order * (nb + 1));
    uint32_t *at = malloc(sizeof *at * (nb + 1));
    uint8_t *mark = calloc(nb + 1, 1);
    int verdict = FT_ERROR;
    ft_presult_why(res, "out of memory");
    if (!order || !at || !mark)
        goto out;
    Z3_ast goal = o->mode == FT_PREDICT_FINDAV ? ft_smt_nav(e)
                                               : ft_smt_violation(e);
    if (!goal)
        goto out;
    ft_smt_assert(e, goal);
    res->special_case = special_case(r, reg, nreg);
    int tightened = 0, relaxed_sync = 0;
    double t0 = ft_predict_now();
    for (;;) {
        if (o->max_iterations && res->iterations >= o->max_iterations) {
            verdict = FT_UNKNOWN;
            ft_presult_why(res, "FindAV iteration limit (%u) reached", o->max_iterations);
            break;
        }
        if (deadline > 0 && ft_predict_now() >= deadline) {
            verdict = FT_UNKNOWN;
            ft_presult_why(res, "time limit reached");
            break;
        }
        set_timeout(e, deadline);
        res->iterations++;
        Z3_lbool sat = ft_smt_check(e, deadline);
        if (sat != Z3_L_TRUE && tightened) {
            /* no witness obeys the bound (or no time to find one): the
             * relaxed one */
            Z3_solver_pop(e->z, e->s, 1);
            verdict = FT_VIOLATED;
            ft_presult_why(res, NULL);
            res->sync_only = relaxed_sync;
            break;
        }
        if (sat == Z3_L_FALSE) {
            verdict = FT_HOLDS;
            ft_presult_why(res, NULL);
            break;
        }
        if (sat == Z3_L_UNDEF) {
            verdict = FT_UNKNOWN;
            ft_presult_why_smt(e, res);
            break;
        }
        Z3_model m = Z3_solver_get_model(e->z, e->s);
        Z3_model_inc_ref(e->z, m);
        long n = ft_smt_schedule(e, m, order);
        if (n < 0) {
            Z3_model_dec_ref(e->z, m);
            ft_presult_why(res, "unusable model");
            break;
        }
        uint32_t closing = 0;
        memset(mark, 0, nb + 1);
        /* A data violation's own accesses are the ones to mark; a
         * violation made of synchronisation conflicts alone is noted
         * (ft_predict_one then asks for a data one). */
        int ser = ft_is_serializable_ex(r, reg, nreg, order, (uint32_t)n,
                                        &closing, mark, 1);
        res->sync_only = ser == 1;
        if (ser == 1) {
            memset(mark, 0, nb + 1);
            ser = ft_is_serializable(r, reg, nreg, order, (uint32_t)n,
                                     &closing, mark);
        }
        /* the witness is the schedule up to its closing access */
        int obeys = ser ? 1 : ft_smt_prefix_obeys(e, m, order, closing + 1);
        Z3_model_dec_ref(e->z, m);
        if (ser < 0 || obeys < 0)
            break;
        if (!ser) {
            ft_presult_free(res); /* a relaxed one kept below */
            if (ft_witness_from_blocks(r, order, closing, mark, res))
                break;
            verdict = FT_VIOLATED;
            ft_presult_why(res, NULL);
            res->relaxed = !obeys;
            if (obeys || o->mode == FT_PREDICT_FINDAV)
                break;
            /* The witness lets a violating read's thread run on after
             * another value past code that may depend on it: ask for one
             * that obeys the straight-line bound, keeping this one for
             * when there is none (docs/prediction.md, the data argument). */
            relaxed_sync = res->sync_only;
            Z3_solver_push(e->z, e->s);
            ft_smt_assert(e, e->strict);
            tightened = 1;
            verdict = FT_ERROR;
            continue;
        }
        if (tightened) { /* cannot be: the goal holds in every model */
            Z3_solver_pop(e->z, e->s, 1);
            verdict = FT_VIOLATED;
            res->sync_only = relaxed_sync;
            break;
        }
        if (o->mode != FT_PREDICT_FINDAV) {
            ft_presult_why(res, "internal: the direct encoding gave a serializable "
                     "schedule");
            break;
        }
        for (uint32_t b = 0; b <= nb; b++)
            at[b] = NONE;
        for (long i = 0; i < n; i++)
            at[order[i]] = (uint32_t)i;
        Z3_ast cls = blocking(e, order, at);
        if (!cls)
            break;
        ft_smt_assert(e, cls);
    }
    res->solve_seconds = ft_predict_now() - t0;
out:
    free(order);
    free(at);
    free(mark);
    return verdict;
}

/* Encodes the property with flags and solves it into res. */
static int solve_with(const ft_reduced *r, const ft_smt_start *start,
                      const ft_smt_region *reg, uint32_t nreg,
                      const ft_predict_opts *o, double deadline,
                      unsigned flags, ft_presult *res)
{
    ft_smt e;
    int verdict = res->verdict;
    unsigned ms = o->timeout_ms;
    if (deadline > 0) { /* what is left of the property's time */
        double left = deadline - ft_predict_now();
        ms = left <= 0.001 ? 1 : (unsigned)(left * 1000);
    }
    if (ft_smt_init_at(&e, r, start, reg, nreg, ms, flags))
        ft_presult_why(res, "%s", e.err);
    else
        verdict = solve(&e, reg, nreg, o, deadline, res);
    res->size_blocks = ft_presult_u32(e.st.nblocks);
    res->size_asserts = ft_presult_u32(e.st.nassert);
    ft_smt_free(&e);
    return verdict;
}

int ft_predict_one(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                   const ft_predict_opts *o, ft_presult *res)
{
    return ft_predict_one_in(c, whole, NULL, p, o, res);
}

/* res replaced by next, a second solve of the same model: the checks
 * and time of both, and what res says about the model and its window. */
static void take_over(ft_presult *res, ft_presult *next)
{
    next->iterations += res->iterations;
    next->solve_seconds += res->solve_seconds;
    next->special_case = res->special_case;
    next->slice_trans = res->slice_trans;
    next->slice_blocks = res->slice_blocks;
    next->slice_cxt = res->slice_cxt;
    next->window_first = res->window_first;
    next->window_end = res->window_end;
    next->windows = res->windows;
    ft_presult_free(res);
    *res = *next;
}

int ft_predict_model(ft_ctm *c, const ft_reduced *r,
                     const ft_smt_start *start, const ft_prop *p,
                     const ft_predict_opts *o, double deadline,
                     ft_presult *res)
{
    if (ft_pkind_of(p->kind)) /* a kind's window (window.c) */
        return ft_pkind_predict_model(c, r, start, p, o, deadline, res);
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    res->slice_trans = r->ctm->ntrans;
    res->slice_blocks = r->nblocks;
    res->slice_cxt = ft_presult_u32(r->ncxt);
    ft_smt_region reg[2];
    for (uint32_t g = 0; g < nreg; g++)
        if (region_blocks(c, r, &p->r[g], &reg[g])) {
            res->verdict = FT_HOLDS;
            ft_presult_why(res, "region %u has no shared access", g);
            return res->verdict;
        }
    /* MAT's context switches (CXT) are computed for runs in which every
     * thread can go on to its end; the data rule stops a thread at a
     * read that returned another value, and a region's thread at its
     * region's end unless the region's reads matched, so a violation may
     * need a switch MAT did not list (test_predict_random's seed 13815:
     * a CMA violation the direct encoding with CXT called "holds").  The
     * direct encoding needs none (one call decides the property), so it
     * takes none unless asked (use_cxt, an ablation for bench/).
     * FindAV's blocking clauses enumerate schedules and keep CXT, the
     * paper's algorithm (without it, seed 718's enumeration ran out of
     * Z3's memory); its "holds" is then checked by the direct encoding
     * without CXT, below.  A window model starts in the middle of the
     * run, where MAT's pairs were not computed for: no CXT there. */
    int cxt = !o->no_cxt && (o->mode == FT_PREDICT_FINDAV || o->use_cxt > 0);
    unsigned flags =
        (!cxt || start || r->stats.mat_abandoned) ? FT_SMT_NO_CXT : 0;
    res->verdict = solve_with(r, start, reg, nreg, o, deadline, flags, res);
    /* FindAV's enumeration can also end undecided with time left: in
     * Z3's memory (each blocking clause stays; test_predict_random's seeds
     * 19381 and 19698, CMA pairs that hold, ran out after 2,317 checks),
     * where the direct encoding decides in one.  Its own iteration limit
     * (--max-iterations) is the user's, and stays unknown. */
    int recheck =
        o->mode == FT_PREDICT_FINDAV &&
        ((res->verdict == FT_HOLDS && !(flags & FT_SMT_NO_CXT)) ||
         (res->verdict == FT_UNKNOWN &&
          !(o->max_iterations && res->iterations >= o->max_iterations) &&
          (deadline <= 0 || ft_predict_now() < deadline)));
    if (recheck) {
        ft_predict_opts direct = *o;
        direct.mode = FT_PREDICT_DIRECT;
        ft_presult again;
        memset(&again, 0, sizeof again);
        again.verdict = (int8_t)solve_with(r, start, reg, nreg, &direct,
                                           deadline, FT_SMT_NO_CXT, &again);
        take_over(res, &again);
    }
    /* A violation through lock operations alone (another critical section
     * between two of the region's) changes nothing the program computes;
     * one made of data conflicts (another thread's write between the
     * region's accesses) does: the direct check asks for that one too,
     * and keeps it when there is one, unless it breaks the straight-line
     * bound (relaxed) where the first did not: a witness that may diverge
     * on replay is worth less than one that replays (test_predict_random's
     * seed 2068, whose only data violation ran a thread on past a read
     * that had returned another value).  Properties that hold or have a
     * data violation first pay nothing. */
    if (res->verdict == FT_VIOLATED && res->sync_only &&
        o->mode == FT_PREDICT_DIRECT) {
        ft_presult data;
        memset(&data, 0, sizeof data);
        data.verdict = FT_ERROR;
        if (solve_with(r, start, reg, nreg, o, deadline,
                       flags | FT_SMT_DATA_DEPS, &data) == FT_VIOLATED &&
            (!data.relaxed || res->relaxed)) {
            data.verdict = FT_VIOLATED; /* solve_with returns it only */
            take_over(res, &data);
        } else {
            res->iterations += data.iterations;
            res->solve_seconds += data.solve_seconds;
            ft_presult_free(&data);
        }
    }
    return res->verdict;
}

int ft_predict_one_in(ft_ctm *c, const ft_reduced *whole,
                      const ft_window_index *w, const ft_prop *p,
                      const ft_predict_opts *o, ft_presult *res)
{
    if (ft_pkind_of(p->kind)) /* the other kinds: kinds.c */
        return ft_pkind_predict(c, whole, w, p, o, res);
    memset(res, 0, sizeof *res);
    double t0 = ft_predict_now();
    double deadline = o->timeout_ms ? t0 + o->timeout_ms / 1000.0 : 0;
    if (o->until > 0 && (deadline == 0 || o->until < deadline))
        deadline = o->until;
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    ft_reduced *own = NULL;
    const ft_reduced *r = whole;
    res->verdict = FT_ERROR;
    res->window_end = c->ntrans;
    res->windows = 1;
    for (uint32_t g = 0; g < nreg; g++) {
        const ft_pregion *pg = &p->r[g];
        if (pg->thread >= c->nthreads || pg->first > pg->last ||
            pg->last >= c->len[pg->thread]) {
            ft_presult_why(res, "property %u: region %u (thread %u, %u..%u) is not in "
                     "the model",
                     p->id, g, pg->thread, pg->first, pg->last);
            return res->verdict;
        }
    }
    if (nreg == 2 && p->r[0].thread == p->r[1].thread) {
        ft_presult_why(res, "property %u: CMA regions must be in different threads",
                 p->id);
        return res->verdict;
    }
    if (!o->no_slice && o->window && !ft_window_covers_all(c, p, o->window)) {
        ft_predict_windowed(c, w, p, o, deadline, res);
        res->seconds = ft_predict_now() - t0;
        return res->verdict;
    }
    if (!o->no_slice) {
        uint32_t n = 0;
        for (uint32_t g = 0; g < nreg; g++)
            n += p->r[g].last - p->r[g].first + 1;
        uint32_t *prop = malloc(sizeof *prop * (n + 1));
        if (!prop) {
            ft_presult_why(res, "out of memory");
            return res->verdict;
        }
        n = 0;
        for (uint32_t g = 0; g < nreg; g++)
            for (uint32_t q = p->r[g].first; q <= p->r[g].last; q++)
                prop[n++] = ft_ctm_at(c, p->r[g].thread, q);
        /* the switch count is for --stats, not for solving (quadratic) */
        own = ft_reduce_slice(c, prop, n,
                              o->reduce_flags | FT_REDUCE_NO_COUNT);
        free(prop);
        r = own;
    }
    if (!r) {
        ft_presult_why(res, o->no_slice ? "no reduced model given" : "slicing failed");
        return res->verdict;
    }
    ft_predict_model(c, r, NULL, p, o, deadline, res);
    ft_reduced_free(own);
    res->seconds = ft_predict_now() - t0;
    return res->verdict;
}

/* SPDX-License-Identifier: MIT */
/* kind_order_search.c - order and null-dereference properties
 * (kind_order.c) decided without the solver, as decide.c decides
 * atomicity: they hold when the value order (vorder.c) leaves r no
 * source of another value, and are violated when a short search finds
 * the read of another value, checked step by step by the exact executor
 * (exec.c).
 *
 * The value order: every other-value write y of r's variable must follow
 * r (a transition of y's thread at or after the first one that must
 * follow r) or precede another write that must precede r (then r cannot
 * see it), and some write must precede r (so the initial value is
 * gone).  Every must-follow-r relation
 * needs r's thread past r, since nothing reads from a read; the
 * property's prefix ends r's thread at r, so such a y never runs before
 * r.  The must-precede relations come from reads r's thread went past,
 * which return their recorded values in the property's prefix.
 *
 * Why: the solver gets a read's whole slice, which on a lock-heavy trace
 * is nearly the whole run; on data/correct_locked (605 events, 22
 * candidates) it took over 200 s and 890 MB without deciding, while most
 * of those reads can plainly read another value.  Two moves of the
 * recorded run find that, and a third when neither does:
 *
 *   early  the thread u that wrote r's recorded source w0 is held back
 *          from w0 (or from the last point before w0 where it held no
 *          lock, so that it blocks nobody): the others run on in recorded
 *          order until r runs, and r reads an older value;
 *   late   r's thread is held back (at r, or at the last point before it
 *          where it held no lock) until a later write y of another value
 *          has run (the others in recorded order), then it runs on to r;
 *   eager  r's thread runs whenever it can, from its creation on (the
 *          others in recorded order when it cannot), so r reads an
 *          earlier state than the recording gave it.
 *
 * "The others run on in recorded order" is greedy: the enabled thread
 * whose next transition came first in the recording runs; a thread that
 * cannot (a guard, or a read that would return another value: the data
 * rule) waits until something else ran.  The run starts with the
 * recorded prefix below the hold point, which is feasible.  Every
 * accepted witness is a feasible, data-consistent prefix in which r,
 * its thread's last step, returned another value (of the null
 * property's value 0): exactly the property's violation, so the search
 * can only save the solver's time; what it does not find is left to the
 * solver (tests/predict/test_kinds_random.c checks both against the
 * brute-force enumerator). */
#include "predict/exec.h"
#include "predict/vorder.h"
#include "predict/kind.h"
#include "predict/window.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define NONE UINT32_MAX
/* Greedy steps after the hold point, beyond the distance to r. */
#define SEARCH_STEPS 8192u
/* A witness whose prefix is longer stays implicit (res->prefix). */
#define INLINE_PREFIX 20000u

/* The last write of r's variable before r in the recording, NONE if
 * none. */
static uint32_t recorded_source(const ft_ctm *c, uint32_t r)
{
    for (uint32_t y = r; y-- > 0;)
        if (c->obj[y] == c->obj[r] && ft_ctm_writes(c, y))
            return y;
    return NONE;
}

uint32_t ft_pkind_unlocked_before(const ft_reduced *whole, uint32_t x)
{
    const ft_ctm *c = whole->ctm;
    uint32_t u = c->tid[x];
    for (uint32_t q = c->pos[x] + 1; q-- > 0;) {
        uint32_t y = ft_ctm_at(c, u, q);
        if (ft_pkind_held_before(whole, y) == 0)
            return y;
    }
    return ft_ctm_at(c, u, 0);
}

/* One try: thread j runs only its positions below lim[j], r's thread
 * until after ran (NONE: for good); the recorded prefix below the first
 * id a limit holds back runs first, then the threads greedily.  eager
 * (NONE: not): the recorded prefix stops at id eager, and r's thread
 * then runs whenever it can, the others only when it cannot.  1 when r
 * ran and read another value (want, when specific), 0 not, -1 out of
 * memory; s->steps holds the run. */
static int try_hold(ft_hold_run *s, const uint32_t *lim, uint32_t r,
                    uint32_t after, uint32_t eager, int specific, uint64_t want,
                    double deadline)
{
    const ft_ctm *c = s->c;
    uint32_t t = c->tid[r], nt = c->nthreads, k;
    int ran = ft_hold_prefix(s, lim, eager != NONE ? eager : r, &k);
    if (ran <= 0)
        return ran;
    int after_ran = after == NONE;
    uint64_t budget = SEARCH_STEPS + (r > k ? r - k : 0);
    memset(s->waiting, 0, nt);
    while (budget--) {
        if ((budget & 1023) == 0 && deadline > 0 &&
            ft_predict_now() >= deadline)
            return 0;
        /* r's thread waits at its limit until after ran */
        uint32_t best = ft_hold_pick(
            s, lim, eager != NONE || (after != NONE && after_ran) ? t : NONE);
        uint32_t g = ft_exec_glued(s->x), pt = ft_exec_pos(s->x, t);
        if (eager != NONE && !s->waiting[t] && pt < c->len[t] &&
            (g == NONE || g == t))
            best = ft_ctm_at(c, t, pt);
        if (best == NONE)
            return 0;
        uint64_t before = ft_exec_value(s->x, c->obj[r]);
        if (ft_exec_step(s->x, best, best == r) != FT_EXEC_OK) {
            s->waiting[c->tid[best]] = 1;
            continue;
        }
        if (ft_hold_push(s, best) < 0)
            return -1;
        memset(s->waiting, 0, nt);
        if (best == after)
            after_ran = 1;
        if (best == r)
            return ft_exec_frozen(s->x, t) && (!specific || before == want);
    }
    return 0;
}

/* try_hold, and when the greedy run got stuck because a thread that
 * cannot go on (a read that would return another value, a guard) holds
 * a lock the others need, again with that thread held back too, at the
 * last point before where it stopped that it held no lock (at most
 * REFINE times).  On bench/predict's psort, a late worker took the
 * queue's mutex, then could not read the recorded `outstanding` and kept
 * the mutex: the other late worker, whose read was the property, never
 * got in.  lim is changed. */
#define REFINE 4
static int try_hold_refined(ft_hold_run *s, const ft_reduced *whole,
                            uint32_t *lim, uint32_t r, uint32_t after,
                            uint32_t eager, int specific, uint64_t want,
                            double deadline)
{
    const ft_ctm *c = s->c;
    for (int round = 0;; round++) {
        int found = try_hold(s, lim, r, after, eager, specific, want, deadline);
        if (found != 0 || round == REFINE ||
            (deadline > 0 && ft_predict_now() >= deadline))
            return found;
        int more = 0;
        for (uint32_t j = 0; j < c->nthreads; j++) {
            uint32_t p = ft_exec_pos(s->x, j);
            if (!s->waiting[j] || j == c->tid[r] || p >= c->len[j])
                continue;
            uint32_t y = ft_ctm_at(c, j, p);
            if (ft_pkind_held_before(whole, y) == 0)
                continue;
            uint32_t h = c->pos[ft_pkind_unlocked_before(whole, y)];
            if (h < lim[j]) {
                lim[j] = h;
                more = 1;
            }
        }
        if (!more)
            return 0;
    }
}

/* The witness of the run in s: r and the last write of its variable
 * before it marked, cut to their causal past. */
static int witness_of(const ft_hold_run *s, uint32_t r, ft_presult *res)
{
    const ft_ctm *c = s->c;
    uint32_t from = 0;
    /* a long recorded prefix (ids 0 .. from-1 in order) stays implicit */
    while (from < s->n && s->steps[from] == from)
        from++;
    if (from < INLINE_PREFIX)
        from = 0;
    res->prefix = from;
    uint32_t src = NONE;
    for (uint32_t i = 0; i < s->n && s->steps[i] != r; i++)
        if (c->obj[s->steps[i]] == c->obj[r] && ft_ctm_writes(c, s->steps[i]))
            src = i;
    for (uint32_t i = from; i < s->n; i++)
        if (ft_presult_append(res, s->steps[i],
                              s->steps[i] == r || i == src) < 0)
            return -1;
    return ft_presult_trim_seeds(c, res, NULL);
}

int ft_order_other(const ft_ctm *c, const ft_value_order *vo, uint32_t y,
                   uint32_t r, int specific, uint64_t want)
{
    uint64_t val = ft_ctm_written(c, y), old = c->value[r];
    if (specific)
        return val == want && val != old;
    if (val != old || c->op[y] != FT_OP_RMW)
        return val != old;
    /* y's thread goes past y before r: y's read returned its recorded
     * value (the data rule), and so did r's thread's reads before r */
    uint32_t t = c->tid[r], u = c->tid[y], q = c->pos[r], next = c->pos[y] + 1;
    if (u == t) /* before r it went past; after r it never runs */
        return 0;
    if (vo) /* the relation for r itself rests on r's value: r's thread's
               transition before r */
        return !(q > 0 && vo_before(vo, t, q - 1, u) > next);
    return !(c->hb_vc && ft_ctm_hb_before(c, r, u) > next);
}

int ft_order_vholds(const ft_ctm *c, const ft_value_order *vo,
                    const ft_prop *p, int specific, uint64_t want)
{
    uint32_t r = p->tgt[0];
    if (!vo || r >= c->ntrans || c->obj[r] >= c->nvars)
        return 0;
    uint32_t t = c->tid[r], q = c->pos[r], v = c->obj[r], nt = c->nthreads;
    const ft_ctm_var *var = &c->vars[v];
    uint64_t old = c->value[r];
    int init_ok = specific ? var->has_init && var->init == want && want != old
                           : !var->has_init || var->init != old;
    const ft_slice_index *ix = vo->ix;
    uint32_t a = ix->wr_first[v], b = ix->wr_first[v + 1];
    /* per thread, the last write of v that must precede r (what must
     * precede the transition before r, or r's own thread before r) */
    uint32_t *last = malloc(sizeof *last * (nt + 1));
    if (!last)
        return 0;
    for (uint32_t j = 0; j < nt; j++)
        last[j] = NONE;
    for (uint32_t i = a; i < b; i++) { /* by thread, then position */
        uint32_t y = ix->wr[i], u = c->tid[y];
        uint32_t lim = u == t ? q : q > 0 ? vo_before(vo, t, q - 1, u) : 0;
        if (y != r && c->pos[y] < lim) {
            last[u] = y;
            init_ok = 0; /* a write comes first: the initial value is gone */
        }
    }
    int held = !init_ok;
    for (uint32_t i = a; held && i < b; i++) {
        uint32_t y = ix->wr[i], u = c->tid[y];
        if (y == r || !ft_order_other(c, vo, y, r, specific, want) ||
            (u == t && c->pos[y] > q))
            continue;
        /* y follows r: every transition that must follow r needs r's
         * thread past r (r is a read: nothing reads from it), which the
         * property's prefix never runs */
        if (u != t && c->pos[y] >= ft_value_order_first_after(vo, u, t, q))
            continue;
        /* y is overwritten before r: it precedes a write that precedes
         * r, so it is not the last write r can see */
        int shadowed = 0;
        for (uint32_t j = 0; j < nt && !shadowed; j++) {
            uint32_t w = last[j];
            shadowed = w != NONE && w != y &&
                       (j == u ? c->pos[y] < c->pos[w]
                               : c->pos[y] < vo_before(vo, j, c->pos[w], u));
        }
        held = shadowed;
    }
    free(last);
    return held;
}

int ft_order_search(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                    int specific, uint64_t want, double deadline,
                    ft_presult *res)
{
    uint32_t r = p->tgt[0];
    if (!whole || whole->ctm != c || r >= c->ntrans)
        return 0;
    ft_hold_run s = ft_hold_run_new(c);
    uint32_t *lim = NULL, *first = NULL;
    int found = 0;
    if (!s.x || !s.waiting) {
        found = -1;
        goto out;
    }
    uint32_t w0 = recorded_source(c, r), t = c->tid[r], nt = c->nthreads;
    lim = malloc(sizeof *lim * (nt + 1));
    first = malloc(sizeof *first * (nt + 1));
    if (!lim || !first) {
        found = -1;
        goto out;
    }
    /* each thread's first write of r's variable before r */
    for (uint32_t j = 0; j < nt; j++)
        first[j] = NONE;
    for (uint32_t y = 0; y < r; y++)
        if (c->obj[y] == c->obj[r] && ft_ctm_writes(c, y) &&
            first[c->tid[y]] == NONE)
            first[c->tid[y]] = y;
    /* early: the recorded source's thread u held back, at the last point
     * before w0 where it held no lock, at w0, or before its first write
     * of the variable; then every other writer held back before its
     * first write too (r reads the initial value) */
    uint32_t u = w0 != NONE ? c->tid[w0] : NONE;
    uint32_t at[3] = {NONE, NONE, NONE};
    if (u != NONE && u != t) {
        at[0] = ft_pkind_unlocked_before(whole, w0);
        at[1] = w0;
        at[2] = ft_pkind_unlocked_before(whole, first[u]);
    }
    for (int i = 0; i < 4 && found == 0; i++) {
        for (uint32_t j = 0; j < nt; j++)
            lim[j] = UINT32_MAX;
        if (i < 3) {
            if (at[i] == NONE || (i > 0 && at[i] == at[0]) ||
                (i == 2 && at[2] == at[1]))
                continue;
            lim[u] = c->pos[at[i]];
        } else {
            int any = 0;
            for (uint32_t j = 0; j < nt; j++)
                if (j != t && first[j] != NONE) {
                    lim[j] = c->pos[ft_pkind_unlocked_before(whole, first[j])];
                    any = 1;
                }
            if (!any)
                continue;
        }
        found = try_hold_refined(&s, whole, lim, r, NONE, NONE, specific, want,
                                 deadline);
    }
    /* late: r's thread waits, from the last point before r where it held
     * no lock, for a later write of another value */
    for (uint32_t j = 0; j < nt; j++)
        lim[j] = UINT32_MAX;
    for (uint32_t y = r + 1, tries = 0; !found && y < c->ntrans && tries < 4;
         y++) {
        if (c->obj[y] != c->obj[r] || !ft_ctm_writes(c, y) || c->tid[y] == t)
            continue;
        uint64_t val = ft_ctm_written(c, y);
        if (specific ? val != want : val == c->value[r] &&
                                         c->op[y] != FT_OP_RMW)
            continue;
        tries++;
        for (uint32_t j = 0; j < nt; j++)
            lim[j] = UINT32_MAX;
        lim[t] = c->pos[ft_pkind_unlocked_before(whole, r)];
        found = try_hold_refined(&s, whole, lim, r, y, NONE, specific, want,
                                 deadline);
    }
    /* eager: r's thread runs whenever it can from its first step, the
     * others in recorded order when it cannot, so that r comes before
     * the writes that fed it, or after a wake-up the recording gave it
     * later (bench/predict's pool: a late worker's read of the queue's
     * head after its first wait; the recording started it after every
     * task was taken, the solver ran out of memory on the whole run).
     * The recorded prefix runs up to what must precede r's thread's
     * first step (its creation). */
    uint32_t from = 0, x0 = ft_ctm_at(c, t, 0);
    for (uint32_t j = 0; c->hb_vc && j < nt; j++) {
        uint32_t h = j == t ? 0 : ft_ctm_hb_before(c, x0, j);
        if (h && ft_ctm_at(c, j, h - 1) + 1 > from)
            from = ft_ctm_at(c, j, h - 1) + 1;
    }
    for (uint32_t j = 0; j < nt; j++)
        lim[j] = UINT32_MAX;
    if (!found && c->hb_vc && from < x0)
        found = try_hold_refined(&s, whole, lim, r, NONE, from, specific, want,
                                 deadline);
    if (found > 0) {
        memset(res, 0, sizeof *res);
        if (witness_of(&s, r, res) < 0) {
            found = -1;
        } else {
            res->verdict = FT_VIOLATED;
            res->window_end = c->ntrans;
            ft_presult_why(res, "found without the solver (a thread held back)");
        }
    }
out:
    free(lim);
    free(first);
    ft_hold_run_free(&s);
    return found;
}

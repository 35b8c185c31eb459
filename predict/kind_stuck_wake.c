/* SPDX-License-Identifier: MIT */
/* kind_stuck_wake.c - the lost wake-up rules that need the value order
 * (vorder.c): a notify that must come after a wait began woke it, so a
 * thread that stands at that wait in a final state would have gone on.
 * Per stop (stuck_wake_of, stuck_fits: broadcasts, and signals of a
 * condition only one thread waits on) and at a combination's leaf
 * (stuck_woken_at_leaf: what ran is known there, so signals are counted
 * against the waits that could have taken them).  kind_stuck.c's cut
 * search asks them; each only refutes states (without them it proves
 * less, never more). */
#include "predict/kind_stuck.h"

#include <stdlib.h>

/* ---- with the value order (vorder.c), two more rules ---------------
 *
 * What ran is closed under the relation: a thread that ran z ran what
 * must precede z (every read that ran returned its recorded value, which
 * is what the relation's edges rest on).  And a thread that waits at a
 * condition wait W was not woken: no thread ran a notify N of the
 * condition that must come after W began waiting (its WAIT_PRE P) and
 * would wake it, a broadcast, or a signal when no other thread ever
 * waits on the condition.  N, inside a section of W's mutex M, comes
 * after P when some transition y of W's section (from its acquisition
 * to P) must precede N: N's section cannot overlap W's, so it begins
 * after P released M.  Or when y is a read of x that returned v0, and
 * N's thread wrote x another value at w before N, with every write of
 * v0 to x preceding w: a read after w would need one of them after w
 * (W's thread's own writes past y are no source of y: tpool's
 * `flag &= ~TIMEOUT` writes back the value it read).
 * The classic guarded wait (`while (!done) wait`, `done = 1;
 * broadcast` under the lock): the waiter's read of done = 0 comes before
 * the write of 1, so the broadcast comes after the wait began, and a
 * waiter it would wake is not stuck (bench/predict/shapes/workqueue.c's
 * consumers). */

/* Reads of thread t in [lo, hi) (W's section, P excluded) one of which
 * must precede u's transition at pn by the write rule above.  ran: only
 * the writes below the cuts count as a read's sources (what ran in the
 * final state the cuts make), else every write of the trace. */
static int read_before(const cuts *s, uint32_t t, uint32_t lo, uint32_t hi,
                       uint32_t u, uint32_t pn, int ran)
{
    const ft_ctm *c = s->c;
    const ft_value_order *vo = s->vo;
    const ft_slice_index *ix = vo->ix;
    for (uint32_t q = lo; q < hi; q++) {
        uint32_t y = ft_ctm_at(c, t, q), x = c->obj[y];
        if (c->op[y] != FT_OP_READ || x >= c->nvars ||
            c->vars[x].kind != FT_VAR_MEMORY)
            continue;
        uint64_t v0 = c->value[y];
        uint32_t a = ix->wr_first[x], b = ix->wr_first[x + 1];
        uint32_t i = ft_slice_upper(c, ix->wr, a, b, u, pn);
        if (i == a || c->tid[ix->wr[i - 1]] != u || vo->rmw[x])
            continue; /* an RMW's value is not looked at */
        uint32_t w = ix->wr[i - 1];
        if (c->op[w] != FT_OP_WRITE || c->value[w] == v0)
            continue;
        /* each thread's last write of v0 that y could read precedes w
         * (then so do its earlier ones); t's own past y are no source */
        int ok = 1;
        for (uint32_t tz = 0; tz < c->nthreads && ok; tz++) {
            uint32_t lim = tz == t ? y : VO_NONE, cz = s->cut[tz];
            if (ran && tz != t && cz == UNSTARTED)
                continue;
            if (ran && tz != t && cz < c->len[tz])
                lim = ft_ctm_at(c, tz, cz);
            size_t k = vo_write_lower(vo->w, vo->nw, x, v0, tz, lim);
            const vo_write *z = k ? &vo->w[k - 1] : NULL;
            if (!z || z->obj != x || z->val != v0 || z->tid != tz)
                continue;
            ok = (tz == u && c->pos[z->id] < c->pos[w]) ||
                 vo_before(vo, u, c->pos[w], tz) > c->pos[z->id];
        }
        if (ok)
            return 1;
    }
    return 0;
}

/* When thread t stands at position q at a condition wait W (its
 * WAIT_PRE ran, its WAIT_POST is next): W's section of its mutex in the
 * value order, with the condition and the mutex; else NULL. */
static const vo_cs *standing_wait(const cuts *s, uint32_t t, uint32_t q,
                                  uint32_t *cv, uint32_t *m)
{
    const ft_ctm *c = s->c;
    if (q == 0 || q >= c->len[t])
        return NULL;
    uint32_t w = ft_ctm_at(c, t, q), pre = ft_ctm_at(c, t, q - 1);
    *cv = c->obj[w];
    *m = c->obj2[w];
    if (c->op[w] != FT_OP_WAIT_POST || c->op[pre] != FT_OP_WAIT_PRE ||
        c->obj[pre] != *cv || *cv >= c->nvars || *m >= c->nvars)
        return NULL;
    return vo_cs_at(s->vo, *m, t, q - 1);
}

/* Whether the notify of thread u at position pn must come after t's
 * wait, standing at q in section sec, began: by the relation, or by a
 * read of the section (ran: as read_before). */
static int notify_after_wait(const cuts *s, uint32_t t, uint32_t q,
                             const vo_cs *sec, uint32_t u, uint32_t pn, int ran)
{
    return vo_before(s->vo, u, pn, t) > sec->acq ||
           read_before(s, t, sec->acq, q - 1, u, pn, ran);
}

/* For thread t standing at position q, a condition wait: per thread u,
 * the first position of a notify that would have woken it (VO_NONE
 * none); NULL when none would or q is no such wait.  -1 out of memory
 * (*out NULL). */
int stuck_wake_of(cuts *s, uint32_t t, uint32_t q, uint32_t **out)
{
    const ft_ctm *c = s->c;
    const ft_value_order *vo = s->vo;
    *out = NULL;
    uint32_t cv, m;
    const vo_cs *sec = standing_wait(s, t, q, &cv, &m);
    /* woken, t still waits for m when another thread may stop holding
     * it: left to the leaf, which knows (stuck_woken_at_leaf) */
    if (!sec || (s->held_by[m] != VO_NONE && s->held_by[m] != t))
        return 0;
    const ft_slice_index *ix = vo->ix;
    uint32_t a = ix->all_first[cv], b = ix->all_first[cv + 1];
    if ((s->wake_budget -= 2 * (long)(b - a)) < 0)
        return 0;
    int sole = 1;
    for (uint32_t k = a; k < b && sole; k++)
        sole = c->op[ix->all[k]] != FT_OP_WAIT_PRE || c->tid[ix->all[k]] == t;
    uint32_t *wk = NULL;
    for (uint32_t k = a; k < b; k++) {
        uint32_t n = ix->all[k], u = c->tid[n], pn = c->pos[n];
        if (u == t || c->obj[n] != cv ||
            !(c->op[n] == FT_OP_NOTIFY_ALL ||
              (sole && c->op[n] == FT_OP_NOTIFY)) ||
            !vo_cs_at(vo, m, u, pn) ||
            (wk && wk[u] <= pn)) /* by thread, position: the first */
            continue;
        if (!notify_after_wait(s, t, q, sec, u, pn, 0))
            continue;
        if (!wk) {
            if (!(wk = malloc(sizeof *wk * c->nthreads)))
                return -1;
            for (uint32_t j = 0; j < c->nthreads; j++)
                wk[j] = VO_NONE;
        }
        wk[u] = pn;
    }
    *out = wk;
    return 0;
}

/* What thread a ran (up to its cut) is closed under the relation as far
 * as thread b's cut goes, and a's wait, if any, was not woken by b. */
static int fits_one(const cuts *s, uint32_t a, uint32_t b)
{
    uint32_t ca = s->cut[a], cb = s->cut[b];
    uint32_t ranb = cb == UNSTARTED ? 0 : cb;
    if (ca != UNSTARTED && ca > 0 && vo_before(s->vo, a, ca - 1, b) > ranb)
        return 0;
    const uint32_t *wk = s->wake ? s->wake[a][s->at[a]] : NULL;
    return !(wk && wk[b] != VO_NONE && ranb > wk[b]);
}

/* Thread t's cut against those of threads 0..t-1 (with the value order
 * only). */
int stuck_fits(const cuts *s, uint32_t t)
{
    if (!s->vo)
        return 1;
    for (uint32_t u = 0; u < t; u++)
        if (!fits_one(s, t, u) || !fits_one(s, u, t))
            return 0;
    return 1;
}

/* ---- at a combination's leaf: what the notifies that ran woke -----
 *
 * Thread t stands at condition wait W (its WAIT_PRE P ran) with mutex
 * M, and no thread holds M in the state: had anything notified t, its
 * WAIT_POST could run, and the state would not be final.  A notify N
 * that ran and must come after P (as wake_of: by the relation, or by a
 * read of W's section, now with only the writes that ran as its
 * sources) found t waiting.  A broadcast notifies t.  A signal notifies
 * one waiter not notified yet: t, or another thread's wait that was
 * pending then.  Such a wait either stands in the state too (notified,
 * it stays only when its own mutex is held there) or ended (its
 * WAIT_POST ran, not before P).  Each wait is notified once, so when
 * more signals came after P than there are such waits, one notified t.
 * workqueue's consumers: three wait on `not_empty`, the producer
 * signals it per item; no consumer can stay waiting while items it
 * would take were signalled after its wait began. */

/* Scan bound per thread when counting the waits a signal may have
 * notified instead of t's (past it, no claim). */
#define TAKER_SCAN 64u

/* Whether some thread holds lock m in the state the cuts make. */
static int held_in_state(const cuts *s, uint32_t m)
{
    for (uint32_t v = 0; v < s->c->nthreads; v++) {
        int rd;
        if (ft_pkind_set_has(s->w, stuck_held_at(s, v), m, &rd))
            return 1;
    }
    return 0;
}

/* How many waits on cv other than t's could have taken a signal that
 * came after t's WAIT_PRE at pre: per thread v != t, those that ended
 * (WAIT_POST below v's cut) not known to precede pre, and v's own
 * standing wait on cv when its mutex is held.  UINT32_MAX: too many to
 * count (no claim). */
static uint32_t takers(const cuts *s, uint32_t t, uint32_t pre, uint32_t cv)
{
    const ft_ctm *c = s->c;
    const ft_slice_index *ix = s->vo->ix;
    uint32_t a = ix->all_first[cv], b = ix->all_first[cv + 1], n = 0;
    for (uint32_t v = 0; v < c->nthreads; v++) {
        uint32_t cut = s->cut[v];
        if (v == t || cut == UNSTARTED || cut == 0)
            continue;
        if (cut < c->len[v]) {
            uint32_t x = ft_ctm_at(c, v, cut);
            if (c->op[x] == FT_OP_WAIT_POST && c->obj[x] == cv &&
                c->obj2[x] < c->nvars && held_in_state(s, c->obj2[x]))
                n++;
        }
        uint32_t before = vo_before(s->vo, t, pre, v), scan = 0, waits = 0;
        for (uint32_t i = ft_slice_upper(c, ix->all, a, b, v, cut); i > a;
             i--) {
            uint32_t x = ix->all[i - 1];
            if (c->tid[x] != v || c->pos[x] < before)
                break; /* v's, and not known to precede pre */
            /* a notifier's own signals cost a step, not a claim */
            if (++scan > 64 * TAKER_SCAN ||
                (c->op[x] == FT_OP_WAIT_POST && ++waits > TAKER_SCAN))
                return UINT32_MAX;
            n += c->op[x] == FT_OP_WAIT_POST;
        }
    }
    return n;
}

/* 1 when a notify that ran must have woken a thread the cuts leave at
 * a condition wait (the state is then not final). */
int stuck_woken_at_leaf(cuts *s)
{
    const ft_ctm *c = s->c;
    const ft_value_order *vo = s->vo;
    const ft_slice_index *ix = vo->ix;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t q = s->cut[t], cv, m;
        if (q == UNSTARTED)
            continue;
        const vo_cs *sec = standing_wait(s, t, q, &cv, &m);
        if (!sec || held_in_state(s, m))
            continue;
        uint32_t a = ix->all_first[cv], b = ix->all_first[cv + 1];
        if ((s->wake_budget -= 2 * (long)(b - a)) < 0)
            return 0;
        uint32_t room = UINT32_MAX, signals = 0;
        for (uint32_t k = a; k < b; k++) {
            uint32_t n = ix->all[k], u = c->tid[n], pn = c->pos[n];
            if (u == t || s->cut[u] == UNSTARTED || pn >= s->cut[u] ||
                (c->op[n] != FT_OP_NOTIFY && c->op[n] != FT_OP_NOTIFY_ALL) ||
                !vo_cs_at(vo, m, u, pn))
                continue;
            if (!notify_after_wait(s, t, q, sec, u, pn, 1))
                continue;
            if (c->op[n] == FT_OP_NOTIFY_ALL)
                return 1;
            if (room == UINT32_MAX &&
                (room = takers(s, t, q - 1, cv)) == UINT32_MAX)
                break;
            if (++signals > room)
                return 1;
        }
    }
    return 0;
}

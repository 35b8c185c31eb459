/* SPDX-License-Identifier: MIT */
/* kind_stuck_wake.c - the lost wake-up rules that need the value order
 * (vorder.c): a notify that must come after a wait began woke it, so a
 * thread that stands at that wait in a final state would have gone on.
 * Per stop (stuck_wake_of, stuck_fits: broadcasts, and signals of a
 * condition only one thread waits on) and at a combination's leaf
 * (stuck_woken_at_leaf: what ran is known there, so signals are counted
 * against the waits that could have taken them; stuck_ordered_at_leaf:
 * the standing waits' sections of one mutex ran in some order, and in
 * each order the values they read say a notify came after one began).
 * kind_stuck.c's cut search asks them; each only refutes states (without them
 * it proves less, never more). */
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

/* The cut of the thread chosen at depth d against those chosen before
 * it (with the value order only). */
int stuck_fits(const cuts *s, uint32_t d)
{
    if (!s->vo)
        return 1;
    uint32_t t = s->order[d];
    for (uint32_t k = 0; k < d; k++) {
        uint32_t u = s->order[k];
        if (!fits_one(s, t, u) || !fits_one(s, u, t))
            return 0;
    }
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

/* ---- at a leaf: the order of the standing waits' sections ----------
 *
 * Threads t_1..t_k stand at condition waits of one mutex M that no
 * thread holds in the state.  Their waits' sections of M (from the
 * acquisition to the WAIT_PRE) ran one after another, in some order.
 * Take i's before j's and a variable x: t_i's last access of x in its
 * section saw e (wrote or read it), and t_j's first access of x in its
 * section read s != e.  So some write came between the two, and the
 * last one before t_j's read wrote s, by a thread u other than t_i (t_i
 * accessed x no more).  When every write of s to x by another thread
 * lies in a section of M and is followed in that section by a notify of
 * t_i's condition, u held M then, so the write came after t_i's WAIT_PRE
 * (t_i held M from its access to there) and before t_j's section (which
 * holds M up to the read; t_j's own earlier writes are in earlier
 * sections), and u released M in between: the notify ran after t_i
 * began waiting.  A broadcast notified t_i.  A signal notified some
 * wait pending then; when every other thread that ran a wait on that
 * condition stands at one of the k waits, with its section no later than
 * i's, each was in that very wait then (it began before and never ends),
 * so the signal notified a thread the state leaves standing.  Either way
 * a WAIT_POST could run (M is free): the state is not final.  When every
 * order of the k sections has such a pair, the cuts make no final
 * state.
 * workqueue (bench/predict/shapes): the producer stands at `not_full`
 * having read len 32, three consumers at `not_empty` having read 0.  A
 * consumer's section before the producer's: the last write of 32 was a
 * push, which signals `not_empty`, whose other waiters are the two other
 * consumers, standing from the last consumer's section on.  The
 * producer's before a consumer's: the last write of 0 was a pop, which
 * signals `not_full`, whose only waiter is the producer. */

#define ORDER_MAX 5u   /* standing waits of one mutex (orders: 5!) */
#define ORDER_ALL 64u  /* standing waits at a leaf (more: no claim) */
#define ORDER_SCAN 64u /* transitions of a section looked at */

typedef struct standing {
    uint32_t t, q, cv, m; /* thread, position, condition, mutex */
    const vo_cs *sec;
    uint32_t need; /* the others (bits over the group) that ran a wait
                      on cv; UINT32_MAX: a thread outside the group did */
} standing;

/* The rule's answers that do not depend on the cuts, kept over one
 * property's leaves (workqueue 40000: 1,250 stops a thread, 40,000
 * writes of len 0; looked at once per waiting thread and condition, not
 * at every leaf). */
#define MEMO_N 64u
typedef struct memo_note { /* writes_notify's answers: they depend on
                              the waiting thread, its condition and
                              mutex, not on which of its waits */
    uint32_t t, cv, m, x;
    uint64_t val;
    int how;
} memo_note;
typedef struct memo_wait { /* waiters_anywhere's */
    uint32_t cv;
    uint64_t mask;
} memo_wait;
/* pair_refutes' answers by the two waits (direct-mapped: a leaf of the
 * search differs from the one before it in one thread's stop, so most
 * of its pairs were asked just before) */
#define PAIR_SLOTS 4096u
typedef struct memo_pair {
    uint32_t ti, qi, tj, qj;
    int how; /* -1 empty */
} memo_pair;
typedef struct order_memo {
    memo_note note[MEMO_N];
    memo_wait wait[MEMO_N];
    uint32_t nnote, nwait; /* ever stored (slots reused past N) */
    memo_pair pair[PAIR_SLOTS];
} order_memo;

/* Frees the rule's answers kept over the search (cuts_free). */
void stuck_order_free(cuts *s)
{
    free(s->om);
    s->om = NULL;
}

/* t's last access of x in [lo, end): 1 and its value, when it is
 * a plain read or write; 0 none, or another kind. */
static int last_access(const ft_ctm *c, uint32_t t, uint32_t lo, uint32_t end,
                       uint32_t x, uint64_t *val)
{
    for (uint32_t p = end, n = 0; p-- > lo && n < ORDER_SCAN; n++) {
        uint32_t y = ft_ctm_at(c, t, p);
        if (c->obj[y] != x)
            continue;
        if (c->op[y] != FT_OP_READ && c->op[y] != FT_OP_WRITE)
            return 0;
        *val = c->value[y];
        return 1;
    }
    return 0;
}

/* Whether thread t touches x in [lo, hi). */
static int touches(const ft_ctm *c, uint32_t t, uint32_t lo, uint32_t hi,
                   uint32_t x)
{
    for (uint32_t p = lo; p < hi; p++)
        if (c->obj[ft_ctm_at(c, t, p)] == x)
            return 1;
    return 0;
}

/* How every write of val to x by a thread other than i's is followed in
 * its section of m by a notify of i's condition: 1 a broadcast each
 * time (or no such write), 2 a signal some time, 0 not always. */
static int writes_notify_scan(cuts *s, const standing *i, uint32_t m,
                              uint32_t x, uint64_t val)
{
    const ft_ctm *c = s->c;
    const ft_value_order *vo = s->vo;
    int how = 1;
    for (size_t k = vo_write_lower(vo->w, vo->nw, x, val, 0, 0);
         k < vo->nw && vo->w[k].obj == x && vo->w[k].val == val && how; k++) {
        uint32_t w = vo->w[k].id, u = c->tid[w];
        if (--s->order_budget < 0)
            return 0;
        if (u == i->t)
            continue;
        const vo_cs *cs = vo_cs_at(vo, m, u, c->pos[w]);
        if (!cs)
            return 0;
        if (cs->rel == VO_NONE)
            continue; /* u holds m for good once w ran: not the last
                         write before a section of m, m free */
        int here = 0;
        for (uint32_t p = c->pos[w] + 1; p < cs->rel && here != 1; p++) {
            uint32_t y = ft_ctm_at(c, u, p);
            if (p - c->pos[w] > ORDER_SCAN)
                break;
            if (c->obj[y] == i->cv && c->op[y] == FT_OP_NOTIFY_ALL)
                here = 1;
            else if (c->obj[y] == i->cv && c->op[y] == FT_OP_NOTIFY)
                here = 2;
        }
        if (!here)
            how = 0;
        else if (here == 2)
            how = 2;
    }
    return how;
}

static int writes_notify(cuts *s, const standing *i, uint32_t m, uint32_t x,
                         uint64_t val)
{
    order_memo *o = s->om;
    for (uint32_t k = 0; k < o->nnote && k < MEMO_N; k++)
        if (o->note[k].t == i->t && o->note[k].cv == i->cv &&
            o->note[k].m == m && o->note[k].x == x && o->note[k].val == val)
            return o->note[k].how;
    int how = writes_notify_scan(s, i, m, x, val);
    if (s->order_budget >= 0)
        o->note[o->nnote++ % MEMO_N] = (memo_note){i->t, i->cv, m, x, val, how};
    return how;
}

/* i's section before j's: 1 refuted, 2 refuted when i's condition's
 * other waiters' sections came no later, 0 no claim. */
static int pair_refutes(cuts *s, const standing *i, const standing *j,
                        uint32_t m)
{
    const ft_ctm *c = s->c;
    int best = 0;
    uint32_t end = j->q - 1;
    for (uint32_t p = j->sec->acq;
         p < end && p - j->sec->acq < ORDER_SCAN && best != 1; p++) {
        uint32_t y = ft_ctm_at(c, j->t, p), x = c->obj[y];
        uint64_t e;
        if (c->op[y] != FT_OP_READ || x >= c->nvars ||
            c->vars[x].kind != FT_VAR_MEMORY || s->vo->rmw[x] ||
            touches(c, j->t, j->sec->acq, p, x))
            continue; /* not t_j's first access of x in its section */
        if (!last_access(c, i->t, i->sec->acq, i->q - 1, x, &e) ||
            e == c->value[y])
            continue;
        int how = writes_notify(s, i, m, x, c->value[y]);
        if (how == 1 || (how == 2 && !best))
            best = how;
    }
    return best;
}

static int pair_refutes_kept(cuts *s, const standing *i, const standing *j,
                             uint32_t m)
{
    uint32_t h = (i->t * 0x9e3779b1u) ^ (i->q * 0x85ebca6bu) ^
                 (j->t * 0xc2b2ae35u) ^ (j->q * 0x27d4eb2fu);
    memo_pair *e = &s->om->pair[(h ^ h >> 16) % PAIR_SLOTS];
    if (e->how >= 0 && e->ti == i->t && e->qi == i->q && e->tj == j->t &&
        e->qj == j->q)
        return e->how;
    int how = pair_refutes(s, i, j, m);
    if (s->order_budget >= 0)
        *e = (memo_pair){i->t, i->q, j->t, j->q, how};
    return how;
}

/* Whether some order of g[0, k) that begins with order[0, n) (prefix[a]:
 * the bits of order[0..a]) has no pair that refutes it. */
static int order_stands(const standing *g, uint32_t k, int (*pr)[ORDER_MAX],
                        uint32_t *order, uint32_t n, uint32_t *prefix)
{
    if (n == k)
        return 1;
    uint32_t placed = n ? prefix[n - 1] : 0;
    for (uint32_t j = 0; j < k; j++) {
        if (placed >> j & 1)
            continue;
        int refuted = 0;
        for (uint32_t a = 0; a < n && !refuted; a++) {
            uint32_t i = order[a];
            refuted =
                pr[i][j] == 1 || (pr[i][j] == 2 && g[i].need != UINT32_MAX &&
                                  (g[i].need & ~prefix[a]) == 0);
        }
        if (refuted)
            continue;
        order[n] = j;
        prefix[n] = placed | 1u << j;
        if (order_stands(g, k, pr, order, n + 1, prefix))
            return 1;
    }
    return 0;
}

/* The threads that wait on cv somewhere in the trace, as bits;
 * UINT64_MAX: too many threads, or past the budget. */
static uint64_t waiters_anywhere(cuts *s, uint32_t cv)
{
    const ft_ctm *c = s->c;
    const ft_slice_index *ix = s->vo->ix;
    order_memo *o = s->om;
    for (uint32_t k = 0; k < o->nwait && k < MEMO_N; k++)
        if (o->wait[k].cv == cv)
            return o->wait[k].mask;
    uint32_t a = ix->all_first[cv], b = ix->all_first[cv + 1];
    uint64_t mask = 0;
    if (c->nthreads > 64 || (s->order_budget -= (long)(b - a)) < 0)
        return UINT64_MAX;
    for (uint32_t n = a; n < b; n++)
        if (c->op[ix->all[n]] == FT_OP_WAIT_PRE)
            mask |= 1ull << c->tid[ix->all[n]];
    o->wait[o->nwait++ % MEMO_N] = (memo_wait){cv, mask};
    return mask;
}

/* The others of group g[0, k) that may have run a wait on g[i].cv, as
 * bits; UINT32_MAX: a thread outside the group may have. */
static uint32_t waiters_of(cuts *s, const standing *g, uint32_t k, uint32_t i)
{
    uint64_t mask = waiters_anywhere(s, g[i].cv);
    if (mask == UINT64_MAX)
        return UINT32_MAX;
    uint32_t need = 0;
    for (uint32_t v = 0; v < s->c->nthreads; v++) {
        uint32_t in;
        if (!(mask >> v & 1) || v == g[i].t || s->cut[v] == UNSTARTED)
            continue;
        for (in = 0; in < k && g[in].t != v; in++)
            ;
        if (in == k)
            return UINT32_MAX;
        need |= 1u << in;
    }
    return need;
}

/* 1 when no order of the sections of the waits the cuts leave standing
 * (grouped by mutex) lets every one of them stay. */
int stuck_ordered_at_leaf(cuts *s)
{
    const ft_ctm *c = s->c;
    /* the writes by value (vorder.c keeps them when the trace has a
     * condition wait): without them every lookup would find no write of
     * s, which the pair rule takes as "s cannot come back" */
    if (s->order_budget < 0 || !s->vo->w)
        return 0; /* no claim */
    if (!s->om) {
        if (!(s->om = malloc(sizeof *s->om)))
            return 0;
        s->om->nnote = s->om->nwait = 0;
        for (uint32_t i = 0; i < PAIR_SLOTS; i++)
            s->om->pair[i].how = -1;
    }
    standing all[ORDER_ALL], g[ORDER_MAX];
    uint32_t n = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t q = s->cut[t], cv, m;
        const vo_cs *sec =
            q == UNSTARTED ? NULL : standing_wait(s, t, q, &cv, &m);
        if (sec && n == ORDER_ALL)
            return 0; /* no claim */
        if (sec)
            all[n++] = (standing){t, q, cv, m, sec, 0};
    }
    for (uint32_t a = 0; a < n; a++) { /* a group per mutex */
        uint32_t m = all[a].m, k = 0;
        if (m == VO_NONE)
            continue; /* in a group already */
        for (uint32_t b = a; b < n; b++)
            if (all[b].m == m) {
                if (k < ORDER_MAX)
                    g[k] = all[b];
                k++;
                all[b].m = VO_NONE;
            }
        if (k < 2 || k > ORDER_MAX || held_in_state(s, m))
            continue;
        /* each group looked at costs its pairs: on a search that runs
         * to its bound (workqueue 40000's consumers: 2,000,000 leaves,
         * 1.8 us each) the rule stops at its own (workqueue 1000's
         * hardest candidate: 28,000 groups) */
        s->order_budget -= (long)k * k * 4;
        int pr[ORDER_MAX][ORDER_MAX];
        for (uint32_t i = 0; i < k; i++) {
            g[i].need = waiters_of(s, g, k, i);
            for (uint32_t j = 0; j < k; j++)
                pr[i][j] = i == j ? 0 : pair_refutes_kept(s, &g[i], &g[j], m);
        }
        if (s->order_budget < 0)
            return 0;
        uint32_t order[ORDER_MAX], prefix[ORDER_MAX];
        if (!order_stands(g, k, pr, order, 0, prefix))
            return 1;
    }
    return 0;
}

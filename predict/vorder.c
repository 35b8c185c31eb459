/* SPDX-License-Identifier: MIT */
/* vorder.c - the value order: what the recorded values alone force on
 * every schedule the prediction admits (docs/prediction.md, "value
 * order").  Under the data rule a read its thread goes past returns its
 * recorded value, so it follows one of the writes of that value; when
 * every such write follows transition u, so does the read's thread from
 * its next shared transition on (the read's own block may be the last one
 * run, when it may return anything).  With program order, fork/join and
 * mutual exclusion (a critical section that must start before something
 * inside another section of the same lock ends before that section
 * starts, unless both are read holds of an rwlock), condition variables
 * (a woken wait follows one of the other threads' notifies) and
 * semaphores (vorder_sem.c: a wait follows the posts it needs) this is
 * a must-happen-before relation the recorded order
 * extends, so one pass in recorded order computes it as vector clocks.
 * vorder_holds.c decides properties with it, without a solver: on a
 * long lock-heavy trace the windows the solver can take rarely hold both
 * ends of the argument. */
#include "predict/vorder.h"
#include "predict/window.h"

#include <stdlib.h>
#include <string.h>

/* Clock cells kept (rows x threads): past this the order is not built. */
#define VO_MAX_CELLS ((uint64_t)1 << 26)

typedef struct vo_held {
    uint32_t lock, depth, acq, excl;
} vo_held;

typedef struct vo_locks { /* the mutexes and rwlocks a thread holds */
    vo_held *h;
    uint32_t n, cap;
} vo_locks;

/* The mutex or rwlock x acquires (*acq 1) or releases (*acq 0), or
 * VO_NONE. */
uint32_t vo_lock_op(const ft_ctm *c, uint32_t x, int *acq)
{
    switch (c->op[x]) {
    case FT_OP_LOCK:
    case FT_OP_RDLOCK:
    case FT_OP_WRLOCK:
        *acq = 1;
        return c->obj[x];
    case FT_OP_UNLOCK:
    case FT_OP_RWUNLOCK:
        *acq = 0;
        return c->obj[x];
    case FT_OP_WAIT_POST:
        *acq = 1;
        return c->obj2[x];
    case FT_OP_WAIT_PRE:
        *acq = 0;
        return c->obj2[x];
    default:
        return VO_NONE;
    }
}

uint32_t vo_add_held_on_entry(const ft_value_order *v, uint32_t t, uint32_t p,
                              uint32_t *locks, uint32_t n)
{
    const ft_ctm *c = v->c;
    uint32_t gone[VO_MAX_HELD * 4], ngone = 0, added = 0;
    for (uint32_t q = p, walked = 0;
         q-- > 0 && walked < VO_ENTRY_WALK && added < VO_MAX_HELD; walked++) {
        int acq;
        uint32_t lk = vo_lock_op(c, ft_ctm_at(c, t, q), &acq), i;
        if (lk == VO_NONE)
            continue;
        for (i = 0; i < ngone && gone[i] != lk; i++)
            ;
        if (!acq) { /* released later than it was taken: not held */
            if (i == ngone && ngone < sizeof gone / sizeof *gone)
                gone[ngone++] = lk;
            continue;
        }
        if (i < ngone)
            continue;
        for (i = 0; i < n && locks[i] != lk; i++)
            ;
        if (i == n && vo_cs_at(v, lk, t, p)) {
            locks[n++] = lk;
            added++;
        }
    }
    return n;
}

/* Applies x to the held set; a section closed at x goes to *closed
 * (closed->lock VO_NONE if none).  A cond wait releases whatever depth. */
static int track(vo_locks *L, const ft_ctm *c, uint32_t x, vo_cs *closed)
{
    int acq;
    uint32_t lk = vo_lock_op(c, x, &acq), i;
    closed->lock = VO_NONE;
    if (lk == VO_NONE)
        return 0;
    for (i = 0; i < L->n && L->h[i].lock != lk; i++)
        ;
    if (acq) {
        if (i < L->n) {
            L->h[i].depth++;
            return 0;
        }
        if (L->n == L->cap) {
            uint32_t cap = L->cap ? 2 * L->cap : 4;
            vo_held *h = realloc(L->h, sizeof *h * cap);
            if (!h)
                return -1;
            L->h = h;
            L->cap = cap;
        }
        L->h[L->n++] =
            (vo_held){lk, 1, c->pos[x], c->op[x] != FT_OP_RDLOCK};
        return 0;
    }
    if (i == L->n)
        return 0;
    if (c->op[x] == FT_OP_WAIT_PRE || --L->h[i].depth == 0) {
        *closed = (vo_cs){lk, c->tid[x], L->h[i].acq, c->pos[x],
                          L->h[i].excl, VO_NONE};
        L->h[i] = L->h[--L->n];
    }
    return 0;
}

static int cmp_cs(const void *a, const void *b)
{
    const vo_cs *p = a, *q = b;
    if (p->lock != q->lock)
        return p->lock < q->lock ? -1 : 1;
    if (p->tid != q->tid)
        return p->tid < q->tid ? -1 : 1;
    return (p->acq > q->acq) - (p->acq < q->acq);
}

static int push_cs(vo_cs **v, size_t *n, size_t *cap, vo_cs s)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 256;
        vo_cs *p = realloc(*v, sizeof *p * nc);
        if (!p)
            return -1;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = s;
    return 0;
}

/* Every thread's outermost critical sections, sorted. */
static int collect_cs(ft_value_order *v)
{
    const ft_ctm *c = v->c;
    size_t cap = 0;
    vo_locks L = {0};
    int rc = 0;
    for (uint32_t t = 0; t < c->nthreads && !rc; t++) {
        L.n = 0;
        for (uint32_t p = 0; p < c->len[t] && !rc; p++) {
            vo_cs s;
            rc = track(&L, c, ft_ctm_at(c, t, p), &s);
            if (!rc && s.lock != VO_NONE)
                rc = push_cs(&v->cs, &v->ncs, &cap, s);
        }
        for (uint32_t i = 0; i < L.n && !rc; i++)
            rc = push_cs(&v->cs, &v->ncs, &cap,
                         (vo_cs){L.h[i].lock, t, L.h[i].acq, VO_NONE,
                                 L.h[i].excl, VO_NONE});
    }
    free(L.h);
    if (!rc && v->ncs) {
        /* kept for the whole prediction: without the doubling's slack */
        vo_cs *fit = realloc(v->cs, sizeof *fit * v->ncs);
        if (fit)
            v->cs = fit;
        qsort(v->cs, v->ncs, sizeof *v->cs, cmp_cs);
    }
    for (size_t i = 0; !rc && i < v->ncs; i++) {
        vo_cs *s = &v->cs[i];
        int same = i && s[-1].lock == s->lock && s[-1].tid == s->tid;
        s->last_excl = s->excl ? (uint32_t)i
                       : same  ? s[-1].last_excl
                               : VO_NONE;
    }
    return rc;
}

/* The last section of (lock, t) acquired below position lim, or NULL. */
const vo_cs *vo_cs_before(const ft_value_order *v, uint32_t lock, uint32_t t,
                          uint32_t lim)
{
    size_t a = 0, b = v->ncs;
    while (a < b) { /* first entry >= (lock, t, lim) */
        size_t m = a + (b - a) / 2;
        const vo_cs *s = &v->cs[m];
        int less = s->lock != lock ? s->lock < lock
                   : s->tid != t   ? s->tid < t
                                   : s->acq < lim;
        if (less)
            a = m + 1;
        else
            b = m;
    }
    if (a == 0)
        return NULL;
    const vo_cs *s = &v->cs[a - 1];
    return s->lock == lock && s->tid == t ? s : NULL;
}

/* Read holds exclude only write holds; every other pair of sections of
 * one lock excludes each other. */
const vo_cs *vo_cs_excluding(const ft_value_order *v, uint32_t lock,
                             uint32_t t, uint32_t lim, int excl)
{
    const vo_cs *s = vo_cs_before(v, lock, t, lim);
    if (!s || excl)
        return s;
    return s->last_excl == VO_NONE ? NULL : &v->cs[s->last_excl];
}

/* The section of (lock, t) that holds position q, or NULL. */
const vo_cs *vo_cs_at(const ft_value_order *v, uint32_t lock, uint32_t t,
                      uint32_t q)
{
    const vo_cs *s = vo_cs_before(v, lock, t, q + 1);
    return s && (s->rel == VO_NONE || s->rel >= q) ? s : NULL;
}

/* Thread t's clock row in force at position p, NULL before its first. */
const uint32_t *vo_row_at(const ft_value_order *v, uint32_t t, uint32_t p)
{
    uint32_t a = 0, b = v->nrows[t];
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (v->rpos[t][m] <= p)
            a = m + 1;
        else
            b = m;
    }
    return a ? &v->vc[t][(size_t)(a - 1) * v->nt] : NULL;
}

/* How many of thread j's transitions must come before (or be) thread
 * t's transition at position p. */
uint32_t vo_before(const ft_value_order *v, uint32_t t, uint32_t p,
                   uint32_t j)
{
    if (t == j)
        return p + 1;
    const uint32_t *r = vo_row_at(v, t, p);
    return r ? r[j] : 0;
}

static int join(uint32_t *a, const uint32_t *b, uint32_t n)
{
    int ch = 0;
    for (uint32_t j = 0; j < n; j++)
        if (b[j] > a[j]) {
            a[j] = b[j];
            ch = 1;
        }
    return ch;
}

int vo_join_at(const ft_value_order *v, uint32_t *cl, uint32_t t,
               uint32_t p)
{
    const uint32_t *r = vo_row_at(v, t, p);
    int ch = r ? join(cl, r, v->nt) : 0;
    if (cl[t] < p + 1) {
        cl[t] = p + 1;
        ch = 1;
    }
    return ch;
}

static int append_row(ft_value_order *v, uint32_t t, uint32_t p,
                      const uint32_t *cl)
{
    uint32_t nt = v->nt;
    if (v->cells + nt > VO_MAX_CELLS)
        return -1;
    if (v->nrows[t] == v->caprows[t]) {
        uint32_t cap = v->caprows[t] ? 2 * v->caprows[t] : 16;
        uint32_t *vc = realloc(v->vc[t], sizeof *vc * (size_t)cap * nt);
        if (!vc)
            return -1;
        v->vc[t] = vc;
        uint32_t *rp = realloc(v->rpos[t], sizeof *rp * cap);
        if (!rp)
            return -1;
        v->rpos[t] = rp;
        v->caprows[t] = cap;
    }
    memcpy(&v->vc[t][(size_t)v->nrows[t] * nt], cl, sizeof *cl * nt);
    v->rpos[t][v->nrows[t]++] = p;
    v->cells += nt;
    return 0;
}

/* Mutual exclusion: thread t holds the locks in L at its current
 * transition, whose clock is cl.  A section of another thread on one of
 * them that was acquired before cl, and that excludes ours (read holds
 * do not exclude each other), ended before ours began. */
static int lock_rule(const ft_value_order *v, const vo_locks *L, uint32_t x,
                     uint32_t *cl)
{
    const ft_ctm *c = v->c;
    uint32_t t = c->tid[x];
    int any = 0;
    for (int round = 0; round < 8; round++) {
        int ch = 0;
        for (uint32_t i = 0; i < L->n; i++)
            for (uint32_t b = 0; b < v->nt; b++) {
                if (b == t || !cl[b])
                    continue;
                const vo_cs *s = vo_cs_excluding(v, L->h[i].lock, b, cl[b],
                                                 (int)L->h[i].excl);
                /* (a section ending later in the recording would mean
                 * a trace at odds with itself: no claim then) */
                if (s && s->rel != VO_NONE && cl[b] < s->rel + 1 &&
                    ft_ctm_at(c, b, s->rel) < x)
                    ch |= vo_join_at(v, cl, b, s->rel);
            }
        if (!ch)
            break;
        any = 1;
    }
    return any;
}

/* Writes by (object, value, thread, id); notifies with val 0: each
 * thread's first source of a value is one search. */
static int cmp_write(const void *a, const void *b)
{
    const vo_write *p = a, *q = b;
    if (p->obj != q->obj)
        return p->obj < q->obj ? -1 : 1;
    if (p->val != q->val)
        return p->val < q->val ? -1 : 1;
    if (p->tid != q->tid)
        return p->tid < q->tid ? -1 : 1;
    return (p->id > q->id) - (p->id < q->id);
}

void vo_writes_sort(vo_write *w, size_t n)
{
    qsort(w, n, sizeof *w, cmp_write);
}

size_t vo_write_lower(const vo_write *w, size_t n, uint32_t obj,
                      uint64_t val, uint32_t tid, uint32_t id)
{
    size_t a = 0, b = n;
    vo_write key = {obj, id, tid, val};
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (cmp_write(&w[m], &key) < 0)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The id of thread tid's first entry of (obj, val) in w[0, n) at or
 * after id from, or VO_NONE. */
static uint32_t first_of(const vo_write *w, size_t n, uint32_t obj,
                         uint64_t val, uint32_t tid, uint32_t from)
{
    size_t a = vo_write_lower(w, n, obj, val, tid, from);
    return a < n && w[a].obj == obj && w[a].val == val && w[a].tid == tid
               ? w[a].id
               : VO_NONE;
}

/* The meet, into meet, of the clocks of the possible sources first[j]
 * (thread j's first one, VO_NONE for none): clocks only grow along a
 * thread, so its first source stands for all of its.  A source not yet
 * reached counts with its thread's clock so far.  0 when there is none,
 * or none before x in the recording (a trace at odds with itself). */
static int meet_firsts(const ft_value_order *v, const uint32_t *first,
                       const uint32_t *cur, uint32_t x, uint32_t *meet)
{
    const ft_ctm *c = v->c;
    uint32_t nt = v->nt;
    unsigned k = 0;
    int earlier = 0;
    for (uint32_t j = 0; j < nt; j++) {
        uint32_t id = first[j];
        if (id == VO_NONE)
            continue;
        uint32_t pw = c->pos[id];
        const uint32_t *r =
            id < x ? vo_row_at(v, j, pw) : &cur[(size_t)j * nt];
        earlier |= id < x;
        for (uint32_t m = 0; m < nt; m++) {
            uint32_t val = m == j ? pw + 1 : r ? r[m] : 0;
            meet[m] = k == 0 || val < meet[m] ? val : meet[m];
        }
        k++;
    }
    return k && earlier;
}

/* What read x (thread t) returning its recorded value implies: it read
 * one of the writes of that value.  Not one that another write of the
 * variable by the same thread follows, when that later write must
 * precede x: it lies between them in every schedule (whatever it wrote;
 * and x's source is a write that ran with its recorded value, else x's
 * thread stops at x).  So thread j's possible sources begin at its last
 * write of the variable that must precede x.  Nothing when the initial
 * value is that value too and no write must precede x, or when x's own
 * thread's last write before it wrote that value (that write's clock is
 * already its own). */
static int read_meet(const ft_value_order *v, const vo_write *w, size_t nw,
                     const uint32_t *cur, uint32_t x, uint32_t *first,
                     uint32_t *meet)
{
    const ft_ctm *c = v->c;
    const ft_slice_index *ix = v->ix;
    uint32_t obj = c->obj[x], t = c->tid[x];
    const uint32_t *cl = &cur[(size_t)t * v->nt];
    const ft_ctm_var *var = &c->vars[obj];
    if (!var->shared)
        return 0;
    int overwritten = 0;
    for (uint32_t j = 0; j < v->nt; j++) {
        uint32_t from = 0, lim = j == t ? c->pos[x] : cl[j];
        if (ix && lim) {
            uint32_t a = ix->wr_first[obj], b = ix->wr_first[obj + 1];
            uint32_t i = ft_slice_upper(c, ix->wr, a, b, j, lim);
            if (i > a && c->tid[ix->wr[i - 1]] == j) {
                from = ix->wr[i - 1];
                overwritten = 1;
            }
        }
        first[j] = first_of(w, nw, obj, c->value[x], j, from);
    }
    if (var->has_init && var->init == c->value[x] && !overwritten)
        return 0;
    if (first[t] < x)
        return 0;
    first[t] = VO_NONE; /* itself (an RMW), or later in its thread */
    return meet_firsts(v, first, cur, x, meet);
}

/* What wait x (thread t) returning woken, not timed out, implies: a
 * notify of its condition variable by another thread came before it
 * (smt/sync.c). */
static int wake_meet(const ft_value_order *v, const vo_write *notes,
                     size_t nn, const uint32_t *cur, uint32_t x,
                     uint32_t *first, uint32_t *meet)
{
    const ft_ctm *c = v->c;
    for (uint32_t j = 0; j < v->nt; j++)
        first[j] = first_of(notes, nn, c->obj[x], 0, j, 0);
    first[c->tid[x]] = VO_NONE;
    return meet_firsts(v, first, cur, x, meet);
}

/* The pass in recorded order. */
static int compute_clocks(ft_value_order *v, const vo_write *w, size_t nw,
                          const vo_write *notes, size_t nnotes,
                          const vo_sems *sems, double until)
{
    const ft_ctm *c = v->c;
    uint32_t nt = v->nt;
    uint32_t *cur = calloc((size_t)nt * nt + 1, sizeof *cur);
    uint32_t *pend = calloc((size_t)nt * nt + 1, sizeof *pend);
    uint32_t *meet = malloc(sizeof *meet * (nt + 1));
    uint32_t *first = malloc(sizeof *first * (nt + 1));
    uint8_t *haspend = calloc(nt + 1, 1), *dirty = calloc(nt + 1, 1);
    vo_locks *held = calloc(nt + 1, sizeof *held);
    int rc = -1;
    if (!cur || !pend || !meet || !first || !haspend || !dirty || !held)
        goto out;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        /* 3 s at 10^7 events: a bound already near its end is not held
         * up (the caller goes on without the value order) */
        if (until > 0 && (x & 16383) == 0 && ft_predict_now() >= until)
            goto out;
        uint32_t t = c->tid[x], p = c->pos[x], op = c->op[x];
        uint32_t *cl = &cur[(size_t)t * nt];
        int ch = dirty[t];
        dirty[t] = 0;
        if (haspend[t] && ft_ctm_is_shared(c, x)) {
            ch |= join(cl, &pend[(size_t)t * nt], nt);
            memset(&pend[(size_t)t * nt], 0, sizeof *pend * nt);
            haspend[t] = 0;
        }
        if (op == FT_OP_JOIN && c->value[x] < nt) {
            uint32_t k = (uint32_t)c->value[x];
            if (k != t && c->len[k])
                ch |= vo_join_at(v, cl, k, c->len[k] - 1);
        }
        if (op == FT_OP_WAIT_POST && c->value[x] == 0 &&
            wake_meet(v, notes, nnotes, cur, x, first, meet))
            ch |= join(cl, meet, nt);
        if (op == FT_OP_SEM_WAIT)
            ch |= vo_sem_rule(v, sems, x, cl, cl);
        int acq = 0;
        uint32_t lk = vo_lock_op(c, x, &acq);
        vo_cs closed;
        if (lk != VO_NONE && acq && track(&held[t], c, x, &closed))
            goto out;
        if ((ch || (lk != VO_NONE && acq)) && held[t].n)
            ch |= lock_rule(v, &held[t], x, cl);
        if (lk != VO_NONE && !acq && track(&held[t], c, x, &closed))
            goto out;
        cl[t] = p + 1;
        if (ch && append_row(v, t, p, cl))
            goto out;
        if (op == FT_OP_FORK && c->value[x] < nt && c->value[x] != t) {
            uint32_t k = (uint32_t)c->value[x];
            if (join(&cur[(size_t)k * nt], cl, nt))
                dirty[k] = 1;
        }
        if (ft_ctm_reads(c, x) && c->obj[x] < c->nvars &&
            read_meet(v, w, nw, cur, x, first, meet)) {
            join(&pend[(size_t)t * nt], meet, nt);
            haspend[t] = 1;
        }
    }
    rc = 0;
out:
    if (held)
        for (uint32_t t = 0; t < nt; t++)
            free(held[t].h);
    free(held);
    free(cur);
    free(pend);
    free(meet);
    free(first);
    free(haspend);
    free(dirty);
    return rc;
}

void ft_value_order_free(ft_value_order *v)
{
    if (!v)
        return;
    for (uint32_t t = 0; t < v->nt; t++) {
        if (v->vc)
            free(v->vc[t]);
        if (v->rpos)
            free(v->rpos[t]);
    }
    free(v->vc);
    free(v->rpos);
    free(v->nrows);
    free(v->caprows);
    free(v->cs);
    free(v->w);
    free(v->rmw);
    free(v);
}

ft_value_order *ft_value_order_new(const ft_ctm *c, const ft_slice_index *ix)
{
    return ft_value_order_new_until(c, ix, 0);
}

ft_value_order *ft_value_order_new_until(const ft_ctm *c,
                                         const ft_slice_index *ix, double until)
{
    if (until > 0 && ft_predict_now() >= until)
        return NULL;
    ft_value_order *v = calloc(1, sizeof *v);
    vo_write *w = NULL;
    vo_write *notes = NULL;
    vo_sems *sems = NULL;
    if (!v)
        return NULL;
    v->c = c;
    v->ix = ix;
    v->nt = c->nthreads;
    v->vc = calloc(v->nt + 1, sizeof *v->vc);
    v->rpos = calloc(v->nt + 1, sizeof *v->rpos);
    v->nrows = calloc(v->nt + 1, sizeof *v->nrows);
    v->caprows = calloc(v->nt + 1, sizeof *v->caprows);
    if (!v->vc || !v->rpos || !v->nrows || !v->caprows)
        goto fail;
    size_t nw = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        nw += ft_ctm_writes(c, x) && c->obj[x] < c->nvars;
    w = malloc(sizeof *w * (nw + 1));
    if (!w)
        goto fail;
    nw = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (ft_ctm_writes(c, x) && c->obj[x] < c->nvars)
            w[nw++] = (vo_write){c->obj[x], x, c->tid[x],
                                 ft_ctm_written(c, x)};
    vo_writes_sort(w, nw);
    if (!(v->rmw = calloc(c->nvars + 1, 1)))
        goto fail;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (ft_ctm_writes(c, x) && c->obj[x] < c->nvars &&
            c->op[x] != FT_OP_WRITE)
            v->rmw[c->obj[x]] = 1;
    size_t nn = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        nn += c->op[x] == FT_OP_NOTIFY || c->op[x] == FT_OP_NOTIFY_ALL;
    notes = malloc(sizeof *notes * (nn + 1));
    if (!notes)
        goto fail;
    nn = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] == FT_OP_NOTIFY || c->op[x] == FT_OP_NOTIFY_ALL)
            notes[nn++] = (vo_write){c->obj[x], x, c->tid[x], 0};
    vo_writes_sort(notes, nn);
    sems = vo_sems_new(c);
    if (!sems || collect_cs(v) || (until > 0 && ft_predict_now() >= until) ||
        compute_clocks(v, w, nw, notes, nn, sems, until))
        goto fail;
    /* kept for the lost wake-up rules, which look writes up by value at
     * a condition wait (kind_stuck_wake.c): without one, 24 bytes a write
     * given back */
    size_t nwaits = 0;
    for (uint32_t x = 0; x < c->ntrans && !nwaits; x++)
        nwaits += c->op[x] == FT_OP_WAIT_PRE;
    if (nwaits) {
        v->w = w;
        v->nw = nw;
    } else {
        free(w);
    }
    free(notes);
    vo_sems_free(sems);
    return v;
fail:
    free(w);
    free(notes);
    vo_sems_free(sems);
    ft_value_order_free(v);
    return NULL;
}

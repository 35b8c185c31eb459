/* SPDX-License-Identifier: MIT */
/* serial.c - observed serializability: for every region, is the observed
 * trace conflict-serializable when that region is a transaction and every
 * other event is a unary one?  This is the region's causal atomicity (CA)
 * judged on the run itself; a region that fails it is an observed
 * violation and needs no prediction.
 *
 * One pass with vector clocks in the style of AeroDrome (Mathur and
 * Viswanathan, ASPLOS 2020): a clock per thread whose own component counts
 * the thread's events, per object the clock of the last write and the join
 * of the reads since, and per open region the position its first event had.
 * A cycle through region R exists iff some event of R receives, over a
 * conflict or join edge from another thread, a clock that already covers
 * R's first event: some event of R reaches a foreign event that precedes a
 * later event of R.  We keep going after a violation, so every violated
 * region is reported, each with a witness (out, via, in).
 *
 * Why per object "RT": at a write by thread u the check needs only
 * component u of the reads by *other* threads (u's own reads are program
 * order, not a cycle), so each read updates RT[v] = max over readers other
 * than v of their component v.  That keeps the state O(threads) per object
 * instead of a clock per (object, reader).  No allocation per event.
 */
#define _GNU_SOURCE /* qsort_r */
#include "infer/infer.h"

#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX

typedef struct span_ref {
    uint32_t span;
    uint32_t start; /* position of the span's first event in its thread */
} span_ref;

typedef struct thread_state {
    span_ref *active;
    uint32_t nactive, capactive;
    uint32_t minstart; /* least start among active unviolated spans */
    uint64_t last_event;
    int has_events; /* a join of a thread that never ran orders nothing */
} thread_state;

/* Per object, one block (fewer cache misses than parallel arrays):
 * this header, then W, RJ, RT (T words each), then RTidx (T uint64).
 * Versions: ver[t] counts changes of thread t's clock in components other
 * than its own.  When the object's last writer (or last full reader) is t
 * at t's current version, the other components it stored are still t's,
 * so only t's own component needs storing: the common case of a thread
 * touching its own data again costs O(1) instead of O(threads). */
typedef struct obj_head {
    uint32_t wtid, wver; /* last writer (NONE32: none) at version */
    uint32_t rtid, rver; /* last full reader since the write (NONE32: no
                            read since the last write) */
    uint64_t widx;       /* last write's event index */
} obj_head;

typedef struct checker {
    uint32_t T;
    uint32_t *C;      /* T x T thread clocks */
    uint32_t *ver;    /* T: clock versions, see obj_head */
    uint8_t *objs;    /* nobj blocks of stride bytes */
    size_t stride;
    thread_state *th;
    const fi_span *spans;
    uint8_t *violated;
    fi_witness *wit;
    uint32_t *outpos; /* per span: position of the witness's out event */
    long nviolated;
} checker;

static void recompute_min(thread_state *ts, const uint8_t *violated)
{
    uint32_t m = NONE32;
    for (uint32_t k = 0; k < ts->nactive; k++)
        if (!violated[ts->active[k].span] && ts->active[k].start < m)
            m = ts->active[k].start;
    ts->minstart = m;
}

/* Thread t's event idx received clock component kt from foreign event via. */
static void check(checker *c, uint32_t t, uint32_t kt, uint64_t via,
                  uint64_t idx)
{
    thread_state *ts = &c->th[t];
    if (kt < ts->minstart || kt == 0)
        return;
    for (uint32_t k = 0; k < ts->nactive; k++) {
        uint32_t s = ts->active[k].span;
        if (c->violated[s] || kt < ts->active[k].start)
            continue;
        c->violated[s] = 1;
        c->nviolated++;
        c->outpos[s] = kt;
        if (c->wit) {
            c->wit[s].via = via;
            c->wit[s].in = idx;
        }
    }
    recompute_min(ts, c->violated);
}

static inline int join(uint32_t *restrict dst, const uint32_t *restrict src,
                       uint32_t T)
{
    int changed = 0;
    for (uint32_t u = 0; u < T; u++)
        if (src[u] > dst[u]) {
            dst[u] = src[u];
            changed = 1;
        }
    return changed;
}

static int activate(checker *c, uint32_t t, uint32_t s, uint32_t start)
{
    thread_state *ts = &c->th[t];
    if (ts->nactive == ts->capactive) {
        uint32_t cap = ts->capactive ? 2 * ts->capactive : 4;
        span_ref *n = realloc(ts->active, cap * sizeof *n);
        if (!n)
            return -1;
        ts->active = n;
        ts->capactive = cap;
    }
    ts->active[ts->nactive++] = (span_ref){s, start};
    if (start < ts->minstart)
        ts->minstart = start;
    return 0;
}

static void expire(checker *c, uint32_t t, uint64_t idx)
{
    thread_state *ts = &c->th[t];
    uint32_t k = 0, kept = 0;
    for (; k < ts->nactive; k++)
        if (c->spans[ts->active[k].span].last >= idx)
            ts->active[kept++] = ts->active[k];
    if (kept != ts->nactive) {
        ts->nactive = kept;
        recompute_min(ts, c->violated);
    }
}

static int by_first(const void *a, const void *b, void *spans)
{
    const fi_span *s = spans;
    uint64_t x = s[*(const uint32_t *)a].first;
    uint64_t y = s[*(const uint32_t *)b].first;
    return x < y ? -1 : x > y;
}

static void free_checker(checker *c)
{
    free(c->C);
    free(c->ver);
    free(c->objs);
    free(c->outpos);
    if (c->th)
        for (uint32_t t = 0; t < c->T; t++)
            free(c->th[t].active);
    free(c->th);
}

/* Turns each violated span's out position into an event index: violated
 * spans sorted by (thread, position), one cursor per thread, one pass. */
static int by_thread_pos(const void *a, const void *b, void *arg)
{
    const checker *c = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (c->spans[x].tid != c->spans[y].tid)
        return c->spans[x].tid < c->spans[y].tid ? -1 : 1;
    return c->outpos[x] < c->outpos[y] ? -1 : c->outpos[x] > c->outpos[y];
}

static void resolve_out(checker *c, const fi_sev *ev, size_t n, size_t nspans)
{
    if (!c->wit || !c->nviolated)
        return;
    uint32_t *pos = calloc(c->T, sizeof *pos);
    uint32_t *cursor = malloc((size_t)c->T * sizeof *cursor);
    uint32_t *end = calloc(c->T, sizeof *end);
    uint32_t *order = malloc(nspans * sizeof *order);
    if (!pos || !cursor || !end || !order)
        goto out; /* witnesses keep out = 0; the verdicts stand */
    size_t nv = 0;
    for (size_t s = 0; s < nspans; s++)
        if (c->violated[s])
            order[nv++] = (uint32_t)s;
    qsort_r(order, nv, sizeof *order, by_thread_pos, c);
    for (uint32_t t = 0; t < c->T; t++)
        cursor[t] = UINT32_MAX;
    for (size_t k = nv; k-- > 0;) {
        uint32_t t = c->spans[order[k]].tid;
        cursor[t] = (uint32_t)k;
        if (!end[t])
            end[t] = (uint32_t)k + 1;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t t = ev[i].tid, p = ++pos[t];
        while (cursor[t] != UINT32_MAX && cursor[t] < end[t] &&
               c->outpos[order[cursor[t]]] <= p) {
            if (c->outpos[order[cursor[t]]] == p)
                c->wit[order[cursor[t]]].out = i;
            cursor[t]++;
        }
    }
out:
    free(pos);
    free(cursor);
    free(end);
    free(order);
}

long fi_serial_check(const fi_sev *ev, size_t n, uint32_t nthreads,
                     uint32_t nobj, const fi_span *spans, size_t nspans,
                     uint8_t *violated, fi_witness *wit)
{
    checker c;
    memset(&c, 0, sizeof c);
    uint32_t T = c.T = nthreads ? nthreads : 1;
    size_t nobj1 = nobj ? nobj : 1;
    c.spans = spans;
    c.violated = violated;
    c.wit = wit;
    memset(violated, 0, nspans);
    c.C = calloc((size_t)T * T, sizeof *c.C);
    c.stride = sizeof(obj_head) + 3 * (size_t)T * sizeof(uint32_t);
    c.stride = (c.stride + 7) & ~(size_t)7;
    c.stride += (size_t)T * sizeof(uint64_t);
    c.ver = calloc(T, sizeof *c.ver);
    c.objs = nobj1 <= SIZE_MAX / c.stride ? calloc(nobj1, c.stride) : NULL;
    c.th = calloc(T, sizeof *c.th);
    c.outpos = calloc(nspans ? nspans : 1, sizeof *c.outpos);
    uint32_t *order = malloc((nspans ? nspans : 1) * sizeof *order);
    if (!c.C || !c.ver || !c.objs ||
        !c.th || !c.outpos || !order) {
        free(order);
        free_checker(&c);
        return -1;
    }
    for (size_t x = 0; x < nobj1; x++) {
        obj_head *h = (obj_head *)(c.objs + x * c.stride);
        h->wtid = h->rtid = NONE32;
    }
    for (uint32_t t = 0; t < T; t++)
        c.th[t].minstart = NONE32;
    for (size_t s = 0; s < nspans; s++) {
        order[s] = (uint32_t)s;
        if (spans[s].tid >= T || spans[s].first > spans[s].last ||
            spans[s].last >= n || ev[spans[s].first].tid != spans[s].tid) {
            free(order);
            free_checker(&c);
            return -1;
        }
        if (wit)
            wit[s] = (fi_witness){0, 0, 0};
    }
    qsort_r(order, nspans, sizeof *order, by_first, (void *)spans);
    size_t next = 0;

    for (size_t i = 0; i < n; i++) {
        const fi_sev *e = &ev[i];
        uint32_t t = e->tid;
        if (t >= T || (e->op != FI_OP_NONE && e->op <= FI_OP_WRITE &&
                       e->obj >= nobj1) ||
            ((e->op == FI_OP_FORK || e->op == FI_OP_JOIN) && e->obj >= T))
            goto bad;
        uint32_t *Ct = &c.C[(size_t)t * T];
        uint32_t pos = ++Ct[t];
        thread_state *ts = &c.th[t];
        ts->last_event = i;
        ts->has_events = 1;
        if (ts->nactive)
            expire(&c, t, i);
        while (next < nspans && spans[order[next]].first == i)
            if (activate(&c, t, order[next++], pos) < 0)
                goto bad;
        switch (e->op) {
        case FI_OP_READ: {
            obj_head *h = (obj_head *)(c.objs + e->obj * c.stride);
            uint32_t *W = (uint32_t *)(h + 1), *RJ = W + T, *RT = RJ + T;
            uint64_t *RTidx = (uint64_t *)(c.objs + e->obj * c.stride +
                                           c.stride - T * sizeof(uint64_t));
            if (h->wtid != NONE32 && h->wtid != t) {
                check(&c, t, W[t], h->widx, i);
                c.ver[t] += join(Ct, W, T);
            }
            if (h->rtid == t && h->rver == c.ver[t]) {
                RJ[t] = pos; /* the rest is already there */
                break;
            }
            for (uint32_t u = 0; u < T; u++) {
                if (Ct[u] > RJ[u])
                    RJ[u] = Ct[u];
                if (u != t && Ct[u] > RT[u]) {
                    RT[u] = Ct[u];
                    RTidx[u] = i;
                }
            }
            h->rtid = t;
            h->rver = c.ver[t];
            break;
        }
        case FI_OP_WRITE: {
            obj_head *h = (obj_head *)(c.objs + e->obj * c.stride);
            uint32_t *W = (uint32_t *)(h + 1), *RJ = W + T, *RT = RJ + T;
            uint64_t *RTidx = (uint64_t *)(c.objs + e->obj * c.stride +
                                           c.stride - T * sizeof(uint64_t));
            if (h->wtid != NONE32 && h->wtid != t) {
                check(&c, t, W[t], h->widx, i);
                c.ver[t] += join(Ct, W, T);
            }
            if (h->rtid != NONE32) {
                check(&c, t, RT[t], RTidx[t], i);
                c.ver[t] += join(Ct, RJ, T);
                memset(RJ, 0, 2 * T * sizeof *RJ); /* RJ and RT */
            }
            if (h->wtid == t && h->wver == c.ver[t] && h->rtid == NONE32)
                W[t] = pos; /* the rest is already there */
            else
                memcpy(W, Ct, T * sizeof *W);
            h->wtid = t;
            h->wver = c.ver[t];
            h->rtid = NONE32;
            h->widx = i;
            break;
        }
        case FI_OP_FORK:
            c.ver[e->obj] += join(&c.C[(size_t)e->obj * T], Ct, T);
            break;
        case FI_OP_JOIN: {
            const uint32_t *Cu = &c.C[(size_t)e->obj * T];
            if (e->obj != t && c.th[e->obj].has_events) {
                check(&c, t, Cu[t], c.th[e->obj].last_event, i);
                c.ver[t] += join(Ct, Cu, T);
            }
            break;
        }
        default:
            break;
        }
    }
    if (next != nspans)
        goto bad;
    resolve_out(&c, ev, n, nspans);
    long nv = c.nviolated;
    free(order);
    free_checker(&c);
    return nv;
bad:
    free(order);
    free_checker(&c);
    return -1;
}

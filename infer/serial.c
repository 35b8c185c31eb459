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

typedef struct checker {
    uint32_t T;
    uint32_t *C;      /* T x T thread clocks */
    uint32_t *W;      /* nobj x T: last write's clock */
    uint32_t *RJ;     /* nobj x T: join of reads since the last write */
    uint32_t *RT;     /* nobj x T: see the file comment */
    uint64_t *RTidx;  /* nobj x T: the read that set RT */
    uint32_t *wtid;   /* nobj: last writer, NONE32 if none */
    uint64_t *widx;   /* nobj: last write's event index */
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

static inline void join(uint32_t *restrict dst, const uint32_t *restrict src,
                        uint32_t T)
{
    for (uint32_t u = 0; u < T; u++)
        if (src[u] > dst[u])
            dst[u] = src[u];
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
    free(c->W);
    free(c->RJ);
    free(c->RT);
    free(c->RTidx);
    free(c->wtid);
    free(c->widx);
    free(c->outpos);
    if (c->th)
        for (uint32_t t = 0; t < c->T; t++)
            free(c->th[t].active);
    free(c->th);
}

/* Turns each violated span's out position into an event index. */
static void resolve_out(checker *c, const fi_sev *ev, size_t n, size_t nspans)
{
    if (!c->wit || !c->nviolated)
        return;
    uint32_t *pos = calloc(c->T, sizeof *pos);
    uint32_t *order = malloc(nspans * sizeof *order);
    if (!pos || !order) {
        free(pos);
        free(order);
        return; /* witnesses keep out = in; the verdicts stand */
    }
    /* Spans of a thread are visited in event order; out lies in the span. */
    size_t nv = 0;
    for (size_t s = 0; s < nspans; s++)
        if (c->violated[s])
            order[nv++] = (uint32_t)s;
    qsort_r(order, nv, sizeof *order, by_first, (void *)c->spans);
    for (size_t i = 0, k = 0; i < n && k < nv; i++) {
        uint32_t t = ev[i].tid;
        pos[t]++;
        for (size_t j = k; j < nv; j++) {
            uint32_t s = order[j];
            if (c->spans[s].tid == t && c->outpos[s] == pos[t] &&
                c->spans[s].first <= i && i <= c->spans[s].last)
                c->wit[s].out = i;
        }
        while (k < nv && c->spans[order[k]].last < i)
            k++;
    }
    free(pos);
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
    c.W = calloc(nobj1 * T, sizeof *c.W);
    c.RJ = calloc(nobj1 * T, sizeof *c.RJ);
    c.RT = calloc(nobj1 * T, sizeof *c.RT);
    c.RTidx = calloc(nobj1 * T, sizeof *c.RTidx);
    c.wtid = malloc(nobj1 * sizeof *c.wtid);
    c.widx = calloc(nobj1, sizeof *c.widx);
    c.th = calloc(T, sizeof *c.th);
    c.outpos = calloc(nspans ? nspans : 1, sizeof *c.outpos);
    uint32_t *order = malloc((nspans ? nspans : 1) * sizeof *order);
    if (!c.C || !c.W || !c.RJ || !c.RT || !c.RTidx || !c.wtid || !c.widx ||
        !c.th || !c.outpos || !order) {
        free(order);
        free_checker(&c);
        return -1;
    }
    for (size_t x = 0; x < nobj1; x++)
        c.wtid[x] = NONE32;
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
            size_t x = e->obj;
            uint32_t *RJ = &c.RJ[x * T], *RT = &c.RT[x * T];
            uint64_t *RTidx = &c.RTidx[x * T];
            if (c.wtid[x] != NONE32 && c.wtid[x] != t) {
                const uint32_t *W = &c.W[x * T];
                check(&c, t, W[t], c.widx[x], i);
                join(Ct, W, T);
            }
            for (uint32_t u = 0; u < T; u++) {
                if (Ct[u] > RJ[u])
                    RJ[u] = Ct[u];
                if (u != t && Ct[u] > RT[u]) {
                    RT[u] = Ct[u];
                    RTidx[u] = i;
                }
            }
            break;
        }
        case FI_OP_WRITE: {
            size_t x = e->obj;
            uint32_t *W = &c.W[x * T], *RJ = &c.RJ[x * T];
            uint32_t *RT = &c.RT[x * T];
            if (c.wtid[x] != NONE32 && c.wtid[x] != t) {
                check(&c, t, W[t], c.widx[x], i);
                join(Ct, W, T);
            }
            check(&c, t, RT[t], c.RTidx[x * T + t], i);
            join(Ct, RJ, T);
            memcpy(W, Ct, T * sizeof *W);
            memset(RJ, 0, T * sizeof *RJ);
            memset(RT, 0, T * sizeof *RT);
            c.wtid[x] = t;
            c.widx[x] = i;
            break;
        }
        case FI_OP_FORK:
            join(&c.C[(size_t)e->obj * T], Ct, T);
            break;
        case FI_OP_JOIN: {
            const uint32_t *Cu = &c.C[(size_t)e->obj * T];
            if (e->obj != t && c.th[e->obj].has_events) {
                check(&c, t, Cu[t], c.th[e->obj].last_event, i);
                join(Ct, Cu, T);
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

/* SPDX-License-Identifier: MIT */
/* musthb.c - must happen-before: the order between events of different
 * threads that holds in every run of the CTM, not just the observed one.
 * Fork precedes everything of the child, everything of a child precedes its
 * join, and every arrival of a barrier generation precedes every departure
 * from it.  The barrier edges are used only when the barrier's count equals
 * the number of threads that ever arrive at it: then generation g is the
 * g-th arrival of each of them in every run, so the edges are fixed.
 *
 * Clocks change only at those events, so each thread keeps a short list of
 * rows (the clock that holds from a position on), like ctm's must-HB
 * clocks; the region checks look rows up by binary search. */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct barrier_state {
    uint64_t count;     /* from BARRIER_INIT, 0 unknown */
    uint32_t arrived;   /* arrivals in the generation being built */
    uint32_t nthreads;  /* distinct threads that ever arrive */
    uint32_t last_tid;  /* for counting distinct threads (pre-pass) */
    uint32_t *acc, *gen; /* T words each: join of arrivals, open gen */
    int gen_valid;
} barrier_state;

static int add_row(fi_mhb *m, uint32_t t, uint32_t pos, const uint32_t *clk)
{
    if (m->nrows == m->caprows) {
        uint32_t cap = m->caprows ? 2 * m->caprows : 64;
        uint32_t *rt = realloc(m->rtid, cap * sizeof *rt);
        if (rt)
            m->rtid = rt;
        uint32_t *rp = realloc(m->rpos, cap * sizeof *rp);
        if (rp)
            m->rpos = rp;
        uint32_t *rc = realloc(m->rclk, (size_t)cap * m->T * sizeof *rc);
        if (rc)
            m->rclk = rc;
        if (!rt || !rp || !rc)
            return -1;
        m->caprows = cap;
    }
    m->rtid[m->nrows] = t;
    m->rpos[m->nrows] = pos;
    memcpy(&m->rclk[(size_t)m->nrows * m->T], clk, m->T * sizeof *clk);
    m->nrows++;
    return 0;
}

static int join_into(uint32_t *dst, const uint32_t *src, uint32_t T)
{
    int changed = 0;
    for (uint32_t u = 0; u < T; u++)
        if (src[u] > dst[u]) {
            dst[u] = src[u];
            changed = 1;
        }
    return changed;
}

/* Barrier objects and how many distinct threads arrive at each. */
static int scan_barriers(const fi_trace *t, fi_u64map *map,
                         barrier_state **bs, uint32_t *nb, uint32_t T)
{
    uint32_t cap = 0;
    uint8_t *seen = NULL; /* nb x T, grown with bs */
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        if (e->kind != FT_EV_BARRIER_INIT && e->kind != FT_EV_BARRIER_ARRIVE)
            continue;
        int added;
        uint32_t b = fi_u64map_intern(map, e->addr, *nb, &added);
        if (b == UINT32_MAX)
            goto nomem;
        if (added) {
            if (*nb == cap) {
                cap = cap ? 2 * cap : 8;
                barrier_state *n = realloc(*bs, cap * sizeof *n);
                if (!n)
                    goto nomem;
                *bs = n;
                uint8_t *s = realloc(seen, (size_t)cap * T);
                if (!s)
                    goto nomem;
                seen = s;
            }
            memset(&(*bs)[*nb], 0, sizeof **bs);
            memset(&seen[(size_t)*nb * T], 0, T);
            (*nb)++;
        }
        if (e->kind == FT_EV_BARRIER_INIT) {
            (*bs)[b].count = e->value;
        } else if (!seen[(size_t)b * T + e->tid]) {
            seen[(size_t)b * T + e->tid] = 1;
            (*bs)[b].nthreads++;
        }
    }
    free(seen);
    return 0;
nomem:
    free(seen);
    return -1;
}

int fi_mhb_build(fi_mhb *m, const fi_trace *t)
{
    memset(m, 0, sizeof *m);
    uint32_t T = m->T = t->nthreads ? t->nthreads : 1;
    m->pos = malloc((t->nev ? t->nev : 1) * sizeof *m->pos);
    uint32_t *C = calloc((size_t)T * T, sizeof *C);
    uint32_t *pending = calloc((size_t)T * T, sizeof *pending);
    uint8_t *has_pending = calloc(T, 1), *started = calloc(T, 1);
    fi_u64map bmap = {0};
    barrier_state *bs = NULL;
    uint32_t nb = 0;
    int rc = -1;
    if (!m->pos || !C || !pending || !has_pending || !started ||
        scan_barriers(t, &bmap, &bs, &nb, T) < 0)
        goto out;
    for (uint32_t b = 0; b < nb; b++) {
        bs[b].acc = calloc(T, sizeof *bs[b].acc);
        bs[b].gen = calloc(T, sizeof *bs[b].gen);
        if (!bs[b].acc || !bs[b].gen)
            goto out;
    }
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        uint32_t tid = e->tid;
        uint32_t *Ct = &C[(size_t)tid * T];
        uint32_t p = m->pos[i] = ++Ct[tid];
        int changed = 0;
        if (!started[tid]) {
            started[tid] = 1;
            if (has_pending[tid])
                join_into(Ct, &pending[(size_t)tid * T], T);
            changed = 1;
        }
        switch (e->kind) {
        case FT_EV_THREAD_CREATE:
            if (e->value < T && !started[e->value]) {
                join_into(&pending[(size_t)e->value * T], Ct, T);
                has_pending[e->value] = 1;
            }
            break;
        case FT_EV_THREAD_JOIN:
            if (e->value < T && e->value != tid && started[e->value])
                changed |= join_into(Ct, &C[(size_t)e->value * T], T);
            break;
        case FT_EV_BARRIER_ARRIVE: {
            uint32_t b = fi_u64map_get(&bmap, e->addr);
            barrier_state *s = &bs[b];
            if (!s->count || s->count != s->nthreads)
                break; /* generations are not fixed: no edges */
            join_into(s->acc, Ct, T);
            if (++s->arrived == s->count) {
                memcpy(s->gen, s->acc, T * sizeof *s->acc);
                memset(s->acc, 0, T * sizeof *s->acc);
                s->arrived = 0;
                s->gen_valid = 1;
            }
            break;
        }
        case FT_EV_BARRIER_LEAVE: {
            uint32_t b = fi_u64map_get(&bmap, e->addr);
            if (b != UINT32_MAX && bs[b].gen_valid)
                changed |= join_into(Ct, bs[b].gen, T);
            break;
        }
        default:
            break;
        }
        /* The new clock holds from this event on (a join or a departure
         * comes after what it waited for). */
        if (changed && add_row(m, tid, p, Ct) < 0)
            goto out;
    }
    /* Group rows by thread (stable: positions stay increasing). */
    m->first = calloc((size_t)T + 1, sizeof *m->first);
    uint32_t *order = malloc((m->nrows ? m->nrows : 1) * sizeof *order);
    if (!m->first || !order) {
        free(order);
        goto out;
    }
    for (uint32_t r = 0; r < m->nrows; r++)
        m->first[m->rtid[r] + 1]++;
    for (uint32_t u = 0; u < T; u++)
        m->first[u + 1] += m->first[u];
    uint32_t *fill = malloc((size_t)T * sizeof *fill);
    if (!fill) {
        free(order);
        goto out;
    }
    memcpy(fill, m->first, T * sizeof *fill);
    for (uint32_t r = 0; r < m->nrows; r++)
        order[fill[m->rtid[r]]++] = r;
    free(fill);
    m->order = order;
    rc = 0;
out:
    for (uint32_t b = 0; b < nb; b++) {
        free(bs[b].acc);
        free(bs[b].gen);
    }
    free(bs);
    fi_u64map_free(&bmap);
    free(C);
    free(pending);
    free(has_pending);
    free(started);
    return rc;
}

/* One past thread t's last row that holds at position pos (rpos <= pos):
 * an index into order[first[t] .. first[t + 1]]; first[t] if none holds. */
static uint32_t row_end(const fi_mhb *m, uint32_t t, uint32_t pos)
{
    uint32_t lo = m->first[t], hi = m->first[t + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->rpos[m->order[mid]] <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* How many of thread u's events must precede thread t's event at pos. */
uint32_t fi_mhb_before_count(const fi_mhb *m, uint32_t t, uint32_t pos,
                             uint32_t u)
{
    if (t == u)
        return pos - 1;
    uint32_t end = row_end(m, t, pos);
    if (end == m->first[t])
        return 0;
    return m->rclk[(size_t)m->order[end - 1] * m->T + u];
}

uint32_t fi_mhb_first_after(const fi_mhb *m, uint32_t u, uint32_t t,
                            uint32_t tpos)
{
    if (u == t)
        return tpos + 1;
    /* clocks grow along u's rows: the first row that covers tpos */
    uint32_t lo = m->first[u], hi = m->first[u + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->rclk[(size_t)m->order[mid] * m->T + t] < tpos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->first[u + 1] ? m->rpos[m->order[lo]] : UINT32_MAX;
}

int fi_mhb_ordered(const fi_mhb *m, const fi_trace *t, uint64_t x,
                   uint64_t y)
{
    uint32_t tx = t->ev[x].tid, ty = t->ev[y].tid;
    if (tx == ty)
        return x < y;
    return m->pos[x] <= fi_mhb_before_count(m, ty, m->pos[y], tx);
}

int fi_mhb_solo(const fi_mhb *m, const fi_trace *t, uint8_t *solo)
{
    uint32_t T = m->T;
    uint32_t *nev = calloc(T, sizeof *nev);
    uint8_t *begun = calloc(T, 1);
    uint32_t *cache_row = malloc((size_t)T * sizeof *cache_row);
    uint32_t *cache_begun = malloc((size_t)T * sizeof *cache_begun);
    uint8_t *cache_solo = calloc(T, 1);
    if (!nev || !begun || !cache_row || !cache_begun || !cache_solo) {
        free(nev);
        free(begun);
        free(cache_row);
        free(cache_begun);
        free(cache_solo);
        return -1;
    }
    /* A thread that no event creates (main, or every thread of a trace
     * without THREAD_CREATE events) may run from the start. */
    for (uint32_t u = 0; u < T; u++)
        begun[u] = 1;
    for (size_t i = 0; i < t->nev; i++) {
        nev[t->ev[i].tid] = m->pos[i];
        if (t->ev[i].kind == FT_EV_THREAD_CREATE && t->ev[i].value < T)
            begun[t->ev[i].value] = 0;
    }
    memset(cache_row, 0xff, (size_t)T * sizeof *cache_row);
    uint32_t nbegun = 0;
    for (uint32_t u = 0; u < T; u++)
        nbegun += begun[u];
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        uint32_t u = e->tid;
        if (!begun[u]) {
            begun[u] = 1;
            nbegun++;
        }
        /* The answer changes only with u's clock row or the threads
         * begun; rows are few (forks, joins, barriers). */
        uint32_t row = row_end(m, u, m->pos[i]);
        if (cache_row[u] != row || cache_begun[u] != nbegun) {
            int all = 1;
            for (uint32_t w = 0; w < T && all; w++)
                if (w != u && begun[w])
                    all = fi_mhb_before_count(m, u, m->pos[i], w) >= nev[w];
            cache_row[u] = row;
            cache_begun[u] = nbegun;
            cache_solo[u] = (uint8_t)all;
        }
        solo[i] = cache_solo[u];
        if (e->kind == FT_EV_THREAD_CREATE && e->value < T && !begun[e->value]) {
            begun[e->value] = 1;
            nbegun++;
        }
    }
    free(nev);
    free(begun);
    free(cache_row);
    free(cache_begun);
    free(cache_solo);
    return 0;
}

void fi_mhb_free(fi_mhb *m)
{
    free(m->pos);
    free(m->rtid);
    free(m->rpos);
    free(m->rclk);
    free(m->first);
    free(m->order);
    memset(m, 0, sizeof *m);
}

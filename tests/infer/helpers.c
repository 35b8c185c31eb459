/* SPDX-License-Identifier: MIT */
/* helpers.c - see helpers.h.  The oracle deliberately shares nothing with
 * infer/serial.c: it builds the dependence graph edge by edge and searches
 * it, so a bug in the clocks cannot hide in both. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

uint64_t ev_add2(fi_trace *t, uint32_t tid, unsigned kind, uint32_t site,
                 uint64_t addr, uint64_t obj2, uint64_t value)
{
    ft_event e;
    memset(&e, 0, sizeof e);
    e.tid = tid;
    e.kind = (uint16_t)kind;
    e.site = site;
    e.addr = addr;
    e.obj2 = obj2;
    e.value = value;
    if (kind == FT_EV_READ || kind == FT_EV_WRITE)
        e.size = 8;
    if (fi_trace_add(t, &e) < 0)
        abort();
    return t->nev - 1;
}

uint64_t ev_add(fi_trace *t, uint32_t tid, unsigned kind, uint32_t site,
                uint64_t addr)
{
    return ev_add2(t, tid, kind, site, addr, 0, 0);
}

/* Is there a dependence edge from event i to event j (i < j)? */
static int edge(const fi_sev *ev, size_t n, size_t i, size_t j)
{
    const fi_sev *a = &ev[i], *b = &ev[j];
    if (a->tid == b->tid)
        return 1;
    if (a->op == FI_OP_FORK && a->obj == b->tid)
        return 1; /* fork precedes everything of the child */
    if (b->op == FI_OP_JOIN && b->obj == a->tid)
        return 1; /* everything of the child precedes the join */
    int ra = a->op == FI_OP_READ || a->op == FI_OP_WRITE;
    int rb = b->op == FI_OP_READ || b->op == FI_OP_WRITE;
    (void)n;
    return ra && rb && a->obj == b->obj &&
           (a->op == FI_OP_WRITE || b->op == FI_OP_WRITE);
}

int oracle_violated(const fi_sev *ev, size_t n, const fi_span *span)
{
    char *in = calloc(n, 1), *reach = calloc(n, 1);
    for (size_t i = span->first; i <= span->last; i++)
        in[i] = ev[i].tid == span->tid;
    /* Paths leaving the transaction node... */
    for (size_t i = 0; i < n; i++)
        if (in[i])
            for (size_t j = i + 1; j < n; j++)
                if (!in[j] && edge(ev, n, i, j))
                    reach[j] = 1;
    /* ...and whether one comes back to it. */
    int cycle = 0;
    for (size_t j = 0; j < n && !cycle; j++) {
        if (!reach[j])
            continue;
        for (size_t k = j + 1; k < n; k++) {
            if (!edge(ev, n, j, k))
                continue;
            if (in[k]) {
                cycle = 1;
                break;
            }
            reach[k] = 1;
        }
    }
    free(in);
    free(reach);
    return cycle;
}

uint64_t rnd_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

uint32_t rnd_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rnd_next(s) % n);
}

const fi_region *find_region(const fi_analysis *a, uint32_t tid,
                             uint64_t first, uint64_t last)
{
    for (size_t k = 0; k < a->nregions; k++)
        if (a->regions[k].tid == tid && a->regions[k].first == first &&
            a->regions[k].last == last)
            return &a->regions[k];
    return NULL;
}

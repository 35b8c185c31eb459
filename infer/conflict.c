/* SPDX-License-Identifier: MIT */
/* conflict.c - which of a region's accesses can conflict with another
 * thread's access that may run concurrently with the region, i.e. is not
 * ordered before or after it by must happen-before in every run.  Used to
 * tell trivially atomic and conflict-free regions apart and by the mover
 * (reduction) proof. */
#include "infer/internal.h"

#include <stdlib.h>
#include <string.h>

/* Does event i (with its variable v) depend on another thread's events? */
int fi_conflicts_outside(const fi_analysis *a, const fi_access *acc,
                         uint32_t v, uint32_t tid)
{
    if (acc->op == FI_OP_FORK || acc->op == FI_OP_JOIN)
        return 1;
    if (v == UINT32_MAX)
        return 0;
    const fi_var *x = &a->vars[v];
    if (acc->op == FI_OP_READ)
        return x->written && (x->multiw || x->wtid0 != tid);
    return x->multi || x->tid0 != tid;
}

/* Is event e a failed try on its object (it observed the object held)? */
int fi_failed_try(const fi_event *e)
{
    if (e->rc == 0)
        return 0;
    return e->kind == FT_EV_MUTEX_LOCK || e->kind == FT_EV_RW_RDLOCK ||
           e->kind == FT_EV_RW_WRLOCK || e->kind == FT_EV_SEM_WAIT;
}

enum group { ALL, WRITES, TRIES };

static int in_group(const fi_trace *t, const fi_event *e, enum group which)
{
    if (which == ALL)
        return 1;
    if (which == TRIES)
        return fi_failed_try(e);
    fi_access acc;
    fi_classify(t, e, &acc);
    return acc.op == FI_OP_WRITE;
}

/* The events of one group sorted by variable, then thread, then trace
 * order (two stable counting sorts), so that the events of one thread on
 * one variable are a run of increasing positions. */
static int group_by_var(const fi_analysis *a, enum group which,
                        uint32_t **startp, uint64_t **accp)
{
    const fi_trace *t = a->trace;
    uint32_t T = t->nthreads ? t->nthreads : 1;
    uint32_t *start = calloc((size_t)a->nvars + 1, sizeof *start);
    size_t *tfill = calloc((size_t)T + 1, sizeof *tfill);
    *startp = start;
    *accp = NULL;
    if (!start || !tfill) {
        free(tfill);
        return -1;
    }
    size_t total = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (a->var_of[i] != UINT32_MAX && in_group(t, &t->ev[i], which)) {
            start[a->var_of[i] + 1]++;
            tfill[t->ev[i].tid + 1]++;
            total++;
        }
    uint64_t *bytid = malloc((total ? total : 1) * sizeof *bytid);
    uint64_t *acc = *accp = malloc((total ? total : 1) * sizeof *acc);
    uint32_t *fill = malloc(((size_t)a->nvars + 1) * sizeof *fill);
    if (!bytid || !acc || !fill) {
        free(bytid);
        free(fill);
        free(tfill);
        return -1;
    }
    for (uint32_t u = 0; u < T; u++)
        tfill[u + 1] += tfill[u];
    for (size_t i = 0; i < t->nev; i++)
        if (a->var_of[i] != UINT32_MAX && in_group(t, &t->ev[i], which))
            bytid[tfill[t->ev[i].tid]++] = i;
    for (uint32_t v = 0; v < a->nvars; v++)
        start[v + 1] += start[v];
    memcpy(fill, start, (size_t)a->nvars * sizeof *fill);
    for (size_t k = 0; k < total; k++)
        acc[fill[a->var_of[bytid[k]]]++] = bytid[k];
    free(bytid);
    free(fill);
    free(tfill);
    return 0;
}

int fi_by_var_build(const fi_analysis *a, fi_by_var *g)
{
    if (group_by_var(a, ALL, &g->start, &g->acc) < 0 ||
        group_by_var(a, WRITES, &g->wstart, &g->wacc) < 0 ||
        group_by_var(a, TRIES, &g->fstart, &g->facc) < 0)
        return -1;
    return 0;
}

/* Is one of list[lo, hi) (sorted by thread, then position) an event of
 * another thread u than r's that is not ordered before or after r in
 * every run?  u's events that must precede r's first event are a prefix
 * of u, those that must follow r's last a suffix: per thread, binary
 * searches find whether one of its events lies in between. */
int fi_concurrent_in(const fi_analysis *a, const fi_mhb *m,
                     const fi_region *r, const uint64_t *list, uint32_t lo,
                     uint32_t hi)
{
    const fi_trace *t = a->trace;
    uint32_t pfirst = m->pos[r->first], plast = m->pos[r->last];
    while (lo < hi) {
        uint32_t u = t->ev[list[lo]].tid;
        uint32_t a0 = lo, b0 = hi; /* end of u's run */
        while (a0 < b0) {
            uint32_t mid = a0 + (b0 - a0) / 2;
            if (t->ev[list[mid]].tid <= u)
                a0 = mid + 1;
            else
                b0 = mid;
        }
        uint32_t end = a0;
        if (u != r->tid) {
            uint32_t before = fi_mhb_before_count(m, r->tid, pfirst, u);
            uint32_t after = fi_mhb_first_after(m, u, r->tid, plast);
            a0 = lo, b0 = end; /* u's first event past `before` */
            while (a0 < b0) {
                uint32_t mid = a0 + (b0 - a0) / 2;
                if (m->pos[list[mid]] <= before)
                    a0 = mid + 1;
                else
                    b0 = mid;
            }
            if (a0 < end && m->pos[list[a0]] < after)
                return 1;
        }
        lo = end;
    }
    return 0;
}

/* Can an access of r (op on v) conflict with another thread's access that
 * is not ordered before or after r in every run?  A read conflicts with
 * writes only, a write with every access. */
int fi_concurrent_conflict(const fi_analysis *a, const fi_mhb *m,
                           const fi_by_var *g, const fi_region *r, uint32_t v,
                           unsigned op)
{
    if (op == FI_OP_WRITE)
        return fi_concurrent_in(a, m, r, g->acc, g->start[v],
                                g->start[v + 1]);
    return fi_concurrent_in(a, m, r, g->wacc, g->wstart[v], g->wstart[v + 1]);
}

void fi_by_var_free(fi_by_var *g)
{
    free(g->start);
    free(g->acc);
    free(g->wstart);
    free(g->wacc);
    free(g->fstart);
    free(g->facc);
    memset(g, 0, sizeof *g);
}

/* conflict.c - which of a region's accesses can conflict with another
 * thread's access that may run concurrently with the region, i.e. is not
 * ordered before or after it by must happen-before in every run.  Used to
 * tell trivially atomic and conflict-free regions apart and by the mover
 * (reduction) proof. */
#include "infer/internal.h"

#include <stdlib.h>
#include <string.h>

/* Accesses grouped by variable, for the concurrency-aware conflict test:
 * acc[start[v] .. start[v + 1]) are v's accesses in trace order. */
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

int fi_by_var_build(const fi_analysis *a, fi_by_var *g)
{
    const fi_trace *t = a->trace;
    g->start = calloc((size_t)a->nvars + 1, sizeof *g->start);
    size_t total = 0;
    for (size_t i = 0; i < t->nev; i++)
        total += a->var_of[i] != UINT32_MAX;
    g->acc = malloc((total ? total : 1) * sizeof *g->acc);
    uint32_t *fill = malloc(((size_t)a->nvars + 1) * sizeof *fill);
    if (!g->start || !g->acc || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < t->nev; i++)
        if (a->var_of[i] != UINT32_MAX)
            g->start[a->var_of[i] + 1]++;
    for (uint32_t v = 0; v < a->nvars; v++)
        g->start[v + 1] += g->start[v];
    memcpy(fill, g->start, (size_t)a->nvars * sizeof *fill);
    for (size_t i = 0; i < t->nev; i++)
        if (a->var_of[i] != UINT32_MAX)
            g->acc[fill[a->var_of[i]]++] = i;
    free(fill);
    return 0;
}

/* Beyond this many accesses to one variable, assume a concurrent conflict
 * rather than scan (keeps the check linear on hot variables). */
#define MAX_SCAN 4096

/* Can an access of r (op on v) conflict with another thread's access that
 * is not ordered before or after r in every run? */
int fi_concurrent_conflict(const fi_analysis *a, const fi_mhb *m,
                           const fi_by_var *g, const fi_region *r, uint32_t v,
                           unsigned op)
{
    uint32_t lo = g->start[v], hi = g->start[v + 1];
    if (hi - lo > MAX_SCAN)
        return 1;
    const fi_trace *t = a->trace;
    for (uint32_t k = lo; k < hi; k++) {
        uint64_t x = g->acc[k];
        if (t->ev[x].tid == r->tid)
            continue;
        fi_access acc;
        fi_classify(&t->ev[x], &acc);
        if (op != FI_OP_WRITE && acc.op != FI_OP_WRITE)
            continue;
        if (!fi_mhb_ordered(m, t, x, r->first) &&
            !fi_mhb_ordered(m, t, r->last, x))
            return 1;
    }
    return 0;
}

void fi_by_var_free(fi_by_var *g)
{
    free(g->start);
    free(g->acc);
    g->start = NULL;
    g->acc = NULL;
}

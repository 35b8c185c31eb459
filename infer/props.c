/* SPDX-License-Identifier: MIT */
/* props.c - atomicity properties from the regions left open (paper section
 * VI): one causal atomicity property CA(r) per open region, and one causal
 * mutual atomicity property CMA(r1, r2) per pair of open regions of
 * different threads with at least two conflicting event pairs.  Pairs whose
 * regions are ordered by must happen-before (fork, join, fixed barrier
 * generations: musthb.c) can never interleave and get no property.
 * Conflicts are counted on shared data variables only: lock operations
 * conflict by construction and would pair every two critical sections of a
 * lock.
 *
 * Counting goes region by region, over the later touches of each variable
 * the region touches, so the cost is the number of (region, region) pairs
 * that share a variable, not all pairs, and the memory one region's. */
#include "infer/internal.h"
#include "infer/u32pool.h"

#include <stdlib.h>
#include <string.h>

typedef struct touch {
    uint32_t region;
    uint32_t reads, writes;
} touch;

/* One variable's contribution to the pair (region being paired, r2). */
typedef struct contrib {
    uint32_t r2, var;
    uint64_t conflicts;
} contrib;

/* Regions x and y can never interleave: one's last event must happen
 * before the other's first. */
static int ordered(const fi_analysis *a, const fi_mhb *m, uint32_t x,
                   uint32_t y)
{
    const fi_region *rx = &a->regions[x], *ry = &a->regions[y];
    return fi_mhb_ordered(m, a->trace, rx->last, ry->first) ||
           fi_mhb_ordered(m, a->trace, ry->last, rx->first);
}

static int add_prop(fi_analysis *a, size_t *cap, const fi_property *p)
{
    if (a->nprops == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        fi_property *np = realloc(a->props, n * sizeof *np);
        if (!np)
            return -1;
        a->props = np;
        *cap = n;
    }
    a->props[a->nprops++] = *p;
    return 0;
}

/* The touches of the open regions: grouped by variable (CSR: tl[start[v]
 * .. start[v+1]), in region order) and listed per region (rtouch[rstart[k]
 * .. rstart[k+1]): positions in tl, tvar[pos] the variable of tl[pos]). */
typedef struct touches {
    uint32_t *start, *rstart, *rtouch, *tvar, *next;
    touch *tl;
} touches;

static void touches_free(touches *g)
{
    free(g->start);
    free(g->rstart);
    free(g->rtouch);
    free(g->tvar);
    free(g->next);
    free(g->tl);
}

static int group_touches(const fi_analysis *a, touches *g)
{
    const fi_trace *t = a->trace;
    uint32_t nv = a->nvars;
    uint32_t *count = calloc((size_t)nv + 1, sizeof *count);
    if (!count)
        return -1;
    size_t total = 0;
    for (size_t k = 0; k < a->nregions; k++)
        if (a->regions[k].status == FI_ST_OPEN)
            for (uint32_t j = 0; j < a->regions[k].nvars; j++) {
                count[a->regions[k].vars[j]]++;
                total++;
            }
    g->start = malloc(((size_t)nv + 1) * sizeof *g->start);
    g->rstart = malloc((a->nregions + 1) * sizeof *g->rstart);
    g->rtouch = malloc((total ? total : 1) * sizeof *g->rtouch);
    g->tvar = malloc((total ? total : 1) * sizeof *g->tvar);
    g->next = malloc((total ? total : 1) * sizeof *g->next);
    g->tl = calloc(total ? total : 1, sizeof *g->tl);
    uint32_t *slot = calloc(nv ? nv : 1, sizeof *slot); /* region+1 */
    uint32_t *fillpos = malloc((nv ? nv : 1) * sizeof *fillpos);
    if (!g->start || !g->rstart || !g->rtouch || !g->tvar || !g->next ||
        !g->tl || !slot || !fillpos) {
        free(count);
        free(slot);
        free(fillpos);
        return -1;
    }
    uint32_t *start = g->start;
    touch *tl = g->tl;
    start[0] = 0;
    for (uint32_t v = 0; v < nv; v++)
        start[v + 1] = start[v] + count[v];
    memcpy(fillpos, start, nv * sizeof *start);
    uint32_t nr = 0;
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        g->rstart[k] = nr;
        if (r->status != FI_ST_OPEN)
            continue;
        for (uint64_t i = r->first; i <= r->last; i++) {
            const fi_event *e = &t->ev[i];
            uint32_t v = a->var_of[i];
            if (e->tid != r->tid || v == UINT32_MAX || !a->vars[v].multi ||
                a->vars[v].sync)
                continue;
            fi_access acc;
            fi_classify(t, e, &acc);
            if (!acc.data)
                continue;
            uint32_t pos;
            if (slot[v] != k + 1) {
                slot[v] = (uint32_t)k + 1;
                pos = fillpos[v]++;
                tl[pos].region = (uint32_t)k;
                g->tvar[pos] = v;
                g->rtouch[nr++] = pos;
            } else {
                pos = fillpos[v] - 1;
            }
            if (acc.op == FI_OP_WRITE)
                tl[pos].writes++;
            else
                tl[pos].reads++;
        }
    }
    g->rstart[a->nregions] = nr;
    /* next[i]: the next touch of i's variable by another thread than touch
     * i's (a region's thread that ran alone for long touches a variable
     * many times in a row: skipping them one by one was quadratic) */
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t i = start[v + 1]; i-- > start[v];)
            g->next[i] = i + 1 == start[v + 1] ? start[v + 1]
                         : a->regions[tl[i + 1].region].tid !=
                                 a->regions[tl[i].region].tid
                             ? i + 1
                             : g->next[i + 1];
    free(count);
    free(slot);
    free(fillpos);
    return 0;
}

static int contrib_cmp(const void *pa, const void *pb)
{
    const contrib *x = pa, *y = pb;
    if (x->r2 != y->r2)
        return x->r2 < y->r2 ? -1 : 1;
    return (x->var > y->var) - (x->var < y->var);
}

/* The conflicts of touch i (region x, variable v) with the later touches
 * of v by other regions: appended to *cs.  A variable touched by a few
 * regions: every pair.  One that long traces touch from thousands of
 * regions: each region with the next FI_CMA_WINDOW regions of other
 * threads (trace order); all pairs would be quadratic (10^10 on a
 * 10^6-event lock-heavy run) and the near ones are those a schedule
 * reaches with the fewest reorderings (docs/infer.md). */
static int pair_touch(fi_analysis *a, const touches *g, uint32_t i,
                      contrib **cs, size_t *ncs, size_t *capcs)
{
    uint32_t v = g->tvar[i], end = g->start[v + 1];
    int windowed = end - g->start[v] > 2 * FI_CMA_WINDOW;
    uint32_t others = 0, ti = a->regions[g->tl[i].region].tid;
    for (uint32_t j = g->next[i]; j < end;
         j = a->regions[g->tl[j].region].tid == ti ? g->next[j] : j + 1) {
        const touch *x = &g->tl[i], *y = &g->tl[j];
        if (a->regions[y->region].tid == ti)
            continue;
        if (windowed && ++others > FI_CMA_WINDOW) {
            a->ncma_window_skipped += end - j;
            break;
        }
        uint64_t c = (uint64_t)x->writes * y->writes +
                     (uint64_t)x->writes * y->reads +
                     (uint64_t)x->reads * y->writes;
        if (!c)
            continue;
        if (*ncs == *capcs) {
            size_t n = *capcs ? 2 * *capcs : 256;
            contrib *nc = realloc(*cs, n * sizeof *nc);
            if (!nc)
                return -1;
            *cs = nc;
            *capcs = n;
        }
        (*cs)[(*ncs)++] = (contrib){y->region, v, c};
    }
    return 0;
}

/* Region x's CMA properties: its pairs with later regions, in region
 * order, each with its variables in variable order.  Past max_cma a pair
 * is only counted (ncma_dropped). */
static int region_pairs(fi_analysis *a, const fi_mhb *m, uint32_t x,
                        contrib *cs, size_t ncs, size_t *ncma, size_t *cap)
{
    if (ncs > 1)
        qsort(cs, ncs, sizeof *cs, contrib_cmp);
    for (size_t s = 0, e; s < ncs; s = e) {
        uint64_t conflicts = 0;
        for (e = s; e < ncs && cs[e].r2 == cs[s].r2; e++)
            conflicts += cs[e].conflicts;
        if (conflicts < 2 || ordered(a, m, x, cs[s].r2))
            continue;
        if (a->opt.max_cma != 0 && (*ncma)++ >= a->opt.max_cma) {
            a->ncma_dropped++;
            continue;
        }
        uint32_t *vars = fi_u32pool_alloc(&a->prop_vars, e - s);
        if (!vars)
            return -1;
        for (size_t q = s; q < e; q++)
            vars[q - s] = cs[q].var;
        fi_property prop = {FI_PROP_CMA, x, cs[s].r2,
                            conflicts > UINT32_MAX ? UINT32_MAX
                                                   : (uint32_t)conflicts,
                            vars, (uint32_t)(e - s)};
        if (add_prop(a, cap, &prop) < 0)
            return -1;
    }
    return 0;
}

/* Pairs are made region by region, not variable by variable: a pair's
 * conflicts are then complete when its first region is done, and memory
 * holds one region's candidates, not every pair's (8.9 million on the
 * 10^6-event split trace of bench/predict: 1.4 GB). */
int fi_properties(fi_analysis *a)
{
    fi_u32pool_free(&a->prop_vars);
    free(a->props);
    a->props = NULL;
    a->nprops = a->ncma_dropped = 0;
    a->ncma_window_skipped = 0;
    size_t cap = 0;
    for (size_t k = 0; k < a->nregions; k++)
        if (a->regions[k].status == FI_ST_OPEN) {
            fi_property p = {FI_PROP_CA, (uint32_t)k, (uint32_t)k, 0, NULL,
                             0};
            if (add_prop(a, &cap, &p) < 0)
                return -1;
        }
    touches g = {0};
    fi_mhb mhb = {0};
    contrib *cs = NULL;
    size_t ncs = 0, capcs = 0, ncma = 0;
    int rc = -1;
    if (group_touches(a, &g) < 0 || fi_mhb_build(&mhb, a->trace) < 0)
        goto out;
    uint32_t total = g.rstart[a->nregions], polled = 0;
    for (size_t k = 0; k < a->nregions && !a->stopped; k++) {
        uint32_t lo = g.rstart[k], hi = g.rstart[k + 1];
        /* polled every 1024 touches (a region may have many) */
        if (k == 0 || hi - polled >= 1024) {
            polled = hi;
            if (ft_budget_poll(a->opt.budget, "properties", lo, total)) {
                a->stopped = 1; /* the pairs of the regions done are kept */
                break;
            }
        }
        ncs = 0;
        for (uint32_t q = lo; q < hi; q++)
            if (pair_touch(a, &g, g.rtouch[q], &cs, &ncs, &capcs) < 0)
                goto out;
        if (region_pairs(a, &mhb, (uint32_t)k, cs, ncs, &ncma, &cap) < 0)
            goto out;
    }
    rc = 0;
out:
    free(cs);
    touches_free(&g);
    fi_mhb_free(&mhb);
    return rc;
}

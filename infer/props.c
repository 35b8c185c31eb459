/* SPDX-License-Identifier: MIT */
/* props.c - atomicity properties from the regions left open (paper section
 * VI): one causal atomicity property CA(r) per open region, and one causal
 * mutual atomicity property CMA(r1, r2) per pair of open regions of
 * different threads with at least two conflicting event pairs.  Pairs whose
 * regions are ordered by must happen-before (fork, join, fixed barrier
 * generations: musthb.c) can never interleave and get no property.  Conflicts are counted on shared data
 * variables only: lock operations conflict by construction and would pair
 * every two critical sections of a lock.
 *
 * Counting goes variable by variable over the open regions that touch it,
 * so the cost is the number of (region, region) pairs that share a
 * variable, not all pairs. */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct touch {
    uint32_t region;
    uint32_t reads, writes;
} touch;

typedef struct pair_acc {
    uint32_t r1, r2;
    uint64_t conflicts;
    uint32_t *vars;
    uint32_t nvars, capvars;
} pair_acc;

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

/* touches of every open region, grouped by variable (CSR layout). */
static int group_touches(const fi_analysis *a, uint32_t **start_out,
                         touch **tl_out)
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
    uint32_t *start = malloc(((size_t)nv + 1) * sizeof *start);
    touch *tl = calloc(total ? total : 1, sizeof *tl);
    uint32_t *slot = calloc(nv ? nv : 1, sizeof *slot); /* region+1 */
    uint32_t *fillpos = malloc((nv ? nv : 1) * sizeof *fillpos);
    if (!start || !tl || !slot || !fillpos) {
        free(count);
        free(start);
        free(tl);
        free(slot);
        free(fillpos);
        return -1;
    }
    start[0] = 0;
    for (uint32_t v = 0; v < nv; v++)
        start[v + 1] = start[v] + count[v];
    memcpy(fillpos, start, nv * sizeof *start);
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
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
            } else {
                pos = fillpos[v] - 1;
            }
            if (acc.op == FI_OP_WRITE)
                tl[pos].writes++;
            else
                tl[pos].reads++;
        }
    }
    free(count);
    free(slot);
    free(fillpos);
    *start_out = start;
    *tl_out = tl;
    return 0;
}

static int note_pair(fi_u64map *map, pair_acc **pairs, size_t *npairs,
                     size_t *cap, uint32_t x, uint32_t y, uint64_t c,
                     uint32_t v)
{
    uint64_t key = ((uint64_t)x << 32) | y;
    int added;
    uint32_t p = fi_u64map_intern(map, key, (uint32_t)*npairs, &added);
    if (p == UINT32_MAX)
        return -1;
    if (added) {
        if (*npairs == *cap) {
            size_t n = *cap ? 2 * *cap : 256;
            pair_acc *np = realloc(*pairs, n * sizeof *np);
            if (!np)
                return -1;
            *pairs = np;
            *cap = n;
        }
        (*pairs)[(*npairs)++] = (pair_acc){x, y, 0, NULL, 0, 0};
    }
    pair_acc *pa = &(*pairs)[p];
    pa->conflicts += c;
    if (pa->nvars == pa->capvars) {
        uint32_t n = pa->capvars ? 2 * pa->capvars : 4;
        uint32_t *nv = realloc(pa->vars, n * sizeof *nv);
        if (!nv)
            return -1;
        pa->vars = nv;
        pa->capvars = n;
    }
    pa->vars[pa->nvars++] = v;
    return 0;
}

static int pair_cmp(const void *pa, const void *pb)
{
    const pair_acc *x = pa, *y = pb;
    if (x->r1 != y->r1)
        return x->r1 < y->r1 ? -1 : 1;
    return x->r2 < y->r2 ? -1 : x->r2 > y->r2;
}

int fi_properties(fi_analysis *a)
{
    for (size_t k = 0; k < a->nprops; k++)
        free(a->props[k].vars);
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
    uint32_t *start = NULL, *next = NULL;
    touch *tl = NULL;
    fi_mhb mhb = {0};
    fi_u64map map = {0};
    pair_acc *pairs = NULL;
    size_t npairs = 0, cappairs = 0;
    int rc = -1;
    if (group_touches(a, &start, &tl) < 0 || fi_mhb_build(&mhb, a->trace) < 0)
        goto out;
    next = malloc(sizeof *next * ((size_t)start[a->nvars] + 1));
    if (!next)
        goto out;
    /* polled every 1024 touches (a variable may have millions) */
    uint32_t polled = 0;
    for (uint32_t v = 0; v < a->nvars && !a->stopped; v++) {
        /* next[i]: the next touch of v by another thread than touch i's
         * (a region's thread that ran alone for long touches v many
         * times in a row: skipping them one by one was quadratic) */
        for (uint32_t i = start[v + 1]; i-- > start[v];)
            next[i] = i + 1 == start[v + 1] ? start[v + 1]
                      : a->regions[tl[i + 1].region].tid !=
                              a->regions[tl[i].region].tid
                          ? i + 1
                          : next[i + 1];
        for (uint32_t i = start[v]; i < start[v + 1]; i++) {
            if (i == 0 || i - polled >= 1024) {
                polled = i;
                if (ft_budget_poll(a->opt.budget, "properties", i,
                                   start[a->nvars])) {
                    a->stopped = 1; /* the CMA pairs so far are kept */
                    break;
                }
            }
            /* A variable touched by a few regions: every pair.  One that
             * long traces touch from thousands of regions: each region
             * with the next FI_CMA_WINDOW regions of other threads (trace
             * order); all pairs would be quadratic (10^10 on a 10^6-event
             * lock-heavy run) and the near ones are those a schedule
             * reaches with the fewest reorderings (docs/infer.md). */
            int windowed = start[v + 1] - start[v] > 2 * FI_CMA_WINDOW;
            uint32_t others = 0, ti = a->regions[tl[i].region].tid;
            for (uint32_t j = next[i]; j < start[v + 1];
                 j = a->regions[tl[j].region].tid == ti ? next[j] : j + 1) {
                const touch *x = &tl[i], *y = &tl[j];
                if (a->regions[x->region].tid == a->regions[y->region].tid)
                    continue;
                if (windowed && ++others > FI_CMA_WINDOW) {
                    a->ncma_window_skipped += start[v + 1] - j;
                    break;
                }
                uint64_t c = (uint64_t)x->writes * y->writes +
                             (uint64_t)x->writes * y->reads +
                             (uint64_t)x->reads * y->writes;
                if (c && note_pair(&map, &pairs, &npairs, &cappairs,
                                   x->region, y->region, c, v) < 0)
                    goto out;
            }
        }
    }
    if (npairs)
        qsort(pairs, npairs, sizeof *pairs, pair_cmp);
    size_t ncma = 0;
    for (size_t p = 0; p < npairs; p++) {
        pair_acc *pa = &pairs[p];
        if (pa->conflicts < 2 || ordered(a, &mhb, pa->r1, pa->r2))
            continue;
        if (a->opt.max_cma != 0 && ncma++ >= a->opt.max_cma) {
            a->ncma_dropped++;
            continue;
        }
        fi_property prop = {FI_PROP_CMA, pa->r1, pa->r2,
                            pa->conflicts > UINT32_MAX
                                ? UINT32_MAX
                                : (uint32_t)pa->conflicts,
                            pa->vars, pa->nvars};
        if (add_prop(a, &cap, &prop) < 0)
            goto out;
        pa->vars = NULL; /* now owned by the property */
    }
    rc = 0;
out:
    for (size_t p = 0; p < npairs; p++)
        free(pairs[p].vars);
    free(pairs);
    fi_u64map_free(&map);
    free(start);
    free(next);
    free(tl);
    fi_mhb_free(&mhb);
    return rc;
}

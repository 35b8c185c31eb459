/* SPDX-License-Identifier: MIT */
/* serial.c - is_serializable of FindAV for one concrete schedule: the
 * schedule is conflict-serializable w.r.t. an e-transaction (CA) unless
 * some access of another thread is reached from the region and reaches
 * back into it through program order and conflict edges; two regions are
 * mutually serializable (CMA) unless each reaches the other.  This is the
 * same reachability viol.c encodes symbolically, computed here by one
 * pass in schedule order, plus the path that witnesses a violation. */
#include "predict/predict.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct walk {
    const ft_smt *e;
    const uint32_t *order, *at, *thr;
    uint32_t n;
};

/* Reachability from region g along the order; par[b] is the block b was
 * reached from (NONE for region blocks), cf[b] whether by a conflict. */
static void reach(const struct walk *w, uint32_t g, uint8_t *R, uint32_t *par,
                  uint8_t *cf)
{
    const ft_smt *e = w->e;
    const ft_reduced *r = e->r;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t b = w->order[i];
        par[b] = NONE;
        cf[b] = 0;
        R[b] = 0;
        if (e->in_region[b] >> g & 1) {
            R[b] = 1;
            continue;
        }
        if (b > r->bfirst[w->thr[b]] && R[b - 1]) {
            R[b] = 1;
            par[b] = b - 1;
            continue;
        }
        for (uint32_t q = e->dep_first[b]; q < e->dep_first[b + 1]; q++) {
            uint32_t y = e->dep[q];
            if (w->at[y] < i && R[y]) {
                R[b] = 1;
                par[b] = y;
                cf[b] = 1;
                break;
            }
        }
    }
}

/* Marks the conflict steps of the path that reached b. */
static void mark_path(const uint32_t *par, const uint8_t *cf, uint32_t b,
                      uint8_t *mark)
{
    while (b != NONE) {
        if (par[b] == NONE) {
            mark[b] = 1;
            break;
        }
        if (cf[b]) {
            mark[b] = 1;
            mark[par[b]] = 1;
        }
        b = par[b];
    }
}

int ft_is_serializable(const ft_reduced *r, const ft_smt_region *reg,
                       uint32_t nreg, const uint32_t *order, uint32_t n,
                       uint32_t *closing, uint8_t *mark)
{
    return ft_is_serializable_ex(r, reg, nreg, order, n, closing, mark, 0);
}

int ft_is_serializable_ex(const ft_reduced *r, const ft_smt_region *reg,
                          uint32_t nreg, const uint32_t *order, uint32_t n,
                          uint32_t *closing, uint8_t *mark, int data_only)
{
    ft_smt e;
    memset(&e, 0, sizeof e);
    e.flags = data_only ? FT_SMT_DATA_DEPS : 0;
    e.r = r;
    e.c = r->ctm;
    e.nb = r->nblocks;
    e.nreg = nreg;
    uint32_t nb = r->nblocks + 1;
    e.in_region = calloc(nb, 1);
    uint32_t *at = malloc(sizeof *at * nb), *thr = malloc(sizeof *thr * nb);
    uint8_t *R0 = calloc(nb, 1), *R1 = calloc(nb, 1), *cf0 = calloc(nb, 1),
            *cf1 = calloc(nb, 1);
    uint32_t *p0 = malloc(sizeof *p0 * nb), *p1 = malloc(sizeof *p1 * nb);
    int res = -1;
    if (!e.in_region || !at || !thr || !R0 || !R1 || !cf0 || !cf1 || !p0 ||
        !p1 || ft_smt_build_deps(&e))
        goto out;
    for (uint32_t g = 0; g < nreg; g++)
        for (uint32_t b = reg[g].first_block; b <= reg[g].last_block; b++)
            e.in_region[b] |= (uint8_t)(1u << g);
    for (uint32_t t = 0; t < r->ctm->nthreads; t++)
        for (uint32_t k = 0; k < r->bcount[t]; k++)
            thr[r->bfirst[t] + k] = t;
    for (uint32_t b = 0; b < nb; b++)
        at[b] = NONE;
    for (uint32_t i = 0; i < n; i++)
        at[order[i]] = i;
    struct walk w = {&e, order, at, thr, n};
    reach(&w, 0, R0, p0, cf0);
    res = 1;
    if (nreg == 1) {
        for (uint32_t i = 0; i < n && res; i++) {
            uint32_t b = order[i];
            if (!e.in_region[b])
                continue;
            for (uint32_t q = e.dep_first[b]; q < e.dep_first[b + 1]; q++) {
                uint32_t y = e.dep[q];
                if (at[y] < i && R0[y]) {
                    res = 0;
                    if (closing)
                        *closing = i;
                    if (mark) {
                        mark[b] = 1;
                        mark[y] = 1;
                        mark_path(p0, cf0, y, mark);
                    }
                    break;
                }
            }
        }
    } else {
        reach(&w, 1, R1, p1, cf1);
        uint32_t i0 = NONE, i1 = NONE;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t b = order[i];
            if (i0 == NONE && (e.in_region[b] & 2) && R0[b])
                i0 = i;
            if (i1 == NONE && (e.in_region[b] & 1) && R1[b])
                i1 = i;
        }
        if (i0 != NONE && i1 != NONE) {
            res = 0;
            if (closing)
                *closing = i0 > i1 ? i0 : i1;
            if (mark) {
                mark_path(p0, cf0, order[i0], mark);
                mark_path(p1, cf1, order[i1], mark);
            }
        }
    }
out:
    free(e.in_region);
    free(e.dep_first);
    free(e.dep);
    free(at);
    free(thr);
    free(R0);
    free(R1);
    free(cf0);
    free(cf1);
    free(p0);
    free(p1);
    return res;
}

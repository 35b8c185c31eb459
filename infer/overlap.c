/* SPDX-License-Identifier: MIT */
/* overlap.c - one inference variable per group of overlapping accesses.
 * Variables are interned by address, so an access that covers another
 * variable's bytes without starting at its address did not conflict with
 * it: workqueue's 8-byte load of `q.len` and `q.done` was an access of
 * `len` alone, and a region holding it looked free of the writes of
 * `done`.  The model cuts such accesses into one variable per byte range
 * (ctm/mixed.c); the inference only asks which regions may conflict, so
 * it merges each group of overlapping data variables into one, the first
 * by address: more conflicts, never fewer.  Synchronisation objects are
 * left alone (a memset over a struct holding a mutex is memory, the mutex
 * is not).  docs/infer.md, "Variables". */
#include "infer/internal.h"

#include <stdlib.h>
#include <string.h>

/* Bytes an event covers: a wide range keeps its length in value. */
static uint64_t span_of(const fi_event *e)
{
    if (e->kind == FT_EV_READ_WIDE || e->kind == FT_EV_WRITE_WIDE)
        return e->value ? e->value : e->size;
    return e->size ? e->size : 1;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

int fi_merge_overlaps(fi_analysis *a)
{
    const fi_trace *t = a->trace;
    size_t nv = a->nvars;
    if (!nv)
        return 0;
    uint64_t *end = calloc(nv, sizeof *end);
    uint64_t *pairs = malloc(2 * nv * sizeof *pairs);
    uint32_t *rep = malloc(nv * sizeof *rep);
    uint8_t *mark = NULL; /* bit 1: in a merged group; bit 0: seen */
    int rc = -1;
    if (!end || !pairs || !rep)
        goto out;
    for (size_t i = 0; i < t->nev; i++) {
        uint32_t v = a->var_of[i];
        if (v == UINT32_MAX || a->vars[v].sync)
            continue;
        uint64_t k = a->vars[v].key, e = k + span_of(&t->ev[i]);
        if (e < k)
            e = UINT64_MAX;
        if (e > end[v])
            end[v] = e;
    }
    size_t n = 0;
    for (size_t v = 0; v < nv; v++) {
        rep[v] = (uint32_t)v;
        if (end[v]) {
            pairs[2 * n] = a->vars[v].key;
            pairs[2 * n++ + 1] = v;
        }
    }
    qsort(pairs, n, 2 * sizeof *pairs, cmp_pair);
    size_t merged = 0;
    for (size_t i = 0; i < n;) {
        uint32_t r = (uint32_t)pairs[2 * i + 1];
        uint64_t e = end[r];
        size_t j = i + 1;
        for (; j < n && pairs[2 * j] < e; j++) {
            uint32_t v = (uint32_t)pairs[2 * j + 1];
            rep[v] = r;
            e = end[v] > e ? end[v] : e;
            merged++;
        }
        i = j;
    }
    if (!merged) {
        rc = 0;
        goto out;
    }
    /* the groups' accesses go to their first variable, accounted again
     * in trace order; the others are left without accesses */
    mark = calloc(nv, 1);
    if (!mark)
        goto out;
    for (size_t v = 0; v < nv; v++)
        if (rep[v] != v)
            mark[v] = mark[rep[v]] = 2;
    for (size_t i = 0; i < t->nev; i++) {
        uint32_t v = a->var_of[i];
        if (v == UINT32_MAX || !(mark[v] & 2))
            continue;
        uint32_t r = rep[v];
        fi_access acc;
        fi_classify(t, &t->ev[i], &acc);
        a->var_of[i] = r;
        fi_var_account(&a->vars[r], t->ev[i].tid, acc.op == FI_OP_WRITE,
                       mark[r] & 1);
        mark[r] |= 1;
    }
    for (size_t v = 0; v < nv; v++)
        if (rep[v] != v) {
            fi_var *x = &a->vars[v];
            x->multi = x->written = x->multiw = 0;
        }
    a->nmerged_vars += merged;
    rc = 0;
out:
    free(end);
    free(pairs);
    free(rep);
    free(mark);
    return rc;
}

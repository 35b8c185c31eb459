/* SPDX-License-Identifier: MIT */
/* groups.c - the static CA and CMA properties behind the dynamic ones
 * (docs/prediction.md, "static properties"): a loop that runs a racy
 * region twenty times gives twenty CA properties and one bug.  Their
 * group is the property kind and the code of its regions (function, file
 * and line range; the pair unordered for CMA), the same key the report
 * groups findings by (cli/analyze_atomicity.c).  Once one instance of a
 * group is violated, the pipeline leaves the group's undecided instances
 * unsolved ("covered"): they cannot add a finding, and on real traces
 * they are the expensive ones (bench/predict/shapes/pool.c: 18 instances,
 * each ending in Z3's memory bound).  `analyze --every-instance` solves
 * them all. */
#include "predict/predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
    s = s ? s : "?";
    return fnv(h, s, strlen(s) + 1); /* the NUL separates the fields */
}

/* The code of a region: its function, file and line range. */
static uint64_t region_hash(const fi_region *r)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    if (!r)
        return h;
    h = str_hash(h, r->function);
    h = str_hash(h, r->file);
    uint32_t lines[2] = {r->line_lo, r->line_hi};
    return fnv(h, lines, sizeof lines);
}

typedef struct keyed {
    uint64_t key;
    size_t index;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int ft_pipeline_group(ft_pipeline *pl)
{
    pl->ngroups = 0;
    if (!pl->nprops)
        return 0;
    keyed *k = malloc(sizeof *k * pl->nprops);
    if (!k)
        return -1;
    for (size_t i = 0; i < pl->nprops; i++) {
        const ft_prop *p = &pl->props[i];
        const fi_property *fp = &pl->infer.props[p->id];
        uint64_t a = region_hash(ft_pipeline_region(pl, fp->r1));
        uint64_t key = a;
        if (p->kind == FT_PROP_CMA) {
            uint64_t b = region_hash(ft_pipeline_region(pl, fp->r2));
            uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
            key = fnv(fnv(0x84222325cbf29ce4ULL, &lo, sizeof lo), &hi,
                      sizeof hi);
        }
        k[i] = (keyed){fnv(key, &p->kind, sizeof p->kind), i};
    }
    qsort(k, pl->nprops, sizeof *k, by_key);
    uint32_t g = 0;
    for (size_t i = 0; i < pl->nprops; i++) {
        if (i > 0 && k[i].key != k[i - 1].key)
            g++;
        pl->props[k[i].index].group = g;
    }
    pl->ngroups = (size_t)g + 1;
    free(k);
    return 0;
}

void ft_presult_cover(ft_presult *r)
{
    memset(r, 0, sizeof *r);
    r->verdict = FT_UNKNOWN;
    r->covered = 1;
    snprintf(r->reason, sizeof r->reason,
             "not solved: another instance of its static property (same "
             "code) is violated (--every-instance solves it)");
}

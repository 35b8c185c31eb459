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
 * them all.  What covering can lose is the instance whose replay fails
 * (data/vb_figures.c fig. 9: the CMA instance solved first replays
 * without failing, the one it covered aborts): ft_pipeline_uncover
 * solves a few more instances of the static properties whose replays
 * did not fail (cli/analyze_confirm.c). */
#include "predict/decide.h"
#include "predict/kind.h"
#include "predict/predict.h"
#include "predict/window.h"

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

uint8_t *ft_pipeline_violated_groups(const ft_pipeline *pl, const ft_prop *props,
                                const ft_presult *res, size_t n,
                                const ft_predict_opts *o, int *oom)
{
    *oom = 0;
    if (props != pl->props || o->every_instance || !pl->ngroups)
        return NULL;
    uint8_t *g = calloc(pl->ngroups, 1);
    if (!g) {
        *oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (res[i].verdict == FT_VIOLATED)
            g[props[i].group] = 1;
    return g;
}

void ft_presult_cover(ft_presult *r)
{
    memset(r, 0, sizeof *r);
    r->verdict = FT_UNKNOWN;
    r->covered = 1;
    ft_presult_why(r, "not solved: another instance of its static property (same "
             "code) is violated (--every-instance solves it)");
}

static void swap(void *a, void *b, size_t n)
{
    unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        unsigned char t = x[i];
        x[i] = y[i];
        y[i] = t;
    }
}

long ft_pipeline_uncover(ft_pipeline *pl, const uint8_t *need,
                         unsigned per_group, const ft_predict_opts *o,
                         size_t *idx)
{
    if (!pl->ngroups || !pl->results)
        return 0;
    uint32_t *taken = calloc(pl->ngroups, sizeof *taken);
    ft_prop *sub = malloc(sizeof *sub * (pl->nprops + 1));
    ft_presult *res = calloc(pl->nprops + 1, sizeof *res);
    long rc = -1;
    if (!taken || !sub || !res)
        goto out;
    size_t m = 0;
    int windowed = 0;
    for (size_t i = 0; i < pl->nprops; i++) {
        uint32_t g = pl->props[i].group;
        if (!pl->results[i].covered || !need[g] || taken[g] >= per_group)
            continue;
        taken[g]++;
        idx[m] = i;
        sub[m] = pl->props[i];
        windowed |= o->window && !o->no_slice &&
                    !ft_window_covers_all(pl->ctm, &sub[m], o->window);
        m++;
    }
    if (m == 0) {
        rc = 0;
        goto out;
    }
    ft_predict_opts own = *o;
    own.every_instance = 1;
    own.no_value_order = 1; /* it was asked of every property already */
    own.until = ft_pipeline_solve_until(pl, o, ft_predict_now());
    if (own.until > 0 && ft_predict_now() >= own.until) {
        rc = 0; /* nothing could be solved: no index to build */
        goto out;
    }
    ft_window_index *w = ft_window_index_new_until(pl->ctm, own.until);
    if (!w)
        goto out;
    /* the search first, as for every property (its witnesses are the
     * recorded run moved by one thread: the ones that replay most like
     * it), then the solver */
    uint8_t *decided = calloc(m + 1, 1);
    ft_decider *d = decided ? ft_decider_new(pl->ctm, w) : NULL;
    long nd = 0;
    if (d) {
        ft_decide_opts dopt = {1, 0, own.until, 0, pl->budget,
                               "searching more instances", NULL};
        nd = ft_decide_run(d, sub, m, &dopt, res, decided);
        ft_decider_free(d);
        pl->decide.violated += nd > 0 ? (uint64_t)nd : 0;
    }
    if (!decided || nd < 0) {
        free(decided);
        ft_window_index_free(w);
        goto out;
    }
    /* the decided first, as ft_pipeline_solve_bounded wants them */
    for (size_t a = 0, b = 0; b < m; b++)
        if (decided[b]) {
            swap(&sub[a], &sub[b], sizeof *sub);
            swap(&res[a], &res[b], sizeof *res);
            swap(&idx[a], &idx[b], sizeof *idx);
            swap(&decided[a], &decided[b], 1);
            a++;
        }
    free(decided);
    /* the job frees w */
    if (ft_pipeline_solve_bounded(pl, sub, res, m, (size_t)nd, &own,
                                  windowed ? w : NULL, w, 0,
                                  "solving more instances", NULL, NULL) < 0)
        goto out;
    for (size_t k = 0; k < m; k++) {
        ft_presult *r = &pl->results[idx[k]];
        if (res[k].verdict == FT_VIOLATED && !res[k].prefix &&
            ft_presult_trim(pl->ctm, &sub[k], &res[k]) < 0)
            goto out;
        ft_presult_free(r);
        *r = res[k];
        memset(&res[k], 0, sizeof res[k]);
        pl->ncovered--;
        switch (r->verdict) {
        case FT_VIOLATED: pl->nviolated++; break;
        case FT_HOLDS: pl->nholds++; break;
        case FT_UNKNOWN:
            pl->nunknown++;
            if (r->not_solved) {
                pl->nskipped++;
                pl->skip_why = "--time";
            }
            break;
        default: pl->nerror++; break;
        }
    }
    rc = (long)m;
out:
    for (size_t k = 0; res && k < pl->nprops; k++)
        ft_presult_free(&res[k]);
    free(taken);
    free(sub);
    free(res);
    return rc;
}

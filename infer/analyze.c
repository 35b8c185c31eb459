/* SPDX-License-Identifier: MIT */
/* analyze.c - the stage iii driver: interns the trace's objects, has
 * regions.c collect the regions, fills in what each region touches, and
 * decides its status before properties are generated:
 *   observed  - the run itself is not serializable for it (serial.c);
 *   no-conflict - none of its events conflicts with another thread's;
 *   proved    - at most one of its events conflicts with another thread
 *               (trivially atomic), it lies in one critical section of a
 *               lock guarding all it conflicts on (lockset.c), or, once
 *               the MAT analysis has run, it lies inside one i-transaction
 *               (fi_prove_by_itx);
 *   open      - everything else: these become CA and CMA properties. */
#define _GNU_SOURCE /* qsort_r */
#include "infer/internal.h"
#include "infer/u32pool.h"
#include "infer/u64map.h"

#include <stdlib.h>
#include <string.h>

void fi_options_default(fi_options *o)
{
    memset(o, 0, sizeof *o);
    o->maxd = FI_DEFAULT_MAXD;
    o->max_anchors = FI_DEFAULT_MAX_ANCHORS;
    o->infer = 1;
    o->max_cma = FI_DEFAULT_MAX_CMA;
}

int fi_add_region(fi_analysis *a, uint32_t tid, uint64_t first,
                  uint64_t last, unsigned source, uint32_t site)
{
    if (a->nregions == a->capregions) {
        size_t ncap = a->capregions ? 2 * a->capregions : 64;
        fi_region *n = realloc(a->regions, ncap * sizeof *n);
        if (!n)
            return -1;
        a->regions = n;
        a->capregions = ncap;
    }
    fi_region *r = &a->regions[a->nregions++];
    memset(r, 0, sizeof *r);
    r->tid = tid;
    r->first = first;
    r->last = last;
    r->source = (uint8_t)source;
    const ft_site *s = fi_trace_site_get(a->trace, site);
    r->function = s ? s->function : NULL;
    r->file = s ? s->file : NULL;
    r->line_lo = r->line_hi = s ? s->line : 0;
    return 0;
}

static int intern_vars(fi_analysis *a)
{
    const fi_trace *t = a->trace;
    fi_u64map map = {0};
    size_t cap = 0;
    a->var_of = malloc((t->nev ? t->nev : 1) * sizeof *a->var_of);
    if (!a->var_of)
        return -1;
    for (size_t i = 0; i < t->nev; i++) {
        fi_access acc;
        fi_classify(t, &t->ev[i], &acc);
        a->var_of[i] = UINT32_MAX;
        if (acc.op != FI_OP_READ && acc.op != FI_OP_WRITE)
            continue;
        int added;
        uint32_t v = fi_u64map_intern(&map, acc.key, a->nvars, &added);
        if (v == UINT32_MAX)
            goto nomem;
        uint32_t tid = t->ev[i].tid;
        if (added) {
            if (a->nvars == cap) {
                cap = cap ? 2 * cap : 1024;
                fi_var *n = realloc(a->vars, cap * sizeof *n);
                if (!n)
                    goto nomem;
                a->vars = n;
            }
            fi_var *nv = &a->vars[a->nvars++];
            memset(nv, 0, sizeof *nv);
            nv->key = acc.key;
        }
        fi_var *x = &a->vars[v];
        a->var_of[i] = v;
        if (!acc.data)
            x->sync = 1;
        fi_var_account(x, tid, acc.op == FI_OP_WRITE, !added);
    }
    fi_u64map_free(&map);
    return 0;
nomem:
    fi_u64map_free(&map);
    return -1;
}

static int region_cmp(const void *pa, const void *pb)
{
    const fi_region *x = pa, *y = pb;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return (int)y->source - (int)x->source; /* user-stated first */
}

/* Counts, variables and lines of each region; no-conflict and trivial
 * proofs, counting only conflicts with accesses that may run concurrently
 * with the region (not ordered by fork, join or barrier in every run).
 * stamp dedups variables per region; the seen arrays cache the answer per
 * (region, variable, read or write). */
static int fill_regions(fi_analysis *a, const fi_mhb *m, const fi_by_var *g)
{
    const fi_trace *t = a->trace;
    size_t nv1 = a->nvars ? a->nvars : 1;
    uint32_t *stamp = calloc(nv1, sizeof *stamp);
    uint32_t *buf = malloc(nv1 * sizeof *buf);
    uint32_t *seen = calloc(2 * nv1, sizeof *seen);
    uint8_t *answer = calloc(2 * nv1, 1);
    int rc = -1;
    if (!stamp || !buf || !seen || !answer)
        goto out;
    for (size_t k = 0; k < a->nregions; k++) {
        fi_region *r = &a->regions[k];
        r->id = (uint32_t)k;
        uint32_t nv = 0, nconf = 0;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint64_t i = r->first; i <= r->last; i++) {
            const fi_event *e = &t->ev[i];
            if (e->tid != r->tid)
                continue;
            r->nevents++;
            fi_access acc;
            fi_classify(t, e, &acc);
            uint32_t v = a->var_of[i];
            /* A cond wait inside releases the mutex and needs another
             * thread's notify to go on, and its wake re-takes the mutex
             * (classify keys each on one object only): never trivially
             * atomic. */
            if (e->kind == FT_EV_COND_WAIT || e->kind == FT_EV_COND_WAKE)
                nconf += 2;
            if (fi_conflicts_outside(a, &acc, v, r->tid)) {
                if (v == UINT32_MAX) {
                    nconf++; /* fork, join */
                } else {
                    size_t slot = 2 * (size_t)v + (acc.op == FI_OP_WRITE);
                    if (seen[slot] != k + 1) {
                        seen[slot] = (uint32_t)k + 1;
                        answer[slot] =
                            (uint8_t)fi_concurrent_conflict(a, m, g, r, v,
                                                         acc.op);
                    }
                    nconf += answer[slot];
                }
            }
            if (v == UINT32_MAX || !acc.data || !a->vars[v].multi ||
                a->vars[v].sync)
                continue;
            r->naccesses++;
            const ft_site *s = fi_trace_site_get(t, e->site);
            if (s && s->line) {
                lo = s->line < lo ? s->line : lo;
                hi = s->line > hi ? s->line : hi;
            }
            if (stamp[v] != k + 1) {
                stamp[v] = (uint32_t)k + 1;
                buf[nv++] = v;
            }
        }
        if (r->source != FI_SRC_INFERRED && lo <= hi) {
            r->line_lo = lo;
            r->line_hi = hi;
        }
        r->nvars = nv;
        r->vars = fi_u32pool_alloc(&a->region_vars, nv);
        if (!r->vars)
            goto out;
        memcpy(r->vars, buf, nv * sizeof *buf);
        if (nconf == 0) {
            r->status = FI_ST_NOCONFLICT;
        } else if (nconf == 1) {
            r->status = FI_ST_PROVED;
            r->proof = FI_PROOF_SINGLE;
        }
    }
    rc = 0;
out:
    free(stamp);
    free(buf);
    free(seen);
    free(answer);
    return rc;
}

static int observe(fi_analysis *a)
{
    const fi_trace *t = a->trace;
    size_t n = t->nev, nr = a->nregions;
    fi_sev *sev = malloc((n ? n : 1) * sizeof *sev);
    fi_span *spans = malloc((nr ? nr : 1) * sizeof *spans);
    uint8_t *bad = malloc(nr ? nr : 1);
    fi_witness *wit = malloc((nr ? nr : 1) * sizeof *wit);
    long rc = -1;
    if (!sev || !spans || !bad || !wit)
        goto out;
    for (size_t i = 0; i < n; i++) {
        fi_access acc;
        fi_classify(t, &t->ev[i], &acc);
        sev[i].tid = t->ev[i].tid;
        sev[i].op = acc.op;
        sev[i].obj = 0;
        if (acc.op == FI_OP_READ || acc.op == FI_OP_WRITE)
            sev[i].obj = a->var_of[i];
        else if (acc.op == FI_OP_FORK || acc.op == FI_OP_JOIN) {
            if (acc.key >= t->nthreads)
                sev[i].op = FI_OP_NONE; /* a thread that never ran */
            else
                sev[i].obj = (uint32_t)acc.key;
        }
    }
    for (size_t k = 0; k < nr; k++)
        spans[k] = (fi_span){a->regions[k].tid, a->regions[k].first,
                             a->regions[k].last};
    rc = fi_serial_check(sev, n, t->nthreads, a->nvars, spans, nr, bad, wit);
    size_t nbad = 0;
    for (size_t k = 0; rc > 0 && k < nr; k++)
        nbad += bad[k] != 0;
    free(a->witnesses);
    a->witnesses = nbad ? malloc(nbad * sizeof *a->witnesses) : NULL;
    a->nwitnesses = 0;
    if (nbad && !a->witnesses) {
        rc = -1;
        goto out;
    }
    for (size_t k = 0; rc > 0 && k < nr; k++)
        if (bad[k]) {
            a->regions[k].status = FI_ST_OBSERVED;
            a->regions[k].proof = FI_PROOF_NONE;
            a->regions[k].witness = a->nwitnesses;
            a->witnesses[a->nwitnesses++] = wit[k];
        }
out:
    free(sev);
    free(spans);
    free(bad);
    free(wit);
    return rc < 0 ? -1 : 0;
}

int fi_analyze(fi_analysis *a, const fi_trace *t, const fi_options *opt)
{
    memset(a, 0, sizeof *a);
    a->trace = t;
    if (opt)
        a->opt = *opt;
    else
        fi_options_default(&a->opt);
    if (a->opt.max_anchors == 0)
        a->opt.max_anchors = FI_DEFAULT_MAX_ANCHORS;
    if (intern_vars(a) < 0 || fi_merge_overlaps(a) < 0 ||
        fi_split_lifetimes(a) < 0)
        return -1;
    if (ft_budget_poll(a->opt.budget, "inference", 0, 5)) {
        a->stopped = 1;
        return 0;
    }
    if (fi_collect_regions(a) < 0)
        return -1;
    if (a->nregions) {
        qsort(a->regions, a->nregions, sizeof *a->regions, region_cmp);
        size_t kept = 0;
        for (size_t k = 0; k < a->nregions; k++) {
            fi_region *r = &a->regions[k];
            if (kept && a->regions[kept - 1].first == r->first &&
                a->regions[kept - 1].last == r->last &&
                a->regions[kept - 1].tid == r->tid)
                continue; /* same events from another source */
            a->regions[kept++] = *r;
        }
        a->nregions = kept;
        /* the doubling's slack (up to half the array: 11 MB on 10^6
         * events) would stay to the end of the analysis */
        fi_region *fit = realloc(a->regions, kept * sizeof *fit);
        if (fit) {
            a->regions = fit;
            a->capregions = kept;
        }
    }
    /* must-HB and the per-object lists serve both the conflict counts
     * and the lock and reduction proofs */
    fi_mhb m = {0};
    fi_by_var g = {0};
    /* between passes the budget may stop the analysis: the regions are
     * then left open or unobserved (a->stopped; no properties follow) */
    ft_budget *b = a->opt.budget;
    int rc = 0;
    if (ft_budget_poll(b, "inference", 1, 5) ||
        fi_mhb_build(&m, a->trace) < 0 || fi_by_var_build(a, &g) < 0 ||
        ft_budget_poll(b, "inference", 2, 5) ||
        fill_regions(a, &m, &g) < 0 || ft_budget_poll(b, "inference", 3, 5) ||
        observe(a) < 0 || ft_budget_poll(b, "inference", 4, 5) ||
        fi_prove_by_locks(a, &m, &g) < 0)
        rc = b && b->spent ? 0 : -1;
    a->stopped = b && b->spent;
    fi_by_var_free(&g);
    fi_mhb_free(&m);
    return rc;
}

static int itx_cmp_at(const void *pa, const void *pb, void *arg)
{
    const fi_itx *itx = arg;
    const fi_itx *x = &itx[*(const uint32_t *)pa], *y = &itx[*(const uint32_t *)pb];
    return x->first < y->first ? -1 : x->first > y->first;
}

static int has_role(const fi_trace *t, uint64_t i, uint32_t tid)
{
    fi_access acc;
    fi_classify(t, &t->ev[i], &acc);
    return t->ev[i].tid == tid && acc.op != FI_OP_NONE;
}

/* The i-transactions' indices ordered by thread, then first: a counting
 * sort by thread keeps the input's order within one (trace order, as
 * derive_itrans makes them), and a thread's run is sorted only when it
 * is not.  Indices, not copies, and no merge-sort buffer: on 10^6 events
 * the copy and qsort's buffer were 48 MB at the analysis's peak. */
static uint32_t *itx_by_thread(const fi_itx *itx, size_t n)
{
    uint32_t nt = 0;
    for (size_t i = 0; i < n; i++)
        if (itx[i].tid + 1 > nt)
            nt = itx[i].tid + 1;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t *at = calloc((size_t)nt + 1, sizeof *at);
    if (!idx || !at || n > UINT32_MAX) {
        free(idx);
        free(at);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        at[itx[i].tid + 1]++;
    for (uint32_t t = 0; t < nt; t++)
        at[t + 1] += at[t];
    for (size_t i = 0; i < n; i++)
        idx[at[itx[i].tid]++] = (uint32_t)i;
    /* at[t] is now the end of thread t's run */
    for (uint32_t t = 0, lo = 0; t < nt; lo = (uint32_t)at[t++]) {
        for (size_t j = lo + 1; j < at[t]; j++)
            if (itx[idx[j - 1]].first > itx[idx[j]].first) {
                qsort_r(idx + lo, at[t] - lo, sizeof *idx, itx_cmp_at,
                        (void *)itx);
                break;
            }
    }
    free(at);
    return idx;
}

/* fi_prove_by_itx's lookup over its sorted index. */
typedef struct itx_sorted {
    const fi_itx *itx;
    const uint32_t *idx;
    size_t n;
} itx_sorted;

static int find_sorted(const void *arg, uint32_t tid, uint64_t first,
                       uint64_t *last)
{
    const itx_sorted *s = arg;
    /* The last i-transaction of tid's thread starting at or before first. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const fi_itx *m = &s->itx[s->idx[mid]];
        if (m->tid < tid || (m->tid == tid && m->first <= first))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || s->itx[s->idx[lo - 1]].tid != tid)
        return 0;
    *last = s->itx[s->idx[lo - 1]].last;
    return 1;
}

long fi_prove_by_itx(fi_analysis *a, const fi_itx *itx, size_t n)
{
    uint32_t *idx = itx_by_thread(itx, n);
    if (!idx)
        return -1;
    itx_sorted s = {itx, idx, n};
    long proved = fi_prove_by_find(a, find_sorted, &s);
    free(idx);
    return proved;
}

long fi_prove_by_find(fi_analysis *a, fi_itx_find find, const void *arg)
{
    long proved = 0;
    for (size_t k = 0; k < a->nregions; k++) {
        fi_region *r = &a->regions[k];
        if (r->status == FI_ST_OBSERVED || r->status == FI_ST_NOCONFLICT)
            continue;
        /* Markers (REGION_BEGIN, FUNC_ENTRY...) are not transitions: the
         * region's atomicity is that of its first to last transition. */
        uint64_t first = r->first, last = r->last;
        while (first < last && !has_role(a->trace, first, r->tid))
            first++;
        while (last > first && !has_role(a->trace, last, r->tid))
            last--;
        uint64_t it_last;
        if (!find(arg, r->tid, first, &it_last) || it_last < last)
            continue;
        if (r->status == FI_ST_OPEN)
            proved++;
        r->status = FI_ST_PROVED;
        r->proof = FI_PROOF_MAT;
    }
    a->itx_applied = 1;
    return proved;
}

void fi_analysis_free(fi_analysis *a)
{
    fi_u32pool_free(&a->region_vars);
    fi_u32pool_free(&a->prop_vars);
    free(a->witnesses);
    free(a->regions);
    free(a->props);
    free(a->vars);
    free(a->var_of);
    memset(a, 0, sizeof *a);
}

const fi_witness *fi_region_witness(const fi_analysis *a, const fi_region *r)
{
    static const fi_witness none;
    return r->status == FI_ST_OBSERVED && r->witness < a->nwitnesses
               ? &a->witnesses[r->witness]
               : &none;
}

void fi_summarize(const fi_analysis *a, fi_summary *s)
{
    memset(s, 0, sizeof *s);
    size_t vars = 0;
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        s->ia++;
        vars += r->nvars;
        if (r->status == FI_ST_OPEN || r->status == FI_ST_OBSERVED)
            s->ra++;
        if (r->status == FI_ST_OPEN)
            s->ra2++;
        if (r->status == FI_ST_OBSERVED)
            s->observed++;
    }
    s->vavg = s->ia ? (double)vars / (double)s->ia : 0.0;
    for (size_t k = 0; k < a->nprops; k++) {
        if (a->props[k].kind == FI_PROP_CA)
            s->ca++;
        else
            s->cma++;
    }
}

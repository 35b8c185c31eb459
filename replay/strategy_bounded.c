/* SPDX-License-Identifier: MIT */
/* strategy_bounded.c - iterative preemption bounding (ICB, Musuvathi and
 * Qadeer, PLDI'07) and iterative delay bounding (IDB, Emmi, Qadeer and
 * Rakamaric, POPL'11) as stateless search: one fresh process per
 * schedule; the search state (prefixes still to run, per bound) stays
 * here between runs.  A run follows its prefix ("prefix:at=S.T,...",
 * recorder/rt/policy_prefix.c) and then schedules without preemption;
 * its decision log lists, at every decision point, who ran and who else
 * was enabled.  Each alternative after the prefix's last forced step
 * extends the prefix by one choice, so every schedule is produced once
 * (by its first departure from its parent).  Its cost: ICB counts a
 * choice of another thread where the running one could continue
 * (preemption); IDB counts the enabled threads skipped in round-robin
 * order from the default choice (delays).  Bound c is exhausted before
 * c+1 starts.  Fairness: at a yield the yielding thread is not an
 * alternative (CHESS's rule: spinning is never chosen over progress),
 * which also keeps spin loops from producing endless free schedules. */
#include "replay/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct prefix {
    int cost;
    uint32_t n;
    uint64_t *step;
    int *tid;
} prefix;

typedef struct plist {
    prefix **v;
    size_t n, cap;
} plist;

struct fx_bounded {
    int delay, max_bound;
    plist *work;       /* work[c]: prefixes of cost c */
    prefix *last;      /* handed out, waiting for its run's decisions */
    int started;
};

static void prefix_free(prefix *p)
{
    if (p) {
        free(p->step);
        free(p->tid);
        free(p);
    }
}

static prefix *prefix_extend(const prefix *p, uint64_t step, int tid, int cost)
{
    prefix *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->n = (p ? p->n : 0) + 1;
    q->cost = cost;
    q->step = malloc(q->n * sizeof *q->step);
    q->tid = malloc(q->n * sizeof *q->tid);
    if (!q->step || !q->tid) {
        prefix_free(q);
        return NULL;
    }
    for (uint32_t i = 0; p && i < p->n; i++) {
        q->step[i] = p->step[i];
        q->tid[i] = p->tid[i];
    }
    q->step[q->n - 1] = step;
    q->tid[q->n - 1] = tid;
    return q;
}

static int push(plist *l, prefix *p)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        prefix **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = p;
    return 0;
}

fx_bounded *fx_bounded_new(int delay, int max_bound)
{
    fx_bounded *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->delay = delay;
    b->max_bound = max_bound < 0 ? 0 : max_bound;
    b->work = calloc((size_t)b->max_bound + 1, sizeof *b->work);
    if (!b->work) {
        free(b);
        return NULL;
    }
    return b;
}

void fx_bounded_free(fx_bounded *b)
{
    if (!b)
        return;
    for (int c = 0; c <= b->max_bound; c++) {
        for (size_t i = 0; i < b->work[c].n; i++)
            prefix_free(b->work[c].v[i]);
        free(b->work[c].v);
    }
    free(b->work);
    prefix_free(b->last);
    free(b);
}

int fx_bounded_next(fx_bounded *b, char *spec, size_t len, int *bound)
{
    prefix_free(b->last);
    b->last = NULL;
    if (!b->started) {
        /* The empty prefix: the non-preemptive schedule, cost 0. */
        b->started = 1;
        b->last = calloc(1, sizeof *b->last);
        if (!b->last)
            return 0;
        snprintf(spec, len, "prefix");
        *bound = 0;
        return 1;
    }
    for (int c = 0; c <= b->max_bound; c++) {
        if (b->work[c].n == 0)
            continue;
        prefix *p = b->work[c].v[--b->work[c].n]; /* depth first */
        size_t n = (size_t)snprintf(spec, len, "prefix:at=");
        for (uint32_t i = 0; i < p->n && n < len; i++)
            n += (size_t)snprintf(spec + n, len - n, "%s%" PRIu64 ".%d",
                                  i ? "," : "", p->step[i], p->tid[i]);
        if (n >= len) { /* too long to pass: drop it */
            prefix_free(p);
            return fx_bounded_next(b, spec, len, bound);
        }
        b->last = p;
        *bound = c;
        return 1;
    }
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Delays to reach e: its distance from dflt in the circular tid order of
 * the enabled threads (skipping the yielding thread, which is last). */
static int delays(const fx_decision *d, int e)
{
    int v[16], n = 0;
    for (int i = 0; i < d->n && i < 16; i++)
        if (!(d->kind == 'y' && d->enabled[i] == d->cur))
            v[n++] = d->enabled[i];
    qsort(v, (size_t)n, sizeof v[0], cmp_int);
    int from = 0;
    for (int i = 0; i < n; i++)
        if (v[i] == d->chosen)
            from = i;
    for (int k = 0; k < n; k++)
        if (v[(from + k) % n] == e)
            return k;
    return n;
}

void fx_bounded_feed(fx_bounded *b, const fx_decision *d, uint64_t n)
{
    prefix *p = b->last;
    if (!p)
        return;
    uint64_t after = p->n ? p->step[p->n - 1] : 0;
    for (uint64_t i = 0; i < n; i++) {
        const fx_decision *x = &d[i];
        if ((i & 0xffff) == 0xffff && fx_time_up())
            return; /* --time is up: no more schedules will run */
        if (x->step <= after)
            continue;
        for (int j = 0; j < x->n && j < 16; j++) {
            int e = x->enabled[j];
            if (e == x->chosen || (x->kind == 'y' && e == x->cur))
                continue;
            int cost = p->cost;
            if (b->delay)
                cost += delays(x, e);
            else
                cost += x->kind == 'p' && e != x->cur;
            if (cost > b->max_bound)
                continue;
            prefix *q = prefix_extend(p, x->step, e, cost);
            if (!q || push(&b->work[cost], q) < 0) {
                prefix_free(q);
                return;
            }
        }
    }
}

fx_decision *fx_read_log(const char *path, uint64_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 256;
    fx_decision *v = malloc(cap * sizeof *v);
    char line[16384];
    /* A long run's log is long: reading it stops at the exploration's
     * --time (what is read is a prefix of the run's decisions). */
    while (v && fgets(line, sizeof line, f) &&
           ((*n & 0xffff) != 0xffff || !fx_time_up())) {
        fx_decision d = {0};
        unsigned long long step;
        int used = 0;
        if (sscanf(line, "%llu %d %d %c%n", &step, &d.cur, &d.chosen, &d.kind,
                   &used) != 4)
            continue;
        d.step = step;
        const char *p = line + used;
        int e, k;
        while (sscanf(p, " %d%n", &e, &k) == 1) {
            if (d.n < 16)
                d.enabled[d.n++] = e;
            if (e >= 0 && e < 64)
                d.enabled_mask |= 1ull << e;
            p += k;
        }
        const char *at = strchr(p, '@');
        if (at) {
            d.has_mark = 1;
            d.mark = strtoull(at + 1, NULL, 10);
        }
        if (*n == cap) {
            cap *= 2;
            fx_decision *nv = realloc(v, cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[(*n)++] = d;
    }
    fclose(f);
    return v;
}

/* ---- as a driver strategy ---- */

typedef struct bounded_st {
    fx_bounded *b;
} bounded_st;

static void *init_bounded(const fx_opts *o, int delay)
{
    bounded_st *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->b = fx_bounded_new(delay, o->bound ? o->bound : 3);
    if (!s->b) {
        free(s);
        return NULL;
    }
    return s;
}

static void *init_icb(const fx_opts *o, const fx_calib *c)
{
    (void)c;
    return init_bounded(o, 0);
}

static void *init_idb(const fx_opts *o, const fx_calib *c)
{
    (void)c;
    return init_bounded(o, 1);
}

static int bounded_next(void *st, uint64_t i, char *spec, size_t len)
{
    (void)i;
    int bound;
    return fx_bounded_next(((bounded_st *)st)->b, spec, len, &bound);
}

static void bounded_done(void *st, const char *spec, const char *log)
{
    (void)spec;
    uint64_t n;
    fx_decision *d = fx_read_log(log, &n);
    fx_bounded_feed(((bounded_st *)st)->b, d, n);
    free(d);
}

static void bounded_fini(void *st)
{
    bounded_st *s = st;
    if (s)
        fx_bounded_free(s->b);
    free(s);
}

const fx_strategy fx_strategy_icb = {
    .name = "icb", .parallel = 0, .wants_log = 1, .init = init_icb,
    .next = bounded_next, .done = bounded_done, .fini = bounded_fini,
};
const fx_strategy fx_strategy_idb = {
    .name = "idb", .parallel = 0, .wants_log = 1, .init = init_idb,
    .next = bounded_next, .done = bounded_done, .fini = bounded_fini,
};

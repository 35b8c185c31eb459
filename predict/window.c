/* SPDX-License-Identifier: MIT */
/* window.c - prediction on a window of a long trace.  A property's slice
 * holds every earlier transition it depends on, and on a lock-heavy
 * trace that is nearly the whole run: no solver decides it.  Instead the
 * run's first K transitions (a cut in recorded order) are fixed in their
 * recorded order, a feasible prefix by construction since the recorded
 * run is feasible, and only the transitions K .. E-1 around the property's
 * regions (another kind's: its targets, encoded with the kind's goal,
 * kinds.c) are sliced (reduce/slice.c, windowed) and encoded, starting in
 * the state the recorded prefix leaves: memory values, locks held,
 * semaphore counts, once objects done (smt.h, ft_smt_start).  Condition
 * waits and barrier episodes carry state the encoding has no start for,
 * so a cut never falls inside one.  Every schedule of the window model,
 * after the prefix, is a feasible prefix of the whole model: a violation
 * found in a window is real.  No violation in a window proves nothing
 * about the others, so the window grows (4x each time) until it covers
 * the trace, when "holds" is proved (from the trace's start, the model
 * clipped where the value order says the rest must follow the property
 * is the whole one: prop_clip), or until its slice passes
 * opts.window_max_trans or the time is up, when the verdict is unknown
 * and says how far it looked (window_holds).  docs/prediction.md,
 * "windows". */
#include "predict/window.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct ft_window_index {
    atomic_uint refs; /* holders (ft_window_index_ref) */
    ft_slice_index *slice;
    uint8_t *cut_ok; /* [K]: the prefix 0 .. K-1 leaves no cond wait,
                        no barrier episode open and no glued step
                        without its next */
    ft_value_order *vorder; /* NULL: too big to keep, not used */
};

ft_window_index *ft_window_index_new(ft_ctm *c)
{
    return ft_window_index_new_until(c, 0);
}

ft_window_index *ft_window_index_new_until(ft_ctm *c, double until)
{
    ft_window_index *w = calloc(1, sizeof *w);
    int32_t *diff = calloc((size_t)c->ntrans + 2, sizeof *diff);
    if (!w || !diff || (!c->hb_vc && ft_ctm_hb_prepare(c)))
        goto fail;
    atomic_init(&w->refs, 1);
    w->slice = ft_slice_index_new(c);
    w->cut_ok = malloc((size_t)c->ntrans + 1);
    if (!w->slice || !w->cut_ok)
        goto fail;
    /* a cut K is bad when a wait or arrival is before it (id < K) and
     * its wake-up or departure is not (id >= K) */
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t open = NONE;
        for (uint32_t p = 0; p < c->len[t]; p++) {
            uint32_t x = ft_ctm_at(c, t, p);
            unsigned op = c->op[x];
            if ((op == FT_OP_WAIT_PRE || op == FT_OP_BARRIER_ARRIVE) &&
                open == NONE) {
                open = x;
            } else if (open != NONE &&
                       ((op == FT_OP_WAIT_POST &&
                         c->op[open] == FT_OP_WAIT_PRE) ||
                        (op == FT_OP_BARRIER_LEAVE &&
                         c->op[open] == FT_OP_BARRIER_ARRIVE))) {
                diff[open + 1]++;
                diff[x + 1]--;
                open = NONE;
            }
        }
        if (open != NONE) {
            diff[open + 1]++;
            diff[c->ntrans + 1]--;
        }
    }
    int64_t run = 0;
    for (uint32_t k = 0; k <= c->ntrans; k++) {
        run += diff[k];
        /* nor between two glued steps: the window's first step could
         * then be another thread's */
        w->cut_ok[k] = run == 0 && !(k > 0 && ft_ctm_binds(c, k - 1));
    }
    free(diff);
    w->vorder = ft_value_order_new_until(c, w->slice, until);
    return w;
fail:
    free(diff);
    ft_window_index_free(w);
    return NULL;
}

ft_window_index *ft_window_index_ref(ft_window_index *w)
{
    if (w)
        atomic_fetch_add(&w->refs, 1);
    return w;
}

void ft_window_index_free(ft_window_index *w)
{
    if (!w || atomic_fetch_sub(&w->refs, 1) > 1)
        return;
    ft_value_order_free(w->vorder);
    ft_slice_index_free(w->slice);
    free(w->cut_ok);
    free(w);
}

const ft_value_order *ft_window_index_vorder(const ft_window_index *w)
{
    return w->vorder;
}

const ft_slice_index *ft_window_index_slice(const ft_window_index *w)
{
    return w->slice;
}

/* Whether p is one of the other kinds (kind.h), whose transitions are
 * its targets, not regions. */
static int is_kind(const ft_prop *p)
{
    return p->kind != FT_PROP_CA && p->kind != FT_PROP_CMA;
}

/* The first and last transition (ids) of p's regions (a kind's targets). */
static void prop_span(const ft_ctm *c, const ft_prop *p, uint32_t *first,
                      uint32_t *last)
{
    uint32_t nreg = is_kind(p) ? 0 : p->kind == FT_PROP_CMA ? 2 : 1;
    *first = NONE;
    *last = 0;
    for (uint32_t i = 0; is_kind(p) && i < p->ntgt; i++) {
        if (p->tgt[i] < *first)
            *first = p->tgt[i];
        if (p->tgt[i] > *last)
            *last = p->tgt[i];
    }
    for (uint32_t g = 0; g < nreg; g++) {
        uint32_t a = ft_ctm_at(c, p->r[g].thread, p->r[g].first);
        uint32_t b = ft_ctm_at(c, p->r[g].thread, p->r[g].last);
        if (a < *first)
            *first = a;
        if (b > *last)
            *last = b;
    }
}

/* p's transitions: its regions' (a kind's targets), *n; NULL: no memory. */
static uint32_t *prop_trans(const ft_ctm *c, const ft_prop *p, uint32_t *n)
{
    uint32_t nreg = is_kind(p) ? 0 : p->kind == FT_PROP_CMA ? 2 : 1;
    *n = is_kind(p) ? p->ntgt : 0;
    for (uint32_t g = 0; g < nreg; g++)
        *n += p->r[g].last - p->r[g].first + 1;
    uint32_t *v = malloc(sizeof *v * (*n + 1));
    if (!v)
        return NULL;
    *n = 0;
    for (uint32_t i = 0; is_kind(p) && i < p->ntgt; i++)
        v[(*n)++] = p->tgt[i];
    for (uint32_t g = 0; g < nreg; g++)
        for (uint32_t q = p->r[g].first; q <= p->r[g].last; q++)
            v[(*n)++] = ft_ctm_at(c, p->r[g].thread, q);
    return v;
}

/* end[t]: one past the last position of p's transitions in thread t, 0
 * for a thread without any. */
static int prop_ends(const ft_ctm *c, const ft_prop *p, uint32_t *end)
{
    uint32_t n;
    uint32_t *v = prop_trans(c, p, &n);
    if (!v)
        return -1;
    memset(end, 0, sizeof *end * c->nthreads);
    for (uint32_t i = 0; i < n; i++)
        if (c->pos[v[i]] + 1 > end[c->tid[v[i]]])
            end[c->tid[v[i]]] = c->pos[v[i]] + 1;
    free(v);
    return 0;
}

int ft_window_value_holds(const ft_window_index *w, const ft_prop *p,
                          const ft_predict_opts *o)
{
    /* a kind asks the value order itself, before (kinds.c) */
    return !o->no_value_order && w->vorder && !is_kind(p) &&
           ft_value_order_holds(w->vorder, p);
}

int ft_window_covers_all(const ft_ctm *c, const ft_prop *p, uint32_t window)
{
    uint32_t first, last;
    prop_span(c, p, &first, &last);
    return first <= window && (uint64_t)last + 1 + window >= c->ntrans;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* What smt/data.c will build for the window model s, in terms: every read
 * of a shared variable takes each write of its value as a source, each
 * with a "no write in between" over every write of the variable, so
 * sum(reads x writes of the value x writes).  On traces with few values
 * (flags, small counters) that grows as the cube of the window; the
 * window is not solved past FT_WINDOW_MAX_TERMS.  UINT64_MAX on OOM. */
static uint64_t data_terms(const ft_ctm *s)
{
    uint64_t *vals = malloc(sizeof *vals * ((size_t)s->ntrans + 1));
    uint32_t *xs = malloc(sizeof *xs * ((size_t)s->ntrans + 1));
    uint32_t *start = calloc((size_t)s->nvars + 2, sizeof *start);
    uint64_t terms = 0;
    if (!vals || !xs || !start) {
        terms = UINT64_MAX;
        goto out;
    }
    for (uint32_t x = 0; x < s->ntrans; x++)
        if (s->obj[x] < s->nvars)
            start[s->obj[x] + 1]++;
    for (uint32_t v = 0; v < s->nvars; v++)
        start[v + 1] += start[v];
    for (uint32_t x = 0; x < s->ntrans; x++)
        if (s->obj[x] < s->nvars)
            xs[start[s->obj[x]]++] = x;
    for (uint32_t v = s->nvars; v > 0; v--)
        start[v] = start[v - 1];
    start[0] = 0;
    for (uint32_t v = 0; v < s->nvars; v++) {
        if (s->vars[v].kind != FT_VAR_MEMORY || !s->vars[v].shared)
            continue;
        uint32_t nw = 0;
        for (uint32_t q = start[v]; q < start[v + 1]; q++) {
            uint32_t x = xs[q];
            if (ft_ctm_writes(s, x))
                vals[nw++] = ft_ctm_written(s, x);
        }
        qsort(vals, nw, sizeof *vals, cmp_u64);
        for (uint32_t q = start[v]; q < start[v + 1]; q++) {
            uint32_t x = xs[q];
            if (!ft_ctm_reads(s, x))
                continue;
            uint32_t a = 0, b = nw; /* writes of the read's value */
            while (a < b) {
                uint32_t m = a + (b - a) / 2;
                if (vals[m] < s->value[x]) a = m + 1; else b = m;
            }
            uint32_t lo = a;
            b = nw;
            while (a < b) {
                uint32_t m = a + (b - a) / 2;
                if (vals[m] <= s->value[x]) a = m + 1; else b = m;
            }
            terms += (uint64_t)(a - lo + 1) * (nw + 1);
        }
    }
out:
    free(vals);
    free(xs);
    free(start);
    return terms;
}

/* About 100 MB of Z3 terms and seconds to build (a 1040-block window
 * of 3.5 M terms took 90 s and 4 GB to encode); windows whose data rule
 * needs more are not solved (opts.window_max_trans's limit, in terms). */
#define FT_WINDOW_MAX_TERMS 300000u
/* Terms encoded per second, low (bench/predict on this project's 2-core
 * machines: 40 000-100 000): a window whose data rule would take longer
 * to encode than the property has left is not built (encoding cannot be
 * interrupted; a property with a 10 s limit took 20 s that way). */
#define FT_TERMS_PER_SECOND 40000.0
/* The hunt's window (transitions each side of the regions). */
#define FT_HUNT_HALF 64u

typedef struct window_model {
    ft_reduced *r;
    ft_smt_start st;
} window_model;

static void window_model_free(window_model *m)
{
    ft_reduced_free(m->r);
    free(m->st.holds);
    free(m->st.sem_obj);
    free(m->st.sem_count);
    free(m->st.once_done);
    memset(m, 0, sizeof *m);
}

/* Clips a slice for a violation hunt: thread t keeps at most clip[t]
 * positions, then less until whatever a kept transition must follow
 * (fork, join) is kept.  Each thread's kept part is still a prefix, so
 * every schedule of the clipped model is one of the whole model's
 * prefixes: a violation in it is real; "holds" in it means nothing,
 * unless it starts at the trace's start and keeps all prop_clip allows
 * (ft_predict_windowed).
 * -1 when one of p's transitions (end: prop_ends) would be lost. */
static int clip_cut(const ft_ctm *c, const uint32_t *end, const uint32_t *lo,
                    const uint32_t *clip, uint32_t *cut)
{
    uint32_t nt = c->nthreads;
    for (uint32_t t = 0; t < nt; t++)
        if (cut[t] > clip[t])
            cut[t] = clip[t] > lo[t] ? clip[t] : lo[t];
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++)
            for (uint32_t q = lo[t]; q < cut[t]; q++) {
                uint32_t x = ft_ctm_at(c, t, q), j;
                for (j = 0; j < nt; j++)
                    if (j != t && ft_ctm_hb_before(c, x, j) > cut[j])
                        break;
                if (j < nt) {
                    cut[t] = q;
                    changed = 1;
                }
            }
    }
    for (uint32_t t = 0; t < nt; t++)
        if (cut[t] < end[t])
            return -1;
    return 0;
}

/* The sliced, reduced model of p's transitions k .. e-1 and its start;
 * *size is the slice's transition count, and past max_trans (0: no
 * limit) m->r stays NULL.  clip (NULL: none): see clip_cut. */
static int build(ft_ctm *c, const ft_window_index *w, const ft_prop *p,
                 uint32_t k, uint32_t e, unsigned flags, uint32_t max_trans,
                 uint64_t max_terms, const uint32_t *clip, uint32_t *size,
                 window_model *m)
{
    uint32_t nt = c->nthreads, n = 0;
    uint32_t *lo = malloc(sizeof *lo * (4 * (size_t)nt + 1));
    uint8_t *keep = calloc((size_t)c->ntrans + 1, 1);
    uint32_t *prop = prop_trans(c, p, &n), *map = NULL;
    ft_ctm *s = NULL;
    int rc = -1;
    memset(m, 0, sizeof *m);
    if (!lo || !keep || !prop)
        goto out;
    uint32_t *hi = lo + nt, *cut = hi + nt, *end = cut + nt;
    for (uint32_t t = 0; t < nt; t++) {
        lo[t] = ft_ctm_pos_before(c, t, k);
        hi[t] = ft_ctm_pos_before(c, t, e);
    }
    int big = ft_slice_mark_window(c, w->slice, prop, n, lo, hi, cut,
                                   clip ? 0 : max_trans);
    if (big < 0)
        goto out;
    if (big) { /* too big to solve: no model */
        *size = max_trans < UINT32_MAX - 1 ? max_trans + 1 : UINT32_MAX - 1;
        rc = 0;
        goto out;
    }
    if (clip && (prop_ends(c, p, end) || clip_cut(c, end, lo, clip, cut))) {
        rc = 0; /* no hunt: no model */
        goto out;
    }
    *size = 0;
    for (uint32_t t = 0; t < nt; t++)
        *size += cut[t] - lo[t];
    if (max_trans && *size > max_trans) { /* too big to solve: no model */
        rc = 0;
        goto out;
    }
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t q = lo[t]; q < cut[t]; q++)
            keep[ft_ctm_at(c, t, q)] = 1;
    s = ft_ctm_subset(c, keep, &map);
    if (!s || ft_window_start_state(c, w->slice, k, lo, s, &m->st))
        goto out;
    m->st.at = k;
    /* A clip can cut away the write a kept read took its value from
     * (another thread's, after that thread's clip): the read's variable
     * would be local in the subset, and a local read returns whatever
     * it returned, with no data rule to stop its thread.  Shared, the
     * read matches only a kept write of its value (or the start's), as
     * in the whole run (test_kinds_random's data-race seed 10: a race
     * predicted past a read whose only source came after the clip). */
    for (uint32_t x = 0; clip && x < s->ntrans; x++)
        if (ft_ctm_reads(s, x) && s->obj[x] < s->nvars &&
            s->vars[s->obj[x]].kind == FT_VAR_MEMORY &&
            c->vars[s->obj[x]].shared)
            s->vars[s->obj[x]].shared = 1;
    if (max_trans && data_terms(s) > max_terms) {
        *size = UINT32_MAX; /* too big to encode: no model */
        rc = 0;
        goto out;
    }
    m->r = ft_reduce(s, flags | FT_REDUCE_NO_COUNT | FT_REDUCE_NO_MAT_LIST);
    if (!m->r)
        goto out;
    m->r->owned = s;
    m->r->orig = map;
    s = NULL;
    map = NULL;
    rc = 0;
out:
    ft_ctm_free(s);
    free(map);
    free(lo);
    free(keep);
    free(prop);
    if (rc)
        window_model_free(m);
    return rc;
}

/* The window of half-width half around transitions first .. last: the
 * cut *k (moved earlier until no wait or barrier episode is open across
 * it) and the end *e. */
static void window_range(const ft_ctm *c, const ft_window_index *w,
                         uint32_t first, uint32_t last, uint64_t half,
                         uint32_t *k, uint32_t *e)
{
    *k = first > half ? first - (uint32_t)half : 0;
    while (*k > 0 && !w->cut_ok[*k])
        (*k)--;
    uint64_t e64 = (uint64_t)last + 1 + half;
    *e = e64 < c->ntrans ? (uint32_t)e64 : c->ntrans;
}

/* The data-rule terms a window may have to be encoded before until. */
static uint64_t terms_until(double until)
{
    if (until <= 0)
        return FT_WINDOW_MAX_TERMS;
    double fit = (until - ft_predict_now()) * FT_TERMS_PER_SECOND;
    return fit >= FT_WINDOW_MAX_TERMS ? FT_WINDOW_MAX_TERMS
           : fit > 0                  ? (uint64_t)fit
                                      : 0;
}

/* The clipped whole model (ft_predict_windowed) is tried only when what
 * it reaches is this short: its slice is marked without the window's
 * limit (clip_cut cuts it afterwards), which costs the transitions up
 * to reach. */
#define CLIP_WHOLE_MAX 65536u

/* A quarter of the time left before deadline (0: none). */
static double quarter_until(double deadline)
{
    return deadline > 0
               ? ft_predict_now() + (deadline - ft_predict_now()) / 4
               : 0;
}

/* The clip of p (NULL: no value order, or out of memory; free it):
 * clip[t] is how many of thread t's first positions can take part in a
 * violation.  p's threads stop at their last transition of p; another
 * thread stops where the value order says it must follow the last
 * transition of p in every one of p's threads: a violating prefix ends
 * at the step that completes it, which none of those can precede.  The
 * hunt clips with it.  *reach, one past the last id the clip keeps,
 * says when the clipped model from the trace's start is also the whole
 * model's equal (its "holds" a proof): never for a CMA, whose causal
 * chains run on past a region's end, nor when one of p's transitions
 * must follow another of p's threads' last one (the relation may then
 * rest on a read of p that returns another value in a violation); then
 * *reach is UINT32_MAX.  test_kinds_random and test_predict_random
 * check the claims against the enumerator. */
static uint32_t *prop_clip(const ft_ctm *c, const ft_window_index *w,
                           const ft_prop *p, uint32_t *reach)
{
    uint32_t nt = c->nthreads;
    if (!w->vorder)
        return NULL;
    uint32_t *clip = calloc(2 * (size_t)nt + 1, sizeof *clip);
    uint32_t *end = clip ? clip + nt : NULL;
    if (!clip || prop_ends(c, p, end)) {
        free(clip);
        return NULL;
    }
    for (uint32_t a = 0; a < nt; a++)
        for (uint32_t t = 0; end[a] && t < nt; t++) {
            uint32_t q =
                ft_value_order_first_after(w->vorder, t, a, end[a] - 1);
            if (t != a && q > clip[t])
                clip[t] = q;
        }
    int sound = 1; /* no transition of p follows another thread's end */
    for (uint32_t a = 0; a < nt; a++)
        for (uint32_t b = 0; end[a] && b < nt; b++)
            if (b != a && end[b] &&
                ft_value_order_first_after(w->vorder, a, b, end[b] - 1) <
                    end[a])
                sound = 0;
    *reach = 0;
    for (uint32_t t = 0; t < nt; t++) {
        if (end[t])
            clip[t] = end[t];
        if (clip[t] && ft_ctm_at(c, t, clip[t] - 1) + 1 > *reach)
            *reach = ft_ctm_at(c, t, clip[t] - 1) + 1;
    }
    /* A CMA's region 1 thread can, after its region, write what region
     * 2 then reads while it is open (test_predict_random's CMA seed 21
     * and others: taken as whole, the clipped model said holds). */
    if (!sound || p->kind == FT_PROP_CMA)
        *reach = UINT32_MAX;
    return clip;
}

/* A hunt for a violation on a narrow first window, clipped (clip_cut):
 * the regions' threads stop at their region's end and the others where
 * the value order says they must follow every region, since what comes
 * later cannot take part in the violation.  On a lock-heavy trace the
 * window's slice otherwise holds every later critical section on the
 * regions' locks, up to where the recording last switched threads.  1
 * with res filled when a violation was found; else what the solver
 * spent is added to *iters and *solve_s. */
static int hunt(ft_ctm *c, const ft_window_index *w, const ft_prop *p,
                const uint32_t *clip, const ft_predict_opts *o, double deadline,
                ft_presult *res, uint32_t *iters, double *solve_s)
{
    uint32_t first, last, k, e, size = 0;
    if (!clip || !o->window)
        return 0;
    /* narrow: what a clipped window drops is what made it slow */
    prop_span(c, p, &first, &last);
    window_range(c, w, first, last,
                 o->window < FT_HUNT_HALF ? o->window : FT_HUNT_HALF, &k, &e);
    double until = quarter_until(deadline);
    window_model m;
    int found = 0;
    if (build(c, w, p, k, e, o->reduce_flags, o->window_max_trans,
              terms_until(until), clip, &size, &m))
        return 0;
    if (m.r) {
        ft_presult cur;
        memset(&cur, 0, sizeof cur);
        cur.verdict = FT_ERROR;
        ft_predict_model(c, m.r, k ? &m.st : NULL, p, o, until, &cur);
        *iters += cur.iterations;
        *solve_s += cur.solve_seconds;
        if (cur.verdict == FT_VIOLATED) {
            cur.iterations = *iters;
            cur.solve_seconds = *solve_s;
            cur.windows = 1;
            cur.window_first = k;
            cur.window_end = e;
            cur.prefix = k;
            ft_presult_free(res);
            *res = cur;
            found = 1;
        } else {
            ft_presult_free(&cur);
        }
    }
    window_model_free(&m); /* a model too big to solve has its start */
    return found;
}

void ft_presult_value_order(const ft_ctm *c, ft_presult *res)
{
    res->verdict = FT_HOLDS;
    res->window_first = 0;
    res->window_end = c->ntrans;
    res->windows = 0;
    ft_presult_why(res, "the recorded values order the regions (value order)");
}

int ft_predict_windowed(ft_ctm *c, const ft_window_index *w, const ft_prop *p,
                        const ft_predict_opts *o, double deadline,
                        ft_presult *res)
{
    ft_window_index *own = NULL;
    if (!w && !(w = own = ft_window_index_new(c))) {
        ft_presult_why(res, "out of memory");
        return res->verdict = FT_ERROR;
    }
    uint32_t iters = 0, reach = c->ntrans;
    double solve_s = 0;
    uint32_t *clip = NULL;
    int decided = ft_window_value_holds(w, p, o);
    if (decided) {
        ft_presult_value_order(c, res);
    } else {
        clip = prop_clip(c, w, p, &reach);
        decided = hunt(c, w, p, clip, o, deadline, res, &iters, &solve_s);
    }
    if (decided) {
        free(clip);
        ft_window_index_free(own);
        return res->verdict;
    }
    uint32_t first, last, held_first = 0, held_end = 0, windows = 0;
    int narrowed = 0, clip_tried = 0;
    char why[160] = "";
    prop_span(c, p, &first, &last);
    for (uint64_t half = o->window;; half *= 4) {
        uint32_t k, e;
        int clipped = 0;
        window_range(c, w, first, last, half, &k, &e);
        int whole = k == 0 && e == c->ntrans;
        window_model m;
        uint32_t size = 0;
        uint64_t max_terms = terms_until(deadline);
        /* From the trace's start, the clipped model up to reach has
         * every transition a violating prefix can hold: its verdict is
         * the whole trace's, holds included, and it is often much
         * smaller than the window (C-Thread-Pool's counter reads: what
         * reads the values written after them).  Too big: the window.
         * Like the hunt's, the clip asks the value order even when the
         * cheap decisions may not (the kinds' solving pass sets
         * no_value_order: they were made already).  Tried once. */
        if (k == 0 && clip && !whole && !clip_tried &&
            reach <= CLIP_WHOLE_MAX) {
            uint32_t ce = reach > e ? reach : e;
            clip_tried = 1;
            if (build(c, w, p, 0, ce, o->reduce_flags, o->window_max_trans,
                      max_terms, clip, &size, &m) == 0 &&
                m.r) {
                e = ce;
                whole = 1;
                clipped = 1;
            } else {
                window_model_free(&m);
            }
        }
        if (!clipped &&
            build(c, w, p, k, e, o->reduce_flags, o->window_max_trans,
                  max_terms, NULL, &size, &m)) {
            ft_presult_free(res);
            res->verdict = FT_ERROR;
            ft_presult_why(res, "window %u..%u: slicing failed", k, e);
            break;
        }
        if (!m.r && !windows && half > 4) {
            /* the first window is too big to solve: a narrower one (4x
             * narrower each time) may not be */
            window_model_free(&m);
            half /= 16;
            continue;
        }
        if (!m.r) {
            const char *which = windows ? "next" : "smallest";
            if (size == UINT32_MAX && max_terms < FT_WINDOW_MAX_TERMS)
                snprintf(why, sizeof why,
                         "its time was nearly spent: the %.1f s left encode "
                         "%llu terms, and the %s window's data rule has more",
                         fmax(deadline - ft_predict_now(), 0.0),
                         (unsigned long long)max_terms, which);
            else if (size == UINT32_MAX)
                snprintf(why, sizeof why,
                         "the %s window's data rule has over %llu terms", which,
                         (unsigned long long)max_terms);
            else
                snprintf(why, sizeof why,
                         "the %s window's slice has over %u transitions", which,
                         o->window_max_trans);
            window_model_free(&m);
            if (!windows) { /* nothing solved: the regions are too far
                               apart for any window */
                res->verdict = FT_UNKNOWN;
                res->windows = 0;
                res->window_first = k;
                res->window_end = e;
                ft_presult_why(res, "not solved: %s", why);
            }
            break;
        }
        ft_presult cur;
        memset(&cur, 0, sizeof cur);
        cur.verdict = FT_ERROR;
        /* The first window may be too dense to solve (critical sections
         * of several threads on one lock, near a thread switch of the
         * recording): it gets a quarter of the time, and if the solver
         * gives up within it, a window 4x narrower is tried.  The
         * clipped whole model gets half, and if the solver gives up
         * within it, the same window unclipped (C-Thread-Pool: one order
         * candidate's clipped model took the 14 s its second pass had
         * and ended interrupted, and three candidates got none). */
        int narrowable =
            !windows && !narrowed && half > 16 && deadline > 0 && !clipped;
        double until =
            narrowable ? quarter_until(deadline)
            : clipped && deadline > 0
                ? ft_predict_now() + (deadline - ft_predict_now()) / 2
                : deadline;
        ft_predict_model(c, m.r, k ? &m.st : NULL, p, o, until, &cur);
        window_model_free(&m);
        if (clipped && cur.verdict == FT_UNKNOWN && deadline > 0 &&
            ft_predict_now() < deadline) {
            iters += cur.iterations;
            solve_s += cur.solve_seconds;
            ft_presult_free(&cur);
            half /= 4; /* the same window again */
            continue;
        }
        if (narrowable && cur.verdict == FT_UNKNOWN &&
            ft_predict_now() < deadline) {
            iters += cur.iterations;
            solve_s += cur.solve_seconds;
            ft_presult_free(&cur);
            narrowed = 1;
            half /= 16;
            continue;
        }
        windows++;
        iters += cur.iterations;
        solve_s += cur.solve_seconds;
        cur.iterations = iters;
        cur.solve_seconds = solve_s;
        cur.windows = windows;
        cur.window_first = k;
        cur.window_end = clipped ? c->ntrans : e;
        cur.prefix = cur.verdict == FT_VIOLATED ? k : 0;
        if (cur.verdict == FT_UNKNOWN && held_end) {
            snprintf(why, sizeof why, "the next window (%u..%u): %.60s", k, e,
                     ft_presult_reason(&cur));
            cur.window_first = held_first;
            cur.window_end = held_end;
        }
        ft_presult_free(res);
        *res = cur;
        if (res->verdict != FT_HOLDS || whole)
            break;
        held_first = k;
        held_end = e;
        if (deadline > 0 && ft_predict_now() >= deadline) {
            snprintf(why, sizeof why, "time limit reached");
            break;
        }
    }
    if ((res->verdict == FT_HOLDS || (res->verdict == FT_UNKNOWN && why[0])) &&
        held_end && !(res->window_first == 0 && res->window_end == c->ntrans)) {
        res->verdict = FT_UNKNOWN;
        res->window_holds = 1;
        res->window_first = held_first;
        res->window_end = held_end;
        ft_presult_why(res, "no violation in transitions %u..%u (of %u); the whole "
                 "trace was not solved: %s",
                 held_first, held_end, c->ntrans, why);
    }
    free(clip);
    ft_window_index_free(own);
    return res->verdict;
}

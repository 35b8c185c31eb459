/* SPDX-License-Identifier: MIT */
/* pipeline.c - stages ii-iv on one trace, the orchestration behind
 * `foretell analyze`: the trace is loaded once into infer/'s in-memory
 * form (foretell or STD), and the CTM, the MAT proof of stage iii and the
 * properties of stage iv are all built from those same events, so that
 * infer/'s event indices, the CTM's transitions and the schedule files'
 * per-thread indices agree whatever format the trace came in. */
#include "predict/decide.h"
#include "predict/kind.h"
#include "predict/predict.h"
#include "predict/window.h"

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(ft_error *err, const char *path, uint64_t offset,
                    const char *msg)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->offset = offset;
    snprintf(err->message, sizeof err->message, "%s", msg);
}

/* A foretell trace opens with a chunk, a msgpack fixarray(4) (0x94);
 * STD is text.  The ".std" extension decides for files that are empty. */
static int detect_format(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".std") == 0)
        return FT_INPUT_STD;
    FILE *f = ft_fopen_regular(path, NULL, 0);
    if (!f)
        return FT_INPUT_FORETELL; /* the reader names the error */
    int ch = fgetc(f);
    fclose(f);
    if (ch == 0x94 || ch == EOF)
        return FT_INPUT_FORETELL;
    return (ch >= 0x20 && ch < 0x7f) || ch == '\n' || ch == '\t'
               ? FT_INPUT_STD
               : FT_INPUT_FORETELL;
}

int ft_pipeline_load(ft_pipeline *pl, const char *path, int format,
                     ft_error *err)
{
    return ft_pipeline_load_bounded(pl, path, format, NULL, err);
}

int ft_pipeline_load_bounded(ft_pipeline *pl, const char *path, int format,
                             ft_budget *budget, ft_error *err)
{
    memset(pl, 0, sizeof *pl);
    memset(err, 0, sizeof *err);
    fi_trace_init(&pl->trace);
    pl->path = path;
    pl->budget = budget;
    pl->format = format == FT_INPUT_DETECT ? detect_format(path) : format;
    ft_budget_poll(budget, "loading", 0, 0);
    if (pl->format == FT_INPUT_STD)
        return fi_std_read_path(&pl->trace, path, err) < 0 ? -1 : 0;
    int rc = fi_trace_load_bounded(&pl->trace, path, budget, err);
    if (rc == 1) {
        pl->damaged = 1;
        pl->damage = *err;
    }
    if (rc == 2) {
        pl->stopped = "loading";
        rc = 0;
    }
    return rc;
}

/* The trace details reports and schedules need, from the loaded events:
 * the same per-thread event numbering the replay runtime counts. */
static int info_from_trace(ft_pipeline *pl)
{
    ft_trace_info *ti = &pl->info;
    const fi_trace *t = &pl->trace;
    const ft_ctm *c = pl->ctm;
    ti->path = strdup(pl->path);
    ti->program = strdup("");
    if (pl->format == FT_INPUT_FORETELL) {
        ft_error e;
        ft_reader *rd = ft_reader_open(pl->path, &e);
        const ft_header *h = rd ? ft_reader_header(rd) : NULL;
        if (h && h->program) {
            free(ti->program);
            ti->program = strdup(h->program);
        }
        pl->names = rd; /* kept for variable names in reports */
    }
    ft_pipeline_var_callbacks(ti);
    ti->var_ctx = pl;
    ti->ntrans = c->ntrans;
    ti->tindex = calloc(c->ntrans + 1, sizeof *ti->tindex);
    ti->kind = calloc(c->ntrans + 1, sizeof *ti->kind);
    uint64_t *count = calloc(t->nthreads + 1, sizeof *count);
    ti->nsites = t->nsites + 1;
    ti->site_file = calloc(ti->nsites, sizeof *ti->site_file);
    ti->site_func = calloc(ti->nsites, sizeof *ti->site_func);
    ti->site_line = calloc(ti->nsites, sizeof *ti->site_line);
    if (!ti->path || !ti->program || !ti->tindex || !ti->kind || !count ||
        !ti->site_file || !ti->site_func || !ti->site_line) {
        free(count);
        return -1;
    }
    uint32_t j = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *ev = &t->ev[i];
        while (j < c->ntrans && c->event[j] < i)
            j++;
        while (j < c->ntrans && c->event[j] == i) {
            ti->tindex[j] = (uint32_t)count[ev->tid];
            ti->kind[j] = ev->kind;
            j++;
        }
        if (ev->tid < t->nthreads)
            count[ev->tid]++;
    }
    free(count);
    for (uint32_t id = 1; id < ti->nsites; id++) {
        const ft_site *s = &t->sites[id - 1];
        if (s->file && !(ti->site_file[id] = strdup(s->file)))
            return -1;
        if (s->function && !(ti->site_func[id] = strdup(s->function)))
            return -1;
        ti->site_line[id] = s->line;
    }
    return ft_trace_info_where(ti, pl->names);
}

/* infer/'s properties (regions as trace event ranges) as ft_prop (CTM
 * positions).  A region without a transition (only local events) cannot
 * be interleaved: its property is counted in nunmapped and dropped. */
static int map_properties(ft_pipeline *pl)
{
    const fi_analysis *a = &pl->infer;
    pl->props = calloc(a->nprops + 1, sizeof *pl->props);
    if (!pl->props)
        return -1;
    /* CMA properties first: their slices hold two regions only and are
     * cheaper to solve than a CA property's (paper section VI), so with
     * stop_after the first violations come sooner. */
    for (size_t pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < a->nprops; k++) {
        const fi_property *fp = &a->props[k];
        if ((fp->kind == FI_PROP_CMA) != (pass == 0))
            continue;
        ft_prop p = {.id = (uint32_t)k,
                     .kind = fp->kind == FI_PROP_CMA ? FT_PROP_CMA
                                                     : FT_PROP_CA};
        uint32_t ids[2] = {fp->r1, fp->r2};
        int ok = 1;
        for (int g = 0; g < (p.kind == FT_PROP_CMA ? 2 : 1) && ok; g++) {
            const fi_region *r = &a->regions[ids[g]];
            ok = ft_pregion_from_events(pl->ctm, r->tid, r->first, r->last,
                                        &p.r[g]) == 0;
        }
        if (ok)
            pl->props[pl->nprops++] = p;
        else
            pl->nunmapped++;
    }
    return 0;
}

int ft_pipeline_infer(ft_pipeline *pl, const fi_options *o, ft_error *err)
{
    double t0 = ft_now();
    const fi_trace *t = &pl->trace;
    ft_budget *b = pl->budget;
    fi_options fo;
    if (o)
        fo = *o;
    else
        fi_options_default(&fo);
    fo.budget = b;
    pl->ctm = ft_ctm_new();
    if (!pl->ctm)
        goto oom;
    /* Out of time already (in loading, or now): no model, no regions, no
     * properties; the report says where the time went. */
    if (pl->stopped || ft_budget_poll(b, "model", 0, t->nev)) {
        if (!pl->stopped)
            pl->stopped = "model";
        if (ft_ctm_finish(pl->ctm) < 0)
            goto oom;
        goto stopped;
    }
    for (size_t i = 0; i < t->nev; i++) {
        if ((i & 0xffff) == 0xffff && ft_budget_poll(b, "model", i, t->nev)) {
            /* the model is cut here: the stages below see a prefix */
            pl->stopped = "model";
            break;
        }
        char msg[200] = "";
        ft_event ev;
        fi_trace_get(t, i, &ev);
        if (ft_ctm_add(pl->ctm, &ev, msg, sizeof msg) != 0) {
            char m[sizeof err->message];
            snprintf(m, sizeof m, "event %zu (thread %u, %s): %s", i,
                     t->ev[i].tid, ft_kind_name(t->ev[i].kind), msg);
            set_err(err, pl->path, i, m);
            return -1;
        }
    }
    if (ft_ctm_finish(pl->ctm) < 0 ||
        ft_ctm_set_code(pl->ctm, t->sites, t->nsites) < 0)
        goto oom;
    if (pl->stopped)
        goto stopped;
    /* The inference before the reduction: they are independent, and this
     * way the reduction's tables (blocks, locksets, i-transactions: 45 MB
     * on 10^6 events) do not coexist with the inference's passes, which
     * were the analysis's peak (issue 16). */
    if (fi_analyze(&pl->infer, t, &fo) < 0)
        goto oom;
    ft_budget_poll(b, "reduction", 0, 0);
    pl->reduced =
        ft_reduce(pl->ctm, FT_REDUCE_NO_COUNT | FT_REDUCE_NO_MAT_LIST);
    if (!pl->reduced)
        goto oom;
    if (pl->infer.stopped)
        pl->stopped = "inference";
    else if (fi_prove_by_reduce(&pl->infer, pl->reduced) < 0 ||
             fi_properties(&pl->infer) < 0)
        goto oom;
    else if (pl->infer.stopped)
        pl->stopped = "properties";
    ft_reduced_drop_itrans(pl->reduced);
    if (info_from_trace(pl) < 0 || ft_pipeline_name_vars(pl) < 0 ||
        map_properties(pl) < 0 || ft_pipeline_group(pl) < 0 ||
        ft_misuse_list(&pl->trace, &pl->misuse, &pl->nmisuse) < 0)
        goto oom;
    for (size_t k = 0; k < pl->infer.nregions; k++)
        pl->nobserved += pl->infer.regions[k].status == FI_ST_OBSERVED;
    pl->infer_seconds = ft_now() - t0;
    return 0;
stopped: /* no regions: the trace details for the report only */
    if (info_from_trace(pl) < 0 ||
        ft_misuse_list(&pl->trace, &pl->misuse, &pl->nmisuse) < 0)
        goto oom;
    pl->infer_seconds = ft_now() - t0;
    return 0;
oom:
    set_err(err, pl->path, UINT64_MAX, "out of memory");
    return -1;
}

/* How far apart, in recorded order, what a property must interleave
 * is: for CMA the span of its two regions, for CA the distance from its
 * region to the nearest transition of another thread.  On a long trace a
 * window holds only what is near, so near properties are the ones a
 * window can decide: they go first (under --time and --stop-after the
 * far ones, which end unknown, no longer use the time). */
typedef struct prop_key {
    uint64_t key;
    size_t index;
} prop_key;

static int prop_key_cmp(const void *pa, const void *pb)
{
    const prop_key *x = pa, *y = pb;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Element i of each array becomes the one at k[i].index, in place: one
 * element held at a time, not a sorted copy of each array (a copy of the
 * results was 107 MB on bench/predict's 10^6-event split trace).
 * The indices of k are spent (set to i) as the cycles are followed. */
static void permute(prop_key *k, size_t n, ft_prop *props,
                    ft_presult *results)
{
    for (size_t s = 0; s < n; s++) {
        if (k[s].index == s)
            continue;
        ft_prop p = props[s];
        ft_presult r = results[s];
        size_t j = s;
        while (k[j].index != s) {
            size_t from = k[j].index;
            props[j] = props[from];
            results[j] = results[from];
            k[j].index = j;
            j = from;
        }
        props[j] = p;
        results[j] = r;
        k[j].index = j;
    }
}

/* The relaxed search's violations (decide_cheaply): property index and
 * result, for the few properties it violated only. */
typedef struct loose_set {
    struct loose_one {
        size_t index;
        ft_presult r;
    } *v;
    size_t n;
} loose_set;

/* The run (index into run[0..nruns), the runs' first ids) holding x. */
static uint32_t run_of(const uint32_t *run, uint32_t nruns, uint32_t x)
{
    uint32_t lo = 0, hi = nruns; /* run[lo] <= x < run[hi] */
    while (hi - lo > 1) {
        uint32_t m = lo + (hi - lo) / 2;
        if (run[m] <= x)
            lo = m;
        else
            hi = m;
    }
    return lo;
}

/* Gives the heap's free pages back to the system between stages: glibc
 * keeps what a stage freed (its mmap threshold grows with the large
 * arrays freed, so later ones come from the heap and stay), and the
 * next stage's peak then adds to it in the resident size. */
static void give_back_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* Puts the decided properties first (with their results), then the rest
 * in solving order: CMA first (map_properties), or near first on a trace
 * long enough for windows.  0 ok, -1 out of memory. */
static int order_for_solving(ft_pipeline *pl, const uint8_t *decided,
                             int near, loose_set *loose)
{
    const ft_ctm *c = pl->ctm;
    uint32_t n = c->ntrans;
    /* where each run of one thread's transitions begins (ids, increasing,
     * then n): one entry per run, not two per transition, at this, the
     * analysis's peak (issue 16) */
    uint32_t nruns = 0;
    for (uint32_t x = 0; near && x < n; x++)
        nruns += x == 0 || c->tid[x - 1] != c->tid[x];
    uint32_t *run = near ? malloc(sizeof *run * ((size_t)nruns + 1)) : NULL;
    prop_key *k = malloc(sizeof *k * (pl->nprops + 1));
    int rc = -1;
    if ((near && !run) || !k)
        goto out;
    nruns = 0;
    for (uint32_t x = 0; near && x < n; x++)
        if (x == 0 || c->tid[x - 1] != c->tid[x])
            run[nruns++] = x;
    if (near)
        run[nruns] = n;
    for (size_t i = 0; i < pl->nprops; i++) {
        const ft_prop *p = &pl->props[i];
        uint64_t key = 0;
        if (decided[i]) {
            k[i] = (prop_key){0, i};
            continue;
        }
        if (!near) {
            k[i] = (prop_key){1, i};
            continue;
        }
        uint32_t a = ft_ctm_at(c, p->r[0].thread, p->r[0].first);
        uint32_t b = ft_ctm_at(c, p->r[0].thread, p->r[0].last);
        if (p->kind == FT_PROP_CMA) {
            uint32_t a2 = ft_ctm_at(c, p->r[1].thread, p->r[1].first);
            uint32_t b2 = ft_ctm_at(c, p->r[1].thread, p->r[1].last);
            key = (uint64_t)(b > b2 ? b : b2) - (a < a2 ? a : a2);
        } else {
            uint32_t lo = run[run_of(run, nruns, a)];
            uint32_t hi = run[run_of(run, nruns, b) + 1] - 1;
            uint64_t before = lo > 0 ? a - lo + 1 : UINT32_MAX;
            uint64_t after = hi + 1 < n ? hi + 1 - b : UINT32_MAX;
            key = before < after ? before : after;
        }
        /* equal distances: CMA first, as before */
        k[i] = (prop_key){2 * (key + 1) + (p->kind != FT_PROP_CMA), i};
    }
    if (pl->nprops) { /* none when --time ran out before properties */
        qsort(k, pl->nprops, sizeof *k, prop_key_cmp);
        /* the stand-ins follow their properties: where each index went */
        if (loose && loose->n) {
            size_t *to = malloc(sizeof *to * pl->nprops);
            if (!to)
                goto out;
            for (size_t j = 0; j < pl->nprops; j++)
                to[k[j].index] = j;
            for (size_t i = 0; i < loose->n; i++)
                loose->v[i].index = to[loose->v[i].index];
            free(to);
        }
        permute(k, pl->nprops, pl->props, pl->results);
    }
    rc = 0;
out:
    free(run);
    free(k);
    return rc;
}

/* The decisions made without the solver (decide.c): the value order's
 * "holds", the search's violations.  Then, for what is left, the search
 * under the paper's data rule (decide.h, relaxed): its violations go to
 * *loose (empty when none), to stand in where the solver ends unknown (the
 * solver's own witness obeys the straight-line bound when one does).
 * Returns how many were decided, -1 OOM. */
static long decide_cheaply(ft_pipeline *pl, const ft_window_index *w,
                           const ft_predict_opts *o, uint8_t *decided,
                           loose_set *loose)
{
    ft_decider *d = ft_decider_new(pl->ctm, w);
    if (!d)
        return 0; /* too big for the executor: everything to the solver */
    /* instances of a static property violated already are not searched:
     * the solver leaves them covered (groups.c) */
    int oom;
    uint8_t *gviol =
        ft_pipeline_violated_groups(pl, pl->props, pl->results, 0, o, &oom);
    if (oom) {
        ft_decider_free(d);
        return -1;
    }
    ft_decide_opts dopt = {o->no_value_order, o->no_search, o->until, 0,
                           pl->budget, "deciding", gviol};
    long n = ft_decide_run(d, pl->props, pl->nprops, &dopt, pl->results,
                           decided);
    pl->decide = *ft_decider_stats(d);
    ft_decider_free(d);
    if (n < 0 || o->no_search || (size_t)n == pl->nprops ||
        (o->until > 0 && ft_now() >= o->until)) {
        free(gviol);
        return n;
    }
    /* the undecided properties alone (a second result for every
     * property was 107 MB on the 10^6-event split trace) */
    size_t left = pl->nprops - (size_t)n, k = 0;
    size_t *idx = malloc(sizeof *idx * (left + 1));
    ft_prop *sub = malloc(sizeof *sub * (left + 1));
    uint8_t *tried = calloc(left + 1, 1);
    ft_presult *lr = calloc(left + 1, sizeof *lr);
    for (size_t i = 0; idx && sub && i < pl->nprops && k < left; i++)
        if (!decided[i]) {
            idx[k] = i;
            sub[k++] = pl->props[i];
        }
    /* a fresh decider: the first one's base has moved past every cut */
    d = idx && sub && tried && lr ? ft_decider_new(pl->ctm, w) : NULL;
    long m = 0; /* no decider (too big, or no memory): no fallback */
    if (d) {
        /* groups the strict search violated are skipped; the stand-ins
         * found here mark gviol too (it is not used after) */
        ft_decide_opts ropt = {1, 0, o->until, 1, pl->budget,
                               "relaxed search", gviol};
        m = ft_decide_run(d, sub, k, &ropt, lr, tried);
        ft_decider_free(d);
    }
    free(gviol);
    free(tried);
    free(sub);
    size_t nv = 0;
    for (size_t j = 0; m > 0 && j < k; j++)
        nv += lr[j].verdict == FT_VIOLATED;
    if (nv && !(loose->v = malloc(sizeof *loose->v * nv)))
        m = -1;
    for (size_t j = 0; lr && j < k; j++) {
        if (m > 0 && lr[j].verdict == FT_VIOLATED) {
            loose->v[loose->n].index = idx[j];
            loose->v[loose->n++].r = lr[j];
        } else {
            ft_presult_free(&lr[j]);
        }
    }
    free(lr);
    free(idx);
    return m < 0 ? -1 : n;
}

/* Where the solver ended unknown (or never got to), the relaxed search's
 * violation (from decide_cheaply), which frees loose. */
static void take_loose(ft_pipeline *pl, loose_set *loose)
{
    for (size_t i = 0; i < loose->n; i++) {
        ft_presult *r = &pl->results[loose->v[i].index];
        ft_presult *l = &loose->v[i].r;
        if (r->verdict == FT_UNKNOWN) {
            double s = r->seconds;
            ft_presult_free(r);
            *r = *l;
            r->seconds += s;
            memset(l, 0, sizeof *l);
            pl->decide.violated++;
            pl->decide.relaxed++;
        }
        ft_presult_free(l);
    }
    free(loose->v);
    loose->v = NULL;
    loose->n = 0;
}

long ft_pipeline_predict(ft_pipeline *pl, const ft_predict_opts *o,
                         size_t stop_after, ft_progress_fn *progress,
                         void *arg)
{
    double t0 = ft_now();
    pl->results = calloc(pl->nprops + 1, sizeof *pl->results);
    uint8_t *decided = calloc(pl->nprops + 1, 1);
    if (!pl->results || !decided) {
        free(decided);
        return -1;
    }
    ft_predict_opts own = *o;
    ft_budget_poll(pl->budget, "deciding", 0, pl->nprops);
    own.until = ft_pipeline_solve_until(pl, o, t0);
    o = &own;
    /* the value order, the slicing index and the cuts of windows: built
     * once for the decisions and the windows */
    ft_window_index *w = NULL;
    int windowed = 0;
    for (size_t i = 0; i < pl->nprops && o->window && !o->no_slice; i++)
        windowed |= !ft_window_covers_all(pl->ctm, &pl->props[i], o->window);
    /* none when the bound is spent already: nothing will be decided,
     * and at 10^7 events the index takes seconds */
    int gone = own.until > 0 && ft_now() >= own.until;
    if (pl->nprops && !o->no_slice && !gone &&
        !(w = ft_window_index_new_until(pl->ctm, own.until))) {
        free(decided);
        return -1;
    }
    loose_set loose = {NULL, 0};
    give_back_memory(); /* the inference's and reduction's passes */
    long ndecided = w ? decide_cheaply(pl, w, o, decided, &loose) : 0;
    give_back_memory(); /* the decisions' */
    if (ndecided < 0 ||
        order_for_solving(pl, decided, windowed, &loose) < 0) {
        take_loose(pl, &loose); /* frees it */
        ft_window_index_free(w);
        free(decided);
        return -1;
    }
    free(decided);
    if (progress && ndecided)
        progress(arg, (size_t)ndecided, pl->nprops);
    ft_budget_poll(pl->budget, "solving", (uint64_t)ndecided, pl->nprops);
    own.until = ft_pipeline_solve_until(pl, &own, t0);
    /* the value order was asked about every property already */
    own.no_value_order = 1;
    long done = ft_pipeline_solve_bounded(
        pl, pl->props, pl->results, pl->nprops, (size_t)ndecided, &own,
        windowed ? w : NULL, w, stop_after, "solving", progress, arg);
    if (done < 0) {
        take_loose(pl, &loose);
        return -1;
    }
    take_loose(pl, &loose);
    pl->nskipped = 0;
    for (size_t i = 0; i < pl->nprops; i++)
        pl->nskipped += pl->results[i].not_solved;
    if (pl->nskipped) {
        int spent = own.until > 0 && ft_now() >= own.until;
        pl->skip_why = spent || pl->abandoned ? "--time" : "--stop-after";
    }
    pl->nviolated = pl->nholds = pl->nunknown = pl->nerror = 0;
    pl->ncovered = 0;
    /* A window's witness follows a recorded prefix (res.prefix) that the
     * trimming, which looks at the steps only, cannot see: kept whole. */
    /* Trimming only shortens a witness (the untrimmed one replays as
     * well): past half of the time kept for it and the schedules, the
     * rest are kept as they are. */
    double trim_until = pl->budget && pl->budget->until > 0
                            ? pl->budget->until - pl->budget->seconds / 20
                            : 0;
    for (size_t i = 0; i < pl->nprops; i++)
        if (pl->results[i].verdict == FT_VIOLATED &&
            !pl->results[i].prefix &&
            (ft_budget_poll(pl->budget, "trimming witnesses", i, pl->nprops),
             trim_until <= 0 || ft_now() < trim_until) &&
            ft_presult_trim(pl->ctm, &pl->props[i], &pl->results[i]) < 0)
            return -1;
    for (size_t i = 0; i < pl->nprops; i++)
        switch (pl->results[i].verdict) {
        case FT_VIOLATED: pl->nviolated++; break;
        case FT_HOLDS: pl->nholds++; break;
        case FT_UNKNOWN: /* nskipped included, ncovered not */
            if (pl->results[i].covered)
                pl->ncovered++;
            else
                pl->nunknown++;
            break;
        default: pl->nerror++; break;
        }
    pl->predict_seconds = ft_now() - t0;
    return (long)pl->nviolated;
}

const fi_region *ft_pipeline_region(const ft_pipeline *pl, uint32_t id)
{
    return id < pl->infer.nregions ? &pl->infer.regions[id] : NULL;
}

void ft_pipeline_free(ft_pipeline *pl)
{
    if (pl->abandoned)
        return; /* the solver thread still reads it: the process exits */
    if (pl->results)
        for (size_t i = 0; i < pl->nprops; i++)
            ft_presult_free(&pl->results[i]);
    free(pl->results);
    free(pl->props);
    for (size_t i = 0; pl->kresults && i < pl->nkprops; i++)
        ft_presult_free(&pl->kresults[i]);
    free(pl->kresults);
    free(pl->kprops);
    free(pl->misuse);
    free(pl->region_suppressed);
    free(pl->heap_types);
    ft_trace_info_free(&pl->info);
    ft_reader_close(pl->names);
    fi_analysis_free(&pl->infer);
    ft_reduced_free(pl->reduced);
    ft_ctm_free(pl->ctm);
    fi_trace_free(&pl->trace);
    memset(pl, 0, sizeof *pl);
}

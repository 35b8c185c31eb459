/* pipeline.c - stages ii-iv on one trace, the orchestration behind
 * `foretell analyze`: the trace is loaded once into infer/'s in-memory
 * form (foretell or STD), and the CTM, the MAT proof of stage iii and the
 * properties of stage iv are all built from those same events, so that
 * infer/'s event indices, the CTM's transitions and the schedule files'
 * per-thread indices agree whatever format the trace came in. */
#include "predict/predict.h"
#include "predict/window.h"
#include "recorder/heapmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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
    FILE *f = fopen(path, "rb");
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
    memset(pl, 0, sizeof *pl);
    memset(err, 0, sizeof *err);
    fi_trace_init(&pl->trace);
    pl->path = path;
    pl->format = format == FT_INPUT_DETECT ? detect_format(path) : format;
    if (pl->format == FT_INPUT_STD)
        return fi_std_read_path(&pl->trace, path, err) < 0 ? -1 : 0;
    int rc = fi_trace_load(&pl->trace, path, err);
    if (rc == 1) {
        pl->damaged = 1;
        pl->damage = *err;
    }
    return rc;
}

static const char *var_name_cb(const void *pl, uint64_t addr, char *buf,
                               size_t len)
{
    return ft_pipeline_var_name(pl, addr, buf, len);
}

/* Gives infer/'s variables their names (a global from the trace's DATA
 * chunks, else the heap object live at the variable's first access, by
 * allocation site and count) so that --regions, --properties and the
 * reports print them.  One pass over the events. */
static int name_vars(ft_pipeline *pl)
{
    if (!pl->names || !pl->infer.var_of)
        return 0;
    const fi_trace *t = &pl->trace;
    uint8_t *done = calloc(pl->infer.nvars + 1, 1);
    ft_heapmap *h = ft_heapmap_new();
    int rc = done && h ? 0 : -1;
    char buf[256], obj[240];
    for (size_t i = 0; rc == 0 && i < t->nev; i++) {
        const ft_event *ev = &t->ev[i];
        if (ft_heapmap_update(h, ev) < 0) {
            rc = -1;
            break;
        }
        uint32_t v = pl->infer.var_of[i];
        if (v >= pl->infer.nvars || done[v])
            continue;
        done[v] = 1;
        uint64_t key = pl->infer.vars[v].key;
        const ft_heap_obj *o;
        const char *n = ft_reader_data_name(pl->names, key, buf, sizeof buf);
        if (!n && (o = ft_heapmap_find(h, key)) != NULL) {
            ft_heap_obj_name(pl->names, o, key, obj, sizeof obj);
            snprintf(buf, sizeof buf, "heap@%s", obj);
            n = buf;
        }
        if (n && !fi_trace_name_of(t, 'V', key) &&
            fi_trace_name(&pl->trace, 'V', key, n) < 0)
            rc = -1;
    }
    free(done);
    ft_heapmap_free(h);
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
    ti->var_name = var_name_cb;
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
        const ft_event *ev = &t->ev[i];
        while (j < c->ntrans && c->event[j] < i)
            j++;
        while (j < c->ntrans && c->event[j] == i) {
            ti->tindex[j] = count[ev->tid];
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
    return 0;
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
    double t0 = now();
    const fi_trace *t = &pl->trace;
    pl->ctm = ft_ctm_new();
    if (!pl->ctm)
        goto oom;
    for (size_t i = 0; i < t->nev; i++) {
        char msg[200] = "";
        if (ft_ctm_add(pl->ctm, &t->ev[i], msg, sizeof msg) != 0) {
            char m[sizeof err->message];
            snprintf(m, sizeof m, "event %zu (thread %u, %s): %s", i,
                     t->ev[i].tid, ft_kind_name(t->ev[i].kind), msg);
            set_err(err, pl->path, i, m);
            return -1;
        }
    }
    if (ft_ctm_finish(pl->ctm) < 0)
        goto oom;
    pl->reduced = ft_reduce(pl->ctm, FT_REDUCE_NO_COUNT);
    if (!pl->reduced)
        goto oom;
    if (fi_analyze(&pl->infer, t, o) < 0 ||
        fi_prove_by_reduce(&pl->infer, pl->reduced) < 0 ||
        fi_properties(&pl->infer) < 0 || info_from_trace(pl) < 0 ||
        name_vars(pl) < 0 || map_properties(pl) < 0)
        goto oom;
    for (size_t k = 0; k < pl->infer.nregions; k++)
        pl->nobserved += pl->infer.regions[k].status == FI_ST_OBSERVED;
    pl->infer_seconds = now() - t0;
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

/* Returns how many properties, now first, the value order decided (their
 * results are filled), or -1 out of memory. */
static long order_near_first(ft_pipeline *pl, const ft_window_index *w,
                             const ft_predict_opts *o)
{
    const ft_ctm *c = pl->ctm;
    uint32_t n = c->ntrans;
    /* run_lo[x]: first id of the run of x's thread that x is in */
    uint32_t *run_lo = malloc(sizeof *run_lo * ((size_t)n + 1));
    uint32_t *run_hi = malloc(sizeof *run_hi * ((size_t)n + 1));
    prop_key *k = malloc(sizeof *k * (pl->nprops + 1));
    ft_prop *sorted = malloc(sizeof *sorted * (pl->nprops + 1));
    long rc = -1, decided = 0;
    if (!run_lo || !run_hi || !k || !sorted)
        goto out;
    for (uint32_t x = 0; x < n; x++)
        run_lo[x] = x > 0 && c->tid[x - 1] == c->tid[x] ? run_lo[x - 1] : x;
    for (uint32_t x = n; x-- > 0;)
        run_hi[x] = x + 1 < n && c->tid[x + 1] == c->tid[x] ? run_hi[x + 1] : x;
    for (size_t i = 0; i < pl->nprops; i++) {
        const ft_prop *p = &pl->props[i];
        uint32_t a = ft_ctm_at(c, p->r[0].thread, p->r[0].first);
        uint32_t b = ft_ctm_at(c, p->r[0].thread, p->r[0].last);
        uint64_t key;
        if (p->kind == FT_PROP_CMA) {
            uint32_t a2 = ft_ctm_at(c, p->r[1].thread, p->r[1].first);
            uint32_t b2 = ft_ctm_at(c, p->r[1].thread, p->r[1].last);
            key = (uint64_t)(b > b2 ? b : b2) - (a < a2 ? a : a2);
        } else {
            uint64_t before = run_lo[a] > 0 ? a - run_lo[a] + 1 : UINT32_MAX;
            uint64_t after = run_hi[b] + 1 < n ? run_hi[b] + 1 - b : UINT32_MAX;
            key = before < after ? before : after;
        }
        /* equal distances: CMA first, as before; the ones the value
         * order decides before all (they cost nothing) */
        if (ft_window_value_holds(w, p, o)) {
            key = 0;
            decided++;
        } else {
            key += 1;
        }
        k[i] = (prop_key){2 * key + (p->kind != FT_PROP_CMA), i};
    }
    qsort(k, pl->nprops, sizeof *k, prop_key_cmp);
    for (size_t i = 0; i < pl->nprops; i++)
        sorted[i] = pl->props[k[i].index];
    memcpy(pl->props, sorted, sizeof *sorted * pl->nprops);
    for (long i = 0; i < decided; i++)
        ft_presult_value_order(c, &pl->results[i]);
    rc = decided;
out:
    free(run_lo);
    free(run_hi);
    free(k);
    free(sorted);
    return rc;
}

long ft_pipeline_predict(ft_pipeline *pl, const ft_predict_opts *o,
                         size_t stop_after, ft_progress_fn *progress,
                         void *arg)
{
    double t0 = now();
    pl->results = calloc(pl->nprops + 1, sizeof *pl->results);
    if (!pl->results)
        return -1;
    /* Batches of a few properties per worker, so that progress can be
     * told without the workers knowing about it. */
    size_t batch = (o->jobs > 1 ? o->jobs : 1) * 4;
    /* windows need an index of the trace: built once for all batches */
    ft_window_index *w = NULL;
    for (size_t i = 0; !w && i < pl->nprops && o->window && !o->no_slice;
         i++)
        if (!ft_window_covers_all(pl->ctm, &pl->props[i], o->window) &&
            !(w = ft_window_index_new(pl->ctm)))
            return -1;
    /* a trace long enough for windows: the ones the value order decides
     * (not solved again), then the near ones */
    long decided = w ? order_near_first(pl, w, o) : 0;
    if (decided < 0) {
        ft_window_index_free(w);
        return -1;
    }
    if (progress && decided)
        progress(arg, (size_t)decided, pl->nprops);
    ft_predict_opts own = *o;
    own.until = o->total_ms ? t0 + o->total_ms / 1000.0 : 0;
    if (w) /* the value order was asked about every property already */
        own.no_value_order = 1;
    o = &own;
    for (size_t done = (size_t)decided; done < pl->nprops;) {
        size_t n = pl->nprops - done < batch ? pl->nprops - done : batch;
        if (ft_predict_run_in(pl->ctm, pl->reduced, w, pl->props + done, n,
                              o, pl->results + done) < 0) {
            ft_window_index_free(w);
            return -1;
        }
        done += n;
        if (progress)
            progress(arg, done, pl->nprops);
        size_t viol = 0;
        for (size_t i = 0; i < done && stop_after; i++)
            viol += pl->results[i].verdict == FT_VIOLATED;
        int spent = o->until > 0 && now() >= o->until;
        if (((stop_after && viol >= stop_after) || spent) &&
            done < pl->nprops) {
            for (size_t i = done; i < pl->nprops; i++) {
                pl->results[i].verdict = FT_UNKNOWN;
                if (spent)
                    snprintf(pl->results[i].reason,
                             sizeof pl->results[i].reason,
                             "not solved: the analysis's time (%u s) was "
                             "spent", o->total_ms / 1000);
                else
                    snprintf(pl->results[i].reason,
                             sizeof pl->results[i].reason,
                             "not solved: stopped after %zu violations", viol);
            }
            pl->nskipped = pl->nprops - done;
            pl->skip_why = spent ? "--time" : "--stop-after";
            if (progress)
                progress(arg, pl->nprops, pl->nprops);
            break;
        }
    }
    ft_window_index_free(w);
    pl->nviolated = pl->nholds = pl->nunknown = pl->nerror = 0;
    /* A window's witness follows a recorded prefix (res.prefix) that the
     * trimming, which looks at the steps only, cannot see: kept whole. */
    for (size_t i = 0; i < pl->nprops; i++)
        if (pl->results[i].verdict == FT_VIOLATED &&
            !pl->results[i].prefix &&
            ft_presult_trim(pl->ctm, &pl->props[i], &pl->results[i]) < 0)
            return -1;
    for (size_t i = 0; i < pl->nprops; i++)
        switch (pl->results[i].verdict) {
        case FT_VIOLATED: pl->nviolated++; break;
        case FT_HOLDS: pl->nholds++; break;
        case FT_UNKNOWN: pl->nunknown++; break; /* nskipped included */
        default: pl->nerror++; break;
        }
    pl->predict_seconds = now() - t0;
    return (long)pl->nviolated;
}

int ft_schedule_save(const ft_schedule *s, const char *path, char *err,
                     size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    int rc = ft_schedule_write(f, s);
    if (fclose(f) != 0 || rc < 0) {
        snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int ft_pipeline_write_alt_schedule(const ft_pipeline *pl, size_t i,
                                   const char *dir, char *path, size_t pathlen,
                                   char *err, size_t errlen)
{
    const ft_presult *r = &pl->results[i];
    if (!r->alt_steps)
        return 0;
    const ft_prop *p = &pl->props[i];
    snprintf(path, pathlen, "%s/%s-%u.alt.schedule", dir,
             p->kind == FT_PROP_CMA ? "cma" : "ca", p->id);
    ft_presult alt = *r;
    alt.steps = r->alt_steps;
    alt.nsteps = r->nalt_steps;
    ft_schedule s;
    if (ft_schedule_from_result(&s, pl->ctm, &pl->info, p, &alt) < 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = ft_schedule_save(&s, path, err, errlen);
    ft_schedule_free(&s);
    return rc < 0 ? -1 : 1;
}

int ft_pipeline_write_schedule(const ft_pipeline *pl, size_t i,
                               const char *dir, char *path, size_t pathlen,
                               char *err, size_t errlen)
{
    const ft_prop *p = &pl->props[i];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create the directory: %s", dir,
                 strerror(errno));
        return -1;
    }
    snprintf(path, pathlen, "%s/%s-%u.schedule", dir,
             p->kind == FT_PROP_CMA ? "cma" : "ca", p->id);
    ft_schedule s;
    if (ft_schedule_from_result(&s, pl->ctm, &pl->info, p,
                                &pl->results[i]) < 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = ft_schedule_save(&s, path, err, errlen);
    ft_schedule_free(&s);
    return rc;
}

const fi_region *ft_pipeline_region(const ft_pipeline *pl, uint32_t id)
{
    return id < pl->infer.nregions ? &pl->infer.regions[id] : NULL;
}

void ft_pipeline_free(ft_pipeline *pl)
{
    if (pl->results)
        for (size_t i = 0; i < pl->nprops; i++)
            ft_presult_free(&pl->results[i]);
    free(pl->results);
    free(pl->props);
    for (size_t i = 0; pl->kresults && i < pl->nkprops; i++)
        ft_presult_free(&pl->kresults[i]);
    free(pl->kresults);
    free(pl->kprops);
    ft_trace_info_free(&pl->info);
    ft_reader_close(pl->names);
    fi_analysis_free(&pl->infer);
    ft_reduced_free(pl->reduced);
    ft_ctm_free(pl->ctm);
    fi_trace_free(&pl->trace);
    memset(pl, 0, sizeof *pl);
}

const char *ft_pipeline_var_name(const ft_pipeline *pl, uint64_t key,
                                 char *buf, size_t len)
{
    const char *n = fi_trace_name_of(&pl->trace, 'V', key);
    if (n)
        return n;
    if (pl->names && (n = ft_reader_data_name(pl->names, key, buf, len)))
        return n;
    /* The last allocation covering key: the object the report's accesses
     * touched, unless the address was reused after them (then an earlier
     * object's name would be as likely; the last is as good a guess). */
    for (size_t i = pl->trace.nev; pl->names && i-- > 0;) {
        const ft_event *ev = &pl->trace.ev[i];
        if ((ev->kind == FT_EV_MALLOC || ev->kind == FT_EV_REALLOC) &&
            key >= ev->addr && key - ev->addr < ev->value) {
            ft_heap_obj o = {.addr = ev->addr, .size = ev->value,
                             .site = ev->site, .count = ev->value2};
            char obj[240];
            ft_heap_obj_name(pl->names, &o, key, obj, sizeof obj);
            snprintf(buf, len, "heap@%s", obj);
            return buf;
        }
    }
    snprintf(buf, len, "0x%" PRIx64, key);
    return buf;
}

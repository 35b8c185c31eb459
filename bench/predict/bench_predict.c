/* SPDX-License-Identifier: MIT */
/* bench_predict.c - stage iv costs, for bench/predict/run.sh: per-property
 * solve time (median, p90, max), FindAV iterations and formula size, in
 * the default configuration and with each reduction switched off (no
 * slicing; no CXT restriction, i.e. every context switch allowed, which is
 * the model without MAT's reduction), and with MAT's skip-unreachable
 * variant, on one trace.  (FT_REDUCE_NO_MAT is no ablation here: without
 * MAT the slice has no CXT at all, so no context switch would be allowed.)
 *
 *   bench_predict TRACE [MAXPROPS [CONFIGS [TIMEOUT_MS]]]
 *                                       properties from infer/ (recorded
 *                                       or STD traces); CONFIGS: names
 *                                       joined by ',' (default all)
 *   bench_predict gen SEED THREADS OPS [MAXPROPS [CONFIGS [TIMEOUT_MS]]]
 *                                       a random trace of tests/model/gen.c
 *                                       (no sites, so regions are windows
 *                                       of each thread's transitions)
 * Prints one table row per configuration.  FT_BENCH_VERBOSE=1 prints
 * each property's verdict and window; FT_BENCH_WINDOW=N sets the first
 * window's half-width (ft_predict_opts.window, default 512);
 * FT_BENCH_UNDECIDED=1 samples only the properties the value order does
 * not decide (the ones left to the solver). */
#include "predict/predict.h"
#include "predict/window.h"
#include "tests/model/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct config {
    const char *name;
    int mode, no_slice, no_cxt, use_cxt;
    unsigned reduce_flags;
    int no_value_order;
} config;

/* "direct" is the default of `foretell analyze` (no CXT restriction,
 * windows on long traces); "cxt" forces the CXT restriction, which can
 * lose violations (docs/prediction.md); "no-cxt" is "direct" since
 * 2026-11-28, kept so that earlier tables can be run again. */
static const config configs[] = {
    {"direct", FT_PREDICT_DIRECT, 0, 0, 0, 0, 0},
    {"findav", FT_PREDICT_FINDAV, 0, 0, 0, 0, 0},
    {"no-slice", FT_PREDICT_DIRECT, 1, 0, 0, 0, 0},
    {"cxt", FT_PREDICT_DIRECT, 0, 0, 1, 0, 0},
    {"no-cxt", FT_PREDICT_DIRECT, 0, 1, 0, 0, 0},
    {"skip-unreach", FT_PREDICT_DIRECT, 0, 0, 0,
     FT_REDUCE_SKIP_UNREACHABLE, 0},
    {"no-vorder", FT_PREDICT_DIRECT, 0, 0, 0, 0, 1},
};

static unsigned timeout_ms = 30000;

/* Whether name is in the ','-separated list (NULL: every config). */
static int wanted(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (q != NULL);
    }
    return 0;
}

/* Peak resident memory of this process so far, MB. */
static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run_config(ft_ctm *c, const ft_reduced *whole,
                       const ft_window_index *w, const ft_prop *p, size_t n,
                       const config *cf, const char *label)
{
    double *t = calloc(n + 1, sizeof *t);
    uint64_t iters = 0, asserts = 0, blocks = 0;
    size_t viol = 0, unknown = 0, whold = 0;
    for (size_t i = 0; i < n; i++) {
        ft_predict_opts o;
        ft_predict_opts_default(&o);
        if (getenv("FT_BENCH_WINDOW")) /* first window half-width */
            o.window = (uint32_t)strtoul(getenv("FT_BENCH_WINDOW"), NULL, 10);
        o.mode = cf->mode;
        o.no_slice = cf->no_slice;
        o.no_cxt = cf->no_cxt;
        o.use_cxt = cf->use_cxt;
        o.reduce_flags = cf->reduce_flags;
        o.no_value_order = cf->no_value_order;
        o.timeout_ms = timeout_ms;
        if (getenv("FT_BENCH_VERBOSE"))
            for (int g = 0; g < (p[i].kind == FT_PROP_CMA ? 2 : 1); g++)
                fprintf(stderr, "prop %zu region %d: thread %u, %u..%u "
                        "(ids %u..%u)\n", i, g, p[i].r[g].thread,
                        p[i].r[g].first, p[i].r[g].last,
                        ft_ctm_at(c, p[i].r[g].thread, p[i].r[g].first),
                        ft_ctm_at(c, p[i].r[g].thread, p[i].r[g].last));
        ft_presult r;
        int v = ft_predict_one_in(c, whole, w, &p[i], &o, &r);
        viol += v == FT_VIOLATED;
        whold += r.window_holds;
        unknown += (v == FT_UNKNOWN && !r.window_holds) || v == FT_ERROR;
        if (getenv("FT_BENCH_VERBOSE"))
            fprintf(stderr, "prop %zu: verdict %d %.3f s, %u windows, "
                    "window %u..%u, %llu blocks: %s\n", i, v, r.seconds,
                    r.windows, r.window_first, r.window_end,
                    (unsigned long long)r.size_blocks, ft_presult_reason(&r));
        t[i] = r.seconds;
        iters += r.iterations;
        asserts += r.size_asserts;
        blocks += r.size_blocks;
        ft_presult_free(&r);
    }
    qsort(t, n, sizeof *t, cmp_double);
    printf("%-22s %-13s %5zu %5zu %4zu %5zu %8.3f %8.3f %8.3f %6.1f %8.0f "
           "%9.0f %7.0f\n",
           label, cf->name, n, viol, unknown, whold, n ? t[n / 2] : 0.0,
           n ? t[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] : 0.0,
           n ? t[n - 1] : 0.0, n ? (double)iters / n : 0.0,
           n ? (double)blocks / n : 0.0, n ? (double)asserts / n : 0.0,
           peak_mb());
    fflush(stdout);
    free(t);
}

static void header(void)
{
    /* unk: unknown (time limit, solver); whold: no violation in the
     * largest window solved, the whole trace not (verdict unknown) */
    printf("%-22s %-13s %5s %5s %4s %5s %8s %8s %8s %6s %8s %9s %7s\n",
           "trace", "config", "props", "viol", "unk", "whold", "median_s",
           "p90_s", "max_s", "iters", "blocks", "asserts", "peak_mb");
}

/* Regions for a trace without sites: per thread, a window of w
 * transitions starting at a quarter of its length; CA per thread, CMA for
 * each pair of consecutive threads. */
static size_t window_props(const ft_ctm *c, ft_prop *p, size_t max)
{
    size_t n = 0;
    ft_pregion g[64];
    uint32_t nt = c->nthreads < 64 ? c->nthreads : 64;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t len = c->len[t];
        g[t] = (ft_pregion){t, len / 4, len / 4 + (len > 8 ? 4 : len / 2)};
        if (g[t].last >= len)
            g[t].last = len ? len - 1 : 0;
    }
    for (uint32_t t = 0; t < nt && n < max; t++)
        if (c->len[t] > 1)
            p[n] = (ft_prop){.id = (uint32_t)n, .kind = FT_PROP_CA, .r = {g[t]}}, n++;
    for (uint32_t t = 0; t + 1 < nt && n < max; t++)
        if (c->len[t] > 1 && c->len[t + 1] > 1)
            p[n] = (ft_prop){.id = (uint32_t)n, .kind = FT_PROP_CMA,
                              .r = {g[t], g[t + 1]}}, n++;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_predict TRACE [MAXPROPS] | "
                        "bench_predict gen SEED THREADS OPS [MAXPROPS]\n");
        return 2;
    }
    if (!strcmp(argv[1], "--header")) {
        header();
        return 0;
    }
    ft_pipeline pl;
    ft_error err;
    char label[64];
    ft_window_index *w = NULL;
    size_t maxp;
    const char *list = NULL;
    if (!strcmp(argv[1], "gen")) {
        if (argc < 5)
            return 2;
        gen_params gp;
        memset(&gp, 0, sizeof gp);
        gp.nthreads = (unsigned)atoi(argv[3]);
        gp.ops = (unsigned)atoi(argv[4]);
        gp.nvars = 3;
        gp.nlocks = 2;
        gp.fork_join = 1;
        evbuf b = {0};
        gen_run(strtoull(argv[2], NULL, 10), &gp, &b);
        char path[256];
        temp_trace_path(path, sizeof path, "benchpred");
        if (trace_write(path, &b)) {
            fprintf(stderr, "bench_predict: cannot write %s\n", path);
            return 1;
        }
        evbuf_free(&b);
        if (ft_pipeline_load(&pl, path, FT_INPUT_FORETELL, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        fi_options fo;
        fi_options_default(&fo);
        if (ft_pipeline_infer(&pl, &fo, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        unlink(path);
        maxp = argc > 5 ? (size_t)atoi(argv[5]) : 8;
        if (argc > 6 && strcmp(argv[6], "all"))
            list = argv[6];
        if (argc > 7)
            timeout_ms = (unsigned)atoi(argv[7]);
        free(pl.props);
        pl.props = calloc(maxp + 1, sizeof *pl.props);
        pl.nprops = window_props(pl.ctm, pl.props, maxp);
        snprintf(label, sizeof label, "gen t%s ops%s (%u tr)", argv[3],
                 argv[4], pl.ctm->ntrans);
    } else {
        if (ft_pipeline_load(&pl, argv[1], FT_INPUT_DETECT, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        fi_options fo;
        fi_options_default(&fo);
        if (ft_pipeline_infer(&pl, &fo, &err) < 0)
            return fprintf(stderr, "%s\n", err.message), 1;
        maxp = argc > 2 ? (size_t)atoi(argv[2]) : 40;
        w = ft_window_index_new(pl.ctm);
        if (!w)
            return fprintf(stderr, "bench_predict: out of memory\n"), 1;
        if (getenv("FT_BENCH_UNDECIDED")) {
            ft_predict_opts o;
            ft_predict_opts_default(&o);
            size_t k = 0;
            for (size_t i = 0; i < pl.nprops; i++)
                if (!ft_window_value_holds(w, &pl.props[i], &o))
                    pl.props[k++] = pl.props[i];
            fprintf(stderr, "%zu of %zu properties left to the solver\n", k,
                    pl.nprops);
            pl.nprops = k;
        }
        if (argc > 3 && strcmp(argv[3], "all"))
            list = argv[3];
        if (argc > 4)
            timeout_ms = (unsigned)atoi(argv[4]);
        /* evenly spread over the properties (CMA first, then CA, each in
         * trace order), not only the first ones */
        if (pl.nprops > maxp) {
            for (size_t i = 0; i < maxp; i++)
                pl.props[i] = pl.props[i * pl.nprops / maxp];
            pl.nprops = maxp;
        }
        const char *base = strrchr(argv[1], '/');
        snprintf(label, sizeof label, "%.40s", base ? base + 1 : argv[1]);
    }
    if (!w && !(w = ft_window_index_new(pl.ctm)))
        return fprintf(stderr, "bench_predict: out of memory\n"), 1;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++)
        if (wanted(list, configs[k].name))
            run_config(pl.ctm, pl.reduced, w, pl.props, pl.nprops,
                       &configs[k], label);
    ft_window_index_free(w);
    ft_pipeline_free(&pl);
    return 0;
}

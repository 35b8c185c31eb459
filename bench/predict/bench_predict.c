/* bench_predict.c - stage iv costs, for bench/predict/run.sh: per-property
 * solve time (median, p90, max), FindAV iterations and formula size, in
 * the default configuration and with each reduction switched off (no
 * slicing; no CXT restriction, i.e. every context switch allowed, which is
 * the model without MAT's reduction), and with MAT's skip-unreachable
 * variant, on one trace.  (FT_REDUCE_NO_MAT is no ablation here: without
 * MAT the slice has no CXT at all, so no context switch would be allowed.)
 *
 *   bench_predict TRACE [MAXPROPS]      properties from infer/ (recorded
 *                                       or STD traces)
 *   bench_predict gen SEED THREADS OPS [MAXPROPS]
 *                                       a random trace of tests/model/gen.c
 *                                       (no sites, so regions are windows
 *                                       of each thread's transitions)
 * Prints one table row per configuration. */
#include "predict/predict.h"
#include "tests/model/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct config {
    const char *name;
    int mode, no_slice, no_cxt;
    unsigned reduce_flags;
} config;

static const config configs[] = {
    {"direct", FT_PREDICT_DIRECT, 0, 0, 0},
    {"findav", FT_PREDICT_FINDAV, 0, 0, 0},
    {"direct no-slice", FT_PREDICT_DIRECT, 1, 0, 0},
    {"direct no-cxt", FT_PREDICT_DIRECT, 0, 1, 0},
    {"direct skip-unreach", FT_PREDICT_DIRECT, 0, 0,
     FT_REDUCE_SKIP_UNREACHABLE},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run_config(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                       size_t n, const config *cf, const char *label)
{
    double *t = calloc(n + 1, sizeof *t);
    uint64_t iters = 0, asserts = 0, blocks = 0;
    size_t viol = 0, unknown = 0;
    for (size_t i = 0; i < n; i++) {
        ft_predict_opts o;
        ft_predict_opts_default(&o);
        o.mode = cf->mode;
        o.no_slice = cf->no_slice;
        o.no_cxt = cf->no_cxt;
        o.reduce_flags = cf->reduce_flags;
        o.timeout_ms = 30000;
        ft_presult r;
        int v = ft_predict_one(c, whole, &p[i], &o, &r);
        viol += v == FT_VIOLATED;
        unknown += v == FT_UNKNOWN || v == FT_ERROR;
        t[i] = r.seconds;
        iters += r.iterations;
        asserts += r.size.nassert;
        blocks += r.size.nblocks;
        ft_presult_free(&r);
    }
    qsort(t, n, sizeof *t, cmp_double);
    printf("%-22s %-20s %5zu %5zu %4zu %8.3f %8.3f %8.3f %6.1f %8.0f %9.0f\n",
           label, cf->name, n, viol, unknown, n ? t[n / 2] : 0.0,
           n ? t[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] : 0.0,
           n ? t[n - 1] : 0.0, n ? (double)iters / n : 0.0,
           n ? (double)blocks / n : 0.0, n ? (double)asserts / n : 0.0);
    fflush(stdout);
    free(t);
}

static void header(void)
{
    printf("%-22s %-20s %5s %5s %4s %8s %8s %8s %6s %8s %9s\n", "trace",
           "config", "props", "viol", "unk", "median_s", "p90_s", "max_s",
           "iters", "blocks", "asserts");
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
            p[n] = (ft_prop){(uint32_t)n, FT_PROP_CA, {g[t], {0, 0, 0}}}, n++;
    for (uint32_t t = 0; t + 1 < nt && n < max; t++)
        if (c->len[t] > 1 && c->len[t + 1] > 1)
            p[n] = (ft_prop){(uint32_t)n, FT_PROP_CMA, {g[t], g[t + 1]}}, n++;
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
    size_t maxp;
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
        if (pl.nprops > maxp)
            pl.nprops = maxp;
        const char *base = strrchr(argv[1], '/');
        snprintf(label, sizeof label, "%.40s", base ? base + 1 : argv[1]);
    }
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++)
        run_config(pl.ctm, pl.reduced, pl.props, pl.nprops, &configs[k],
                   label);
    ft_pipeline_free(&pl);
    return 0;
}

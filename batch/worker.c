/* SPDX-License-Identifier: MIT */
/* worker.c - one trace of a batch, analyzed as `foretell analyze` would
 * (predict/'s pipeline with the same options, every property kind that
 * --kinds names): what the trace says about its run, the figures, and its
 * findings grouped by fingerprint, each group's witness replayed when
 * the batch was given the program.  It runs in a child process of the
 * batch (run.c), so a trace that crashes or exhausts the analysis costs
 * that trace only. */
#define _GNU_SOURCE
#include "batch/batch.h"
#include "predict/kind.h"
#include "replay/confirm.h"
#include "replay/replay.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const status_names[FB_NSTATUS] = {
    "analyzed", "damaged", "bad", "timeout", "crashed", "error",
};

const char *fb_status_name(int status)
{
    return status >= 0 && status < FB_NSTATUS ? status_names[status] : "?";
}

int fb_status_from_name(const char *name)
{
    for (int i = 0; name && i < FB_NSTATUS; i++)
        if (strcmp(name, status_names[i]) == 0)
            return i;
    return -1;
}

void fb_analyze_opts_default(fb_analyze_opts *o)
{
    memset(o, 0, sizeof *o);
    fi_options_default(&o->infer);
    ft_predict_opts_default(&o->predict);
    /* a store keys atomicity findings by their violating accesses too
     * (predict/finding.c), finer than analyze's static property: covering
     * (predict/groups.c) would make which of them a trace shows depend
     * on which instance was violated first, and baselines flicker */
    o->predict.every_instance = 1;
    o->refine = 2;
    o->tails = 16;
    o->kinds = FT_KINDS_ALL;
    o->run_timeout = 30;
}

void fb_analyze_opts_describe(const fb_analyze_opts *o, char *buf,
                              size_t len)
{
    char kinds[200] = "all";
    if (o->kinds != FT_KINDS_ALL) {
        size_t off = (size_t)snprintf(kinds, sizeof kinds, "%s",
                                      o->kinds >> FT_PROP_CA & 1
                                          ? "atomicity" : "");
        for (unsigned i = 0; i < ft_npkinds && off < sizeof kinds; i++)
            if (o->kinds >> ft_pkinds[i]->kind & 1)
                off += (size_t)snprintf(kinds + off, sizeof kinds - off,
                                        "%s%s", off ? "," : "",
                                        ft_pkinds[i]->name);
    }
    snprintf(buf, len, "mode=%s timeout=%u time=%u max-iterations=%u "
             "stop-after=%zu maxd=%u spec=%s std=%d kinds=%s confirm=%s "
             "suppressions=%s",
             o->predict.mode == FT_PREDICT_FINDAV ? "findav" : "direct",
             o->predict.timeout_ms, o->predict.total_ms / 1000,
             o->predict.max_iterations, o->stop_after, o->infer.maxd,
             o->spec ? o->spec : "-", o->std, kinds,
             o->prog ? o->prog[0] : "-",
             o->suppressions_path ? o->suppressions_path : "-");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_message(fb_result *r, int status, const char *fmt,
                        const char *a, const char *b)
{
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, a, b);
    free(r->message);
    r->message = strdup(msg);
    r->status = status;
}

/* What the trace's header and END say about the run it recorded. */
static void trace_meta(fb_result *r)
{
    ft_error err;
    ft_reader *rd = ft_reader_open(r->path, &err);
    if (!rd)
        return;
    const ft_header *h = ft_reader_header(rd);
    const ft_end *e = ft_reader_end(rd);
    r->program = strdup(h->program ? h->program : "");
    r->build_id = strdup(h->nmodules && h->modules[0].build_id
                             ? h->modules[0].build_id
                             : "");
    r->recorded_ns = (int64_t)h->start_time_ns;
    size_t n = 0;
    for (uint32_t i = 0; i < h->argc; i++)
        n += strlen(h->argv[i]) + 1;
    r->argv = malloc(n + 1);
    if (r->argv) {
        char *p = r->argv;
        for (uint32_t i = 0; i < h->argc; i++) {
            size_t l = strlen(h->argv[i]) + 1;
            memcpy(p, h->argv[i], l);
            p += l;
        }
        r->argv_len = (uint32_t)n;
    }
    r->exit_status = -1;
    if (e->present) {
        r->end_reason = strdup(e->reason ? e->reason : "");
        r->exit_status = e->exit_status;
        r->threads = e->threads;
    }
    ft_reader_close(rd);
}

static int found_better(const ft_finding *kept, const ft_finding *f)
{
    return !kept->replayable && f->replayable;
}

int fb_result_group(fb_result *r, ft_finding *f, size_t n)
{
    fb_group *g = calloc(n + 1, sizeof *g);
    if (!g) {
        ft_findings_free(f, n);
        return -1;
    }
    size_t ng = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char fp[FT_FINGERPRINT_LEN + 1];
        char *key = ft_finding_key(&f[i]);
        if (!key || ft_fingerprint_of_key(key, fp) < 0) {
            free(key);
            rc = -1;
            break;
        }
        size_t k = 0;
        while (k < ng && strcmp(g[k].fingerprint, fp) != 0)
            k++;
        if (k == ng) {
            memcpy(g[k].fingerprint, fp, sizeof fp);
            g[k].key = key;
            g[k].f = f[i];
            memset(&f[i], 0, sizeof f[i]);
            ng++;
        } else {
            free(key);
            if (found_better(&g[k].f, &f[i])) {
                ft_finding t = g[k].f;
                g[k].f = f[i];
                f[i] = t;
            }
        }
        g[k].instances++;
        g[k].observed |= f[i].observed | g[k].f.observed;
    }
    ft_findings_free(f, n);
    r->groups = g;
    r->ngroups = ng;
    return rc;
}

static int rm_one(const char *path, const struct stat *st, int type,
                  struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

const char *fb_confirm_status(const char *kind, const fr_confirmation *c,
                              const char **detail)
{
    const ft_pkind *k = ft_pkind_by_name(kind);
    /* as analyze counts them: a kind whose state is all the replay must
     * reach (an order, a race) is a bug only when the program fails */
    int reached = k && k->expect == FT_EXPECT_FOLLOWED &&
                  (c->status == FR_CONFIRMED ||
                   c->status == FR_FAILED_EARLY) &&
                  c->outcome.failure == FR_OK;
    /* diverged, and the time cut its refinement: not shown spurious */
    int cut = c->status == FR_SPURIOUS && c->refine_cut;
    *detail = cut                        ? c->note
              : c->status == FR_SPURIOUS ? c->first.divergence
              : reached ? "reached on replay; the program did not fail"
                        : c->outcome.detail;
    return cut       ? "undecided"
           : reached ? "reached"
                     : fr_confirm_status_id(c->status);
}

/* Fills g's confirmation from c. */
static void set_confirm(fb_group *g, const fr_confirmation *c)
{
    const char *d;
    snprintf(g->confirm.status, sizeof g->confirm.status, "%s",
             fb_confirm_status(g->f.kind, c, &d));
    g->confirm.failure[0] = 0;
    if (c->outcome.failure != FR_OK)
        snprintf(g->confirm.failure, sizeof g->confirm.failure, "%s",
                 fr_failure_name(c->outcome.failure));
    free(g->confirm.detail);
    g->confirm.detail = d[0] ? strdup(d) : NULL;
}

/* Replays each group's witness against the program as `analyze
 * --confirm` does: every witness once (fr_confirm without refinement
 * for atomicity, fr_confirm_kind with a race's other order for the other
 * kinds), then the diverged atomicity witnesses refined, each within its
 * share of the time left (refine_until), so that one long re-analysis
 * cannot take the others' time; a refinement the time cut is
 * "undecided", not "spurious".  dir is this trace's own; until (ft_now,
 * 0 none) is --trace-time's end, when no replay starts and a running one
 * is stopped (unfinished). */
static int confirm_groups(const fb_analyze_opts *o, ft_pipeline *pl,
                          fb_result *r, const char *dir, double until)
{
    fr_confirm_opts co;
    fr_confirm_opts_default(&co);
    co.until = until;
    co.argv = o->prog;
    co.dir = dir;
    co.timeout_s = o->run_timeout;
    co.refine = 0; /* every witness first: refined below */
    co.tails = o->tails;
    /* --tail-time counts from the trace's first replay: its findings
     * replay one after another, each with its tails */
    co.tails_more_until = o->tail_time > 0 ? ft_now() + o->tail_time : 0;
    co.infer = &o->infer;
    co.predict = &o->predict;
    co.recorded = pl;
    fr_confirmation *cs = calloc(r->ngroups ? r->ngroups : 1, sizeof *cs);
    char(*paths)[4096] = calloc(r->ngroups ? r->ngroups : 1, sizeof *paths);
    int rc = cs && paths ? 0 : -1;
    if (rc < 0)
        set_message(r, FB_ERROR, "%s%s", "out of memory", "");
    size_t diverged = 0;
    for (size_t k = 0; k < r->ngroups && rc == 0; k++) {
        fb_group *g = &r->groups[k];
        int atomicity = g->f.prop < pl->nprops;
        if (!g->f.replayable || (!atomicity && g->f.kprop >= pl->nkprops))
            continue;
        char *path = paths[k], alt[4096], msg[4200];
        rc = atomicity
                 ? ft_pipeline_write_schedule(pl, g->f.prop, dir, path,
                                              sizeof paths[k], msg, sizeof msg)
                 : ft_pipeline_write_kind_schedule(pl, g->f.kprop, dir, path,
                                                   sizeof paths[k], msg,
                                                   sizeof msg);
        int has_alt = 0;
        if (rc == 0 && !atomicity)
            rc = has_alt = ft_pipeline_write_kind_alt(pl, g->f.kprop, dir,
                                                      alt, sizeof alt, msg,
                                                      sizeof msg);
        if (rc < 0) {
            set_message(r, FB_ERROR, "%.900s%s", msg, "");
            break;
        }
        ft_error err;
        rc = atomicity
                 ? fr_confirm(pl, g->f.prop, path, &co, &cs[k], &err)
                 : fr_confirm_kind(pl, g->f.kprop, path,
                                   has_alt > 0 ? alt : NULL, &co, &cs[k], &err);
        if (rc < 0) {
            set_message(r, FB_ERROR, "--confirm: %s", err.message, "");
            break;
        }
        rc = 0;
        set_confirm(g, &cs[k]);
        diverged += atomicity && cs[k].status == FR_SPURIOUS;
    }
    co.refine = o->refine;
    for (size_t k = 0; k < r->ngroups && rc == 0 && co.refine; k++) {
        fb_group *g = &r->groups[k];
        if (!paths[k][0] || g->f.prop >= pl->nprops ||
            cs[k].status != FR_SPURIOUS)
            continue;
        co.refine_until = fr_confirm_share_until(until, diverged--);
        ft_error err;
        if (fr_confirm_refine(pl, g->f.prop, paths[k], &co, &cs[k], &err) < 0) {
            set_message(r, FB_ERROR, "--confirm: %s", err.message, "");
            rc = -1;
            break;
        }
        set_confirm(g, &cs[k]);
    }
    free(cs);
    free(paths);
    return rc;
}

static int is_confirmed(const fb_confirm *c)
{
    return !strcmp(c->status, "confirmed") || !strcmp(c->status, "refined") ||
           !strcmp(c->status, "failed_early");
}

static void analyze(const fb_analyze_opts *o, ft_pipeline *pl, fb_result *r)
{
    ft_error err;
    int rc = ft_pipeline_load(pl, r->path,
                              o->std ? FT_INPUT_STD : FT_INPUT_DETECT, &err);
    if (rc < 0) {
        char at[64];
        snprintf(at, sizeof at, "at byte %llu",
                 (unsigned long long)err.offset);
        set_message(r, FB_BAD, "%s: %s", at, err.message);
        r->exit_code = 2;
        return;
    }
    if (rc == 1)
        set_message(r, FB_DAMAGED, "%s; the events recovered were analyzed",
                    err.message, "");
    r->events = pl->trace.nev;
    if (!r->threads)
        r->threads = pl->trace.nthreads;
    char **spec = NULL;
    size_t nspec = 0;
    fi_options fo = o->infer;
    if (o->spec) {
        if (fi_spec_read(o->spec, &spec, &nspec, &err) < 0) {
            set_message(r, FB_ERROR, "--spec %s: %s", o->spec, err.message);
            r->exit_code = 2;
            return;
        }
        fo.spec_functions = (const char *const *)spec;
        fo.nspec = nspec;
    }
    rc = ft_pipeline_infer(pl, &fo, &err);
    fi_spec_free(spec, nspec);
    if (rc < 0) {
        int internal = err.offset == UINT64_MAX;
        set_message(r, internal ? FB_ERROR : FB_BAD, "%s%s", err.message, "");
        r->exit_code = internal ? 4 : 2;
        return;
    }
    /* --trace-time (total_ms) bounds atomicity and the other kinds
     * together: one end for both, or the kinds would start their own
     * total_ms where atomicity's ended */
    ft_predict_opts po = o->predict;
    if (po.total_ms && po.until <= 0)
        po.until = ft_now() + po.total_ms / 1000.0;
    if (!(o->kinds & (1u << FT_PROP_CA | 1u << FT_PROP_CMA)))
        pl->nprops = 0; /* --kinds without atomicity */
    if (ft_pipeline_kind_candidates(pl, o->kinds, 4) < 0 ||
        ft_pipeline_predict_kinds(pl, &po) < 0 ||
        ft_pipeline_predict(pl, &po, o->stop_after, NULL, NULL) < 0 ||
        ft_pipeline_suppress(pl, o->suppressions) < 0) {
        set_message(r, FB_ERROR, "%s%s", "out of memory", "");
        r->exit_code = 4;
        return;
    }
    size_t st[4] = {0};
    for (size_t k = 0; k < pl->infer.nregions; k++)
        if (pl->infer.regions[k].status < 4)
            st[pl->infer.regions[k].status]++;
    r->regions = pl->infer.nregions;
    r->properties = pl->nprops + pl->nkprops;
    r->violated = pl->nviolated + pl->nkviolated;
    r->holds = pl->nholds + pl->nkholds;
    r->unknown = pl->nunknown + pl->nerror + pl->nkunknown;
    r->observed = st[FI_ST_OBSERVED];
    ft_finding *f;
    size_t n;
    if (ft_pipeline_findings(pl, &f, &n) < 0 || fb_result_group(r, f, n) < 0) {
        set_message(r, FB_ERROR, "%s%s", "out of memory", "");
        r->exit_code = 4;
        return;
    }
    int ok = pl->damaged ? 2 : 0;
    r->exit_code = ok;
    /* --confirm replays against PROG only the runs of PROG: a trace of
     * another build (another build id) is left unconfirmed, its findings
     * counted as without --confirm */
    int replay = o->prog != NULL;
    if (replay && r->build_id && r->build_id[0]) {
        char found_at[4096], bid[160];
        const char *exe = fr_which(o->prog[0], found_at, sizeof found_at);
        replay = !exe || ft_file_build_id(exe, bid, sizeof bid) < 0 ||
                 strcmp(bid, r->build_id) == 0;
        if (!replay && !r->message)
            set_message(r, r->status, "--confirm: %.300s is not the program "
                        "this trace recorded (another build id): not "
                        "replayed%s", o->prog[0], "");
    }
    if (replay) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%.16s", o->work_dir ? o->work_dir
                                                          : ".",
                 r->hash);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            set_message(r, FB_ERROR, "cannot create %.900s: %s", dir,
                        strerror(errno));
            r->exit_code = 4;
            return;
        }
        /* --trace-time's end stops the replays too (a replay is judged
         * hung by progress only, so a slow one would run on until the
         * trace's analysis was killed, and everything found lost) */
        rc = confirm_groups(o, pl, r, dir, po.until);
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        if (rc < 0) {
            r->exit_code = 4;
            return;
        }
    }
    /* as analyze: with --confirm only confirmed predictions count */
    size_t found = 0;
    for (size_t k = 0; k < r->ngroups; k++)
        found += r->groups[k].observed || !replay ||
                 is_confirmed(&r->groups[k].confirm);
    if (r->exit_code == 0 && found)
        r->exit_code = 1;
}

void fb_analyze_trace(const fb_analyze_opts *o, fb_result *r)
{
    double t0 = now();
    r->status = FB_ANALYZED;
    r->exit_status = -1;
    if (!o->std)
        trace_meta(r);
    ft_pipeline pl;
    memset(&pl, 0, sizeof pl);
    analyze(o, &pl, r);
    ft_pipeline_free(&pl);
    r->seconds = now() - t0;
}

void fb_result_free(fb_result *r)
{
    for (size_t k = 0; k < r->ngroups; k++) {
        free(r->groups[k].key);
        free(r->groups[k].confirm.detail);
        ft_finding_clear(&r->groups[k].f);
    }
    free(r->groups);
    free(r->path);
    free(r->program);
    free(r->build_id);
    free(r->end_reason);
    free(r->argv);
    free(r->message);
    memset(r, 0, sizeof *r);
}

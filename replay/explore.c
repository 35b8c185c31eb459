/* SPDX-License-Identifier: MIT */
/* explore.c - the exploration driver: a calibration run without
 * preemption (estimates for the strategies, and the first schedule), then
 * runs planned by the chosen strategy, several at once when the strategy's
 * runs are independent, until the budget, the time bound or (without
 * --all) the first bug.  Failures are deduplicated by (failure kind,
 * site); each distinct one keeps its trace, the strategy spec that
 * produced it and a schedule file derived from the trace. */
#define _GNU_SOURCE
#include "replay/explore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FX_MAX_JOBS 64

void fx_opts_default(fx_opts *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = "surw-sym"; /* the best measured: docs/explore.md */
    o->budget = 1000;
    o->jobs = 1;
    o->outdir = "foretell-explore";
    o->run_timeout_s = 10;
    o->max_run_events = FX_DEFAULT_MAX_RUN_EVENTS;
    o->ctx_depth = 5;
}

static const fx_strategy *const strategies[] = {
    &fx_strategy_random, &fx_strategy_pct,    &fx_strategy_rpro,
    &fx_strategy_pctvb,  &fx_strategy_icb,    &fx_strategy_idb,
    &fx_strategy_period, &fx_strategy_hapset, &fx_strategy_dpor,
    &fx_strategy_pos,    &fx_strategy_surw,   &fx_strategy_surwsym,
};
#define NSTRATEGIES (sizeof strategies / sizeof strategies[0])

static const fx_strategy *find_strategy(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; i++)
        if (strcmp(strategies[i]->name, name) == 0)
            return strategies[i];
    return NULL;
}

int fx_strategy_known(const char *name)
{
    return find_strategy(name) != NULL;
}

/* Copies src into dst[len], cut if needed (no format-truncation noise). */
static void copy(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

static int seterr(ft_error *err, const char *path, const char *fmt,
                  const char *a)
{
    char msg[sizeof err->message];
    copy(err->path, sizeof err->path, path ? path : "");
    /* a strategy spec can be longer than the message: a cut message ends
     * in "..." so nobody takes the cut text for the whole spec */
    int n = snprintf(msg, sizeof msg, fmt, a);
    if (n < 0 || (size_t)n >= sizeof msg)
        memcpy(msg + sizeof msg - 4, "...", 4);
    copy(err->message, sizeof err->message, msg);
    return FX_ERR_INPUT;
}

/* A failure of the harness or the system (not of the input). */
static int fx_system_error(ft_error *err, const char *path, const char *fmt,
                           const char *a)
{
    seterr(err, path, fmt, a);
    return FX_ERR_SYSTEM;
}

typedef struct driver {
    const fx_opts *o;
    fx_result *res;
    const fx_strategy *s;
    void *st;
    fx_calib *calib;        /* the estimates the strategies plan with */
    char work[256];
    char keys[FX_MAX_BUGS][300]; /* failure kind + raw site, for dedup */
    char skeys[FX_MAX_BUGS][300]; /* the same of suppressed failures */
    int nskeys;
    int made_outdir;        /* the first saved bug created o->outdir */
    fx_launch launch;
    fx_child *slots;        /* FX_MAX_JOBS run slots, then calibration */
} driver;

/* PCT needs n (threads) and k (steps) "estimated from earlier runs": the
 * largest seen so far, the calibration run's to start with.  A run whose
 * schedule made it longer (another branch, more loop iterations) raises
 * them for the runs planned after it.  Only the trace's END is read. */
static void update_estimates(driver *d, const char *trace)
{
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r)
        return;
    const ft_end *e = ft_reader_end(r);
    if (e->present) {
        if (e->events > d->calib->events)
            d->calib->events = e->events;
        if (e->threads > d->calib->threads)
            d->calib->threads = e->threads;
        d->res->n_est = d->calib->threads;
        d->res->k_est = d->calib->events;
    }
    ft_reader_close(r);
}

static void nap(void)
{
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
}

/* A run that ended: dedup, save, count.  -1 on a condition that stops
 * the exploration (err set). */
static int record_outcome(driver *d, fx_child *c, const fr_outcome *out,
                          ft_error *err)
{
    fx_result *res = d->res;
    if (c->refused) {
        /* Only the runtime's report says so: an exit status of 84 is the
         * program's own (a bug like any other). */
        char why[sizeof c->why + FX_SPEC_MAX + 64];
        snprintf(why, sizeof why, "the runtime refused run %llu "
                 "(FORETELL_STRATEGY=%s): %s",
                 (unsigned long long)res->runs + 1, c->spec, c->why);
        return seterr(err, d->o->argv[0], "%s", why);
    }
    res->runs++;
    if (out->write_errno) { /* its trace is cut: no verdict on it */
        res->write_errno = out->write_errno;
        return seterr(err, c->trace, "cannot write the run's trace: %s "
                      "(TMPDIR is full?)", out->write_error);
    }
    if (out->failure == FR_OK)
        return 0;
    char key[300];
    snprintf(key, sizeof key, "%s %s", fx_failure_name(out->failure), out->site);
    for (int i = 0; i < res->nbugs; i++)
        if (strcmp(d->keys[i], key) == 0)
            return 0;
    for (int i = 0; i < d->nskeys; i++)
        if (strcmp(d->skeys[i], key) == 0) {
            res->suppressed_runs++;
            return 0;
        }
    uint64_t first_bug = res->first_bug;
    if (!res->first_bug)
        res->first_bug = res->runs;
    if (res->nbugs == FX_MAX_BUGS)
        return 0;
    fx_bug *b = &res->bugs[res->nbugs];
    memset(b, 0, sizeof *b);
    copy(d->keys[res->nbugs], sizeof d->keys[0], key);
    res->nbugs++;
    b->failure = out->failure;
    b->schedule_no = res->runs;
    if (out->failure == FR_HANG && !c->hung)
        b->hang_steps = c->max_events;
    copy(b->site, sizeof b->site, out->site);
    copy(b->detail, sizeof b->detail, out->detail);
    copy(b->spec, sizeof b->spec, c->spec);
    if (mkdir(d->o->outdir, 0755) == 0)
        d->made_outdir = 1;
    else if (errno != EEXIST) {
        res->write_errno = errno;
        return seterr(err, d->o->outdir, "cannot create: %s", strerror(errno));
    }
    snprintf(b->trace, sizeof b->trace, "%s/bug-%d.ftrace", d->o->outdir, res->nbugs);
    snprintf(b->schedule, sizeof b->schedule, "%s/bug-%d.schedule", d->o->outdir,
             res->nbugs);
    /* The work directory is under TMPDIR, often another file system
     * than the output (tmpfs): then the trace is copied. */
    if (ft_file_move(c->trace, b->trace) < 0) {
        char why[200];
        int e = errno;
        res->write_errno = e;
        /* a long spec is cut to what the message has room for, marked
         * "..." */
        snprintf(why, sizeof why, "run %llu (%s, %.40s%s): %.80s",
                 (unsigned long long)res->runs, fx_failure_name(out->failure),
                 c->spec, strlen(c->spec) > 40 ? "..." : "", strerror(e));
        return seterr(err, b->trace, "cannot save the trace of %s", why);
    }
    char path[600], tmp[700];
    snprintf(path, sizeof path, "%s/bug-%d.strategy", d->o->outdir, res->nbugs);
    FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
    if (f && fprintf(f, "%s\n", c->spec) < 0)
        errno = errno ? errno : EIO;
    if (!f || ft_out_fclose(f, tmp, path) != 0) {
        res->write_errno = errno;
        return seterr(err, path, "cannot write: %s", strerror(errno));
    }
    ft_error serr;
    int sym = ft_symbolize(b->trace, NULL, &serr);
    if (sym == -2) {
        res->write_errno = EIO;
        return seterr(err, b->trace, "%s", serr.message);
    }
    if (sym >= 0) {
        fr_outcome named = *out;
        fx_reclassify(b->trace, &named);
        if (named.site[0])
            copy(b->site, sizeof b->site, named.site);
        copy(b->detail, sizeof b->detail, named.detail);
    }
    if (d->o->suppressions &&
        fx_failure_suppressed(b->trace, b->failure, d->o->suppressions)) {
        /* not a bug for this user: nothing of it stays, and the next of
         * its kind is known by its key */
        unlink(b->trace);
        unlink(path);
        if (d->nskeys < FX_MAX_BUGS)
            copy(d->skeys[d->nskeys++], sizeof d->skeys[0], key);
        res->nbugs--;
        res->first_bug = first_bug;
        res->suppressed++;
        res->suppressed_runs++;
        if (d->made_outdir && !res->nbugs && rmdir(d->o->outdir) == 0)
            d->made_outdir = 0;
        return 0;
    }
    serr.offset = 0;
    if (fx_schedule_from_trace(b->trace, b->schedule, c->spec,
                               out->failure == FR_HANG, &serr) < 0) {
        b->schedule[0] = 0; /* nothing of the trace could be read */
        if (serr.offset == UINT64_MAX) { /* writing it failed */
            res->write_errno = EIO;
            return seterr(err, serr.path, "%s", serr.message);
        }
    }
    return 0;
}

/* The work directory holds only our run files. */
static void remove_work(const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        char path[600];
        while ((e = readdir(dp)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(dp);
    }
    rmdir(dir);
}

static double deadline_of(const fx_opts *o, double t0)
{
    return o->time_s > 0 ? t0 + o->time_s : 0;
}

/* The running exploration's deadline (fx_now() clock), 0 none. */
static double time_limit;

int fx_time_up(void)
{
    return time_limit > 0 && fx_now() >= time_limit;
}

static int stop_now(const driver *d, double t0, uint64_t started)
{
    const fx_opts *o = d->o;
    if (d->res->nbugs && !o->all)
        return 1;
    if (o->budget && started >= o->budget)
        return 1;
    return o->time_s > 0 && fx_now() >= deadline_of(o, t0);
}

/* Polls until c ends; 1 when it ended with an outcome, 0 when it was cut
 * at the deadline. */
static int wait_run(driver *d, fx_child *c, double t0, fr_outcome *out)
{
    while (!fx_child_poll(c, d->o->run_timeout_s, deadline_of(d->o, t0), out))
        nap();
    return !c->cut;
}

static int explore_loop(driver *d, double t0, ft_error *err)
{
    const fx_opts *o = d->o;
    int jobs = d->s->parallel ? o->jobs : 1;
    if (jobs < 1)
        jobs = 1;
    if (jobs > FX_MAX_JOBS)
        jobs = FX_MAX_JOBS;
    fx_child *slot = d->slots;
    int busy[FX_MAX_JOBS] = {0}, running = 0, exhausted = 0, rc = 0;
    uint64_t started = d->res->runs; /* the calibration counts */
    for (;;) {
        while (rc == 0 && !exhausted && running < jobs &&
               !stop_now(d, t0, started)) {
            int i = 0;
            while (busy[i])
                i++;
            fx_child *c = &slot[i];
            if (c->prog.fd < 0 && fr_progress_open(&c->prog, err) < 0) {
                rc = -1;
                break;
            }
            snprintf(c->trace, sizeof c->trace, "%s/run-%d.ftrace", d->work, i);
            snprintf(c->log, sizeof c->log, "%s/run-%d.log", d->work, i);
            char spec[FX_SPEC_MAX];
            if (!d->s->next(d->st, started, spec, sizeof spec)) {
                exhausted = 1;
                break;
            }
            if (fx_child_start(c, &d->launch, spec, d->s->wants_log, err) < 0) {
                rc = -1;
                break;
            }
            busy[i] = 1;
            running++;
            started++;
        }
        if (running == 0)
            break;
        int progressed = 0;
        /* After a failure, the runs in flight are stopped, not waited for. */
        double deadline = rc < 0 ? t0 : deadline_of(o, t0);
        for (int i = 0; i < jobs; i++) {
            fr_outcome out;
            if (!busy[i] ||
                !fx_child_poll(&slot[i], o->run_timeout_s, deadline, &out))
                continue;
            busy[i] = 0;
            running--;
            progressed = 1;
            if (slot[i].cut || rc < 0)
                continue; /* stopped by us: no outcome, nothing learned */
            if (!slot[i].refused) {
                if (d->s->done_trace)
                    d->s->done_trace(d->st, slot[i].spec, slot[i].log,
                                     slot[i].trace, out.failure);
                else if (d->s->done) /* seeded strategies learn nothing */
                    d->s->done(d->st, slot[i].spec, slot[i].log);
                if (d->s->parallel)
                    update_estimates(d, slot[i].trace);
            }
            if (record_outcome(d, &slot[i], &out, err) < 0) {
                rc = -1;
                continue;
            }
            if (o->progress)
                o->progress(o->progress_arg, d->res->runs, d->res->nbugs,
                            fx_now() - t0);
        }
        if (!progressed)
            nap();
    }
    d->res->exhausted = exhausted;
    return rc;
}

/* The run failed to start or was refused after work was done: the bugs
 * found so far stay, and the error is reported beside them. */
static int failed_after_work(fx_result *res, const ft_error *err)
{
    res->failed = 1;
    snprintf(res->error, sizeof res->error, "%s%s%s", err->path,
             err->path[0] ? ": " : "", err->message);
    return 0;
}

int fx_explore(const fx_opts *o, fx_result *res, ft_error *err)
{
    memset(res, 0, sizeof *res);
    memset(err, 0, sizeof *err);
    static fx_child slots[FX_MAX_JOBS + 1];
    driver d = {.o = o, .res = res, .s = find_strategy(o->strategy),
                .slots = slots};
    for (int i = 0; i <= FX_MAX_JOBS; i++)
        slots[i].prog.fd = -1, slots[i].prog.page = NULL;
    char pbuf[4096];
    if (!d.s)
        return seterr(err, NULL, "unknown strategy '%s'", o->strategy);
    if (!o->argv || !o->argv[0] || !fr_which(o->argv[0], pbuf, sizeof pbuf)) {
        seterr(err, o->argv && o->argv[0] ? o->argv[0] : "",
               "program not found%s", "");
        return FX_ERR_NOT_FOUND;
    }
    /* What the harness itself needs, before any run: its failure is
     * foretell's (FX_ERR_SYSTEM), never the program's. */
    d.launch.argv = o->argv;
    d.launch.max_events = o->max_run_events;
    d.launch.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (d.launch.devnull < 0)
        return fx_system_error(err, "/dev/null", "cannot open it for the "
                               "programs' input and output: %s",
                               strerror(errno));
    fx_child *cal = &slots[FX_MAX_JOBS];
    if (fr_progress_open(&cal->prog, err) < 0) {
        close(d.launch.devnull);
        return FX_ERR_SYSTEM;
    }
    snprintf(d.work, sizeof d.work, "%s/foretell-explore-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(d.work)) {
        int e = errno;
        close(d.launch.devnull);
        fr_progress_close(&cal->prog);
        return fx_system_error(err, d.work, "cannot create a work directory: "
                               "%s", strerror(e));
    }
    double t0 = fx_now();
    int rc = 0;
    time_limit = deadline_of(o, t0);
    /* the LD_PRELOAD runtime for a program not built with foretell-cc */
    fr_backend_ensure(o->argv[0]);
    /* Calibration: the non-preemptive schedule, run 1. */
    snprintf(cal->trace, sizeof cal->trace, "%s/calib.ftrace", d.work);
    snprintf(cal->log, sizeof cal->log, "%s/calib.log", d.work);
    fx_calib calib = {0};
    fr_outcome out;
    if (fx_child_start(cal, &d.launch, "none", 0, err) < 0) {
        rc = FX_ERR_SYSTEM;
        goto out;
    }
    if (!wait_run(&d, cal, t0, &out)) {
        res->cut_calibration = 1; /* --time ran out in the first run */
        goto out;
    }
    ft_error cerr;
    int have_calib = fx_calibrate(cal->trace, &calib, &cerr) == 0;
    if (!cal->started && !have_calib) {
        /* As record and replay say it. */
        char status[300];
        const char *why = fr_backend_why(o->argv[0]);
        snprintf(status, sizeof status, "%d%s%s", out.exit_status,
                 why ? "; " : "", why ? why : "");
        rc = seterr(err, o->argv[0], "not built with foretell-cc (no "
                    "foretell runtime started in it; it exited with status "
                    "%s)", status);
        goto out;
    }
    if (cal->refused) {
        rc = fx_system_error(err, o->argv[0], "the runtime refused the "
                             "first run: %s", cal->why);
        goto out;
    }
    res->n_est = calib.threads;
    res->k_est = calib.events;
    res->shared_vars = calib.sv_shared;
    res->reorderable = calib.nsvars;
    if (record_outcome(&d, cal, &out, err) < 0) {
        rc = failed_after_work(res, err);
        goto out;
    }
    d.calib = &calib;
    d.st = d.s->init(o, &calib);
    if (!d.st) {
        rc = fx_system_error(err, "", "out of memory%s", "");
        goto out;
    }
    if (o->progress)
        o->progress(o->progress_arg, res->runs, res->nbugs, fx_now() - t0);
    if (explore_loop(&d, t0, err) < 0)
        rc = failed_after_work(res, err);
    d.s->fini(d.st);
out:
    time_limit = 0;
    fx_calib_free(&calib);
    res->seconds = fx_now() - t0;
    remove_work(d.work);
    for (int i = 0; i <= FX_MAX_JOBS; i++)
        if (slots[i].prog.page)
            fr_progress_close(&slots[i].prog);
    close(d.launch.devnull);
    return rc;
}

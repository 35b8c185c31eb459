/* SPDX-License-Identifier: MIT */
/* explore_run.c - one exploration run: start the program under the
 * runtime with FORETELL_TRACE/FORETELL_STRATEGY (and the decision log for
 * the systematic strategies) and the progress page, poll it without
 * blocking so that several runs can go at once (-j), stop it when it makes
 * no progress (a hang: judged by the key points and CPU time the runtime
 * reports, not by wall time) or when the exploration's time is up, and
 * classify how it ended from its wait status and its trace.  Runs are started here rather
 * than through fr_run because the driver needs several of them in flight
 * and their decision logs.  A failed run is classified by the replay
 * harness (fr_outcome_from_trace: heap errors, deadlocks, step bounds
 * reported by the runtime), from its wait status when that fails. */
#define _GNU_SOURCE
#include "replay/explore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double fx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *fx_failure_name(int f)
{
    return fr_failure_name(f);
}

/* The environment of a run: ours without the runtime's variables, then
 * the run's own.  NULL when out of memory; free the array only (its
 * strings are environ's or those of the caller). */
extern char **environ;
static char **run_env(char *const *ours, int own_preload)
{
    static const char *const drop[] = {
        "FORETELL_TRACE=", "FORETELL_STRATEGY=", "FORETELL_EXPLORE_LOG=",
        "FORETELL_SCHEDULE=", "FORETELL_SEED=", "FORETELL_MAX_STEPS=",
        "FORETELL_STATUS_FD=", "FORETELL_PARENT_PID=", FT_PROGRESS_ENV "=",
        NULL};
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 11) * sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int keep = 1;
        for (const char *const *d = drop; *d && keep; d++)
            keep = strncmp(environ[i], *d, strlen(*d)) != 0;
        if (own_preload && !strncmp(environ[i], "LD_PRELOAD=", 11))
            keep = 0; /* ours holds it, the user's after the runtime */
        if (keep)
            env[k++] = environ[i];
    }
    for (; *ours; ours++)
        env[k++] = *ours;
    env[k] = NULL;
    return env;
}

/* posix_spawn (a vfork-style clone) rather than fork: forking foretell,
 * which maps Z3, cost ~0.7 ms per run in page-table copies before the
 * exec threw them away.  So the runtime itself makes the run die with
 * foretell (FORETELL_PARENT_PID: no code runs in the child before exec),
 * reports a refusal or a trace it could not write on the status channel
 * (the pipe c->report) and its progress on the slot's page; both
 * descriptors are kept across the exec by a dup2 onto themselves (which
 * clears close-on-exec). */
int fx_child_start(fx_child *c, const fx_launch *l, const char *spec,
                   int with_log, ft_error *err)
{
    snprintf(c->spec, sizeof c->spec, "%s", spec);
    c->max_events = l->max_events;
    unlink(c->trace);
    if (with_log)
        unlink(c->log);
    fr_progress_reset(&c->prog);
    c->term_at = 0;
    c->hung = c->cut = c->started = c->refused = 0;
    c->why[0] = 0;
    int rfd[2] = {-1, -1};
    c->report = -1;
    if (ft_report_open(rfd) < 0)
        rfd[0] = rfd[1] = -1;
    size_t lt = 2 * strlen(c->trace) + 20, ls = strlen(spec) + 24,
           ll = strlen(c->log) + 24;
    char *trace_var = malloc(lt), *spec_var = malloc(ls), *log_var = malloc(ll);
    char parent_var[48], report_var[48], steps_var[64], preload_var[8400];
    snprintf(parent_var, sizeof parent_var, "FORETELL_PARENT_PID=%ld",
             (long)getpid());
    char *ours[11] = {trace_var, spec_var, parent_var, c->prog.env, NULL};
    int k = 4;
    /* the LD_PRELOAD runtime for a program not built with foretell-cc
     * (replay/backend.c); an LD_PRELOAD of the user's stays after it */
    const char *ld = fr_backend_env(l->argv[0], preload_var,
                                    sizeof preload_var);
    if (ld)
        ours[k++] = preload_var;
    /* A run's trace is read once, by the harness, while -j runs keep
     * every core busy: compressing it (docs/benchmarks.md, "Trace
     * compression") would only take CPU from the runs.  Unless the user
     * asked for a level. */
    static char no_compress[] = "FORETELL_COMPRESS=0";
    if (!getenv("FORETELL_COMPRESS"))
        ours[k++] = no_compress;
    if (rfd[1] >= 0) {
        snprintf(report_var, sizeof report_var, "FORETELL_STATUS_FD=%d",
                 rfd[1]);
        ours[k++] = report_var;
    }
    if (l->max_events) {
        snprintf(steps_var, sizeof steps_var, "FORETELL_MAX_STEPS=%llu",
                 (unsigned long long)l->max_events);
        ours[k++] = steps_var;
    }
    if (with_log)
        ours[k++] = log_var;
    char **env =
        trace_var && spec_var && log_var ? run_env(ours, ld != NULL) : NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = ENOMEM, have_fa = 0, have_at = 0;
    if (env) {
        /* '%' doubled: the runtime expands patterns */
        memcpy(trace_var, "FORETELL_TRACE=", 16);
        ft_trace_path_escape(c->trace, trace_var + 15, lt - 15);
        snprintf(spec_var, ls, "FORETELL_STRATEGY=%s", spec);
        snprintf(log_var, ll, "FORETELL_EXPLORE_LOG=%s", c->log);
        have_fa = (rc = posix_spawn_file_actions_init(&fa)) == 0;
        for (int fd = 0; rc == 0 && fd < 3; fd++)
            rc = posix_spawn_file_actions_adddup2(&fa, l->devnull, fd);
        /* the same descriptors: only their close-on-exec flag is cleared */
        if (rc == 0)
            rc = posix_spawn_file_actions_adddup2(&fa, c->prog.fd, c->prog.fd);
        if (rc == 0 && rfd[1] >= 0)
            rc = posix_spawn_file_actions_adddup2(&fa, rfd[1], rfd[1]);
        if (rc == 0)
            have_at = (rc = posix_spawnattr_init(&at)) == 0;
        /* its own process group, so that a hang is killed with its
         * children */
        if (rc == 0)
            rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
        if (rc == 0)
            rc = posix_spawnattr_setpgroup(&at, 0);
        pid_t pid;
        if (rc == 0)
            rc = posix_spawnp(&pid, l->argv[0], &fa, &at, l->argv, env);
        if (rc == 0) {
            c->pid = pid;
            c->start = fx_now();
        }
    }
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (have_at)
        posix_spawnattr_destroy(&at);
    if (rfd[1] >= 0)
        close(rfd[1]);
    if (rc == 0)
        c->report = rfd[0];
    else if (rfd[0] >= 0)
        close(rfd[0]);
    free(env);
    free(trace_var);
    free(spec_var);
    free(log_var);
    if (rc != 0) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", l->argv[0]);
        snprintf(err->message, sizeof err->message, "cannot run the program: %s",
                 strerror(rc));
        return -1;
    }
    return 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Joins the sites of the threads marked in want[0..n) into out->site,
 * sorted, so that one deadlock or hang gets one key whichever thread
 * got where first. */
static void join_sites(ft_reader *r, const uint32_t *site, uint32_t n,
                       fr_outcome *out)
{
    static char names[64][200];
    char *sorted[64];
    uint32_t k = 0;
    for (uint32_t t = 0; t < n && k < 64; t++)
        if (site[t]) {
            if (!ft_site_format_user(r, site[t], names[k], sizeof names[k]))
                ft_site_format(r, site[t], names[k], sizeof names[k]);
            sorted[k] = names[k];
            k++;
        }
    qsort(sorted, k, sizeof sorted[0], by_string);
    size_t len = 0;
    for (uint32_t i = 0; i < k; i++) {
        int m = snprintf(out->site + len, sizeof out->site - len, "%s%s",
                         len ? "," : "", sorted[i]);
        if (m < 0 || (size_t)m >= sizeof out->site - len)
            break;
        len += (size_t)m;
    }
}

/* The site a failure is filed under, for the dedup key and the report:
 * for a deadlock, each blocked thread's wait (its BLOCKED event, which
 * the thread that found the deadlock writes for it); for a hang, the last
 * site of every live thread; else the last site of the signalled thread. */
void fx_failure_site(const char *trace, int failure, fr_outcome *out)
{
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r)
        return;
    enum { MAXT = 1024 };
    static uint32_t last_site[MAXT], blocked_site[MAXT];
    static unsigned char exited[MAXT];
    memset(last_site, 0, sizeof last_site);
    memset(blocked_site, 0, sizeof blocked_site);
    memset(exited, 0, sizeof exited);
    ft_event ev;
    int sig_tid = -1, nblocked = 0;
    uint32_t nthreads = 0;
    while (ft_reader_next(r, &ev) == 1) {
        if (ev.tid >= MAXT)
            continue;
        if (ev.tid + 1 > nthreads)
            nthreads = ev.tid + 1;
        if (ev.kind == FT_EV_SIGNAL) {
            sig_tid = (int)ev.tid;
        } else if (ev.kind == FT_EV_THREAD_EXIT) {
            exited[ev.tid] = 1;
        } else if (ev.kind == FT_EV_BLOCKED) {
            if (ev.value < MAXT) {
                blocked_site[ev.value] = ev.site;
                nblocked++;
            }
        } else if (ev.kind != FT_EV_DEADLOCK && ev.site) {
            last_site[ev.tid] = ev.site;
        }
    }
    out->events = ft_reader_delivered(r);
    char buf[200];
    out->site[0] = 0;
    if (failure == FR_DEADLOCK && nblocked) {
        join_sites(r, blocked_site, MAXT, out);
        out->tid = -1;
    } else if (failure == FR_DEADLOCK || failure == FR_HANG) {
        for (uint32_t t = 0; t < nthreads; t++)
            if (exited[t])
                last_site[t] = 0;
        join_sites(r, last_site, nthreads, out);
        out->tid = -1;
    } else if (sig_tid >= 0 && last_site[sig_tid]) {
        out->tid = sig_tid;
        snprintf(out->site, sizeof out->site, "%s",
                 ft_site_format(r, last_site[sig_tid], buf, sizeof buf));
    }
    ft_reader_close(r);
}

/* The replay harness's classification (replay/outcome.c): the runtime's
 * own reports (heap errors, deadlock, divergence, step bound) before the
 * wait status.  1 when it gave a failure; a deadlock or hang keeps the
 * sites of every live thread as its dedup key. */
static int classify_from_trace(const char *trace, int status, int hung,
                               fr_outcome *out)
{
    fr_outcome full;
    memset(&full, 0, sizeof full);
    full.seconds = out->seconds;
    ft_error err;
    if (fr_outcome_from_trace(trace, status, hung, &full, &err) < 0 ||
        full.failure == FR_OK)
        return 0;
    *out = full;
    if (out->failure == FR_DEADLOCK || out->failure == FR_HANG ||
        !out->site[0]) {
        fr_outcome sites = *out;
        fx_failure_site(trace, out->failure, &sites);
        memcpy(out->site, sites.site, sizeof out->site);
    }
    return 1;
}

void fx_reclassify(const char *trace, fr_outcome *out)
{
    int status = out->signo ? out->signo
                            : (out->exit_status >= 0 ? out->exit_status << 8 : 0);
    fr_outcome again = *out;
    if (classify_from_trace(trace, status, 0, &again) &&
        again.failure == out->failure) {
        if (out->failure == FR_HANG) /* the driver knows why it stopped */
            memcpy(again.detail, out->detail, sizeof again.detail);
        *out = again;
    } else {
        fx_failure_site(trace, out->failure, out);
    }
}

/* Seconds between a hung run's SIGTERM (the runtime then ends its trace
 * cleanly) and SIGKILL. */
#define TERM_GRACE_S 1.0
/* Seconds between looks at a run's progress page. */
#define LOOK_EVERY_S 0.25

static void stop_run(fx_child *c, double now)
{
    kill(-c->pid, SIGTERM);
    kill(c->pid, SIGTERM);
    c->term_at = now;
}

int fx_child_poll(fx_child *c, double stall_s, double deadline,
                  fr_outcome *out)
{
    int status = 0;
    pid_t got = waitpid(c->pid, &status, WNOHANG);
    if (got == 0) {
        double now = fx_now();
        if (c->term_at) {
            if (now - c->term_at < TERM_GRACE_S)
                return 0;
            kill(-c->pid, SIGKILL);
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
        } else {
            if (deadline > 0 && now >= deadline) {
                c->cut = 1;
                stop_run(c, now);
                return 0;
            }
            if (c->prog.last_look == 0 || now - c->prog.last_look >= LOOK_EVERY_S)
                fr_progress_look(&c->prog, now);
            if (!fr_progress_stalled(&c->prog, now, stall_s))
                return 0;
            c->hung = 1;
            stop_run(c, now);
            return 0;
        }
    } else if (got < 0) {
        status = 0;
    }
    ft_rt_report rep = {0};
    if (c->report >= 0)
        ft_report_read(c->report, &rep);
    c->report = -1;
    c->started = fr_progress_started(&c->prog);
    /* Only the runtime's own line says it refused: an exit status of 84
     * alone is the program's (a bug like any other). */
    if (rep.refusal[0] && WIFEXITED(status) &&
        WEXITSTATUS(status) == rep.refused_status) {
        c->refused = rep.refused_status;
        snprintf(c->why, sizeof c->why, "%s", rep.refusal);
    }
    memset(out, 0, sizeof *out);
    out->write_errno = rep.write_errno;
    if (rep.write_errno)
        snprintf(out->write_error, sizeof out->write_error, "%s; the trace "
                 "is cut at byte %llu", strerror(rep.write_errno),
                 (unsigned long long)rep.offset);
    out->tid = -1;
    out->seconds = fx_now() - c->start;
    out->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    out->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (c->cut || c->refused)
        return 1; /* no outcome of the program's */
    int hung = c->hung;
    if (hung)
        out->failure = FR_HANG;
    else if (WIFSIGNALED(status))
        out->failure = out->signo == SIGABRT ? FR_ABORT : FR_CRASH;
    else if (out->exit_status != 0)
        out->failure = FR_EXIT;
    else
        out->failure = FR_OK;
    /* a run that ended well is read back only when the runtime said its
     * trace has a misuse in it */
    if ((out->failure != FR_OK || rep.misuse) &&
        classify_from_trace(c->trace, status, hung, out)) {
        if (out->failure == FR_HANG && !hung)
            snprintf(out->detail, sizeof out->detail, "no end after "
                     "--max-run-events (%llu key points): a livelock, or a "
                     "run longer than that bound",
                     (unsigned long long)c->max_events);
        else if (hung)
            snprintf(out->detail, sizeof out->detail, "no progress for "
                     "%.1f s (stopped)", stall_s);
        return 1;
    }
    if (out->failure != FR_OK)
        fx_failure_site(c->trace, out->failure, out);
    if (hung)
        snprintf(out->detail, sizeof out->detail,
                 "no progress for %.1f s (stopped)", stall_s);
    else if (out->signo)
        snprintf(out->detail, sizeof out->detail, "killed by signal %d (%s)",
                 out->signo, strsignal(out->signo));
    else if (out->failure == FR_EXIT)
        snprintf(out->detail, sizeof out->detail, "exit status %d",
                 out->exit_status);
    return 1;
}

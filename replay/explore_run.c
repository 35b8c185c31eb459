/* explore_run.c - one exploration run: start the program under the
 * runtime with FORETELL_TRACE/FORETELL_STRATEGY (and the decision log for
 * the systematic strategies), poll it without blocking so that several
 * runs can go at once (-j), kill it at its time bound, and classify how it
 * ended from its wait status and its trace.  Runs are started here rather
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

#define FT_DEADLOCK_EXIT 86      /* recorder/rt/rt.h FT_DEADLOCK_STATUS */
#define FT_BAD_STRATEGY_EXIT 84  /* FT_BAD_STRATEGY_STATUS */
#define FT_OPEN_FAIL_EXIT 85     /* FT_OPEN_FAIL_STATUS */

double fx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *fx_failure_name(int f)
{
    static const char *const names[FR_NFAILURES] = {
        "ok", "abort", "crash", "null-deref", "use-after-free", "double-free",
        "deadlock", "hang", "exit", "diverged",
    };
    return f >= 0 && f < FR_NFAILURES ? names[f] : "?";
}

/* The environment of a run: ours without the runtime's variables, then
 * the run's own.  NULL when out of memory; free the array only (its
 * strings are environ's or those of the caller). */
extern char **environ;
static char **run_env(char *const *ours)
{
    static const char *const drop[] = {
        "FORETELL_TRACE=", "FORETELL_STRATEGY=", "FORETELL_EXPLORE_LOG=",
        "FORETELL_SCHEDULE=", "FORETELL_SEED=", NULL};
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 8) * sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int keep = 1;
        for (const char *const *d = drop; *d && keep; d++)
            keep = strncmp(environ[i], *d, strlen(*d)) != 0;
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
 * exec threw them away. */
int fx_child_start(fx_child *c, char *const *argv, const char *spec,
                   int with_log, ft_error *err)
{
    snprintf(c->spec, sizeof c->spec, "%s", spec);
    unlink(c->trace);
    if (with_log)
        unlink(c->log);
    size_t lt = 2 * strlen(c->trace) + 20, ls = strlen(spec) + 24,
           ll = strlen(c->log) + 24;
    char *trace_var = malloc(lt), *spec_var = malloc(ls), *log_var = malloc(ll);
    char *ours[4] = {trace_var, spec_var, with_log ? log_var : NULL, NULL};
    char **env = trace_var && spec_var && log_var ? run_env(ours) : NULL;
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
            rc = posix_spawn_file_actions_addopen(&fa, fd, "/dev/null",
                                                  fd ? O_WRONLY : O_RDONLY, 0);
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
            rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
        if (rc == 0) {
            c->pid = pid;
            c->start = fx_now();
        }
    }
    if (have_fa)
        posix_spawn_file_actions_destroy(&fa);
    if (have_at)
        posix_spawnattr_destroy(&at);
    free(env);
    free(trace_var);
    free(spec_var);
    free(log_var);
    if (rc != 0) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", argv[0]);
        snprintf(err->message, sizeof err->message, "cannot run the program: %s",
                 strerror(rc));
        return -1;
    }
    return 0;
}

/* Site of the last event of thread tid (any thread if tid < 0) that has
 * one, as the reader formats it; and the last SIGNAL's thread. */
void fx_failure_site(const char *trace, int failure, fr_outcome *out)
{
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r)
        return;
    enum { MAXT = 1024 };
    static uint32_t last_site[MAXT];
    static unsigned char exited[MAXT];
    memset(last_site, 0, sizeof last_site);
    memset(exited, 0, sizeof exited);
    ft_event ev;
    int sig_tid = -1;
    uint32_t nthreads = 0;
    while (ft_reader_next(r, &ev) == 1) {
        if (ev.tid >= MAXT)
            continue;
        if (ev.tid + 1 > nthreads)
            nthreads = ev.tid + 1;
        if (ev.kind == FT_EV_SIGNAL)
            sig_tid = (int)ev.tid;
        else if (ev.kind == FT_EV_THREAD_EXIT)
            exited[ev.tid] = 1;
        else if (ev.site)
            last_site[ev.tid] = ev.site;
    }
    out->events = ft_reader_delivered(r);
    char buf[200];
    out->site[0] = 0;
    if (failure == FR_DEADLOCK || failure == FR_HANG) {
        /* Every thread still alive, in tid order: the blocked ones. */
        size_t len = 0;
        for (uint32_t t = 0; t < nthreads; t++) {
            if (exited[t] || !last_site[t])
                continue;
            ft_site_format(r, last_site[t], buf, sizeof buf);
            int n = snprintf(out->site + len, sizeof out->site - len, "%s%s",
                             len ? "," : "", buf);
            if (n < 0 || (size_t)n >= sizeof out->site - len)
                break;
            len += (size_t)n;
        }
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
static int classify_from_trace(const fx_child *c, int status, int hung,
                               fr_outcome *out)
{
    fr_outcome full;
    memset(&full, 0, sizeof full);
    full.seconds = out->seconds;
    ft_error err;
    if (fr_outcome_from_trace(c->trace, status, hung, &full, &err) < 0 ||
        full.failure == FR_OK)
        return 0;
    *out = full;
    if (out->failure == FR_DEADLOCK || out->failure == FR_HANG ||
        !out->site[0]) {
        fr_outcome sites = *out;
        fx_failure_site(c->trace, out->failure, &sites);
        memcpy(out->site, sites.site, sizeof out->site);
    }
    return 1;
}

void fx_reclassify(const char *trace, fr_outcome *out)
{
    int status = out->signo ? out->signo
                            : (out->exit_status >= 0 ? out->exit_status << 8 : 0);
    fx_child c;
    snprintf(c.trace, sizeof c.trace, "%s", trace);
    fr_outcome again = *out;
    if (classify_from_trace(&c, status, out->failure == FR_HANG, &again) &&
        again.failure == out->failure)
        *out = again;
    else
        fx_failure_site(trace, out->failure, out);
}

int fx_child_poll(fx_child *c, double timeout_s, fr_outcome *out)
{
    int status = 0, hung = 0;
    pid_t got = waitpid(c->pid, &status, WNOHANG);
    if (got == 0) {
        if (timeout_s <= 0 || fx_now() - c->start < timeout_s)
            return 0;
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
        waitpid(c->pid, &status, 0);
        hung = 1;
    } else if (got < 0) {
        status = 0;
    }
    memset(out, 0, sizeof *out);
    out->tid = -1;
    out->seconds = fx_now() - c->start;
    out->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    out->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (hung)
        out->failure = FR_HANG;
    else if (WIFSIGNALED(status))
        out->failure = out->signo == SIGABRT ? FR_ABORT : FR_CRASH;
    else if (out->exit_status == FT_DEADLOCK_EXIT)
        out->failure = FR_DEADLOCK;
    else if (out->exit_status != 0)
        out->failure = FR_EXIT;
    else
        out->failure = FR_OK;
    if (out->failure != FR_OK && classify_from_trace(c, status, hung, out))
        return 1;
    if (out->failure != FR_OK)
        fx_failure_site(c->trace, out->failure, out);
    if (hung)
        snprintf(out->detail, sizeof out->detail,
                 "no end after %.1f s (killed)", timeout_s);
    else if (out->signo)
        snprintf(out->detail, sizeof out->detail, "killed by signal %d (%s)",
                 out->signo, strsignal(out->signo));
    else if (out->failure == FR_DEADLOCK)
        snprintf(out->detail, sizeof out->detail, "deadlock: no thread can run");
    else if (out->failure == FR_EXIT)
        snprintf(out->detail, sizeof out->detail, "exit status %d",
                 out->exit_status);
    return 1;
}

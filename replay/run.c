/* SPDX-License-Identifier: MIT */
/* run.c - fr_run: one controlled run of an instrumented program.  Sets the
 * runtime's environment (trace, schedule, strategy, bounds), disables ASLR
 * so that addresses repeat between a recording and its replays, enforces
 * the wall-clock bound (SIGTERM, then SIGKILL after a grace period), then
 * symbolises the trace, appends an END with the real wait status and
 * classifies the outcome (outcome.c). */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_S 2.0

void fr_run_opts_default(fr_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->diverge = FR_DIVERGE_STOP;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_err(ft_error *err, const char *path, const char *fmt,
                    const char *arg)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, fmt, arg);
}

/* What the child tells the parent before exec fails: the errno and
 * whether exec (the program) or the harness's own setup failed. */
struct child_error {
    int err;
    int setup; /* 1: opening /dev/null failed, not the program */
};

/* The program's environment: the caller's, with the runtime's settings
 * for this run (built before the fork: child() makes system calls
 * only, child_env.c).  0, or -1 out of memory. */
static int child_env(fr_child_env *env, const fr_run_opts *o, const char *trace,
                     int reportfd, fr_progress *prog)
{
    if (fr_child_env_init(env) < 0)
        return -1;
    char value[8200]; /* '%' doubled: the runtime expands patterns */
    int rc = fr_child_env_set(
        env, "FORETELL_TRACE",
        ft_trace_path_escape(trace, value, sizeof value) == 0 ? value : trace);
    if (o->schedule)
        rc |= fr_child_env_set(env, "FORETELL_SCHEDULE", o->schedule);
    else
        fr_child_env_unset(env, "FORETELL_SCHEDULE");
    rc |= fr_child_env_set(env, "FORETELL_DIVERGE",
                           o->diverge == FR_DIVERGE_CONTINUE ? "continue"
                                                             : "stop");
    rc |= fr_child_env_set(env, "FORETELL_STRATEGY",
                           o->strategy ? o->strategy : "none");
    if (o->max_steps) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->max_steps);
        rc |= fr_child_env_set(env, "FORETELL_MAX_STEPS", buf);
    } else {
        fr_child_env_unset(env, "FORETELL_MAX_STEPS");
    }
    char fd[16];
    snprintf(fd, sizeof fd, "%d", reportfd);
    rc |= fr_child_env_set(env, "FORETELL_STATUS_FD", fd);
    if (prog->fd >= 0)
        rc |= fr_child_env_put(env, prog->env);
    char pre[8400];
    const char *lp = fr_backend_env(o->argv[0], pre, sizeof pre);
    if (lp)
        rc |= fr_child_env_set(env, "LD_PRELOAD", lp + strlen("LD_PRELOAD="));
    if (rc) {
        fr_child_env_free(env);
        return -1;
    }
    return 0;
}

/* Undoes fr_run's preparations when the program cannot be started. */
static void undo_start(const int pfd[2], const int rfd[2], const char *tmp,
                       fr_progress *prog)
{
    for (int i = 0; i < 2; i++) {
        if (pfd[i] >= 0)
            close(pfd[i]);
        if (rfd[i] >= 0)
            close(rfd[i]);
    }
    unlink(tmp);
    fr_progress_close(prog);
}

/* In the child of fr_fork_quiet: system calls only, then the exec of
 * path (the program, found before the fork) with env. */
static void child(const fr_run_opts *o, const char *path, char **env, int errfd,
                  int reportfd, const fr_progress *prog, pid_t parent)
{
    struct child_error ce = {0, 0};
    ft_child_setup_fds(reportfd, parent);
    if (prog->fd >= 0)
        fr_child_keep_fd(prog->fd);
    /* Addresses and PCs repeat run to run (runtime-findings.md). */
    int pers = personality(0xffffffff);
    if (pers != -1)
        personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
    if (o->quiet) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
            ce.err = errno;
            ce.setup = 1;
            if (write(errfd, &ce, sizeof ce) < 0)
                _exit(127);
            _exit(127);
        }
        close(fd);
    }
    execve(path, o->argv, env);
    ce.err = errno;
    if (write(errfd, &ce, sizeof ce) < 0)
        _exit(127);
    _exit(127);
}

/* Why the harness stopped a run (ft_child_watch's answer). */
enum { STOP_NONE, STOP_WALL, STOP_STALL, STOP_UNTIL, STOP_TAIL };

struct watch {
    const fr_run_opts *o;
    fr_progress *prog;
    double start;
};

/* Seconds between looks at a run (its progress page, the bounds). */
#define LOOK_EVERY_S 0.25

static int why_stop(void *arg, double now)
{
    struct watch *w = arg;
    if (w->o->tick)
        w->o->tick(w->o->tick_arg);
    if (w->o->until > 0 && now >= w->o->until)
        return STOP_UNTIL;
    if (w->o->tail_until > 0 && now >= w->o->tail_until &&
        fr_progress_in_tail(w->prog))
        return STOP_TAIL;
    if (w->o->timeout_s > 0 && now - w->start >= w->o->timeout_s)
        return STOP_WALL;
    if (w->o->stall_s > 0) {
        fr_progress_look(w->prog, now);
        if (fr_progress_stalled(w->prog, now, w->o->stall_s))
            return STOP_STALL;
    }
    return STOP_NONE;
}

/* The runtime's END reason, kept in the END we append (the last wins);
 * hung is why the harness stopped the run (STOP_*). */
static const char *end_reason(ft_reader *r, int status, int hung,
                              char *buf, size_t len, uint64_t *events)
{
    const char *rt_reason = NULL;
    ft_event ev;
    *events = 0;
    if (r) {
        while (ft_reader_next(r, &ev) > 0)
            (*events)++;
        const ft_end *end = ft_reader_end(r);
        if (end->present && end->reason)
            snprintf(buf, len, "%s", end->reason), rt_reason = buf;
    }
    if (hung)
        return hung == STOP_UNTIL || hung == STOP_TAIL ? "stopped" : "timeout";
    if (rt_reason && strcmp(rt_reason, "exit") && strcmp(rt_reason, "signal"))
        return rt_reason; /* deadlock, diverged, max-steps, exec */
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGKILL ? "killed" : "signal";
    return "exit";
}

/* Whether the file at path can be run as a program: 0, ENOENT (no such
 * file: the search goes on), or EACCES with why. */
static int candidate(const char *path, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return ENOENT;
        snprintf(why, len, "%s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(why, len, "is a directory");
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "is not a regular file");
    } else if (!(st.st_mode & 0111) || access(path, X_OK) != 0) {
        snprintf(why, len, "is not executable (no execute permission)");
    } else if (st.st_size == 0) {
        snprintf(why, len, "is an empty file, not a program");
    } else {
        return 0;
    }
    return EACCES;
}

int fr_find_program(const char *prog, char *buf, size_t len, ft_error *err)
{
    char why[128] = "", where[4096] = "";
    int denied = 0;
    if (strchr(prog, '/')) {
        int rc = candidate(prog, why, sizeof why);
        if (rc == 0 && (size_t)snprintf(buf, len, "%s", prog) < len)
            return 0;
        denied = rc == EACCES;
        snprintf(where, sizeof where, "%s", prog);
    } else {
        const char *path = getenv("PATH");
        if (!path)
            path = "/usr/bin:/bin";
        while (*path) {
            const char *colon = strchr(path, ':');
            size_t n = colon ? (size_t)(colon - path) : strlen(path);
            char w[128];
            if ((size_t)snprintf(buf, len, "%.*s/%s", (int)n,
                                 n ? path : ".", prog) < len) {
                int rc = candidate(buf, w, sizeof w);
                if (rc == 0)
                    return 0;
                if (rc == EACCES && !denied) { /* execvp reports the first */
                    denied = 1;
                    snprintf(why, sizeof why, "%s", w);
                    snprintf(where, sizeof where, "%s", buf);
                }
            }
            path += n + (colon != NULL);
        }
    }
    memset(err, 0, sizeof *err);
    const char *named = denied ? where : prog;
    /* a PATH entry can be longer than an error's path: a cut one ends in
     * "..." so it is not taken for a real path */
    if ((size_t)snprintf(err->path, sizeof err->path, "%s", named) >= sizeof err->path)
        memcpy(err->path + sizeof err->path - 4, "...", 4);
    if (denied) {
        snprintf(err->message, sizeof err->message,
                 "cannot be executed: %s", why);
        errno = EACCES;
        return 126;
    }
    snprintf(err->message, sizeof err->message, "%s",
             strchr(prog, '/') ? "program not found (no such file)"
                               : "program not found (not in PATH)");
    errno = ENOENT;
    return 127;
}

const char *fr_which(const char *prog, char *buf, size_t len)
{
    ft_error err;
    return fr_find_program(prog, buf, len, &err) == 0 ? buf : NULL;
}

/* Whether the runtime left nothing readable at tmp. */
static int no_trace(const char *tmp)
{
    struct stat st;
    ft_error e;
    if (stat(tmp, &st) != 0 || st.st_size == 0)
        return 1;
    ft_reader *r = ft_reader_open(tmp, &e);
    if (!r)
        return 1;
    ft_reader_close(r);
    return 0;
}

/* After the run: symbols and the END with the real status on the
 * temporary trace tmp, then tmp replaces o->trace_out.  A trace the
 * runtime could not write whole is kept without END, and said so
 * (out->write_errno).  0, or -1 with err set (errno 0 for a run that
 * wrote no trace, else the write's errno); -2 when the runtime started
 * (the progress page says so) but wrote no trace: foretell failed. */
static int run_trace(const fr_run_opts *o, const char *tmp, int status,
                     int hung, int started, ft_rt_report *rep,
                     fr_outcome *out, ft_error *err)
{
    struct stat st;
    ft_error e2;
    ft_reader *r = NULL;
    if (stat(tmp, &st) == 0 && st.st_size > 0)
        r = ft_reader_open(tmp, &e2);
    if (!r) {
        unlink(tmp);
        if (rep->write_errno) {
            out->write_errno = rep->write_errno;
            set_err(err, o->trace_out, "cannot write the trace: %s (no "
                    "trace was written)", strerror(rep->write_errno));
            errno = rep->write_errno;
            return -1;
        }
        char msg[128];
        const char *why = fr_backend_why(o->argv[0]);
        snprintf(msg, sizeof msg, "%d%s%s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 why ? "; " : "", why ? why : "");
        set_err(err, o->argv[0],
                started ? "the runtime started but wrote no trace (exit "
                          "status %s)"
                        : "not built with foretell-cc (no foretell runtime "
                          "started in it; exit status %s)",
                msg);
        errno = 0;
        return started ? -2 : -1;
    }
    /* The runtime writes nothing after a failed write: a report beside
     * an intact END of its own is not the runtime's. */
    if (ft_reader_end(r)->present && !ft_reader_damage(r, &e2))
        rep->write_errno = 0;
    char rbuf[64];
    uint64_t events;
    const char *reason = end_reason(r, status, hung, rbuf, sizeof rbuf,
                                    &events);
    int werr = rep->write_errno;
    if (!werr) { /* symbols and the END with the real status, one pass */
        ft_end end = {.present = 1, .events = events, .exit_status = status,
                      .reason = reason};
        if (ft_symbolize_reader(r, tmp, 0, &end, 0, NULL, &e2) == -2)
            werr = EIO;
        if (werr)
            snprintf(out->write_error, sizeof out->write_error, "%s",
                     e2.message);
    } else {
        snprintf(out->write_error, sizeof out->write_error, "%s; the trace "
                 "is cut at byte %llu (%llu events)", strerror(werr),
                 (unsigned long long)rep->offset, (unsigned long long)events);
    }
    ft_reader_close(r);
    out->write_errno = werr;
    if (ft_out_commit(tmp, o->trace_out) < 0) {
        int ce = errno;
        out->write_errno = ce;
        set_err(err, o->trace_out, "cannot write the trace: %s",
                strerror(ce));
        errno = ce;
        return -1;
    }
    return 0;
}

int fr_run(const fr_run_opts *o, fr_outcome *out, ft_error *err)
{
    memset(out, 0, sizeof *out);
    out->tid = -1;
    out->diverge_step = -1;
    if (!o->argv || !o->argv[0] || !o->trace_out) {
        set_err(err, "fr_run", "%s", "no program or no trace path");
        return -1;
    }
    char found[4096];
    if (fr_find_program(o->argv[0], found, sizeof found, err) != 0) {
        out->exec_errno = errno; /* ENOENT (127) or EACCES (126) */
        return -1;
    }
    fr_backend_ensure(o->argv[0]);
    fr_progress prog; /* presence; refusals come on the status pipe */
    if (fr_progress_open(&prog, err) < 0)
        return -2;
    /* The runtime writes beside trace_out; the file there is replaced
     * only by a run's trace (run_trace). */
    char tmp[4200];
    int tfd = ft_out_temp(o->trace_out, tmp, sizeof tmp);
    if (tfd < 0) {
        int e = errno;
        fr_progress_close(&prog);
        set_err(err, o->trace_out, "cannot write the trace: %s", strerror(e));
        out->write_errno = e;
        errno = e;
        return -1;
    }
    close(tfd);
    int pfd[2] = {-1, -1}, rfd[2] = {-1, -1};
    if (pipe2(pfd, O_CLOEXEC) < 0 || ft_report_open(rfd) < 0) {
        set_err(err, o->argv[0], "cannot create a pipe: %s", strerror(errno));
        undo_start(pfd, rfd, tmp, &prog);
        return -2;
    }
    fr_child_env env;
    if (child_env(&env, o, tmp, rfd[1], &prog) < 0) {
        undo_start(pfd, rfd, tmp, &prog);
        set_err(err, o->argv[0], "%s", "out of memory");
        return -2;
    }
    double start = now_s();
    pid_t parent = getpid();
    pid_t pid = fr_fork_quiet();
    if (pid != 0)
        fr_child_env_free(&env);
    if (pid < 0) {
        int e = errno;
        undo_start(pfd, rfd, tmp, &prog);
        set_err(err, o->argv[0], "cannot fork: %s", strerror(e));
        errno = e;
        return -2;
    }
    if (pid == 0) {
        close(pfd[0]);
        close(rfd[0]);
        child(o, found, env.envp, pfd[1], rfd[1], &prog, parent);
    }
    close(pfd[1]);
    close(rfd[1]);
    struct child_error ce = {0, 0};
    ssize_t n;
    while ((n = read(pfd[0], &ce, sizeof ce)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    int status = 0, hung = 0;
    struct watch watch = {o, &prog, start};
    int bounded = o->timeout_s > 0 || o->stall_s > 0 || o->until > 0 ||
                  o->tail_until > 0 || o->tick;
    if (ft_child_watch(pid, GRACE_S, LOOK_EVERY_S, bounded ? why_stop : NULL,
                       &watch, &status, &hung) < 0) {
        int we = errno;
        close(rfd[0]);
        unlink(tmp);
        fr_progress_close(&prog);
        set_err(err, o->argv[0], "cannot wait for the program: %s",
                strerror(we));
        errno = we;
        return -2;
    }
    ft_rt_report rep;
    ft_report_read(rfd[0], &rep);
    int started = fr_progress_started(&prog);
    fr_progress_close(&prog);
    double seconds = now_s() - start;
    if (n == (ssize_t)sizeof ce && ce.setup) {
        unlink(tmp);
        set_err(err, "/dev/null", "cannot open it to discard the program's "
                "output: %s", strerror(ce.err));
        return -2;
    }
    if (n == (ssize_t)sizeof ce) {
        unlink(tmp);
        out->exec_errno = ce.err;
        set_err(err, o->argv[0],
                ce.err == ENOENT ? "program not found (%s)"
                                 : "cannot execute: %s",
                strerror(ce.err));
        errno = ce.err;
        return -1;
    }
    if (rep.refusal[0] && WIFEXITED(status) &&
        WEXITSTATUS(status) == rep.refused_status) {
        /* the runtime's own verdict, not the program's exit status; its
         * reason names the file to blame, if any */
        unlink(tmp);
        set_err(err, o->argv[0], "the runtime refused to run it: %.220s",
                rep.refusal);
        errno = 0;
        return -1;
    }
    if (hung == STOP_UNTIL && !rep.write_errno && no_trace(tmp)) {
        /* stopped at the caller's deadline before the runtime wrote
         * anything (it had just started): nothing was followed, and no
         * error of the program's or ours */
        unlink(tmp);
        out->failure = FR_UNFINISHED;
        out->seconds = seconds;
        out->diverged = o->schedule != NULL;
        out->ended_early = 1;
        snprintf(out->detail, sizeof out->detail,
                 "stopped after %.1f s, "
                 "before its trace began: the time bound (--time) ran out",
                 seconds);
        return 0;
    }
    int trc = run_trace(o, tmp, status, hung, started, &rep, out, err);
    if (trc < 0)
        return trc;
    int werr = out->write_errno;
    char wmsg[sizeof out->write_error];
    memcpy(wmsg, out->write_error, sizeof wmsg);
    out->seconds = seconds;
    int orc = fr_outcome_from_trace(o->trace_out, status, hung, out, err);
    out->write_errno = werr;
    memcpy(out->write_error, wmsg, sizeof wmsg);
    if (werr) { /* the outcome is what the cut trace shows */
        set_err(err, o->trace_out, "cannot write the trace: %s", wmsg);
        errno = werr;
        return -1;
    }
    if (orc < 0)
        return -1;
    out->seconds = seconds;
    if (out->failure == FR_UNFINISHED) {
        snprintf(out->detail, sizeof out->detail,
                 "stopped after %.1f s, before it ended: %s ran out", seconds,
                 hung == STOP_TAIL ? "its share of the time bound (--time), "
                                     "past its schedule,"
                                   : "the time bound (--time)");
    } else if (out->failure == FR_HANG && hung == STOP_STALL) {
        snprintf(out->detail, sizeof out->detail, "no progress (key points, "
                 "CPU) for %.1f s (stopped)", o->stall_s);
    }
    if (o->schedule) {
        char msg[512];
        FILE *f = ft_fopen_regular(o->schedule, msg, sizeof msg);
        ft_schedule s;
        if (!f) {
            set_err(err, o->schedule, "cannot read: %.200s", msg);
            return -1;
        }
        int rc = ft_schedule_read(f, o->schedule, &s, msg, sizeof msg);
        fclose(f);
        if (rc < 0) {
            set_err(err, o->schedule, "%.250s", msg);
            return -1;
        }
        rc = fr_check_schedule(o->trace_out, &s, out, err);
        ft_schedule_free(&s);
        if (rc < 0)
            return -1;
    }
    return 0;
}

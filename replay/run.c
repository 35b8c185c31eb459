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

static void child(const fr_run_opts *o, int errfd)
{
    char value[8200]; /* '%' doubled: the runtime expands patterns */
    if (ft_trace_path_escape(o->trace_out, value, sizeof value) == 0)
        setenv("FORETELL_TRACE", value, 1);
    else
        setenv("FORETELL_TRACE", o->trace_out, 1);
    if (o->schedule)
        setenv("FORETELL_SCHEDULE", o->schedule, 1);
    else
        unsetenv("FORETELL_SCHEDULE");
    setenv("FORETELL_DIVERGE",
           o->diverge == FR_DIVERGE_CONTINUE ? "continue" : "stop", 1);
    setenv("FORETELL_STRATEGY", o->strategy ? o->strategy : "none", 1);
    if (o->max_steps) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->max_steps);
        setenv("FORETELL_MAX_STEPS", buf, 1);
    } else {
        unsetenv("FORETELL_MAX_STEPS");
    }
    /* Addresses and PCs repeat run to run (runtime-findings.md). */
    int pers = personality(0xffffffff);
    if (pers != -1)
        personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
    if (o->quiet) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
    }
    execvp(o->argv[0], o->argv);
    int e = errno;
    if (write(errfd, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

/* The runtime's END reason, kept in the END we append (the last wins). */
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
        return "timeout";
    if (rt_reason && strcmp(rt_reason, "exit") && strcmp(rt_reason, "signal"))
        return rt_reason; /* deadlock, diverged, max-steps */
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGKILL ? "killed" : "signal";
    return "exit";
}

const char *fr_which(const char *prog, char *buf, size_t len)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? prog : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if ((size_t)snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".",
                             prog) < len &&
            access(buf, X_OK) == 0)
            return buf;
        path += n + (colon != NULL);
    }
    return NULL;
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
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        set_err(err, o->argv[0], "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    unlink(o->trace_out);
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        set_err(err, o->argv[0], "cannot fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(pfd[0]);
        child(o, pfd[1]);
    }
    close(pfd[1]);
    int e = 0;
    ssize_t n;
    while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    int status = 0, hung = 0;
    if (ft_child_wait(pid, o->timeout_s, GRACE_S, &status, &hung) < 0) {
        set_err(err, o->argv[0], "cannot wait for the program: %s",
                strerror(errno));
        return -1;
    }
    double seconds = now_s() - start;
    if (n == (ssize_t)sizeof e) {
        set_err(err, o->argv[0],
                e == ENOENT ? "program not found (%s)" : "cannot execute: %s",
                strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    if (stat(o->trace_out, &st) < 0 || st.st_size == 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "%d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        set_err(err, o->argv[0],
                WIFEXITED(status) && WEXITSTATUS(status) == 81
                    ? "the runtime refused the schedule (status %s)"
                    : "wrote no trace: not built with foretell-cc? "
                      "(exit status %s)",
                msg);
        errno = 0;
        return -1;
    }
    char rbuf[64];
    uint64_t events;
    ft_error e2;
    ft_reader *r = ft_reader_open(o->trace_out, &e2);
    const char *reason = end_reason(r, status, hung, rbuf, sizeof rbuf,
                                    &events);
    if (r) { /* symbols and the END with the real status, in one pass */
        ft_end end = {.present = 1, .events = events, .exit_status = status,
                      .reason = reason};
        ft_symbolize_reader(r, o->trace_out, 0, &end, 0, NULL, &e2);
        ft_reader_close(r);
    }
    out->seconds = seconds;
    if (fr_outcome_from_trace(o->trace_out, status, hung, out, err) < 0)
        return -1;
    out->seconds = seconds;
    if (o->schedule) {
        FILE *f = fopen(o->schedule, "r");
        ft_schedule s;
        char msg[512];
        if (!f) {
            set_err(err, o->schedule, "cannot read: %s", strerror(errno));
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

/* SPDX-License-Identifier: MIT */
/* init.c - start and end of a recorded run.  __tsan_init (called by every
 * instrumented translation unit's constructor) lands here once: read the
 * environment, open the trace, adopt the main thread as tid 0, install the
 * signal handlers and the watchdog.  Without FORETELL_TRACE nothing is
 * serialised or recorded: hooks return at once and wrappers call the real
 * functions ("passthrough").  A normal exit writes END "exit"; a fork
 * child stops recording. */
#define _GNU_SOURCE
#include "rt.h"
#include "recorder/zchunk.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

struct ft_rt ft_rt = {.running = -1, .policy = &ft_policy_record};

void ft_rt_verbose(const char *fmt, ...)
{
    if (!ft_rt.verbose)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    static const char tag[] = "foretell-rt: ";
    (void)!write(2, tag, sizeof tag - 1);
    (void)!write(2, buf, (size_t)n);
}

/* The status channel (docs/replay.md): FORETELL_STATUS_FD names a pipe
 * the harness reads after the run; the runtime writes one line per
 * report, "WORD STATUS MESSAGE", where a program writing to its own
 * stdout or exiting with the same status cannot imitate it.  -1: none. */
static int status_fd = -1;

static void status_open(void)
{
    const char *s = getenv("FORETELL_STATUS_FD");
    if (!s || !*s)
        return;
    char *end;
    long fd = strtol(s, &end, 10);
    /* Programs this one runs must not write to it. */
    unsetenv("FORETELL_STATUS_FD");
    if (*end || fd < 3 || fd > 65535 || fcntl((int)fd, F_GETFD) < 0)
        return;
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    status_fd = (int)fd;
}

static void vreport(const char *word, int status, const char *fmt,
                    va_list ap)
{
    char msg[1024], line[1100];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n < 0)
        return;
    for (char *c = msg; *c; c++)
        if (*c == '\n')
            *c = ' '; /* one line per report */
    if (status_fd >= 0)
        n = snprintf(line, sizeof line, "%s %d %s\n", word, status, msg);
    else
        n = snprintf(line, sizeof line, "foretell: %s\n", msg);
    if (n > (int)sizeof line - 1) {
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    (void)!write(status_fd >= 0 ? status_fd : 2, line, (size_t)n);
}

void ft_rt_status_line(const char *word, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(word, status, fmt, ap);
    va_end(ap);
}

void ft_rt_status_note(const char *word, int status, const char *fmt, ...)
{
    if (status_fd < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport(word, status, fmt, ap);
    va_end(ap);
}

void ft_rt_refuse(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("refuse", status, fmt, ap);
    va_end(ap);
    _exit(status);
}

static int64_t env_int(const char *name, int64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || *end || v < 0) {
        fprintf(stderr, "foretell: ignoring %s=%s (expected a number >= 0)\n",
                name, s);
        return dflt;
    }
    return v;
}

/* FORETELL_COMPRESS: 0 writes the trace uncompressed (version 3), any
 * other integer is the zstd level of its EVENTS and SITES chunks (negative
 * levels are faster still); unset or empty, FT_ZSTD_DEFAULT_LEVEL. */
static int env_zstd_level(void)
{
    const char *s = getenv("FORETELL_COMPRESS");
    if (!s || !*s)
        return FT_ZSTD_DEFAULT_LEVEL;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < ZSTD_minCLevel() || v > ZSTD_maxCLevel()) {
        fprintf(stderr, "foretell: ignoring FORETELL_COMPRESS=%s (expected 0 "
                "or a zstd level from %d to %d)\n", s, ZSTD_minCLevel(),
                ZSTD_maxCLevel());
        return FT_ZSTD_DEFAULT_LEVEL;
    }
    return (int)v;
}

/* FORETELL_PARENT_PID: the launcher that started this program without
 * fork (explore's posix_spawn) cannot set PR_SET_PDEATHSIG in the child,
 * so the runtime does: killing foretell kills its runs.  Only for the
 * launcher's own child (a program started through a shell is not). */
static void die_with_launcher(void)
{
    const char *s = getenv("FORETELL_PARENT_PID");
    if (!s || !*s)
        return;
    long p = strtol(s, NULL, 10);
    unsetenv("FORETELL_PARENT_PID");
    if (p <= 0)
        return;
    if (getppid() == (pid_t)p) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != (pid_t)p)
            _exit(127); /* it died before the prctl */
    } else if (kill((pid_t)p, 0) < 0 && errno == ESRCH) {
        _exit(127);
    }
}

static void on_exit_end(void)
{
    if (!ft_rt.recording || ft_rt.finished || getpid() != ft_rt.pid)
        return;
    ft_thread *t = ft_self;
    if (t && t->state != FT_T_EXITED) {
        t->in_hook = 1;
        if (!__atomic_load_n(&t->has_baton, __ATOMIC_SEQ_CST))
            ft_acquire(t);
        ft_pending_flush(t);
    }
    ft_lock();
    ft_trace_end("exit", -1);
    ft_unlock();
}

static void on_fork_child(void)
{
    if (!ft_rt.recording)
        return;
    ft_self = NULL;
    ft_rt.finished = 1;
    ft_rt.recording = 0;
    ft_trace_forget();
}

/* FORETELL_TRACE with patterns (recorder/trace_path.c): %n is claimed
 * with O_EXCL, so processes starting together get different numbers. */
static const char *trace_path(const char *pattern, char *buf, size_t len)
{
    if (!strchr(pattern, '%'))
        return pattern;
    for (unsigned long n = 0; n < 1000000; n++) {
        int uses_n;
        int rc = ft_trace_path_expand(pattern, (unsigned long)getpid(),
                                      program_invocation_short_name, n, buf,
                                      len, &uses_n);
        if (rc < 0) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        if (rc == 1 && n == 0)
            fprintf(stderr, "foretell: FORETELL_TRACE=%s: a '%%' that is not "
                    "%%p, %%e, %%n or %%%% is kept as it is\n", pattern);
        if (!uses_n)
            return buf;
        int fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            return buf;
        }
        if (errno != EEXIST)
            return NULL;
    }
    errno = EEXIST;
    return NULL;
}

void ft_init(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST))
        return;
    ft_rt.verbose = env_int("FORETELL_RT_VERBOSE", 0) != 0;
    ft_progress_init(); /* first: the harness learns we are here */
    const char *pattern = getenv("FORETELL_TRACE");
    if (!pattern || !*pattern) {
        ft_rt_verbose("FORETELL_TRACE unset: passthrough");
        return;
    }
    die_with_launcher();
    status_open();
    static char expanded[4096];
    const char *path = trace_path(pattern, expanded, sizeof expanded);
    ft_io_set_report(status_fd, path ? path : pattern);
    if (!path) {
        int e = errno;
        if (status_fd >= 0)
            ft_io_fail(e, -1); /* the launcher says it */
        else
            fprintf(stderr, "foretell: cannot write trace %s: %s\n", pattern,
                    strerror(e));
        _exit(FT_OPEN_FAIL_STATUS);
    }
    ft_rt.quantum = env_int("FORETELL_QUANTUM", 20000);
    ft_rt.seed = (uint64_t)env_int("FORETELL_SEED", 0);
    ft_rt.watchdog_ms = (int)env_int("FORETELL_WATCHDOG_MS", 200);
    ft_rt.flush_ms = (int)env_int("FORETELL_FLUSH_MS", 100);
    ft_rt.zstd_level = env_zstd_level();
    const char *strategy = getenv("FORETELL_STRATEGY");
    if (strategy && *strategy && ft_explore_select(strategy) < 0)
        ft_rt_refuse(FT_BAD_STRATEGY_STATUS, "FORETELL_STRATEGY=%s: cannot "
                     "follow it", strategy);
    /* Replay (docs/replay.md): a schedule to follow, deterministic time,
     * the heap oracle, a bound on key points. */
    const char *schedule = getenv("FORETELL_SCHEDULE");
    int controlled = (schedule && *schedule) || (strategy && *strategy);
    if (schedule && *schedule) {
        const char *dv = getenv("FORETELL_DIVERGE");
        char why[512];
        if (ft_replay_load(schedule, dv && !strcmp(dv, "continue"), why,
                           sizeof why) < 0)
            ft_rt_refuse(FT_BAD_SCHEDULE_STATUS, "%s", why);
    }
    ft_rt.virtual_time = (int)env_int("FORETELL_VIRTUAL_TIME", controlled);
    ft_rt.heap_check = (int)env_int("FORETELL_HEAP_CHECK", controlled);
    ft_rt.max_steps = (uint64_t)env_int("FORETELL_MAX_STEPS", 0);
    ft_rt.spin_looks = (uint64_t)env_int("FORETELL_SPIN_LOOKS",
                                         controlled ? FT_SPIN_LOOKS : 0);
    ft_rt.fair_kps = (uint64_t)env_int("FORETELL_FAIR_KEYPOINTS",
                                       controlled ? FT_FAIR_KPS : 0);
    ft_rt.pid = getpid();
    ft_fence_init();
    if (ft_trace_open(path, env_int("FORETELL_RT_WRITER", 1) != 0) < 0) {
        int e = errno;
        if (!ft_io_failed()) {
            if (status_fd >= 0)
                ft_io_fail(e, -1); /* the launcher says it */
            else
                fprintf(stderr, "foretell: cannot write trace %s: %s\n",
                        path, strerror(e));
        }
        _exit(FT_OPEN_FAIL_STATUS);
    }
    /* Programs this one runs must not overwrite our trace. */
    unsetenv("FORETELL_TRACE");
    ft_thread_init_main();
    ft_event ev = {.kind = FT_EV_THREAD_START, .value = 0};
    ft_emit(&ev);
    atexit(on_exit_end);
    pthread_atfork(NULL, NULL, on_fork_child);
    ft_signals_install();
    ft_watchdog_start();
    ft_rt_verbose("recording to %s (quantum %lld, seed %llu, watchdog %d ms)",
                  path, (long long)ft_rt.quantum,
                  (unsigned long long)ft_rt.seed, ft_rt.watchdog_ms);
    __atomic_store_n(&ft_rt.recording, 1, __ATOMIC_SEQ_CST);
    ft_threads[0].in_hook = 0;
}

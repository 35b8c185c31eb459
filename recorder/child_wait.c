/* SPDX-License-Identifier: MIT */
/* child_wait.c - waiting for a program under test with a bound (SIGTERM
 * at the bound, SIGKILL after a grace period), shared by `foretell record`
 * and the replay harness: a wall-clock bound, or the caller's own rule
 * looked at periodically (the replay harness judges a hang by progress).  It
 * sleeps in poll(2) on a pidfd, so the caller learns of the exit at once;
 * polling waitpid with growing naps cost `record` up to 32 ms per run.  Kernels
 * without pidfd_open (before 5.3) get the nap loop.
 *
 * Also what every launcher does in its child before exec: die with the
 * parent (PR_SET_PDEATHSIG), and hand the program the runtime's report
 * channel, a pipe on which the runtime says that it could not write the
 * trace (the program's own output cannot pass for it). */
#define _GNU_SOURCE
#include "recorder/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Sleeps until pid may have changed state or, when bounded, `seconds`
 * pass (a deadline already past counts as 0). */
static void sleep_on(int pidfd, int bounded, double seconds, long *nap_ns)
{
    if (pidfd >= 0) {
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int ms = !bounded ? -1 : seconds <= 0 ? 0 : (int)(seconds * 1e3) + 1;
        poll(&p, 1, ms); /* EINTR: the caller looks again */
        return;
    }
    struct timespec ts = {0, *nap_ns};
    nanosleep(&ts, NULL);
    if (*nap_ns < 20000000)
        *nap_ns *= 2;
}

int ft_child_watch(pid_t pid, double grace_s, double look_s,
                   int (*stop)(void *arg, double now), void *arg, int *status,
                   int *stopped)
{
    double kill_at = 0;
    int sent_term = 0, sent_kill = 0, rc = 0;
    long nap_ns = 200000;
    int pidfd = open_pidfd(pid);
    *stopped = 0;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        double t = now_s();
        int why = !sent_term && stop ? stop(arg, t) : 0;
        if (why) {
            kill(pid, SIGTERM);
            sent_term = 1;
            *stopped = why;
            kill_at = t + grace_s;
        } else if (sent_term && !sent_kill && t >= kill_at) {
            kill(pid, SIGKILL);
            sent_kill = 1;
        }
        if (stop && !sent_term)
            sleep_on(pidfd, 1, look_s, &nap_ns);
        else if (sent_term && !sent_kill)
            sleep_on(pidfd, 1, kill_at - t, &nap_ns);
        else
            sleep_on(pidfd, 0, 0, &nap_ns);
    }
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}

struct wall_bound {
    double end;
};

static int past_wall_bound(void *arg, double now)
{
    return now >= ((struct wall_bound *)arg)->end;
}

int ft_child_wait(pid_t pid, double timeout_s, double grace_s, int *status,
                  int *timed_out)
{
    struct wall_bound b = {now_s() + timeout_s};
    /* the pidfd wakes the wait at an exit; the looks only find the bound */
    return ft_child_watch(pid, grace_s, timeout_s < 0.25 ? timeout_s : 0.25,
                          timeout_s > 0 ? past_wall_bound : NULL, &b, status,
                          timed_out);
}

int ft_report_open(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

int ft_child_setup_fds(int report_wfd, pid_t parent)
{
    /* Killing foretell (even with SIGKILL) kills the program; the race
     * with a parent that died before the prctl is closed by getppid(). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    if (report_wfd < 0)
        return -1;
    int fl = fcntl(report_wfd, F_GETFL);
    if (fl >= 0)
        fcntl(report_wfd, F_SETFL, fl & ~O_NONBLOCK);
    return fcntl(report_wfd, F_SETFD, 0) == 0 ? 0 : -1;
}

void ft_child_setup(int report_wfd, pid_t parent)
{
    if (ft_child_setup_fds(report_wfd, parent) == 0) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", report_wfd);
        setenv("FORETELL_STATUS_FD", buf, 1);
    }
}

void ft_report_read(int rfd, ft_rt_report *r)
{
    memset(r, 0, sizeof *r);
    char buf[8192];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 &&
           ((got = read(rfd, buf + n, sizeof buf - 1 - n)) > 0 ||
            (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    close(rfd);
    buf[n] = 0;
    for (char *line = buf, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break; /* a cut line is no report */
        *nl = 0;
        int e, st, at = 0;
        unsigned long long off;
        if (sscanf(line, "write-error %d %llu", &e, &off) == 2 && e > 0 &&
            !r->write_errno) {
            r->write_errno = e;
            r->offset = off;
        } else if (sscanf(line, "misuse %d", &st) == 1 && st > 0 &&
                   !r->misuse) {
            r->misuse = st;
        } else if (sscanf(line, "refuse %d %n", &st, &at) == 1 && at > 0 &&
                   !r->refusal[0]) {
            r->refused_status = st;
            snprintf(r->refusal, sizeof r->refusal, "%s", line + at);
        }
    }
}

const char *ft_signal_name(int signo, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(signo);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", signo);
    return buf;
}

const char *ft_status_text(const char *reason, int64_t status, char *buf,
                           size_t len)
{
    char s[64] = "";
    int st = (int)status;
    if (status < 0 || status > 0xffff)
        ; /* unknown: the runtime's own END, or a hostile trace */
    else if (WIFEXITED(st))
        snprintf(s, sizeof s, "exit %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) {
        char name[32];
        snprintf(s, sizeof s, "signal %d (%s)", WTERMSIG(st),
                 ft_signal_name(WTERMSIG(st), name, sizeof name));
    }
    if (!reason || !*reason)
        snprintf(buf, len, "%s", s[0] ? s : "unknown");
    else if (!s[0] || (!strcmp(reason, "exit") && WIFEXITED(st)) ||
             (!strcmp(reason, "signal") && WIFSIGNALED(st)))
        snprintf(buf, len, "%s", s[0] ? s : reason);
    else
        snprintf(buf, len, "%s: %s", reason, s);
    return buf;
}

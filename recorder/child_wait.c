/* child_wait.c - waiting for a program under test with a wall-clock bound
 * (SIGTERM at the bound, SIGKILL after a grace period), shared by
 * `foretell record` and the replay harness.  It sleeps in poll(2) on a
 * pidfd, so the caller learns of the exit at once; polling waitpid with
 * growing naps cost `record` up to 32 ms per run.  Kernels without
 * pidfd_open (before 5.3) get the nap loop. */
#define _GNU_SOURCE
#include "recorder/trace.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
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

int ft_child_wait(pid_t pid, double timeout_s, double grace_s, int *status,
                  int *timed_out)
{
    double start = now_s(), kill_at = 0;
    int sent_term = 0, sent_kill = 0, rc = 0;
    long nap_ns = 200000;
    int pidfd = open_pidfd(pid);
    *timed_out = 0;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        double t = now_s();
        if (timeout_s > 0 && !sent_term && t - start >= timeout_s) {
            kill(pid, SIGTERM);
            sent_term = 1;
            *timed_out = 1;
            kill_at = t + grace_s;
        } else if (sent_term && !sent_kill && t >= kill_at) {
            kill(pid, SIGKILL);
            sent_kill = 1;
        }
        if (timeout_s > 0 && !sent_term)
            sleep_on(pidfd, 1, start + timeout_s - t, &nap_ns);
        else if (sent_term && !sent_kill)
            sleep_on(pidfd, 1, kill_at - t, &nap_ns);
        else
            sleep_on(pidfd, 0, 0, &nap_ns);
    }
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}

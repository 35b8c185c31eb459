/* SPDX-License-Identifier: MIT */
/* progress.c - the harness's side of the progress page
 * (recorder/progress.h): a one-page memfd per run slot, handed to the
 * program as FORETELL_PROGRESS_FD, from which the harness learns while the
 * run goes whether the runtime started at all and how the run progresses.
 * fr_run and the exploration driver both start their runs with one.  What
 * the runtime refused, or could not write, comes on the status channel
 * (ft_report_read, recorder/child_wait.c), never from here. */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fr_progress_open(fr_progress *r, ft_error *err)
{
    memset(r, 0, sizeof *r);
    r->fd = memfd_create("foretell-report", MFD_CLOEXEC);
    if (r->fd < 0 || ftruncate(r->fd, FT_PROGRESS_SIZE) < 0) {
        int e = errno;
        if (r->fd >= 0)
            close(r->fd);
        r->fd = -1;
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "memfd");
        snprintf(err->message, sizeof err->message,
                 "cannot create the runtime's progress page: %s", strerror(e));
        return -1;
    }
    void *m = mmap(NULL, FT_PROGRESS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   r->fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        close(r->fd);
        r->fd = -1;
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "memfd");
        snprintf(err->message, sizeof err->message,
                 "cannot map the runtime's progress page: %s", strerror(e));
        return -1;
    }
    r->page = m;
    snprintf(r->env, sizeof r->env, "%s=%d", FT_PROGRESS_ENV, r->fd);
    return 0;
}

void fr_progress_reset(fr_progress *r)
{
    if (r->page)
        memset(r->page, 0, FT_PROGRESS_SIZE);
    r->last_kp = r->last_cpu_ns = 0;
    r->last_look = r->last_progress = r->last_kp_time = 0;
}

void fr_progress_close(fr_progress *r)
{
    if (r->page)
        munmap(r->page, FT_PROGRESS_SIZE);
    if (r->fd >= 0)
        close(r->fd);
    r->page = NULL;
    r->fd = -1;
}

int fr_progress_started(const fr_progress *r)
{
    return r->page &&
           __atomic_load_n(&r->page->magic, __ATOMIC_ACQUIRE) == FT_PROGRESS_MAGIC;
}

int fr_progress_in_tail(const fr_progress *r)
{
    return fr_progress_started(r) &&
           __atomic_load_n(&r->page->in_tail, __ATOMIC_RELAXED) != 0;
}

/* Key points are progress; so is CPU time without key points
 * (uninstrumented code computing), when it is at least a tenth of the
 * time since the last look (the watchdog's own ticks cost far less).  The
 * first look sets the baseline.  A run without the page (no runtime)
 * never shows progress. */
void fr_progress_look(fr_progress *r, double now)
{
    uint64_t kp = 0, cpu = 0;
    int live = fr_progress_started(r) &&
               __atomic_load_n(&r->page->ticks, __ATOMIC_ACQUIRE) != 0;
    if (live) {
        kp = __atomic_load_n(&r->page->keypoints, __ATOMIC_RELAXED);
        cpu = __atomic_load_n(&r->page->cpu_ns, __ATOMIC_RELAXED);
    }
    if (r->last_look == 0) {
        r->last_progress = r->last_kp_time = now;
    } else if (live && kp != r->last_kp) {
        r->last_progress = r->last_kp_time = now;
    } else if (live && cpu > r->last_cpu_ns &&
               (double)(cpu - r->last_cpu_ns) >= 1e8 * (now - r->last_look)) {
        r->last_progress = now;
    }
    r->last_kp = kp;
    r->last_cpu_ns = cpu;
    r->last_look = now;
}

int fr_progress_stalled(const fr_progress *r, double now, double stall_s)
{
    return stall_s > 0 &&
           (now - r->last_progress >= stall_s ||
            now - r->last_kp_time >= FR_NO_KEYPOINTS_STALLS * stall_s);
}

int fr_child_keep_fd(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

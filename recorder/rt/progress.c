/* SPDX-License-Identifier: MIT */
/* progress.c - the runtime's side of the progress page (recorder/progress.h):
 * maps the page the harness passed in FORETELL_PROGRESS_FD, says the
 * runtime is there, and publishes the run's progress at each watchdog
 * tick.  Refusals and write errors are not here: they go on the status
 * channel (ft_rt_refuse, init.c), the one way the runtime reports a
 * verdict.  Without the variable (a plain `FORETELL_TRACE=... ./prog`)
 * nothing is published. */
#define _GNU_SOURCE
#include "recorder/progress.h"
#include "rt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static ft_progress_page *page;

void ft_progress_init(void)
{
    const char *s = getenv(FT_PROGRESS_ENV);
    if (!s || !*s)
        return;
    char *end;
    errno = 0;
    long fd = strtol(s, &end, 10);
    unsetenv(FT_PROGRESS_ENV);
    struct stat st;
    if (errno || *end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) < 0 ||
        !S_ISREG(st.st_mode) || st.st_size < (off_t)FT_PROGRESS_SIZE)
        return; /* not ours: leave the descriptor alone */
    void *m = mmap(NULL, FT_PROGRESS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   (int)fd, 0);
    close((int)fd);
    if (m == MAP_FAILED)
        return;
    page = m;
    page->version = FT_PROGRESS_VERSION;
    page->pid = getpid();
    __atomic_store_n(&page->magic, FT_PROGRESS_MAGIC, __ATOMIC_RELEASE);
}

void ft_progress_tick(void)
{
    if (!page || getpid() != page->pid)
        return;
    uint64_t kp = 0;
    uint32_t by_state[FT_T_EXITED + 1] = {0};
    int n = __atomic_load_n(&ft_rt.nthreads, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) {
        kp += __atomic_load_n(&ft_threads[i].keypoints, __ATOMIC_RELAXED);
        int st = __atomic_load_n(&ft_threads[i].state, __ATOMIC_RELAXED);
        if (st >= 0 && st <= FT_T_EXITED)
            by_state[st]++;
    }
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    page->keypoints = kp;
    page->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
    page->threads = (uint32_t)n;
    page->running = by_state[FT_T_RUNNING];
    page->runnable = by_state[FT_T_RUNNABLE];
    page->blocked = by_state[FT_T_BLOCKED];
    page->outside = by_state[FT_T_OUTSIDE];
    page->exited = by_state[FT_T_EXITED];
    __atomic_store_n(&page->in_tail, ft_replay_in_tail(), __ATOMIC_RELAXED);
    __atomic_store_n(&page->ticks, page->ticks + 1, __ATOMIC_RELEASE);
}

int ft_progress_active(void)
{
    return page != NULL;
}

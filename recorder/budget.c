/* SPDX-License-Identifier: MIT */
/* budget.c - the time bound and progress reports of long commands
 * (ft_budget in trace.h): one clock read per poll, and the stages poll
 * every few thousand steps, so bounding costs nothing measurable. */
#include "recorder/trace.h"

#include <time.h>

double ft_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int ft_budget_poll(ft_budget *b, const char *stage, uint64_t done,
                   uint64_t total)
{
    if (!b)
        return 0;
    if (b->progress)
        b->progress(b->arg, stage, done, total);
    if (!b->spent && b->until > 0 && ft_now() >= b->until)
        b->spent = 1;
    return b->spent;
}

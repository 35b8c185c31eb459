/* SPDX-License-Identifier: MIT */
/* replay_bench.c - the program replay_bench.sh runs under each policy
 * (not a test).  Like tests/rt/bench/rt_bench.c, but it also reports CPU
 * time (CLOCK_PROCESS_CPUTIME_ID), which a loaded 2-core machine distorts
 * far less than wall time.
 *   keypoint: one thread, a loop of instrumented 8-byte reads and writes
 *             of a global (a key point where the running thread keeps
 *             running).
 *   switch:   two threads ping-pong with sched_yield (a forced switch at
 *             every yield). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;
static long iters;

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *yielder(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++)
        sched_yield();
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < n; i++)
        sink = sink + 1; /* one read and one write hook */
    double w1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    printf("keypoint: %.1f ns wall, %.1f ns cpu per access (%ld accesses)\n",
           (w1 - w0) * 1e9 / (2.0 * n), (c1 - c0) * 1e9 / (2.0 * n), 2 * n);

    iters = argc > 2 ? atol(argv[2]) : 20000;
    pthread_t a, b;
    w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    pthread_create(&a, NULL, yielder, NULL);
    pthread_create(&b, NULL, yielder, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    w1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    printf("switch:   %.2f us wall, %.2f us cpu per yield (%ld yields)\n",
           (w1 - w0) * 1e6 / (2.0 * iters), (c1 - c0) * 1e6 / (2.0 * iters),
           2 * iters);
    return 0;
}

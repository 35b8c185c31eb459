/* SPDX-License-Identifier: MIT */
/* rt_bench.c - micro-benchmark of the runtime (not a test: speed is never
 * asserted).  Built with foretell-cc; rt_bench.sh runs it natively-
 * instrumented (passthrough) and recorded.
 *   keypoint: one thread, a loop of instrumented 8-byte writes and reads
 *             of a global: the cost of a key point that keeps running
 *             (TLS read, budget decrement, encode) per access, in wall
 *             time and in the thread's own CPU time (which a loaded
 *             machine inflates less; the runtime's writer thread, which
 *             writes the trace on another core, is not in it).
 *   switch:   two threads ping-pong with sched_yield, every yield hands
 *             the baton over: the cost of a forced switch. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;
static long iters;

static double clock_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
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
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    double t0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i++)
        sink = sink + 1; /* one read and one write hook */
    double t1 = now(), c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    printf("keypoint: %.1f ns per access, %.1f ns thread CPU (%ld accesses)\n",
           (t1 - t0) * 1e9 / (2.0 * n), (c1 - c0) * 1e9 / (2.0 * n), 2 * n);

    iters = argc > 2 ? atol(argv[2]) : 200000;
    pthread_t a, b;
    t0 = now();
    pthread_create(&a, NULL, yielder, NULL);
    pthread_create(&b, NULL, yielder, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    t1 = now();
    printf("switch:   %.2f us per yield (%ld yields)\n",
           (t1 - t0) * 1e6 / (2.0 * iters), 2 * iters);
    return 0;
}

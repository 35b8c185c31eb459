/* progress.c - a slow run that is not a hang: for SECONDS (argv[1]) a
 * worker computes in code the hooks do not see, touching shared state
 * every 10 ms. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static double seconds;
static long ticks;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Uninstrumented computing: 10 ms of CPU, calling nothing instrumented. */
__attribute__((no_sanitize_thread, noinline)) static void compute(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long end = ts.tv_sec * 1000000000L + ts.tv_nsec + 10000000L;
    unsigned long x = 1;
    do {
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ul + 1;
        clock_gettime(CLOCK_MONOTONIC, &ts);
    } while (ts.tv_sec * 1000000000L + ts.tv_nsec < end && x);
}

static void *worker(void *arg)
{
    double end = now() + seconds;
    while (now() < end) {
        compute();
        ticks++; /* a key point: progress */
    }
    return arg;
}

int main(int argc, char **argv)
{
    seconds = argc > 1 ? atof(argv[1]) : 2;
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    return ticks > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

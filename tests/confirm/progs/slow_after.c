/* slow_after.c - a lost update (`hits = seen + 1`, its read and write in
 * two critical sections of one lock), then main computes for a while
 * before checking the count: a program that is slow after the violation,
 * not hung.  argv[1]: seconds of computing (default 0).  A replay of the
 * violation must wait for the check (abort) when the computing shows
 * progress, however long past --run-timeout it runs, and be stopped, not
 * called hung, when the analysis's --time runs out first.  A negative
 * argument waits for good instead, in a read of a pipe no one writes: a
 * hang (no key point, no CPU; a sleep is a timed wait the runtime
 * schedules, whose key points go on). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hits;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    int seen = hits;
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    hits = seen + 1;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU without key points: the harness counts it as progress */
static unsigned long compute(double seconds)
{
    volatile unsigned long sum = 0;
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 100000; i++)
            sum += (unsigned long)i * 2654435761u;
    return sum;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    int fd[2];
    char c;
    if (seconds < 0 && pipe(fd) == 0)
        (void)!read(fd[0], &c, 1);
    compute(seconds);
    assert(hits == 2);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* longrun.c - a correct program whose one run is long (ITERS locked
 * increments per thread, argv[1]): each systematic run logs a decision
 * at nearly every key point, and analysing it takes long. */
#include <pthread.h>
#include <stdlib.h>

static long iters;
static volatile long sum;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    for (long i = 0; i < iters; i++) {
        pthread_mutex_lock(&m);
        sum += i & 7;
        pthread_mutex_unlock(&m);
    }
    return arg;
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atol(argv[1]) : 100000;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* SPDX-License-Identifier: MIT */
/* locks.c - lock-heavy kernel for the recorder benchmark: four threads
 * take one of eight mutexes at random and update the counter it guards,
 * so the run is mostly lock/unlock pairs with one shared read and write in
 * between (race-free).  With "split" (bench/predict's long traces) an
 * update reads the counter in one critical section and writes it back in
 * a second: counter_rmw's atomicity bug, still race-free, in every
 * update; the exit status then says whether this run lost one.
 * Usage: locks [OPS [split]]  (OPS per thread, default 200000). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLOCKS 8
#define NTHREADS 4

static pthread_mutex_t lock[NLOCKS];
static long counter[NLOCKS];
static long ops = 200000;
static int split;

static void *worker(void *arg)
{
    unsigned s = (unsigned)(long)arg * 2654435761u + 1;
    const int two_sections = split; /* read once: not an event per update */
    for (long i = 0; i < ops; i++) {
        s = s * 1103515245u + 12345u;
        unsigned k = (s >> 16) % NLOCKS;
        pthread_mutex_lock(&lock[k]);
        if (two_sections) {
            long seen = counter[k];
            pthread_mutex_unlock(&lock[k]);
            pthread_mutex_lock(&lock[k]);
            counter[k] = seen + 1;
        } else {
            counter[k]++;
        }
        pthread_mutex_unlock(&lock[k]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ops = atol(argv[1]);
    split = argc > 2 && !strcmp(argv[2], "split");
    for (int k = 0; k < NLOCKS; k++)
        pthread_mutex_init(&lock[k], NULL);
    pthread_t t[NTHREADS];
    for (long k = 0; k < NTHREADS; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < NTHREADS; k++)
        pthread_join(t[k], NULL);
    long total = 0;
    for (int k = 0; k < NLOCKS; k++)
        total += counter[k];
    printf("%ld\n", total);
    return total == ops * NTHREADS ? 0 : 1;
}

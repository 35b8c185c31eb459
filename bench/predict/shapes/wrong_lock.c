/* wrong_lock.c - eight threads count events in two counters, each meant to
 * be guarded by its own mutex; one thread takes the wrong mutex for the
 * second counter, so its updates race with the others' (an atomicity
 * violation of the read-modify-write, race-free for the other seven).
 * The shape of the 177-event trace (issue 16, bench/predict).
 * Usage: wrong_lock [ROUNDS]  (default 2 updates of each counter per
 * thread).  Exit 1 when an update was lost. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 8

static long hits, misses;
static pthread_mutex_t hits_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t misses_mu = PTHREAD_MUTEX_INITIALIZER;
static int rounds = 2;

static void *worker(void *arg)
{
    long id = (long)arg;
    /* the bug: thread 5 guards misses with the hits mutex */
    pthread_mutex_t *mm = id == 5 ? &hits_mu : &misses_mu;
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&hits_mu);
        hits = hits + 1;
        pthread_mutex_unlock(&hits_mu);
        pthread_mutex_lock(mm);
        long m = misses;
        misses = m + 1;
        pthread_mutex_unlock(mm);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    pthread_t th[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    printf("hits %ld misses %ld of %d\n", hits, misses, NTHREADS * rounds);
    return hits == NTHREADS * rounds && misses == NTHREADS * rounds ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

/* hits.c - a long recorded run with atomicity bugs for bench/predict (the
 * million-event prediction figures): NTHREADS workers count OPS hits each
 * into NSLOTS shared slots, each guarded by its own mutex.  An increment
 * reads the slot in one critical section and writes it back in a second
 * (counter_rmw's bug, race-free), so every increment is an open region
 * whose violation a schedule must show.  The exit status says whether an
 * update was lost in this run.  Usage: hits [OPS]  (per thread, default
 * 35000: about 10^6 events). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NSLOTS 16

static pthread_mutex_t lock[NSLOTS];
static long slot[NSLOTS];
static long ops = 35000;

static void *worker(void *arg)
{
    unsigned s = (unsigned)(long)arg * 2654435761u + 7;
    for (long i = 0; i < ops; i++) {
        s = s * 1103515245u + 12345u;
        unsigned k = (s >> 16) % NSLOTS;
        pthread_mutex_lock(&lock[k]);
        long seen = slot[k];
        pthread_mutex_unlock(&lock[k]);
        pthread_mutex_lock(&lock[k]);
        slot[k] = seen + 1;
        pthread_mutex_unlock(&lock[k]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ops = atol(argv[1]);
    for (int k = 0; k < NSLOTS; k++)
        pthread_mutex_init(&lock[k], NULL);
    pthread_t t[NTHREADS];
    for (long k = 0; k < NTHREADS; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < NTHREADS; k++)
        pthread_join(t[k], NULL);
    long total = 0;
    for (int k = 0; k < NSLOTS; k++)
        total += slot[k];
    printf("%ld\n", total);
    return total == ops * NTHREADS ? 0 : 1;
}

/* counter_rmw.c - single-variable atomicity violation: a read-modify-write
 * of a counter split over two critical sections of the same lock.
 *
 * Kind: atomicity-single.  Variable: `hits`.  The read (first BUG line) and
 * the write (second BUG line) are each protected by `lock`, so there is no
 * data race, but the increment as a whole is not atomic: if the other
 * thread's critical sections run between them, one increment is lost.
 * Failure: assert(hits == NTHREADS * ROUNDS) in main.
 * Natural run: usually passes (each worker's loop is short, so the threads
 * rarely overlap); a recorded run passes unless the scheduler switches
 * between the two critical sections.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 2
#define ROUNDS 10

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hits;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        int seen = hits; /* BUG: read in one critical section */
        pthread_mutex_unlock(&lock);
        pthread_mutex_lock(&lock);
        hits = seen + 1; /* BUG: write in another; an update can be lost */
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    printf("hits = %d\n", hits);
    assert(hits == NTHREADS * ROUNDS);
    return 0;
}
/* SPDX-License-Identifier: MIT */

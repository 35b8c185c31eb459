/* barrier_phases.c - a correct phased computation: NTHREADS workers fill
 * their slice of `cells`, meet at a barrier, then each reads its
 * neighbour's slice (written in the previous phase) into `sums`.
 *
 * Kind: none.  The barrier orders every phase-1 write before every
 * phase-2 read of another thread's slice; exactly one thread per barrier
 * round gets PTHREAD_BARRIER_SERIAL_THREAD and counts the round.
 * Failure: none expected; main checks every sum and the serial count.
 * Natural run: always passes.
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 3
#define SLICE 4
#define ROUNDS 2

static int cells[NTHREADS * SLICE];
static int sums[NTHREADS];
static int serial_rounds;
static pthread_barrier_t phase;

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < SLICE; i++)
            cells[me * SLICE + i] = (round + 1) * (me * SLICE + i);
        if (pthread_barrier_wait(&phase) == PTHREAD_BARRIER_SERIAL_THREAD)
            serial_rounds++;
        int next = (me + 1) % NTHREADS, s = 0;
        for (int i = 0; i < SLICE; i++)
            s += cells[next * SLICE + i];
        sums[me] = s;
        pthread_barrier_wait(&phase); /* nobody overwrites before all read */
    }
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&phase, NULL, NTHREADS);
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&phase);
    int bad = serial_rounds != ROUNDS;
    for (int me = 0; me < NTHREADS; me++) {
        int next = (me + 1) % NTHREADS, want = 0;
        for (int i = 0; i < SLICE; i++)
            want += ROUNDS * (next * SLICE + i);
        bad |= sums[me] != want;
    }
    printf("sums %d %d %d, serial rounds %d\n", sums[0], sums[1], sums[2],
           serial_rounds);
    return bad;
}
/* SPDX-License-Identifier: MIT */

/* SPDX-License-Identifier: MIT */
/* tail_time.c - an order finding whose random tails never fail: two
 * threads each fold their id into x in ROUNDS critical sections (x =
 * 3x + id), and main, after joining both, aborts only when x holds the
 * value strict alternation from the first section on gives.  A recording
 * runs one thread's sections in a row; the order finding it gives (the
 * second thread reads x after two of the first's sections) leaves no
 * alternation possible, so its replay and every tail run to the end:
 * what tests/confirm/tail_time.sh needs to count the tails --tail-time
 * adds and to see them stop at its bound. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long x;

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&mu);
        long v = x;
        x = v * 3 + id;
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)1);
    pthread_create(&b, NULL, worker, (void *)2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    long want = 0;
    for (int i = 0; i < 2 * ROUNDS; i++)
        want = want * 3 + 1 + i % 2;
    printf("x = %ld\n", x);
    if (x == want)
        abort(); /* strict alternation */
    return 0;
}

/* data_race.c - a plain data race: two threads increment a shared counter
 * without any synchronisation.
 *
 * Kind: data-race.  Variable: `counter` (BUG line: the unprotected
 * read-modify-write).  Interleaved increments lose updates.
 * `counter` is volatile only so that the compiler does not fold the loop
 * into one addition; volatile does not synchronise anything.
 * Failure: main exits 1 (and prints the count) when counter != 2 * ROUNDS.
 * Natural run: usually passes (the loops are short and rarely overlap);
 * a recorded run fails only if the scheduler switches inside the loop.
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 20

static volatile int counter; /* volatile: keeps the 2 x ROUNDS increments
                                (no synchronisation: still a race) */

static void *bump(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++)
        counter++; /* BUG: unsynchronised read-modify-write */
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, bump, NULL);
    pthread_create(&b, NULL, bump, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter = %d\n", counter);
    return counter == 2 * ROUNDS ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

/* misuse_race.c - main writes g without the lock its worker takes (a data
 * race that breaks nothing) and then unlocks that lock, which it never
 * took (API misuse, in every schedule).  A replayed witness of the race
 * runs into the same misuse: that proves the race nothing, as the
 * recorded run misused the API there too (tests/confirm/misuse.sh). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int g;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    g++;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    g = 1;                      /* races with the worker's g++ */
    pthread_mutex_unlock(&m);   /* BUG: main never took m */
    pthread_join(t, NULL);
    printf("g %d\n", g);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* misuse_handoff.c - a mutex used as a binary semaphore: one thread locks
 * it, another unlocks it (unlock of a mutex another thread holds); at the
 * end main destroys it while holding it (destroy of a locked mutex).  Both
 * happen in every schedule: the recorded run shows them (tests/confirm/
 * misuse.sh). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int ready;

static void *opener(void *arg)
{
    (void)arg;
    ready = 1;
    pthread_mutex_unlock(&gate); /* BUG: main holds it */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_mutex_lock(&gate);
    pthread_create(&t, NULL, opener, NULL);
    pthread_join(t, NULL);
    pthread_mutex_lock(&gate);
    pthread_mutex_destroy(&gate); /* BUG: still held */
    printf("ready %d\n", ready);
    return 0;
}
/* SPDX-License-Identifier: MIT */

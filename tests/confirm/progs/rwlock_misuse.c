/* SPDX-License-Identifier: MIT */
/* rwlock_misuse.c - pthread rwlock misuse in every schedule (as
 * misuse_handoff.c for a mutex): a thread unlocks the rwlock main holds
 * for writing, main unlocks it twice, then destroys a second rwlock it
 * holds for reading.  The runtime reports each as a MISUSE event. */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t index_lock = PTHREAD_RWLOCK_INITIALIZER;

static void *intruder(void *arg)
{
    (void)arg;
    pthread_rwlock_unlock(&table); /* BUG: main holds it for writing */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_rwlock_wrlock(&table);
    pthread_create(&t, NULL, intruder, NULL);
    pthread_join(t, NULL);
    pthread_rwlock_unlock(&table);
    pthread_rwlock_unlock(&table); /* BUG: nobody holds it */
    pthread_rwlock_rdlock(&index_lock);
    pthread_rwlock_destroy(&index_lock); /* BUG: main holds it for reading */
    puts("done");
    return 0;
}

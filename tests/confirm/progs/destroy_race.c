/* destroy_race.c - a worker announces it is done while it still holds the
 * lock guarding its work; main, seeing the flag, destroys the mutex
 * without joining first.  In the schedules where main looks between the
 * worker's announcement and its unlock, the mutex is destroyed while the
 * worker holds it (destroy of a locked mutex).  The natural run passes. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t work = PTHREAD_MUTEX_INITIALIZER;
static int done, total;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&work);
    for (int i = 0; i < 4; i++)
        total += i;
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE); /* BUG: before unlock */
    pthread_mutex_unlock(&work);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        sched_yield();
    pthread_mutex_destroy(&work); /* the worker may still hold it */
    pthread_join(t, NULL);
    printf("total %d\n", total);
    return 0;
}
/* SPDX-License-Identifier: MIT */

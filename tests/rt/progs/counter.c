/* counter.c - two threads increment a shared counter under a mutex; the
 * trace must show threads 0..2, lock events and consistent reads. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)1000L);
    pthread_create(&b, NULL, worker, (void *)1000L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter=%ld\n", counter);
    return counter == 2000 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

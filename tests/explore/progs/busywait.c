/* busywait.c - workers busy-wait for each other before any sync
 * (`while (alive != N) {}`), then update a counter without a lock.
 * Under a scheduler that lets the running thread keep going, the first
 * spinner would wait forever: the runtime must see it spin and yield. */
#include <assert.h>
#include <pthread.h>

#define N 3
static volatile int alive;
static int total;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    pthread_mutex_lock(&m);
    alive++;
    pthread_mutex_unlock(&m);
    while (alive != N) {
    }
    int t = total; /* racy read-modify-write: the bug */
    total = t + 1;
    return arg;
}

int main(void)
{
    pthread_t th[N];
    for (int i = 0; i < N; i++)
        pthread_create(&th[i], 0, worker, 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], 0);
    assert(total == N);
    return 0;
}
/* SPDX-License-Identifier: MIT */

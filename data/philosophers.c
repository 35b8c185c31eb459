/* philosophers.c - dining philosophers: three threads, three forks (one
 * mutex each), every philosopher takes the fork on its left, then the one
 * on its right.
 *
 * Kind: deadlock (a cycle of three threads).  Locks: `fork_lock[0..2]`.
 * If each philosopher holds its left fork when its neighbour asks for it,
 * all three wait for good (BUG lines: the second acquisition).
 * Failure: the program hangs (the recorder reports DEADLOCK).
 * Natural run: usually passes (each meal is short and the threads start
 * one after another).
 */
#include <pthread.h>
#include <stdio.h>

#define N 3

static pthread_mutex_t fork_lock[N] = {PTHREAD_MUTEX_INITIALIZER,
                                       PTHREAD_MUTEX_INITIALIZER,
                                       PTHREAD_MUTEX_INITIALIZER};
static int meals[N];

static void *philosopher(void *arg)
{
    int i = (int)(long)arg;
    pthread_mutex_lock(&fork_lock[i]);
    pthread_mutex_lock(&fork_lock[(i + 1) % N]); /* BUG: left, then right */
    meals[i]++;
    pthread_mutex_unlock(&fork_lock[(i + 1) % N]);
    pthread_mutex_unlock(&fork_lock[i]);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], NULL, philosopher, (void *)i);
    int total = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        total += meals[i];
    }
    printf("meals = %d\n", total);
    return total == N ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

/* abba_deadlock.c - ABBA deadlock: one thread takes lock_a then lock_b,
 * the other lock_b then lock_a.
 *
 * Kind: deadlock.  Locks: `lock_a`, `lock_b` (BUG lines: the inner
 * acquisitions).  If each thread holds its first lock when the other asks
 * for it, neither can go on.
 * Failure: the program hangs (the recorder reports DEADLOCK).
 * Natural run: usually passes (each thread's nested section is short).
 * Argument "force": both threads meet at a barrier while holding their
 * first lock, so every schedule deadlocks (used to test deadlock
 * detection; natively this variant hangs forever).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;
static int force;
static int transfers;

static void *forward(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    if (force)
        pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(&lock_b); /* BUG: a then b */
    transfers++;
    pthread_mutex_unlock(&lock_b);
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static void *backward(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    if (force)
        pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(&lock_a); /* BUG: b then a */
    transfers++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

int main(int argc, char **argv)
{
    force = argc > 1 && !strcmp(argv[1], "force");
    pthread_barrier_init(&both_hold_one, NULL, 2);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, forward, NULL);
    pthread_create(&t2, NULL, backward, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_barrier_destroy(&both_hold_one);
    printf("transfers = %d\n", transfers);
    return transfers == 2 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

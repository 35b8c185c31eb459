/* prodcons_sem.c - a correct bounded buffer: one producer, one consumer,
 * two counting semaphores (free slots, filled slots) and a mutex.
 *
 * Kind: none.  Shared: `ring`, `head`, `tail` under `ring_lock`; order is
 * enforced by `slots_free` and `slots_full`.  The consumer checks that it
 * receives 1..ITEMS in order and main checks the sum.
 * Failure: none expected; a broken runtime (wrong semaphore semantics)
 * shows as an assert or a non-zero exit.
 * Natural run: always passes.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define SLOTS 4
#define ITEMS 32

static int ring[SLOTS];
static int head, tail;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t slots_free, slots_full;
static long consumed_sum;

static void *producer(void *arg)
{
    (void)arg;
    for (int item = 1; item <= ITEMS; item++) {
        sem_wait(&slots_free);
        pthread_mutex_lock(&ring_lock);
        ring[head] = item;
        head = (head + 1) % SLOTS;
        pthread_mutex_unlock(&ring_lock);
        sem_post(&slots_full);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int expect = 1; expect <= ITEMS; expect++) {
        sem_wait(&slots_full);
        pthread_mutex_lock(&ring_lock);
        int item = ring[tail];
        tail = (tail + 1) % SLOTS;
        pthread_mutex_unlock(&ring_lock);
        sem_post(&slots_free);
        assert(item == expect);
        consumed_sum += item;
    }
    return NULL;
}

int main(void)
{
    sem_init(&slots_free, 0, SLOTS);
    sem_init(&slots_full, 0, 0);
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    sem_destroy(&slots_free);
    sem_destroy(&slots_full);
    printf("consumed sum = %ld\n", consumed_sum);
    return consumed_sum == (long)ITEMS * (ITEMS + 1) / 2 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

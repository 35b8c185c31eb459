/* sync_mix.c - condvar producer/consumer, semaphores, a barrier, a
 * pthread_once, an rwlock and a spinlock in one program that must
 * terminate with the right totals when recorded. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4
#define ITEMS 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t nonfull = PTHREAD_COND_INITIALIZER;
static int queue[8], head, count;
static long consumed;
static sem_t tokens;
static pthread_barrier_t bar;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static long shared_rw, spun;

static void init_once(void) { once_runs++; }

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        pthread_mutex_lock(&m);
        while (count == 8)
            pthread_cond_wait(&nonfull, &m);
        queue[(head + count++) % 8] = i;
        pthread_cond_signal(&nonempty);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i++) {
        pthread_mutex_lock(&m);
        while (count == 0)
            pthread_cond_wait(&nonempty, &m);
        consumed += queue[head];
        head = (head + 1) % 8;
        count--;
        pthread_cond_broadcast(&nonfull);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    pthread_once(&once, init_once);
    sem_wait(&tokens);
    pthread_rwlock_wrlock(&rw);
    shared_rw += id;
    pthread_rwlock_unlock(&rw);
    sem_post(&tokens);
    pthread_barrier_wait(&bar);
    pthread_rwlock_rdlock(&rw);
    long seen = shared_rw;
    pthread_rwlock_unlock(&rw);
    pthread_spin_lock(&spin);
    spun += seen;
    pthread_spin_unlock(&spin);
    return NULL;
}

int main(void)
{
    pthread_t p, c, w[N];
    sem_init(&tokens, 0, 2);
    pthread_barrier_init(&bar, NULL, N);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    for (long i = 0; i < N; i++)
        pthread_create(&w[i], NULL, worker, (void *)(i + 1));
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    for (int i = 0; i < N; i++)
        pthread_join(w[i], NULL);
    int v = -1;
    sem_getvalue(&tokens, &v);
    long want_rw = N * (N + 1) / 2;
    printf("consumed=%ld once=%d rw=%ld spun=%ld sem=%d\n", consumed, once_runs,
           shared_rw, spun, v);
    return consumed == ITEMS * (ITEMS + 1) / 2 && once_runs == 1 &&
                   shared_rw == want_rw && spun == N * want_rw && v == 2
               ? 0
               : 1;
}
/* SPDX-License-Identifier: MIT */

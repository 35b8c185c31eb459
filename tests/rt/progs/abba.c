/* abba.c - two threads take two mutexes in opposite orders and meet in
 * the middle (a barrier guarantees it): the recorder must report the
 * deadlock instead of hanging. */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *t1(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&b);
    return NULL;
}

static void *t2(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&b);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&a);
    return NULL;
}

int main(void)
{
    pthread_t x, y;
    pthread_barrier_init(&both, NULL, 2);
    pthread_create(&x, NULL, t1, NULL);
    pthread_create(&y, NULL, t2, NULL);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* abba.c - two workers take two locks in opposite orders.  Which of them
 * blocks last (and finds the deadlock) depends on the schedule; the
 * deadlock is the same. */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int x;

static void *ab(void *arg)
{
    pthread_mutex_lock(&a);
    x++;
    pthread_mutex_lock(&b);
    x++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return arg;
}

static void *ba(void *arg)
{
    pthread_mutex_lock(&b);
    x++;
    pthread_mutex_lock(&a);
    x++;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    return arg;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, 0, ab, 0);
    pthread_create(&t2, 0, ba, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* boundedbuf.c - a bounded buffer with condition variables, three
 * consumers waiting on one condvar: which waiter a signal wakes is a
 * choice of the schedule (explored runs draw it).  Consumer 0 must get
 * an item (the "bug" a schedule can break). */
#include <pthread.h>
#include <stdlib.h>

#define CAP 2
#define ITEMS 8
#define NC 3

static int buf[CAP], count, in, out, got[NC];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notfull = PTHREAD_COND_INITIALIZER;
static pthread_cond_t notempty = PTHREAD_COND_INITIALIZER;

static void put(int v)
{
    pthread_mutex_lock(&m);
    while (count == CAP)
        pthread_cond_wait(&notfull, &m);
    buf[in] = v;
    in = (in + 1) % CAP;
    count++;
    pthread_cond_signal(&notempty);
    pthread_mutex_unlock(&m);
}

static int get(void)
{
    pthread_mutex_lock(&m);
    while (count == 0)
        pthread_cond_wait(&notempty, &m);
    int v = buf[out];
    out = (out + 1) % CAP;
    count--;
    pthread_cond_signal(&notfull);
    pthread_mutex_unlock(&m);
    return v;
}

static void *producer(void *arg)
{
    for (int i = 0; i < ITEMS; i++)
        put(i);
    for (int i = 0; i < NC; i++)
        put(-1);
    return arg;
}

static void *consumer(void *arg)
{
    int id = (int)(long)arg;
    for (;;) {
        int v = get();
        if (v < 0)
            break;
        got[id]++;
    }
    return arg;
}

int main(void)
{
    pthread_t p, c[NC];
    for (long i = 0; i < NC; i++)
        pthread_create(&c[i], 0, consumer, (void *)i);
    pthread_create(&p, 0, producer, 0);
    pthread_join(p, 0);
    for (int i = 0; i < NC; i++)
        pthread_join(c[i], 0);
    if (got[0] == 0)
        abort();
    return 0;
}
/* SPDX-License-Identifier: MIT */

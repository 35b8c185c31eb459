/* workqueue.c - a producer feeds a bounded queue (mutex, two condition
 * variables) and three consumers take items from it, compute a checksum of
 * each and record it in shared statistics under a statistics mutex: the
 * count and the total in one critical section (correct), the largest
 * checksum seen checked in one critical section and stored in the next (an
 * atomicity violation: a larger value stored in between is overwritten).
 * About 25 events per item: 40 000 items make a 10^6-event trace, 400 000
 * a 10^7-event one (issue 16, bench/predict).
 * Usage: workqueue [ITEMS]  (default 1000).  Exit 1 when the maximum is
 * wrong. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define QCAP 32
#define NCONSUMERS 3

static struct {
    long item[QCAP];
    int head, tail, len, done;
    pthread_mutex_t mu;
    pthread_cond_t not_full, not_empty;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .not_full = PTHREAD_COND_INITIALIZER,
       .not_empty = PTHREAD_COND_INITIALIZER};

static struct {
    long count, total, max;
    pthread_mutex_t mu;
} stats = {.mu = PTHREAD_MUTEX_INITIALIZER};

static long checksum(long v)
{
    unsigned long h = 1469598103934665603ul;
    for (int i = 0; i < 4; i++, v >>= 8)
        h = (h ^ (unsigned long)(v & 255)) * 1099511628211ul;
    return (long)(h % 100000);
}

static void *consumer(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&q.mu);
        while (q.len == 0 && !q.done)
            pthread_cond_wait(&q.not_empty, &q.mu);
        if (q.len == 0) {
            pthread_mutex_unlock(&q.mu);
            return NULL;
        }
        long v = q.item[q.head];
        q.head = (q.head + 1) % QCAP;
        q.len--;
        pthread_cond_signal(&q.not_full);
        pthread_mutex_unlock(&q.mu);
        long c = checksum(v);
        pthread_mutex_lock(&stats.mu);
        stats.count++;
        stats.total += c;
        int bigger = c > stats.max;
        pthread_mutex_unlock(&stats.mu);
        if (bigger) {
            pthread_mutex_lock(&stats.mu);
            stats.max = c;
            pthread_mutex_unlock(&stats.mu);
        }
    }
}

int main(int argc, char **argv)
{
    long items = argc > 1 ? atol(argv[1]) : 1000;
    pthread_t th[NCONSUMERS];
    for (int i = 0; i < NCONSUMERS; i++)
        pthread_create(&th[i], NULL, consumer, NULL);
    for (long i = 0; i < items; i++) {
        pthread_mutex_lock(&q.mu);
        while (q.len == QCAP)
            pthread_cond_wait(&q.not_full, &q.mu);
        q.item[q.tail] = i;
        q.tail = (q.tail + 1) % QCAP;
        q.len++;
        pthread_cond_signal(&q.not_empty);
        pthread_mutex_unlock(&q.mu);
    }
    pthread_mutex_lock(&q.mu);
    q.done = 1;
    pthread_cond_broadcast(&q.not_empty);
    pthread_mutex_unlock(&q.mu);
    long want = 0;
    for (long i = 0; i < items; i++)
        if (checksum(i) > want)
            want = checksum(i);
    for (int i = 0; i < NCONSUMERS; i++)
        pthread_join(th[i], NULL);
    printf("%ld items, total %ld, max %ld (want %ld)\n", stats.count,
           stats.total, stats.max, want);
    return stats.max == want ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

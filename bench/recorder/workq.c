/* SPDX-License-Identifier: MIT */
/* workq.c - the "realistic" program of the recorder benchmark: a producer
 * fills a bounded work queue (mutex + two condition variables), three
 * workers take items, hash a small generated word for each and count it in
 * a chained hash table with one lock per bucket (nodes from malloc).  Mixes
 * blocking waits, notifies, fine-grained locking, heap accesses and local
 * computation the way a small server or indexer does.
 * Usage: workq [ITEMS]  (default 100000). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QCAP 64
#define NWORKERS 3
#define NBUCKETS 256

typedef struct node {
    char word[16];
    long count;
    struct node *next;
} node;

static struct {
    long item[QCAP];
    int head, tail, len, done;
    pthread_mutex_t mu;
    pthread_cond_t not_full, not_empty;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .not_full = PTHREAD_COND_INITIALIZER,
       .not_empty = PTHREAD_COND_INITIALIZER};

static node *bucket[NBUCKETS];
static pthread_mutex_t bucket_mu[NBUCKETS];

static void make_word(long item, char *w)
{
    static const char letters[] = "etaoinshrdlucmfw";
    unsigned long x = (unsigned long)item % 5000 * 2654435761ul;
    int n = 3 + (int)(x % 5);
    for (int i = 0; i < n; i++, x >>= 4)
        w[i] = letters[x & 15];
    w[n] = 0;
}

static unsigned hash(const char *w)
{
    unsigned h = 2166136261u;
    for (; *w; w++)
        h = (h ^ (unsigned char)*w) * 16777619u;
    return h;
}

static void count_word(const char *w)
{
    unsigned b = hash(w) % NBUCKETS;
    pthread_mutex_lock(&bucket_mu[b]);
    node *n = bucket[b];
    while (n && strcmp(n->word, w) != 0)
        n = n->next;
    if (!n) {
        n = calloc(1, sizeof *n);
        strcpy(n->word, w);
        n->next = bucket[b];
        bucket[b] = n;
    }
    n->count++;
    pthread_mutex_unlock(&bucket_mu[b]);
}

static void *worker(void *arg)
{
    (void)arg;
    char w[16];
    for (;;) {
        pthread_mutex_lock(&q.mu);
        while (q.len == 0 && !q.done)
            pthread_cond_wait(&q.not_empty, &q.mu);
        if (q.len == 0) {
            pthread_mutex_unlock(&q.mu);
            return NULL;
        }
        long item = q.item[q.head];
        q.head = (q.head + 1) % QCAP;
        q.len--;
        pthread_cond_signal(&q.not_full);
        pthread_mutex_unlock(&q.mu);
        make_word(item, w);
        count_word(w);
    }
}

int main(int argc, char **argv)
{
    long items = argc > 1 ? atol(argv[1]) : 100000;
    for (int b = 0; b < NBUCKETS; b++)
        pthread_mutex_init(&bucket_mu[b], NULL);
    pthread_t t[NWORKERS];
    for (int k = 0; k < NWORKERS; k++)
        pthread_create(&t[k], NULL, worker, NULL);
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
    for (int k = 0; k < NWORKERS; k++)
        pthread_join(t[k], NULL);
    long total = 0, words = 0;
    for (int b = 0; b < NBUCKETS; b++)
        for (node *n = bucket[b]; n; n = n->next) {
            total += n->count;
            words++;
        }
    printf("%ld items, %ld distinct words\n", total, words);
    return total == items ? 0 : 1;
}

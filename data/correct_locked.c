/* correct_locked.c - a correct lock-based program: a small hash table of
 * word counts guarded by a reader-writer lock, plus a statistics counter
 * guarded by a mutex.  Writers insert and bump counts under the write
 * lock; readers look up under the read lock.
 *
 * Kind: none.  Every shared access holds the lock that guards it and each
 * update is one critical section, so no schedule can break it.
 * Failure: none expected; main checks every count and the lookup total.
 * Natural run: always passes.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NBUCKETS 8
#define NWORDS 6
#define NWRITERS 2
#define REPEAT 3

struct entry {
    const char *word;
    int count;
};

static struct entry table[NBUCKETS];
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long lookups_found;
static const char *const words[NWORDS] = {"alpha", "beta", "gamma",
                                          "delta", "eps", "zeta"};

static unsigned bucket_of(const char *w)
{
    unsigned h = 5381;
    while (*w)
        h = h * 33 + (unsigned char)*w++;
    return h % NBUCKETS;
}

static void add_word(const char *w)
{
    pthread_rwlock_wrlock(&table_lock);
    unsigned b = bucket_of(w);
    while (table[b].word && strcmp(table[b].word, w))
        b = (b + 1) % NBUCKETS;
    table[b].word = w;
    table[b].count++;
    pthread_rwlock_unlock(&table_lock);
}

static int count_of(const char *w)
{
    int c = 0;
    pthread_rwlock_rdlock(&table_lock);
    unsigned b = bucket_of(w);
    for (int probes = 0; probes < NBUCKETS && table[b].word; probes++) {
        if (!strcmp(table[b].word, w)) {
            c = table[b].count;
            break;
        }
        b = (b + 1) % NBUCKETS;
    }
    pthread_rwlock_unlock(&table_lock);
    return c;
}

static void *writer(void *arg)
{
    (void)arg;
    for (int r = 0; r < REPEAT; r++)
        for (int i = 0; i < NWORDS; i++)
            add_word(words[i]);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < NWORDS; i++) {
        int c = count_of(words[i]);
        pthread_mutex_lock(&stats_lock);
        lookups_found += c > 0;
        pthread_mutex_unlock(&stats_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t w[NWRITERS], r;
    for (int i = 0; i < NWRITERS; i++)
        pthread_create(&w[i], NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < NWRITERS; i++)
        pthread_join(w[i], NULL);
    pthread_join(r, NULL);
    int bad = 0;
    for (int i = 0; i < NWORDS; i++)
        bad |= count_of(words[i]) != NWRITERS * REPEAT;
    printf("counts %s, %ld lookups found\n", bad ? "wrong" : "ok",
           lookups_found);
    return bad || lookups_found > NWORDS;
}
/* SPDX-License-Identifier: MIT */

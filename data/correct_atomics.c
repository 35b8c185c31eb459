/* correct_atomics.c - a correct lock-free program: workers add to an
 * atomic counter with fetch_add, claim work items with compare-exchange,
 * and publish a result with a release store that main reads with an
 * acquire load; a pthread_once initialises the item table.
 *
 * Kind: none.  `claimed[i]` is taken by exactly one CAS winner; `total`
 * only changes by atomic adds; `published` orders `result` (plain) before
 * main's read of it.
 * Failure: none expected; main checks the totals.
 * Natural run: always passes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define NTHREADS 3
#define NITEMS 12

static atomic_int claimed[NITEMS];
static atomic_long total;
static atomic_int finished;
static atomic_int published;
static long result;
static int weights[NITEMS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void init_table(void)
{
    for (int i = 0; i < NITEMS; i++)
        weights[i] = i + 1;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_once(&table_once, init_table);
    for (int i = 0; i < NITEMS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&claimed[i], &expected, 1))
            atomic_fetch_add(&total, weights[i]);
    }
    if (atomic_fetch_add(&finished, 1) == NTHREADS - 1) {
        result = atomic_load(&total);
        atomic_store_explicit(&published, 1, memory_order_release);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    long want = (long)NITEMS * (NITEMS + 1) / 2;
    int ok = atomic_load_explicit(&published, memory_order_acquire) &&
             result == want && atomic_load(&total) == want;
    printf("total %ld (want %ld)\n", result, want);
    return ok ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

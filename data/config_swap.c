/* config_swap.c - an atomicity violation on a flag the reader branches on.
 *
 * Kind: atomicity-single.  Variable: `cfg_valid`.  The publisher swaps the
 * configuration in two critical sections: it marks it invalid, then (after
 * building the new one outside the lock) fills it in and marks it valid
 * again (BUG lines in publish).  A reader that takes the lock in between
 * sees it invalid: it counts a stale read and serves the fallback (BUG
 * lines in lookup).  The stale path is one the recorded run never took;
 * the predicted schedule stops at the reader's violating read and the
 * replay lets the reader go on, so it takes that path and fails.
 * Input: with CONFIG_SWAP_AUDIT set, each lookup also counts itself in
 * `audited` under the lock: a run with it set does an access a run
 * without it never does (tests/confirm replays a schedule predicted from a
 * run without it, to see the divergence found and refined).
 * Failure: assert(stale_reads == 0) in main (abort).
 * Natural run: usually passes (the reader's one lookup is done before the
 * publisher starts, or after it is done).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int cfg_valid = 1, cfg_limit = 100;
static int stale_reads, served;
static int audit, audited; /* CONFIG_SWAP_AUDIT=1: count the lookups */

static void publish(int limit)
{
    pthread_mutex_lock(&lock);
    cfg_valid = 0; /* BUG: readers can see the swap half done ... */
    pthread_mutex_unlock(&lock);
    int next = limit * 2; /* the new configuration, built unlocked */
    pthread_mutex_lock(&lock);
    cfg_limit = next;
    cfg_valid = 1; /* BUG: ... until it is marked valid again */
    pthread_mutex_unlock(&lock);
}

static int lookup(void)
{
    int limit = 10; /* the fallback */
    pthread_mutex_lock(&lock);
    if (audit)
        audited++;
    int valid = cfg_valid; /* BUG: may see the configuration invalid ... */
    pthread_mutex_unlock(&lock);
    if (!valid) {
        stale_reads++; /* only the reader writes it */
        return limit;
    }
    pthread_mutex_lock(&lock);
    limit = cfg_limit; /* BUG: ... or valid, and then the new limit */
    pthread_mutex_unlock(&lock);
    return limit;
}

static void *publisher(void *arg)
{
    (void)arg;
    publish(70);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    served = lookup();
    return NULL;
}

int main(void)
{
    pthread_t p, r;
    audit = getenv("CONFIG_SWAP_AUDIT") != NULL;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&p, NULL, publisher, NULL);
    pthread_join(r, NULL);
    pthread_join(p, NULL);
    printf("served %d, %d stale\n", served, stale_reads);
    assert(stale_reads == 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */

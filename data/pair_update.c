/* pair_update.c - multi-variable atomicity violation: a writer updates the
 * two halves of a range in two steps; a reader checks the invariant
 * lo <= hi between them.
 *
 * Kind: atomicity-multi.  Variables: `range_lo`, `range_hi`.  The writer
 * moves the range up by STEP: it writes lo first, then hi (BUG lines in
 * shift_range); each write holds `lock`, but not the pair.  The reader
 * reads both under the lock (BUG line in check_range), so it is race-free
 * and yet can see lo already moved and hi not yet: lo > hi.
 * Failure: assert(lo <= hi) in check_range (abort).
 * Natural run: usually passes (the reader's checks mostly run before or
 * after the writer's short loop).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define STEP 10
#define MOVES 5
#define CHECKS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int range_lo = 0, range_hi = 5;

static void shift_range(void)
{
    pthread_mutex_lock(&lock);
    range_lo += STEP; /* BUG: lo moves past the old hi ... */
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    range_hi += STEP; /* BUG: ... before hi follows */
    pthread_mutex_unlock(&lock);
}

static void check_range(void)
{
    pthread_mutex_lock(&lock);
    int lo = range_lo, hi = range_hi; /* BUG: may see the pair half-moved */
    pthread_mutex_unlock(&lock);
    assert(lo <= hi);
}

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < MOVES; i++)
        shift_range();
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < CHECKS; i++)
        check_range();
    return NULL;
}

int main(void)
{
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    printf("range = [%d, %d]\n", range_lo, range_hi);
    return range_hi - range_lo == 5 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

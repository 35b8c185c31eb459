/* period_once.c - the motivating example of Period (Wen et al., ICSE'22,
 * figure 1, simplified there from CVE-2016-1972): threads t0 and t1 both
 * call once(), synchronised through `lock` (heap, allocated by main),
 * `done` and `waiters`; the last thread out is meant to free the lock.
 * The paper's line numbers are given as "ln.N" in the comments.
 *
 * Kinds: null-deref, use-after-free and double-free (the manifest lists
 * the program once per kind).
 *  - NPD: t0 sets lock = NULL (ln.16) before t1 locks it (ln.8).
 *  - UAF: t0 frees the lock (ln.15) before t1 locks or unlocks it.
 *  - DF: both threads see --waiters reach 0 (ln.14) and free (ln.15);
 *    `waiters` is updated without the lock (ln.7, ln.14), so increments
 *    and decrements can interleave.
 * Failure: NPD crashes (SIGSEGV in pthread_mutex_lock); DF aborts in
 * glibc ("double free detected"); UAF corrupts the heap or hangs natively
 * in pthread_mutex_lock on freed memory.
 * Natural run: passes (t0 runs once() to completion before t1 starts, so
 * t1 sees done and returns at ln.6).
 * Deviations: main initialises the mutex (the figure only mallocs it);
 * once() has the pthread start-routine signature.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t *lock; /* ln.1 */
static long waiters;          /* ln.2 */
static int done;              /* ln.3 */

static void *once(void *arg)  /* ln.5 */
{
    (void)arg;
    if (done)                 /* ln.6 */
        return NULL;
    waiters++;                /* ln.7   BUG: unprotected count */
    pthread_mutex_lock(lock); /* ln.8   BUG: NPD / UAF if t0 already freed */
    /* do some thing ... */
    if (!done)                /* ln.10 */
        done = 1;             /* ln.11 */
    pthread_mutex_unlock(lock); /* ln.13 BUG: UAF */
    if (!--waiters) {         /* ln.14  BUG: both may see 0 */
        free(lock);           /* ln.15  BUG: DF */
        lock = NULL;          /* ln.16  BUG: NPD for the other thread */
    }
    return NULL;
}

int main(void)                /* ln.19 */
{
    lock = malloc(sizeof(pthread_mutex_t));
    if (!lock)
        return 2;
    pthread_mutex_init(lock, NULL);
    pthread_t t0, t1;
    pthread_create(&t0, NULL, once, NULL);
    pthread_create(&t1, NULL, once, NULL);
    pthread_join(t1, NULL);
    pthread_join(t0, NULL);
    printf("done = %d, waiters = %ld\n", done, waiters);
    return done == 1 && waiters == 0 && lock == NULL ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

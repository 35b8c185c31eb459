/* vg_atomic.c - for the Valgrind recorder (tests/confirm/valgrind.sh): two
 * threads count with a locked read-modify-write (lock xadd) and read the
 * count with a plain load (an x86 atomic load is a plain mov), and each
 * also bumps an unlocked, unprotected counter: the tool must record the
 * locked instruction as one atomic read-modify-write (no plain read of
 * it), the atomic variable's plain loads as atomic ones (no race on
 * hits), and the plain counter as the data race it is. */
#include <pthread.h>
#include <stdio.h>

static long hits;  /* atomic */
static long plain; /* racy */

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST);   /* line 18 */
        long seen = __atomic_load_n(&hits, __ATOMIC_ACQUIRE);
        plain = plain + seen;                              /* line 20 */
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("hits %ld\n", hits);
    return 0;
}
/* SPDX-License-Identifier: MIT */

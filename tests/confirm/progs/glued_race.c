/* SPDX-License-Identifier: MIT */
/* glued_race.c - a data race whose write the runtime glues to a read:
 * `x = 2; r = y;` records READ y (paired) then WRITE x, run as one step
 * (docs/ctm.md "Glued steps").  The race of b's read of x with a's write
 * is predicted with a's step whole, the paired read before the write
 * (tests/confirm/glued_race.sh). */
#include <pthread.h>
#include <stdio.h>

static int x, y, seen;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *a(void *arg)
{
    (void)arg;
    x = 2;     /* pending until the next key point ... */
    int r = y; /* ... past this read of another variable: paired */
    pthread_mutex_lock(&m);
    seen += r;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *b(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    seen++;
    pthread_mutex_unlock(&m);
    int v = x; /* races with a's x = 2 */
    printf("b read x = %d\n", v);
    return NULL;
}

int main(void)
{
    pthread_t ta, tb;
    pthread_create(&tb, NULL, b, NULL);
    pthread_create(&ta, NULL, a, NULL);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    return 0;
}

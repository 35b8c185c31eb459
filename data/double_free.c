/* double_free.c - double free through a reference count whose decrement
 * and zero test are two critical sections instead of one.
 *
 * Kind: double-free.  Object: the heap `struct buffer`; variable
 * `buf->refs`.  Each owner decrements under the lock (first BUG line) and
 * tests for zero under the lock again (second BUG line); if both
 * decrements come before both tests, both owners see 0 and both free
 * (third BUG line).
 * Failure: glibc aborts ("free(): double free detected") or the heap is
 * corrupted; main also exits 1 when the frees were not exactly one.
 * Natural run: usually passes (one owner finishes before the other
 * decrements).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct buffer {
    int refs;
    char data[48];
};

static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static int frees;

static void release(struct buffer *buf)
{
    pthread_mutex_lock(&ref_lock);
    buf->refs--; /* BUG: decrement ... */
    pthread_mutex_unlock(&ref_lock);
    pthread_mutex_lock(&ref_lock);
    int last = buf->refs == 0; /* BUG: ... and test are not one region */
    if (last)
        frees++;
    pthread_mutex_unlock(&ref_lock);
    if (last)
        free(buf); /* BUG: both owners may get here */
}

static void *owner(void *arg)
{
    struct buffer *buf = arg;
    release(buf);
    return NULL;
}

int main(void)
{
    struct buffer *buf = calloc(1, sizeof *buf);
    if (!buf)
        return 2;
    buf->refs = 2;
    pthread_t a, b;
    pthread_create(&a, NULL, owner, buf);
    pthread_create(&b, NULL, owner, buf);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("frees = %d\n", frees);
    return frees == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

/* SPDX-License-Identifier: MIT */
/* neighbour_free.c - a correct program whose block's header changes
 * under it: when the block just before it in memory is given back to
 * malloc (here once the oracle's quarantine lets it go, after 4096 later
 * frees), glibc clears the PREV_INUSE bit of its size field.  That bit
 * belongs to the neighbour, not to the block: no heap corruption.  (pigz's
 * free_pool was reported as heap corruption at every explored run.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static char *a, *b;
static void *volatile keep; /* the compiler may not drop a malloc/free */

static void *worker(void *arg)
{
    a[0] = b[0] = 1;
    return arg;
}

int main(void)
{
    /* larger than tcache's largest (1032 bytes): freed into a bin */
    a = malloc(4000);
    b = malloc(4000);
    void *fence = malloc(64); /* keeps b off the top chunk */
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    free(a);
    for (int i = 0; i < 5000; i++) { /* past the quarantine's 4096 */
        keep = malloc(16);
        free(keep);
    }
    free(b); /* the header check */
    free(fence);
    puts("done");
    return 0;
}

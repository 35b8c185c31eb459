/* underflow.c - a worker writes one word before its heap block (into
 * malloc's chunk header).  glibc notices only at a later free. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long *buf;
static int idx = -1;

static void *worker(void *arg)
{
    buf[idx] = 0x4141414141414141; /* the corrupting write */
    return arg;
}

int main(void)
{
    buf = malloc(8 * sizeof *buf);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    char *other = malloc(100);
    other[0] = 1;
    free(buf);
    free(other);
    puts("done");
    return 0;
}
/* SPDX-License-Identifier: MIT */

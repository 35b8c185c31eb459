/* sloppy.c - undefined but common: a function falls off its end (its
 * caller uses whatever is in eax) and main is declared void.  The
 * instrumented build must exit as the native one does. */
#include <pthread.h>

static int g;

__attribute__((noinline)) static int last(int x)
{
    g = x * 3 + 7;
    if (x > 100)
        return 1;
}

static void *run(void *p)
{
    g += 1;
    return p;
}

void main(void)
{
    pthread_t t;
    pthread_create(&t, 0, run, 0);
    pthread_join(t, 0);
    last(g + 40);
}
/* SPDX-License-Identifier: MIT */

/* forever.c - a thread that never stops writing: a livelock that only
 * the bound on a run's key points (--max-run-events) ends. */
#include <pthread.h>

static volatile long counter;

static void *spin(void *arg)
{
    for (;;)
        counter++;
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, spin, 0);
    pthread_join(t, 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* spin_forever.c - never ends on its own: a worker polls a flag nobody
 * sets while main sleeps in a loop.  Stopped with SIGTERM, the trace must
 * end with a SIGNAL event and the parent see SIGTERM. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int flag;

static void *spin(void *arg)
{
    (void)arg;
    while (!flag)
        usleep(100);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    puts("started");
    fflush(stdout);
    for (;;)
        usleep(1000);
}
/* SPDX-License-Identifier: MIT */

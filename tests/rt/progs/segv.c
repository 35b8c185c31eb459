/* segv.c - a thread writes through a null pointer after some recorded
 * work: the trace must stay readable and end with a SIGNAL event. */
#include <pthread.h>
#include <stdio.h>

static int *volatile target;
static int counter;

static void *crash(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        counter++;
    *target = counter;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, crash, NULL);
    pthread_join(t, NULL);
    puts("not reached");
    return 0;
}
/* SPDX-License-Identifier: MIT */

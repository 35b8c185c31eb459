/* SPDX-License-Identifier: MIT */
/* preload_lib.c - a library built with foretell-cc -shared, loaded by a
 * host that was not (preload_host.c): a counter updated in two critical
 * sections, read in one and written back in the next (a lost update). */
#include <pthread.h>

static long counter;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void bump(void)
{
    pthread_mutex_lock(&mu);
    long v = counter;
    pthread_mutex_unlock(&mu);
    pthread_mutex_lock(&mu);
    counter = v + 1;
    pthread_mutex_unlock(&mu);
}

long value(void)
{
    return counter;
}

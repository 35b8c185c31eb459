/* shlib.c - a shared object built with foretell-cc -shared: its accesses
 * and locks must reach the executable's runtime. */
#include <pthread.h>

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
int lib_counter;

void lib_bump(void)
{
    pthread_mutex_lock(&lib_lock);
    lib_counter++;
    pthread_mutex_unlock(&lib_lock);
}
/* SPDX-License-Identifier: MIT */

/* misuse_loop.c - one misuse made 50 times (an unlock of a mutex nobody
 * holds, in a loop): analyze reports it once, with its count
 * (tests/confirm/misuse.sh). */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void)
{
    for (int i = 0; i < 50; i++)
        pthread_mutex_unlock(&m); /* BUG: never locked */
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* SPDX-License-Identifier: MIT */
/* preload_host.c - a host built with plain cc that uses preload_lib.c's
 * library: two threads bump the counter three times each; it exits 1
 * when an update was lost. */
#include <pthread.h>
#include <stdio.h>

void bump(void);
long value(void);

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++)
        bump();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%ld\n", value());
    return value() == 6 ? 0 : 1;
}

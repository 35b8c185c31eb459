/* shmain.c - uses shlib.c's library from two threads. */
#include <pthread.h>
#include <stdio.h>

void lib_bump(void);
extern int lib_counter;

static void *run(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        lib_bump();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, run, NULL);
    pthread_create(&b, NULL, run, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("lib_counter=%d\n", lib_counter);
    return lib_counter == 100 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

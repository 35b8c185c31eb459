/* SPDX-License-Identifier: MIT */
/* dense.c - access-dense kernel for the recorder benchmark: two threads
 * sweep a shared read-only table and write their own output slots, so
 * almost every instruction is an instrumented memory access and there is
 * no synchronisation besides create/join (race-free: libtsan stays quiet).
 * Usage: dense [ROUNDS]  (default 200; 2 x ROUNDS x 4096 x 2 accesses). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static int table[N];
static long out[2][N];
static long rounds = 200;

static void *sweep(void *arg)
{
    long id = (long)arg;
    long sum = 0;
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            sum += table[i] ^ (int)r;
            out[id][i] = sum;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atol(argv[1]);
    for (int i = 0; i < N; i++)
        table[i] = i * 7 + 1;
    pthread_t t[2];
    for (long k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, sweep, (void *)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    printf("%ld\n", out[0][N - 1] + out[1][N - 1]);
    return 0;
}

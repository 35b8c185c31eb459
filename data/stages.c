/* stages.c - "N stages and one reader": a pipeline of N stage threads
 * hands a token along, each stage waiting (mutex and condition variable)
 * for the one before it; the last stage then publishes the result, but
 * it raises the `finished` flag before it writes `result` (the bug).  A
 * reader, created first, looks once: when it sees `finished`, it expects
 * the result.
 *
 * Kind: order violation.  Variables token (with its lock), finished and
 * result.  The failure needs a deep ordering: the reader must wait until
 * every stage has run (its look is its first action, and it is enabled
 * from the start) and then slip between the last stage's two writes.
 * Failure: assert in the reader (abort).
 * Natural run: passes (the reader looks before the stages are done).
 * Argument: N, the number of stages (default 10, at most 128).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_STAGES 128

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int token;            /* the stage whose turn it is */
static int nstages;
static volatile int finished;
static volatile int result;

static void *stage(void *arg)
{
    int me = (int)(long)arg;
    pthread_mutex_lock(&m);
    while (token != me)
        pthread_cond_wait(&turn, &m);
    token = me + 1;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&m);
    if (me == nstages - 1) {
        finished = 1; /* BUG: raised before the result is written */
        result = 42;
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    if (finished)           /* BUG: after the flag ... */
        assert(result == 42); /* ... and before the result */
    return NULL;
}

int main(int argc, char **argv)
{
    nstages = argc > 1 ? atoi(argv[1]) : 10;
    if (nstages < 1 || nstages > MAX_STAGES) {
        fprintf(stderr, "stages: N must be 1..%d\n", MAX_STAGES);
        return 2;
    }
    pthread_t r, s[MAX_STAGES];
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < nstages; i++)
        pthread_create(&s[i], NULL, stage, (void *)(long)i);
    pthread_join(r, NULL);
    for (int i = 0; i < nstages; i++)
        pthread_join(s[i], NULL);
    printf("stages %d: token %d, result %d\n", nstages, token, result);
    return 0;
}
/* SPDX-License-Identifier: MIT */

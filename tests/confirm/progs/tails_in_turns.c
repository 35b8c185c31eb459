/* SPDX-License-Identifier: MIT */
/* tails_in_turns.c - two order findings that replay without a failure,
 * then a long run of two busy threads: each random tail after a witness
 * runs that long phase, switching at nearly every access.  For
 * tests/confirm/tails_in_turns.sh: under a short --time, analyze must
 * replay both witnesses before spending time on either's tails. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int a, b;
static int seen_a, seen_b;

static void *read_a(void *arg)
{
    (void)arg;
    seen_a = a;
    return NULL;
}

static void *read_b(void *arg)
{
    (void)arg;
    seen_b = b;
    return NULL;
}

static void *write_both(void *arg)
{
    (void)arg;
    a = 1;
    b = 1;
    return NULL;
}

static long rounds;

static void *busy(void *arg)
{
    long *mine = arg; /* this thread's own: no candidate, but events */
    for (long i = 0; i < rounds; i++)
        mine[i & 63] += i;
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 100000;
    pthread_t r1, r2, w, u, v;
    pthread_create(&r1, NULL, read_a, NULL);
    pthread_create(&r2, NULL, read_b, NULL);
    pthread_create(&w, NULL, write_both, NULL);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
    pthread_join(w, NULL);
    static long own[2][64];
    pthread_create(&u, NULL, busy, own[0]);
    pthread_create(&v, NULL, busy, own[1]);
    pthread_join(u, NULL);
    pthread_join(v, NULL);
    printf("%d %d\n", seen_a, seen_b);
    return 0;
}

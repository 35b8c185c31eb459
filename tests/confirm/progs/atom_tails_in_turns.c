/* SPDX-License-Identifier: MIT */
/* atom_tails_in_turns.c - two atomicity findings that replay without a
 * failure (counters incremented over two critical sections, never
 * checked), then a long run of two busy threads: each random tail after
 * a witness runs that long phase, switching at nearly every access.  For
 * tests/confirm/atom_tails_in_turns.sh: under a short --time, analyze
 * must replay both witnesses before spending time on either's tails. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int a, b;

static void *bump_a(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    int seen = a;
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    a = seen + 1;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *bump_b(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    int seen = b;
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    b = seen + 1;
    pthread_mutex_unlock(&lock);
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
    pthread_t t[4], u, v;
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, i < 2 ? bump_a : bump_b, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    static long own[2][64];
    pthread_create(&u, NULL, busy, own[0]);
    pthread_create(&v, NULL, busy, own[1]);
    pthread_join(u, NULL);
    pthread_join(v, NULL);
    printf("%d %d\n", a, b);
    return 0;
}

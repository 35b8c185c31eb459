/* SPDX-License-Identifier: MIT */
/* tails_in_turns.c - two order findings that replay without a failure
 * (or, given "atomicity", lost updates of two counters incremented over
 * two critical sections, never checked; given "instances", four threads
 * incrementing one of them: one static finding with more instances),
 * then a long run of two busy threads: each random tail after a witness
 * runs that long phase, switching at nearly every access.  For
 * tests/confirm/tails_in_turns.sh and atom_tails_in_turns.sh (atomicity,
 * instances): under a short
 * --time, analyze must replay every witness before spending time on any
 * one's tails.
 * Usage: tails_in_turns [atomicity|instances] [ROUNDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One increment of a (of b) over two critical sections: an update can
 * be lost.  Two functions, not one taking a pointer: each is its own
 * static finding (one static finding's other instances are not solved
 * by default). */
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
    int instances = argc > 1 && strcmp(argv[1], "instances") == 0;
    int atomicity =
        instances || (argc > 1 && strcmp(argv[1], "atomicity") == 0);
    rounds = argc > 1 + atomicity ? atol(argv[1 + atomicity]) : 100000;
    pthread_t t[4], u, v;
    if (atomicity) {
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, i < 2 || instances ? bump_a : bump_b,
                           NULL);
    } else {
        pthread_create(&t[0], NULL, read_a, NULL);
        pthread_create(&t[1], NULL, read_b, NULL);
        pthread_create(&t[2], NULL, write_both, NULL);
    }
    for (int i = 0; i < 3 + atomicity; i++)
        pthread_join(t[i], NULL);
    static long own[2][64];
    pthread_create(&u, NULL, busy, own[0]);
    pthread_create(&v, NULL, busy, own[1]);
    pthread_join(u, NULL);
    pthread_join(v, NULL);
    printf("%d %d %d %d\n", a, b, seen_a, seen_b);
    return 0;
}

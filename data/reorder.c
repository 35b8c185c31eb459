/* reorder.c - the "reorder" benchmark (SCTBench reorder_N_bad, used by
 * Period and PCT evaluations): N setter threads each write a = 1 then
 * b = -1; one checker thread, created last, reads a and then b and
 * expects to see either neither write or both.
 *
 * Kind: atomicity-multi (every access is also a data race).  Variables a
 * and b.  The checker must read a (first BUG line) before any setter
 * runs, and b (second BUG line) after some setter wrote it: two context
 * switches (checker -> setter -> checker), which gets harder to hit by
 * chance as N grows.
 * Failure: assert in the checker (abort).
 * Natural run: passes (the setters, created first, are done before the
 * checker reads).
 * Argument: N, the number of setters (default 4, at most 128).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_SETTERS 128

static int a, b;

static void *setter(void *arg)
{
    (void)arg;
    a = 1;
    b = -1;
    return NULL;
}

static void *checker(void *arg)
{
    (void)arg;
    int seen_a = a; /* BUG: read before the setters ... */
    int seen_b = b; /* BUG: ... and after one of them */
    assert((seen_a == 0 && seen_b == 0) || (seen_a == 1 && seen_b == -1));
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1 || n > MAX_SETTERS) {
        fprintf(stderr, "reorder: N must be 1..%d\n", MAX_SETTERS);
        return 2;
    }
    pthread_t setters[MAX_SETTERS], check;
    for (int i = 0; i < n; i++)
        pthread_create(&setters[i], NULL, setter, NULL);
    pthread_create(&check, NULL, checker, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(setters[i], NULL);
    pthread_join(check, NULL);
    printf("reorder %d: a = %d, b = %d\n", n, a, b);
    return 0;
}
/* SPDX-License-Identifier: MIT */

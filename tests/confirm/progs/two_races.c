/* SPDX-License-Identifier: MIT */
/* two_races.c - two unrelated data races (a and b), for
 * tests/confirm/stripped.sh: built, then stripped of its symbols and line
 * information, its findings must still say where each access is (module
 * and offset, the decoded instruction) and stay two. */
#include <pthread.h>
#include <stdio.h>

static int a, b;

static void *left(void *arg)
{
    (void)arg;
    a = 1;
    b = 2;
    return NULL;
}

static void *right(void *arg)
{
    (void)arg;
    int x = a;
    b = 3;
    return (void *)(long)x;
}

int main(void)
{
    pthread_t l, r;
    pthread_create(&l, NULL, left, NULL);
    pthread_create(&r, NULL, right, NULL);
    pthread_join(l, NULL);
    pthread_join(r, NULL);
    printf("a %d b %d\n", a, b);
    return 0;
}

/* test_then_set.c - writers take a flag lock by testing it and setting
 * it in one critical section (`if (w == 0 && r == 0) { w = 1; ... }`,
 * else try again) and release it outside the mutex; a lost update beside
 * it (`hits = hits + 1` in two threads, unlocked).  A witness in which
 * the test reads the flag taken and the thread sets it anyway is one the
 * program cannot run (it tries again); the lost update is real (main's
 * check fails).  The shape of SV-COMP pthread-atomic/read_write_lock-1,
 * written here. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int w, r, x, hits;

static void take_write(void)
{
    for (;;) {
        pthread_mutex_lock(&m);
        if (w == 0 && r == 0) {
            w = 1;
            pthread_mutex_unlock(&m);
            return;
        }
        pthread_mutex_unlock(&m);
        sched_yield();
    }
}

static void bump(void)
{
    hits = hits + 1;
}

static void *writer(void *arg)
{
    take_write();
    x = (int)(long)arg;
    w = 0;
    bump();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, (void *)1L);
    pthread_create(&b, NULL, writer, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (hits != 2) {
        fprintf(stderr, "lost update: hits = %d\n", hits);
        return 1;
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

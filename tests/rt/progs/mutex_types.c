#define _GNU_SOURCE
/* mutex_types.c - return codes of recursive and errorcheck mutexes, and
 * trylock/timedlock contention, as a program would see them natively. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                         \
        }                                                                     \
    } while (0)

static pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static int other_rc[3];

static void *other(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    other_rc[0] = pthread_mutex_trylock(&held);
    other_rc[1] = pthread_mutex_timedlock(&held, &ts);
    other_rc[2] = pthread_mutex_unlock(&rec); /* not the owner */
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutex_t ec;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&ec, &a);
    EXPECT(pthread_mutex_lock(&ec) == 0);
    EXPECT(pthread_mutex_lock(&ec) == EDEADLK);
    EXPECT(pthread_mutex_unlock(&ec) == 0);
    EXPECT(pthread_mutex_unlock(&ec) == EPERM);

    EXPECT(pthread_mutex_lock(&rec) == 0);
    EXPECT(pthread_mutex_lock(&rec) == 0);
    EXPECT(pthread_mutex_trylock(&rec) == 0);
    EXPECT(pthread_mutex_unlock(&rec) == 0);
    EXPECT(pthread_mutex_unlock(&rec) == 0);

    EXPECT(pthread_mutex_lock(&held) == 0);
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    pthread_join(t, NULL);
    EXPECT(other_rc[0] == EBUSY);
    EXPECT(other_rc[1] == ETIMEDOUT);
    EXPECT(other_rc[2] == EPERM);
    EXPECT(pthread_mutex_unlock(&rec) == 0);
    EXPECT(pthread_mutex_unlock(&rec) == EPERM);
    EXPECT(pthread_mutex_unlock(&held) == 0);
    pthread_mutex_destroy(&ec);
    puts("ok");
    return 0;
}
/* SPDX-License-Identifier: MIT */

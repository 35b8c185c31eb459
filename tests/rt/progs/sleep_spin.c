/* sleep_spin.c - main spins on an atomic flag that a thread sets after
 * sleeping; a yielder and a nanosleep-er run beside.  Terminates only if
 * sleeps release the baton and quantum preemption works. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static atomic_int flag;
static int yields;

static void *sleeper(void *arg)
{
    (void)arg;
    usleep(2000);
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    atomic_store(&flag, 1);
    return NULL;
}

static void *yielder(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&flag, memory_order_acquire)) {
        yields++;
        sched_yield();
    }
    return NULL;
}

int main(void)
{
    pthread_t s, y;
    pthread_create(&s, NULL, sleeper, NULL);
    pthread_create(&y, NULL, yielder, NULL);
    long spins = 0;
    while (!atomic_load_explicit(&flag, memory_order_relaxed))
        spins++;
    pthread_join(s, NULL);
    pthread_join(y, NULL);
    printf("done spins>0=%d yields>0=%d\n", spins > 0, yields > 0);
    return 0;
}
/* SPDX-License-Identifier: MIT */

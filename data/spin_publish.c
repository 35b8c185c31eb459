/* spin_publish.c - a correct program whose readers busy-wait: a writer
 * fills a value and raises two flags; one reader waits for the first flag
 * with sched_yield, the other spins on the second (atomic loads, 5000
 * between yields: longer than surw's busy-wait bound).  A scheduler must let the writer run while they spin, whatever
 * it thinks interesting (surw's fairness, docs/explore.md).
 * Kind: none.  Natural run: passes.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static int value;
static atomic_int ready, done;

static void *writer(void *arg)
{
    (void)arg;
    value = 42;
    atomic_store(&ready, 1);
    atomic_store(&done, 1);
    return NULL;
}

static void *yielder(void *arg)
{
    (void)arg;
    while (!atomic_load(&ready))
        sched_yield();
    assert(value == 42);
    return NULL;
}

/* Spins 5000 times between yields: without its yields no run without
 * preemption (the calibration) would end. */
static void *spinner(void *arg)
{
    (void)arg;
    for (;;) {
        for (int i = 0; i < 5000 && !atomic_load(&done); i++)
            ;
        if (atomic_load(&done))
            break;
        sched_yield();
    }
    assert(value == 42);
    return NULL;
}

int main(void)
{
    pthread_t w, y, s;
    pthread_create(&y, NULL, yielder, NULL);
    pthread_create(&s, NULL, spinner, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(y, NULL);
    pthread_join(s, NULL);
    pthread_join(w, NULL);
    printf("spin_publish: %d\n", value);
    return 0;
}
/* SPDX-License-Identifier: MIT */

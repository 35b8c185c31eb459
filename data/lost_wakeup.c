/* lost_wakeup.c - lost wakeup: the waiter calls pthread_cond_wait without
 * checking a predicate, so a signal sent before it waits is lost.
 *
 * Kind: lost-wakeup.  Condition `ready_cv`, flag `ready`.  The signal (BUG
 * line in announce) can come before the wait (BUG line in await_ready);
 * the wait should be `while (!ready) pthread_cond_wait(...)`.
 * Failure: the waiter would sleep forever; it waits at most a second and
 * then asserts that it was woken (assert(rc == 0), abort).  The deadline
 * is the clock plus whole seconds, so that no branch depends on the
 * clock's value: a replay then takes the recorded path whatever the time.
 * Natural run: usually passes (the waiter thread is started first and
 * reaches its wait before the announcer signals).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready;

static void *await_ready(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    pthread_mutex_lock(&mu);
    int rc = pthread_cond_timedwait(&ready_cv, &mu, &deadline); /* BUG: no predicate */
    pthread_mutex_unlock(&mu);
    assert(rc == 0);
    return NULL;
}

static void *announce(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    ready = 1;
    pthread_cond_signal(&ready_cv); /* BUG: lost if nobody waits yet */
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(void)
{
    pthread_t waiter, signaller;
    pthread_create(&waiter, NULL, await_ready, NULL);
    pthread_create(&signaller, NULL, announce, NULL);
    pthread_join(waiter, NULL);
    pthread_join(signaller, NULL);
    printf("ready = %d\n", ready);
    return ready == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

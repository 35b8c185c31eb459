/* lost_wakeup.c - lost wakeup: the waiter calls pthread_cond_wait without
 * checking a predicate, so a signal sent before it waits is lost.
 *
 * Kind: lost-wakeup.  Condition `ready_cv`, flag `ready`.  The signal (BUG
 * line in announce) can come before the wait (BUG line in await_ready);
 * the wait should be `while (!ready) pthread_cond_wait(...)`.
 * Failure: the waiter would sleep forever; it waits at most WAIT_MS and
 * then asserts that it was woken (assert(rc == 0), abort).
 * Natural run: usually passes (the waiter thread is started first and
 * reaches its wait before the announcer signals).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define WAIT_MS 300

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int ready;

static void *await_ready(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += WAIT_MS * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
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

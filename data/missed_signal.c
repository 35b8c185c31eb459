/* missed_signal.c - a lost wake-up that hangs: the consumer waits for the
 * producer's signal without checking whether the item is already there.
 *
 * Kind: lost-wakeup.  Condition `item_cv`, flag `have_item`.  When the
 * producer signals (BUG line in produce) before the consumer waits (BUG
 * line in consume), the signal is lost and the consumer waits for good;
 * main then waits to join it.  The wait should be
 * `while (!have_item) pthread_cond_wait(...)`.
 * Failure: the program hangs (the recorder reports DEADLOCK).
 * Natural run: usually passes (the consumer is started first and reaches
 * its wait before the producer signals).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t item_cv = PTHREAD_COND_INITIALIZER;
static int have_item, consumed;

static void *consume(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_cond_wait(&item_cv, &mu); /* BUG: no predicate loop */
    consumed = have_item;
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *produce(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    have_item = 1;
    pthread_cond_signal(&item_cv); /* BUG: lost if nobody waits yet */
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(void)
{
    pthread_t c, p;
    pthread_create(&c, NULL, consume, NULL);
    pthread_create(&p, NULL, produce, NULL);
    pthread_join(c, NULL);
    pthread_join(p, NULL);
    printf("consumed = %d\n", consumed);
    return consumed == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

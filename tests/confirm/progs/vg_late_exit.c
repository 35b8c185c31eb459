/* vg_late_exit.c - for the Valgrind recorder (tests/confirm/valgrind.sh):
 * a deadlock whose last step is a thread's exit.  The producer signals
 * before the consumer waits (the wake-up is lost), main joins the
 * consumer, and only then does the producer end: no thread enters a
 * wait last, so the tool must look again when a thread exits. */
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *consume(void *arg)
{
    (void)arg;
    usleep(100000);
    pthread_mutex_lock(&mu);
    pthread_cond_wait(&cv, &mu); /* the signal came before: waits for good */
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *produce(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    usleep(400000); /* ends after the others wait */
    return NULL;
}

int main(void)
{
    pthread_t c, p;
    pthread_create(&c, NULL, consume, NULL);
    pthread_create(&p, NULL, produce, NULL);
    pthread_join(c, NULL);
    pthread_join(p, NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* cancel.c - main cancels a thread blocked in pthread_cond_wait (its
 * cleanup handler unlocks the mutex and counts) and one blocked in
 * sleep(); both end with PTHREAD_CANCELED and the program prints "ok". */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready, cleaned;

static void unlock(void *arg)
{
    cleaned++;
    pthread_mutex_unlock(arg);
}

static void *waiter(void *arg)
{
    pthread_mutex_lock(&m);
    ready++;
    pthread_cleanup_push(unlock, &m);
    for (;;)
        pthread_cond_wait(&c, &m);
    pthread_cleanup_pop(1);
    return arg;
}

static void *sleeper(void *arg)
{
    pthread_mutex_lock(&m);
    ready++;
    pthread_mutex_unlock(&m);
    sleep(1000);
    return arg;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, 0, waiter, 0);
    pthread_create(&s, 0, sleeper, 0);
    for (;;) {
        pthread_mutex_lock(&m);
        int r = ready;
        pthread_mutex_unlock(&m);
        if (r == 2)
            break;
        usleep(1000);
    }
    pthread_cancel(w);
    pthread_cancel(s);
    void *rw, *rs;
    pthread_join(w, &rw);
    pthread_join(s, &rs);
    if (rw != PTHREAD_CANCELED || rs != PTHREAD_CANCELED || cleaned != 1) {
        printf("bad: %d %d %d\n", rw == PTHREAD_CANCELED, rs == PTHREAD_CANCELED, cleaned);
        return 1;
    }
    printf("ok\n");
    return 0;
}
/* SPDX-License-Identifier: MIT */

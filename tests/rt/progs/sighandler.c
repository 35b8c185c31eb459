/* sighandler.c - a signal handler writes shared memory that the threads
 * also read and write: a worker signals the process, main waits for the
 * handler's write.  The trace must stay consistent. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int hits, shared;

static void handler(int sig)
{
    (void)sig;
    shared += 10;
    hits++;
}

static void *worker(void *arg)
{
    for (int i = 0; i < 5; i++) {
        shared++;
        kill(getpid(), SIGUSR1);
        while (hits <= i)
            usleep(100);
    }
    return arg;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigaction(SIGUSR1, &sa, 0);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    printf("shared=%d hits=%d\n", shared, hits);
    return shared == 55 && hits == 5 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

/* vg_fork.c - for the Valgrind recorder (tests/confirm/valgrind.sh): a
 * threaded program that forks a child which writes memory.  The child
 * runs on under Valgrind with the tool's file and buffer; it must write
 * nothing into the parent's records. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int shared;

static void *worker(void *arg)
{
    (void)arg;
    shared++;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pid_t p = fork();
    if (p == 0) {
        for (int i = 0; i < 100000; i++)
            shared += i;
        _exit(0);
    }
    waitpid(p, NULL, 0);
    shared++;
    printf("%d\n", shared);
    return 0;
}
/* SPDX-License-Identifier: MIT */

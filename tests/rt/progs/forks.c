/* forks.c - the program forks: the child keeps running (with threads) but
 * must not write into the parent's trace. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int value;

static void *bump(void *arg)
{
    (void)arg;
    value++;
    return NULL;
}

static int run_threads(void)
{
    pthread_t t;
    pthread_create(&t, NULL, bump, NULL);
    pthread_join(t, NULL);
    return value;
}

int main(void)
{
    run_threads();
    pid_t pid = fork();
    if (pid == 0)
        _exit(run_threads() == 2 ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    run_threads();
    printf("value=%d child=%d\n", value, WEXITSTATUS(status));
    return value == 2 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

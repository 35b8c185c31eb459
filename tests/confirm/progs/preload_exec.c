/* SPDX-License-Identifier: MIT */
/* preload_exec.c - a program built with plain cc that starts a thread,
 * then replaces itself with execl (whose libc version calls execve
 * inside libc): the LD_PRELOAD runtime must still end its trace first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    fflush(stdout);
    execl("/bin/true", "true", (char *)NULL);
    return 3;
}

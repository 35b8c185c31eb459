/* pipe_block.c - the reader blocks in read(2) (invisible to the runtime)
 * while holding the baton; only the watchdog can let the writer run. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];
static int produced;

static void *writer(void *arg)
{
    (void)arg;
    produced = 42;
    (void)!write(fds[1], "x", 1);
    return NULL;
}

int main(void)
{
    char c;
    if (pipe(fds))
        return 2;
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    if (read(fds[0], &c, 1) != 1)
        return 3;
    pthread_join(t, NULL);
    printf("produced=%d\n", produced);
    return produced == 42 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

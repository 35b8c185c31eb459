/* stall.c - a worker blocks in read(2) on a pipe nobody writes; main
 * joins it: no key point ever again, a real hang. */
#include <pthread.h>
#include <unistd.h>

static int fds[2];
static int got;

static void *reader(void *arg)
{
    char c;
    if (read(fds[0], &c, 1) == 1)
        got = 1;
    return arg;
}

int main(void)
{
    if (pipe(fds) != 0)
        return 2;
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    pthread_join(t, 0);
    return got;
}
/* SPDX-License-Identifier: MIT */

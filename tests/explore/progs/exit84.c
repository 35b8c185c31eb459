/* exit84.c - a program whose own exit status is the runtime's refusal
 * code 84 (or argv[1]): its failure, not the runtime's. */
#include <pthread.h>
#include <stdlib.h>

static int shared;

static void *worker(void *arg)
{
    shared++;
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    return argc > 1 ? atoi(argv[1]) : 84;
}
/* SPDX-License-Identifier: MIT */

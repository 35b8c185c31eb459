/* uaf_handoff.c - cross-thread use after free: the worker tells main it is
 * done with the shared job before its last use of it, and main frees it.
 *
 * Kind: use-after-free.  Object: the heap `struct job` allocated in main.
 * The worker posts `handoff` (first BUG line) and then still reads
 * job->magic (second BUG line); main frees the job as soon as it sees the
 * post (third BUG line).  main marks the job dead just before free()
 * (a volatile store, so the compiler keeps it), and glibc reuses the first
 * bytes of a freed chunk, so a read after the free does not see JOB_LIVE.
 * Failure: assert(job->magic == JOB_LIVE) in the worker (abort).
 * Natural run: usually passes (the worker's last read follows the post
 * at once, while main still has to wake up).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define JOB_LIVE 0x10b5a1e5ul
#define JOB_DEAD 0xdeadul

struct job {
    unsigned long magic; /* first: glibc's free() reuses these bytes */
    int result;
};

static sem_t handoff;
static int total;

static void *worker(void *arg)
{
    struct job *job = arg;
    job->result = 42;
    sem_post(&handoff); /* BUG: "done" is announced too early ... */
    assert(job->magic == JOB_LIVE); /* BUG: ... this read may follow the free */
    total += job->result;
    return NULL;
}

int main(void)
{
    struct job *job = calloc(1, sizeof *job);
    if (!job)
        return 2;
    job->magic = JOB_LIVE;
    sem_init(&handoff, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, job);
    sem_wait(&handoff);
    *(volatile unsigned long *)&job->magic = JOB_DEAD; /* kept: not dead */
    free(job); /* BUG: freed while the worker may still use it */
    pthread_join(t, NULL);
    sem_destroy(&handoff);
    printf("total = %d\n", total);
    return total == 42 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

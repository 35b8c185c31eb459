/* pool.c - a fixed thread pool and a test that uses it: tasks go into a
 * linked queue under a mutex, workers sleep on a condition variable until
 * one is there; the test submits TASKS tasks and waits on a second
 * condition variable until all have run.  Each task adds its input to a
 * result slot (its own) and to the pool's statistics, which are updated
 * under the pool's mutex, except `busy`, the number of running tasks,
 * which a worker reads under the lock and writes back under it again
 * after the task (an atomicity violation: two workers finishing at once
 * lose a decrement, and the pool never looks idle).
 * The shape of the 786- and 10 970-event thread-pool tests;
 * with 10^5 tasks, about 10^6 events (issue 16, bench/predict).
 * Usage: pool [TASKS [WORKERS]]  (default 20 tasks, 3 workers). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct task {
    void (*fn)(long, long *);
    long arg;
    long *out;
    struct task *next;
} task;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t has_work, idle;
    task *head, *tail;
    long pending, busy, done_tasks, sum;
    int stop;
} pool;

static void *run(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->has_work, &p->mu);
        if (!p->head) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        task *t = p->head;
        p->head = t->next;
        if (!p->head)
            p->tail = NULL;
        long b = p->busy; /* read here ... */
        p->busy = b + 1;
        pthread_mutex_unlock(&p->mu);
        t->fn(t->arg, t->out);
        pthread_mutex_lock(&p->mu);
        b = p->busy;
        pthread_mutex_unlock(&p->mu);
        pthread_mutex_lock(&p->mu); /* ... written back in another section */
        p->busy = b - 1;
        p->done_tasks++;
        p->sum += *t->out;
        if (--p->pending == 0)
            pthread_cond_broadcast(&p->idle);
        pthread_mutex_unlock(&p->mu);
        free(t);
    }
}

static void submit(pool *p, void (*fn)(long, long *), long arg, long *out)
{
    task *t = malloc(sizeof *t);
    t->fn = fn;
    t->arg = arg;
    t->out = out;
    t->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = t;
    else
        p->head = t;
    p->tail = t;
    p->pending++;
    pthread_cond_signal(&p->has_work);
    pthread_mutex_unlock(&p->mu);
}

static void square(long x, long *out)
{
    *out = x * x;
}

int main(int argc, char **argv)
{
    long ntasks = argc > 1 ? atol(argv[1]) : 20;
    int nworkers = argc > 2 ? atoi(argv[2]) : 3;
    pool p = {.mu = PTHREAD_MUTEX_INITIALIZER,
              .has_work = PTHREAD_COND_INITIALIZER,
              .idle = PTHREAD_COND_INITIALIZER};
    pthread_t *th = calloc((size_t)nworkers, sizeof *th);
    long *res = calloc((size_t)ntasks + 1, sizeof *res);
    for (int i = 0; i < nworkers; i++)
        pthread_create(&th[i], NULL, run, &p);
    for (long i = 0; i < ntasks; i++)
        submit(&p, square, i, &res[i]);
    pthread_mutex_lock(&p.mu);
    while (p.pending)
        pthread_cond_wait(&p.idle, &p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.has_work);
    pthread_mutex_unlock(&p.mu);
    for (int i = 0; i < nworkers; i++)
        pthread_join(th[i], NULL);
    long want = 0;
    for (long i = 0; i < ntasks; i++)
        want += i * i;
    printf("%ld tasks, sum %ld (want %ld), busy %ld\n", p.done_tasks, p.sum,
           want, p.busy);
    free(th);
    free(res);
    return p.sum == want && p.busy == 0 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

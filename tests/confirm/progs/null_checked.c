/* SPDX-License-Identifier: MIT */
/* null_checked.c - a worker reads a shared pointer that a closer thread
 * clears, and checks it before using it: no null dereference can happen.
 * When the worker finds it cleared, main's own check fails (exit 1).
 * For tests/confirm/null_checked.sh: the null-dereference candidate's
 * witness replays to that exit, which is not a null dereference proved;
 * the order violation behind it is. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

struct session {
    int id;
    int hits;
};

static struct session the_session = {7, 0};
static struct session *volatile current = &the_session;
static int missed;

static void *worker(void *arg)
{
    (void)arg;
    struct session *s = current;
    if (!s) {
        missed = 1;
        return NULL;
    }
    s->hits++;
    return NULL;
}

static void *closer(void *arg)
{
    (void)arg;
    usleep(1000);
    current = NULL;
    return NULL;
}

int main(void)
{
    pthread_t w, c;
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&c, NULL, closer, NULL);
    pthread_join(w, NULL);
    pthread_join(c, NULL);
    printf("session %d: %d hit(s)\n", the_session.id, the_session.hits);
    return missed ? 1 : 0;
}

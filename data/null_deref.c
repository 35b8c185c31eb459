/* null_deref.c - null dereference: a worker uses the current session
 * through a shared pointer that a closer thread clears.
 *
 * Kind: null-deref.  Variable: `current`.  The worker reads `current`
 * (first BUG line) and then dereferences what it read; the closer sets it
 * to NULL (second BUG line) after a short pause of its own; nothing orders
 * the read before the clearing.
 * Failure: SIGSEGV at `s->hits++` when the closer's write comes first.
 * Natural run: usually passes (the closer pauses a millisecond before
 * clearing, and the worker, started first, has long read the pointer).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

struct session {
    int id;
    int hits;
};

static struct session the_session = {7, 0};
static struct session *volatile current = &the_session;

static void *worker(void *arg)
{
    (void)arg;
    struct session *s = current; /* BUG: may read the closer's NULL */
    s->hits++;
    return NULL;
}

static void *closer(void *arg)
{
    (void)arg;
    usleep(1000);
    current = NULL; /* BUG: cleared while a worker may still look */
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
    return the_session.hits == 1 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

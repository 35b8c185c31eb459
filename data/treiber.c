/* treiber.c - a lock-free (Treiber) stack with the ABA problem.  The
 * stack holds a pool of nodes; each worker pops nodes, owns them for a
 * while and pushes them back.  pop() reads the top, then its next, then
 * swings the top with a compare-and-swap that checks only the address.
 *
 * Kind: atomicity (ABA).  If a thread reads top = X and X->next = Y, and
 * before its CAS another thread pops X, pops Y and pushes X back, the CAS
 * still succeeds and sets top to Y, which the other thread owns: two
 * threads then own Y (the assertion in pop), or the stack loses nodes
 * (the count at the end).  Nodes are never freed (a type-stable pool), so
 * there is no use after free to find first: only the ABA.
 * Failure: assert (abort).
 * Natural run: passes.
 * Arguments: workers (default 3, at most 16), rounds (default 4).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define POOL 4
#define MAX_WORKERS 16

typedef struct node {
    struct node *next;
    int owner; /* 0: in the stack, else the worker holding it */
} node;

static _Atomic(node *) top;
static int rounds = 4;

static node *pop(int me)
{
    node *old = atomic_load(&top);
    for (;;) {
        if (!old)
            return NULL;
        node *next = old->next;
        if (atomic_compare_exchange_weak(&top, &old, next))
            break;
    }
    assert(old->owner == 0); /* the ABA: another worker holds it */
    old->owner = me;
    return old;
}

static void push(node *n)
{
    n->owner = 0;
    node *old = atomic_load(&top);
    do
        n->next = old;
    while (!atomic_compare_exchange_weak(&top, &old, n));
}

/* Odd workers take two nodes and give the first back while they still
 * hold the second: the A-B-A a slow pop of the first one does not see. */
static void *worker(void *arg)
{
    int me = (int)(long)arg;
    for (int r = 0; r < rounds; r++) {
        node *a = pop(me);
        node *b = me % 2 ? pop(me) : NULL;
        if (a)
            push(a);
        if (b)
            push(b);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
    rounds = argc > 2 ? atoi(argv[2]) : 4;
    if (n < 1 || n > MAX_WORKERS || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "treiber: workers must be 1..%d, rounds 1..1000\n",
                MAX_WORKERS);
        return 2;
    }
    node *pool = calloc(POOL, sizeof *pool);
    if (!pool)
        return 2;
    for (int i = 0; i < POOL; i++)
        push(&pool[i]);
    pthread_t t[MAX_WORKERS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    int count = 0;
    for (node *p = atomic_load(&top); p && count <= POOL; p = p->next)
        count++;
    assert(count == POOL); /* the ABA lost nodes or made a cycle */
    printf("treiber: %d nodes\n", count);
    return 0;
}
/* SPDX-License-Identifier: MIT */

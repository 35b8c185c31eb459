/* alloc_vector.c - the AllocationVector bug of the variable-bounding paper
 * (Bindal, Bansal, Lal, figure 12): find_free_block(), is_block_free() and
 * mark_block_allocated() are each synchronised by `vec_lock`, but a
 * thread's find / check / mark sequence is meant to be one atomic step.
 *
 * Kind: atomicity-racefree (c=2, v=1: the single variable is the `used`
 * flag of the block both threads find).  Thread A finds block b (the read
 * of used[] on the first BUG line), is preempted, thread B finds the same
 * b, checks and marks it, then A checks b (second BUG line) and finds it
 * taken.
 * Failure: assert(is_block_free(b)) in alloc_one (abort).
 * Natural run: passes (each thread's sequence is short).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NBLOCKS 8

static pthread_mutex_t vec_lock = PTHREAD_MUTEX_INITIALIZER;
static int used[NBLOCKS];
static int allocated;

static int find_free_block(void)
{
    int found = -1;
    pthread_mutex_lock(&vec_lock);
    for (int i = 0; i < NBLOCKS && found < 0; i++)
        if (!used[i]) /* BUG: A and B can both find block i free ... */
            found = i;
    pthread_mutex_unlock(&vec_lock);
    return found;
}

static int is_block_free(int b)
{
    pthread_mutex_lock(&vec_lock);
    int is_free = !used[b]; /* BUG: ... and A re-checks after B took it */
    pthread_mutex_unlock(&vec_lock);
    return is_free;
}

static void mark_block_allocated(int b)
{
    pthread_mutex_lock(&vec_lock);
    used[b] = 1;
    allocated++;
    pthread_mutex_unlock(&vec_lock);
}

static void free_all_blocks(void)
{
    pthread_mutex_lock(&vec_lock);
    for (int i = 0; i < NBLOCKS; i++)
        used[i] = 0;
    pthread_mutex_unlock(&vec_lock);
}

static void *alloc_one(void *arg)
{
    (void)arg;
    int b = find_free_block(); /* b may be taken after this ... */
    assert(b >= 0);
    assert(is_block_free(b)); /* ... and before this check */
    mark_block_allocated(b);
    free_all_blocks();
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, alloc_one, NULL);
    pthread_create(&b, NULL, alloc_one, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("allocated = %d\n", allocated);
    return allocated == 2 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */

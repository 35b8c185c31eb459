/* SPDX-License-Identifier: MIT */
/* u32pool.c - the chunks of u32pool.h: each list is cut from the newest
 * chunk; a list longer than a chunk gets one of its own.  Chunks are never
 * moved, so a list's address stays valid until fi_u32pool_free. */
#include "infer/u32pool.h"

#include <stdlib.h>

#define CHUNK 16384 /* values: 64 KB */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    uint32_t v[];
} chunk;

struct fi_u32pool {
    chunk *head; /* the newest; lists are cut from it */
};

uint32_t *fi_u32pool_alloc(fi_u32pool **pool, size_t n)
{
    if (n == 0)
        n = 1;
    if (!*pool && !(*pool = calloc(1, sizeof **pool)))
        return NULL;
    chunk *h = (*pool)->head;
    if (!h || h->cap - h->used < n) {
        size_t cap = n > CHUNK ? n : CHUNK;
        chunk *c = malloc(sizeof *c + cap * sizeof c->v[0]);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        if (h && n > CHUNK) { /* a long list: keep cutting from head */
            c->next = h->next;
            h->next = c;
            c->used = n;
            return c->v;
        }
        c->next = h;
        (*pool)->head = h = c;
    }
    uint32_t *v = h->v + h->used;
    h->used += n;
    return v;
}

void fi_u32pool_free(fi_u32pool **pool)
{
    if (!*pool)
        return;
    for (chunk *c = (*pool)->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(*pool);
    *pool = NULL;
}

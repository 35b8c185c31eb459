/* SPDX-License-Identifier: MIT */
/* heapmap.c - live heap objects as an ordered set of disjoint intervals
 * (glibc's tsearch red-black tree).  The comparator calls two intervals
 * equal when they overlap; live blocks never overlap, so this is a total
 * order on the set, and looking up a one-byte interval finds the block
 * that contains an address in O(log n).  A MALLOC that overlaps a block
 * still thought live (its FREE was not recorded) replaces it. */
#define _GNU_SOURCE
#include "recorder/heapmap.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A thread's open function activations: their call sites (the first
 * MAX_DEPTH of them; depth counts them all, so exits stay paired; deeper
 * than that, an allocation's callers are not known).  At most MAX_TIDS
 * threads are followed: a hostile trace costs at most 64 MB here. */
#define MAX_DEPTH 256
#define MAX_TIDS 65536

typedef struct calls {
    uint32_t *site;
    uint32_t depth, cap;
} calls;

struct ft_heapmap {
    void *root;
    uint64_t live, peak;
    calls *thr;
    uint32_t nthr;
};

static int cmp_interval(const void *a, const void *b)
{
    const ft_heap_obj *x = a, *y = b;
    uint64_t xs = x->size ? x->size : 1, ys = y->size ? y->size : 1;
    if (x->addr + xs <= y->addr && x->addr < y->addr)
        return -1;
    if (y->addr + ys <= x->addr && y->addr < x->addr)
        return 1;
    return 0;
}

ft_heapmap *ft_heapmap_new(void)
{
    return calloc(1, sizeof(ft_heapmap));
}

void ft_heapmap_free(ft_heapmap *h)
{
    if (!h)
        return;
    tdestroy(h->root, free);
    for (uint32_t t = 0; t < h->nthr; t++)
        free(h->thr[t].site);
    free(h->thr);
    free(h);
}

static void remove_overlapping(ft_heapmap *h, const ft_heap_obj *key)
{
    void *node;
    while ((node = tfind(key, &h->root, cmp_interval))) {
        ft_heap_obj *o = *(ft_heap_obj **)node;
        tdelete(o, &h->root, cmp_interval);
        free(o);
        h->live--;
    }
}

static int add(ft_heapmap *h, const ft_event *ev)
{
    ft_heap_obj *o = malloc(sizeof *o);
    if (!o)
        return -1;
    *o = (ft_heap_obj){ev->addr, ev->value, ev->site, ev->value2, ev->index,
                       {0}};
    const calls *c = ev->tid < h->nthr ? &h->thr[ev->tid] : NULL;
    uint32_t n = c && c->depth <= c->cap ? c->depth : 0;
    for (uint32_t i = 0; i < FT_HEAP_CALLERS && i < n; i++)
        o->caller[i] = c->site[n - 1 - i];
    /* an interval wrapping past 2^64 is clipped to the top of memory */
    if (o->addr + o->size < o->addr)
        o->size = UINT64_MAX - o->addr;
    remove_overlapping(h, o);
    if (!tsearch(o, &h->root, cmp_interval)) {
        free(o);
        return -1;
    }
    if (++h->live > h->peak)
        h->peak = h->live;
    return 0;
}

static void drop(ft_heapmap *h, uint64_t addr)
{
    ft_heap_obj key = {.addr = addr, .size = 1};
    void *node = tfind(&key, &h->root, cmp_interval);
    if (!node)
        return;
    ft_heap_obj *o = *(ft_heap_obj **)node;
    if (o->addr != addr)
        return; /* freeing an interior pointer: not a block start */
    tdelete(o, &h->root, cmp_interval);
    free(o);
    h->live--;
}

static calls *thread_calls(ft_heapmap *h, uint32_t tid)
{
    if (tid >= MAX_TIDS)
        return NULL;
    if (tid >= h->nthr) {
        uint32_t n = h->nthr ? h->nthr : 8;
        while (n <= tid)
            n *= 2;
        calls *t = realloc(h->thr, n * sizeof *t);
        if (!t)
            return NULL;
        for (uint32_t i = h->nthr; i < n; i++)
            t[i] = (calls){0};
        h->thr = t;
        h->nthr = n;
    }
    return &h->thr[tid];
}

static int enter(ft_heapmap *h, const ft_event *ev)
{
    calls *c = thread_calls(h, ev->tid);
    if (!c)
        return ev->tid >= MAX_TIDS ? 0 : -1;
    if (c->depth < MAX_DEPTH && c->depth == c->cap) {
        uint32_t n = c->cap ? 2 * c->cap : 16;
        uint32_t *s = realloc(c->site, n * sizeof *s);
        if (!s)
            return -1;
        c->site = s;
        c->cap = n;
    }
    if (c->depth < c->cap)
        c->site[c->depth] = (uint32_t)ev->value;
    c->depth++;
    return 0;
}

int ft_heapmap_update(ft_heapmap *h, const ft_event *ev)
{
    switch (ev->kind) {
    case FT_EV_FUNC_ENTRY:
        return enter(h, ev);
    case FT_EV_FUNC_EXIT:
        if (ev->tid < h->nthr && h->thr[ev->tid].depth)
            h->thr[ev->tid].depth--;
        return 0;
    case FT_EV_MALLOC:
        return ev->addr ? add(h, ev) : 0;
    case FT_EV_FREE:
        drop(h, ev->addr);
        return 0;
    case FT_EV_REALLOC:
        drop(h, ev->obj2);
        return ev->addr ? add(h, ev) : 0;
    default:
        return 0;
    }
}

const ft_heap_obj *ft_heapmap_find(const ft_heapmap *h, uint64_t addr)
{
    ft_heap_obj key = {.addr = addr, .size = 1};
    void *node = tfind(&key, (void *const *)&h->root, cmp_interval);
    return node ? *(ft_heap_obj **)node : NULL;
}

uint64_t ft_heapmap_live(const ft_heapmap *h) { return h->live; }
uint64_t ft_heapmap_peak(const ft_heapmap *h) { return h->peak; }

const char *ft_heap_obj_name(const ft_reader *r, const ft_heap_obj *o,
                             uint64_t addr, char *buf, size_t len)
{
    char raw[256], user[256], off[32] = "";
    ft_site_format(r, o->site, raw, sizeof raw);
    /* allocated in a system header's code (std::vector's
     * new_allocator.h): named by where that code entered the program,
     * inlined, or by the innermost caller in the program's own code, with
     * the allocating site's file:line and count after it, which keep two
     * blocks allocated there apart ("main.cc:30[new_allocator.h:137#1]") */
    int named = ft_site_format_user(r, o->site, user, sizeof user) != NULL;
    for (int i = 0; !named && i < FT_HEAP_CALLERS && o->caller[i]; i++)
        named = ft_site_format_user(r, o->caller[i], user, sizeof user) != NULL;
    if (addr != o->addr)
        snprintf(off, sizeof off, "+%llu", (unsigned long long)(addr - o->addr));
    if (named && strcmp(user, raw) != 0) {
        const char *base = strrchr(raw, '/');
        snprintf(buf, len, "%s[%s#%llu]%s", user, base ? base + 1 : raw,
                 (unsigned long long)o->count, off);
    } else {
        snprintf(buf, len, "%s#%llu%s", raw, (unsigned long long)o->count,
                 off);
    }
    return buf;
}

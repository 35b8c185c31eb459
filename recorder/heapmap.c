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

struct ft_heapmap {
    void *root;
    uint64_t live, peak;
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
    *o = (ft_heap_obj){ev->addr, ev->value, ev->site, ev->value2, ev->index};
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

int ft_heapmap_update(ft_heapmap *h, const ft_event *ev)
{
    switch (ev->kind) {
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
    char site[256];
    /* allocated in code inlined from a system header (std::vector's
     * new_allocator.h): named by where that code entered the program */
    if (!ft_site_format_user(r, o->site, site, sizeof site))
        ft_site_format(r, o->site, site, sizeof site);
    if (addr == o->addr)
        snprintf(buf, len, "%s#%llu", site, (unsigned long long)o->count);
    else
        snprintf(buf, len, "%s#%llu+%llu", site, (unsigned long long)o->count,
                 (unsigned long long)(addr - o->addr));
    return buf;
}

/* SPDX-License-Identifier: MIT */
/* heapmap.h - live heap objects while streaming a trace, so that an
 * address can be named by the allocation that owns it: (site, count) is
 * stable across runs whatever address ASLR gave the block
 * (docs/trace-format.md, MALLOC).  Used by dump and stats; any stage that
 * names heap objects can feed it the same events. */
#ifndef FORETELL_HEAPMAP_H
#define FORETELL_HEAPMAP_H

#include "recorder/trace.h"

#define FT_HEAP_CALLERS 4

typedef struct ft_heap_obj {
    uint64_t addr, size;
    uint32_t site;      /* allocation site */
    uint64_t count;     /* allocation number at that site, from 1 */
    uint64_t alloc_index; /* event index of the MALLOC/REALLOC */
    /* the call sites of the allocating thread's innermost open function
     * activations (FUNC_ENTRY), innermost first, 0 past the last: a block
     * allocated inside a system header's code is named by the first of
     * them in the program's own code */
    uint32_t caller[FT_HEAP_CALLERS];
} ft_heap_obj;

typedef struct ft_heapmap ft_heapmap;

ft_heapmap *ft_heapmap_new(void);
void ft_heapmap_free(ft_heapmap *h);

/* Applies MALLOC, FREE and REALLOC, and follows each thread's calls
 * (FUNC_ENTRY, FUNC_EXIT) for the callers of an allocation; ignores other
 * kinds.  0, or -1 when out of memory. */
int ft_heapmap_update(ft_heapmap *h, const ft_event *ev);

/* The live object containing addr, or NULL. */
const ft_heap_obj *ft_heapmap_find(const ft_heapmap *h, uint64_t addr);

/* Objects live now, and the most that were live at once. */
uint64_t ft_heapmap_live(const ft_heapmap *h);
uint64_t ft_heapmap_peak(const ft_heapmap *h);

/* "site#count+off" into buf: the site as ft_site_format_user prints it,
 * else the first of the callers it prints, else as ft_site_format does. */
const char *ft_heap_obj_name(const ft_reader *r, const ft_heap_obj *o,
                             uint64_t addr, char *buf, size_t len);

#endif

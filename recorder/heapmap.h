/* SPDX-License-Identifier: MIT */
/* heapmap.h - live heap objects while streaming a trace, so that an
 * address can be named by the allocation that owns it: (site, count) is
 * stable across runs whatever address ASLR gave the block
 * (docs/trace-format.md, MALLOC).  Used by dump and stats; any stage that
 * names heap objects can feed it the same events. */
#ifndef FORETELL_HEAPMAP_H
#define FORETELL_HEAPMAP_H

#include "recorder/trace.h"

typedef struct ft_heap_obj {
    uint64_t addr, size;
    uint32_t site;      /* allocation site */
    uint64_t count;     /* allocation number at that site, from 1 */
    uint64_t alloc_index; /* event index of the MALLOC/REALLOC */
} ft_heap_obj;

typedef struct ft_heapmap ft_heapmap;

ft_heapmap *ft_heapmap_new(void);
void ft_heapmap_free(ft_heapmap *h);

/* Applies MALLOC, FREE and REALLOC; ignores other kinds.  0, or -1 when
 * out of memory. */
int ft_heapmap_update(ft_heapmap *h, const ft_event *ev);

/* The live object containing addr, or NULL. */
const ft_heap_obj *ft_heapmap_find(const ft_heapmap *h, uint64_t addr);

/* Objects live now, and the most that were live at once. */
uint64_t ft_heapmap_live(const ft_heapmap *h);
uint64_t ft_heapmap_peak(const ft_heapmap *h);

/* "site#count+off" (site as ft_site_format prints it) into buf. */
const char *ft_heap_obj_name(const ft_reader *r, const ft_heap_obj *o,
                             uint64_t addr, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* fuzz_reader.c - libFuzzer target for the trace reader: any bytes are
 * opened as a trace, every event is streamed (twice, across a rewind),
 * and the consumers that trust decoded events (consistency checker, heap
 * map, field table, site formatting, names and values by TYPES) run on
 * them.  Whatever the input,
 * the reader must not crash, read out of bounds, or allocate without
 * bound (run with -malloc_limit_mb). */
#include "recorder/event_format.h"
#include "recorder/heapmap.h"
#include "recorder/trace.h"

#include "tests/fuzz/fuzz_mem.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ft_reader *r = fuzz_trace(data, size);
    if (!r)
        return 0;
    ft_error err;
    const ft_header *h = ft_reader_header(r);
    size_t sink = strlen(h->program);
    for (uint32_t i = 0; i < h->argc; i++)
        sink += strlen(h->argv[i]);
    for (uint32_t i = 0; i < h->nmodules; i++)
        sink += strlen(h->modules[i].path) + strlen(h->modules[i].build_id);
    char buf[256];
    ft_heapmap *heap = ft_heapmap_new();
    ft_event ev;
    ft_field f[FT_MAX_FIELDS];
    while (ft_reader_next(r, &ev) == 1) {
        ft_heapmap_update(heap, &ev);
        unsigned n = ft_event_fields(&ev, f);
        for (unsigned i = 0; i < n; i++)
            if (f[i].type == FT_F_ADDR) {
                const ft_heap_obj *o = ft_heapmap_find(heap, f[i].u);
                if (o)
                    ft_heap_obj_name(r, o, f[i].u, buf, sizeof buf);
            }
        /* names and values by the TYPES chunk's types, as dump does */
        uint32_t type = 0;
        char val[64];
        const ft_heap_obj *o = ft_heapmap_find(heap, ev.addr);
        if (o)
            ft_reader_heap_name(r, ev.site, o->addr, o->size, ev.addr,
                                ev.size, buf, sizeof buf, &type);
        else
            ft_reader_mem_name(r, ev.addr, ev.size, buf, sizeof buf, &type);
        if (ft_reader_value_text(r, type, ev.value, ev.size, val, sizeof val))
            sink += strlen(val);
        for (uint32_t k = 0; k < ev.nbytes; k++)
            sink += ev.bytes[k];
        ft_site_format(r, ev.site, buf, sizeof buf);
    }
    ft_heapmap_free(heap);
    ft_check_consistency(r, NULL, 0);
    ft_reader_damage(r, &err);
    for (uint32_t i = 0; i < ft_reader_nsites(r); i++)
        ft_site_format(r, ft_reader_site_at(r, i)->id, buf, sizeof buf);
    const ft_end *end = ft_reader_end(r);
    if (end->present)
        sink += strlen(end->reason);
    ft_reader_close(r);
    return sink == (size_t)-1;
}

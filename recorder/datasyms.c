/* SPDX-License-Identifier: MIT */
/* datasyms.c - naming addresses by the global and static variables that
 * hold them.  The symboliser appends each instrumented module's data
 * symbols (ELF STT_OBJECT with a size) as DATA chunks after the run, so
 * a report can say "counter" or "table+16" instead of an address that
 * changes with ASLR, on a machine without the binary. */
#include "recorder/reader_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int by_module_offset(const void *a, const void *b)
{
    const ft_datasym *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void ft_meta_finish_data(ft_reader *r)
{
    if (r->ndata > 1)
        qsort(r->data, r->ndata, sizeof *r->data, by_module_offset);
}

/* The symbol of module m covering off: the last one starting at or before
 * off, if off lies inside it (symbols may nest; the innermost-starting
 * one wins, which is the more specific name). */
static const ft_datasym *find(const ft_reader *r, uint32_t m, uint64_t off)
{
    size_t lo = 0, hi = r->ndata;
    while (lo < hi) { /* first entry greater than (m, off) */
        size_t mid = lo + (hi - lo) / 2;
        const ft_datasym *d = &r->data[mid];
        if (d->module < m || (d->module == m && d->offset <= off))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        const ft_datasym *d = &r->data[i];
        if (d->module != m)
            break;
        if (off - d->offset < d->size)
            return d;
        if (off - d->offset > ((uint64_t)1 << 24))
            break; /* nothing this far back is big enough to matter */
    }
    return NULL;
}

const char *ft_reader_data_name(const ft_reader *r, uint64_t addr, char *buf,
                                size_t len)
{
    if (!r->ndata || !len)
        return NULL;
    for (uint32_t m = 0; m < r->nmodules; m++) {
        const ft_module *mod = &r->modules[m];
        if (addr < mod->base || (mod->size && addr - mod->base >= mod->size))
            continue;
        const ft_datasym *d = find(r, m, addr - mod->base);
        if (!d)
            continue;
        uint64_t rel = addr - mod->base - d->offset;
        if (rel)
            snprintf(buf, len, "%s+%" PRIu64, d->name, rel);
        else
            snprintf(buf, len, "%s", d->name);
        return buf;
    }
    return NULL;
}

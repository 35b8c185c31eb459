/* SPDX-License-Identifier: MIT */
/* datasyms.c - naming addresses by the global and static variables that
 * hold them.  The symboliser appends each instrumented module's data
 * symbols (ELF STT_OBJECT with a size) as DATA chunks after the run, so
 * a report can say "counter" or "table+16" instead of an address that
 * changes with ASLR, on a machine without the binary; and, from DWARF,
 * the types of the globals the run touched and of the heap structs its
 * source lines dereference (TYPES), so that it can say "balance[1]",
 * "pool->completed" and print 100 rather than 0x64. */
#include "recorder/reader_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_module_offset(const void *a, const void *b)
{
    const ft_datasym *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int vartype_order(const void *a, const void *b)
{
    const ft_vartype *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void ft_meta_finish_data(ft_reader *r)
{
    if (r->ndata > 1)
        qsort(r->data, r->ndata, sizeof *r->data, by_module_offset);
    if (r->nvartypes > 1)
        qsort(r->vartypes, r->nvartypes, sizeof *r->vartypes,
              vartype_order);
    ft_typetab_finish(&r->types);
}

/* The type of the global at (m, off) exactly, 0 unknown. */
static uint32_t var_type(const ft_reader *r, uint32_t m, uint64_t off)
{
    size_t lo = 0, hi = r->nvartypes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ft_vartype *v = &r->vartypes[mid];
        if (v->module == m && v->offset == off)
            return v->type;
        if (v->module < m || (v->module == m && v->offset < off))
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
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
    return ft_reader_mem_name(r, addr, 0, buf, len, NULL);
}

const char *ft_reader_mem_name(const ft_reader *r, uint64_t addr,
                               uint64_t size, char *buf, size_t len,
                               uint32_t *type)
{
    if (type)
        *type = 0;
    if (!len)
        return NULL;
    const ft_module *within = NULL; /* a module whose extent holds addr */
    for (uint32_t m = 0; m < r->nmodules; m++) {
        const ft_module *mod = &r->modules[m];
        if (addr < mod->base || (mod->size && addr - mod->base >= mod->size))
            continue;
        if (mod->size && !within)
            within = mod;
        const ft_datasym *d = r->ndata ? find(r, m, addr - mod->base) : NULL;
        if (!d)
            continue;
        uint64_t rel = addr - mod->base - d->offset;
        uint32_t vt = var_type(r, m, d->offset);
        if (vt) { /* the path inside it, as the program spells it */
            snprintf(buf, len, "%s", d->name);
            ft_typetab_path(&r->types, vt, rel, size, buf, len, type);
        } else if (rel)
            snprintf(buf, len, "%s+%" PRIu64, d->name, rel);
        else
            snprintf(buf, len, "%s", d->name);
        return buf;
    }
    if (within && within->path) { /* no symbol (stripped): module+offset */
        const char *base = strrchr(within->path, '/');
        snprintf(buf, len, "%s+0x%" PRIx64, base ? base + 1 : within->path,
                 addr - within->base);
        return buf;
    }
    return NULL;
}

const char *ft_reader_value_text(const ft_reader *r, uint32_t type,
                                 uint64_t value, uint64_t size, char *buf,
                                 size_t len)
{
    return type ? ft_typetab_value(&r->types, type, value, size, buf, len)
                : NULL;
}

const char *ft_reader_heap_name(const ft_reader *r, uint32_t site,
                                uint64_t obj, uint64_t obj_size,
                                uint64_t addr, uint64_t size, char *buf,
                                size_t len, uint32_t *type)
{
    const ft_typetab *t = &r->types;
    size_t lo = 0, hi = t->nderefs;
    if (type)
        *type = 0;
    if (!site || addr < obj || addr - obj >= obj_size || !len)
        return NULL;
    while (lo < hi) { /* the first dereference of site */
        size_t mid = lo + (hi - lo) / 2;
        if (t->derefs[mid].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    char name[256], found[256] = "";
    uint32_t found_type = 0;
    for (size_t i = lo; i < t->nderefs && t->derefs[i].site == site; i++) {
        const ft_tderef *d = &t->derefs[i];
        const ft_type *ty = ft_typetab_get(t, d->type);
        uint64_t off = addr - obj;
        if (!ty || !ty->size)
            continue;
        if (off >= ty->size) { /* an array of them: the same member */
            if (obj_size % ty->size)
                continue;
            off %= ty->size;
        }
        uint32_t leaf = 0;
        snprintf(name, sizeof name, "%s->", d->base);
        const char *first = ft_typetab_path(t, d->type, off, size, name,
                                            sizeof name, &leaf);
        if (strcmp(first, d->field) != 0)
            continue; /* the access is not that member */
        if (found[0] && strcmp(found, name) != 0)
            return NULL; /* two expressions of the line fit: say neither */
        snprintf(found, sizeof found, "%s", name);
        found_type = leaf;
    }
    if (!found[0])
        return NULL;
    snprintf(buf, len, "%s", found);
    if (type)
        *type = found_type;
    return buf;
}

/* SPDX-License-Identifier: MIT */
/* varnames.c - what the reports call a variable and how they print its
 * values: infer/'s variables named once per trace (a global from the
 * trace's DATA and TYPES chunks, a heap member as its accesses' source
 * lines name it, else a heap object by allocation site and count), and
 * a value printed by the variable's type when the trace has it.  Kept
 * apart from pipeline.c, which orchestrates the stages. */
#include "predict/predict.h"
#include "recorder/heapmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *var_name_cb(const void *pl, uint64_t addr, char *buf,
                               size_t len)
{
    return ft_pipeline_var_name(pl, addr, buf, len);
}

static const char *var_value_cb(const void *pl, uint64_t addr,
                                uint64_t value, char *buf, size_t len)
{
    return ft_pipeline_var_value(pl, addr, value, buf, len);
}

struct ft_heap_type {
    uint64_t key;
    uint32_t type;
};

static int by_heap_key(const void *a, const void *b)
{
    const struct ft_heap_type *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Gives infer/'s variables their names (a global from the trace's DATA
 * and TYPES chunks, else a heap object as its accesses' source lines
 * name it, "pool->completed", else by allocation site and count) so
 * that --regions, --properties and the reports print them.  One pass
 * over the events: a heap variable's accesses are tried in turn until
 * one's line names it; none does: the object live at its first access. */
int ft_pipeline_name_vars(ft_pipeline *pl)
{
    if (!pl->names || !pl->infer.var_of)
        return 0;
    const fi_trace *t = &pl->trace;
    uint8_t *done = calloc(pl->infer.nvars + 1, 1); /* 1 named, 2 heap */
    char **fallback = calloc(pl->infer.nvars + 1, sizeof *fallback);
    ft_heapmap *h = ft_heapmap_new();
    size_t cap = 0;
    int rc = done && fallback && h ? 0 : -1;
    char buf[256], obj[240];
    for (size_t i = 0; rc == 0 && i < t->nev; i++) {
        ft_event full;
        fi_trace_get(t, i, &full);
        const ft_event *ev = &full;
        if (ft_heapmap_update(h, ev) < 0) {
            rc = -1;
            break;
        }
        uint32_t v = pl->infer.var_of[i];
        if (v >= pl->infer.nvars || done[v] == 1)
            continue;
        uint64_t key = pl->infer.vars[v].key;
        const ft_heap_obj *o;
        const char *n = NULL;
        int access =
            (ev->kind >= FT_EV_READ && ev->kind <= FT_EV_WRITE_WIDE) ||
            (ev->kind >= FT_EV_ATOMIC_LOAD && ev->kind <= FT_EV_ATOMIC_CAS);
        uint64_t size = access && ev->addr == key ? ev->size : 0;
        if (!done[v])
            n = ft_reader_mem_name(pl->names, key, size, buf, sizeof buf,
                                   NULL);
        uint32_t type = 0;
        if (!n && (o = ft_heapmap_find(h, key)) != NULL) {
            n = ft_reader_heap_name(pl->names, ev->site, o->addr, o->size,
                                    key, size, buf, sizeof buf, &type);
            if (!n && !done[v]) { /* the object's name, unless a later
                                     access's line names it */
                ft_heap_obj_name(pl->names, o, key, obj, sizeof obj);
                snprintf(buf, sizeof buf, "heap@%s", obj);
                if (!(fallback[v] = strdup(buf)))
                    rc = -1;
                done[v] = 2;
                continue;
            }
        }
        if (!n && done[v])
            continue; /* this line does not name it either */
        if (type && pl->nheap_types == cap) {
            cap = cap ? 2 * cap : 64;
            struct ft_heap_type *ht = realloc(pl->heap_types,
                                              cap * sizeof *ht);
            if (!ht) {
                rc = -1;
                break;
            }
            pl->heap_types = ht;
        }
        if (type)
            pl->heap_types[pl->nheap_types++] = (struct ft_heap_type){key,
                                                                      type};
        done[v] = 1;
        if (n && !fi_trace_name_of(t, 'V', key) &&
            fi_trace_name(&pl->trace, 'V', key, n) < 0)
            rc = -1;
    }
    for (uint32_t v = 0; v < pl->infer.nvars && done && fallback; v++) {
        uint64_t key = pl->infer.vars[v].key;
        if (rc == 0 && done[v] == 2 && !fi_trace_name_of(t, 'V', key) &&
            fi_trace_name(&pl->trace, 'V', key, fallback[v]) < 0)
            rc = -1;
        free(fallback[v]);
    }
    if (pl->nheap_types > 1)
        qsort(pl->heap_types, pl->nheap_types, sizeof *pl->heap_types,
              by_heap_key);
    free(fallback);
    free(done);
    ft_heapmap_free(h);
    return rc;
}

void ft_pipeline_var_callbacks(ft_trace_info *ti)
{
    ti->var_name = var_name_cb;
    ti->var_value = var_value_cb;
}

const char *ft_pipeline_var_name(const ft_pipeline *pl, uint64_t key,
                                 char *buf, size_t len)
{
    const char *n = fi_trace_name_of(&pl->trace, 'V', key);
    if (n)
        return n;
    if (pl->names && (n = ft_reader_data_name(pl->names, key, buf, len)))
        return n;
    /* The last allocation covering key: the object the report's accesses
     * touched, unless the address was reused after them (then an earlier
     * object's name would be as likely; the last is as good a guess). */
    for (size_t i = pl->trace.nev; pl->names && i-- > 0;) {
        const fi_event *ev = &pl->trace.ev[i];
        if ((ev->kind == FT_EV_MALLOC || ev->kind == FT_EV_REALLOC) &&
            key >= ev->addr && key - ev->addr < ev->value) {
            ft_heap_obj o = {.addr = ev->addr, .size = ev->value,
                             .site = ev->site,
                             .count = fi_trace_extra(&pl->trace, i)->value2};
            char obj[240];
            ft_heap_obj_name(pl->names, &o, key, obj, sizeof obj);
            snprintf(buf, len, "heap@%s", obj);
            return buf;
        }
    }
    snprintf(buf, len, "0x%" PRIx64, key);
    return buf;
}

const char *ft_pipeline_var_value(const ft_pipeline *pl, uint64_t key,
                                  uint64_t value, char *buf, size_t len)
{
    uint32_t type = 0;
    char name[256];
    if (pl->names &&
        !ft_reader_mem_name(pl->names, key, 0, name, sizeof name, &type)) {
        size_t lo = 0, hi = pl->nheap_types; /* a heap member's type */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (pl->heap_types[mid].key == key) {
                type = pl->heap_types[mid].type;
                break;
            }
            if (pl->heap_types[mid].key < key)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (type && ft_reader_value_text(pl->names, type, value, 0, buf, len))
        return buf;
    return NULL;
}

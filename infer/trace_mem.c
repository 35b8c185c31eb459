/* SPDX-License-Identifier: MIT */
/* trace_mem.c - fi_trace, the in-memory event stream the inference works
 * on: growable arrays of compact events (fi_event, with the rare fields in
 * a side table) and sites, site deduplication (the STD importer
 * creates one site per distinct location, so it must not be quadratic) and
 * the object-name table that lets STD round trips keep the user's names. */
#include "infer/infer.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct fi_site_index {
    uint32_t *slot; /* site ids, 0 empty */
    size_t cap;     /* power of two */
};

void fi_trace_init(fi_trace *t)
{
    memset(t, 0, sizeof *t);
}

void fi_trace_free(fi_trace *t)
{
    for (uint32_t i = 0; i < t->nsites; i++) {
        free((char *)t->sites[i].function);
        free((char *)t->sites[i].file);
    }
    for (size_t i = 0; i < t->nnames; i++)
        free(t->names[i].name);
    if (t->site_index)
        free(t->site_index->slot);
    free(t->site_index);
    free(t->ev);
    free(t->extra);
    free(t->wide);
    free(t->wbytes);
    free(t->sites);
    free(t->names);
    memset(t, 0, sizeof *t);
}

int fi_trace_reserve(fi_trace *t, size_t n)
{
    if (n <= t->capev)
        return 0;
    fi_event *e = realloc(t->ev, n * sizeof *e);
    if (!e)
        return -1;
    t->ev = e;
    t->capev = n;
    return 0;
}

void fi_trace_shrink(fi_trace *t)
{
    if (!t->nev) { /* a reservation for events that never came */
        free(t->ev);
        t->ev = NULL;
        t->capev = 0;
    } else if (t->nev < t->capev) {
        fi_event *e = realloc(t->ev, t->nev * sizeof *e);
        if (e) { /* a failed shrink keeps the larger block */
            t->ev = e;
            t->capev = t->nev;
        }
    }
}

static int add_extra(fi_trace *t, const ft_event *ev)
{
    if (t->nextra == t->capextra) {
        size_t cap = t->capextra ? 2 * t->capextra : 64;
        fi_extra *n = realloc(t->extra, cap * sizeof *n);
        if (!n)
            return -1;
        t->extra = n;
        t->capextra = cap;
    }
    t->extra[t->nextra++] =
        (fi_extra){t->nev, ev->obj2, ev->value2, ev->value3, ev->rc};
    return 0;
}

/* Keeps a wide access's contents when they are short or one byte
 * repeated (a memset's): what the model's values need (fi_wide). */
static int add_wide(fi_trace *t, const ft_event *ev)
{
    if (!ev->bytes || !ev->nbytes)
        return 0;
    int uniform = 1;
    for (uint32_t i = 1; i < ev->nbytes && uniform && !ev->uniform; i++)
        uniform = ev->bytes[i] == ev->bytes[0];
    if (!uniform && ev->nbytes > FI_WIDE_KEEP)
        return 0;
    uint32_t n = uniform ? 1 : ev->nbytes;
    if (t->nwide == t->capwide) {
        size_t cap = t->capwide ? 2 * t->capwide : 64;
        fi_wide *w = realloc(t->wide, cap * sizeof *w);
        if (!w)
            return -1;
        t->wide = w;
        t->capwide = cap;
    }
    if (t->nwbytes + n > t->capwbytes) {
        size_t cap = t->capwbytes ? 2 * t->capwbytes : 1024;
        while (cap < t->nwbytes + n)
            cap *= 2;
        uint8_t *b = realloc(t->wbytes, cap);
        if (!b)
            return -1;
        t->wbytes = b;
        t->capwbytes = cap;
    }
    memcpy(t->wbytes + t->nwbytes, ev->bytes, n);
    t->wide[t->nwide++] = (fi_wide){t->nev, t->nwbytes, n, (uint8_t)uniform};
    t->nwbytes += n;
    return 0;
}

static int rc_fits(int32_t rc)
{
    return rc > FI_RC_WIDE && rc <= INT16_MAX;
}

int fi_trace_add(fi_trace *t, const ft_event *ev)
{
    /* the readers never give more (fi_event) */
    if (ev->tid > UINT16_MAX || ev->kind > UINT8_MAX) {
        errno = ERANGE;
        return -1;
    }
    if (t->nev == t->capev &&
        fi_trace_reserve(t, t->capev ? 2 * t->capev : 1024) < 0)
        return -1;
    int wide = !rc_fits(ev->rc);
    if ((ev->obj2 || ev->value2 || ev->value3 || wide) &&
        add_extra(t, ev) < 0)
        return -1;
    if ((ev->kind == FT_EV_READ_WIDE || ev->kind == FT_EV_WRITE_WIDE) &&
        add_wide(t, ev) < 0)
        return -1;
    t->ev[t->nev++] = (fi_event){
        .addr = ev->addr, .value = ev->value, .tid = (uint16_t)ev->tid,
        .site = ev->site, .arg = ev->arg,
        .rc = wide ? FI_RC_WIDE : (int16_t)ev->rc,
        .kind = (uint8_t)ev->kind, .size = ev->size, .mo = ev->mo};
    if (ev->tid >= t->nthreads)
        t->nthreads = ev->tid + 1;
    return 0;
}

/* The first of n side-table entries of `size` bytes, each starting with
 * its event index (uint64_t), whose index is not below i: the side
 * tables (extra, wide) are by index. */
_Static_assert(offsetof(fi_extra, index) == 0, "index first");
_Static_assert(offsetof(fi_wide, index) == 0, "index first");

static size_t lower_index(const void *table, size_t n, size_t size, size_t i)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t at;
        memcpy(&at, (const char *)table + mid * size, sizeof at);
        if (at < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const fi_extra *fi_trace_extra(const fi_trace *t, size_t i)
{
    static const fi_extra none;
    size_t lo = lower_index(t->extra, t->nextra, sizeof *t->extra, i);
    return lo < t->nextra && t->extra[lo].index == i ? &t->extra[lo] : &none;
}

void fi_trace_get(const fi_trace *t, size_t i, ft_event *out)
{
    const fi_event *e = &t->ev[i];
    const fi_extra *x = fi_trace_extra(t, i);
    *out = (ft_event){.index = i, .tid = e->tid, .kind = e->kind,
                      .size = e->size, .site = e->site, .arg = e->arg,
                      .addr = e->addr, .obj2 = x->obj2, .value = e->value,
                      .value2 = x->value2, .value3 = x->value3,
                      .rc = e->rc == FI_RC_WIDE ? x->rc : e->rc,
                      .mo = e->mo};
    if (e->kind != FT_EV_READ_WIDE && e->kind != FT_EV_WRITE_WIDE)
        return;
    size_t lo = lower_index(t->wide, t->nwide, sizeof *t->wide, i);
    if (lo < t->nwide && t->wide[lo].index == i) {
        out->bytes = t->wbytes + t->wide[lo].at;
        out->nbytes = t->wide[lo].n;
        out->uniform = t->wide[lo].uniform;
    }
}

static uint64_t str_hash(const char *s, uint64_t h)
{
    if (!s)
        return h * 31 + 7;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t site_hash(const char *function, const char *file,
                          uint32_t line)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = str_hash(function, h);
    h = str_hash(file, h);
    return (h ^ line) * 0x9e3779b97f4a7c15ull;
}

static int str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int index_put(struct fi_site_index *ix, const ft_site *s)
{
    size_t mask = ix->cap - 1;
    size_t i = site_hash(s->function, s->file, s->line) & mask;
    while (ix->slot[i])
        i = (i + 1) & mask;
    ix->slot[i] = s->id;
    return 0;
}

static int index_grow(fi_trace *t)
{
    struct fi_site_index *ix = t->site_index;
    size_t cap = ix->cap ? 2 * ix->cap : 256;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    for (uint32_t i = 0; i < t->nsites; i++)
        index_put(ix, &t->sites[i]);
    return 0;
}

uint32_t fi_trace_site(fi_trace *t, const char *function, const char *file,
                       uint32_t line)
{
    if (!t->site_index && !(t->site_index = calloc(1, sizeof *t->site_index)))
        return 0;
    struct fi_site_index *ix = t->site_index;
    if (2 * (t->nsites + 1) > ix->cap && index_grow(t) < 0)
        return 0;
    size_t mask = ix->cap - 1;
    for (size_t i = site_hash(function, file, line) & mask; ix->slot[i];
         i = (i + 1) & mask) {
        const ft_site *s = &t->sites[ix->slot[i] - 1];
        if (s->line == line && str_eq(s->function, function) &&
            str_eq(s->file, file))
            return s->id;
    }
    if (t->nsites == t->capsites) {
        uint32_t cap = t->capsites ? 2 * t->capsites : 64;
        ft_site *n = realloc(t->sites, cap * sizeof *n);
        if (!n)
            return 0;
        t->sites = n;
        t->capsites = cap;
    }
    ft_site *s = &t->sites[t->nsites];
    memset(s, 0, sizeof *s);
    s->function = function ? strdup(function) : NULL;
    s->file = file ? strdup(file) : NULL;
    if ((function && !s->function) || (file && !s->file)) {
        free((char *)s->function);
        free((char *)s->file);
        return 0;
    }
    s->line = line;
    s->id = ++t->nsites;
    index_put(ix, s);
    return s->id;
}

const ft_site *fi_trace_site_get(const fi_trace *t, uint32_t id)
{
    return id >= 1 && id <= t->nsites ? &t->sites[id - 1] : NULL;
}

int fi_trace_name(fi_trace *t, char ns, uint64_t key, const char *name)
{
    if (t->nnames == t->capnames) {
        size_t cap = t->capnames ? 2 * t->capnames : 64;
        fi_name *n = realloc(t->names, cap * sizeof *n);
        if (!n)
            return -1;
        t->names = n;
        t->capnames = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    t->names[t->nnames++] = (fi_name){ns, key, copy};
    return 0;
}

/* Linear: names are only looked up when exporting, once per object, by the
 * exporter's own cache. */
const char *fi_trace_name_of(const fi_trace *t, char ns, uint64_t key)
{
    for (size_t i = 0; i < t->nnames; i++)
        if (t->names[i].ns == ns && t->names[i].key == key)
            return t->names[i].name;
    return NULL;
}

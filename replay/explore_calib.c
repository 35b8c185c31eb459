/* explore_calib.c - what the strategies need to know about a program
 * before exploring it, read from one run recorded without preemption:
 * threads (PCT's n), events (PCT's k), lock acquisitions (RPro's k for
 * deadlocks), and for PCTVB the shared variables with their access
 * counts.  A variable is a global (module and offset: stable across runs
 * whatever ASLR does) or a heap allocation site (the paper's randomized
 * variant, section 3); its accesses are the plain reads and writes and,
 * for a lock (the paper's variables include synchronisation objects), the
 * acquisitions: what the runtime sees as variable accesses (atomics are
 * not among them). */
#define _GNU_SOURCE
#include "recorder/heapmap.h"
#include "replay/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vslot {
    uint64_t key;   /* 0 free; bit 63 heap, bits 48..62 module, low 48 offset */
    uint64_t count;
    int first_tid;
    int shared;
} vslot;

typedef struct vtab {
    vslot *s;
    size_t cap, used;
} vtab;

static vslot *vt_get(vtab *t, uint64_t key)
{
    if ((t->used + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 1024;
        vslot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->s[i].key)
                continue;
            size_t h = (size_t)(t->s[i].key * 0x9e3779b97f4a7c15ull) & (ncap - 1);
            while (ns[h].key)
                h = (h + 1) & (ncap - 1);
            ns[h] = t->s[i];
        }
        free(t->s);
        t->s = ns;
        t->cap = ncap;
    }
    size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull) & (t->cap - 1);
    while (t->s[h].key && t->s[h].key != key)
        h = (h + 1) & (t->cap - 1);
    if (!t->s[h].key) {
        t->s[h].key = key;
        t->s[h].first_tid = -1;
        t->used++;
    }
    return &t->s[h];
}

static uint64_t pack(int heap, uint64_t mod, uint64_t off)
{
    return ((uint64_t)heap << 63) | ((mod & 0x7fff) << 48) |
           (off & ((1ull << 47) - 1));
}

static int var_key(const ft_reader *r, const ft_heapmap *hm, uint64_t addr,
                   uint64_t *key)
{
    const ft_heap_obj *o = ft_heapmap_find(hm, addr);
    if (o) {
        const ft_site *s = ft_reader_site(r, o->site);
        if (!s)
            return 0;
        *key = pack(1, s->module, s->offset);
        return 1;
    }
    const ft_header *h = ft_reader_header(r);
    for (uint32_t m = 0; h && m < h->nmodules; m++) {
        const ft_module *mod = &h->modules[m];
        if (addr >= mod->base && addr < mod->base + mod->size) {
            /* offset 0 of module 0 would pack to 0: shift by one bit of
             * room (module offsets are < 2^47). */
            *key = pack(0, m, addr - mod->base) | (1ull << 47);
            return 1;
        }
    }
    return 0; /* stack or anonymous memory: not a variable */
}

int fx_calibrate(const char *trace, fx_calib *c, ft_error *err)
{
    memset(c, 0, sizeof *c);
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    ft_heapmap *hm = ft_heapmap_new();
    vtab vt = {0};
    ft_event ev;
    int rc = 0;
    while (ft_reader_next(r, &ev) == 1) {
        if (ev.tid + 1 > c->threads)
            c->threads = ev.tid + 1;
        int lock = ev.kind == FT_EV_MUTEX_LOCK || ev.kind == FT_EV_RW_RDLOCK ||
                   ev.kind == FT_EV_RW_WRLOCK;
        c->locks += lock;
        if (ev.kind == FT_EV_MALLOC || ev.kind == FT_EV_FREE ||
            ev.kind == FT_EV_REALLOC) {
            if (hm)
                ft_heapmap_update(hm, &ev);
            continue;
        }
        if (ev.kind != FT_EV_READ && ev.kind != FT_EV_WRITE &&
            ev.kind != FT_EV_READ_WIDE && ev.kind != FT_EV_WRITE_WIDE && !lock)
            continue;
        uint64_t key;
        if (!hm || !var_key(r, hm, ev.addr, &key))
            continue;
        vslot *v = vt_get(&vt, key);
        if (!v) {
            rc = -1;
            break;
        }
        v->count++;
        if (v->first_tid < 0)
            v->first_tid = (int)ev.tid;
        else if (v->first_tid != (int)ev.tid)
            v->shared = 1;
    }
    c->events = ft_reader_delivered(r);
    for (size_t i = 0; i < vt.cap; i++)
        c->nvars += vt.s[i].key && vt.s[i].shared;
    if (c->nvars) {
        c->var = calloc(c->nvars, sizeof *c->var);
        c->var_count = calloc(c->nvars, sizeof *c->var_count);
        if (!c->var || !c->var_count)
            rc = -1;
    }
    uint64_t k = 0;
    for (size_t i = 0; rc == 0 && i < vt.cap; i++) {
        vslot *v = &vt.s[i];
        if (!v->key || !v->shared)
            continue;
        int heap = (int)(v->key >> 63);
        uint64_t mod = (v->key >> 48) & 0x7fff;
        uint64_t off = v->key & ((1ull << 47) - 1);
        snprintf(c->var[k], sizeof c->var[k], "%c%" PRIu64 ".%" PRIx64,
                 heap ? 'h' : 'g', mod, off);
        c->var_count[k++] = v->count;
    }
    free(vt.s);
    ft_heapmap_free(hm);
    ft_reader_close(r);
    if (rc < 0) {
        snprintf(err->message, sizeof err->message, "out of memory");
        fx_calib_free(c);
    }
    return rc;
}

void fx_calib_free(fx_calib *c)
{
    free(c->var);
    free(c->var_count);
    c->var = NULL;
    c->var_count = NULL;
    c->nvars = 0;
}

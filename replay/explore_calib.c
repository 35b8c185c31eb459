/* SPDX-License-Identifier: MIT */
/* explore_calib.c - what the strategies need to know about a program
 * before exploring it, read from one run recorded without preemption:
 * threads (PCT's n), events (PCT's k), lock acquisitions (RPro's k for
 * deadlocks), and for PCTVB the shared variables with their access
 * counts.  A variable is a global (module and offset: stable across runs
 * whatever ASLR does) or a heap allocation site (the paper's randomized
 * variant, section 3); its accesses are the plain reads and writes and,
 * for a lock (the paper's variables include synchronisation objects), the
 * acquisitions: what the runtime sees as variable accesses (atomics are
 * not among them).  SURW's variables are counted apart, with the
 * atomics, lock releases and destroys, by thread (its interesting events
 * and their counts), those another schedule can reorder only
 * (calib_order.c). */
#define _GNU_SOURCE
#include "recorder/heapmap.h"
#include "replay/calib_order.h"
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

/* SURW's view: (variable, thread) pairs with their counts. */
typedef struct pslot {
    uint64_t key, count;
    uint32_t tid;
    int used;
} pslot;

typedef struct ptab {
    pslot *s;
    size_t cap, used;
} ptab;

static size_t p_hash(uint64_t key, uint32_t tid, size_t cap)
{
    return (size_t)((key ^ ((uint64_t)tid * 0xff51afd7ed558ccdull)) *
                    0x9e3779b97f4a7c15ull) & (cap - 1);
}

static pslot *pt_get(ptab *t, uint64_t key, uint32_t tid)
{
    if ((t->used + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 1024;
        pslot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->s[i].used)
                continue;
            size_t h = p_hash(t->s[i].key, t->s[i].tid, ncap);
            while (ns[h].used)
                h = (h + 1) & (ncap - 1);
            ns[h] = t->s[i];
        }
        free(t->s);
        t->s = ns;
        t->cap = ncap;
    }
    size_t h = p_hash(key, tid, t->cap);
    while (t->s[h].used && (t->s[h].key != key || t->s[h].tid != tid))
        h = (h + 1) & (t->cap - 1);
    if (!t->s[h].used) {
        t->s[h] = (pslot){.key = key, .tid = tid, .used = 1};
        t->used++;
    }
    return &t->s[h];
}

static void var_name(char *out, size_t len, uint64_t key)
{
    int heap = (int)(key >> 63);
    uint64_t mod = (key >> 48) & 0x7fff;
    uint64_t off = key & ((1ull << 47) - 1);
    snprintf(out, len, "%c%" PRIu64 ".%" PRIx64, heap ? 'h' : 'g', mod, off);
}

/* SURW's candidates: shared, and reorderable by another schedule. */
static int surw_candidate(const vslot *v, const fx_order *ord)
{
    return v->key && v->shared && fx_order_keep(ord, v->key);
}

/* Fills c->svar and the pairs from SURW's tables. */
static int surw_vars(fx_calib *c, vtab *vt, ptab *pt, const fx_order *ord)
{
    for (size_t i = 0; i < vt->cap; i++) {
        c->sv_shared += vt->s[i].key && vt->s[i].shared;
        c->nsvars += surw_candidate(&vt->s[i], ord);
    }
    c->sv_first = calloc(c->nsvars + 1, sizeof *c->sv_first);
    if (!c->sv_first)
        return -1;
    if (!c->nsvars)
        return 0;
    c->svar = calloc(c->nsvars, sizeof *c->svar);
    c->sv_tid = calloc(pt->used, sizeof *c->sv_tid);
    c->sv_count = calloc(pt->used, sizeof *c->sv_count);
    if (!c->svar || !c->sv_tid || !c->sv_count)
        return -1;
    uint64_t k = 0, np = 0;
    for (size_t i = 0; i < vt->cap; i++) {
        vslot *v = &vt->s[i];
        if (!surw_candidate(v, ord))
            continue;
        var_name(c->svar[k], sizeof c->svar[k], v->key);
        c->sv_first[k] = np;
        /* Its pairs, by thread id (a scan per variable: the shared
         * variables of one run are few). */
        for (uint32_t tid = 0; tid < c->threads; tid++) {
            size_t h = p_hash(v->key, tid, pt->cap);
            while (pt->s[h].used && (pt->s[h].key != v->key || pt->s[h].tid != tid))
                h = (h + 1) & (pt->cap - 1);
            if (pt->s[h].used) {
                c->sv_tid[np] = tid;
                c->sv_count[np++] = pt->s[h].count;
            }
        }
        k++;
    }
    c->sv_first[k] = np;
    return 0;
}

int fx_calibrate(const char *trace, fx_calib *c, ft_error *err)
{
    memset(c, 0, sizeof *c);
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    ft_heapmap *hm = ft_heapmap_new();
    vtab vt = {0}, svt = {0};
    ptab pt = {0};
    fx_order *ord = fx_order_new();
    uint64_t *tev = NULL, tev_cap = 0;
    ft_event ev;
    int rc = 0;
    while (ft_reader_next(r, &ev) == 1) {
        if (ev.tid + 1 > c->threads)
            c->threads = ev.tid + 1;
        if (ev.tid >= tev_cap) {
            uint64_t ncap = ev.tid + 64;
            uint64_t *nt = realloc(tev, ncap * sizeof *nt);
            if (!nt) {
                rc = -1;
                break;
            }
            memset(nt + tev_cap, 0, (ncap - tev_cap) * sizeof *nt);
            tev = nt;
            tev_cap = ncap;
        }
        tev[ev.tid]++;
        int lock = ev.kind == FT_EV_MUTEX_LOCK || ev.kind == FT_EV_RW_RDLOCK ||
                   ev.kind == FT_EV_RW_WRLOCK;
        c->locks += lock;
        if (ev.kind == FT_EV_MALLOC || ev.kind == FT_EV_FREE ||
            ev.kind == FT_EV_REALLOC) {
            if (hm)
                ft_heapmap_update(hm, &ev);
            continue;
        }
        int atomic = ev.kind == FT_EV_ATOMIC_LOAD || ev.kind == FT_EV_ATOMIC_STORE ||
                     ev.kind == FT_EV_ATOMIC_RMW || ev.kind == FT_EV_ATOMIC_CAS;
        /* SURW's README: a lock is accessed by acquire (a read) and
         * release (a write); a destroy is one more write (so a mutex one
         * thread uses and another destroys is shared); pctvb counts
         * acquisitions only */
        int release = ev.kind == FT_EV_MUTEX_UNLOCK || ev.kind == FT_EV_RW_UNLOCK ||
                      ev.kind == FT_EV_MUTEX_DESTROY || ev.kind == FT_EV_RW_DESTROY;
        if (ev.kind != FT_EV_READ && ev.kind != FT_EV_WRITE &&
            ev.kind != FT_EV_READ_WIDE && ev.kind != FT_EV_WRITE_WIDE && !lock &&
            !atomic && !release) {
            if (ord)
                fx_order_event(ord, &ev, 0); /* creation and join */
            continue;
        }
        uint64_t key;
        int named = hm && var_key(r, hm, ev.addr, &key);
        if (ord)
            fx_order_event(ord, &ev, named ? key : 0); /* on -1 it keeps all */
        if (!named)
            continue;
        vslot *sv = vt_get(&svt, key);
        pslot *ps = pt_get(&pt, key, ev.tid);
        if (!sv || !ps) {
            rc = -1;
            break;
        }
        sv->count++;
        ps->count++;
        if (sv->first_tid < 0)
            sv->first_tid = (int)ev.tid;
        else if (sv->first_tid != (int)ev.tid)
            sv->shared = 1;
        if (atomic || release)
            continue; /* not a variable access for pctvb */
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
        var_name(c->var[k], sizeof c->var[k], v->key);
        c->var_count[k++] = v->count;
    }
    if (rc == 0 && surw_vars(c, &svt, &pt, ord) < 0)
        rc = -1;
    if (rc == 0) {
        c->thread_events = calloc(c->threads + 1, sizeof *c->thread_events);
        if (!c->thread_events)
            rc = -1;
        for (uint64_t t = 0; rc == 0 && t < c->threads && t < tev_cap; t++)
            c->thread_events[t] = tev[t];
    }
    free(tev);
    free(vt.s);
    free(svt.s);
    free(pt.s);
    fx_order_free(ord);
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
    free(c->svar);
    free(c->sv_first);
    free(c->sv_tid);
    free(c->sv_count);
    free(c->thread_events);
    c->var = NULL;
    c->var_count = NULL;
    c->nvars = 0;
    c->svar = NULL;
    c->sv_first = NULL;
    c->sv_tid = NULL;
    c->sv_count = NULL;
    c->thread_events = NULL;
    c->nsvars = c->sv_shared = 0;
}

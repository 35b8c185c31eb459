/* SPDX-License-Identifier: MIT */
/* lifetimes.c - inference's variables, one per lifetime of heap memory,
 * as the model's are (ctm/incarnation.c).  Variables are interned by
 * address, so when a worker frees a task and main's next malloc() gets
 * the same address, the worker's reads of the old task and main's writes
 * of the new one looked like one shared variable: regions that conflict
 * with nothing were left open, and CMA properties were made between
 * them.  On C-Thread-Pool's conc_increment test (3,153 events) these were
 * the pairs of a worker's job call with main's thpool_add_work: the
 * model, which splits lifetimes, saw no conflict between them, but the
 * pair had to be proved over the whole trace, and the solver ran out of
 * memory on it.  No schedule makes two lifetimes conflict: the allocator
 * hands the address out again only after the free.
 *
 * So every free of a known block (and every realloc that moves it) ends
 * the lifetime of each data variable inside the block that is accessed
 * both before and after it: the later accesses get a new variable with
 * the same address, and the sharedness of both is counted again from
 * their own accesses.  Synchronisation objects keep their one variable
 * (a mutex inside a freed block is rare, and merging is the safe side:
 * more conflicts, never fewer).  Bounded as the model's split is: past
 * the bounds the rest stay merged. */
#include "infer/internal.h"
#include "recorder/heapmap.h"

#include <stdlib.h>

/* cuts per event, and variables looked at over all frees (plus 2^20) */
#define FI_MAX_CUTS_PER_EVENT 4u

typedef struct fi_freed {
    uint64_t lo, hi, at; /* [lo, hi) given back at event `at` */
} fi_freed;

typedef struct fi_cut {
    uint32_t var;
    uint64_t at; /* accesses after event `at` are a new life */
} fi_cut;

typedef struct key_var {
    uint64_t key;
    uint32_t var;
} key_var;

static int cmp_key_var(const void *a, const void *b)
{
    const key_var *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->var > y->var) - (x->var < y->var);
}

/* Room for one more element of size elem in *p (*cap of them, doubling
 * from first).  0, or -1 out of memory (*p unchanged). */
static int room(void **p, size_t *cap, size_t n, size_t first, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : first;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int cmp_cut(const void *a, const void *b)
{
    const fi_cut *x = a, *y = b;
    if (x->var != y->var)
        return x->var < y->var ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The frees of known blocks, in trace order, into *out (*n of them). */
static int collect_frees(const fi_trace *t, fi_freed **out, size_t *n)
{
    ft_heapmap *h = NULL;
    fi_freed *f = NULL;
    size_t nf = 0, cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < t->nev; i++) {
        uint8_t k = t->ev[i].kind;
        if (k != FT_EV_MALLOC && k != FT_EV_FREE && k != FT_EV_REALLOC)
            continue;
        if (!h && !(h = ft_heapmap_new()))
            goto nomem;
        ft_event ev;
        fi_trace_get(t, i, &ev);
        uint64_t gone = k == FT_EV_FREE                            ? ev.addr
                        : k == FT_EV_REALLOC && ev.obj2 != ev.addr ? ev.obj2
                                                                   : 0;
        const ft_heap_obj *o = gone ? ft_heapmap_find(h, gone) : NULL;
        if (o && o->addr == gone && o->size) {
            if (room((void **)&f, &cap, nf, 64, sizeof *f) < 0)
                goto nomem;
            f[nf++] = (fi_freed){gone, gone + o->size, i};
        }
        if (ft_heapmap_update(h, &ev) < 0)
            goto nomem;
    }
    ft_heapmap_free(h);
    *out = f;
    *n = nf;
    return 0;
nomem:
    ft_heapmap_free(h);
    free(f);
    return -1;
}

void fi_var_account(fi_var *x, uint32_t tid, int write, int seen)
{
    if (!seen) {
        x->tid0 = tid;
        x->wtid0 = UINT32_MAX;
        x->multi = x->written = x->multiw = 0;
    } else if (x->tid0 != tid) {
        x->multi = 1;
    }
    if (write) {
        if (!x->written)
            x->wtid0 = tid;
        else if (x->wtid0 != tid)
            x->multiw = 1;
        x->written = 1;
    }
}

/* Each cut variable's accesses after a cut go to the variable of that
 * life (made at its first access); every variable with a cut, old and
 * new, is counted again. */
static int apply_cuts(fi_analysis *a, const fi_cut *cuts, size_t ncuts)
{
    const fi_trace *t = a->trace;
    uint32_t nv0 = a->nvars;
    fi_var *nv = realloc(a->vars, ((size_t)nv0 + ncuts) * sizeof *nv);
    uint32_t *cur = malloc(((size_t)nv0 + 1) * sizeof *cur);
    uint32_t *newv = malloc(ncuts * sizeof *newv);
    uint8_t *seen = calloc((size_t)nv0 + ncuts + 1, 1);
    int rc = -1;
    if (nv)
        a->vars = nv;
    if (!nv || !cur || !newv || !seen)
        goto out;
    for (uint32_t v = 0; v < nv0; v++)
        cur[v] = UINT32_MAX;
    for (size_t i = ncuts; i-- > 0;) {
        cur[cuts[i].var] = (uint32_t)i; /* the variable's first cut */
        newv[i] = UINT32_MAX;
    }
    for (size_t i = 0; i < t->nev; i++) {
        uint32_t v = a->var_of[i];
        if (v >= nv0 || cur[v] == UINT32_MAX)
            continue;
        uint32_t k = cur[v];
        while (k < ncuts && cuts[k].var == v && cuts[k].at < i)
            k++;
        cur[v] = k;
        uint32_t to = v;
        if (k > 0 && cuts[k - 1].var == v && cuts[k - 1].at < i) {
            if (newv[k - 1] == UINT32_MAX) {
                newv[k - 1] = a->nvars;
                a->vars[a->nvars] = a->vars[v]; /* key, sync */
                a->nvars++;
            }
            to = newv[k - 1];
            a->var_of[i] = to;
        }
        fi_access acc;
        fi_classify(t, &t->ev[i], &acc);
        fi_var_account(&a->vars[to], t->ev[i].tid, acc.op == FI_OP_WRITE,
                       seen[to]);
        seen[to] = 1;
    }
    rc = 0;
out:
    free(cur);
    free(newv);
    free(seen);
    return rc;
}

int fi_split_lifetimes(fi_analysis *a)
{
    const fi_trace *t = a->trace;
    fi_freed *f = NULL;
    size_t nf = 0;
    if (collect_frees(t, &f, &nf) < 0)
        return -1;
    if (!nf || !a->nvars) {
        free(f);
        return 0;
    }
    uint32_t nv0 = a->nvars;
    uint64_t *firsta = malloc((size_t)nv0 * sizeof *firsta);
    uint64_t *lasta = malloc((size_t)nv0 * sizeof *lasta);
    key_var *kv = malloc((size_t)nv0 * sizeof *kv);
    fi_cut *cuts = NULL;
    size_t ncuts = 0, capcuts = 0, nkv = 0;
    size_t maxcuts = t->nev * FI_MAX_CUTS_PER_EVENT;
    size_t scan = maxcuts + (1u << 20);
    int rc = -1;
    if (!firsta || !lasta || !kv)
        goto out;
    for (uint32_t v = 0; v < nv0; v++)
        firsta[v] = UINT64_MAX;
    for (size_t i = 0; i < t->nev; i++) {
        uint32_t v = a->var_of[i];
        if (v >= nv0)
            continue;
        if (firsta[v] == UINT64_MAX)
            firsta[v] = i;
        lasta[v] = i;
    }
    for (uint32_t v = 0; v < nv0; v++)
        if (!a->vars[v].sync && firsta[v] != UINT64_MAX)
            kv[nkv++] = (key_var){a->vars[v].key, v};
    qsort(kv, nkv, sizeof *kv, cmp_key_var);
    if (maxcuts > UINT32_MAX - 1 - (size_t)nv0)
        maxcuts = UINT32_MAX - 1 - (size_t)nv0; /* variable ids */
    for (size_t i = 0; i < nf && ncuts < maxcuts && scan; i++) {
        size_t lo = 0, hi = nkv;
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (kv[m].key < f[i].lo)
                lo = m + 1;
            else
                hi = m;
        }
        for (size_t k = lo;
             k < nkv && kv[k].key < f[i].hi && ncuts < maxcuts && scan;
             k++, scan--) {
            uint32_t v = kv[k].var;
            if (firsta[v] >= f[i].at || lasta[v] <= f[i].at)
                continue; /* one side of the free has no access */
            if (room((void **)&cuts, &capcuts, ncuts, 256, sizeof *cuts) < 0)
                goto out;
            cuts[ncuts++] = (fi_cut){v, f[i].at};
        }
    }
    if (ncuts) {
        qsort(cuts, ncuts, sizeof *cuts, cmp_cut);
        if (apply_cuts(a, cuts, ncuts) < 0)
            goto out;
    }
    rc = 0;
out:
    free(f);
    free(firsta);
    free(lasta);
    free(kv);
    free(cuts);
    return rc;
}

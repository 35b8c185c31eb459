/* SPDX-License-Identifier: MIT */
/* incarnation.c - one variable per lifetime of heap memory.  Variables
 * are interned by address, so when free() gives a block back and a later
 * malloc() hands the same address to another thread, the two threads'
 * accesses to unrelated objects looked like one shared variable: atomicity
 * violations and races "predicted" between a task struct a worker freed
 * and the next one main allocated there (bench/predict/shapes/pool.c), or
 * between `new int` in three threads (tests/rt/progs/cxx_threads.cc),
 * and solver time spent on them.  No schedule can make those accesses
 * conflict: the allocator hands the address out again only after the
 * free, and a schedule that moved the free later would get another
 * address.  So, as ThreadSanitizer resets its shadow memory on free,
 * every free of a known object ends the incarnation of each variable
 * inside it: the accesses after the free go to a new variable (same
 * address and kind; its sharedness, writes and initial value its own).
 * Use after free stays predictable: kind_uaf.c pairs a free with the
 * accesses before it, which stay on the freed incarnation.  Each free
 * transition also gets a heap variable of its own (two frees of one
 * address are two lifetimes: the model's frees are of live objects
 * only), shared when a thread other than the freeing one touched memory
 * inside the object during the lifetime that free ends.
 *
 * While building, ft_ctm_add records each free (range, transition count
 * so far); ft_ctm_finish calls ft_ctm_split_incarnations before the
 * model's figures are counted.  docs/ctm.md, "Heap memory". */
#include "ctm/ctm.h"

#include <stdlib.h>
#include <string.h>

/* A free splits at most this many (variable, position) pairs per
 * transition of the model, and all frees look at that many variables
 * (plus 2^20); past it the rest stay merged (the model as it was before:
 * more conflicts, never fewer). */
#define FT_CTM_MAX_CUTS_PER_TRANS 4u

int ft_ctm_note_free(ft_ctm *c, uint64_t lo, uint64_t size)
{
    if (!size)
        return 0;
    if (c->nfrees == c->cap_frees) {
        uint32_t cap = c->cap_frees ? 2 * c->cap_frees : 64;
        ft_ctm_freed *f = realloc(c->frees, sizeof *f * cap);
        if (!f)
            return -1;
        c->frees = f;
        c->cap_frees = cap;
    }
    c->frees[c->nfrees++] = (ft_ctm_freed){lo, lo + size, c->ntrans};
    return 0;
}

typedef struct cut {
    uint32_t var, at; /* accesses from transition at on are a new life */
} cut;

static int cmp_cut(const void *a, const void *b)
{
    const cut *x = a, *y = b;
    if (x->var != y->var)
        return x->var < y->var ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static int is_mem_access(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW &&
           c->obj[x] < c->nvars && c->vars[c->obj[x]].kind == FT_VAR_MEMORY;
}

void ft_ctm_account(ft_ctm *c, uint32_t v, uint32_t x, uint8_t *seen)
{
    ft_ctm_var *var = &c->vars[v];
    if (!seen[v]) {
        seen[v] = 1;
        var->first_tid = c->tid[x];
        var->shared = 0;
        var->written = 0;
        var->has_init = c->op[x] != FT_OP_WRITE;
        var->init = var->has_init ? c->value[x] : 0;
    } else if (var->first_tid != c->tid[x]) {
        var->shared = 1;
    }
    if (ft_ctm_writes(c, x))
        var->written = 1;
}

typedef struct hfree {
    uint64_t lo;
    uint32_t x; /* the FREE transition */
} hfree;

static int cmp_hfree(const void *a, const void *b)
{
    const hfree *p = a, *q = b;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    return (p->x > q->x) - (p->x < q->x);
}

/* One heap variable per free, shared when another thread than the
 * freeing one touched memory inside the object between the previous free
 * at that address and this one (a memory variable lies in one lifetime
 * after the split: its first access tells which).  firsta/lasta: each
 * memory variable's first and last access (FT_CTM_NONE: none). */
static int heap_lifetimes(ft_ctm *c, const uint32_t *firsta,
                          const uint32_t *lasta)
{
    uint32_t nf = 0, m = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        nf += c->op[x] == FT_OP_FREE;
    if (!nf)
        return 0;
    hfree *f = malloc(sizeof *f * nf);
    uint8_t *own = calloc((size_t)c->nvars + nf + 1, 1);
    uint64_t *mem = ft_ctm_mem_by_addr(c, &m);
    int rc = -1;
    if (!f || !own || !mem)
        goto out;
    nf = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] == FT_OP_FREE)
            f[nf++] = (hfree){c->vars[c->obj[x]].addr, x};
    qsort(f, nf, sizeof *f, cmp_hfree);
    /* variables looked at over all frees (hostile traces: one huge block
     * freed many times) */
    size_t scan = (size_t)c->ntrans * 4 + (1u << 20);
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t x = f[i].x, h = c->obj[x];
        uint32_t since = i > 0 && f[i - 1].lo == f[i].lo ? f[i - 1].x : 0;
        if (own[h]) { /* a second lifetime at this address */
            uint32_t nv = ft_ctm_append_var(c, f[i].lo, FT_VAR_HEAP,
                                            FT_CTM_NONE);
            if (nv == FT_CTM_NONE)
                goto out;
            c->vars[nv] = c->vars[h];
            h = c->obj[x] = nv;
        }
        own[h] = 1;
        ft_ctm_var *hv = &c->vars[h];
        hv->first_tid = c->tid[x];
        hv->shared = 0;
        uint64_t lo = hv->addr, hi = lo + c->value[x];
        if (!scan) { /* past the budget: shared, the safe side */
            hv->shared = 1;
            continue;
        }
        for (uint32_t a = ft_ctm_mem_lower(mem, m, lo);
             a < m && mem[2 * a] < hi && !hv->shared && scan; a++, scan--) {
            uint32_t v = (uint32_t)mem[2 * a + 1];
            if (v >= c->nvars || firsta[v] == FT_CTM_NONE ||
                firsta[v] < since || lasta[v] > x)
                continue;
            const ft_ctm_var *mv = &c->vars[v];
            hv->shared = mv->shared || mv->first_tid != c->tid[x];
        }
        if (!scan)
            hv->shared = 1; /* not looked at to the end */
    }
    rc = 0;
out:
    free(f);
    free(own);
    free(mem);
    return rc;
}

/* Each memory variable's first and last access into firsta, lasta
 * (FT_CTM_NONE: none), for variables below n. */
static void access_span(const ft_ctm *c, uint32_t n, uint32_t *firsta,
                        uint32_t *lasta)
{
    for (uint32_t v = 0; v < n; v++)
        firsta[v] = lasta[v] = FT_CTM_NONE;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (is_mem_access(c, x) && c->obj[x] < n) {
            uint32_t v = c->obj[x];
            if (firsta[v] == FT_CTM_NONE)
                firsta[v] = x;
            lasta[v] = x;
        }
}

int ft_ctm_split_incarnations(ft_ctm *c)
{
    if (!c->nfrees || !c->ntrans) {
        free(c->frees);
        c->frees = NULL;
        c->nfrees = c->cap_frees = 0;
        return 0;
    }
    uint32_t m = 0, nv0 = c->nvars;
    uint64_t *mem = ft_ctm_mem_by_addr(c, &m);
    /* each variable's first and last access: a cut matters only between
     * them */
    uint32_t *firsta = malloc(sizeof *firsta * ((size_t)nv0 + 1));
    uint32_t *lasta = malloc(sizeof *lasta * ((size_t)nv0 + 1));
    size_t maxcuts = (size_t)c->ntrans * FT_CTM_MAX_CUTS_PER_TRANS, ncuts = 0,
           capcuts = 0;
    cut *cuts = NULL;
    uint32_t *cur = NULL, *newv = NULL;
    uint8_t *seen = NULL;
    int rc = -1;
    if (!mem || !firsta || !lasta)
        goto out;
    access_span(c, nv0, firsta, lasta);
    /* variables looked at over all frees: a hostile trace freeing a huge
     * block many times must not make this quadratic */
    size_t scan = maxcuts + (1u << 20);
    for (uint32_t i = 0; i < c->nfrees && ncuts < maxcuts && scan; i++) {
        const ft_ctm_freed *f = &c->frees[i];
        for (uint32_t a = ft_ctm_mem_lower(mem, m, f->lo);
             a < m && mem[2 * a] < f->hi && ncuts < maxcuts && scan;
             a++, scan--) {
            uint32_t v = (uint32_t)mem[2 * a + 1];
            if (firsta[v] == FT_CTM_NONE || firsta[v] >= f->at ||
                lasta[v] < f->at)
                continue;
            if (ncuts == capcuts) {
                size_t cap = capcuts ? 2 * capcuts : 256;
                cut *n = realloc(cuts, sizeof *n * cap);
                if (!n)
                    goto out;
                cuts = n;
                capcuts = cap;
            }
            cuts[ncuts++] = (cut){v, f->at};
        }
    }
    if (ncuts > FT_CTM_MAX_VARS - nv0)
        ncuts = FT_CTM_MAX_VARS - nv0; /* ids the interning table keeps */
    if (!ncuts)
        goto heap;
    qsort(cuts, ncuts, sizeof *cuts, cmp_cut);
    /* cur[v]: index in cuts of v's next cut (ncuts: none);
     * newv[i]: the variable of the life cut i begins (created at its
     * first access) */
    cur = malloc(sizeof *cur * ((size_t)nv0 + 1));
    newv = malloc(sizeof *newv * ncuts);
    if (!cur || !newv)
        goto out;
    for (uint32_t v = 0; v < nv0; v++)
        cur[v] = (uint32_t)ncuts;
    for (size_t i = ncuts; i-- > 0;) {
        cur[cuts[i].var] = (uint32_t)i;
        newv[i] = FT_CTM_NONE;
    }
    /* the variables with cuts are recounted from their accesses; each
     * new one is at most one per cut */
    seen = calloc((size_t)nv0 + ncuts + 1, 1);
    if (!seen)
        goto out;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (!is_mem_access(c, x))
            continue;
        uint32_t v = c->obj[x];
        if (v >= nv0 || firsta[v] == FT_CTM_NONE)
            continue;
        uint32_t k = cur[v];
        int cut_here = k < ncuts && cuts[k].var == v;
        if (!cut_here && !(k > 0 && cuts[k - 1].var == v))
            continue; /* never cut: as built */
        while (k < ncuts && cuts[k].var == v && cuts[k].at <= x)
            k++;
        cur[v] = k;
        uint32_t life = k > 0 && cuts[k - 1].var == v ? k - 1 : FT_CTM_NONE;
        uint32_t to = v;
        if (life != FT_CTM_NONE) {
            if (newv[life] == FT_CTM_NONE) {
                newv[life] = ft_ctm_append_var(c, c->vars[v].addr,
                                               FT_VAR_MEMORY, FT_CTM_NONE);
                if (newv[life] == FT_CTM_NONE)
                    goto out;
                c->vars[newv[life]].size = c->vars[v].size;
            }
            to = newv[life];
            c->obj[x] = to;
        }
        ft_ctm_account(c, to, x, seen);
    }
heap:
    free(firsta);
    free(lasta);
    firsta = malloc(sizeof *firsta * ((size_t)c->nvars + 1));
    lasta = malloc(sizeof *lasta * ((size_t)c->nvars + 1));
    if (!firsta || !lasta)
        goto out;
    access_span(c, c->nvars, firsta, lasta);
    rc = heap_lifetimes(c, firsta, lasta);
out:
    free(mem);
    free(firsta);
    free(lasta);
    free(cuts);
    free(cur);
    free(newv);
    free(seen);
    free(c->frees);
    c->frees = NULL;
    c->nfrees = c->cap_frees = 0;
    return rc;
}

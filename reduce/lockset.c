/* SPDX-License-Identifier: MIT */
/* lockset.c - the lockset/HB pass: the set of locks each thread holds
 * after each of its transitions (interned, so a transition stores one
 * uint32), and the tests built on it and on must-HB: which context
 * switches some feasible run can take, and which pairs of blocks can be
 * next at the same time.  Both only ever rule out what the exact sync
 * semantics forbid: two threads holding one mutex, a writer next to a
 * holder of the same rwlock, a fork/join order reversed. */
#include "reduce/reduce.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY(lock, read) (((lock) << 1) | (read))

static uint32_t hash_set(const uint32_t *e, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull * (n + 1);
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ e[i]) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

static int ls_rehash(ft_reduced *r)
{
    uint32_t cap = r->ls_hash_cap ? r->ls_hash_cap * 2 : 256;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t s = 1; s < r->nls; s++) {
        uint32_t i = hash_set(&r->ls_pool[r->ls_first[s]], r->ls_len[s]) &
                     (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = s;
    }
    free(r->ls_hash);
    r->ls_hash = h;
    r->ls_hash_cap = cap;
    return 0;
}

/* The id of the sorted set e[0..n); 0 is the empty set. */
static uint32_t ls_intern(ft_reduced *r, const uint32_t *e, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t mask = r->ls_hash_cap - 1;
    uint32_t i = hash_set(e, n) & mask;
    while (r->ls_hash[i]) {
        uint32_t s = r->ls_hash[i];
        if (r->ls_len[s] == n &&
            !memcmp(&r->ls_pool[r->ls_first[s]], e, n * sizeof *e))
            return s;
        i = (i + 1) & mask;
    }
    if (r->nls == r->ls_cap) {
        uint32_t cap = r->ls_cap * 2;
        uint32_t *f = realloc(r->ls_first, cap * sizeof *f);
        if (!f)
            return UINT32_MAX;
        r->ls_first = f;
        uint32_t *l = realloc(r->ls_len, cap * sizeof *l);
        if (!l)
            return UINT32_MAX;
        r->ls_len = l;
        r->ls_cap = cap;
    }
    while (r->pool_len + n > r->pool_cap) {
        uint32_t cap = r->pool_cap * 2;
        uint32_t *p = realloc(r->ls_pool, cap * sizeof *p);
        if (!p)
            return UINT32_MAX;
        r->ls_pool = p;
        r->pool_cap = cap;
    }
    uint32_t s = r->nls++;
    r->ls_first[s] = r->pool_len;
    r->ls_len[s] = n;
    memcpy(&r->ls_pool[r->pool_len], e, n * sizeof *e);
    r->pool_len += n;
    r->ls_hash[i] = s;
    if (r->nls * 2 > r->ls_hash_cap && ls_rehash(r))
        return UINT32_MAX;
    return s;
}

/* A thread's held locks while simulating it: entry and recursion count. */
struct held {
    uint32_t *entry, *count;
    uint32_t n, cap;
};

static int held_add(struct held *h, uint32_t e)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->entry[i] == e) {
            h->count[i]++;
            return 0;
        }
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 8;
        uint32_t *a = realloc(h->entry, cap * sizeof *a);
        if (!a)
            return -1;
        h->entry = a;
        uint32_t *b = realloc(h->count, cap * sizeof *b);
        if (!b)
            return -1;
        h->count = b;
        h->cap = cap;
    }
    uint32_t i = h->n++;
    while (i > 0 && h->entry[i - 1] > e) { /* keep sorted */
        h->entry[i] = h->entry[i - 1];
        h->count[i] = h->count[i - 1];
        i--;
    }
    h->entry[i] = e;
    h->count[i] = 1;
    return 0;
}

/* Releases lock (either mode); all = drop every recursion level. */
static void held_release(struct held *h, uint32_t lock, int all)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->entry[i] >> 1 == lock) {
            if (!all && --h->count[i] > 0)
                return;
            memmove(&h->entry[i], &h->entry[i + 1],
                    (h->n - i - 1) * sizeof *h->entry);
            memmove(&h->count[i], &h->count[i + 1],
                    (h->n - i - 1) * sizeof *h->count);
            h->n--;
            return;
        }
}

/* In trace order, with each thread's held locks kept apart: a thread's
 * transitions come in its program order, and the transition arrays are
 * read sequentially instead of gathered thread by thread. */
int ft_reduce_locksets(ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    uint32_t nt = c->nthreads;
    r->ls_cap = 64;
    r->pool_cap = 256;
    r->nls = 1; /* 0: the empty set */
    r->ls_first = calloc(r->ls_cap, sizeof *r->ls_first);
    r->ls_len = calloc(r->ls_cap, sizeof *r->ls_len);
    r->ls_pool = malloc(r->pool_cap * sizeof *r->ls_pool);
    r->held_after = malloc(sizeof *r->held_after * (c->ntrans + 1));
    struct held *h = calloc(nt + 1, sizeof *h);
    uint32_t *cur = calloc(nt + 1, sizeof *cur); /* each thread's set */
    int rc = 0;
    if (!r->ls_first || !r->ls_len || !r->ls_pool || !r->held_after || !h ||
        !cur || ls_rehash(r)) {
        rc = -1;
        goto out;
    }
    ft_prefault(r->held_after, sizeof *r->held_after, 0, c->ntrans);
    for (uint32_t x = 0; x < c->ntrans; x++) {
        uint32_t t = c->tid[x];
        switch (c->op[x]) {
        case FT_OP_LOCK:
        case FT_OP_WRLOCK:
            rc = held_add(&h[t], ENTRY(c->obj[x], 0));
            break;
        case FT_OP_RDLOCK:
            rc = held_add(&h[t], ENTRY(c->obj[x], 1));
            break;
        case FT_OP_UNLOCK:
        case FT_OP_RWUNLOCK:
            held_release(&h[t], c->obj[x], 0);
            break;
        case FT_OP_WAIT_PRE:
            held_release(&h[t], c->obj2[x], 1);
            break;
        case FT_OP_WAIT_POST:
            rc = held_add(&h[t], ENTRY(c->obj2[x], 0));
            break;
        default:
            r->held_after[x] = cur[t];
            continue;
        }
        if (rc)
            break;
        cur[t] = ls_intern(r, h[t].entry, h[t].n);
        if (cur[t] == UINT32_MAX) {
            rc = -1;
            break;
        }
        r->held_after[x] = cur[t];
    }
out:
    for (uint32_t t = 0; h && t < nt; t++) {
        free(h[t].entry);
        free(h[t].count);
    }
    free(h);
    free(cur);
    return rc;
}

static uint32_t held_before(const ft_reduced *r, uint32_t x)
{
    const ft_ctm *c = r->ctm;
    uint32_t p = c->pos[x];
    return p ? r->held_after[ft_ctm_at(c, c->tid[x], p - 1)] : 0;
}

/* Whether some lock is in both sets in modes that exclude each other. */
static int sets_clash(const ft_reduced *r, uint32_t a, uint32_t b)
{
    if (!a || !b)
        return 0;
    const uint32_t *ea = &r->ls_pool[r->ls_first[a]];
    const uint32_t *eb = &r->ls_pool[r->ls_first[b]];
    uint32_t na = r->ls_len[a], nb = r->ls_len[b], i = 0, j = 0;
    while (i < na && j < nb) {
        uint32_t la = ea[i] >> 1, lb = eb[j] >> 1;
        if (la == lb) {
            if (!((ea[i] & 1) && (eb[j] & 1)))
                return 1;
            i++;
            j++;
        } else if (la < lb) {
            i++;
        } else {
            j++;
        }
    }
    return 0;
}

/* Whether transition y's acquisition is blocked by the holder of set s. */
static int acquire_blocked(const ft_reduced *r, uint32_t s, uint32_t y)
{
    const ft_ctm *c = r->ctm;
    uint32_t lock, read = 0;
    switch (c->op[y]) {
    case FT_OP_LOCK:
    case FT_OP_WRLOCK:
        lock = c->obj[y];
        break;
    case FT_OP_RDLOCK:
        lock = c->obj[y];
        read = 1;
        break;
    case FT_OP_WAIT_POST:
        lock = c->obj2[y];
        break;
    default:
        return 0;
    }
    if (!s)
        return 0;
    const uint32_t *e = &r->ls_pool[r->ls_first[s]];
    for (uint32_t i = 0; i < r->ls_len[s]; i++)
        if (e[i] >> 1 == lock && !(read && (e[i] & 1)))
            return 1;
    return 0;
}

int ft_switch_feasible(const ft_reduced *r, uint32_t i, uint32_t k,
                       uint32_t j, uint32_t l)
{
    const ft_ctm *c = r->ctm;
    uint32_t bk = r->bfirst[i] + k, bl = r->bfirst[j] + l;
    uint32_t x = ft_ctm_at(c, i, r->bend[bk]);
    uint32_t f = ft_ctm_at(c, j, r->bstart[bl]);
    uint32_t last = ft_ctm_at(c, j, r->bend[bl]);
    if (ft_ctm_hb_before(c, x, j) > r->bstart[bl])
        return 0; /* block l must precede x */
    if (ft_ctm_hb_before(c, last, i) > r->bend[bk] + 1)
        return 0; /* block l needs more of thread i than has run */
    uint32_t hi = r->held_after[x];
    if (sets_clash(r, hi, held_before(r, f)))
        return 0;
    if (r->bkey[bl] != FT_CTM_NONE && acquire_blocked(r, hi, r->bkey[bl]))
        return 0;
    return 1;
}

int ft_blocks_coreachable(const ft_reduced *r, uint32_t a, uint32_t ka,
                          uint32_t b, uint32_t kb)
{
    /* Only locks count here: a fork/join order between the two blocks does
     * not make the pair skippable, since the thread that must go first can
     * still run part of its transaction, let the other run, and finish
     * (docs/reduction.md, "skipping unreachable pairs"). */
    const ft_ctm *c = r->ctm;
    uint32_t x = ft_ctm_at(c, a, r->bstart[r->bfirst[a] + ka]);
    uint32_t y = ft_ctm_at(c, b, r->bstart[r->bfirst[b] + kb]);
    return !sets_clash(r, held_before(r, x), held_before(r, y));
}

int ft_blocks_dependent(const ft_reduced *r, uint32_t a, uint32_t ka,
                        uint32_t b, uint32_t kb)
{
    uint32_t x = r->bkey[r->bfirst[a] + ka], y = r->bkey[r->bfirst[b] + kb];
    if (x == FT_CTM_NONE || y == FT_CTM_NONE)
        return 0;
    return ft_ctm_conflict(r->ctm, x, y);
}

uint64_t ft_count_feasible_switches(const ft_reduced *r, uint64_t budget)
{
    if (r->stats.cs_total > budget)
        return UINT64_MAX;
    const ft_ctm *c = r->ctm;
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->nthreads; i++)
        for (uint32_t j = 0; j < c->nthreads; j++) {
            if (i == j)
                continue;
            for (uint32_t k = 0; k + 1 < r->bcount[i]; k++)
                for (uint32_t l = 0; l < r->bcount[j]; l++)
                    n += ft_switch_feasible(r, i, k, j, l);
        }
    return n;
}

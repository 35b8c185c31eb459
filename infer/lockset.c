/* SPDX-License-Identifier: MIT */
/* lockset.c - proves regions atomic by mutual exclusion, the common case
 * of a region inside one critical section.  If a thread holds lock L
 * exclusively (mutex or write lock) from before a region's first event to
 * after its last, and every event of the region that conflicts with another
 * thread touches an object that every thread only ever touches while
 * holding L (Eraser's candidate lockset: the intersection of the locksets
 * of all its accesses, leaving out solo ones, which run alone in every
 * run: fi_mhb_solo), then no conflicting event of another thread can
 * come between the region's events in any run that respects the locks: the
 * region is atomic in the whole generalization, not just in the observed
 * run.  A region spanning two critical sections of L (released in between)
 * is not proved: that is the race-free atomicity bug.
 *
 * This is the lockset part of the paper's stage ii reasoning applied
 * directly to regions; the MAT proof (fi_prove_by_itx) still runs after it
 * and may prove more. */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <stdlib.h>
#include <string.h>

#define CAND_MAX 4 /* locks tracked per lockset: nesting is rarely deeper */

typedef struct held_lock {
    uint32_t var;   /* the lock's variable */
    uint32_t count; /* recursive holds */
    uint8_t excl;
} held_lock;

typedef struct holder {
    held_lock *held;
    uint32_t n, cap;
} holder;

typedef struct cand {
    uint32_t lock[CAND_MAX];
    uint8_t n, init;
} cand;

/* Per object: locks held (any mode) at all its accesses, and locks held
 * exclusively at all its writes. */
typedef struct guard {
    cand any, excl_writes;
} guard;

static int is_acquire(const fi_event *e, int *excl)
{
    switch (e->kind) {
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_WRLOCK:
        *excl = 1;
        return e->rc == 0;
    case FT_EV_RW_RDLOCK:
        *excl = 0;
        return e->rc == 0;
    case FT_EV_COND_WAKE: /* wait_post: the mutex is held again */
        *excl = 1;
        return 1;
    default:
        return 0;
    }
}

/* The variable of the lock an event releases, or UINT32_MAX. */
static uint32_t released(const fi_analysis *a, size_t i, uint64_t *key)
{
    const fi_event *e = &a->trace->ev[i];
    if (e->kind == FT_EV_MUTEX_UNLOCK || e->kind == FT_EV_RW_UNLOCK) {
        *key = e->addr;
        return a->var_of[i];
    }
    if (e->kind == FT_EV_COND_WAIT) {
        *key = fi_ev_obj2(a->trace, e);
        return a->var_of[i]; /* classify keys COND_WAIT by its mutex */
    }
    return UINT32_MAX;
}

static int hold(holder *h, uint32_t var, int excl)
{
    for (uint32_t k = 0; k < h->n; k++)
        if (h->held[k].var == var) {
            h->held[k].count++;
            return 0;
        }
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? 2 * h->cap : 4;
        held_lock *n = realloc(h->held, cap * sizeof *n);
        if (!n)
            return -1;
        h->held = n;
        h->cap = cap;
    }
    h->held[h->n++] = (held_lock){var, 1, (uint8_t)excl};
    return 0;
}

static void release(holder *h, uint32_t var)
{
    for (uint32_t k = 0; k < h->n; k++)
        if (h->held[k].var == var) {
            if (--h->held[k].count == 0)
                h->held[k] = h->held[--h->n];
            return;
        }
}

static void intersect(cand *c, const holder *h, int excl_only)
{
    if (!c->init) {
        c->init = 1;
        c->n = 0;
        for (uint32_t k = 0; k < h->n && c->n < CAND_MAX; k++)
            if (!excl_only || h->held[k].excl)
                c->lock[c->n++] = h->held[k].var;
        return;
    }
    uint8_t kept = 0;
    for (uint8_t j = 0; j < c->n; j++) {
        int in = 0;
        for (uint32_t k = 0; k < h->n && !in; k++)
            in = h->held[k].var == c->lock[j] &&
                 (!excl_only || h->held[k].excl);
        if (in)
            c->lock[kept++] = c->lock[j];
    }
    c->n = kept;
}

static int cand_has(const cand *c, uint32_t lock)
{
    for (uint8_t j = 0; j < c->n; j++)
        if (c->lock[j] == lock)
            return 1;
    return 0;
}

/* Does some lock in locks[0..n) (held_excl[j]: exclusively) protect every
 * conflicting event of r, and stay held by r's thread from r->first to
 * r->last?  Held exclusively, the lock must be held at every access of the
 * object by anyone; held shared, the region may only read, and every write
 * of the object by anyone must hold it exclusively. */
static int protected_region(const fi_analysis *a, const fi_region *r,
                            const uint32_t *locks, const uint8_t *held_excl,
                            uint32_t n, const guard *guards)
{
    const fi_trace *t = a->trace;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t L = locks[j];
        int ok = 1;
        for (uint64_t i = r->first; i <= r->last && ok; i++) {
            const fi_event *e = &t->ev[i];
            if (e->tid != r->tid)
                continue;
            uint64_t key;
            if (released(a, i, &key) == L)
                ok = 0;
            fi_access acc;
            fi_classify(a->trace, e, &acc);
            if (acc.op == FI_OP_FORK || acc.op == FI_OP_JOIN)
                ok = 0;
            uint32_t v = a->var_of[i];
            if (!ok || v == UINT32_MAX || v == L)
                continue;
            int guarded = held_excl[j]
                              ? cand_has(&guards[v].any, L)
                              : acc.op == FI_OP_READ &&
                                    cand_has(&guards[v].excl_writes, L);
            if (guarded)
                continue;
            /* Unguarded: fine only if nobody else conflicts. */
            if (fi_conflicts_outside(a, &acc, v, r->tid))
                ok = 0;
        }
        if (ok)
            return 1;
    }
    return 0;
}

enum mover { BOTH, RIGHT, LEFT, NON };

/* A failed try (trylock, timedlock, sem_trywait) observes the object's
 * state, so an acquire cannot move right past another thread's failed try
 * on the same object (before the acquire the try would have succeeded),
 * nor a release left (after it, likewise).  Does another thread have one
 * on v that may run concurrently with r?  (Found by the brute-force test,
 * tests/infer/test_infer_reduction_oracle.c.) */
static int concurrent_failed_try(const fi_analysis *a, const fi_mhb *m,
                                 const fi_by_var *g, const fi_region *r,
                                 uint32_t v)
{
    return fi_concurrent_in(a, m, r, g->facc, g->fstart[v], g->fstart[v + 1]);
}

/* Lipton's movers for one event of region r: acquires move right,
 * releases (and semaphore posts) move left, unless another thread's failed
 * try on the object may come between; cond waits (a release, a wait and an
 * acquire in one) and semaphore initialisation do not move; an access that
 * is guarded by a lock
 * held at it, or conflicts with nothing that may run concurrently with r,
 * moves both ways; anything else does not move. */
static enum mover mover_of(const fi_analysis *a, const fi_mhb *m,
                           const fi_by_var *g, const fi_region *r,
                           uint64_t i, const uint8_t *guarded)
{
    const fi_event *e = &a->trace->ev[i];
    uint32_t lock = a->var_of[i];
    switch (e->kind) {
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT:
        if (e->rc != 0 || lock == UINT32_MAX ||
            concurrent_failed_try(a, m, g, r, lock))
            return NON;
        return RIGHT;
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
    case FT_EV_SEM_POST:
        if (lock == UINT32_MAX || concurrent_failed_try(a, m, g, r, lock))
            return NON;
        return LEFT;
    case FT_EV_COND_WAIT:  /* releases the mutex, joins the waiters */
    case FT_EV_COND_WAKE:  /* takes the mutex again after a notify */
    case FT_EV_SEM_INIT:   /* sets the count other threads' waits see */
        return NON;
    default:
        break;
    }
    fi_access acc;
    fi_classify(a->trace, e, &acc);
    if (acc.op == FI_OP_NONE)
        return BOTH;
    uint32_t v = a->var_of[i];
    if (acc.op == FI_OP_FORK || acc.op == FI_OP_JOIN || v == UINT32_MAX)
        return NON;
    if (guarded[i] || !fi_conflicts_outside(a, &acc, v, r->tid) ||
        !fi_concurrent_conflict(a, m, g, r, v, acc.op))
        return BOTH;
    return NON;
}

/* Reduction (Lipton; Flanagan and Qadeer's Atomizer): a region whose
 * events read as (right|both)* [non] (left|both)* can be rearranged, in any
 * run, into one where it runs without interruption. */
static int reducible(const fi_analysis *a, const fi_mhb *m,
                     const fi_by_var *g, const fi_region *r,
                     const uint8_t *guarded)
{
    int committed = 0;
    for (uint64_t i = r->first; i <= r->last; i++) {
        if (a->trace->ev[i].tid != r->tid)
            continue;
        enum mover mv = mover_of(a, m, g, r, i, guarded);
        if (mv == BOTH)
            continue;
        if (committed && (mv == RIGHT || mv == NON))
            return 0;
        if (mv == NON || mv == LEFT)
            committed = 1;
    }
    return 1;
}

/* guarded[i] = 1 when access i holds a lock that guards its object: held
 * exclusively and in the object's lockset, or held shared by a read of an
 * object whose writes all hold it exclusively.  Second pass over the
 * trace, with the final locksets. */
static int mark_guarded(const fi_analysis *a, const guard *guards,
                        const fi_u64map *byaddr, uint8_t *guarded)
{
    const fi_trace *t = a->trace;
    uint32_t T = t->nthreads ? t->nthreads : 1;
    holder *h = calloc(T, sizeof *h);
    if (!h)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->nev && rc == 0; i++) {
        const fi_event *e = &t->ev[i];
        holder *th = &h[e->tid];
        uint32_t v = a->var_of[i];
        guarded[i] = 0;
        if (v != UINT32_MAX) {
            fi_access acc;
            fi_classify(a->trace, e, &acc);
            for (uint32_t k = 0; k < th->n && !guarded[i]; k++) {
                uint32_t L = th->held[k].var;
                guarded[i] = L != v &&
                             (th->held[k].excl
                                  ? cand_has(&guards[v].any, L)
                                  : acc.op == FI_OP_READ &&
                                        cand_has(&guards[v].excl_writes, L));
            }
        }
        int excl;
        uint64_t key;
        uint32_t rel = released(a, i, &key);
        if (rel != UINT32_MAX)
            release(th, rel);
        if (is_acquire(e, &excl)) {
            uint32_t lv = e->kind == FT_EV_COND_WAKE
                              ? fi_u64map_get(byaddr, fi_ev_obj2(t, e))
                              : v;
            if (lv != UINT32_MAX && hold(th, lv, excl) < 0)
                rc = -1;
        }
    }
    for (uint32_t u = 0; u < T; u++)
        free(h[u].held);
    free(h);
    return rc;
}

long fi_prove_by_locks(fi_analysis *a, const fi_mhb *m, const fi_by_var *g)
{
    const fi_trace *t = a->trace;
    uint32_t T = t->nthreads ? t->nthreads : 1;
    holder *h = calloc(T, sizeof *h);
    guard *guards = calloc(a->nvars ? a->nvars : 1, sizeof *guards);
    /* Locks held at each region's first event, and in which mode. */
    size_t nr1 = a->nregions ? a->nregions : 1;
    uint32_t *rl = calloc(nr1 * CAND_MAX, sizeof *rl);
    uint8_t *rx = calloc(nr1 * CAND_MAX, 1);
    uint8_t *nrl = calloc(nr1, 1);
    long proved = -1;
    fi_u64map byaddr = {0}; /* object address -> variable */
    uint8_t *solo = malloc(t->nev ? t->nev : 1);
    if (!h || !guards || !rl || !rx || !nrl || !solo ||
        fi_mhb_solo(m, t, solo) < 0)
        goto out;
    for (uint32_t x = 0; x < a->nvars; x++) {
        int added;
        if (fi_u64map_intern(&byaddr, a->vars[x].key, x, &added) ==
            UINT32_MAX)
            goto out;
    }
    size_t next = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        holder *th = &h[e->tid];
        for (; next < a->nregions && a->regions[next].first == i; next++)
            for (uint32_t k = 0; k < th->n && nrl[next] < CAND_MAX; k++) {
                rx[next * CAND_MAX + nrl[next]] = th->held[k].excl;
                rl[next * CAND_MAX + nrl[next]++] = th->held[k].var;
            }
        uint32_t v = a->var_of[i];
        /* A solo access runs alone in every run: it needs no guard (main
         * reading the results after joining its workers). */
        if (v != UINT32_MAX && !solo[i]) {
            fi_access acc;
            fi_classify(a->trace, e, &acc);
            intersect(&guards[v].any, th, 0);
            if (acc.op == FI_OP_WRITE)
                intersect(&guards[v].excl_writes, th, 1);
        }
        int excl;
        uint64_t key;
        uint32_t rel = released(a, i, &key);
        if (rel != UINT32_MAX)
            release(th, rel);
        if (is_acquire(e, &excl)) {
            /* COND_WAKE is keyed by its condition: find the mutex's var. */
            uint32_t lv = e->kind == FT_EV_COND_WAKE
                              ? fi_u64map_get(&byaddr, fi_ev_obj2(t, e))
                              : v;
            if (lv != UINT32_MAX && hold(th, lv, excl) < 0)
                goto out;
        }
    }
    proved = 0;
    for (size_t k = 0; k < a->nregions; k++) {
        fi_region *r = &a->regions[k];
        if (r->status != FI_ST_OPEN || !nrl[k])
            continue;
        if (protected_region(a, r, &rl[k * CAND_MAX], &rx[k * CAND_MAX],
                             nrl[k], guards)) {
            r->status = FI_ST_PROVED;
            r->proof = FI_PROOF_LOCK;
            proved++;
        }
    }
    /* What one critical section did not prove, reduction may. */
    size_t open = 0;
    for (size_t k = 0; k < a->nregions; k++)
        open += a->regions[k].status == FI_ST_OPEN;
    if (open) {
        uint8_t *guarded = malloc(t->nev ? t->nev : 1);
        int ok = guarded && mark_guarded(a, guards, &byaddr, guarded) == 0;
        for (size_t k = 0; ok && k < a->nregions; k++) {
            fi_region *r = &a->regions[k];
            if (r->status == FI_ST_OPEN && reducible(a, m, g, r, guarded)) {
                r->status = FI_ST_PROVED;
                r->proof = FI_PROOF_REDUCTION;
                proved++;
            }
        }
        free(guarded);
        if (!ok)
            proved = -1;
    }
out:
    free(solo);
    fi_u64map_free(&byaddr);
    for (uint32_t u = 0; h && u < T; u++)
        free(h[u].held);
    free(h);
    free(guards);
    free(rl);
    free(rx);
    free(nrl);
    return proved;
}

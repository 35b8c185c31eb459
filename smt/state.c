/* SPDX-License-Identifier: MIT */
/* state.c - where a schedule prefix leaves the threads: a thread has
 * begun, finished, stands at a block (its earlier blocks ran with their
 * reads matched, the block did not), holds a lock at the end, and the
 * transition it stands at cannot run when the prefix ends.  The property
 * kinds that are about a final state rather than an order of accesses
 * (deadlocks, lost wake-ups, races: predict/kind_*.c) state their goals
 * with these.  Everything is over the positions of order.c: "ran" is
 * p(b) < N.  Locks held come from reduce/'s locksets (the set a thread
 * holds after each of its transitions, which depends on that thread
 * alone), so "holds at the end" is "its last block that ran leaves the
 * lock held". */
#include "smt/smt.h"

#include <stdlib.h>

Z3_ast ft_smt_started(ft_smt *e, uint32_t t)
{
    uint32_t f = e->c->fork_trans[t];
    if (f == FT_CTM_NONE)
        return Z3_mk_true(e->z);
    return ft_smt_exec(e, e->r->block_of[f]);
}

Z3_ast ft_smt_finished(ft_smt *e, uint32_t t)
{
    const ft_reduced *r = e->r;
    if (r->bcount[t] == 0)
        return ft_smt_started(e, t);
    return ft_smt_exec(e, r->bfirst[t] + r->bcount[t] - 1);
}

Z3_ast ft_smt_at(ft_smt *e, uint32_t b)
{
    const ft_reduced *r = e->r;
    uint32_t t = ft_block_thread(e->r, b);
    Z3_ast a[3];
    unsigned n = 0;
    a[n++] = Z3_mk_not(e->z, ft_smt_exec(e, b));
    if (b == r->bfirst[t]) {
        a[n++] = ft_smt_started(e, t);
    } else {
        a[n++] = ft_smt_exec(e, b - 1);
        if (e->match[b - 1]) /* the thread goes past that read */
            a[n++] = e->match[b - 1];
    }
    return ft_smt_and(e, a, n);
}

/* Whether the lockset s holds lock (in write mode when write_only). */
static int set_has(const ft_reduced *r, uint32_t s, uint32_t lock,
                   int write_only)
{
    for (uint32_t i = 0; s && i < r->ls_len[s]; i++) {
        uint32_t en = r->ls_pool[r->ls_first[s] + i];
        if (en >> 1 == lock && (!write_only || !(en & 1)))
            return 1;
    }
    return 0;
}

Z3_ast ft_smt_holds_at_end(ft_smt *e, uint32_t t, uint32_t lock,
                           int write_only)
{
    const ft_reduced *r = e->r;
    Z3_ast *alt = malloc(sizeof *alt * (r->bcount[t] + 1));
    if (!alt)
        return NULL;
    unsigned n = 0;
    for (uint32_t k = 0; k < r->bcount[t]; k++) {
        uint32_t b = r->bfirst[t] + k, x = r->bkey[b];
        if (x == FT_CTM_NONE ||
            !set_has(r, r->held_after[x], lock, write_only))
            continue;
        Z3_ast last[2] = {ft_smt_exec(e, b), Z3_mk_true(e->z)};
        if (k + 1 < r->bcount[t])
            last[1] = Z3_mk_not(e->z, ft_smt_exec(e, b + 1));
        alt[n++] = Z3_mk_and(e->z, 2, last);
    }
    Z3_ast res = ft_smt_or(e, alt, n);
    free(alt);
    return res;
}

/* Some thread other than t holds lock at the end. */
static Z3_ast held_by_other(ft_smt *e, uint32_t t, uint32_t lock,
                            int write_only)
{
    uint32_t nt = e->c->nthreads;
    Z3_ast *alt = malloc(sizeof *alt * (nt + 1));
    if (!alt)
        return NULL;
    unsigned n = 0;
    for (uint32_t u = 0; u < nt; u++) {
        if (u == t)
            continue;
        Z3_ast h = ft_smt_holds_at_end(e, u, lock, write_only);
        if (!h) {
            free(alt);
            return NULL;
        }
        alt[n++] = h;
    }
    Z3_ast res = ft_smt_or(e, alt, n);
    free(alt);
    return res;
}

static Z3_ast ran(ft_smt *e, uint32_t y)
{
    return Z3_mk_ite(e->z, ft_smt_exec(e, e->r->block_of[y]),
                     Z3_mk_int(e->z, 1, e->int_sort),
                     Z3_mk_int(e->z, 0, e->int_sort));
}

/* Sum of the terms, 0 for none. */
static Z3_ast total(ft_smt *e, Z3_ast *v, unsigned n)
{
    if (n == 0)
        return Z3_mk_int(e->z, 0, e->int_sort);
    return n == 1 ? v[0] : Z3_mk_add(e->z, n, v);
}

/* Semaphore v is at zero when the prefix ends: its initial count (when
 * its init ran; 0 before) plus the posts that ran since minus the waits.
 * NULL when v is initialised more than once (which init counts would
 * depend on the order of the inits). */
static Z3_ast sem_empty(ft_smt *e, uint32_t v)
{
    const ft_ctm *c = e->c;
    const uint32_t *bo = e->r->block_of;
    uint32_t init = FT_CTM_NONE, inits = 0;
    for (uint32_t y = 0; y < c->ntrans; y++)
        if (c->obj[y] == v && c->op[y] == FT_OP_SEM_INIT) {
            init = y;
            inits++;
        }
    if (inits > 1)
        return NULL;
    Z3_ast *t = malloc(sizeof *t * (c->ntrans + 2));
    if (!t)
        return NULL;
    Z3_context z = e->z;
    Z3_ast one = Z3_mk_int(z, 1, e->int_sort), zero = Z3_mk_int(z, 0, e->int_sort);
    unsigned n = 0;
    for (uint32_t y = 0; y < c->ntrans; y++) {
        if (c->obj[y] != v ||
            (c->op[y] != FT_OP_SEM_POST && c->op[y] != FT_OP_SEM_WAIT))
            continue;
        Z3_ast since[2] = {ft_smt_exec(e, bo[y]), Z3_mk_true(z)};
        if (init != FT_CTM_NONE) { /* an init resets the count */
            Z3_ast a[2] = {Z3_mk_not(z, ft_smt_exec(e, bo[init])),
                           ft_smt_lt(e, bo[init], bo[y])};
            since[1] = Z3_mk_or(z, 2, a);
        }
        Z3_ast d = Z3_mk_ite(z, Z3_mk_and(z, 2, since), one, zero);
        t[n++] = c->op[y] == FT_OP_SEM_POST ? d : Z3_mk_unary_minus(z, d);
    }
    if (init != FT_CTM_NONE)
        t[n++] = Z3_mk_ite(z, ft_smt_exec(e, bo[init]),
                           Z3_mk_int64(z, (int64_t)c->value[init],
                                       e->int_sort),
                           zero);
    Z3_ast res = Z3_mk_le(z, total(e, t, n), zero);
    free(t);
    return res;
}

/* The generation barrier v's arrival a (which ran) belongs to is not
 * complete when the prefix ends. */
static Z3_ast barrier_open(ft_smt *e, uint32_t v, uint32_t a)
{
    const ft_ctm *c = e->c;
    const uint32_t *bo = e->r->block_of;
    Z3_ast *all = malloc(sizeof *all * (c->ntrans + 1));
    Z3_ast *before = malloc(sizeof *before * (c->ntrans + 1));
    Z3_ast res = NULL;
    if (!all || !before)
        goto out;
    unsigned na = 0, nb = 0;
    for (uint32_t y = 0; y < c->ntrans; y++) {
        if (c->obj[y] != v || c->op[y] != FT_OP_BARRIER_ARRIVE)
            continue;
        all[na++] = ran(e, y);
        if (y != a)
            before[nb++] = Z3_mk_ite(e->z, ft_smt_lt(e, bo[y], bo[a]),
                                     Z3_mk_int(e->z, 1, e->int_sort),
                                     Z3_mk_int(e->z, 0, e->int_sort));
    }
    int64_t need = c->vars[v].init ? (int64_t)c->vars[v].init : 1;
    Z3_ast nz = Z3_mk_int64(e->z, need, e->int_sort);
    Z3_ast gen = Z3_mk_div(e->z, total(e, before, nb), nz);
    Z3_ast g1[2] = {gen, Z3_mk_int(e->z, 1, e->int_sort)};
    Z3_ast g2[2] = {nz, Z3_mk_add(e->z, 2, g1)};
    res = Z3_mk_lt(e->z, total(e, all, na), Z3_mk_mul(e->z, 2, g2));
out:
    free(all);
    free(before);
    return res;
}

Z3_ast ft_smt_blocked_at_end(ft_smt *e, uint32_t b)
{
    const ft_ctm *c = e->c;
    uint32_t x = e->r->bkey[b];
    if (x == FT_CTM_NONE || !ft_ctm_blocking(c, x))
        return NULL;
    uint32_t t = c->tid[x], v = c->obj[x];
    uint32_t prev = c->pos[x] ? ft_ctm_at(c, t, c->pos[x] - 1) : FT_CTM_NONE;
    int shared = v < c->nvars && c->vars[v].shared;
    switch (c->op[x]) {
    case FT_OP_LOCK:
    case FT_OP_WRLOCK:
        return shared ? held_by_other(e, t, v, 0) : NULL;
    case FT_OP_RDLOCK:
        return shared ? held_by_other(e, t, v, 1) : NULL;
    case FT_OP_WAIT_POST: {
        if (!shared || prev == FT_CTM_NONE || c->op[prev] != FT_OP_WAIT_PRE)
            return NULL;
        Z3_ast w = ft_smt_woken(e, e->r->block_of[prev]);
        Z3_ast m = c->obj2[x] < c->nvars && c->vars[c->obj2[x]].shared
                       ? held_by_other(e, t, c->obj2[x], 0)
                       : Z3_mk_false(e->z);
        if (!w || !m)
            return NULL;
        Z3_ast a[2] = {Z3_mk_not(e->z, w), m};
        return Z3_mk_or(e->z, 2, a);
    }
    case FT_OP_JOIN:
        return c->value[x] < c->nthreads && c->value[x] != t
                   ? Z3_mk_not(e->z, ft_smt_finished(e, (uint32_t)c->value[x]))
                   : NULL;
    case FT_OP_SEM_WAIT:
        return shared ? sem_empty(e, v) : NULL;
    case FT_OP_BARRIER_LEAVE:
        if (!shared || prev == FT_CTM_NONE ||
            c->op[prev] != FT_OP_BARRIER_ARRIVE || c->obj[prev] != v)
            return NULL;
        return barrier_open(e, v, prev);
    default:
        return NULL;
    }
}

/* SPDX-License-Identifier: MIT */
/* sync.c - synchronisation semantics over block positions: critical
 * sections of mutexes (recursive ones counted by nesting, cond waits
 * splitting them) and rwlocks are disjoint across threads, failed trylocks
 * happen inside another thread's section, every notify wakes exactly one
 * current waiter if there is one (lost otherwise), notify-all wakes all,
 * semaphores and barriers count, pthread_once runs once.  Objects touched
 * by one thread need nothing: program order already orders them.  The
 * table of docs/ctm.md is the semantics; tests/model/oracle.c executes
 * the same table and the predict tests compare the two. */
#include "smt/smt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* A section's start when its lock was already held at the window's cut
 * (e->start): it began before every block of the model. */
#define AT_CUT (UINT32_MAX - 1)

typedef struct sect {
    uint32_t obj, thread, start, end; /* blocks; end NONE: never released */
    uint8_t shared_mode;              /* rwlock read hold */
} sect;

typedef struct fail_op {
    uint32_t obj, thread, b;
    uint8_t readers_block; /* rw: a reader also makes it fail */
} fail_op;

typedef struct vec {
    void *v;
    size_t n, cap, elem;
} vec;

static void *vpush(vec *a)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        void *nv = realloc(a->v, cap * a->elem);
        if (!nv)
            return NULL;
        a->v = nv;
        a->cap = cap;
    }
    return (char *)a->v + a->elem * a->n++;
}

static int shared_kind(const ft_ctm *c, uint32_t v, int kind)
{
    return v < c->nvars && c->vars[v].kind == kind && c->vars[v].shared;
}

/* Walks thread t for lock-like objects, appending sections and failed
 * attempts.  depth/rd/open are scratch arrays indexed by variable. */
static int walk_thread(ft_smt *e, uint32_t t, uint32_t *depth, uint32_t *rd,
                       uint32_t *open, vec *sects, vec *fails)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    uint32_t nholds = e->start ? e->start->nholds : 0;
    uint32_t *touched = malloc(sizeof *touched * (c->len[t] + nholds + 1));
    uint32_t nt = 0;
    if (!touched)
        return -1;
    /* locks this thread holds at the cut: their sections are open */
    for (uint32_t h = 0; h < nholds; h++) {
        const ft_smt_hold *hd = &e->start->holds[h];
        uint32_t v = hd->obj;
        if (hd->thread != t || !hd->depth ||
            !(shared_kind(c, v, FT_VAR_MUTEX) ||
              shared_kind(c, v, FT_VAR_RWLOCK)))
            continue;
        if (depth[v] == 0 && rd[v] == 0 && open[v] == NONE)
            touched[nt++] = v;
        sect *s = vpush(sects);
        if (!s)
            goto oom;
        *s = (sect){v, t, AT_CUT, NONE, hd->read};
        if (hd->read) {
            rd[v] = hd->depth;
        } else {
            depth[v] = hd->depth;
            open[v] = (uint32_t)(sects->n - 1);
        }
    }
    for (uint32_t i = 0; i < c->len[t]; i++) {
        uint32_t x = ft_ctm_at(c, t, i), b = r->block_of[x];
        uint32_t v = c->obj[x], m = c->obj2[x];
        unsigned op = c->op[x];
        uint32_t lockv = NONE;
        if ((op == FT_OP_WAIT_PRE || op == FT_OP_WAIT_POST) &&
            shared_kind(c, m, FT_VAR_MUTEX))
            lockv = m;
        else if (shared_kind(c, v, FT_VAR_MUTEX) ||
                 shared_kind(c, v, FT_VAR_RWLOCK))
            lockv = v;
        if (lockv == NONE)
            continue;
        if (depth[lockv] == 0 && rd[lockv] == 0 && open[lockv] == NONE)
            touched[nt++] = lockv;
        sect *s;
        fail_op *f;
        switch (op) {
        case FT_OP_LOCK:
        case FT_OP_WRLOCK:
        case FT_OP_WAIT_POST:
            if (op == FT_OP_WAIT_POST)
                depth[lockv] = 0;
            if (depth[lockv]++ == 0) {
                if (!(s = vpush(sects)))
                    goto oom;
                *s = (sect){lockv, t, b, NONE, 0};
                open[lockv] = (uint32_t)(sects->n - 1);
            }
            break;
        case FT_OP_RDLOCK:
            if (rd[lockv]++ == 0) {
                if (!(s = vpush(sects)))
                    goto oom;
                *s = (sect){lockv, t, b, NONE, 1};
            }
            break;
        case FT_OP_UNLOCK:
        case FT_OP_WAIT_PRE:
        case FT_OP_RWUNLOCK:
            if (op == FT_OP_RWUNLOCK && depth[lockv] == 0 && rd[lockv] > 0) {
                if (--rd[lockv] == 0)
                    for (size_t q = sects->n; q-- > 0;) {
                        sect *o = &((sect *)sects->v)[q];
                        if (o->obj == lockv && o->thread == t &&
                            o->shared_mode && o->end == NONE) {
                            o->end = b;
                            break;
                        }
                    }
                break;
            }
            if (depth[lockv] == 0)
                break;
            if (op == FT_OP_WAIT_PRE || op == FT_OP_RWUNLOCK)
                depth[lockv] = 1;
            if (--depth[lockv] == 0 && open[lockv] != NONE) {
                ((sect *)sects->v)[open[lockv]].end = b;
                open[lockv] = NONE;
            }
            break;
        case FT_OP_LOCK_FAIL:
        case FT_OP_RWLOCK_FAIL:
            if (depth[lockv] > 0) {
                /* I hold it: a failed trylock of a non-recursive mutex
                 * or rwlock fails by itself; a recursive one cannot */
                if (op == FT_OP_LOCK_FAIL &&
                    c->vars[lockv].mutex_type == FT_MUTEX_RECURSIVE)
                    ft_smt_assert(e, Z3_mk_not(e->z, ft_smt_exec(e, b)));
                break;
            }
            if (op == FT_OP_RWLOCK_FAIL && c->value[x] && rd[lockv] > 0)
                break;
            if (!(f = vpush(fails)))
                goto oom;
            *f = (fail_op){lockv, t, b,
                           (uint8_t)(op == FT_OP_RWLOCK_FAIL && c->value[x])};
            break;
        default:
            break;
        }
    }
    for (uint32_t i = 0; i < nt; i++) {
        depth[touched[i]] = rd[touched[i]] = 0;
        open[touched[i]] = NONE;
    }
    free(touched);
    return 0;
oom:
    free(touched);
    return -1;
}

static int cmp_sect(const void *a, const void *b)
{
    const sect *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Section s has started (always, when open at the cut). */
static Z3_ast started(ft_smt *e, const sect *s)
{
    return s->start == AT_CUT ? Z3_mk_true(e->z) : ft_smt_exec(e, s->start);
}

/* Section s covers block b: started before it, not yet released. */
static Z3_ast covers(ft_smt *e, const sect *s, uint32_t b)
{
    Z3_ast a[2] = {s->start == AT_CUT ? Z3_mk_true(e->z)
                                      : ft_smt_lt(e, s->start, b),
                   Z3_mk_true(e->z)};
    if (s->end != NONE)
        a[1] = ft_smt_lt(e, b, s->end);
    return Z3_mk_and(e->z, 2, a);
}

static int encode_sections(ft_smt *e)
{
    const ft_ctm *c = e->c;
    uint32_t nv = c->nvars + 1;
    uint32_t *depth = calloc(nv, sizeof *depth), *rd = calloc(nv, sizeof *rd);
    uint32_t *open = malloc(nv * sizeof *open);
    vec sects = {0, 0, 0, sizeof(sect)}, fails = {0, 0, 0, sizeof(fail_op)};
    int rc = -1;
    Z3_ast *alt = NULL;
    if (!depth || !rd || !open)
        goto out;
    for (uint32_t v = 0; v < nv; v++)
        open[v] = NONE;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (walk_thread(e, t, depth, rd, open, &sects, &fails))
            goto out;
    sect *s = sects.v;
    if (sects.n) /* qsort(NULL, 0) is undefined */
        qsort(s, sects.n, sizeof *s, cmp_sect);
    e->st.nsections = sects.n;
    for (size_t i = 0; i < sects.n; i++)
        for (size_t j = i + 1; j < sects.n && s[j].obj == s[i].obj; j++) {
            if (s[j].thread == s[i].thread ||
                (s[i].shared_mode && s[j].shared_mode))
                continue;
            Z3_ast both[2] = {started(e, &s[i]), started(e, &s[j])};
            Z3_ast apart[2] = {Z3_mk_false(e->z), Z3_mk_false(e->z)};
            if (s[i].end != NONE && s[j].start != AT_CUT)
                apart[0] = ft_smt_lt(e, s[i].end, s[j].start);
            if (s[j].end != NONE && s[i].start != AT_CUT)
                apart[1] = ft_smt_lt(e, s[j].end, s[i].start);
            ft_smt_assert(e, Z3_mk_implies(e->z, Z3_mk_and(e->z, 2, both),
                                           Z3_mk_or(e->z, 2, apart)));
        }
    alt = malloc(sizeof *alt * (sects.n + 1));
    if (!alt)
        goto out;
    fail_op *f = fails.v;
    for (size_t i = 0; i < fails.n; i++) {
        unsigned na = 0;
        for (size_t j = 0; j < sects.n; j++)
            if (s[j].obj == f[i].obj && s[j].thread != f[i].thread &&
                (!s[j].shared_mode || f[i].readers_block))
                alt[na++] = covers(e, &s[j], f[i].b);
        ft_smt_assert(e, Z3_mk_implies(e->z, ft_smt_exec(e, f[i].b),
                                       ft_smt_or(e, alt, na)));
    }
    rc = 0;
out:
    free(alt);
    free(depth);
    free(rd);
    free(open);
    free(sects.v);
    free(fails.v);
    return rc;
}

/* ---- condition variables ------------------------------------------------ */

typedef struct waiter {
    uint32_t thread, pre, post; /* blocks; post NONE: never woken */
    uint8_t timed;
} waiter;

typedef struct notifier {
    uint32_t thread, b;
    uint8_t all;
} notifier;

static Z3_ast in_window(ft_smt *e, const waiter *w, uint32_t b)
{
    Z3_ast a[2] = {ft_smt_lt(e, w->pre, b), Z3_mk_true(e->z)};
    if (w->post != NONE)
        a[1] = ft_smt_lt(e, b, w->post);
    return Z3_mk_and(e->z, 2, a);
}

/* Whether notify n wakes waiter wi: a boolean per (notify, waiter), at
 * most one true per signal (encode_cond), none when the signal is lost.
 * Booleans, not an integer index: with them a model with condition
 * variables stays in difference logic (smt/order.c), which decided the
 * lost wake-ups of bench/predict's pool tens of times faster.  The same
 * name is the same constant (ft_smt_woken builds them again). */
static Z3_ast picks(ft_smt *e, const notifier *n, uint32_t wi)
{
    if (n->all)
        return Z3_mk_true(e->z);
    char name[48];
    snprintf(name, sizeof name, "pick%u_%u", n->b, wi);
    return Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, name), e->bool_sort);
}

/* The waits (in thread, then position order: a waiter's index is the
 * value its notifiers' pick takes) and the notifies of condition v. */
static int cond_lists(const ft_smt *e, uint32_t v, vec *ws, vec *ns)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t pending = NONE;
        for (uint32_t i = 0; i < c->len[t]; i++) {
            uint32_t x = ft_ctm_at(c, t, i);
            if (c->obj[x] != v)
                continue;
            uint32_t b = r->block_of[x];
            if (c->op[x] == FT_OP_WAIT_PRE) {
                waiter *w = vpush(ws);
                if (!w)
                    return -1;
                *w = (waiter){t, b, NONE, 0};
                pending = (uint32_t)(ws->n - 1);
            } else if (c->op[x] == FT_OP_WAIT_POST && pending != NONE) {
                waiter *w = &((waiter *)ws->v)[pending];
                w->post = b;
                w->timed = c->value[x] != 0;
                pending = NONE;
            } else if (c->op[x] == FT_OP_NOTIFY ||
                       c->op[x] == FT_OP_NOTIFY_ALL) {
                notifier *n = vpush(ns);
                if (!n)
                    return -1;
                *n = (notifier){t, b, c->op[x] == FT_OP_NOTIFY_ALL};
            }
        }
    }
    return 0;
}

Z3_ast ft_smt_woken(ft_smt *e, uint32_t pre)
{
    const ft_ctm *c = e->c;
    uint32_t x = e->r->bkey[pre];
    if (x == FT_CTM_NONE || c->op[x] != FT_OP_WAIT_PRE)
        return NULL;
    vec ws = {0, 0, 0, sizeof(waiter)}, ns = {0, 0, 0, sizeof(notifier)};
    Z3_ast res = NULL;
    Z3_ast *alt = NULL;
    if (cond_lists(e, c->obj[x], &ws, &ns) ||
        !(alt = malloc(sizeof *alt * (ns.n + 1))))
        goto out;
    waiter *w = ws.v;
    notifier *n = ns.v;
    size_t k = 0;
    while (k < ws.n && w[k].pre != pre)
        k++;
    unsigned na = 0;
    for (size_t j = 0; j < ns.n && k < ws.n; j++) {
        if (n[j].thread == w[k].thread)
            continue;
        Z3_ast a[3] = {ft_smt_exec(e, n[j].b), ft_smt_lt(e, pre, n[j].b),
                       picks(e, &n[j], (uint32_t)k)};
        alt[na++] = Z3_mk_and(e->z, 3, a);
    }
    if (k < ws.n)
        res = ft_smt_or(e, alt, na);
out:
    free(alt);
    free(ws.v);
    free(ns.v);
    return res;
}

static int encode_cond(ft_smt *e, uint32_t v, Z3_ast *tmp, Z3_ast *tmp2)
{
    vec ws = {0, 0, 0, sizeof(waiter)}, ns = {0, 0, 0, sizeof(notifier)};
    if (cond_lists(e, v, &ws, &ns))
        goto oom;
    waiter *w = ws.v;
    notifier *n = ns.v;
    Z3_context z = e->z;
    /* a signal wakes at most one waiter: "one of 0..k picked" carried
     * along the waiters (linear, where pairs are quadratic) */
    for (size_t i = 0; i < ns.n; i++) {
        if (n[i].all)
            continue;
        Z3_ast some = NULL;
        for (size_t k = 0; k < ws.n; k++) {
            Z3_ast is_k = picks(e, &n[i], (uint32_t)k);
            e->st.nbool++;
            if (some) {
                Z3_ast both[2] = {some, is_k};
                ft_smt_assert(e, Z3_mk_not(z, Z3_mk_and(z, 2, both)));
                Z3_ast either[2] = {some, is_k};
                some = Z3_mk_or(z, 2, either);
            } else {
                some = is_k;
            }
        }
    }
    /* notified_before(w, n): an earlier notify of w's window reached it */
    for (size_t i = 0; i < ns.n; i++) {
        if (n[i].all)
            continue;
        unsigned nfree = 0;
        for (size_t k = 0; k < ws.n; k++) {
            Z3_ast is_k = picks(e, &n[i], (uint32_t)k);
            if (w[k].thread == n[i].thread) {
                ft_smt_assert(e, Z3_mk_not(z, is_k));
                continue;
            }
            unsigned nb = 0;
            for (size_t j = 0; j < ns.n; j++) {
                if (j == i || n[j].thread == w[k].thread)
                    continue;
                Z3_ast a[3] = {ft_smt_lt(e, w[k].pre, n[j].b),
                               ft_smt_lt(e, n[j].b, n[i].b),
                               picks(e, &n[j], (uint32_t)k)};
                tmp[nb++] = Z3_mk_and(z, 3, a);
            }
            Z3_ast waiting[2] = {in_window(e, &w[k], n[i].b),
                                 Z3_mk_not(z, ft_smt_or(e, tmp, nb))};
            Z3_ast cand = Z3_mk_and(z, 2, waiting);
            ft_smt_assert(e, Z3_mk_implies(z, is_k, cand));
            tmp2[nfree++] = cand;
        }
        /* lost only when nobody waits unnotified */
        for (size_t k = 0; k < ws.n; k++)
            tmp[k] = Z3_mk_not(z, picks(e, &n[i], (uint32_t)k));
        Z3_ast none = ft_smt_and(e, tmp, (unsigned)ws.n);
        Z3_ast pre[2] = {ft_smt_exec(e, n[i].b), none};
        ft_smt_assert(e, Z3_mk_implies(z, Z3_mk_and(z, 2, pre),
                                       Z3_mk_not(z, ft_smt_or(e, tmp2, nfree))));
    }
    for (size_t k = 0; k < ws.n; k++) {
        if (w[k].post == NONE || w[k].timed)
            continue;
        unsigned na = 0;
        for (size_t j = 0; j < ns.n; j++) {
            if (n[j].thread == w[k].thread)
                continue;
            Z3_ast a[2] = {in_window(e, &w[k], n[j].b),
                           picks(e, &n[j], (uint32_t)k)};
            tmp[na++] = Z3_mk_and(z, 2, a);
        }
        ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, w[k].post),
                                       ft_smt_or(e, tmp, na)));
    }
    free(ws.v);
    free(ns.v);
    return 0;
oom:
    free(ws.v);
    free(ns.v);
    return -1;
}

/* ---- counting objects ---------------------------------------------------- */

static Z3_ast ind(ft_smt *e, Z3_ast cond)
{
    return Z3_mk_ite(e->z, cond, Z3_mk_int(e->z, 1, e->int_sort),
                     Z3_mk_int(e->z, 0, e->int_sort));
}

static Z3_ast sum(ft_smt *e, Z3_ast *v, unsigned n)
{
    if (n == 0)
        return Z3_mk_int(e->z, 0, e->int_sort);
    return n == 1 ? v[0] : Z3_mk_add(e->z, n, v);
}

/* Members of object v with op in ops (terminated by 0), as blocks. */
static uint32_t members(const ft_smt *e, uint32_t v, const unsigned *ops,
                        uint32_t *out)
{
    const ft_ctm *c = e->c;
    uint32_t n = 0;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (c->obj[x] != v)
            continue;
        for (const unsigned *o = ops; *o; o++)
            if (c->op[x] == *o)
                out[n++] = x;
    }
    return n;
}

/* Semaphore count just before x: the last init before x (or base0, the
 * count at the start: 0, or the count at a window's cut) plus
 * posts minus waits after that init. */
static Z3_ast sem_count(ft_smt *e, uint32_t x, const uint32_t *ini, uint32_t ni,
                        const uint32_t *pw, uint32_t npw, int64_t base0,
                        Z3_ast *tmp, Z3_ast *tmp2)
{
    const ft_ctm *c = e->c;
    const uint32_t *bo = e->r->block_of;
    Z3_context z = e->z;
    uint32_t bx = bo[x];
    unsigned nparts = 0;
    for (uint32_t k = 0; k <= ni; k++) {
        uint32_t bi = k < ni ? bo[ini[k]] : NONE;
        unsigned nt = 0;
        for (uint32_t q = 0; q < npw; q++) {
            uint32_t y = pw[q], by = bo[y];
            if (y == x)
                continue;
            Z3_ast a[2] = {ft_smt_lt(e, by, bx), Z3_mk_true(z)};
            if (bi != NONE)
                a[1] = ft_smt_lt(e, bi, by);
            Z3_ast one = ind(e, Z3_mk_and(z, 2, a));
            tmp[nt++] = c->op[y] == FT_OP_SEM_POST
                            ? one
                            : Z3_mk_unary_minus(z, one);
        }
        Z3_ast base = Z3_mk_int64(z, k < ni ? (int64_t)c->value[ini[k]]
                                            : base0,
                                  e->int_sort);
        tmp[nt++] = base;
        Z3_ast val = sum(e, tmp, nt);
        /* this init is the last before x (or, k == ni, there is none) */
        unsigned nc = 0;
        Z3_ast conds[64];
        if (bi != NONE)
            conds[nc++] = ft_smt_lt(e, bi, bx);
        for (uint32_t k2 = 0; k2 < ni && nc < 63; k2++) {
            if (k2 == k)
                continue;
            uint32_t b2 = bo[ini[k2]];
            if (bi == NONE) {
                conds[nc++] = Z3_mk_not(z, ft_smt_lt(e, b2, bx));
            } else {
                Z3_ast a[2] = {ft_smt_lt(e, bi, b2), ft_smt_lt(e, b2, bx)};
                conds[nc++] = Z3_mk_not(z, Z3_mk_and(z, 2, a));
            }
        }
        tmp2[nparts++] = Z3_mk_ite(z, ft_smt_and(e, conds, nc), val,
                                   Z3_mk_int(z, 0, e->int_sort));
    }
    return sum(e, tmp2, nparts);
}

static int encode_counting(ft_smt *e, uint32_t v, Z3_ast *tmp, Z3_ast *tmp2,
                           uint32_t *buf, uint32_t *buf2, uint32_t *buf3)
{
    const ft_ctm *c = e->c;
    const uint32_t *bo = e->r->block_of;
    Z3_context z = e->z;
    const ft_ctm_var *var = &c->vars[v];
    if (var->kind == FT_VAR_SEM) {
        static const unsigned init_ops[] = {FT_OP_SEM_INIT, 0};
        static const unsigned pw_ops[] = {FT_OP_SEM_POST, FT_OP_SEM_WAIT, 0};
        static const unsigned g_ops[] = {FT_OP_SEM_WAIT, FT_OP_SEM_FAIL, 0};
        uint32_t ni = members(e, v, init_ops, buf);
        uint32_t npw = members(e, v, pw_ops, buf2);
        uint32_t ng = members(e, v, g_ops, buf3);
        if (ni > 32)
            ni = 32;
        int64_t base0 = 0;
        for (uint32_t k = 0; e->start && k < e->start->nsems; k++)
            if (e->start->sem_obj[k] == v)
                base0 = e->start->sem_count[k];
        for (uint32_t i = 0; i < ng; i++) {
            uint32_t x = buf3[i];
            Z3_ast cnt =
                sem_count(e, x, buf, ni, buf2, npw, base0, tmp, tmp2);
            Z3_ast zero = Z3_mk_int(z, 0, e->int_sort);
            Z3_ast g = c->op[x] == FT_OP_SEM_WAIT ? Z3_mk_gt(z, cnt, zero)
                                                  : Z3_mk_le(z, cnt, zero);
            ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, bo[x]), g));
        }
    } else if (var->kind == FT_VAR_BARRIER) {
        static const unsigned arr_ops[] = {FT_OP_BARRIER_ARRIVE, 0};
        uint32_t na = members(e, v, arr_ops, buf);
        int64_t need = var->init ? (int64_t)var->init : 1;
        Z3_ast nz = Z3_mk_int64(z, need, e->int_sort);
        for (uint32_t t = 0; t < c->nthreads; t++) {
            uint32_t mine = NONE;
            for (uint32_t i = 0; i < c->len[t]; i++) {
                uint32_t x = ft_ctm_at(c, t, i);
                if (c->obj[x] != v)
                    continue;
                if (c->op[x] == FT_OP_BARRIER_ARRIVE) {
                    mine = x;
                    continue;
                }
                if (c->op[x] != FT_OP_BARRIER_LEAVE)
                    continue;
                unsigned nb = 0, nr = 0;
                for (uint32_t q = 0; q < na; q++) {
                    tmp[nb++] = ind(e, ft_smt_lt(e, bo[buf[q]], bo[x]));
                    if (mine != NONE && buf[q] != mine)
                        tmp2[nr++] = ind(e, ft_smt_lt(e, bo[buf[q]], bo[mine]));
                }
                Z3_ast gen = Z3_mk_div(z, sum(e, tmp2, nr), nz);
                Z3_ast one = Z3_mk_int(z, 1, e->int_sort);
                Z3_ast g1[2] = {gen, one};
                Z3_ast g2[2] = {nz, Z3_mk_add(z, 2, g1)};
                Z3_ast guard =
                    Z3_mk_ge(z, sum(e, tmp, nb), Z3_mk_mul(z, 2, g2));
                ft_smt_assert(e,
                              Z3_mk_implies(z, ft_smt_exec(e, bo[x]), guard));
            }
        }
    } else if (var->kind == FT_VAR_ONCE) {
        static const unsigned run_ops[] = {FT_OP_ONCE_RUN, 0};
        static const unsigned done_ops[] = {FT_OP_ONCE_DONE, 0};
        static const unsigned skip_ops[] = {FT_OP_ONCE_SKIP, 0};
        uint32_t nr = members(e, v, run_ops, buf);
        uint32_t nd = members(e, v, done_ops, buf2);
        uint32_t ns = members(e, v, skip_ops, buf3);
        for (uint32_t i = 0; i < nr; i++)
            for (uint32_t j = 0; j < nr; j++)
                if (i != j)
                    ft_smt_assert(
                        e, Z3_mk_implies(z, ft_smt_exec(e, bo[buf[i]]),
                                         Z3_mk_not(z, ft_smt_lt(e, bo[buf[j]],
                                                                bo[buf[i]]))));
        int done0 = 0; /* done before the window's cut */
        for (uint32_t k = 0; e->start && k < e->start->nonce_done; k++)
            done0 |= e->start->once_done[k] == v;
        for (uint32_t i = 0; i < ns && !done0; i++) {
            unsigned nd2 = 0;
            for (uint32_t j = 0; j < nd; j++)
                tmp[nd2++] = ft_smt_lt(e, bo[buf2[j]], bo[buf3[i]]);
            ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, bo[buf3[i]]),
                                           ft_smt_or(e, tmp, nd2)));
        }
    }
    return 0;
}

int ft_smt_encode_sync(ft_smt *e)
{
    const ft_ctm *c = e->c;
    if (encode_sections(e))
        return -1;
    size_t n = c->ntrans + 8;
    Z3_ast *tmp = malloc(sizeof *tmp * n), *tmp2 = malloc(sizeof *tmp2 * n);
    uint32_t *buf = malloc(sizeof *buf * n), *buf2 = malloc(sizeof *buf2 * n),
             *buf3 = malloc(sizeof *buf3 * n);
    int rc = -1;
    if (!tmp || !tmp2 || !buf || !buf2 || !buf3)
        goto out;
    for (uint32_t v = 0; v < c->nvars; v++) {
        if (!c->vars[v].shared)
            continue;
        if (c->vars[v].kind == FT_VAR_COND) {
            if (encode_cond(e, v, tmp, tmp2))
                goto out;
        } else if (encode_counting(e, v, tmp, tmp2, buf, buf2, buf3)) {
            goto out;
        }
    }
    rc = 0;
out:
    free(tmp);
    free(tmp2);
    free(buf);
    free(buf2);
    free(buf3);
    return rc;
}

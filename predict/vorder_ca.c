/* SPDX-License-Identifier: MIT */
/* vorder_ca.c - the value order's second CA rule: region transition by
 * region transition (docs/prediction.md, "the value order").
 *
 * A CA violation of region g runs a path of conflicts x_i -> y -> ... ->
 * z -> x_j between two of g's transitions through other threads.  Take
 * the pair with the shortest such path: nothing of g's thread lies on
 * it, and every transition on it runs after x_i and before x_j.  So the
 * property holds when, for every pair i < j of g's shared transitions,
 * no transition conflicting with x_i that may run between x_i and x_j
 * reaches, through conflicts, fork and join among transitions that may
 * also run there, one that conflicts with x_j.
 *
 * What "may run between" means is sharper per pair than for the whole
 * region (vorder_holds.c's first rule), from clock rows that do not rest
 * on the region's free reads (vo_before_clean):
 * - before x_i run what the value order puts before x_i, and every
 *   critical section of another thread that must start before some
 *   transition of g's thread inside x_i's own section of the same lock
 *   (at or before x_j): mutual exclusion puts it wholly before that
 *   section began;
 * - after x_j run what the value order puts after x_j, and a section
 *   of another thread holding such a transition when x_j holds the lock;
 * - nothing inside another thread's section of a lock that g's thread
 *   holds in one section from x_i to x_j.
 * It doubles the claims on test_predict_random's traces, and on eight
 * threads counting under mutexes (bench/predict's wrong_lock.c) decides
 * 5 properties the solver took up to 4 s each on.
 * The work per property is bounded (VC_BUDGET); past it, no claim. */
#include "predict/vorder.h"

#include <stdlib.h>

/* Regions with more shared transitions than this are not tried. */
#define VC_MAX_SHARED 96
/* Index steps and transitions looked at per property. */
#define VC_BUDGET (1u << 20)

typedef struct vc_lock { /* a lock g's thread holds over a stretch */
    uint32_t lock;
    uint32_t excl;
} vc_lock;

typedef struct vc {
    const ft_value_order *v;
    const ft_ctm *c;
    uint32_t a, nt;
    const uint32_t *q; /* g's shared transitions, by position */
    uint32_t k;
    vo_free fr; /* g's free read: no clock row resting on it is used */
    const uint32_t *locks; /* the mutexes and rwlocks g takes or gives */
    uint32_t nlocks;
    uint32_t *lo, *hi, *taint, *scan; /* per thread */
    vc_lock *held;
    uint32_t budget;
} vc;

/* Whether position p of thread t lies inside one of t's sections of a
 * lock in held[0, n) that excludes g's thread's hold. */
static int inside_held(const vc *x, uint32_t t, uint32_t p,
                       const vc_lock *held, uint32_t n)
{
    for (uint32_t h = 0; h < n; h++) {
        const vo_cs *s = vo_cs_at(x->v, held[h].lock, t, p);
        if (s && (s->excl || held[h].excl))
            return 1;
    }
    return 0;
}

/* The first position of thread t in [lo, hi) holding a transition on
 * slot o (any transition when all, else a memory write) outside the held
 * sections; hi when none.  Once the budget is spent every answer is lo:
 * a conflict, the side that claims nothing. */
static uint32_t first_on(vc *x, uint32_t o, int all, uint32_t t, uint32_t lo,
                         uint32_t hi, const vc_lock *held, uint32_t nheld)
{
    if (lo >= hi)
        return hi;
    const ft_slice_index *ix = x->v->ix;
    const uint32_t *first = all ? ix->all_first : ix->wr_first;
    const uint32_t *list = all ? ix->all : ix->wr;
    uint32_t b = first[o + 1];
    uint32_t i = ft_slice_upper(x->c, list, first[o], b, t, lo);
    uint32_t e = ft_slice_upper(x->c, list, i, b, t, hi);
    for (; i < e; i++) {
        if (!x->budget)
            return lo;
        x->budget--;
        uint32_t p = x->c->pos[list[i]];
        if (!inside_held(x, t, p, held, nheld))
            return p;
    }
    return hi;
}

int vo_objects_of(const ft_ctm *c, uint32_t y, uint32_t *obj, int *all)
{
    int n = 0;
    if (!ft_ctm_is_shared(c, y))
        return 0;
    if (c->obj[y] < c->nvars && c->vars[c->obj[y]].shared) {
        obj[n] = c->obj[y];
        all[n++] = c->vars[c->obj[y]].kind != FT_VAR_MEMORY ||
                   ft_ctm_writes(c, y);
    }
    if (c->obj2[y] < c->nvars && c->vars[c->obj2[y]].shared) {
        obj[n] = c->obj2[y];
        all[n++] = 1;
    }
    return n;
}

/* The locks g's thread holds in one section from position p to position
 * r (r >= p) into x->held; their number. */
static uint32_t held_over(vc *x, uint32_t p, uint32_t r)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < x->nlocks; l++) {
        const vo_cs *s = vo_cs_at(x->v, x->locks[l], x->a, p);
        if (s && (s->rel == VO_NONE || s->rel >= r))
            x->held[n++] = (vc_lock){x->locks[l], s->excl};
    }
    return n;
}

/* lo[t] for the pair (x_i at position pi, x_j at position pj): what
 * must run before x_i.  Returns 0 when no schedule reaches x_j with
 * x_i's section begun after another thread's that never ends. */
static int lower_bounds(vc *x, uint32_t pi, uint32_t pj)
{
    const ft_value_order *v = x->v;
    for (uint32_t t = 0; t < x->nt; t++)
        x->lo[t] = t == x->a ? 0
                             : vo_before_clean(v, x->a, pi, t, &x->fr);
    for (uint32_t l = 0; l < x->nlocks; l++) {
        const vo_cs *s2 = vo_cs_at(v, x->locks[l], x->a, pi);
        if (!s2)
            continue;
        uint32_t m = s2->rel == VO_NONE || s2->rel > pj ? pj : s2->rel;
        for (uint32_t t = 0; t < x->nt; t++) {
            if (t == x->a)
                continue;
            uint32_t before = vo_before_clean(v, x->a, m, t, &x->fr);
            const vo_cs *s1 =
                before ? vo_cs_excluding(v, x->locks[l], t, before,
                                         (int)s2->excl)
                       : NULL;
            if (!s1) /* none, or wholly before s2 began */
                continue;
            if (s1->rel == VO_NONE)
                return 0;
            if (s1->rel + 1 <= x->lo[t])
                continue;
            x->lo[t] = s1->rel + 1;
            for (uint32_t u = 0; u < x->nt; u++) {
                uint32_t b = u == x->a ? 0
                                       : vo_before_clean(v, t, s1->rel, u,
                                                         &x->fr);
                if (b > x->lo[u])
                    x->lo[u] = b;
            }
        }
    }
    return 1;
}

/* Lowers taint[u] to the first transition of u in its gap (below
 * taint[u]) that conflicts with transition y of thread t; returns
 * whether it moved. */
static int spread(vc *x, uint32_t t, uint32_t y, const vc_lock *held,
                  uint32_t nheld)
{
    const ft_ctm *c = x->c;
    int moved = 0;
    if (c->op[y] == FT_OP_FORK) {
        uint64_t u = c->value[y];
        if (u < x->nt && u != x->a && x->lo[u] < x->taint[u] &&
            x->lo[u] < x->hi[u]) {
            x->taint[u] = x->lo[u];
            moved = 1;
        }
        return moved;
    }
    uint32_t obj[2];
    int all[2];
    int n = vo_objects_of(c, y, obj, all);
    for (int i = 0; i < n; i++)
        for (uint32_t u = 0; u < x->nt; u++) {
            if (u == x->a || u == t)
                continue;
            uint32_t top = x->taint[u] < x->hi[u] ? x->taint[u] : x->hi[u];
            uint32_t p = first_on(x, obj[i], all[i], u, x->lo[u], top, held,
                                  nheld);
            if (p < top) {
                x->taint[u] = p;
                moved = 1;
            }
        }
    return moved;
}

/* Lowers taint[u] for the threads that join thread t inside their gap. */
static int spread_joins(vc *x, uint32_t t, const vc_lock *held,
                        uint32_t nheld)
{
    int moved = 0;
    for (uint32_t u = 0; u < x->nt; u++) {
        if (u == x->a || u == t)
            continue;
        uint32_t top = x->taint[u] < x->hi[u] ? x->taint[u] : x->hi[u];
        uint32_t p = first_on(x, x->c->nvars + t, 1, u, x->lo[u], top, held,
                              nheld);
        if (p < top) {
            x->taint[u] = p;
            moved = 1;
        }
    }
    return moved;
}

/* Whether a path of conflicts can leave g at one of x_i .. x_{j-1} and
 * come back at x_j (q indices ii < jj), running only between them. */
static int pair_open(vc *x, uint32_t ii, uint32_t jj)
{
    const ft_ctm *c = x->c;
    uint32_t pi = x->q[ii], pj = x->q[jj], a = x->a;
    if (!lower_bounds(x, pi, pj))
        return 0;
    for (uint32_t t = 0; t < x->nt; t++)
        x->taint[t] = x->scan[t] = x->hi[t];
    /* where the path leaves g: a conflict with x_i, after it (a path
     * leaving later, at x_m, is the pair (m, j)'s) */
    uint32_t nh = held_over(x, pi, pj);
    uint32_t obj[2];
    int all[2];
    int n = vo_objects_of(c, ft_ctm_at(c, a, pi), obj, all);
    for (int i = 0; i < n; i++)
        for (uint32_t t = 0; t < x->nt; t++) {
            if (t == a)
                continue;
            uint32_t p = first_on(x, obj[i], all[i], t, x->lo[t],
                                  x->taint[t], x->held, nh);
            if (p < x->taint[t])
                x->taint[t] = p;
        }
    /* what the path reaches, among the transitions between x_i and x_j */
    for (int moved = 1; moved;) {
        moved = 0;
        for (uint32_t t = 0; t < x->nt; t++) {
            if (t == a || x->taint[t] >= x->scan[t])
                continue;
            uint32_t from = x->taint[t], to = x->scan[t];
            if (to == x->hi[t] && from < to)
                moved |= spread_joins(x, t, x->held, nh);
            for (uint32_t p = from; p < to; p++) {
                if (!x->budget)
                    return 1;
                x->budget--;
                if (inside_held(x, t, p, x->held, nh))
                    continue;
                moved |= spread(x, t, ft_ctm_at(c, t, p), x->held, nh);
            }
            x->scan[t] = from;
        }
    }
    /* where it can come back: a conflict with x_j, before it */
    n = vo_objects_of(c, ft_ctm_at(c, a, pj), obj, all);
    for (uint32_t t = 0; t < x->nt; t++) {
        if (t == a || x->taint[t] >= x->hi[t])
            continue;
        for (int i = 0; i < n; i++)
            if (first_on(x, obj[i], all[i], t, x->taint[t], x->hi[t],
                         x->held, nh) < x->hi[t])
                return 1;
    }
    return !x->budget;
}

int vo_ca_pairs_hold(const ft_value_order *v, const vo_free *fr)
{
    const ft_pregion *g = fr->g;
    const ft_ctm *c = v->c;
    uint32_t a = g->thread, nt = c->nthreads, k = 0, nlocks = 0;
    uint32_t q[VC_MAX_SHARED], locks[VC_MAX_SHARED + VO_MAX_HELD];
    for (uint32_t p = g->first; p <= g->last; p++) {
        uint32_t y = ft_ctm_at(c, a, p);
        if (c->op[y] == FT_OP_FORK || c->op[y] == FT_OP_JOIN)
            return 0; /* the path may run through the child */
        if (!ft_ctm_is_shared(c, y))
            continue;
        if (k == VC_MAX_SHARED)
            return 0;
        q[k++] = p;
        int acq;
        uint32_t lk = vo_lock_op(c, y, &acq), l;
        for (l = 0; lk != VO_NONE && l < nlocks && locks[l] != lk; l++)
            ;
        if (lk != VO_NONE && l == nlocks)
            locks[nlocks++] = lk;
    }
    /* and the locks held as the region begins, taken before it */
    nlocks = vo_add_held_on_entry(v, a, g->first, locks, nlocks);
    vc x = {v,    c,    a,    nt,   q,    k,        *fr,
            locks, nlocks, NULL, NULL, NULL, NULL, NULL, VC_BUDGET};
    uint32_t *mem = malloc(sizeof *mem * (4 * (size_t)nt + 1));
    x.held = malloc(sizeof *x.held * ((size_t)nlocks + 1));
    int ok = mem && x.held;
    if (ok) {
        x.lo = mem;
        x.hi = mem + nt;
        x.taint = mem + 2 * (size_t)nt;
        x.scan = mem + 3 * (size_t)nt;
    }
    for (uint32_t jj = 1; ok && jj < k; jj++) {
        uint32_t pj = q[jj];
        /* from hi[t] on, thread t runs after x_j */
        for (uint32_t t = 0; t < nt; t++) {
            x.hi[t] = t == a ? 0 : ft_value_order_first_after(v, t, a, pj);
            for (uint32_t l = 0; t != a && l < nlocks; l++) {
                const vo_cs *s2 = vo_cs_at(v, locks[l], a, pj);
                const vo_cs *s = s2 ? vo_cs_at(v, locks[l], t, x.hi[t])
                                    : NULL;
                if (s && s->acq < x.hi[t] && (s->excl || s2->excl))
                    x.hi[t] = s->acq;
            }
        }
        for (uint32_t ii = 0; ok && ii < jj; ii++)
            ok = !pair_open(&x, ii, jj);
    }
    free(mem);
    free(x.held);
    return ok;
}

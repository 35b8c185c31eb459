/* SPDX-License-Identifier: MIT */
/* vorder_holds.c - what the value order proves about a property
 * (docs/prediction.md, "the value order"): a CMA property whose regions
 * it orders holds; a CA property holds when no conflicting transition of
 * another thread can run inside the region. */
#include "predict/vorder.h"

#include <stdlib.h>

/* Regions longer than this are not tried (the per-object work). */
#define VO_MAX_REGION 4096
/* Conflicting transitions of other threads looked at one by one (their
 * critical sections) per CA property. */
#define VO_MAX_LOCKED_CHECKS 65536

/* Whether thread t's clock, other threads' columns, differs between
 * positions p and r (p < r). */
static int row_grew(const ft_value_order *v, uint32_t t, uint32_t p,
                    uint32_t r)
{
    const uint32_t *x = vo_row_at(v, t, p), *y = vo_row_at(v, t, r);
    if (x == y)
        return 0;
    for (uint32_t j = 0; j < v->nt; j++)
        if (j != t && (x ? x[j] : 0) != (y ? y[j] : 0))
            return 1;
    return 0;
}

static uint32_t free_read(const ft_value_order *v, const ft_pregion *g)
{
    const ft_ctm *c = v->c;
    for (uint32_t q = g->first; q <= g->last; q++) {
        uint32_t y = ft_ctm_at(c, g->thread, q), o = c->obj[y], n;
        if (!ft_ctm_reads(c, y) || o >= c->nvars ||
            c->vars[o].kind != FT_VAR_MEMORY || !c->vars[o].written)
            continue;
        /* a read whose rule added nothing to the clock (it returned the
         * initial value, or a write the thread already followed) left
         * nothing to rest on it */
        for (n = q + 1; n < c->len[g->thread] &&
                        !ft_ctm_is_shared(c, ft_ctm_at(c, g->thread, n));
             n++)
            ;
        if (n >= c->len[g->thread] || row_grew(v, g->thread, q, n))
            return q;
    }
    return g->last + 1;
}

/* Whether a transition of thread a at position q is where the value
 * order takes in a's clock (a write, a release, a fork, a notify, a
 * post, a barrier or once op, the thread's end: vorder.c's rules), and
 * not a write: a write is read only by schedules in which it is certain
 * (smt/data.c), so what is taken in through it rests on nothing free. */
static int sync_source(const ft_ctm *c, uint32_t a, uint32_t q)
{
    switch (c->op[ft_ctm_at(c, a, q)]) {
    case FT_OP_READ:
    case FT_OP_WRITE:
    case FT_OP_RMW:
    case FT_OP_LOCK:
    case FT_OP_LOCK_FAIL:
    case FT_OP_RDLOCK:
    case FT_OP_WRLOCK:
    case FT_OP_RWLOCK_FAIL:
    case FT_OP_WAIT_POST:
    case FT_OP_SEM_WAIT:
    case FT_OP_SEM_FAIL:
    case FT_OP_BARRIER_LEAVE:
    case FT_OP_ONCE_SKIP:
    case FT_OP_JOIN:
    case FT_OP_FREE:
        return q + 1 == c->len[a];
    default:
        return 1;
    }
}

/* Whether another thread may have taken in region g's thread a at
 * position q (rg < q <= g->last) through an edge that holds also when
 * a's free read rg returned another value.  A data edge never does (the
 * writes after rg are uncertain then).  A release does when another
 * thread's clock may have known the section's acquisition through
 * something of a at or before rg (a write or a sync source from the
 * acquisition to rg): then mutual exclusion puts the whole section,
 * free read included, before that thread; when the section began after
 * rg, what knew it came through q's predecessors, checked on their
 * own.  Any other sync source does. */
static int takes_past(const ft_value_order *v, const ft_pregion *g,
                      uint32_t rg, uint32_t q)
{
    const ft_ctm *c = v->c;
    uint32_t a = g->thread, x = ft_ctm_at(c, a, q);
    int acq;
    uint32_t lk = vo_lock_op(c, x, &acq);
    if (lk == VO_NONE || acq)
        return sync_source(c, a, q);
    if (q + 1 == c->len[a])
        return 1;
    const vo_cs *s = vo_cs_at(v, lk, a, q);
    if (!s)
        return 1;
    for (uint32_t p = s->acq; p <= rg; p++) {
        uint32_t y = ft_ctm_at(c, a, p);
        if (ft_ctm_writes(c, y) || sync_source(c, a, p))
            return 1;
    }
    return 0;
}

void vo_free_of(const ft_value_order *v, const ft_pregion *g, vo_free *f)
{
    f->g = g;
    f->rg = free_read(v, g);
    /* past g->last, g's thread runs only when its region's reads
     * matched: only the region's own transitions are looked at */
    for (f->taken = f->rg + 1;
         f->taken <= g->last && !takes_past(v, g, f->rg, f->taken);
         f->taken++)
        ;
}

uint32_t vo_before_clean(const ft_value_order *v, uint32_t t, uint32_t p,
                         uint32_t j, const vo_free *f)
{
    const ft_pregion *g = f->g;
    if (f->rg > g->last) /* no free read the clocks took in */
        return vo_before(v, t, p, j);
    if (t == g->thread)
        return vo_before(v, t, p > f->rg ? f->rg : p, j);
    /* g's thread came into t's row through its transitions before ca */
    if (f->taken <= g->last && vo_before(v, t, p, g->thread) > f->taken)
        return 0;
    return vo_before(v, t, p, j);
}

/* The clocks only grow along a thread: the first row that knows it. */
uint32_t ft_value_order_first_after(const ft_value_order *v, uint32_t t,
                                    uint32_t a, uint32_t q)
{
    uint32_t lo = 0, hi = v->nrows[t];
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (v->vc[t][(size_t)m * v->nt + a] < q + 1)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < v->nrows[t] ? v->rpos[t][lo] : v->c->len[t];
}

typedef struct vo_obj {
    uint32_t obj;
    uint8_t all;   /* every access conflicts (else only writes) */
    uint8_t quiet; /* no conflicting transition of another thread may
                      run inside the region */
} vo_obj;

static int cmp_obj(const void *a, const void *b)
{
    const vo_obj *p = a, *q = b;
    if (p->obj != q->obj)
        return p->obj < q->obj ? -1 : 1;
    return (q->all > p->all) - (q->all < p->all); /* "all" first */
}

/* Whether thread t has a transition in [lo, hi) that conflicts with the
 * region's accesses to o. */
static int conflict_in(const ft_value_order *v, const vo_obj *o, uint32_t t,
                       uint32_t lo, uint32_t hi)
{
    const uint32_t *first = o->all ? v->ix->all_first : v->ix->wr_first;
    const uint32_t *list = o->all ? v->ix->all : v->ix->wr;
    uint32_t a = first[o->obj], b = first[o->obj + 1];
    return lo < hi && ft_slice_upper(v->c, list, a, b, t, hi) >
                          ft_slice_upper(v->c, list, a, b, t, lo);
}

/* Whether every transition of thread t in [lo, hi) that conflicts with
 * the region's accesses to o lies inside one of t's critical sections
 * of lock lk (exclusive, or any when the region's hold is: excl); such a
 * transition cannot run while the region's thread holds lk.  *budget
 * bounds the transitions looked at over the whole property: 0 once it
 * is spent (then the answer is no). */
static int conflicts_locked(const ft_value_order *v, const vo_obj *o,
                            uint32_t t, uint32_t lo, uint32_t hi,
                            uint32_t lk, int excl, uint32_t *budget)
{
    const uint32_t *first = o->all ? v->ix->all_first : v->ix->wr_first;
    const uint32_t *list = o->all ? v->ix->all : v->ix->wr;
    uint32_t a = first[o->obj], b = first[o->obj + 1];
    if (lo >= hi)
        return 1;
    uint32_t i = ft_slice_upper(v->c, list, a, b, t, lo);
    uint32_t e = ft_slice_upper(v->c, list, a, b, t, hi);
    for (; i < e; i++) {
        if (!*budget)
            return 0;
        (*budget)--;
        const vo_cs *s = vo_cs_at(v, lk, t, v->c->pos[list[i]]);
        if (!s || !(s->excl || excl))
            return 0;
    }
    return 1;
}

static const vo_obj *find_obj(const vo_obj *objs, uint32_t n, uint32_t o)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (objs[m].obj < o)
            a = m + 1;
        else
            b = m;
    }
    return a < n && objs[a].obj == o ? &objs[a] : NULL;
}

/* Whether transition x of the region touches an object that is not
 * quiet. */
static int noisy(const ft_ctm *c, const vo_obj *objs, uint32_t n, uint32_t x)
{
    const vo_obj *o = find_obj(objs, n, c->obj[x]);
    const vo_obj *o2 = c->obj2[x] != FT_CTM_NONE
                           ? find_obj(objs, n, c->obj2[x]) : NULL;
    return (o && !o->quiet) || (o2 && !o2->quiet);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The objects region g touches (sorted, unique, all quiet) into objs
 * and the mutexes and rwlocks it takes or releases (sorted, unique)
 * into locks.
 * Returns the object count; -1 when the region forks or joins. */
static long region_objects(const ft_ctm *c, const ft_pregion *g,
                           vo_obj *objs, uint32_t *locks, uint32_t *nl)
{
    uint32_t no = 0, k = 0;
    *nl = 0;
    for (uint32_t q = g->first; q <= g->last; q++) {
        uint32_t x = ft_ctm_at(c, g->thread, q), o = c->obj[x];
        if (!ft_ctm_is_shared(c, x))
            continue;
        if (o == FT_CTM_NONE)
            return -1;
        int mem = c->vars[o].kind == FT_VAR_MEMORY;
        objs[no++] = (vo_obj){o, (uint8_t)(!mem || ft_ctm_writes(c, x)), 1};
        if (c->obj2[x] != FT_CTM_NONE)
            objs[no++] = (vo_obj){c->obj2[x], 1, 1};
        int acq;
        uint32_t lk = vo_lock_op(c, x, &acq);
        if (lk != VO_NONE)
            locks[(*nl)++] = lk;
    }
    qsort(objs, no, sizeof *objs, cmp_obj);
    for (uint32_t i = 0; i < no; i++)
        if (!k || objs[i].obj != objs[k - 1].obj)
            objs[k++] = objs[i];
    qsort(locks, *nl, sizeof *locks, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < *nl; i++)
        if (!u || locks[i] != locks[u - 1])
            locks[u++] = locks[i];
    *nl = u;
    return k;
}

/* CA: no transition of another thread that conflicts with region g can
 * run between its first and last transition: each such transition of
 * thread t must come before the region or after it.  The region's
 * transitions that conflict with something in those gaps are its noisy
 * ones; a violation runs another thread's transition between two of
 * them, so the gaps shrink to what may run between the first and the
 * last noisy one.  Transitions of t inside a critical section whose end
 * must follow the last noisy one, on a lock whose sections of the
 * region's thread hold every noisy one, cannot either when one of the
 * two sections is exclusive: had that section begun inside the region,
 * the region could not go on (docs/prediction.md). */
static int ca_holds(const ft_value_order *v, const ft_pregion *g,
                    const vo_free *fr)
{
    const ft_ctm *c = v->c;
    uint32_t a = g->thread, n = g->last - g->first + 1, nt = c->nthreads;
    if (n > VO_MAX_REGION)
        return 0;
    vo_obj *objs = malloc(sizeof *objs * (2 * (size_t)n + 1));
    uint32_t *locks = malloc(sizeof *locks * ((size_t)n + VO_MAX_HELD + 1));
    uint8_t *aexcl = malloc((size_t)n + 1);
    uint32_t nl = 0;
    long no = objs && locks && aexcl ? region_objects(c, g, objs, locks, &nl)
                                     : -1;
    int ok = 0, loud = 0;
    if (no < 0)
        goto out;
    /* which objects another thread may touch inside the region */
    for (uint32_t t = 0; t < nt; t++) {
        if (t == a)
            continue;
        uint32_t lo = vo_before(v, a, g->first, t);
        uint32_t hi = ft_value_order_first_after(v, t, a, g->last);
        for (long i = 0; i < no; i++)
            if (objs[i].quiet && conflict_in(v, &objs[i], t, lo, hi)) {
                objs[i].quiet = 0;
                loud = 1;
            }
    }
    if (!loud) {
        ok = 1;
        goto out;
    }
    /* and the locks held as the region begins, taken before it (looked
     * for only now: the walk back costs up to VO_ENTRY_WALK steps) */
    nl = vo_add_held_on_entry(v, a, g->first, locks, nl);
    uint32_t qf = VO_NONE, ql = 0; /* the first and last noisy ones */
    for (uint32_t q = g->first; q <= g->last; q++) {
        uint32_t x = ft_ctm_at(c, a, q);
        if (ft_ctm_is_shared(c, x) && noisy(c, objs, (uint32_t)no, x)) {
            qf = qf == VO_NONE ? q : qf;
            ql = q;
        }
    }
    /* the locks whose sections of thread a hold every noisy one, and
     * whether those sections are all exclusive (then they exclude read
     * holds too); one lock whose single section holds them all (held
     * from the first noisy one to the last: nothing another thread does
     * inside its own section of it can run in between) */
    uint32_t k = 0, one = VO_NONE;
    int one_excl = 0;
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t q, excl = 1, acq = VO_NONE;
        int single = 1;
        for (q = qf; q <= ql; q++) {
            uint32_t x = ft_ctm_at(c, a, q);
            if (!ft_ctm_is_shared(c, x) || !noisy(c, objs, (uint32_t)no, x))
                continue;
            const vo_cs *s = vo_cs_at(v, locks[i], a, q);
            if (!s)
                break;
            excl &= s->excl;
            single &= acq == VO_NONE || s->acq == acq;
            acq = s->acq;
        }
        if (q > ql) {
            aexcl[k] = excl;
            locks[k++] = locks[i];
            if (single && (one == VO_NONE || (excl && !one_excl))) {
                one = locks[i];
                one_excl = (int)excl;
            }
        }
    }
    nl = k;
    uint32_t budget = VO_MAX_LOCKED_CHECKS;
    for (uint32_t t = 0; t < nt; t++) {
        if (t == a)
            continue;
        uint32_t lo = vo_before_clean(v, a, qf, t, fr);
        uint32_t hi = ft_value_order_first_after(v, t, a, ql);
        for (uint32_t i = 0; i < nl; i++) {
            const vo_cs *s = vo_cs_at(v, locks[i], t, hi);
            if (s && s->acq < hi && (s->excl || aexcl[i]))
                hi = s->acq;
        }
        for (long i = 0; i < no; i++)
            if (!objs[i].quiet && conflict_in(v, &objs[i], t, lo, hi) &&
                (one == VO_NONE ||
                 !conflicts_locked(v, &objs[i], t, lo, hi, one, one_excl,
                                   &budget)))
                goto out;
    }
    ok = 1;
out:
    free(objs);
    free(locks);
    free(aexcl);
    return ok;
}

/* The locks held as region g begins: taken at its first transition or
 * before it (vo_add_held_on_entry), into locks (room for VO_MAX_HELD +
 * 1).  Returns how many. */
static uint32_t held_at_start(const ft_value_order *v, const ft_pregion *g,
                              uint32_t *locks)
{
    int acq;
    uint32_t n = 0;
    uint32_t lk = vo_lock_op(v->c, ft_ctm_at(v->c, g->thread, g->first), &acq);
    if (lk != VO_NONE && acq)
        locks[n++] = lk;
    return vo_add_held_on_entry(v, g->thread, g->first, locks, n);
}

/* The locks whose one section of b's thread holds the whole of region
 * b and is released past b's last transition, or never: into locks and
 * secs (room for VO_MAX_HELD + 1).  Returns how many. */
static uint32_t held_across(const ft_value_order *v, const ft_pregion *b,
                            uint32_t *locks, const vo_cs **secs)
{
    uint32_t n = held_at_start(v, b, locks), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const vo_cs *s = vo_cs_at(v, locks[i], b->thread, b->first);
        if (s && (s->rel == VO_NONE || s->rel > b->last)) {
            locks[k] = locks[i];
            secs[k++] = s;
        }
    }
    return k;
}

/* The first position of b's thread, from lo on, whose transitions may
 * come before a's transition at position q, by mutual exclusion: b lies
 * in one section S of a lock (held_across) and q in a section T of a's
 * thread on the same lock, one of the two exclusive.  A transition of S
 * before q puts S before T whole, S's release before T's acquisition.
 * But S is released past b's last transition, which b's thread runs
 * only when b's reads returned their recorded values; then the value
 * order holds for it (clean of a's free read, fa), and when it puts T's
 * acquisition before S's release, no transition of S comes before q.
 * sysprog21's tpool: main's `future->flag &= ~TIMEOUT` under the
 * future's mutex, which it releases only after reading FINISHED, against
 * a worker's region from `flag |= RUNNING` to its next section's read of
 * the flag (63 CMA pairs whose smallest window was too big to solve). */
static uint32_t past_held(const ft_value_order *v, const ft_pregion *b,
                          const uint32_t *locks, const vo_cs *const *secs,
                          uint32_t nl, uint32_t ta, uint32_t q,
                          const vo_free *fa, uint32_t lo)
{
    for (uint32_t i = 0; i < nl; i++) {
        const vo_cs *t = vo_cs_at(v, locks[i], ta, q);
        if (!t || !(t->excl || secs[i]->excl))
            continue;
        uint32_t end =
            secs[i]->rel == VO_NONE ? v->c->len[b->thread] : secs[i]->rel + 1;
        if (end > lo &&
            (secs[i]->rel == VO_NONE ||
             vo_before_clean(v, b->thread, secs[i]->rel, ta, fa) > t->acq))
            lo = end;
    }
    return lo;
}

/* CMA, one direction: nothing reached from region b can reach into
 * region a.  What b reaches starts at b's first transition, so in each
 * thread j it lies at positions from lo[j] on (those that need not
 * precede b's first).  Region a's thread is entered, at or before a's
 * last transition, by a conflict: some transition z of a's thread from
 * lo on, and a transition of another thread u, from lo[u] on, that
 * conflicts with z and need not follow it.  No such pair: no cycle
 * through b and a, whatever else the schedule does.  b's reads may
 * return other values (the data rule leaves them free), so what the
 * value order says of b's thread inside b is not used.  An entry into
 * a's thread is looked for at positions from `from` on only (0: all;
 * one_lock_apart's case split). */
static int cannot_reach(const ft_value_order *v, const ft_pregion *a,
                        const ft_pregion *b, uint32_t from)
{
    const ft_ctm *c = v->c;
    uint32_t nt = c->nthreads, ta = a->thread;
    uint32_t *lo = malloc(sizeof *lo * (nt + 1));
    int ok = 0;
    if (!lo)
        return 0;
    /* b's first row is clean of b's free reads; of a's, it need not be */
    vo_free fa;
    vo_free_of(v, a, &fa);
    for (uint32_t j = 0; j < nt; j++)
        lo[j] = j == b->thread ? b->first
                               : vo_before_clean(v, b->thread, b->first, j,
                                                 &fa);
    uint32_t start = lo[ta] > from ? lo[ta] : from;
    if (start > a->last) {
        ok = 1; /* a must end before b begins, or before the entry */
        goto out;
    }
    if (a->last - start > VO_MAX_REGION)
        goto out;
    uint32_t f = c->fork_trans[ta];
    if (start == lo[ta] && f != FT_CTM_NONE && c->pos[f] >= lo[c->tid[f]])
        goto out; /* its fork may come after b began */
    uint32_t locks[VO_MAX_HELD + 1];
    const vo_cs *secs[VO_MAX_HELD + 1];
    uint32_t nl = held_across(v, b, locks, secs);
    for (uint32_t q = start; q <= a->last; q++) {
        uint32_t z = ft_ctm_at(c, ta, q);
        if (c->op[z] == FT_OP_JOIN) {
            uint64_t u = c->value[z];
            if (u < nt && u != ta && lo[u] < c->len[u])
                goto out;
            continue;
        }
        uint32_t obj[2];
        int all[2], n = vo_objects_of(c, z, obj, all);
        for (int i = 0; i < n; i++) {
            vo_obj o = {obj[i], (uint8_t)all[i], 0};
            for (uint32_t u = 0; u < nt; u++) {
                if (u == ta)
                    continue;
                uint32_t hi = ft_value_order_first_after(v, u, ta, q);
                uint32_t from_u = lo[u];
                if (u == b->thread && hi <= b->last)
                    hi = b->last + 1;
                if (u == b->thread && nl)
                    from_u =
                        past_held(v, b, locks, secs, nl, ta, q, &fa, from_u);
                if (conflict_in(v, &o, u, from_u, hi))
                    goto out;
            }
        }
    }
    ok = 1;
out:
    free(lo);
    return ok;
}

/* CMA by mutual exclusion: each region begins inside a critical section
 * of the same lock (taken before the region or at its first transition),
 * and one of the two sections is exclusive.  No schedule runs the two
 * sections at once.  When a's section comes first, b begins after it
 * ended, so what b reaches enters a's thread after a's section was
 * released: a cycle needs an entry into a after that release, at or
 * before a's last transition; when b's comes first, the same of b.  Both
 * excluded (cannot_reach from the release on): no cycle.  A region inside
 * its section (released at or after its last transition, or never)
 * leaves nothing to look at.  pigz's `twist(bolt, BY, -1)` (yarn.c:
 * `bolt->value += val` under a lock its caller took) in two threads:
 * cannot_reach from the regions' starts meets their threads' earlier lock
 * operations, which conflict with a third thread's, and the solver took
 * 9-12 s on the whole trace for each such pair.  C-Thread-Pool's
 * thread_do start (`num_threads_alive += 1` under thcount_lock, then
 * reads of variables no one writes any more) in two workers: the reads
 * after the section are entered by nothing (7 s each, and unknown). */
static int one_lock_apart(const ft_value_order *v, const ft_pregion *a,
                          const ft_pregion *b)
{
    if (a->thread == b->thread)
        return 0; /* one section may hold both */
    uint32_t locks[VO_MAX_HELD + 1];
    uint32_t n = held_at_start(v, a, locks);
    for (uint32_t i = 0; i < n; i++) {
        const vo_cs *sa = vo_cs_at(v, locks[i], a->thread, a->first);
        const vo_cs *sb = vo_cs_at(v, locks[i], b->thread, b->first);
        if (!sa || !sb || !(sa->excl || sb->excl))
            continue;
        uint32_t fa = sa->rel == VO_NONE || sa->rel >= a->last ? a->last + 1
                                                               : sa->rel + 1;
        uint32_t fb = sb->rel == VO_NONE || sb->rel >= b->last ? b->last + 1
                                                               : sb->rel + 1;
        if ((fa > a->last || cannot_reach(v, a, b, fa)) &&
            (fb > b->last || cannot_reach(v, b, a, fb)))
            return 1;
    }
    return 0;
}

int ft_value_order_holds(const ft_value_order *v, const ft_prop *p)
{
    if (p->kind == FT_PROP_CA) {
        vo_free fr;
        vo_free_of(v, &p->r[0], &fr);
        return ca_holds(v, &p->r[0], &fr) || vo_ca_pairs_hold(v, &fr);
    }
    return one_lock_apart(v, &p->r[0], &p->r[1]) ||
           cannot_reach(v, &p->r[0], &p->r[1], 0) ||
           cannot_reach(v, &p->r[1], &p->r[0], 0);
}

/* SPDX-License-Identifier: MIT */
/* calib_order.c - which shared variables of the calibration run another
 * schedule can reorder, so that SURW spends its draw of interesting
 * variables on those.  SURW makes every order of the chosen variables'
 * accesses equally likely; a variable whose accesses no schedule
 * reorders, or whose order is its lock's, only dilutes the draw.  Two
 * rules, each about orders every schedule of the same code keeps
 * (happens-before below is thread creation and join with program order,
 * which no schedule changes):
 *
 * - initialised before use: one thread writes the variable, and every
 *   write happens before the creation of each other thread that touches
 *   it (a configuration read by the workers: nstages in data/stages.c).
 *   A variable no thread writes is one of these too.  A write by a worker
 *   that main reads after the join does not count: another schedule may
 *   let a thread read it earlier (stages.c's result);
 * - protected: among its accesses that are concurrent with some access by
 *   another thread, every one holds the same lock, which two or more
 *   threads take (stages.c's token, under m): the order of those accesses
 *   is the lock's, and the lock stays a candidate.  An access ordered with
 *   every other thread's (main's read after the joins) needs no lock.
 *
 * Locks themselves are always kept.  One run shows only the accesses it
 * made: a code path it did not take may touch a variable differently.
 * The concurrency test is a vector clock per thread; the accesses not yet
 * known to be concurrent wait per (variable, thread) in segments of equal
 * clock (ORD_MAX_SEGS, then merged: fewer exclusions, never more).  Past
 * ORD_MAX_BYTES of state it stops and keeps every variable (SURW's plain
 * list).  tests/explore/test_calib_order.c checks both rules against the
 * closure of the happens-before graph on random runs. */
#include "replay/calib_order.h"

#include <stdlib.h>
#include <string.h>

#define ORD_MAX_THREADS 1024
#define ORD_MAX_BYTES ((size_t)64 << 20)
#define ORD_MAX_HELD 16
#define ORD_MAX_LOCKSET 8
#define ORD_MAX_SEGS 4

/* A set of lock keys (an intersection of held sets). */
typedef struct ord_lockset {
    uint8_t n;
    uint64_t key[ORD_MAX_LOCKSET];
} ord_lockset;

/* Accesses of one thread at one clock value not yet seen concurrent with
 * another thread's: the locks all of them held. */
typedef struct ord_seg {
    uint64_t clk;
    ord_lockset held;
} ord_seg;

typedef struct ord_thr {
    uint32_t tid;
    uint8_t nseg;
    uint64_t last_clk; /* the thread's clock at its last access */
    ord_seg seg[ORD_MAX_SEGS];
} ord_thr;

typedef struct ord_var {
    uint64_t key; /* 0: free slot */
    int lock, multi, post_init, refined;
    int32_t first_tid;
    uint32_t wtid;   /* the writer, while there is one */
    uint64_t wclk;   /* its clock at its last write; 0: none */
    ord_lockset ls;  /* over the accesses concurrent with another's */
    ord_thr *thr;
    uint32_t nthr, cthr;
} ord_var;

struct fx_order {
    int off;         /* gave up: keep every variable */
    uint32_t tcap;   /* threads with clocks, and their dimension */
    uint64_t *vc;    /* tcap x tcap */
    uint64_t *start; /* tcap x tcap: each thread's clock when created */
    uint64_t (*held)[ORD_MAX_HELD];
    uint8_t *nheld;
    ord_var *v;
    size_t vcap, vused;
    size_t bytes;
};

fx_order *fx_order_new(void)
{
    return calloc(1, sizeof(fx_order));
}

void fx_order_free(fx_order *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->vcap; i++)
        free(o->v[i].thr);
    free(o->v);
    free(o->vc);
    free(o->start);
    free(o->held);
    free(o->nheld);
    free(o);
}

static int give_up(fx_order *o)
{
    o->off = 1;
    return -1;
}

static int charge(fx_order *o, size_t bytes)
{
    o->bytes += bytes;
    return o->bytes > ORD_MAX_BYTES ? give_up(o) : 0;
}

static int grow_threads(fx_order *o, uint32_t t)
{
    uint32_t n = o->tcap, m = n ? n : 64;
    while (m <= t)
        m *= 2;
    size_t cells = (size_t)m * m;
    if (charge(o, 2 * (cells - (size_t)n * n) * sizeof(uint64_t) +
                      (size_t)(m - n) * (sizeof *o->held + 1)) < 0)
        return -1;
    uint64_t *vc = calloc(cells, sizeof *vc), *start = calloc(cells, sizeof *start);
    uint64_t(*held)[ORD_MAX_HELD] = realloc(o->held, (size_t)m * sizeof *held);
    if (held)
        o->held = held;
    uint8_t *nheld = realloc(o->nheld, m);
    if (nheld)
        o->nheld = nheld;
    if (!vc || !start || !held || !nheld) {
        free(vc);
        free(start);
        return give_up(o);
    }
    memset(o->nheld + n, 0, m - n);
    for (uint32_t a = 0; a < n; a++) {
        memcpy(vc + (size_t)a * m, o->vc + (size_t)a * n, n * sizeof *vc);
        memcpy(start + (size_t)a * m, o->start + (size_t)a * n, n * sizeof *start);
    }
    free(o->vc);
    free(o->start);
    o->vc = vc;
    o->start = start;
    o->tcap = m;
    return 0;
}

/* Thread t has a clock, its own entry at least 1. */
static int thread(fx_order *o, uint32_t t)
{
    if (t >= ORD_MAX_THREADS)
        return give_up(o);
    if (t >= o->tcap && grow_threads(o, t) < 0)
        return -1;
    uint64_t *self = &o->vc[(size_t)t * o->tcap + t];
    if (!*self)
        *self = 1;
    return 0;
}

static uint64_t *clock_of(const fx_order *o, uint64_t *vcs, uint32_t t)
{
    return vcs + (size_t)t * o->tcap;
}

static void join(uint64_t *dst, const uint64_t *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

static size_t hash(uint64_t k, size_t cap)
{
    return (size_t)(k * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static ord_var *var_find(const fx_order *o, uint64_t key)
{
    if (!o->vcap)
        return NULL;
    size_t h = hash(key, o->vcap);
    while (o->v[h].key && o->v[h].key != key)
        h = (h + 1) & (o->vcap - 1);
    return o->v[h].key ? &o->v[h] : NULL;
}

static ord_var *var_get(fx_order *o, uint64_t key)
{
    if ((o->vused + 1) * 2 > o->vcap) {
        size_t ncap = o->vcap ? o->vcap * 2 : 256;
        if (charge(o, (ncap - o->vcap) * sizeof(ord_var)) < 0)
            return NULL;
        ord_var *nv = calloc(ncap, sizeof *nv);
        if (!nv)
            return give_up(o), NULL;
        for (size_t i = 0; i < o->vcap; i++) {
            if (!o->v[i].key)
                continue;
            size_t h = hash(o->v[i].key, ncap);
            while (nv[h].key)
                h = (h + 1) & (ncap - 1);
            nv[h] = o->v[i];
        }
        free(o->v);
        o->v = nv;
        o->vcap = ncap;
    }
    size_t h = hash(key, o->vcap);
    while (o->v[h].key && o->v[h].key != key)
        h = (h + 1) & (o->vcap - 1);
    if (!o->v[h].key) {
        o->v[h].key = key;
        o->v[h].first_tid = -1;
        o->vused++;
    }
    return &o->v[h];
}

static ord_thr *thr_get(fx_order *o, ord_var *v, uint32_t t)
{
    for (uint32_t i = 0; i < v->nthr; i++)
        if (v->thr[i].tid == t)
            return &v->thr[i];
    if (v->nthr == v->cthr) {
        uint32_t n = v->cthr ? v->cthr * 2 : 4;
        if (charge(o, (size_t)(n - v->cthr) * sizeof(ord_thr)) < 0)
            return NULL;
        ord_thr *nt = realloc(v->thr, n * sizeof *nt);
        if (!nt)
            return give_up(o), NULL;
        v->thr = nt;
        v->cthr = n;
    }
    ord_thr *r = &v->thr[v->nthr++];
    memset(r, 0, sizeof *r);
    r->tid = t;
    return r;
}

/* into = into and with (the keys of both); into of no access yet (fresh)
 * takes with. */
static void meet(ord_lockset *into, const ord_lockset *with, int fresh)
{
    if (fresh) {
        *into = *with;
        return;
    }
    uint8_t n = 0;
    for (uint8_t i = 0; i < into->n; i++)
        for (uint8_t j = 0; j < with->n; j++)
            if (into->key[i] == with->key[j]) {
                into->key[n++] = into->key[i];
                break;
            }
    into->n = n;
}

/* The locks thread t holds now, each once. */
static void held_now(const fx_order *o, uint32_t t, ord_lockset *out)
{
    out->n = 0;
    for (uint8_t i = 0; i < o->nheld[t]; i++) {
        uint64_t k = o->held[t][i];
        uint8_t j = 0;
        while (j < out->n && out->key[j] != k)
            j++;
        if (j == out->n && out->n < ORD_MAX_LOCKSET)
            out->key[out->n++] = k;
    }
}

static void refine(ord_var *v, const ord_lockset *held)
{
    meet(&v->ls, held, !v->refined);
    v->refined = 1;
}

static int access_data(fx_order *o, uint64_t key, uint32_t t, int write)
{
    ord_var *v = var_get(o, key);
    if (!v)
        return -1;
    const uint64_t *vc = clock_of(o, o->vc, t);
    /* initialised before use */
    int other_before = v->first_tid >= 0 && (v->multi || v->first_tid != (int32_t)t);
    if (write) {
        if (other_before || (v->wclk && v->wtid != t))
            v->post_init = 1;
        v->wtid = t;
        v->wclk = vc[t];
    } else if (v->wclk && v->wtid != t &&
               v->wclk > clock_of(o, o->start, t)[v->wtid]) {
        v->post_init = 1;
    }
    if (v->first_tid < 0)
        v->first_tid = (int32_t)t;
    else if (v->first_tid != (int32_t)t)
        v->multi = 1;
    /* protected: the other threads' accesses this one is concurrent with
     * are their segments past what t has seen of them */
    int conc = 0;
    for (uint32_t i = 0; i < v->nthr; i++) {
        ord_thr *r = &v->thr[i];
        uint64_t seen = vc[r->tid];
        if (r->tid == t || r->last_clk <= seen)
            continue;
        conc = 1;
        uint8_t keep = 0;
        for (uint8_t s = 0; s < r->nseg; s++) {
            if (r->seg[s].clk > seen)
                refine(v, &r->seg[s].held);
            else
                r->seg[keep++] = r->seg[s];
        }
        r->nseg = keep;
    }
    ord_lockset held;
    held_now(o, t, &held);
    ord_thr *me = thr_get(o, v, t);
    if (!me)
        return -1;
    me->last_clk = vc[t];
    if (conc) {
        refine(v, &held);
        return 0;
    }
    if (me->nseg && me->seg[me->nseg - 1].clk == vc[t]) {
        meet(&me->seg[me->nseg - 1].held, &held, 0);
        return 0;
    }
    if (me->nseg == ORD_MAX_SEGS) { /* merge the two oldest */
        meet(&me->seg[1].held, &me->seg[0].held, 0);
        memmove(&me->seg[0], &me->seg[1], (ORD_MAX_SEGS - 1) * sizeof me->seg[0]);
        me->nseg--;
    }
    me->seg[me->nseg++] = (ord_seg){vc[t], held};
    return 0;
}

static int access_lock(fx_order *o, uint64_t key, uint32_t t)
{
    ord_var *v = var_get(o, key);
    if (!v)
        return -1;
    v->lock = 1;
    if (v->first_tid < 0)
        v->first_tid = (int32_t)t;
    else if (v->first_tid != (int32_t)t)
        v->multi = 1;
    return 0;
}

int fx_order_event(fx_order *o, const ft_event *ev, uint64_t key)
{
    if (o->off)
        return 0;
    uint32_t t = ev->tid;
    if (thread(o, t) < 0)
        return -1;
    switch (ev->kind) {
    case FT_EV_THREAD_CREATE: {
        uint32_t c = (uint32_t)ev->value;
        if (thread(o, c) < 0)
            return -1;
        uint64_t *cvc = clock_of(o, o->vc, c), *pvc = clock_of(o, o->vc, t);
        join(cvc, pvc, o->tcap);
        join(clock_of(o, o->start, c), pvc, o->tcap);
        pvc[t]++;
        return 0;
    }
    case FT_EV_THREAD_JOIN: {
        uint32_t c = (uint32_t)ev->value;
        if (ev->rc == 0 && c < o->tcap)
            join(clock_of(o, o->vc, t), clock_of(o, o->vc, c), o->tcap);
        return 0;
    }
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
        if (ev->rc == 0 && key && o->nheld[t] < ORD_MAX_HELD)
            o->held[t][o->nheld[t]++] = key;
        return key ? access_lock(o, key, t) : 0;
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
        for (int i = o->nheld[t] - 1; key && ev->rc == 0 && i >= 0; i--)
            if (o->held[t][i] == key) {
                memmove(&o->held[t][i], &o->held[t][i + 1],
                        (size_t)(o->nheld[t] - 1 - i) * sizeof o->held[t][i]);
                o->nheld[t]--;
                break;
            }
        return key ? access_lock(o, key, t) : 0;
    case FT_EV_MUTEX_DESTROY:
    case FT_EV_RW_DESTROY:
        return key ? access_lock(o, key, t) : 0;
    case FT_EV_READ:
    case FT_EV_READ_WIDE:
    case FT_EV_ATOMIC_LOAD:
        return key ? access_data(o, key, t, 0) : 0;
    case FT_EV_WRITE:
    case FT_EV_WRITE_WIDE:
    case FT_EV_ATOMIC_STORE:
    case FT_EV_ATOMIC_RMW:
    case FT_EV_ATOMIC_CAS:
        return key ? access_data(o, key, t, 1) : 0;
    default:
        return 0;
    }
}

int fx_order_keep(const fx_order *o, uint64_t key)
{
    if (!o || o->off)
        return 1;
    const ord_var *v = var_find(o, key);
    if (!v || v->lock)
        return 1;
    if (!v->post_init)
        return 0;
    for (uint8_t i = 0; v->refined && i < v->ls.n; i++) {
        const ord_var *l = var_find(o, v->ls.key[i]);
        if (l && l->lock && l->multi)
            return 0;
    }
    return 1;
}

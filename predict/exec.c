/* SPDX-License-Identifier: MIT */
/* exec.c - exact execution of a schedule prefix of a CTM: the guards and
 * updates of docs/ctm.md, the data rule of docs/prediction.md ("data"),
 * and a monitor of the property's reachability that says when the prefix
 * has become a violation (the test avcheck.c and smt/viol.c state the
 * same).  decide.c builds candidate schedules with it; a candidate it
 * accepts is a feasible, data-consistent, violating prefix by
 * construction, so no solver is needed to believe it.  All state is in
 * flat arrays and every change is journaled (ft_exec_mark / ft_exec_undo),
 * so a search tries a continuation and takes it back in the time it ran.
 *
 * Notify: a signal wakes the longest-waiting thread not yet notified (the
 * runtime's choice, recorder/rt/policy_record.c), one of the choices the
 * model allows, so a prefix run here is one the replay follows. */
#include "predict/exec.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* per (object, thread) cells of condition variables, rwlocks, barriers */
#define MAX_CELLS ((uint64_t)1 << 24)

/* memory flags */
enum { M_KNOWN = 1, M_CERTAIN = 2 };
/* thread flags */
enum { T_STARTED = 1, T_TAINTED = 2, T_FROZEN = 4 };


typedef struct jent {
    void *p;
    uint64_t old;
    uint32_t width;
} jent;

struct ft_exec {
    const ft_ctm *c;
    uint32_t nt, nv;
    /* objects */
    uint64_t *val;   /* memory value; barrier generation */
    int64_t *cnt;    /* mutex depth, rwlock readers, semaphore count,
                        barrier arrivals, once state */
    uint32_t *owner; /* mutex owner or rwlock writer + 1, 0 none */
    uint8_t *mflags;
    uint32_t *kidx;  /* per object: first cell, or NONE */
    uint32_t *cell;  /* rwlock: my read holds; cond: waiting sequence
                        number << 2 | 1 waiting | 2 notified; barrier:
                        the generation I arrived in */
    uint32_t waitseq;
    /* threads */
    uint32_t *pos;
    uint32_t *held;  /* locks held (acquisitions not yet released) */
    uint8_t *tflags;
    uint32_t glued;    /* the thread whose last step binds it to run on
                          (ft_ctm_binds): only it may run, or NONE */
    uint32_t *changed; /* the region read of the thread that returned
                          another value and bounds it most, or NONE
                          (the data rule) */
    uint8_t relaxed;   /* the paper's rule: the straight-line bound is
                          not imposed, only noted (broke) */
    uint32_t broke;    /* the first step of this prefix run past it
                          (relaxed), or NONE */
    /* the property (active: journaled, so taking back the call that
     * set it takes the property back too) */
    uint8_t active;
    ft_prop prop;
    uint32_t nreg, rend[2];
    uint8_t has_shared[2];
    /* monitor: per thread, bit g*2+m: reached from region g in mode m
     * (0 every conflict, 1 data only), bit 4+g*2+m: forked by a
     * transition so reached (reached at its first shared one); per
     * object, byte g*2+m: the
     * classes reached (low nibble) and reached by another thread than
     * region g's (high nibble) */
    uint8_t *rthr;
    uint32_t *ocls;
    uint8_t viol;    /* bit m: violated in mode m */
    uint64_t gen;    /* grows whenever the monitor learns something */
    uint8_t hit[2];  /* CMA: bit m, R_g reached the other region */
    uint32_t culprit[2][2];
    jent *j;
    size_t nj, capj;
};

static int journal(ft_exec *x, void *p, uint32_t width)
{
    if (x->nj == x->capj) {
        size_t cap = x->capj ? 2 * x->capj : 1024;
        jent *n = realloc(x->j, cap * sizeof *n);
        if (!n)
            return -1;
        x->j = n;
        x->capj = cap;
    }
    uint64_t old = 0;
    memcpy(&old, p, width);
    x->j[x->nj++] = (jent){p, old, width};
    return 0;
}

/* Journaled stores.  Out of memory while journaling: the store is still
 * made (the state stays exact), only taking it back is lost; decide.c
 * then stops (ft_exec_mark reports it). */
static void set8(ft_exec *x, uint8_t *p, uint8_t v)
{
    if (*p != v) {
        journal(x, p, 1);
        *p = v;
    }
}
static void set32(ft_exec *x, uint32_t *p, uint32_t v)
{
    if (*p != v) {
        journal(x, p, 4);
        *p = v;
    }
}
static void set64(ft_exec *x, void *p, uint64_t v)
{
    uint64_t cur;
    memcpy(&cur, p, 8);
    if (cur != v) {
        journal(x, p, 8);
        memcpy(p, &v, 8);
    }
}

size_t ft_exec_mark(const ft_exec *x)
{
    return x->nj;
}

void ft_exec_commit(ft_exec *x)
{
    x->nj = 0;
}

void ft_exec_undo(ft_exec *x, size_t mark)
{
    while (x->nj > mark) {
        jent *e = &x->j[--x->nj];
        memcpy(e->p, &e->old, e->width);
    }
}

void ft_exec_free(ft_exec *x)
{
    if (!x)
        return;
    free(x->val);
    free(x->cnt);
    free(x->owner);
    free(x->mflags);
    free(x->kidx);
    free(x->cell);
    free(x->pos);
    free(x->held);
    free(x->tflags);
    free(x->changed);
    free(x->rthr);
    free(x->ocls);
    free(x->j);
    free(x);
}

ft_exec *ft_exec_new(const ft_ctm *c)
{
    ft_exec *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->c = c;
    x->nt = c->nthreads;
    x->nv = c->nvars;
    size_t nv = (size_t)x->nv + 1, nt = (size_t)x->nt + 1;
    x->val = malloc(nv * sizeof *x->val);
    x->cnt = malloc(nv * sizeof *x->cnt);
    x->owner = malloc(nv * sizeof *x->owner);
    x->mflags = malloc(nv);
    x->kidx = malloc(nv * sizeof *x->kidx);
    x->ocls = malloc(nv * sizeof *x->ocls);
    x->pos = malloc(nt * sizeof *x->pos);
    x->held = malloc(nt * sizeof *x->held);
    x->tflags = malloc(nt);
    x->changed = malloc(nt * sizeof *x->changed);
    x->rthr = malloc(nt);
    if (!x->val || !x->cnt || !x->owner || !x->mflags || !x->kidx ||
        !x->ocls || !x->pos || !x->held || !x->tflags || !x->changed ||
        !x->rthr)
        goto fail;
    uint64_t cells = 0;
    for (uint32_t v = 0; v < x->nv; v++) {
        uint8_t k = c->vars[v].kind;
        x->kidx[v] = NONE;
        if (k == FT_VAR_RWLOCK || k == FT_VAR_COND || k == FT_VAR_BARRIER) {
            x->kidx[v] = (uint32_t)cells;
            cells += x->nt;
            if (cells > MAX_CELLS)
                goto fail;
        }
    }
    x->cell = malloc(((size_t)cells + 1) * sizeof *x->cell);
    if (!x->cell)
        goto fail;
    memset(x->cell, 0, ((size_t)cells + 1) * sizeof *x->cell);
    ft_exec_reset(x);
    return x;
fail:
    ft_exec_free(x);
    return NULL;
}

void ft_exec_reset(ft_exec *x)
{
    const ft_ctm *c = x->c;
    x->nj = 0;
    for (uint32_t v = 0; v < x->nv; v++) {
        const ft_ctm_var *var = &c->vars[v];
        int known = var->kind == FT_VAR_MEMORY && var->has_init;
        x->val[v] = var->kind == FT_VAR_MEMORY ? var->init : 0;
        x->cnt[v] = 0;
        x->owner[v] = 0;
        x->mflags[v] = known ? M_KNOWN | M_CERTAIN : 0;
        x->ocls[v] = 0;
        if (x->kidx[v] != NONE)
            memset(&x->cell[x->kidx[v]], 0, sizeof *x->cell * x->nt);
    }
    for (uint32_t t = 0; t < x->nt; t++) {
        x->pos[t] = 0;
        x->held[t] = 0;
        x->tflags[t] = c->fork_trans[t] == FT_CTM_NONE ? T_STARTED : 0;
        x->changed[t] = NONE;
        x->rthr[t] = 0;
    }
    x->waitseq = 0;
    x->broke = NONE;
    x->glued = NONE;
    x->active = 0;
    x->viol = 0;
    x->hit[0] = x->hit[1] = 0;
}

uint32_t ft_exec_pos(const ft_exec *x, uint32_t t)
{
    return x->pos[t];
}

uint32_t ft_exec_held(const ft_exec *x, uint32_t t)
{
    return x->held[t];
}

uint64_t ft_exec_value(const ft_exec *x, uint32_t v)
{
    return v < x->nv ? x->val[v] : 0;
}

int ft_exec_frozen(const ft_exec *x, uint32_t t)
{
    return (x->tflags[t] & T_FROZEN) != 0;
}

static int in_region(const ft_exec *x, uint32_t g, uint32_t id)
{
    const ft_pregion *r = &x->prop.r[g];
    return x->active && g < x->nreg && x->c->tid[id] == r->thread &&
           x->c->pos[id] >= r->first && x->c->pos[id] <= r->last;
}

void ft_exec_set_prop(ft_exec *x, const ft_prop *p)
{
    const ft_ctm *c = x->c;
    set8(x, &x->active, p != NULL);
    if (!p)
        return;
    x->prop = *p;
    x->nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    for (uint32_t g = 0; g < x->nreg; g++) {
        x->has_shared[g] = 0;
        for (uint32_t q = p->r[g].first; q <= p->r[g].last; q++)
            if (ft_ctm_is_shared(c, ft_ctm_at(c, p->r[g].thread, q))) {
                x->rend[g] = q;
                x->has_shared[g] = 1;
            }
    }
}

static int lock_ok(const ft_exec *x, uint32_t v, uint32_t t)
{
    return x->owner[v] == 0 ||
           (x->owner[v] == t + 1 &&
            x->c->vars[v].mutex_type == FT_MUTEX_RECURSIVE);
}

static int is_mem_op(unsigned op)
{
    return op >= FT_OP_READ && op <= FT_OP_RMW;
}

/* Whether read id returns its recorded value in the current state. */
static int matches(const ft_exec *x, uint32_t id)
{
    uint32_t v = x->c->obj[id];
    return (x->mflags[v] & (M_KNOWN | M_CERTAIN)) == (M_KNOWN | M_CERTAIN) &&
           x->val[v] == x->c->value[id];
}

static int guard(const ft_exec *x, uint32_t id)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id], v = c->obj[id], m = c->obj2[id];
    switch (c->op[id]) {
    case FT_OP_LOCK:
        return lock_ok(x, v, t);
    case FT_OP_LOCK_FAIL:
        return !lock_ok(x, v, t);
    case FT_OP_RDLOCK:
        return x->owner[v] == 0;
    case FT_OP_WRLOCK:
        return x->owner[v] == 0 && x->cnt[v] == 0;
    case FT_OP_RWLOCK_FAIL:
        return x->owner[v] != 0 || (c->value[id] && x->cnt[v] > 0);
    case FT_OP_WAIT_POST:
        return (m == FT_CTM_NONE || x->owner[m] == 0) &&
               (c->value[id] || (x->cell[x->kidx[v] + t] & 2));
    case FT_OP_SEM_WAIT:
        return x->cnt[v] > 0;
    case FT_OP_SEM_FAIL:
        return x->cnt[v] <= 0;
    case FT_OP_BARRIER_LEAVE:
        return x->val[v] > x->cell[x->kidx[v] + t];
    case FT_OP_ONCE_RUN:
        return x->cnt[v] == 0;
    case FT_OP_ONCE_SKIP:
        return x->cnt[v] == 2;
    case FT_OP_JOIN: {
        uint64_t ch = c->value[id];
        return ch >= x->nt || x->pos[ch] == c->len[ch];
    }
    default:
        return 1;
    }
}

/* The data rule for id (FT_EXEC_OK, _VALUE or _PAST); *mismatch: a
 * read that may return another value (in a region); *past: id runs past
 * the straight-line bound, which a relaxed executor allows. */
static int data_rule(const ft_exec *x, uint32_t id, int *mismatch,
                     int *past)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id];
    *mismatch = 0;
    /* after a region read that returned another value, only what runs
     * whatever it returned; without the code's spans, the region's end
     * (below) */
    *past = 0;
    if (x->changed[t] != NONE &&
        ft_ctm_runs_regardless(c, x->changed[t], id) == 0) {
        if (!x->relaxed)
            return FT_EXEC_PAST;
        *past = 1; /* relaxed: run, counted by the caller */
    }
    for (uint32_t g = 0; x->active && g < x->nreg; g++)
        if (x->has_shared[g] && t == x->prop.r[g].thread &&
            c->pos[id] > x->rend[g] && (x->tflags[t] & T_TAINTED))
            return FT_EXEC_PAST;
    if (!is_mem_op(c->op[id]) || !ft_ctm_reads(c, id) || matches(x, id))
        return FT_EXEC_OK;
    *mismatch = 1;
    return in_region(x, 0, id) || in_region(x, 1, id) ? FT_EXEC_OK
                                                      : FT_EXEC_VALUE;
}

uint32_t ft_exec_glued(const ft_exec *x)
{
    return x->glued;
}

int ft_exec_can(const ft_exec *x, uint32_t id)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id];
    if (x->pos[t] != c->pos[id])
        return FT_EXEC_NOT_NEXT;
    if (x->glued != NONE && x->glued != t)
        return FT_EXEC_GLUED;
    if (x->tflags[t] & T_FROZEN)
        return FT_EXEC_FROZEN;
    if (!(x->tflags[t] & T_STARTED) || !guard(x, id))
        return FT_EXEC_GUARD;
    int mismatch, past;
    return data_rule(x, id, &mismatch, &past);
}

uint32_t ft_exec_waits_for(const ft_exec *x, uint32_t id)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id];
    if (!(x->tflags[t] & T_STARTED))
        return x->nv + t;
    if (c->op[id] == FT_OP_JOIN)
        return c->value[id] < x->nt ? x->nv + (uint32_t)c->value[id]
                                    : x->nv + t;
    if (c->op[id] == FT_OP_WAIT_POST && c->obj2[id] != FT_CTM_NONE &&
        x->owner[c->obj2[id]] != 0)
        return c->obj2[id];
    return c->obj[id] < x->nv ? c->obj[id] : x->nv + t;
}

/* ---- the monitor ---- */

unsigned ft_exec_class(const ft_ctm *c, uint32_t id)
{
    switch (c->op[id]) {
    case FT_OP_READ:
        return FT_K_READ;
    case FT_OP_RDLOCK:
        return FT_K_RDLOCK;
    case FT_OP_SEM_POST:
        return FT_K_POST;
    default:
        return FT_K_OTHER;
    }
}

int ft_exec_conflicts(unsigned k, unsigned set)
{
    return k == FT_K_OTHER ? set != 0 : (set & ~(1u << k)) != 0;
}

/* The objects of id that count in mode m (data: memory only), with
 * their classes; returns how many. */
static int objects(const ft_exec *x, uint32_t id, int m, uint32_t o[2],
                   unsigned k[2])
{
    const ft_ctm *c = x->c;
    int n = 0;
    if (c->obj[id] < x->nv &&
        (!m || c->vars[c->obj[id]].kind == FT_VAR_MEMORY)) {
        o[n] = c->obj[id];
        k[n++] = ft_exec_class(c, id);
    }
    if (c->obj2[id] != FT_CTM_NONE && c->obj2[id] < x->nv &&
        (!m || c->vars[c->obj2[id]].kind == FT_VAR_MEMORY)) {
        o[n] = c->obj2[id];
        k[n++] = FT_K_OTHER;
    }
    return n;
}

/* Updates the monitor for id, which has just run. */
static void observe(ft_exec *x, uint32_t id)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id];
    unsigned op = c->op[id];
    uint64_t ch = c->value[id];
    for (uint32_t g = 0; g < x->nreg; g++) {
        int inr = in_region(x, g, id);
        for (int m = 0; m < 2; m++) {
            unsigned bit = 1u << (g * 2 + m), sh = (g * 2 + m) * 8;
            uint32_t o[2];
            unsigned k[2];
            int no = objects(x, id, m, o, k);
            /* CA: a region transition conflicting with one of another
             * thread reached from the region closes a cycle */
            if (inr && x->nreg == 1) {
                int bad = 0;
                for (int i = 0; i < no && !bad; i++)
                    if (ft_exec_conflicts(k[i], x->ocls[o[i]] >> (sh + 4) & 15)) {
                        bad = 1;
                        x->culprit[m][1] = o[i];
                    }
                if (!bad && op == FT_OP_JOIN && ch < x->nt && ch != t &&
                    (x->rthr[ch] & bit)) {
                    bad = 1;
                    x->culprit[m][1] = NONE;
                }
                if (bad && !(x->viol >> m & 1)) {
                    set8(x, &x->viol, (uint8_t)(x->viol | 1u << m));
                    x->culprit[m][0] = id;
                }
            }
            /* a thread forked by a reached fork is reached by its first
             * shared transition: its local ones are nobody's
             * interleaving (the solver's fork edges go to the child's
             * keys only, smt/viol.c), so a region that forks and joins
             * a thread doing local work stays atomic */
            int reached = inr || (x->rthr[t] & bit) ||
                          ((x->rthr[t] & bit << 4) && ft_ctm_is_shared(c, id));
            for (int i = 0; i < no && !reached; i++)
                reached = ft_exec_conflicts(k[i], x->ocls[o[i]] >> sh & 15);
            if (!reached && op == FT_OP_JOIN && ch < x->nt)
                reached = (x->rthr[ch] & bit) != 0;
            if (!reached)
                continue;
            x->gen++;
            set8(x, &x->rthr[t], (uint8_t)(x->rthr[t] | bit));
            if (op == FT_OP_FORK && ch < x->nt)
                set8(x, &x->rthr[ch], (uint8_t)(x->rthr[ch] | bit << 4));
            int other = t != x->prop.r[g].thread;
            for (int i = 0; i < no; i++) {
                uint32_t add = (1u << k[i]) << sh;
                if (other)
                    add |= (1u << k[i]) << (sh + 4);
                set32(x, &x->ocls[o[i]], x->ocls[o[i]] | add);
            }
            /* CMA: reached from one region, inside the other */
            if (x->nreg == 2 && in_region(x, 1 - g, id) &&
                !(x->hit[g] >> m & 1)) {
                set8(x, &x->hit[g], (uint8_t)(x->hit[g] | 1u << m));
                x->culprit[m][g] = id;
                if ((x->hit[1 - g] >> m & 1) && !(x->viol >> m & 1))
                    set8(x, &x->viol, (uint8_t)(x->viol | 1u << m));
            }
        }
    }
}

int ft_exec_changed(const ft_exec *x)
{
    for (uint32_t g = 0; x->active && g < x->nreg; g++)
        if (x->tflags[x->prop.r[g].thread] & T_TAINTED)
            return 1;
    return 0;
}

uint64_t ft_exec_gen(const ft_exec *x)
{
    return x->gen;
}

void ft_exec_observe(ft_exec *x, uint32_t id)
{
    if (x->active)
        observe(x, id);
}

int ft_exec_violated(const ft_exec *x)
{
    return x->viol;
}

void ft_exec_culprits(const ft_exec *x, int data, uint32_t out[2])
{
    out[0] = x->culprit[data ? 1 : 0][0];
    out[1] = x->culprit[data ? 1 : 0][1];
}

/* ---- running a transition ---- */

static void apply(ft_exec *x, uint32_t id, int mismatch)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id], v = c->obj[id], m = c->obj2[id];
    uint32_t *cl;
    switch (c->op[id]) {
    case FT_OP_WRITE:
    case FT_OP_RMW: {
        uint8_t f = M_KNOWN;
        if (!(x->tflags[t] & T_TAINTED) && !mismatch)
            f |= M_CERTAIN;
        set64(x, &x->val[v], ft_ctm_written(c, id));
        set8(x, &x->mflags[v], f);
        break;
    }
    case FT_OP_LOCK:
        set32(x, &x->owner[v], t + 1);
        set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] + 1));
        set32(x, &x->held[t], x->held[t] + 1);
        break;
    case FT_OP_UNLOCK:
        if (x->owner[v] == t + 1) {
            set32(x, &x->held[t], x->held[t] - 1);
            set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] - 1));
            if (x->cnt[v] == 0)
                set32(x, &x->owner[v], 0);
        }
        break;
    case FT_OP_RDLOCK:
        cl = &x->cell[x->kidx[v] + t];
        set32(x, cl, *cl + 1);
        set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] + 1));
        set32(x, &x->held[t], x->held[t] + 1);
        break;
    case FT_OP_WRLOCK:
        set32(x, &x->owner[v], t + 1);
        set32(x, &x->held[t], x->held[t] + 1);
        break;
    case FT_OP_RWUNLOCK:
        cl = &x->cell[x->kidx[v] + t];
        if (x->owner[v] == t + 1) {
            set32(x, &x->owner[v], 0);
            set32(x, &x->held[t], x->held[t] - 1);
        } else if (*cl) {
            set32(x, &x->held[t], x->held[t] - 1);
            set32(x, cl, *cl - 1);
            set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] - 1));
        }
        break;
    case FT_OP_WAIT_PRE:
        if (m != FT_CTM_NONE && x->owner[m] == t + 1) {
            set32(x, &x->held[t], x->held[t] - (uint32_t)x->cnt[m]);
            set32(x, &x->owner[m], 0);
            set64(x, &x->cnt[m], 0);
        }
        set32(x, &x->waitseq, x->waitseq + 1);
        set32(x, &x->cell[x->kidx[v] + t], x->waitseq << 2 | 1);
        break;
    case FT_OP_WAIT_POST:
        set32(x, &x->cell[x->kidx[v] + t], 0);
        if (m != FT_CTM_NONE) {
            set32(x, &x->owner[m], t + 1);
            set64(x, &x->cnt[m], 1);
            set32(x, &x->held[t], x->held[t] + 1);
        }
        break;
    case FT_OP_NOTIFY: { /* the longest waiter not yet notified */
        uint32_t best = NONE, bseq = 0;
        cl = &x->cell[x->kidx[v]];
        for (uint32_t u = 0; u < x->nt; u++)
            if ((cl[u] & 3) == 1 && (best == NONE || cl[u] >> 2 < bseq)) {
                best = u;
                bseq = cl[u] >> 2;
            }
        if (best != NONE)
            set32(x, &cl[best], cl[best] | 2);
        break;
    }
    case FT_OP_NOTIFY_ALL:
        cl = &x->cell[x->kidx[v]];
        for (uint32_t u = 0; u < x->nt; u++)
            if (cl[u] & 1)
                set32(x, &cl[u], cl[u] | 2);
        break;
    case FT_OP_SEM_INIT:
        set64(x, &x->cnt[v], c->value[id]);
        break;
    case FT_OP_SEM_POST:
        set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] + 1));
        break;
    case FT_OP_SEM_WAIT:
        set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] - 1));
        break;
    case FT_OP_BARRIER_ARRIVE: {
        uint64_t need = c->vars[v].init ? c->vars[v].init : 1;
        set32(x, &x->cell[x->kidx[v] + t], (uint32_t)x->val[v]);
        if ((uint64_t)x->cnt[v] + 1 >= need) {
            set64(x, &x->val[v], x->val[v] + 1);
            set64(x, &x->cnt[v], 0);
        } else {
            set64(x, &x->cnt[v], (uint64_t)(x->cnt[v] + 1));
        }
        break;
    }
    case FT_OP_ONCE_RUN:
        set64(x, &x->cnt[v], 1);
        break;
    case FT_OP_ONCE_DONE:
        set64(x, &x->cnt[v], 2);
        break;
    case FT_OP_FORK:
        if (c->value[id] < x->nt)
            set8(x, &x->tflags[c->value[id]],
                 x->tflags[c->value[id]] | T_STARTED);
        break;
    default:
        break;
    }
    if (mismatch)
        set8(x, &x->tflags[t], x->tflags[t] | T_TAINTED);
    set32(x, &x->pos[t], x->pos[t] + 1);
}

void ft_exec_set_relaxed(ft_exec *x, int relaxed)
{
    x->relaxed = relaxed != 0;
}

uint32_t ft_exec_broke(const ft_exec *x)
{
    return x->broke;
}

int ft_exec_step(ft_exec *x, uint32_t id, int last_read)
{
    const ft_ctm *c = x->c;
    uint32_t t = c->tid[id];
    if (x->pos[t] != c->pos[id])
        return FT_EXEC_NOT_NEXT;
    if (x->glued != NONE && x->glued != t)
        return FT_EXEC_GLUED;
    if (x->tflags[t] & T_FROZEN)
        return FT_EXEC_FROZEN;
    if (!(x->tflags[t] & T_STARTED) || !guard(x, id))
        return FT_EXEC_GUARD;
    int mismatch, past;
    int why = data_rule(x, id, &mismatch, &past);
    if (why == FT_EXEC_VALUE && last_read)
        why = FT_EXEC_OK;
    else if (why != FT_EXEC_OK)
        return why;
    if (past && x->broke == NONE)
        set32(x, &x->broke, id);
    int freeze = mismatch && !in_region(x, 0, id) && !in_region(x, 1, id);
    /* of two such reads the one whose straight code ends first bounds
     * the thread (in a real program both end at the same jump) */
    if (mismatch && !freeze &&
        (x->changed[t] == NONE || ft_ctm_straight_end(c, id) <
                                      ft_ctm_straight_end(c, x->changed[t])))
        set32(x, &x->changed[t], id);
    apply(x, id, mismatch);
    /* A frozen thread stays glued: no other thread can run, the prefix
     * ends here (the runtime runs the glued step regardless). */
    uint32_t g = ft_ctm_binds(c, id) ? t : NONE;
    if (g != x->glued)
        set32(x, &x->glued, g);
    if (freeze)
        set8(x, &x->tflags[t], x->tflags[t] | T_FROZEN);
    if (x->active)
        observe(x, id);
    return FT_EXEC_OK;
}

/* ---- holding threads back in the recorded run ---------------------- */

ft_hold_run ft_hold_run_new(const ft_ctm *c)
{
    ft_hold_run s = {c, ft_exec_new(c), NULL, 0, 0,
                     calloc(c->nthreads + 1, 1)};
    return s;
}

void ft_hold_run_free(ft_hold_run *s)
{
    ft_exec_free(s->x);
    free(s->steps);
    free(s->waiting);
    memset(s, 0, sizeof *s);
}

int ft_hold_push(ft_hold_run *s, uint32_t id)
{
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? 2 * s->cap : 256;
        uint32_t *v = realloc(s->steps, sizeof *v * nc);
        if (!v)
            return -1;
        s->steps = v;
        s->cap = nc;
    }
    s->steps[s->n++] = id;
    return 0;
}

int ft_hold_prefix(ft_hold_run *s, const uint32_t *lim, uint32_t end,
                   uint32_t *k)
{
    const ft_ctm *c = s->c;
    *k = end;
    for (uint32_t j = 0; j < c->nthreads; j++)
        if (lim[j] < c->len[j] && ft_ctm_at(c, j, lim[j]) < *k)
            *k = ft_ctm_at(c, j, lim[j]);
    ft_exec_reset(s->x);
    s->n = 0;
    for (uint32_t id = 0; id < *k; id++)
        if (ft_exec_step(s->x, id, 0) != FT_EXEC_OK)
            return 0;
        else if (ft_hold_push(s, id) < 0)
            return -1;
    return 1;
}

uint32_t ft_hold_pick(const ft_hold_run *s, const uint32_t *lim,
                      uint32_t pass)
{
    const ft_ctm *c = s->c;
    uint32_t best = UINT32_MAX, g = ft_exec_glued(s->x);
    if (g != NONE) { /* it alone may run */
        uint32_t p = ft_exec_pos(s->x, g);
        return s->waiting[g] || p >= c->len[g] || (p >= lim[g] && g != pass)
                   ? UINT32_MAX
                   : ft_ctm_at(c, g, p);
    }
    for (uint32_t j = 0; j < c->nthreads; j++) {
        uint32_t p = ft_exec_pos(s->x, j);
        if (s->waiting[j] || p >= c->len[j] || (p >= lim[j] && j != pass))
            continue;
        uint32_t id = ft_ctm_at(c, j, p);
        if (best == UINT32_MAX || id < best)
            best = id;
    }
    return best;
}

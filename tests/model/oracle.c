/* SPDX-License-Identifier: MIT */
/* oracle.c - exact execution of a CTM for the reference enumerator: one
 * state record holding every thread's position and every object's state,
 * copied at each step of a depth-first walk.  The semantics are the table
 * of docs/ctm.md, implemented here a second time on purpose. */
#include "oracle.h"

#include <string.h>

#define T ORACLE_MAX_THREADS
#define V ORACLE_MAX_VARS

struct ostate {
    uint32_t pos[T];
    uint8_t started[T];
    int32_t mid_block; /* thread inside an atomic block, -1 none */
    int32_t glued;     /* thread whose last step was glued, -1 none */
    uint64_t val[V];
    uint8_t known[V];
    int8_t owner[V];   /* mutex owner / rwlock writer, -1 none */
    uint8_t count[V];  /* mutex recursion */
    uint8_t rd[V][T];  /* rwlock read holds */
    uint8_t waiters[V], notified[V];
    int64_t sem[V];
    uint32_t arrived[V], gen[V], mygen[V][T];
    uint8_t once[V];
};

struct walk {
    const ft_ctm *c;
    const oracle_opts *o;
    oracle_visit visit;
    void *ctx;
    uint32_t seq[ORACLE_MAX_TRANS];
    uint8_t blocked[ORACLE_MAX_TRANS];
    long visited;
};

static int readers(const struct ostate *s, uint32_t v)
{
    int n = 0;
    for (int t = 0; t < T; t++)
        n += s->rd[v][t];
    return n;
}

static int lock_ok(const ft_ctm *c, const struct ostate *s, uint32_t v,
                   uint32_t t)
{
    return s->owner[v] < 0 ||
           (s->owner[v] == (int)t &&
            c->vars[v].mutex_type == FT_MUTEX_RECURSIVE);
}

static int guard(const struct walk *w, const struct ostate *s, uint32_t x);

static int enabled(const struct walk *w, const struct ostate *s, uint32_t x)
{
    const ft_ctm *c = w->c;
    uint32_t t = c->tid[x];
    if (s->pos[t] != c->pos[x])
        return 0;
    if (s->mid_block >= 0 && s->mid_block != (int)t)
        return 0;
    if (s->glued >= 0 && s->glued != (int)t)
        return 0;
    return guard(w, s, x);
}

/* x's guard in state s, its position aside. */
static int guard(const struct walk *w, const struct ostate *s, uint32_t x)
{
    const ft_ctm *c = w->c;
    uint32_t t = c->tid[x], v = c->obj[x], m = c->obj2[x];
    if (c->fork_trans[t] != FT_CTM_NONE && !s->started[t])
        return 0;
    switch (c->op[x]) {
    case FT_OP_READ:
    case FT_OP_RMW:
        return !w->o->read_values ||
               (s->known[v] && s->val[v] == c->value[x]);
    case FT_OP_LOCK:
        return lock_ok(c, s, v, t);
    case FT_OP_LOCK_FAIL:
        return !lock_ok(c, s, v, t);
    case FT_OP_RDLOCK:
        return s->owner[v] < 0;
    case FT_OP_WRLOCK:
        return s->owner[v] < 0 && readers(s, v) == 0;
    case FT_OP_RWLOCK_FAIL:
        return s->owner[v] >= 0 || (c->value[x] && readers(s, v) > 0);
    case FT_OP_WAIT_POST:
        return s->owner[m] < 0 &&
               (c->value[x] || (s->notified[v] >> t & 1));
    case FT_OP_SEM_WAIT:
        return s->sem[v] > 0;
    case FT_OP_SEM_FAIL:
        return s->sem[v] <= 0;
    case FT_OP_BARRIER_LEAVE:
        return s->gen[v] > s->mygen[v][t];
    case FT_OP_ONCE_RUN:
        return s->once[v] == 0;
    case FT_OP_ONCE_SKIP:
        return s->once[v] == 2;
    case FT_OP_JOIN: {
        uint32_t ch = (uint32_t)c->value[x];
        return ch >= c->nthreads || s->pos[ch] == c->len[ch];
    }
    default:
        return 1;
    }
}

/* Applies x; for a notify, choice picks the woken waiter (bit index) or
 * -1 for none. */
static void apply(const struct walk *w, struct ostate *s, uint32_t x,
                  int choice)
{
    const ft_ctm *c = w->c;
    uint32_t t = c->tid[x], v = c->obj[x], m = c->obj2[x];
    switch (c->op[x]) {
    case FT_OP_WRITE:
        s->val[v] = c->value[x];
        s->known[v] = 1;
        break;
    case FT_OP_RMW:
        s->val[v] = ft_ctm_value2(c, x);
        s->known[v] = 1;
        break;
    case FT_OP_LOCK:
        s->owner[v] = (int8_t)t;
        s->count[v]++;
        break;
    case FT_OP_UNLOCK:
        if (s->owner[v] == (int)t && --s->count[v] == 0)
            s->owner[v] = -1;
        break;
    case FT_OP_RDLOCK:
        s->rd[v][t]++;
        break;
    case FT_OP_WRLOCK:
        s->owner[v] = (int8_t)t;
        break;
    case FT_OP_RWUNLOCK:
        if (s->owner[v] == (int)t)
            s->owner[v] = -1;
        else if (s->rd[v][t])
            s->rd[v][t]--;
        break;
    case FT_OP_WAIT_PRE:
        if (s->owner[m] == (int)t) {
            s->owner[m] = -1;
            s->count[m] = 0;
        }
        s->waiters[v] |= (uint8_t)(1u << t);
        s->notified[v] &= (uint8_t)~(1u << t);
        break;
    case FT_OP_WAIT_POST:
        s->waiters[v] &= (uint8_t)~(1u << t);
        s->notified[v] &= (uint8_t)~(1u << t);
        s->owner[m] = (int8_t)t;
        s->count[m] = 1;
        break;
    case FT_OP_NOTIFY:
        if (choice >= 0)
            s->notified[v] |= (uint8_t)(1u << choice);
        break;
    case FT_OP_NOTIFY_ALL:
        s->notified[v] |= s->waiters[v];
        break;
    case FT_OP_SEM_INIT:
        s->sem[v] = (int64_t)c->value[x];
        break;
    case FT_OP_SEM_POST:
        s->sem[v]++;
        break;
    case FT_OP_SEM_WAIT:
        s->sem[v]--;
        break;
    case FT_OP_BARRIER_ARRIVE:
        s->mygen[v][t] = s->gen[v];
        if (++s->arrived[v] >= (c->vars[v].init ? c->vars[v].init : 1)) {
            s->gen[v]++;
            s->arrived[v] = 0;
        }
        break;
    case FT_OP_ONCE_RUN:
        s->once[v] = 1;
        break;
    case FT_OP_ONCE_DONE:
        s->once[v] = 2;
        break;
    case FT_OP_FORK:
        if (c->value[x] < T)
            s->started[c->value[x]] = 1;
        break;
    default:
        break;
    }
    s->pos[t]++;
    /* the model's glue (ctm.h ft_ctm_binds), walked here on its own: a
     * chain of glued steps that reaches a shared one */
    s->glued = -1;
    for (uint32_t q = c->pos[x]; q + 1 < c->len[t]; q++) {
        uint32_t y = ft_ctm_at(c, t, q), z = ft_ctm_at(c, t, q + 1), i;
        for (i = 0; i < c->nglue && c->glue_id[i] != y; i++)
            ;
        if (i == c->nglue)
            break;
        if (c->obj[z] == FT_CTM_NONE ||
            (c->obj[z] < c->nvars && c->vars[c->obj[z]].shared) ||
            (c->obj2[z] < c->nvars && c->vars[c->obj2[z]].shared)) {
            s->glued = (int32_t)t;
            break;
        }
    }
    const ft_reduced *r = w->o->atomic_blocks;
    if (r) {
        uint32_t b = ft_block_of(r, x);
        s->mid_block = c->pos[x] < r->bend[b] ? (int32_t)t : -1;
    }
}

static void dfs(struct walk *w, const struct ostate *s, uint32_t depth)
{
    const ft_ctm *c = w->c;
    int any = 0;
    if (w->o->max_visits > 0 && w->visited >= w->o->max_visits)
        return;
    w->visited++;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (s->pos[t] >= c->len[t])
            continue;
        uint32_t x = ft_ctm_at(c, t, s->pos[t]);
        if (!enabled(w, s, x))
            continue;
        any = 1;
        w->seq[depth] = x;
        uint32_t v = c->obj[x];
        uint8_t cand = c->op[x] == FT_OP_NOTIFY
                           ? (uint8_t)(s->waiters[v] & ~s->notified[v])
                           : 0;
        for (int ch = cand ? 0 : -1; ch < T; ch++) {
            if (ch >= 0 && !(cand >> ch & 1))
                continue;
            struct ostate n = *s;
            apply(w, &n, x, ch);
            const ft_reduced *r = w->o->blocks;
            if (r) {
                uint32_t b = ft_block_of(r, x), blk = 0;
                if (c->pos[x] == c->len[t] - 1)
                    blk = 1;
                else if (c->pos[x] == r->bend[b] && r->bkey[b + 1] != FT_CTM_NONE)
                    blk = !guard(w, &n, r->bkey[b + 1]);
                w->blocked[depth] = (uint8_t)blk;
            }
            dfs(w, &n, depth + 1);
            if (ch < 0)
                break;
        }
    }
    w->visit(w->ctx, w->seq, depth, !any, w->o->blocks ? w->blocked : NULL);
}

long oracle_walk(const ft_ctm *c, const oracle_opts *o, oracle_visit visit,
                 void *ctx)
{
    if (c->nthreads > T || c->nvars > V || c->ntrans > ORACLE_MAX_TRANS)
        return -1;
    struct walk w = {c, o, visit, ctx, {0}, {0}, 0};
    struct ostate s;
    memset(&s, 0, sizeof s);
    s.mid_block = -1;
    s.glued = -1;
    for (uint32_t v = 0; v < c->nvars; v++) {
        s.owner[v] = -1;
        s.known[v] = c->vars[v].kind == FT_VAR_MEMORY && c->vars[v].has_init;
        s.val[v] = c->vars[v].init;
    }
    dfs(&w, &s, 0);
    return o->max_visits > 0 && w.visited >= o->max_visits ? -1 : w.visited;
}

uint64_t oracle_class_key(const ft_ctm *c, const uint32_t *seq, uint32_t n)
{
    uint32_t at[ORACLE_MAX_TRANS];
    for (uint32_t i = 0; i < c->ntrans; i++)
        at[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        at[seq[i]] = i;
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        h = (h ^ (at[x] != UINT32_MAX)) * 0x100000001b3ull;
        if (at[x] == UINT32_MAX)
            continue;
        for (uint32_t y = x + 1; y < c->ntrans; y++)
            if (at[y] != UINT32_MAX && ft_ctm_conflict(c, x, y))
                h = (h ^ (2 + (at[x] < at[y]))) * 0x100000001b3ull;
    }
    return h;
}

int oracle_respects_cxt(const ft_reduced *r, const uint32_t *seq, uint32_t n,
                        const uint8_t *blocked)
{
    const ft_ctm *c = r->ctm;
    for (uint32_t i = 0; i + 1 < n; i++) {
        uint32_t x = seq[i], y = seq[i + 1];
        uint32_t a = c->tid[x], b = c->tid[y];
        if (a == b)
            continue;
        uint32_t bx = ft_block_of(r, x), by = ft_block_of(r, y);
        if (c->pos[x] == c->len[a] - 1 || (blocked && blocked[i]))
            continue; /* a has finished or cannot go on */
        if (c->pos[x] != r->bend[bx] || c->pos[y] != r->bstart[by])
            return 0;
        if (!ft_cxt_allowed(r, a, bx - r->bfirst[a], b, by - r->bfirst[b]))
            return 0;
    }
    return 1;
}

/* SPDX-License-Identifier: MIT */
/* kindcheck.c - transition-level reference for the property kinds; see
 * kindcheck.h.  Lock ownership is simulated from the prefix itself. */
#include "kindcheck.h"

#include <stdlib.h>
#include <string.h>

#define KT 8

typedef struct locks {
    int *owner;     /* mutex holder / rwlock writer, -1 none */
    uint32_t *cnt;  /* mutex recursion */
    uint8_t *rd;    /* rwlock read holds [v * KT + t] */
    uint32_t pos[KT];
} locks;

static void sim(const ft_ctm *c, const uint32_t *seq, uint32_t n, locks *l)
{
    l->owner = malloc(sizeof *l->owner * (c->nvars + 1));
    l->cnt = calloc(c->nvars + 1, sizeof *l->cnt);
    l->rd = calloc((size_t)(c->nvars + 1) * KT, 1);
    memset(l->pos, 0, sizeof l->pos);
    for (uint32_t v = 0; v <= c->nvars; v++)
        l->owner[v] = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i], t = c->tid[x], v = c->obj[x], m = c->obj2[x];
        l->pos[t] = c->pos[x] + 1;
        switch (c->op[x]) {
        case FT_OP_LOCK:
        case FT_OP_WRLOCK:
            l->owner[v] = (int)t;
            l->cnt[v]++;
            break;
        case FT_OP_RDLOCK:
            l->rd[v * KT + t]++;
            break;
        case FT_OP_UNLOCK:
            if (l->owner[v] == (int)t && --l->cnt[v] == 0)
                l->owner[v] = -1;
            break;
        case FT_OP_RWUNLOCK:
            if (l->owner[v] == (int)t) {
                l->owner[v] = -1;
                l->cnt[v] = 0;
            } else if (l->rd[v * KT + t]) {
                l->rd[v * KT + t]--;
            }
            break;
        case FT_OP_WAIT_PRE:
            if (l->owner[m] == (int)t) {
                l->owner[m] = -1;
                l->cnt[m] = 0;
            }
            break;
        case FT_OP_WAIT_POST:
            l->owner[m] = (int)t;
            l->cnt[m] = 1;
            break;
        default:
            break;
        }
    }
}

static void unsim(locks *l)
{
    free(l->owner);
    free(l->cnt);
    free(l->rd);
}

uint32_t kc_next(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                 uint32_t t)
{
    uint32_t p = 0;
    for (uint32_t i = 0; i < n; i++)
        if (c->tid[seq[i]] == t)
            p = c->pos[seq[i]] + 1;
    return p;
}

/* The threads thread t waits for after the prefix: holders of the lock
 * its next (blocking) acquisition asks for, in an excluding mode. */
static uint32_t waits_for(const ft_ctm *c, const locks *l, uint32_t t)
{
    if (l->pos[t] >= c->len[t])
        return 0;
    uint32_t x = ft_ctm_at(c, t, l->pos[t]), v = c->obj[x], mask = 0;
    unsigned op = c->op[x];
    if ((op != FT_OP_LOCK && op != FT_OP_WRLOCK && op != FT_OP_RDLOCK) ||
        !ft_ctm_blocking(c, x))
        return 0;
    if (l->owner[v] >= 0 && l->owner[v] != (int)t)
        mask |= 1u << l->owner[v];
    if (op == FT_OP_WRLOCK)
        for (uint32_t u = 0; u < c->nthreads && u < KT; u++)
            if (u != t && l->rd[v * KT + u])
                mask |= 1u << u;
    return mask;
}

static void cycles_from(const ft_ctm *c, const locks *l, uint32_t *path,
                        uint32_t depth, kc_cycle_fn cb, void *ctx)
{
    uint32_t t = path[depth - 1];
    uint32_t w = waits_for(c, l, t);
    for (uint32_t u = 0; u < c->nthreads && u < KT; u++) {
        if (!(w >> u & 1))
            continue;
        if (u == path[0]) {
            uint32_t acq[KT];
            for (uint32_t i = 0; i < depth; i++)
                acq[i] = ft_ctm_at(c, path[i], l->pos[path[i]]);
            cb(ctx, acq, depth);
            continue;
        }
        int seen = u < path[0]; /* each cycle once: from its least */
        for (uint32_t i = 0; i < depth && !seen; i++)
            seen = path[i] == u;
        if (seen || depth == KT)
            continue;
        path[depth] = u;
        cycles_from(c, l, path, depth + 1, cb, ctx);
    }
}

void kc_deadlocks(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                  kc_cycle_fn cb, void *ctx)
{
    locks l;
    sim(c, seq, n, &l);
    uint32_t path[KT];
    for (uint32_t t = 0; t < c->nthreads && t < KT; t++) {
        path[0] = t;
        cycles_from(c, &l, path, 1, cb, ctx);
    }
    unsim(&l);
}

struct match {
    const uint32_t *acq;
    uint32_t k;
    int found;
};

int kc_same_set(const uint32_t *a, uint32_t na, const uint32_t *b,
                uint32_t nb)
{
    if (na != nb)
        return 0;
    for (uint32_t i = 0; i < na; i++) {
        int in = 0;
        for (uint32_t j = 0; j < nb; j++)
            in |= a[i] == b[j];
        if (!in)
            return 0;
    }
    return 1;
}

static void match_cycle(void *ctx, const uint32_t *acq, uint32_t k)
{
    struct match *m = ctx;
    m->found |= kc_same_set(acq, k, m->acq, m->k);
}

int kc_is_deadlock(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                   const uint32_t *acq, uint32_t k)
{
    struct match m = {acq, k, 0};
    kc_deadlocks(c, seq, n, match_cycle, &m);
    return m.found;
}

int kc_is_stuck(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                int maximal, uint32_t *waiting)
{
    if (!maximal)
        return 0;
    uint8_t forked[KT] = {0};
    uint32_t pos[KT] = {0}, w = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        pos[c->tid[x]] = c->pos[x] + 1;
        if (c->op[x] == FT_OP_FORK && c->value[x] < KT)
            forked[c->value[x]] = 1;
    }
    for (uint32_t t = 0; t < c->nthreads && t < KT; t++) {
        if (pos[t] >= c->len[t])
            continue; /* finished */
        if (c->fork_trans[t] != FT_CTM_NONE && !forked[t])
            continue; /* not begun */
        uint32_t x = ft_ctm_at(c, t, pos[t]), v = c->obj[x];
        if (!ft_ctm_blocking(c, x) ||
            (c->op[x] != FT_OP_JOIN && (v >= c->nvars || !c->vars[v].shared)))
            return 0; /* it would not wait there: it would go on */
        w |= 1u << t;
    }
    if (waiting)
        *waiting = w;
    return w != 0;
}

/* The values reads see along seq: val/known per variable, the last
 * write's certainty, which threads read another value (tainted). */
typedef struct vals {
    uint32_t *lastw;
    uint8_t *certain, *tainted;
} vals;

static int walk_values(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                       uint32_t r, int specific, uint64_t want, int *reached,
                       uint32_t *other)
{
    vals s = {malloc(sizeof(uint32_t) * (c->nvars + 1)),
              calloc(c->nvars + 1, 1), calloc(c->nthreads + 1, 1)};
    int ok = s.lastw && s.certain && s.tainted;
    for (uint32_t v = 0; ok && v <= c->nvars; v++)
        s.lastw[v] = UINT32_MAX;
    if (reached)
        *reached = 0;
    if (other)
        *other = 0;
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t x = seq[i], t = c->tid[x], v = c->obj[x];
        if (s.tainted[t]) {
            ok = 0; /* it went past a read of another value */
            break;
        }
        if (c->op[x] < FT_OP_READ || c->op[x] > FT_OP_RMW)
            continue;
        int matched = 1;
        if (ft_ctm_reads(c, x)) {
            int known;
            uint64_t got;
            if (s.lastw[v] != UINT32_MAX) {
                known = s.certain[v];
                got = ft_ctm_written(c, s.lastw[v]);
            } else {
                known = c->vars[v].has_init;
                got = c->vars[v].init;
            }
            matched = known && got == c->value[x];
            if (x == r && reached)
                *reached = !matched && (!specific || (known && got == want));
            if (!matched) {
                s.tainted[t] = 1;
                if (other)
                    *other |= 1u << t;
            }
        }
        if (ft_ctm_writes(c, x)) {
            s.lastw[v] = x;
            s.certain[v] = matched;
        }
    }
    free(s.lastw);
    free(s.certain);
    free(s.tainted);
    return ok;
}

int kc_reads_other(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                   uint32_t r, int specific, uint64_t want)
{
    int reached;
    return walk_values(c, seq, n, r, specific, want, &reached, NULL) &&
           reached;
}

int kc_data_ok(const ft_ctm *c, const uint32_t *seq, uint32_t n,
               uint32_t *other)
{
    return walk_values(c, seq, n, UINT32_MAX, 0, 0, NULL, other);
}

int kc_use_after_free(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                      uint32_t f, uint32_t t)
{
    if (c->tid[f] == t || !kc_data_ok(c, seq, n, NULL))
        return 0;
    uint64_t lo = c->vars[c->obj[f]].addr, hi = lo + c->value[f];
    int after = 0;
    uint32_t at_free = UINT32_MAX, last = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        if (x == f)
            at_free = i;
        if (c->tid[x] != t)
            continue;
        uint32_t v = c->obj[x];
        after = at_free != UINT32_MAX && c->op[x] >= FT_OP_READ &&
                c->op[x] <= FT_OP_RMW && c->vars[v].addr >= lo &&
                c->vars[v].addr < hi;
        last = x;
    }
    if (!after)
        return 0;
    /* The runtime runs a glued chain as one step, locals in it too
     * (the replay cannot stop inside it): the free must come before the
     * step that holds the access, not only before the access, as
     * predict/kind_uaf.c times it (test_kinds_random's seed 8489 at 30x
     * its seeds: a local access glued after a paired read that had to
     * run before the free). */
    uint32_t q = c->pos[last];
    while (q > 0 && ft_ctm_glued(c, ft_ctm_at(c, t, q - 1)))
        q--;
    uint32_t first = ft_ctm_at(c, t, q);
    for (uint32_t i = 0; i < at_free; i++)
        if (seq[i] == first)
            return 0;
    return 1;
}

/* ---- steps: glued transitions run as one (the race kind) ---- */

/* Whether x binds its thread to run on, walked as tests/model/oracle.c
 * walks glue: x glued, and the chain of glued transitions after it
 * reaches a shared one.  A prefix ending in it is no scheduling point. */
int kc_binds(const ft_ctm *c, uint32_t x)
{
    uint32_t t = c->tid[x];
    for (uint32_t q = c->pos[x]; q + 1 < c->len[t]; q++) {
        uint32_t y = ft_ctm_at(c, t, q), z = ft_ctm_at(c, t, q + 1);
        if (!ft_ctm_glued(c, y))
            return 0;
        if (c->obj[z] == FT_CTM_NONE ||
            (c->obj[z] < c->nvars && c->vars[c->obj[z]].shared) ||
            (c->obj2[z] < c->nvars && c->vars[c->obj2[z]].shared))
            return 1;
    }
    return 0;
}

/* The last position of thread t's step from position q: the runtime
 * runs a glued transition and the next as one. */
uint32_t kc_step_end(const ft_ctm *c, uint32_t t, uint32_t q)
{
    while (q + 1 < c->len[t] && ft_ctm_glued(c, ft_ctm_at(c, t, q)))
        q++;
    return q;
}

/* The first position of thread t's next step after seq, or UINT32_MAX
 * (not begun, or finished). */
uint32_t kc_step_next(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                      uint32_t t)
{
    uint32_t f = c->fork_trans[t], q = kc_next(c, seq, n, t);
    int begun = f == FT_CTM_NONE;
    for (uint32_t i = 0; i < n && !begun; i++)
        begun = seq[i] == f;
    return begun && q < c->len[t] ? q : UINT32_MAX;
}

int kc_is_mem_access(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW &&
           c->vars[c->obj[x]].kind == FT_VAR_MEMORY;
}

/* Whether steps[at..at+len) are x's thread's step up to x (x marked
 * and last: what is glued after it runs only if its read returned the
 * recorded value; the transitions before it with_next). */
int kc_is_step_of(const ft_ctm *c, const ft_step *steps, uint32_t at,
                  uint32_t len, uint32_t x)
{
    uint32_t t = c->tid[x], q = c->pos[x];
    while (q > 0 && ft_ctm_glued(c, ft_ctm_at(c, t, q - 1)))
        q--;
    if (c->pos[x] - q + 1 != len)
        return 0;
    for (uint32_t i = 0; i < len; i++, q++) {
        const ft_step *s = &steps[at + i];
        if (s->trans != ft_ctm_at(c, t, q) || s->mark != (s->trans == x) ||
            s->with_next != (c->pos[s->trans] < c->pos[x]))
            return 0;
    }
    return 1;
}

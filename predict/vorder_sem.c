/* SPDX-License-Identifier: MIT */
/* vorder_sem.c - what a semaphore wait adds to the value order
 * (vorder.c, docs/prediction.md): a wait that succeeds found the count
 * positive, so at least (waits before it since the init) + 1 - (initial
 * count) posts came before it.  When the posts of the other threads,
 * all of them, cannot make that many, thread j's own posts must, and the
 * wait follows j's m-th post.  Counting, not a meet: kept apart from the
 * data and lock rules. */
#include "predict/vorder.h"

#include <stdint.h>
#include <stdlib.h>

/* The semaphores' inits, posts and successful waits, as vo_write with
 * the op for the value: a thread's posts or waits on one semaphore are
 * one range. */
struct vo_sems {
    vo_write *v;
    size_t n;
};

static size_t lower(const vo_sems *s, uint32_t obj, uint32_t op, uint32_t tid,
                    uint32_t id)
{
    return vo_write_lower(s->v, s->n, obj, op, tid, id);
}

/* A failed wait takes nothing: only these count. */
static int counted(uint32_t op)
{
    return op == FT_OP_SEM_INIT || op == FT_OP_SEM_POST ||
           op == FT_OP_SEM_WAIT;
}

vo_sems *vo_sems_new(const ft_ctm *c)
{
    vo_sems *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (uint32_t x = 0; x < c->ntrans; x++)
        s->n += counted(c->op[x]);
    s->v = malloc(sizeof *s->v * (s->n + 1));
    if (!s->v) {
        free(s);
        return NULL;
    }
    s->n = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (counted(c->op[x]))
            s->v[s->n++] = (vo_write){c->obj[x], x, c->tid[x], c->op[x]};
    vo_writes_sort(s->v, s->n);
    return s;
}

void vo_sems_free(vo_sems *s)
{
    if (s)
        free(s->v);
    free(s);
}

/* The semaphore's only init, or VO_NONE (none, or several: a second init
 * resets the count, which this counting does not follow). */
static uint32_t only_init(const vo_sems *s, uint32_t obj)
{
    size_t a = lower(s, obj, FT_OP_SEM_INIT, 0, 0);
    size_t b = lower(s, obj, FT_OP_SEM_INIT + 1, 0, 0);
    return b - a == 1 ? s->v[a].id : VO_NONE;
}

/* How many of thread i's successful waits on obj below position lim
 * follow the init at (it, ip) in the order v already has. */
static uint32_t waits_since(const ft_value_order *v, const vo_sems *s,
                            uint32_t obj, uint32_t i, uint32_t lim,
                            uint32_t it, uint32_t ip)
{
    const ft_ctm *c = v->c;
    size_t a = lower(s, obj, FT_OP_SEM_WAIT, i, 0);
    size_t b = lower(s, obj, FT_OP_SEM_WAIT, i + 1, 0);
    size_t lo = a, hi = b;
    while (lo < hi) { /* ids grow with positions along a thread */
        size_t m = lo + (hi - lo) / 2;
        if (c->pos[s->v[m].id] < lim)
            lo = m + 1;
        else
            hi = m;
    }
    b = lo;
    /* the clocks only grow along thread i: the waits after the init are
     * a suffix */
    lo = a, hi = b;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (vo_before(v, i, c->pos[s->v[m].id], it) >= ip + 1)
            hi = m;
        else
            lo = m + 1;
    }
    return (uint32_t)(b - lo);
}

/* Thread j's posts on obj that may come before x (of thread t): all of
 * them, or for t itself those before x. */
static uint64_t posts_of(const vo_sems *s, uint32_t obj, uint32_t j,
                         uint32_t t, uint32_t x)
{
    return lower(s, obj, FT_OP_SEM_POST, j, j == t ? x : UINT32_MAX) -
           lower(s, obj, FT_OP_SEM_POST, j, 0);
}

int vo_sem_rule(const ft_value_order *v, const vo_sems *s, uint32_t x,
                const uint32_t *cl, uint32_t *out)
{
    const ft_ctm *c = v->c;
    uint32_t obj = c->obj[x], t = c->tid[x], p = c->pos[x], nt = v->nt;
    uint32_t init = only_init(s, obj);
    if (init == VO_NONE || c->value[init] > INT32_MAX)
        return 0;
    uint32_t it = c->tid[init], ip = c->pos[init];
    if (it == t ? ip >= p : cl[it] < ip + 1)
        return 0; /* the init need not come first */
    uint64_t before = 0; /* waits that come before x, after the init */
    for (uint32_t i = 0; i < nt; i++)
        before += waits_since(v, s, obj, i, i == t ? p : cl[i], it, ip);
    int64_t need = (int64_t)before + 1 - (int64_t)c->value[init];
    if (need <= 0)
        return 0;
    uint64_t total = 0;
    for (uint32_t j = 0; j < nt; j++)
        total += posts_of(s, obj, j, t, x);
    if (total < (uint64_t)need)
        return 0; /* a trace at odds with itself */
    int any = 0;
    for (uint32_t j = 0; j < nt; j++) {
        uint64_t mine = posts_of(s, obj, j, t, x);
        int64_t m = need - (int64_t)(total - mine);
        if (j == t || m <= 0)
            continue;
        /* j's m-th post: before x in the recording, as the recorded
         * count says, unless the trace is at odds with itself */
        size_t first = lower(s, obj, FT_OP_SEM_POST, j, 0);
        uint32_t y = s->v[first + (size_t)m - 1].id;
        if (y < x)
            any |= vo_join_at(v, out, j, c->pos[y]);
    }
    return any;
}

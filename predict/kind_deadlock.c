/* SPDX-License-Identifier: MIT */
/* kind_deadlock.c - lock-order deadlocks: threads t1..tk (k = 2..4), each
 * holding a lock L_i and asking for L_{i+1}, which t_{i+1} holds (L_{k+1}
 * = L_1).  Once every t_i stands at its acquisition, no one can release
 * any L_i: the threads wait for good, whatever the others do, so the
 * property needs no more of the final state than that.
 *
 * Candidates come from the run's lock graph, as Goodlock's: an edge L1 ->
 * L2 for every blocking acquisition of L2 (lock, rwlock read or write;
 * not try or timed calls, which would return) made while holding L1
 * (reduce/'s locksets); a cycle of edges of distinct threads and locks
 * whose requests conflict with the holds they wait for (not two read
 * holds), and whose held sets exclude no two of its threads (a gate lock
 * both hold), is a candidate.  Edges are grouped by (thread, locks,
 * site): a loop that nests the same two locks a thousand times gives one
 * static cycle, of which per_group dynamic instances are tried.
 *
 * Goal: every t_i stands at its acquisition a_i (smt/state.c ft_smt_at:
 * its earlier reads returned their recorded values).  The witness ends
 * there, cut to the causal past of where the threads stand; the replay's
 * deadlock oracle must report it (FT_EXPECT_DEADLOCK). */
#define _GNU_SOURCE /* qsort_r */
#include "predict/kind.h"

#include <stdlib.h>
#include <string.h>

#define MAXK 4

typedef struct edge {
    uint32_t t, from, to; /* thread, held lock, requested lock */
    uint32_t a, h;        /* the acquisition, the hold's acquisition */
    uint32_t held;        /* lockset before a */
    uint8_t hold_read, req_read;
} edge;

typedef struct dl {
    const ft_pkind_src *s;
    edge *e;                /* sorted: held lock, thread, requested lock,
                               site, transition */
    size_t ne;
    uint32_t *from_first;   /* the edges of held lock l start here */
    ft_props *out;
} dl;

static int acquires(unsigned op)
{
    return op == FT_OP_LOCK || op == FT_OP_WRLOCK || op == FT_OP_RDLOCK ||
           op == FT_OP_WAIT_POST;
}

/* The lock transition x takes or gives back, FT_CTM_NONE if none. */
static uint32_t lock_of(const ft_ctm *c, uint32_t x)
{
    unsigned op = c->op[x];
    if (op == FT_OP_WAIT_PRE || op == FT_OP_WAIT_POST)
        return c->obj2[x];
    if (op == FT_OP_LOCK || op == FT_OP_UNLOCK || op == FT_OP_RDLOCK ||
        op == FT_OP_WRLOCK || op == FT_OP_RWUNLOCK)
        return c->obj[x];
    return FT_CTM_NONE;
}

/* The acquisition that began thread tid(x)'s hold of lock l, still held
 * just before x: walking back, the earliest acquisition not released
 * before a release of an older hold is met. */
static uint32_t hold_start(const ft_ctm *c, uint32_t x, uint32_t l)
{
    uint32_t t = c->tid[x], rel = 0, h = FT_CTM_NONE;
    for (uint32_t p = c->pos[x]; p-- > 0;) {
        uint32_t y = ft_ctm_at(c, t, p);
        if (lock_of(c, y) != l)
            continue;
        if (acquires(c->op[y])) {
            if (rel == 0)
                h = y;
            else
                rel--;
        } else if (rel == 0 && h != FT_CTM_NONE) {
            break;
        } else {
            rel++;
        }
    }
    return h;
}

static int cmp_edge(const void *pa, const void *pb, void *arg)
{
    const ft_ctm *c = arg;
    const edge *x = pa, *y = pb;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    if (c->site[x->a] != c->site[y->a])
        return c->site[x->a] < c->site[y->a] ? -1 : 1;
    return (x->a > y->a) - (x->a < y->a);
}

/* Two held sets that cannot both be held at once (a lock in both, not
 * both times for reading). */
static int sets_clash(const ft_reduced *r, uint32_t s1, uint32_t s2)
{
    for (uint32_t i = 0; s1 && i < r->ls_len[s1]; i++) {
        uint32_t en = r->ls_pool[r->ls_first[s1] + i];
        int rd;
        if (ft_pkind_set_has(r, s2, en >> 1, &rd) && !(rd && (en & 1)))
            return 1;
    }
    return 0;
}

/* Emits cycle ch[0..k) (ch[i]->to == ch[i+1]->from) if each request
 * waits for the next hold and its threads can all stand at their
 * acquisitions at once, as far as locksets and fork/join tell. */
static int emit(dl *d, const edge *const *ch, uint32_t k, uint32_t group)
{
    const ft_ctm *c = d->s->c;
    for (uint32_t i = 0; i < k; i++) {
        if (ch[i]->req_read && ch[(i + 1) % k]->hold_read)
            return 0; /* two read holds of an rwlock do not wait */
        for (uint32_t j = 0; j < k; j++)
            if (i != j &&
                (sets_clash(d->s->whole, ch[i]->held, ch[j]->held) ||
                 ft_ctm_must_hb(c, ch[i]->a, ch[j]->h)))
                return 0;
    }
    ft_prop p;
    memset(&p, 0, sizeof p);
    p.kind = FT_PROP_DEADLOCK;
    p.group = group;
    for (uint32_t i = 0; i < k; i++) {
        p.tgt[p.ntgt++] = ch[i]->a;
        p.tgt[p.ntgt++] = ch[i]->h;
    }
    return ft_props_push(d->out, &p);
}

static uint32_t group_hash(const ft_ctm *c, const edge *const *ch, uint32_t k)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < k; i++)
        h = (h ^ (c->site[ch[i]->a] * 31u + ch[i]->from)) *
            0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

/* Edges i and j are instances of one static edge: same thread, locks
 * and acquisition site (adjacent in the sorted array). */
static int same_static(const dl *d, size_t i, size_t j)
{
    const edge *x = &d->e[i], *y = &d->e[j];
    return x->from == y->from && x->t == y->t && x->to == y->to &&
           d->s->c->site[x->a] == d->s->c->site[y->a];
}

/* Instantiates the static cycle of heads st[0..k): combinations of the
 * static edges' dynamic instances (the first ones first), until
 * per_group candidates are made. */
static int instantiate(dl *d, const size_t *st, uint32_t k)
{
    size_t ni[MAXK], idx[MAXK] = {0};
    uint32_t per = d->s->per_group ? d->s->per_group : 1, made = 0;
    for (uint32_t i = 0; i < k; i++)
        for (ni[i] = 1; ni[i] < 8 && st[i] + ni[i] < d->ne &&
                        same_static(d, st[i], st[i] + ni[i]);)
            ni[i]++;
    const edge *ch[MAXK];
    for (uint32_t i = 0; i < k; i++)
        ch[i] = &d->e[st[i]];
    uint32_t group = group_hash(d->s->c, ch, k);
    for (uint32_t tries = 0; tries < 64 && made < per; tries++) {
        for (uint32_t i = 0; i < k; i++)
            ch[i] = &d->e[st[i] + idx[i]];
        size_t before = d->out->n;
        if (emit(d, ch, k, group) < 0)
            return -1;
        made += d->out->n > before;
        uint32_t i = 0; /* the next combination */
        while (i < k && ++idx[i] == ni[i])
            idx[i++] = 0;
        if (i == k)
            break;
    }
    return 0;
}

/* Depth-first search for cycles through static edges from st[0] (the
 * cycle's smallest thread), up to MAXK edges. */
static int search(dl *d, size_t *st, uint32_t depth, long *budget)
{
    const edge *last = &d->e[st[depth - 1]], *first = &d->e[st[0]];
    if (depth >= 2 && last->to == first->from)
        return instantiate(d, st, depth);
    if (depth == MAXK || d->out->n >= d->s->max_props || --*budget < 0)
        return 0;
    uint32_t l = last->to;
    for (uint32_t i = d->from_first[l]; i < d->from_first[l + 1]; i++) {
        const edge *x = &d->e[i];
        if ((i > 0 && same_static(d, i - 1, i)) || x->t <= first->t)
            continue;
        int clash = 0; /* distinct threads, no shorter cycle inside */
        for (uint32_t j = 0; j < depth && !clash; j++)
            clash = d->e[st[j]].t == x->t ||
                    (j > 0 && d->e[st[j]].from == x->to);
        if (clash)
            continue;
        st[depth] = i;
        if (search(d, st, depth + 1, budget) < 0)
            return -1;
    }
    return 0;
}

static int candidates(const ft_pkind_src *s, ft_props *out)
{
    const ft_ctm *c = s->c;
    const ft_reduced *w = s->whole;
    dl d = {s, NULL, 0, NULL, out};
    size_t cap = 0;
    int rc = -1;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        unsigned op = c->op[x];
        if ((op != FT_OP_LOCK && op != FT_OP_WRLOCK && op != FT_OP_RDLOCK) ||
            !ft_ctm_blocking(c, x) || !c->vars[c->obj[x]].shared)
            continue;
        uint32_t held = ft_pkind_held_before(w, x);
        for (uint32_t i = 0; held && i < w->ls_len[held]; i++) {
            uint32_t en = w->ls_pool[w->ls_first[held] + i], l = en >> 1;
            if (l == c->obj[x] || !c->vars[l].shared)
                continue;
            uint32_t h = hold_start(c, x, l);
            if (h == FT_CTM_NONE)
                continue;
            if (d.ne == cap) {
                cap = cap ? 2 * cap : 64;
                edge *n = realloc(d.e, cap * sizeof *n);
                if (!n)
                    goto out;
                d.e = n;
            }
            d.e[d.ne++] = (edge){c->tid[x], l, c->obj[x], x, h, held,
                                 (uint8_t)(en & 1),
                                 (uint8_t)(op == FT_OP_RDLOCK)};
        }
    }
    if (d.ne < 2) {
        rc = 0;
        goto out;
    }
    qsort_r(d.e, d.ne, sizeof *d.e, cmp_edge, (void *)c);
    d.from_first = calloc(c->nvars + 2, sizeof *d.from_first);
    if (!d.from_first)
        goto out;
    for (size_t i = 0; i < d.ne; i++) /* sorted by the held lock first */
        d.from_first[d.e[i].from + 1]++;
    for (uint32_t v = 0; v <= c->nvars; v++)
        d.from_first[v + 1] += d.from_first[v];
    rc = 0;
    long budget = 1000000; /* search steps */
    for (size_t i = 0; i < d.ne && rc == 0; i++) {
        if (i > 0 && same_static(&d, i - 1, i))
            continue;
        size_t st[MAXK] = {i};
        rc = search(&d, st, 1, &budget);
    }
out:
    free(d.e);
    free(d.from_first);
    return rc;
}

/* Every t_i stands at its acquisition a_i (the candidates checked that
 * each request waits for the next thread's hold). */
static Z3_ast goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    Z3_ast at[MAXK];
    uint32_t k = p->ntgt / 2;
    for (uint32_t i = 0; i < k; i++) {
        if (!ft_target_keyed(e->r, p, tb, 2 * i) ||
            tb[2 * i + 1] == FT_CTM_NONE)
            return Z3_mk_false(e->z);
        at[i] = ft_smt_at(e, tb[2 * i]);
    }
    return ft_smt_and(e, at, k);
}

static int witness(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res)
{
    uint8_t *mark = calloc(r->nblocks + 1, 1);
    if (!mark)
        return -1;
    for (uint32_t i = 1; i < p->ntgt; i += 2)
        mark[tb[i]] = 1; /* the holds */
    int rc = n ? ft_witness_from_blocks(r, order, n - 1, mark, res) : 0;
    free(mark);
    uint8_t *cyc = calloc(c->nthreads + 1, 1);
    for (uint32_t i = 0; cyc && i < p->ntgt; i += 2)
        cyc[c->tid[p->tgt[i]]] = 1;
    if (rc || !cyc || ft_witness_locals(c, r, order, n, cyc, res)) {
        free(cyc);
        return -1;
    }
    free(cyc);
    /* each cycle thread's last step: where it stands must be kept */
    uint8_t *seed = calloc(res->nsteps + 1, 1);
    if (!seed)
        return -1;
    for (uint32_t i = 0; i < p->ntgt; i += 2) {
        uint32_t t = c->tid[p->tgt[i]];
        for (uint32_t j = res->nsteps; j-- > 0;)
            if (c->tid[res->steps[j].trans] == t) {
                seed[j] = 1;
                break;
            }
    }
    rc = ft_presult_trim_seeds(c, res, seed);
    free(seed);
    return rc;
}

static const char *site_of(const ft_ctm *c, const ft_trace_info *ti,
                           uint32_t x, char *buf, size_t len)
{
    return ft_trace_info_site(ti, c, x, buf, len);
}

static uint32_t describe(const ft_ctm *c, const ft_trace_info *ti,
                         const ft_prop *p, const ft_presult *res,
                         ft_kevent *ev, uint32_t max, char *msg, size_t len)
{
    (void)res;
    uint32_t k = p->ntgt / 2, first = 0;
    char a[256], b[256];
    /* start the cycle at its smallest acquisition site, so that the
     * same cycle found from another run reads (and fingerprints) alike */
    for (uint32_t i = 1; i < k; i++)
        if (strcmp(site_of(c, ti, p->tgt[2 * i], a, sizeof a),
                   site_of(c, ti, p->tgt[2 * first], b, sizeof b)) < 0)
            first = i;
    uint32_t n = 0;
    size_t off = 0;
    msg[0] = 0;
    for (uint32_t j = 0; j < k && n + 2 <= max; j++) {
        uint32_t i = (first + j) % k;
        uint32_t req = p->tgt[2 * i], hold = p->tgt[2 * i + 1];
        ev[n++] = (ft_kevent){"holds", hold};
        ev[n++] = (ft_kevent){"waits", req};
        char lh[128], lr[128];
        int w = snprintf(msg + off, len - off, "%sthread %u holds %s and "
                         "waits for %s", j ? ", " : "", c->tid[req],
                         ft_pkind_var(c, ti, lock_of(c, hold), lh, sizeof lh),
                         ft_pkind_var(c, ti, c->obj[req], lr, sizeof lr));
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    return n;
}

const ft_pkind ft_pkind_deadlock = {
    .kind = FT_PROP_DEADLOCK,
    .name = "deadlock",
    .stage = "deadlock candidates",
    .rule = "Deadlock",
    .summary =
        "Threads can each hold a lock the next one waits for, in a cycle: "
        "the run can stop for good in a deadlock.",
    .title = "deadlock",
    .whole_model = 0,
    .expect = FT_EXPECT_DEADLOCK,
    .candidates = candidates,
    .goal = goal,
    .witness = witness,
    .describe = describe,
};

/* SPDX-License-Identifier: MIT */
/* kind_stuck.c - lost wake-ups and other waits left for good: a feasible
 * prefix after which thread t waits at W (a condition wait that a notify
 * woke in the recorded run, a blocking semaphore wait, a barrier) and
 * cannot go on, and no thread can ever wake it: every thread has
 * finished, has not begun (its creator waits), or waits too, at an
 * operation that cannot run in the final state (a lock another thread
 * holds, a wait no notify reached, a join of a thread that has not
 * finished, a semaphore at zero, an incomplete barrier generation).
 * Nothing is left to run, so the state is final: the runtime's deadlock
 * report shows it on replay, or, when W is a timed wait, its timeout
 * (which the runtime lets expire only when no thread can run) and what
 * the program does then (data/lost_wakeup asserts).
 *
 * Unlike a lock cycle, a wait can be woken by any thread, so the goal is
 * about every thread: it is solved on the whole model, not a slice.  All
 * reads that ran must return their recorded values (every thread went
 * past them: a finished thread ran all its reads).  Candidates: each such
 * wait, per_group dynamic instances per site.  The witness is the whole
 * prefix (nothing may be left out: every thread's place is the state). */
#include "predict/kind_stuck.h"

#include <stdlib.h>
#include <string.h>

static int waits(const ft_ctm *c, uint32_t x)
{
    uint32_t v = c->obj[x];
    return (c->op[x] == FT_OP_WAIT_POST || c->op[x] == FT_OP_SEM_WAIT ||
            c->op[x] == FT_OP_BARRIER_LEAVE) &&
           ft_ctm_blocking(c, x) && v < c->nvars && c->vars[v].shared;
}

static int candidates(const ft_pkind_src *s, ft_props *out)
{
    const ft_ctm *c = s->c;
    uint32_t nsites = 0;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->site[x] + 1 > nsites)
            nsites = c->site[x] + 1;
    uint32_t *seen = calloc(nsites + 1, sizeof *seen); /* per site */
    if (!seen)
        return -1;
    for (uint32_t x = 0; x < c->ntrans && out->n < s->max_props; x++) {
        if (!waits(c, x) || seen[c->site[x]]++ >= s->per_group)
            continue;
        ft_prop p;
        memset(&p, 0, sizeof p);
        p.kind = FT_PROP_STUCK;
        p.tgt[p.ntgt++] = x;
        p.group = c->site[x];
        if (ft_props_push(out, &p) < 0) {
            free(seen);
            return -1;
        }
    }
    free(seen);
    return 0;
}

/* ---- the cheap argument: no final state at all ---------------------
 *
 * A state where every thread has finished, not begun, or waits is fixed
 * by where each thread stands (its cut): what ran is each thread's
 * prefix.  Some of what must hold there is a matter of those prefixes
 * alone, whatever their order: a lock waited for is held by another
 * thread, no lock is held twice, a semaphore waited on is at zero (posts
 * minus waits in the prefixes, plus its one initial count), a joined
 * thread has finished, a thread has begun exactly when its fork ran.  If
 * no combination of cuts meets these, no schedule reaches such a state
 * and the property holds without the solver (the search is bounded; past
 * the bound the solver decides). */

/* How many of the increasing positions a[0..n) lie below cut. */
static uint32_t below(const uint32_t *a, uint32_t n, uint32_t cut)
{
    if (cut == UNSTARTED)
        return 0;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (a[m] < cut)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static int push_pos(uint32_t **a, uint32_t *n, uint32_t pos)
{
    uint32_t *b = realloc(*a, sizeof *b * (*n + 1));
    if (!b)
        return -1;
    b[(*n)++] = pos;
    *a = b;
    return 0;
}

/* The semaphore ops of v (once per v). */
static semops *sem_of(cuts *s, uint32_t v)
{
    const ft_ctm *c = s->c;
    for (uint32_t i = 0; i < s->nsem; i++)
        if (s->sem[i].v == v)
            return &s->sem[i];
    semops *n = realloc(s->sem, sizeof *n * (s->nsem + 1));
    if (!n)
        return NULL;
    s->sem = n;
    semops *m = &s->sem[s->nsem++];
    memset(m, 0, sizeof *m);
    m->v = v;
    uint32_t nt = c->nthreads;
    m->post = calloc(nt, sizeof *m->post);
    m->wait = calloc(nt, sizeof *m->wait);
    m->npost = calloc(nt, sizeof *m->npost);
    m->nwait = calloc(nt, sizeof *m->nwait);
    if (!m->post || !m->wait || !m->npost || !m->nwait)
        return NULL;
    uint32_t init = FT_CTM_NONE, inits = 0;
    for (uint32_t y = 0; y < c->ntrans; y++) {
        if (c->obj[y] != v)
            continue;
        uint32_t t = c->tid[y];
        if (c->op[y] == FT_OP_SEM_INIT) {
            init = y;
            inits++;
        } else if ((c->op[y] == FT_OP_SEM_POST &&
                    push_pos(&m->post[t], &m->npost[t], c->pos[y])) ||
                   (c->op[y] == FT_OP_SEM_WAIT &&
                    push_pos(&m->wait[t], &m->nwait[t], c->pos[y]))) {
            return NULL;
        }
    }
    m->known = inits <= 1;
    for (uint32_t y = 0; init != FT_CTM_NONE && y < c->ntrans && m->known;
         y++)
        if (c->obj[y] == v && y != init && c->tid[y] != c->tid[init] &&
            !ft_ctm_must_hb(c, init, y))
            m->known = 0;
    m->base = init != FT_CTM_NONE ? (int64_t)c->value[init]
                                  : (int64_t)c->vars[v].init;
    return m;
}

static void sems_free(cuts *s)
{
    for (uint32_t i = 0; i < s->nsem; i++) {
        for (uint32_t t = 0; t < s->c->nthreads; t++) {
            if (s->sem[i].post)
                free(s->sem[i].post[t]);
            if (s->sem[i].wait)
                free(s->sem[i].wait[t]);
        }
        free(s->sem[i].post);
        free(s->sem[i].wait);
        free(s->sem[i].npost);
        free(s->sem[i].nwait);
    }
    free(s->sem);
}

/* The lock holds of the thread at depth d exclude none of those of the
 * threads before it. */
static int apart(const cuts *s, uint32_t d)
{
    const ft_reduced *w = s->w;
    uint32_t h = stuck_held_at(s, s->order[d]);
    for (uint32_t i = 0; h && i < w->ls_len[h]; i++) {
        uint32_t en = w->ls_pool[w->ls_first[h] + i];
        for (uint32_t k = 0; k < d; k++) {
            uint32_t u = s->order[k];
            int rd;
            if (ft_pkind_set_has(w, stuck_held_at(s, u), en >> 1, &rd) &&
                !(rd && (en & 1)))
                return 0;
        }
    }
    return 1;
}

/* Whether the cuts make a final state, as far as prefixes tell (lock
 * exclusion was checked while choosing them). */
static int consistent(cuts *s)
{
    const ft_ctm *c = s->c;
    const ft_reduced *w = s->w;
    uint32_t nt = c->nthreads;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t f = c->fork_trans[t], cut = s->cut[t];
        int forked = f == FT_CTM_NONE ||
                     (s->cut[c->tid[f]] != UNSTARTED &&
                      s->cut[c->tid[f]] > c->pos[f]);
        if ((cut == UNSTARTED) == forked)
            return 0;
        uint32_t j = c->join_trans[t]; /* t's first join: t finished */
        if (j != FT_CTM_NONE && s->cut[c->tid[j]] != UNSTARTED &&
            s->cut[c->tid[j]] > c->pos[j] && cut != c->len[t])
            return 0;
        if (cut == UNSTARTED || cut == c->len[t])
            continue;
        uint32_t x = ft_ctm_at(c, t, cut), v = c->obj[x];
        int ok = 1;
        switch (c->op[x]) {
        case FT_OP_LOCK:
        case FT_OP_WRLOCK:
        case FT_OP_RDLOCK:
            ok = 0;
            for (uint32_t u = 0; u < nt && !ok; u++) {
                int rd;
                ok = u != t &&
                     ft_pkind_set_has(w, stuck_held_at(s, u), v, &rd) &&
                     !(rd && c->op[x] == FT_OP_RDLOCK);
            }
            break;
        case FT_OP_JOIN:
            ok = c->value[x] < nt && s->cut[c->value[x]] != c->len[c->value[x]];
            break;
        case FT_OP_SEM_WAIT: {
            semops *m = sem_of(s, v);
            if (!m || !m->known)
                break; /* no claim */
            int64_t n = m->base;
            for (uint32_t u = 0; u < nt; u++)
                n += (int64_t)below(m->post[u], m->npost[u], s->cut[u]) -
                     (int64_t)below(m->wait[u], m->nwait[u], s->cut[u]);
            ok = n <= 0;
            break;
        }
        default:
            break;
        }
        if (!ok)
            return 0;
    }
    return 1;
}

/* The threads are chosen in s->order: the waiting thread (one stop)
 * first, so that the rules between two threads refuse a stop of another
 * thread as soon as it is tried, not after every thread before it in
 * index order (workqueue's third consumer: 20 million steps, most of
 * them under stops its fixed wait rules out). */
static int search(cuts *s, uint32_t d)
{
    if (--s->budget < 0)
        return 1; /* no claim past the bound */
    if (d == s->c->nthreads) {
        if (!consistent(s) ||
            (s->vo && (stuck_woken_at_leaf(s) || stuck_ordered_at_leaf(s))))
            return 0;
        if (!s->used) /* one is enough */
            return 1;
        for (uint32_t u = 0; u < d; u++)
            s->used[u][s->at[u]] = 1;
        return 0; /* all of them: go on */
    }
    uint32_t t = s->order[d];
    for (uint32_t i = 0; i < s->nstop[t]; i++) {
        s->cut[t] = s->stop[t][i];
        s->at[t] = i;
        if (apart(s, d) && stuck_fits(s, d) && search(s, d + 1))
            return 1;
    }
    return 0;
}

static void cuts_free(cuts *s)
{
    for (uint32_t t = 0; t < s->c->nthreads; t++) {
        if (s->stop)
            free(s->stop[t]);
        if (s->used)
            free(s->used[t]);
        for (uint32_t i = 0; s->wake && s->wake[t] && i < s->nstop[t]; i++)
            free(s->wake[t][i]);
        if (s->wake)
            free(s->wake[t]);
    }
    free(s->wake);
    free(s->stop);
    free(s->nstop);
    free(s->cut);
    free(s->at);
    free(s->order);
    free(s->used);
    free(s->held_by);
    stuck_order_free(s);
    sems_free(s);
}

/* Every thread's stops (c->len[t]: finished, UNSTARTED, or the position
 * of an operation it may wait at for good), the waiting thread's fixed
 * at p's wait.  0 ok, -1 out of memory. */
static int make_stops(cuts *s, const ft_prop *p)
{
    const ft_ctm *c = s->c;
    uint32_t nt = c->nthreads, wt = c->tid[p->tgt[0]];
    s->stop = calloc(nt, sizeof *s->stop);
    s->nstop = calloc(nt, sizeof *s->nstop);
    s->cut = calloc(nt, sizeof *s->cut);
    s->at = calloc(nt, sizeof *s->at);
    s->order = calloc(nt, sizeof *s->order);
    if (!s->stop || !s->nstop || !s->cut || !s->at || !s->order)
        return -1;
    s->order[0] = wt;
    for (uint32_t t = 0, d = 1; t < nt; t++)
        if (t != wt)
            s->order[d++] = t;
    for (uint32_t t = 0; t < nt; t++) {
        if (!(s->stop[t] = malloc(sizeof **s->stop * (c->len[t] + 2))))
            return -1;
        if (t == wt) {
            s->stop[t][s->nstop[t]++] = c->pos[p->tgt[0]];
            continue;
        }
        s->stop[t][s->nstop[t]++] = c->len[t];
        if (c->fork_trans[t] != FT_CTM_NONE)
            s->stop[t][s->nstop[t]++] = UNSTARTED;
        for (uint32_t q = 0; q < c->len[t]; q++) {
            uint32_t x = ft_ctm_at(c, t, q), v = c->obj[x];
            if (ft_ctm_blocking(c, x) &&
                (c->op[x] == FT_OP_JOIN || (v < c->nvars && c->vars[v].shared)))
                s->stop[t][s->nstop[t]++] = q;
        }
    }
    if (!s->vo)
        return 0;
    /* which thread may hold each lock where it stops (wake_of) */
    if (!(s->held_by = malloc(sizeof *s->held_by * (c->nvars + 1))))
        return -1;
    for (uint32_t v = 0; v < c->nvars; v++)
        s->held_by[v] = VO_NONE;
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t i = 0; i < s->nstop[t]; i++) {
            s->cut[t] = s->stop[t][i];
            uint32_t h = stuck_held_at(s, t);
            for (uint32_t k = 0; h && k < s->w->ls_len[h]; k++) {
                uint32_t m = s->w->ls_pool[s->w->ls_first[h] + k] >> 1;
                if (m < c->nvars)
                    s->held_by[m] =
                        s->held_by[m] == VO_NONE || s->held_by[m] == t
                            ? t
                            : STUCK_HELD_BY_MANY;
            }
        }
    /* a lock no other thread holds at any of its stops is no place to
     * wait for good (consistent() would refuse every combination with
     * it): workqueue's thousands of lock stops, none held */
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < s->nstop[t]; i++) {
            uint32_t q = s->stop[t][i], x, v;
            if (t != wt && q != UNSTARTED && q < c->len[t] &&
                (x = ft_ctm_at(c, t, q), v = c->obj[x], 1) &&
                (c->op[x] == FT_OP_LOCK || c->op[x] == FT_OP_WRLOCK ||
                 c->op[x] == FT_OP_RDLOCK) &&
                v < c->nvars &&
                (s->held_by[v] == VO_NONE || s->held_by[v] == t))
                continue;
            s->stop[t][n++] = q;
        }
        s->nstop[t] = n;
    }
    if (!(s->wake = calloc(nt, sizeof *s->wake)))
        return -1;
    for (uint32_t t = 0; t < nt; t++) {
        if (!(s->wake[t] = calloc(s->nstop[t] + 1, sizeof **s->wake)))
            return -1;
        for (uint32_t i = 0; i < s->nstop[t]; i++)
            if (s->stop[t][i] != UNSTARTED &&
                stuck_wake_of(s, t, s->stop[t][i], &s->wake[t][i]) < 0)
                return -1;
    }
    return 0;
}

/* A search over c's threads on model w, with the rules of the value
 * order vo (NULL: without them), each within its bound. */
static cuts cuts_new(const ft_ctm *c, const ft_reduced *w,
                     const ft_value_order *vo)
{
    return (cuts){.c = c,
                  .w = w,
                  .budget = CUT_BUDGET,
                  .vo = vo,
                  .wake_budget = WAKE_BUDGET,
                  .order_budget = ORDER_BUDGET};
}

static int holds(const ft_ctm *c, const ft_reduced *whole,
                 const ft_value_order *vo, const ft_prop *p)
{
    cuts s = cuts_new(c, whole, vo);
    int proved = make_stops(&s, p) == 0 && !search(&s, 0);
    cuts_free(&s);
    return proved;
}

/* For the tests (tests/predict/test_kinds_random.c): whether the cut
 * search, with the value order vo, refuses the state in which each
 * thread t stands at cut[t] (c->len[t]: finished; UINT32_MAX: not
 * begun) and p's thread at p's wait, or never tries it (a stop that is
 * not among its thread's).  -1 out of memory. */
int ft_stuck_refuses(const ft_ctm *c, const ft_reduced *whole,
                     const ft_value_order *vo, const ft_prop *p,
                     const uint32_t *cut)
{
    cuts s = cuts_new(c, whole, vo);
    if (make_stops(&s, p) < 0) {
        cuts_free(&s);
        return -1;
    }
    int refused = 0, found = 1;
    for (uint32_t t = 0; t < c->nthreads && found; t++) {
        uint32_t i = 0;
        while (i < s.nstop[t] && s.stop[t][i] != cut[t])
            i++;
        found = i < s.nstop[t];
        s.cut[t] = cut[t];
        s.at[t] = i;
    }
    for (uint32_t d = 0; d < c->nthreads && found && !refused; d++)
        refused = !apart(&s, d) || !stuck_fits(&s, d);
    if (found && !refused)
        refused =
            !consistent(&s) ||
            (vo && (stuck_woken_at_leaf(&s) || stuck_ordered_at_leaf(&s)));
    cuts_free(&s);
    return refused || !found;
}

/* Which stops a final state may have, every combination searched:
 * s->used[t][i] for stop i of thread t.  A stop in no consistent
 * combination is no place a thread stays for good, and the solver is
 * not offered it (on bench/predict's pool, every lock a thread could
 * wait at: nobody holds one when all wait).  holds() ran the same
 * search but stopped at the first consistent combination; this one, for
 * the candidates that reach the solver only, goes through all of them
 * (pool: 600 to 15,000 of its 2,000,000 steps, next to the solver's
 * seconds).  1 with s->used filled, 0 past the bound (no claim), -1 out
 * of memory. */
static int used_stops(cuts *s, const ft_prop *p)
{
    if (make_stops(s, p) < 0 ||
        !(s->used = calloc(s->c->nthreads, sizeof *s->used)))
        return -1;
    for (uint32_t t = 0; t < s->c->nthreads; t++)
        if (!(s->used[t] = calloc(s->nstop[t] + 1, 1)))
            return -1;
    search(s, 0);
    return s->budget >= 0;
}

/* Where some final state may leave the threads (used_stops): per block,
 * a thread may stay at its key; per thread, finished, not begun.  NULL
 * arrays: anywhere. */
typedef struct allowed {
    uint8_t *block, *finished, *unstarted;
} allowed;

static void allowed_free(allowed *a)
{
    free(a->block);
    free(a->finished);
    free(a->unstarted);
}

/* 0 ok (a->block NULL when the search was past its bound), -1 OOM. */
static int allowed_make(ft_smt *e, const ft_prop *p, allowed *a)
{
    const ft_ctm *c = e->c;
    memset(a, 0, sizeof *a);
    cuts s = cuts_new(c, e->r, NULL);
    int rc = used_stops(&s, p);
    if (rc == 1) {
        a->block = calloc(e->nb + 1, 1);
        a->finished = calloc(c->nthreads + 1, 1);
        a->unstarted = calloc(c->nthreads + 1, 1);
        if (!a->block || !a->finished || !a->unstarted) {
            rc = -1;
        } else {
            for (uint32_t t = 0; t < c->nthreads; t++)
                for (uint32_t i = 0; i < s.nstop[t]; i++) {
                    uint32_t q = s.stop[t][i];
                    if (!s.used[t][i])
                        continue;
                    if (q == UNSTARTED)
                        a->unstarted[t] = 1;
                    else if (q == c->len[t])
                        a->finished[t] = 1;
                    else
                        a->block[e->r->block_of[ft_ctm_at(c, t, q)]] = 1;
                }
        }
    }
    cuts_free(&s);
    if (rc < 0) {
        allowed_free(a);
        return -1;
    }
    if (rc == 0) { /* past the bound: every stop stays */
        allowed_free(a);
        memset(a, 0, sizeof *a);
    }
    return 0;
}

/* Thread t can never run again: finished, not begun, or standing at an
 * operation it waits for that cannot run; only where a allows. */
static Z3_ast settled(ft_smt *e, uint32_t t, const allowed *a)
{
    const ft_reduced *r = e->r;
    Z3_ast *alt = malloc(sizeof *alt * (r->bcount[t] + 3));
    if (!alt)
        return NULL;
    unsigned n = 0;
    if (!a->block || a->finished[t])
        alt[n++] = ft_smt_finished(e, t);
    if (!a->block || a->unstarted[t])
        alt[n++] = Z3_mk_not(e->z, ft_smt_started(e, t));
    for (uint32_t k = 0; k < r->bcount[t]; k++) {
        uint32_t b = r->bfirst[t] + k;
        if (a->block && !a->block[b])
            continue;
        Z3_ast blocked = ft_smt_blocked_at_end(e, b);
        if (!blocked)
            continue;
        Z3_ast at[2] = {ft_smt_at(e, b), blocked};
        alt[n++] = Z3_mk_and(e->z, 2, at);
    }
    Z3_ast res = ft_smt_or(e, alt, n);
    free(alt);
    return res;
}

static Z3_ast goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    const ft_ctm *c = e->c;
    uint32_t bw = tb[0];
    Z3_ast blocked = bw == FT_CTM_NONE ? NULL : ft_smt_blocked_at_end(e, bw);
    if (!blocked)
        return Z3_mk_false(e->z);
    allowed a;
    if (allowed_make(e, p, &a) < 0)
        return NULL;
    /* every read that ran returned its recorded value */
    for (uint32_t b = 0; b < e->nb; b++)
        if (e->match[b])
            ft_smt_assert(e, Z3_mk_implies(e->z, ft_smt_exec(e, b),
                                           e->match[b]));
    Z3_ast *all = malloc(sizeof *all * (c->nthreads + 2));
    Z3_ast res = NULL;
    if (!all)
        goto out;
    unsigned n = 0;
    all[n++] = ft_smt_at(e, bw);
    all[n++] = blocked;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (!(all[n++] = settled(e, t, &a)))
            goto out;
    res = ft_smt_and(e, all, n);
out:
    free(all);
    allowed_free(&a);
    return res;
}

static int witness(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res)
{
    uint8_t *mark = calloc(r->nblocks + 1, 1);
    if (!mark)
        return -1;
    /* the wait's beginning: what the wake-up should have followed */
    uint32_t w = p->tgt[0];
    if (c->pos[w] > 0 && tb[0] != FT_CTM_NONE)
        mark[r->block_of[ft_ctm_at(c, c->tid[w], c->pos[w] - 1)]] = 1;
    int rc = n ? ft_witness_from_blocks(r, order, n - 1, mark, res) : 0;
    free(mark);
    /* every thread where the state has it: past the locals before the
     * wait it stands at, or at its end */
    if (rc == 0)
        rc = ft_witness_locals(c, r, order, n, NULL, res);
    return rc;
}

static uint32_t describe(const ft_ctm *c, const ft_trace_info *ti,
                         const ft_prop *p, const ft_presult *res,
                         ft_kevent *ev, uint32_t max, char *msg, size_t len)
{
    uint32_t w = p->tgt[0], t = c->tid[w], n = 0;
    char obj[128], site[256];
    ev[n++] = (ft_kevent){"waits", w};
    /* where every thread stands when the witness ends */
    uint32_t *next = malloc(sizeof *next * (c->nthreads + 1));
    if (next) {
        for (uint32_t u = 0; u < c->nthreads; u++)
            next[u] = 0;
        for (uint32_t i = 0; res && i < res->nsteps; i++) {
            uint32_t x = res->steps[i].trans;
            next[c->tid[x]] = c->pos[x] + 1;
        }
        /* the notifies of W's condition that came before the wait */
        uint32_t pre = c->pos[w] ? ft_ctm_at(c, t, c->pos[w] - 1) : w;
        int before = 1;
        for (uint32_t i = 0; res && i < res->nsteps && n < max; i++) {
            uint32_t x = res->steps[i].trans;
            if (x == pre)
                before = 0;
            if (before && c->obj[x] == c->obj[w] &&
                (c->op[x] == FT_OP_NOTIFY || c->op[x] == FT_OP_NOTIFY_ALL ||
                 c->op[x] == FT_OP_SEM_POST))
                ev[n++] = (ft_kevent){"came before", x};
        }
        for (uint32_t u = 0; u < c->nthreads && n < max; u++)
            if (u != t && next[u] > 0 && next[u] < c->len[u])
                ev[n++] = (ft_kevent){"waits", ft_ctm_at(c, u, next[u])};
        free(next);
    }
    const char *what = c->op[w] == FT_OP_WAIT_POST   ? "condition"
                       : c->op[w] == FT_OP_SEM_WAIT ? "semaphore"
                                                    : "barrier";
    snprintf(msg, len, "thread %u waits on %s %s at %s and nothing is left "
             "to wake it", t, what, ft_pkind_var(c, ti, c->obj[w], obj,
                                                sizeof obj),
             ft_trace_info_site(ti, c, w, site, sizeof site));
    return n;
}

const ft_pkind ft_pkind_stuck = {
    .kind = FT_PROP_STUCK,
    .name = "lost-wakeup",
    .stage = "lost-wakeup candidates",
    .rule = "LostWakeup",
    .summary =
        "A thread can wait on a condition, barrier or semaphore that no "
        "other thread will signal any more (a lost wake-up): it stays "
        "blocked for good.",
    .title = "lost wake-up",
    .whole_model = 1,
    .expect = FT_EXPECT_BLOCKED,
    .candidates = candidates,
    .holds = holds,
    .goal = goal,
    .witness = witness,
    .describe = describe,
};

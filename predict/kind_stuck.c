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
#include "predict/kind.h"

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

/* Thread t can never run again: finished, not begun, or standing at an
 * operation it waits for that cannot run. */
static Z3_ast settled(ft_smt *e, uint32_t t)
{
    const ft_reduced *r = e->r;
    Z3_ast *alt = malloc(sizeof *alt * (r->bcount[t] + 3));
    if (!alt)
        return NULL;
    unsigned n = 0;
    alt[n++] = ft_smt_finished(e, t);
    alt[n++] = Z3_mk_not(e->z, ft_smt_started(e, t));
    for (uint32_t k = 0; k < r->bcount[t]; k++) {
        uint32_t b = r->bfirst[t] + k;
        Z3_ast blocked = ft_smt_blocked_at_end(e, b);
        if (!blocked)
            continue;
        Z3_ast a[2] = {ft_smt_at(e, b), blocked};
        alt[n++] = Z3_mk_and(e->z, 2, a);
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
    /* every read that ran returned its recorded value */
    for (uint32_t b = 0; b < e->nb; b++)
        if (e->match[b])
            ft_smt_assert(e, Z3_mk_implies(e->z, ft_smt_exec(e, b),
                                           e->match[b]));
    Z3_ast *all = malloc(sizeof *all * (c->nthreads + 2));
    if (!all)
        return NULL;
    unsigned n = 0;
    all[n++] = ft_smt_at(e, bw);
    all[n++] = blocked;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (!(all[n++] = settled(e, t))) {
            free(all);
            return NULL;
        }
    Z3_ast res = ft_smt_and(e, all, n);
    free(all);
    (void)p;
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
                         ft_fevent *ev, uint32_t max, char *msg, size_t len)
{
    uint32_t w = p->tgt[0], t = c->tid[w], n = 0;
    char obj[128], site[256];
    ev[n++] = (ft_fevent){"waits", w};
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
                ev[n++] = (ft_fevent){"came before", x};
        }
        for (uint32_t u = 0; u < c->nthreads && n < max; u++)
            if (u != t && next[u] > 0 && next[u] < c->len[u])
                ev[n++] = (ft_fevent){"waits", ft_ctm_at(c, u, next[u])};
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
    .title = "lost wake-up",
    .whole_model = 1,
    .expect = FT_EXPECT_BLOCKED,
    .candidates = candidates,
    .goal = goal,
    .witness = witness,
    .describe = describe,
};

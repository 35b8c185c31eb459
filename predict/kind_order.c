/* SPDX-License-Identifier: MIT */
/* kind_order.c - reads from another write: order violations, and null
 * dereferences as their sharpest case.
 *
 * Order: a shared read r (a load, the read of an atomic update or a
 * compare-and-swap) that, in a feasible prefix, reads from another write
 * than it did, with another value: a write of a different value (any
 * thread, r's own included), or the initial value where it read a
 * written one, while every read before it in its thread (and every read
 * another thread goes past) returns its recorded value (the data rule of
 * smt/data.c; an atomic update that read another value itself, as its
 * thread's last step, wrote an unknown value: reading it counts too).
 * The witness ends at r; the replay runs on from there and
 * the program's own checks decide (an assertion, a crash, a hang, a heap
 * error: a double free whose second free no passing run holds is found
 * this way, from the read of the reference count).  That is how a check
 * then act whose losing thread took the other branch, or an assertion
 * that fails only when a thread runs after two others, is found from a
 * run where it did not fail.
 *
 * Which reads: every read of a shared memory variable that some write of
 * another value (or its initial value, when another or unknown: the
 * trace wrote the variable first) need not follow, per static site
 * at most per_group dynamic instances (the first ones): branches are not
 * recorded, so any read may decide one; a loop reading one site a
 * thousand times gives the same few properties, and the count stays
 * linear in the number of sites and reads.
 *
 * Null dereference: such a read whose recorded value the thread then uses
 * as an address (one of the next USE_WINDOW accesses of its thread falls
 * in [value, value + 4096)), where a write of 0 (or a known initial 0) exists: the property
 * asks for that value.  Such a read gets only this property, not an order
 * one.  Its replay, too, runs on from the read: the program may crash at
 * the dereference (the heap oracle's null access) or check the pointer
 * first (an assertion): either failure confirms it. */
#include "predict/kind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define USE_SPAN 4096
/* How far after the read the use is looked for, in transitions of its
 * thread: a pointer is used soon after it is loaded, and an unbounded
 * scan made the candidates quadratic (a 10^6-event run of counters above
 * 4096: two minutes, every read scanning the rest of its thread). */
#define USE_WINDOW 256

static int shared_read(const ft_ctm *c, uint32_t x)
{
    uint32_t v = c->obj[x];
    return ft_ctm_reads(c, x) && v < c->nvars &&
           c->vars[v].kind == FT_VAR_MEMORY && c->vars[v].shared;
}

/* What the writes of a variable wrote, found once per variable: whether
 * an atomic update is among them, and their one value when they all wrote
 * the same (multi: more than one). */
typedef struct written {
    uint8_t done, rmw, multi, zero; /* zero: one of them wrote 0 */
    uint64_t val;
} written;

static void find_written(const ft_ctm *c, const uint32_t *w, uint32_t nw,
                         written *wr)
{
    wr->done = 1;
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t v = ft_ctm_written(c, w[i]);
        wr->rmw |= c->op[w[i]] == FT_OP_RMW;
        wr->multi |= i > 0 && v != wr->val;
        wr->zero |= v == 0;
        wr->val = v;
    }
}

/* Whether some source of another value than r's (of value want, when
 * specific) may come before r: a write that need not follow r, or the
 * initial value when no write must precede r.  wr: what the variable's
 * writes wrote (find_written); when none of them can be another value
 * (the null property's 0, or any other), only the initial value is
 * looked at (a pointer never set to NULL and read a million times
 * scanned all its writes per read: spmc's 1.6 G writes, 5 of its 8 s). */
static int has_source(const ft_ctm *c, const uint32_t *w, uint32_t nw,
                      uint32_t r, int specific, uint64_t want,
                      const written *wr)
{
    const ft_ctm_var *var = &c->vars[c->obj[r]];
    uint64_t old = c->value[r];
    int init_ok = specific ? var->has_init && var->init == want && want != old
                           : !var->has_init || var->init != old;
    int none = nw == 0 || (!wr->rmw && specific && want == 0 && !wr->zero) ||
               (!wr->rmw && !wr->multi &&
                (wr->val == old || (specific && wr->val != want)));
    if (none) {
        for (uint32_t i = 0; init_ok && i < nw; i++)
            if (w[i] != r && ft_ctm_must_hb(c, w[i], r))
                init_ok = 0;
        return init_ok;
    }
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t y = w[i];
        if (y == r)
            continue;
        if (init_ok && ft_ctm_must_hb(c, y, r))
            init_ok = 0;
        if (ft_order_other(c, NULL, y, r, specific, want) &&
            !ft_ctm_must_hb(c, r, y) &&
            !(c->tid[y] == c->tid[r] && c->pos[y] > c->pos[r]))
            return 1;
    }
    return init_ok;
}

/* The first of the next USE_WINDOW transitions of r's thread that
 * accesses memory within USE_SPAN bytes at or after the value r read:
 * r's value used as an address.  FT_CTM_NONE if none. */
static uint32_t deref_after(const ft_ctm *c, uint32_t r)
{
    uint64_t p = c->value[r];
    if (p < USE_SPAN)
        return FT_CTM_NONE;
    uint32_t t = c->tid[r];
    uint32_t end = c->len[t] - c->pos[r] > USE_WINDOW ? c->pos[r] + 1 + USE_WINDOW
                                                       : c->len[t];
    for (uint32_t q = c->pos[r] + 1; q < end; q++) {
        uint32_t y = ft_ctm_at(c, t, q), v = c->obj[y];
        if (v < c->nvars && c->vars[v].kind == FT_VAR_MEMORY &&
            c->vars[v].addr >= p && c->vars[v].addr - p < USE_SPAN)
            return y;
    }
    return FT_CTM_NONE;
}

/* The writes of each variable, in trace order (CSR). */
static int writes_by_var(const ft_ctm *c, uint32_t **first, uint32_t **ids)
{
    uint32_t *f = calloc(c->nvars + 2, sizeof *f);
    uint32_t *w = malloc(sizeof *w * (c->ntrans + 1));
    uint32_t *fill = calloc(c->nvars + 1, sizeof *fill);
    if (!f || !w || !fill) {
        free(f);
        free(w);
        free(fill);
        return -1;
    }
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (ft_ctm_writes(c, x) && c->obj[x] < c->nvars)
            f[c->obj[x] + 1]++;
    for (uint32_t v = 0; v < c->nvars; v++)
        f[v + 1] += f[v];
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (ft_ctm_writes(c, x) && c->obj[x] < c->nvars)
            w[f[c->obj[x]] + fill[c->obj[x]]++] = x;
    free(fill);
    *first = f;
    *ids = w;
    return 0;
}

/* The exclusive locks every write of a variable holds (at most 4), and
 * whether an atomic update writes it, found once per variable (a scan of
 * the writes per read was quadratic: a 10^7-event run spent minutes). */
typedef struct common_locks {
    uint8_t done, n, rmw;
    uint32_t lock[4];
} common_locks;

static void find_common(const ft_ctm *c, const ft_reduced *whole,
                        const uint32_t *w, uint32_t nw, common_locks *cl)
{
    cl->done = 1;
    cl->n = 0;
    cl->rmw = 0;
    for (uint32_t i = 0; i < nw; i++)
        cl->rmw |= c->op[w[i]] == FT_OP_RMW;
    for (uint32_t i = 0; i < nw && !cl->rmw; i++) {
        uint32_t s = ft_pkind_held_before(whole, w[i]);
        if (i == 0) {
            for (uint32_t k = 0; s && k < whole->ls_len[s] && cl->n < 4; k++) {
                uint32_t en = whole->ls_pool[whole->ls_first[s] + k];
                if (!(en & 1))
                    cl->lock[cl->n++] = en >> 1;
            }
            continue;
        }
        uint8_t kept = 0;
        for (uint32_t k = 0; k < cl->n; k++) {
            int rd;
            if (ft_pkind_set_has(whole, s, cl->lock[k], &rd) && !rd)
                cl->lock[kept++] = cl->lock[k];
        }
        cl->n = kept;
        if (!kept)
            return;
    }
}

/* Whether lock is held exclusively through thread t's positions from ..
 * to (the lock set after each). */
static int held_through(const ft_ctm *c, const ft_reduced *whole, uint32_t t,
                        uint32_t from, uint32_t to, uint32_t lock)
{
    for (uint32_t q = from; q <= to; q++) {
        int rd;
        if (!ft_pkind_set_has(whole, whole->held_after[ft_ctm_at(c, t, q)],
                              lock, &rd) ||
            rd)
            return 0;
    }
    return 1;
}

/* How far back a read's earlier access in its critical section is looked
 * for: a critical section is short. */
#define SECTION_SPAN 256

/* r can read nothing but what it read: its thread's previous access of
 * the variable, a plain read or write, lies in the same critical section
 * of a lock that every write of the variable holds, so no other thread's
 * write comes between them, and that access returned (or wrote) its
 * recorded value, the value r read (the data rule holds for every read
 * before r).  r then reads the same source, a write of its own value: no
 * order violation, and no null (a consumer's second look at a queue's
 * length in the section where it checked it; the value order cannot see
 * it, the length taking the same values again and again). */
static int determined(const ft_ctm *c, const ft_reduced *whole,
                      const uint32_t *w, uint32_t nw, common_locks *cl,
                      uint32_t r)
{
    uint32_t t = c->tid[r], q = c->pos[r], v = c->obj[r], prev = FT_CTM_NONE;
    if (!whole || q == 0 || !nw)
        return 0;
    for (uint32_t i = q; i-- > 0 && q - i <= SECTION_SPAN;) {
        uint32_t y = ft_ctm_at(c, t, i);
        if (c->obj[y] == v) {
            prev = y;
            break;
        }
    }
    if (prev == FT_CTM_NONE ||
        (c->op[prev] != FT_OP_READ && c->op[prev] != FT_OP_WRITE) ||
        (c->op[prev] == FT_OP_READ ? c->value[prev]
                                   : ft_ctm_written(c, prev)) != c->value[r])
        return 0;
    if (!cl->done)
        find_common(c, whole, w, nw, cl);
    if (cl->rmw) /* one whose read failed writes an unknown value */
        return 0;
    uint32_t sp = ft_pkind_held_before(whole, prev);
    for (uint32_t k = 0; k < cl->n; k++) {
        int rd;
        if (ft_pkind_set_has(whole, sp, cl->lock[k], &rd) && !rd &&
            held_through(c, whole, t, c->pos[prev], q - 1, cl->lock[k]))
            return 1;
    }
    return 0;
}

static int candidates_of(const ft_pkind_src *s, ft_props *out, int null)
{
    const ft_ctm *c = s->c;
    uint32_t *wf, *wi, nsites = 0;
    if (writes_by_var(c, &wf, &wi) < 0)
        return -1;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->site[x] + 1 > nsites)
            nsites = c->site[x] + 1;
    uint32_t *seen = calloc(nsites + 1, sizeof *seen);
    common_locks *cl = calloc(c->nvars + 1, sizeof *cl);
    written *wr = calloc(c->nvars + 1, sizeof *wr);
    int rc = seen && cl && wr ? 0 : -1;
    for (uint32_t r = 0; rc == 0 && r < c->ntrans; r++) {
        if (!shared_read(c, r) || out->n >= s->max_props ||
            seen[c->site[r]] >= s->per_group)
            continue;
        uint32_t v = c->obj[r];
        const uint32_t *w = wi + wf[v];
        uint32_t nw = wf[v + 1] - wf[v];
        uint32_t d = deref_after(c, r);
        if (!wr[v].done)
            find_written(c, w, nw, &wr[v]);
        int pointer = d != FT_CTM_NONE && has_source(c, w, nw, r, 1, 0, &wr[v]);
        if (pointer != null || !has_source(c, w, nw, r, null, 0, &wr[v]) ||
            determined(c, s->whole, w, nw, &cl[v], r))
            continue;
        ft_prop p;
        memset(&p, 0, sizeof p);
        p.tgt[p.ntgt++] = r;
        p.aux = null ? d : 0; /* where the value is used: reported */
        p.group = c->site[r];
        seen[c->site[r]]++;
        rc = ft_props_push(out, &p);
    }
    free(seen);
    free(cl);
    free(wr);
    free(wf);
    free(wi);
    return rc;
}

static int order_candidates(const ft_pkind_src *s, ft_props *out)
{
    return candidates_of(s, out, 0);
}

static int null_candidates(const ft_pkind_src *s, ft_props *out)
{
    return candidates_of(s, out, 1);
}

/* r (the key of block br) reads from a source of another value than its
 * recorded one (of value want, when specific) and its thread stops there. */
static Z3_ast reads_other(ft_smt *e, uint32_t br, int specific, uint64_t want)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    uint32_t x = r->bkey[br];
    if (x == FT_CTM_NONE || !ft_ctm_reads(c, x))
        return Z3_mk_false(e->z);
    uint32_t v = c->obj[x], t = c->tid[x];
    uint64_t old = c->value[x];
    const ft_ctm_var *var = &c->vars[v];
    uint32_t nw = 0;
    uint32_t *w = malloc(sizeof *w * (c->ntrans + 1));
    Z3_ast *alt = malloc(sizeof *alt * (c->ntrans + 2));
    Z3_ast *tmp = malloc(sizeof *tmp * (c->ntrans + 2));
    Z3_ast res = NULL;
    if (!w || !alt || !tmp)
        goto out;
    for (uint32_t y = 0; y < c->ntrans; y++)
        if (y != x && c->obj[y] == v && ft_ctm_writes(c, y))
            w[nw++] = y;
    unsigned na = 0;
    Z3_context z = e->z;
    for (uint32_t i = 0; i < nw; i++) {
        /* A write's value is its recorded one (its thread went past no
         * read of another value), an atomic update's only when its own
         * read matched; one that did not wrote something unknown: another
         * write than r read, though not a value we can name. */
        uint64_t val = ft_ctm_written(c, w[i]);
        uint32_t bw = r->block_of[w[i]];
        int rmw = c->op[w[i]] == FT_OP_RMW && e->match[bw];
        if (specific ? val != want || val == old : val == old && !rmw)
            continue;
        unsigned nt = 0;
        tmp[nt++] = ft_smt_lt(e, bw, br);
        if (rmw && specific)
            tmp[nt++] = e->match[bw];
        else if (rmw && val == old)
            tmp[nt++] = Z3_mk_not(z, e->match[bw]);
        for (uint32_t j = 0; j < nw; j++) {
            if (j == i)
                continue;
            uint32_t b2 = r->block_of[w[j]];
            Z3_ast btw[2] = {ft_smt_lt(e, bw, b2), ft_smt_lt(e, b2, br)};
            tmp[nt++] = Z3_mk_not(z, Z3_mk_and(z, 2, btw));
        }
        alt[na++] = ft_smt_and(e, tmp, nt);
    }
    /* the initial value: another one, or unknown (the trace wrote the
     * variable first) where r read a written value */
    if (specific ? var->has_init && var->init == want && want != old
                 : !var->has_init || var->init != old) {
        unsigned nt = 0;
        for (uint32_t j = 0; j < nw; j++)
            tmp[nt++] = Z3_mk_not(z, ft_smt_lt(e, r->block_of[w[j]], br));
        alt[na++] = ft_smt_and(e, tmp, nt);
    }
    Z3_ast g[3];
    unsigned ng = 0;
    g[ng++] = ft_smt_exec(e, br);
    g[ng++] = ft_smt_or(e, alt, na);
    if (br + 1 < r->bfirst[t] + r->bcount[t]) /* it stops at r */
        g[ng++] = Z3_mk_not(z, ft_smt_exec(e, br + 1));
    res = ft_smt_and(e, g, ng);
out:
    free(w);
    free(alt);
    free(tmp);
    return res;
}

static Z3_ast order_goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    return !ft_target_keyed(e->r, p, tb, 0) ? Z3_mk_false(e->z)
                                            : reads_other(e, tb[0], 0, 0);
}

static Z3_ast null_goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    return !ft_target_keyed(e->r, p, tb, 0) ? Z3_mk_false(e->z)
                                            : reads_other(e, tb[0], 1, 0);
}

/* The prefix up to r, cut to what r's read needs: r and its source
 * marked (the last write of r's variable before it, if any). */
static int witness(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res)
{
    const ft_ctm *m = r->ctm;
    uint32_t closing = 0;
    while (closing < n && order[closing] != tb[0])
        closing++;
    if (closing == n)
        return -1;
    uint8_t *mark = calloc(r->nblocks + 1, 1);
    if (!mark)
        return -1;
    mark[tb[0]] = 1;
    uint32_t x = r->bkey[tb[0]];
    for (uint32_t i = closing; i-- > 0;) {
        uint32_t y = r->bkey[order[i]];
        if (y != FT_CTM_NONE && m->obj[y] == m->obj[x] && ft_ctm_writes(m, y)) {
            mark[order[i]] = 1;
            break;
        }
    }
    int rc = ft_witness_from_blocks(r, order, closing, mark, res);
    free(mark);
    (void)p;
    return rc ? -1 : ft_presult_trim_seeds(c, res, NULL);
}

/* The write r reads from at the end of the witness, FT_CTM_NONE for the
 * initial value. */
static uint32_t source_in(const ft_ctm *c, const ft_presult *res, uint32_t r)
{
    uint32_t src = FT_CTM_NONE;
    /* a window's witness runs the recorded prefix (ids below prefix)
     * first */
    for (uint32_t y = 0; res && y < res->prefix && y < c->ntrans; y++)
        if (c->obj[y] == c->obj[r] && ft_ctm_writes(c, y))
            src = y;
    for (uint32_t i = 0; res && i < res->nsteps; i++) {
        uint32_t y = res->steps[i].trans;
        if (y == r)
            break;
        if (c->obj[y] == c->obj[r] && ft_ctm_writes(c, y))
            src = y;
    }
    return src;
}

static uint32_t describe_as(const ft_ctm *c, const ft_trace_info *ti,
                            const ft_prop *p, const ft_presult *res,
                            ft_kevent *ev, uint32_t max, char *msg,
                            size_t len, int null)
{
    uint32_t r = p->tgt[0], n = 0, src = source_in(c, res, r);
    char var[128], a[256];
    ev[n++] = (ft_kevent){"reads", r};
    if (src != FT_CTM_NONE && n < max)
        ev[n++] = (ft_kevent){"from", src};
    if (null && p->aux < c->ntrans && n < max)
        ev[n++] = (ft_kevent){"dereferences", (uint32_t)p->aux};
    const ft_ctm_var *vr = &c->vars[c->obj[r]];
    uint64_t now = src != FT_CTM_NONE ? ft_ctm_written(c, src) : vr->init;
    char val[64], was[64];
    ft_pkind_value(c, ti, c->obj[r], now, val, sizeof val);
    ft_pkind_value(c, ti, c->obj[r], c->value[r], was, sizeof was);
    int w = snprintf(msg, len, "thread %u reads %s ", c->tid[r],
                     ft_pkind_var(c, ti, c->obj[r], var, sizeof var));
    if (w < 0 || (size_t)w >= len)
        return n;
    if (src == FT_CTM_NONE && vr->has_init)
        w += snprintf(msg + w, len - (size_t)w, "before any write (its "
                      "initial value %s)", val);
    else if (src == FT_CTM_NONE)
        w += snprintf(msg + w, len - (size_t)w, "before any write (its "
                      "initial value)");
    else
        w += snprintf(msg + w, len - (size_t)w, "from the write at %s "
                      "(%s)",
                      ft_trace_info_site(ti, c, src, a, sizeof a), val);
    if (w < 0 || (size_t)w >= len)
        return n;
    if (null && p->aux < c->ntrans)
        snprintf(msg + w, len - (size_t)w, ", then uses it as an address "
                 "at %s", ft_trace_info_site(ti, c, (uint32_t)p->aux, a,
                                             sizeof a));
    else
        snprintf(msg + w, len - (size_t)w, " where the recorded run read "
                 "%s", was);
    return n;
}

static uint32_t order_describe(const ft_ctm *c, const ft_trace_info *ti,
                               const ft_prop *p, const ft_presult *res,
                               ft_kevent *ev, uint32_t max, char *msg,
                               size_t len)
{
    return describe_as(c, ti, p, res, ev, max, msg, len, 0);
}

static uint32_t null_describe(const ft_ctm *c, const ft_trace_info *ti,
                              const ft_prop *p, const ft_presult *res,
                              ft_kevent *ev, uint32_t max, char *msg,
                              size_t len)
{
    return describe_as(c, ti, p, res, ev, max, msg, len, 1);
}

static int order_vholds(const ft_ctm *c, const struct ft_value_order *vo,
                        const ft_prop *p)
{
    return ft_order_vholds(c, vo, p, 0, 0);
}

static int null_vholds(const ft_ctm *c, const struct ft_value_order *vo,
                       const ft_prop *p)
{
    return ft_order_vholds(c, vo, p, 1, 0);
}

static int order_search(ft_ctm *c, const ft_reduced *whole,
                        const ft_prop *p, double deadline, ft_presult *res)
{
    return ft_order_search(c, whole, p, 0, 0, deadline, res);
}

static int null_search(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                       double deadline, ft_presult *res)
{
    return ft_order_search(c, whole, p, 1, 0, deadline, res);
}

const ft_pkind ft_pkind_order = {
    .kind = FT_PROP_ORDER,
    .name = "order",
    .stage = "order candidates",
    .rule = "OrderViolation",
    .summary =
        "A shared read can see another write than the one it saw in the "
        "recorded run, one the code around it does not expect (an "
        "operation can run before the one it depends on).",
    .title = "order violation",
    .whole_model = 0,
    .expect = FT_EXPECT_FOLLOWED,
    .candidates = order_candidates,
    .vholds = order_vholds,
    .search = order_search,
    .goal = order_goal,
    .witness = witness,
    .describe = order_describe,
};

const ft_pkind ft_pkind_null = {
    .kind = FT_PROP_NULL,
    .name = "null-deref",
    .stage = "null-deref candidates",
    .rule = "NullDereference",
    .summary =
        "A pointer another thread clears can be read and dereferenced "
        "while it is null.",
    .title = "null dereference",
    .whole_model = 0,
    .expect = FT_EXPECT_NULL,
    .candidates = null_candidates,
    .vholds = null_vholds,
    .search = null_search,
    .goal = null_goal,
    .witness = witness,
    .describe = null_describe,
};

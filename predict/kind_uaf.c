/* SPDX-License-Identifier: MIT */
/* kind_uaf.c - use after free: a heap object freed by one thread and
 * accessed by another before the free in the recorded run, where a
 * feasible prefix runs the free first and then the access (every read
 * before the access in its thread returning its recorded value).  The
 * witness ends at the access; the replay's heap oracle must report the
 * use after free there (FT_EXPECT_UAF).
 *
 * Frees are transitions of the model (ctm/build.c: FT_OP_FREE on the
 * object, sized by its allocation), conflicting with nothing but another
 * free of the object, so no reduction orders them against the accesses:
 * the kinds are solved without the CXT restriction (kinds.c).
 *
 * Candidates: for each free f and each other thread, that thread's
 * accesses to memory inside the object after its allocation (after the
 * previous free covering that memory) and before f, its last seven (one
 * property: some of them follows f, the thread stopping there).  Per
 * static pair (last access site, free site) at most per_group
 * instances.  A double free whose
 * second free no passing run holds comes from a read of the count that
 * decides it (an order violation, kind_order.c); a pointer read that
 * sees NULL, kind_order.c's null dereference. */
#include "predict/kind.h"
#include "predict/vorder.h"

#include <stdlib.h>
#include <string.h>

#define NACC (FT_PROP_MAX_TGT - 1) /* accesses per property */

typedef struct pairkey {
    uint32_t asite, fsite, n;
} pairkey;

static int candidates(const ft_pkind_src *s, ft_props *out)
{
    const ft_ctm *c = s->c;
    uint32_t nt = c->nthreads, m = 0;
    uint64_t *mem = ft_ctm_mem_by_addr(c, &m);
    uint32_t *acc_first = calloc(c->nvars + 2, sizeof *acc_first);
    uint32_t *acc = malloc(sizeof *acc * (c->ntrans + 1));
    uint32_t *fill = calloc(c->nvars + 1, sizeof *fill);
    uint32_t *lastfree = malloc(sizeof *lastfree * (c->nvars + 1));
    /* per thread: its last accesses to the object, latest last */
    uint32_t *last = malloc(sizeof *last * (nt + 1) * NACC);
    uint32_t *nlast = malloc(sizeof *nlast * (nt + 1));
    pairkey *keys = NULL;
    size_t nkeys = 0, capkeys = 0;
    int rc = -1;
    if (!mem || !acc_first || !acc || !fill || !lastfree || !last || !nlast)
        goto out;
    for (uint32_t v = 0; v < c->nvars; v++)
        lastfree[v] = FT_CTM_NONE;
    /* each memory variable's accesses, in trace order */
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW)
            acc_first[c->obj[x] + 1]++;
    for (uint32_t v = 0; v < c->nvars; v++)
        acc_first[v + 1] += acc_first[v];
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW)
            acc[acc_first[c->obj[x]] + fill[c->obj[x]]++] = x;
    rc = 0;
    for (uint32_t f = 0; f < c->ntrans && rc == 0; f++) {
        if (c->op[f] != FT_OP_FREE)
            continue;
        const ft_ctm_var *h = &c->vars[c->obj[f]];
        uint64_t lo = h->addr, hi = lo + c->value[f];
        uint32_t a = ft_ctm_mem_lower(mem, m, lo);
        memset(nlast, 0, sizeof *nlast * (nt + 1));
        for (uint32_t i = a; i < m && mem[2 * i] < hi; i++) {
            uint32_t v = (uint32_t)mem[2 * i + 1];
            for (uint32_t q = acc_first[v]; q < acc_first[v + 1]; q++) {
                uint32_t x = acc[q], t = c->tid[x];
                if (x > f)
                    break;
                if (t == c->tid[f] ||
                    (lastfree[v] != FT_CTM_NONE && x < lastfree[v]) ||
                    ft_ctm_must_hb(c, x, f))
                    continue;
                /* keep t's latest NACC, in increasing order */
                uint32_t *l = last + (size_t)t * NACC, k = nlast[t];
                if (k == NACC) {
                    if (x < l[0])
                        continue;
                    memmove(l, l + 1, (NACC - 1) * sizeof *l);
                    k--;
                }
                while (k > 0 && l[k - 1] > x) {
                    l[k] = l[k - 1];
                    k--;
                }
                l[k] = x;
                nlast[t]++;
                if (nlast[t] > NACC)
                    nlast[t] = NACC;
            }
            lastfree[v] = f;
        }
        for (uint32_t t = 0; t < nt && rc == 0; t++) {
            if (!nlast[t] || out->n >= s->max_props)
                continue;
            uint32_t x = last[(size_t)t * NACC + nlast[t] - 1];
            size_t k = 0; /* its static pair's count */
            while (k < nkeys && (keys[k].asite != c->site[x] ||
                                 keys[k].fsite != c->site[f]))
                k++;
            if (k == nkeys) {
                if (nkeys == capkeys) {
                    capkeys = capkeys ? 2 * capkeys : 16;
                    pairkey *nk = realloc(keys, capkeys * sizeof *nk);
                    if (!nk) {
                        rc = -1;
                        break;
                    }
                    keys = nk;
                }
                keys[nkeys++] = (pairkey){c->site[x], c->site[f], 0};
            }
            if (keys[k].n++ >= s->per_group)
                continue;
            ft_prop p;
            memset(&p, 0, sizeof p);
            p.tgt[p.ntgt++] = f;
            for (uint32_t j = 0; j < nlast[t]; j++)
                p.tgt[p.ntgt++] = last[(size_t)t * NACC + j];
            p.group = (uint32_t)k;
            rc = ft_props_push(out, &p);
        }
    }
out:
    free(mem);
    free(acc_first);
    free(acc);
    free(fill);
    free(lastfree);
    free(last);
    free(nlast);
    free(keys);
    return rc;
}

/* Where target access a lies in its block ba: the block's shared
 * transition itself, a local before it (run by the thread on its way
 * there), a local after it (the thread's trailing transitions), or one
 * after it glued to it (ctm.h: it runs right after the key, so the free
 * must come before the block as for the key itself). */
enum { AT_KEY, BEFORE_KEY, AFTER_KEY, GLUED_KEY };

/* Whether the chain of glued steps from key reaches a (whole-model id). */
static int glued_to_key(const ft_reduced *r, uint32_t key, uint32_t a)
{
    const ft_ctm *m = r->ctm;
    uint32_t t = m->tid[key];
    for (uint32_t q = m->pos[key]; m->nglue && q < m->len[t]; q++) {
        uint32_t y = ft_ctm_at(m, t, q);
        uint32_t o = r->orig ? r->orig[y] : y;
        if (o >= a)
            return o == a;
        if (!ft_ctm_glued(m, y))
            return 0;
    }
    return 0;
}

static int place(const ft_reduced *r, uint32_t ba, uint32_t a);

/* Target a in block *ba: where it lies, and the block that times it.  A
 * local before its key glued to the previous block's key runs right
 * after that one: then that block times it, as GLUED_KEY. */
static int where(const ft_reduced *r, uint32_t *ba, uint32_t a)
{
    int pl = place(r, *ba, a);
    uint32_t t = ft_block_thread(r, *ba);
    if (pl == BEFORE_KEY && *ba > r->bfirst[t] &&
        r->bkey[*ba - 1] != FT_CTM_NONE &&
        glued_to_key(r, r->bkey[*ba - 1], a)) {
        --*ba;
        return GLUED_KEY;
    }
    return pl;
}

static int place(const ft_reduced *r, uint32_t ba, uint32_t a)
{
    uint32_t key = r->bkey[ba];
    if (key == FT_CTM_NONE)
        return BEFORE_KEY;
    uint32_t k = r->orig ? r->orig[key] : key; /* ids grow with position */
    return a == k                  ? AT_KEY
           : a < k                 ? BEFORE_KEY
           : glued_to_key(r, key, a) ? GLUED_KEY
                                     : AFTER_KEY;
}

/* The free runs, then one of the accesses, and the accessing thread
 * stops there.  A local access (memory only its thread touches) runs
 * whenever its thread is past the shared transitions before it: it can
 * always come last, after the free. */
static Z3_ast goal(ft_smt *e, const ft_prop *p, const uint32_t *tb)
{
    const ft_reduced *r = e->r;
    uint32_t bf = tb[0];
    Z3_ast alt[FT_PROP_MAX_TGT];
    unsigned na = 0;
    for (uint32_t i = 1; i < p->ntgt && bf != FT_CTM_NONE; i++) {
        uint32_t ba = tb[i];
        if (ba == FT_CTM_NONE)
            continue;
        int pl = where(r, &ba, p->tgt[i]);
        uint32_t t = ft_block_thread(r, ba);
        int last = ba + 1 == r->bfirst[t] + r->bcount[t];
        Z3_ast g[4];
        unsigned n = 0;
        switch (pl) {
        case AT_KEY:
        case GLUED_KEY:
            g[n++] = ft_smt_exec(e, ba);
            g[n++] = ft_smt_lt(e, bf, ba);
            if (!last)
                g[n++] = Z3_mk_not(e->z, ft_smt_exec(e, ba + 1));
            if (pl == GLUED_KEY && e->match[ba])
                g[n++] = e->match[ba];
            break;
        case BEFORE_KEY:
            g[n++] = ft_smt_at(e, ba);
            break;
        default: /* past the key, which it must have gone past */
            g[n++] = ft_smt_exec(e, ba);
            if (e->match[ba])
                g[n++] = e->match[ba];
            break;
        }
        alt[na++] = ft_smt_and(e, g, n);
    }
    if (!na)
        return Z3_mk_false(e->z);
    Z3_ast g[2] = {ft_smt_exec(e, bf), ft_smt_or(e, alt, na)};
    return Z3_mk_and(e->z, 2, g);
}

/* Which target access the model's schedule order[0..n) satisfies the
 * goal with (at[] the blocks' positions), 0 if none. */
static uint32_t chosen(const ft_reduced *r, const ft_prop *p,
                       const uint32_t *tb, const uint32_t *at)
{
    for (uint32_t i = 1; i < p->ntgt; i++) {
        uint32_t ba = tb[i];
        if (ba == FT_CTM_NONE)
            continue;
        int pl = where(r, &ba, p->tgt[i]);
        uint32_t t = ft_block_thread(r, ba);
        int last = ba + 1 == r->bfirst[t] + r->bcount[t];
        int ran = at[ba] != UINT32_MAX;
        int next = !last && at[ba + 1] != UINT32_MAX;
        int prev = ba == r->bfirst[t] || at[ba - 1] != UINT32_MAX;
        switch (pl) {
        case AT_KEY:
        case GLUED_KEY:
            if (ran && !next && at[tb[0]] < at[ba])
                return i;
            break;
        case BEFORE_KEY:
            if (!ran && prev)
                return i;
            break;
        default:
            if (ran)
                return i;
            break;
        }
    }
    return 0;
}

/* The prefix with the access last, cut to what the free and the access
 * need. */
static int witness(const ft_ctm *c, const ft_reduced *r, const ft_prop *p,
                   const uint32_t *order, uint32_t n, const uint32_t *tb,
                   ft_presult *res)
{
    uint32_t *at = malloc(sizeof *at * (r->nblocks + 1)); /* position */
    uint8_t *mark = calloc(r->nblocks + 1, 1);
    int rc = -1;
    if (!at || !mark)
        goto out;
    for (uint32_t b = 0; b <= r->nblocks; b++)
        at[b] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        at[order[i]] = i;
    uint32_t j = chosen(r, p, tb, at);
    if (!j || !n)
        goto out;
    uint32_t a = p->tgt[j], ba = tb[j];
    int pl = where(r, &ba, a), key = pl == AT_KEY;
    rc = ft_witness_from_blocks(r, order,
                                key || pl == GLUED_KEY ? at[ba] : n - 1, mark,
                                res);
    if (rc)
        goto out;
    if (!key) { /* its thread's locals up to it, last */
        /* in c's positions: a window's model (r) starts each thread
         * after the recorded prefix, which has run them already */
        uint32_t t = c->tid[a], from = ft_ctm_pos_before(c, t, res->prefix);
        for (uint32_t i = 0; i < res->nsteps; i++)
            if (c->tid[res->steps[i].trans] == t)
                from = c->pos[res->steps[i].trans] + 1;
        for (uint32_t q = from; rc == 0 && q <= c->pos[a]; q++)
            rc = ft_presult_append(res, ft_ctm_at(c, t, q), 0);
    }
    for (uint32_t i = 0; rc == 0 && i < res->nsteps; i++)
        res->steps[i].mark = res->steps[i].trans == a ||
                             res->steps[i].trans == p->tgt[0];
    if (rc == 0)
        rc = ft_presult_trim_seeds(c, res, NULL);
out:
    free(at);
    free(mark);
    return rc ? -1 : 0;
}

/* The access of p the witness ends with (its last marked step). */
static uint32_t access_of(const ft_prop *p, const ft_presult *res)
{
    for (uint32_t i = res ? res->nsteps : 0; i-- > 0;)
        for (uint32_t j = 1; j < p->ntgt; j++)
            if (res->steps[i].trans == p->tgt[j])
                return p->tgt[j];
    return p->tgt[p->ntgt - 1];
}

static uint32_t describe(const ft_ctm *c, const ft_trace_info *ti,
                         const ft_prop *p, const ft_presult *res,
                         ft_kevent *ev, uint32_t max, char *msg, size_t len)
{
    (void)max;
    uint32_t f = p->tgt[0], a = access_of(p, res);
    char obj[200], fs[256], as[256];
    ev[0] = (ft_kevent){"frees", f};
    ev[1] = (ft_kevent){"then accesses", a};
    snprintf(msg, len, "thread %u frees %s at %s before thread %u's %s of "
             "it at %s", c->tid[f],
             ft_pkind_var(c, ti, c->obj[a], obj, sizeof obj),
             ft_trace_info_site(ti, c, f, fs, sizeof fs), c->tid[a],
             ft_ctm_writes(c, a) ? "write" : "read",
             ft_trace_info_site(ti, c, a, as, sizeof as));
    return 2;
}

/* Holds when the value order (vorder.c) puts every access before the
 * free: the free's thread cannot reach it before the accesses ran (a
 * worker frees the task it took from a queue only after the submitter
 * wrote it: its read of the queue returned the task).  Without this the
 * solver got the slice of a thread pool's task and timed out. */
static int vholds(const ft_ctm *c, const ft_value_order *vo, const ft_prop *p)
{
    uint32_t f = p->tgt[0];
    if (!vo || f >= c->ntrans || p->ntgt < 2)
        return 0;
    uint32_t tf = c->tid[f];
    for (uint32_t i = 1; i < p->ntgt; i++) {
        uint32_t a = p->tgt[i], ta = c->tid[a];
        if (a >= c->ntrans || ta == tf ||
            c->pos[a] >= vo_before(vo, tf, c->pos[f], ta))
            return 0;
    }
    return 1;
}

const ft_pkind ft_pkind_uaf = {
    .kind = FT_PROP_UAF,
    .name = "use-after-free",
    .stage = "use-after-free candidates",
    .rule = "UseAfterFree",
    .summary =
        "Memory one thread frees can be accessed by another thread after "
        "the free.",
    .title = "use after free",
    .whole_model = 0,
    .expect = FT_EXPECT_UAF,
    .candidates = candidates,
    .vholds = vholds,
    .goal = goal,
    .witness = witness,
    .describe = describe,
};

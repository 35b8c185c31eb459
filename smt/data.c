/* SPDX-License-Identifier: MIT */
/* data.c - the data rule that keeps a predicted prefix executable by the
 * real program (docs/prediction.md, "data"): a read of a shared variable
 * that its thread goes past must return the value it returned in the
 * recorded run, from a write whose own value is certain or from the known
 * initial value; reads inside the property's regions (the violating
 * accesses) and the last executed read of a thread may return anything;
 * e->strict, asked for first, lets a violating read's thread run on only
 * as far as its code runs whatever the read returned
 * (ft_ctm_runs_regardless).
 * A region's thread may run past the region only if all of the region's
 * reads matched.  A write is certain when no read of its thread before it
 * (itself, for an RMW) may have returned another value. */
#include "smt/smt.h"

#include <stdlib.h>

static int is_shared_mem(const ft_ctm *c, uint32_t x)
{
    uint32_t v = c->obj[x];
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW &&
           v < c->nvars && c->vars[v].kind == FT_VAR_MEMORY &&
           c->vars[v].shared;
}

/* p[a] < p[b] for the blocks a of transition xa and b of xb, as program
 * order decides it: 1 always, 0 never (smt/order.c orders one thread's
 * blocks unconditionally, unexecuted ones last), -1 up to the solver.
 * The data rule's terms that program order decides are left out: on a
 * thread that reads and writes a variable again and again, most of
 * them (the encoding is cubic in a variable's accesses). */
static int po_lt(const ft_ctm *c, uint32_t xa, uint32_t a, uint32_t xb,
                 uint32_t b)
{
    if (c->tid[xa] != c->tid[xb])
        return -1;
    return a < b;
}

/* Certainty of write w: the free reads of its thread before it matched. */
static Z3_ast certain(ft_smt *e, uint32_t w, Z3_ast *tmp)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    uint32_t bw = r->block_of[w];
    unsigned n = 0;
    if (c->op[w] == FT_OP_RMW)
        tmp[n++] = e->match[bw];
    for (uint32_t g = 0; g < e->nreg; g++) {
        const ft_smt_region *reg = &e->reg[g];
        if (reg->thread != c->tid[w])
            continue;
        for (uint32_t b = reg->first_block; b <= reg->last_block && b < bw;
             b++)
            if (e->match[b])
                tmp[n++] = e->match[b];
    }
    return ft_smt_and(e, tmp, n);
}

/* The first block after br (region read rd's block) that its thread
 * runs only if rd returned its recorded value: the first whose shared
 * transition lies past the straight-line code after rd's site
 * (ft_ctm_runs_regardless).  Without spans for rd, past the thread's
 * blocks (the paper's rule: "past a region" below bounds it). */
static uint32_t first_dependent(const ft_smt *e, uint32_t rd, uint32_t br)
{
    const ft_reduced *r = e->r;
    uint32_t t = e->c->tid[rd], end = r->bfirst[t] + r->bcount[t];
    uint32_t b = br + 1;
    for (; b < end; b++) {
        uint32_t key = r->bkey[b];
        int rr = key == FT_CTM_NONE ? 1
                                    : ft_ctm_runs_regardless(e->c, rd, key);
        if (rr < 0)
            return end;
        if (rr == 0)
            break;
    }
    return b;
}

int ft_smt_encode_data(ft_smt *e)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    Z3_context z = e->z;
    /* accesses of shared memory, bucketed by variable */
    uint32_t *cnt = calloc(c->nvars + 1, sizeof *cnt);
    uint32_t *acc = malloc(sizeof *acc * (c->ntrans + 1));
    uint32_t *fill = calloc(c->nvars + 1, sizeof *fill);
    Z3_ast *alt = NULL, *tmp = NULL, *tmp2 = NULL;
    uint32_t nstrict = 0;
    int rc = -1;
    if (!cnt || !acc || !fill)
        goto out;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (is_shared_mem(c, x))
            cnt[c->obj[x] + 1]++;
    for (uint32_t v = 0; v < c->nvars; v++)
        cnt[v + 1] += cnt[v];
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (is_shared_mem(c, x)) {
            uint32_t v = c->obj[x];
            acc[cnt[v] + fill[v]++] = x;
        }
    size_t big = c->ntrans + 8;
    alt = malloc(sizeof *alt * big);
    tmp = malloc(sizeof *tmp * big);
    tmp2 = malloc(sizeof *tmp2 * big);
    e->strict_read = malloc(sizeof *e->strict_read * big);
    e->strict_after = malloc(sizeof *e->strict_after * big);
    if (!alt || !tmp || !tmp2 || !e->strict_read || !e->strict_after)
        goto out;
    /* match variables first: certain() refers to them */
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (is_shared_mem(c, x) && ft_ctm_reads(c, x)) {
            e->match[r->block_of[x]] = ft_smt_bool(e, "m", r->block_of[x]);
            e->st.nreads++;
        }
    for (uint32_t v = 0; v < c->nvars; v++) {
        const uint32_t *a = acc + cnt[v];
        uint32_t na = cnt[v + 1] - cnt[v];
        const ft_ctm_var *var = &c->vars[v];
        for (uint32_t i = 0; i < na; i++) {
            uint32_t rd = a[i];
            if (!ft_ctm_reads(c, rd))
                continue;
            uint32_t br = r->block_of[rd];
            unsigned nalt = 0;
            for (uint32_t j = 0; j < na; j++) {
                uint32_t w = a[j];
                if (w == rd || !ft_ctm_writes(c, w) ||
                    ft_ctm_written(c, w) != c->value[rd])
                    continue;
                uint32_t bw = r->block_of[w];
                int w_rd = po_lt(c, w, bw, rd, br);
                if (w_rd == 0)
                    continue; /* after the read in its own thread */
                unsigned nt = 0;
                if (w_rd < 0)
                    tmp[nt++] = ft_smt_lt(e, bw, br);
                tmp[nt++] = certain(e, w, tmp2);
                int dead = 0;
                for (uint32_t k = 0; k < na && !dead; k++) {
                    uint32_t w2 = a[k];
                    if (w2 == w || w2 == rd || !ft_ctm_writes(c, w2))
                        continue;
                    uint32_t b2 = r->block_of[w2];
                    int w_w2 = po_lt(c, w, bw, w2, b2);
                    int w2_rd = po_lt(c, w2, b2, rd, br);
                    if (w_w2 == 0 || w2_rd == 0)
                        continue; /* never in between */
                    if (w_w2 == 1 && w2_rd == 1) {
                        dead = 1; /* always overwritten */
                        continue;
                    }
                    Z3_ast btw[2];
                    unsigned nb2 = 0;
                    if (w_w2 < 0)
                        btw[nb2++] = ft_smt_lt(e, bw, b2);
                    if (w2_rd < 0)
                        btw[nb2++] = ft_smt_lt(e, b2, br);
                    tmp[nt++] = Z3_mk_not(
                        z, nb2 == 1 ? btw[0] : Z3_mk_and(z, nb2, btw));
                }
                if (!dead)
                    alt[nalt++] = ft_smt_and(e, tmp, nt);
            }
            if (var->has_init && var->init == c->value[rd]) {
                unsigned nt = 0;
                int dead = 0;
                for (uint32_t k = 0; k < na && !dead; k++) {
                    uint32_t w2 = a[k];
                    if (w2 == rd || !ft_ctm_writes(c, w2))
                        continue;
                    int w2_rd = po_lt(c, w2, r->block_of[w2], rd, br);
                    if (w2_rd == 1)
                        dead = 1; /* its own thread wrote it before */
                    else if (w2_rd < 0)
                        tmp[nt++] = Z3_mk_not(
                            z, ft_smt_lt(e, r->block_of[w2], br));
                }
                if (!dead)
                    alt[nalt++] = ft_smt_and(e, tmp, nt);
            }
            ft_smt_assert(e, Z3_mk_eq(z, e->match[br], ft_smt_or(e, alt, nalt)));
            /* constrained unless a violating access or its thread's
             * last; under the straight-line bound (e->strict) a violating
             * access's thread goes on after another value only as far as
             * the code runs whatever it returned */
            uint32_t t = c->tid[rd], end = r->bfirst[t] + r->bcount[t];
            if (!e->in_region[br] && br + 1 < end)
                ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, br + 1),
                                               e->match[br]));
            uint32_t after = e->in_region[br] ? first_dependent(e, rd, br)
                                              : end;
            if (after < end) {
                e->strict_read[nstrict] = br;
                e->strict_after[nstrict++] = after;
            }
        }
    }
    /* past a region only with all its reads matched */
    for (uint32_t g = 0; g < e->nreg; g++) {
        const ft_smt_region *reg = &e->reg[g];
        uint32_t after = reg->last_block + 1;
        if (after >= r->bfirst[reg->thread] + r->bcount[reg->thread])
            continue;
        unsigned n = 0;
        for (uint32_t b = reg->first_block; b <= reg->last_block; b++)
            if (e->match[b])
                tmp[n++] = e->match[b];
        if (n)
            ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, after),
                                           ft_smt_and(e, tmp, n)));
    }
    /* tails: the locals after a thread's last shared transition run when
     * a join waits for the thread, which then goes past that read (and
     * past a region ending there) */
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (c->op[x] != FT_OP_JOIN || c->value[x] >= c->nthreads)
            continue;
        uint32_t ch = (uint32_t)c->value[x];
        if (r->bcount[ch] == 0)
            continue;
        uint32_t lb = r->bfirst[ch] + r->bcount[ch] - 1, key = r->bkey[lb];
        if (key == FT_CTM_NONE || r->bend[lb] == c->pos[key])
            continue;
        unsigned n = 0;
        if (e->match[lb])
            tmp[n++] = e->match[lb];
        for (uint32_t g = 0; g < e->nreg; g++)
            if (e->reg[g].thread == ch && e->reg[g].last_block == lb)
                for (uint32_t b = e->reg[g].first_block; b < lb; b++)
                    if (e->match[b])
                        tmp[n++] = e->match[b];
        if (n)
            ft_smt_assert(e, Z3_mk_implies(z, ft_smt_exec(e, r->block_of[x]),
                                           ft_smt_and(e, tmp, n)));
    }
    /* the bound, one implication per pair (tmp holds ntrans + 8) */
    for (uint32_t k = 0; k < nstrict; k++)
        tmp[k] = Z3_mk_implies(z, ft_smt_exec(e, e->strict_after[k]),
                               e->match[e->strict_read[k]]);
    e->strict = nstrict ? ft_smt_and(e, tmp, nstrict) : NULL;
    e->nstrict = nstrict;
    rc = 0;
out:
    free(cnt);
    free(acc);
    free(fill);
    free(alt);
    free(tmp);
    free(tmp2);
    return rc;
}

int ft_smt_prefix_obeys(ft_smt *e, Z3_model m, const uint32_t *order,
                        uint32_t n)
{
    if (!e->nstrict)
        return 1;
    uint8_t *in = calloc(e->nb + 1, 1);
    if (!in)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        in[order[i]] = 1;
    int ok = 1;
    for (uint32_t k = 0; k < e->nstrict && ok; k++) {
        Z3_ast v;
        if (in[e->strict_after[k]] && in[e->strict_read[k]] &&
            Z3_model_eval(e->z, m, e->match[e->strict_read[k]], true, &v))
            ok = Z3_get_bool_value(e->z, v) == Z3_L_TRUE;
    }
    free(in);
    return ok;
}

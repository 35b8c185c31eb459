/* SPDX-License-Identifier: MIT */
/* viol.c - the violation side of the formula: the conflict edges between
 * blocks of different threads, NAV (paper eqn. 1) over the i-transaction
 * boundaries inside the regions, and the direct encoding of a violation
 * by reachability.  R_g(b) ("b is reached from region g") is defined by
 *   R_g(b) <=> exec(b) and (b in g or R_g(po-pred b) or
 *              some conflicting y with R_g(y) and p(y) < p(b))
 * which refers only to strictly earlier positions, so the equivalences
 * have exactly one solution: the true reachability in the schedule. */
#include "smt/smt.h"

#include <stdlib.h>
#include <string.h>

typedef struct edge {
    uint32_t a, b;
} edge;

static int cmp_edge(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* With FT_SMT_DATA_DEPS only memory variables give conflict edges. */
static int data_slot(const ft_smt *e, uint32_t v)
{
    return !(e->flags & FT_SMT_DATA_DEPS) ||
           e->c->vars[v].kind == FT_VAR_MEMORY;
}

int ft_smt_build_deps(ft_smt *e)
{
    const ft_ctm *c = e->c;
    const ft_reduced *r = e->r;
    uint32_t nb = e->nb, nv = c->nvars;
    /* keys bucketed by object (obj and obj2), fork/join by child */
    uint32_t nk = 0;
    uint32_t *start = calloc(nv + c->nthreads + 2, sizeof *start);
    uint32_t *fill = calloc(nv + c->nthreads + 2, sizeof *fill);
    uint32_t *bucket = malloc(sizeof *bucket * (2 * (size_t)nb + 1));
    edge *ed = NULL;
    size_t ned = 0, cap = 0;
    int rc = -1;
    if (!start || !fill || !bucket)
        goto out;
#define EACH_SLOT(x, body)                                                   \
    do {                                                                     \
        uint32_t slots_[2] = {UINT32_MAX, UINT32_MAX};                       \
        if (c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) {              \
            if (c->value[x] < c->nthreads)                                   \
                slots_[0] = nv + (uint32_t)c->value[x];                      \
        } else {                                                             \
            if (c->obj[x] < nv && data_slot(e, c->obj[x]))                   \
                slots_[0] = c->obj[x];                                       \
            if (c->obj2[x] < nv && data_slot(e, c->obj2[x]))                 \
                slots_[1] = c->obj2[x];                                      \
        }                                                                    \
        for (int s_ = 0; s_ < 2; s_++)                                       \
            if (slots_[s_] != UINT32_MAX) {                                  \
                uint32_t slot = slots_[s_];                                  \
                body;                                                        \
            }                                                                \
    } while (0)
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t x = r->bkey[b];
        if (x == FT_CTM_NONE)
            continue;
        EACH_SLOT(x, start[slot + 1]++);
        nk++;
    }
    for (uint32_t s = 0; s < nv + c->nthreads; s++)
        start[s + 1] += start[s];
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t x = r->bkey[b];
        if (x == FT_CTM_NONE)
            continue;
        EACH_SLOT(x, bucket[start[slot] + fill[slot]++] = b);
    }
    /* candidates: same bucket; a fork/join with every key of its child */
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t x = r->bkey[b];
        if (x == FT_CTM_NONE)
            continue;
        uint32_t lists[3][2];
        int nl = 0;
        EACH_SLOT(x, (lists[nl][0] = start[slot], lists[nl][1] = start[slot + 1], nl++));
        (void)lists;
        for (int l = 0; l < nl; l++)
            for (uint32_t q = lists[l][0]; q < lists[l][1]; q++) {
                uint32_t y = bucket[q];
                if (y <= b)
                    continue;
                if (!ft_smt_conflict_blocks(e, b, y))
                    continue;
                if (ned + 2 > cap) {
                    cap = cap ? 2 * cap : 64;
                    edge *n2 = realloc(ed, cap * sizeof *ed);
                    if (!n2)
                        goto out;
                    ed = n2;
                }
                ed[ned++] = (edge){b, y};
                ed[ned++] = (edge){y, b};
            }
        if (c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) {
            uint64_t ch = c->value[x];
            if (ch < c->nthreads)
                for (uint32_t k = 0; k < r->bcount[ch]; k++) {
                    uint32_t y = r->bfirst[ch] + k;
                    if (r->bkey[y] == FT_CTM_NONE)
                        continue;
                    if (ned + 2 > cap) {
                        cap = cap ? 2 * cap : 64;
                        edge *n2 = realloc(ed, cap * sizeof *ed);
                        if (!n2)
                            goto out;
                        ed = n2;
                    }
                    ed[ned++] = (edge){b, y};
                    ed[ned++] = (edge){y, b};
                }
        }
    }
#undef EACH_SLOT
    if (ned)
        qsort(ed, ned, sizeof *ed, cmp_edge);
    e->dep_first = calloc(nb + 1, sizeof *e->dep_first);
    e->dep = malloc(sizeof *e->dep * (ned + 1));
    if (!e->dep_first || !e->dep)
        goto out;
    size_t m = 0;
    for (size_t i = 0; i < ned; i++) {
        if (i && ed[i].a == ed[i - 1].a && ed[i].b == ed[i - 1].b)
            continue;
        e->dep[m++] = ed[i].b;
        e->dep_first[ed[i].a + 1]++;
    }
    for (uint32_t b = 0; b < nb; b++)
        e->dep_first[b + 1] += e->dep_first[b];
    e->ndep = m;
    e->st.nconflicts = m / 2;
    rc = 0;
out:
    free(start);
    free(fill);
    free(bucket);
    free(ed);
    return rc;
}

int ft_smt_conflict_blocks(const ft_smt *e, uint32_t a, uint32_t b)
{
    uint32_t x = e->r->bkey[a], y = e->r->bkey[b];
    if (x == FT_CTM_NONE || y == FT_CTM_NONE)
        return 0;
    return ft_ctm_conflict(e->c, x, y);
}

uint32_t ft_smt_boundaries(const ft_smt *e, uint32_t **out)
{
    const ft_reduced *r = e->r;
    uint32_t n = 0;
    *out = malloc(sizeof **out * (e->nb + 1));
    if (!*out)
        return 0;
    /* MAT's i-transactions are computed for the model without glue (as
     * its context switches are, ft_smt_init_at): a boundary may be a
     * glued block, which no schedule interrupts, while the switch it
     * stands for is needed later in the i-transaction.  So with glue
     * every block of a region that can be interrupted is a boundary
     * (test_predict_random's seed 8013: FindAV said "holds" for a CA
     * violation whose only boundary was a read glued to the next). */
    if (r->ctm->nglue) {
        for (uint32_t g = 0; g < e->nreg; g++)
            for (uint32_t k = e->reg[g].first_block; k < e->reg[g].last_block;
                 k++)
                if (!ft_block_glued(r, k))
                    (*out)[n++] = k;
        return n;
    }
    for (uint32_t g = 0; g < e->nreg; g++) {
        uint32_t t = e->reg[g].thread;
        for (uint32_t i = r->it_first[t]; i < r->it_first[t + 1]; i++) {
            uint32_t k = r->bfirst[t] + r->itrans[i].last_block;
            if (k >= e->reg[g].first_block && k < e->reg[g].last_block)
                (*out)[n++] = k;
        }
    }
    return n;
}

Z3_ast ft_smt_nav(ft_smt *e)
{
    uint32_t *bd;
    uint32_t n = ft_smt_boundaries(e, &bd);
    if (!bd)
        return NULL;
    Z3_ast *alt = malloc(sizeof *alt * (n + 1));
    if (!alt) {
        free(bd);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        Z3_ast a[2] = {ft_smt_exec(e, bd[i] + 1),
                       Z3_mk_not(e->z, ft_smt_next(e, bd[i], bd[i] + 1))};
        alt[i] = Z3_mk_and(e->z, 2, a);
    }
    Z3_ast res = ft_smt_or(e, alt, n);
    free(alt);
    free(bd);
    return res;
}

/* Declares and defines R_g for every block; returns the array. */
static Z3_ast *reach(ft_smt *e, uint32_t g)
{
    const ft_reduced *r = e->r;
    Z3_ast *R = calloc(e->nb + 1, sizeof *R);
    Z3_ast *alt = malloc(sizeof *alt * (e->ndep + 4));
    if (!R || !alt) {
        free(R);
        free(alt);
        return NULL;
    }
    for (uint32_t b = 0; b < e->nb; b++)
        R[b] = ft_smt_bool(e, g ? "rb" : "ra", b);
    for (uint32_t t = 0; t < e->c->nthreads; t++)
        for (uint32_t k = 0; k < r->bcount[t]; k++) {
            uint32_t b = r->bfirst[t] + k;
            unsigned n = 0;
            if (e->in_region[b] >> g & 1)
                alt[n++] = Z3_mk_true(e->z);
            if (k > 0)
                alt[n++] = R[b - 1];
            for (uint32_t q = e->dep_first[b]; q < e->dep_first[b + 1]; q++) {
                uint32_t y = e->dep[q];
                Z3_ast a[2] = {R[y], ft_smt_lt(e, y, b)};
                alt[n++] = Z3_mk_and(e->z, 2, a);
            }
            Z3_ast def[2] = {ft_smt_exec(e, b), ft_smt_or(e, alt, n)};
            ft_smt_assert(e, Z3_mk_eq(e->z, R[b], Z3_mk_and(e->z, 2, def)));
        }
    free(alt);
    return R;
}

Z3_ast ft_smt_violation(ft_smt *e)
{
    Z3_ast *R0 = reach(e, 0), *R1 = NULL;
    Z3_ast res = NULL;
    Z3_ast *alt = malloc(sizeof *alt * (e->ndep + e->nb + 4));
    if (!R0 || !alt)
        goto out;
    if (e->nreg == 1) {
        unsigned n = 0;
        const ft_smt_region *g = &e->reg[0];
        for (uint32_t b = g->first_block; b <= g->last_block; b++)
            for (uint32_t q = e->dep_first[b]; q < e->dep_first[b + 1]; q++) {
                uint32_t y = e->dep[q];
                Z3_ast a[3] = {R0[y], ft_smt_lt(e, y, b), ft_smt_exec(e, b)};
                alt[n++] = Z3_mk_and(e->z, 3, a);
            }
        res = ft_smt_or(e, alt, n);
    } else {
        R1 = reach(e, 1);
        if (!R1)
            goto out;
        Z3_ast both[2];
        for (uint32_t g = 0; g < 2; g++) {
            unsigned n = 0;
            const ft_smt_region *o = &e->reg[1 - g];
            for (uint32_t b = o->first_block; b <= o->last_block; b++)
                alt[n++] = (g == 0 ? R0 : R1)[b];
            both[g] = ft_smt_or(e, alt, n);
        }
        res = Z3_mk_and(e->z, 2, both);
    }
out:
    free(R0);
    free(R1);
    free(alt);
    return res;
}

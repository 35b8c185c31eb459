/* SPDX-License-Identifier: MIT */
/* order.c - the skeleton of the schedule formula: one integer position per
 * block, executed blocks first (a permutation of 0 .. nblocks-1 whose
 * prefix 0 .. N-1 is the executed schedule), program order, the CXT
 * successor constraint, glued steps (reduce.h ft_block_glued), fork and
 * join.  Everything else (sync.c, data.c,
 * viol.c) is stated over these positions. */
#include "smt/smt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Z3_ast ft_smt_int(ft_smt *e, const char *prefix, uint32_t i)
{
    char name[48];
    snprintf(name, sizeof name, "%s%u", prefix, i);
    e->st.nint++;
    return Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, name), e->int_sort);
}

Z3_ast ft_smt_bool(ft_smt *e, const char *prefix, uint32_t i)
{
    char name[48];
    snprintf(name, sizeof name, "%s%u", prefix, i);
    e->st.nbool++;
    return Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, name), e->bool_sort);
}

Z3_ast ft_smt_exec(ft_smt *e, uint32_t b)
{
    return Z3_mk_lt(e->z, e->p[b], e->n);
}

Z3_ast ft_smt_lt(ft_smt *e, uint32_t a, uint32_t b)
{
    return Z3_mk_lt(e->z, e->p[a], e->p[b]);
}

Z3_ast ft_smt_next(ft_smt *e, uint32_t a, uint32_t b)
{
    Z3_ast one = Z3_mk_int(e->z, 1, e->int_sort);
    Z3_ast args[2] = {e->p[a], one};
    return Z3_mk_eq(e->z, e->p[b], Z3_mk_add(e->z, 2, args));
}

Z3_ast ft_smt_and(ft_smt *e, Z3_ast *v, unsigned n)
{
    if (n == 0)
        return Z3_mk_true(e->z);
    return n == 1 ? v[0] : Z3_mk_and(e->z, n, v);
}

Z3_ast ft_smt_or(ft_smt *e, Z3_ast *v, unsigned n)
{
    if (n == 0)
        return Z3_mk_false(e->z);
    return n == 1 ? v[0] : Z3_mk_or(e->z, n, v);
}

void ft_smt_assert(ft_smt *e, Z3_ast a)
{
    e->st.nassert++;
    Z3_solver_assert(e->z, e->s, a);
}

/* Block of transition x. */
static uint32_t blk(const ft_smt *e, uint32_t x)
{
    return e->r->block_of[x];
}

int ft_smt_encode_order(ft_smt *e)
{
    const ft_reduced *r = e->r;
    const ft_ctm *c = e->c;
    Z3_context z = e->z;
    uint32_t nb = e->nb;
    Z3_ast zero = Z3_mk_int(z, 0, e->int_sort);
    Z3_ast top = Z3_mk_int(z, (int)nb, e->int_sort);
    for (uint32_t b = 0; b < nb; b++) {
        e->p[b] = ft_smt_int(e, "p", b);
        ft_smt_assert(e, Z3_mk_ge(z, e->p[b], zero));
        ft_smt_assert(e, Z3_mk_lt(z, e->p[b], top));
    }
    e->n = Z3_mk_const(z, Z3_mk_string_symbol(z, "N"), e->int_sort);
    ft_smt_assert(e, Z3_mk_ge(z, e->n, zero));
    ft_smt_assert(e, Z3_mk_le(z, e->n, top));
    if (nb > 1)
        ft_smt_assert(e, Z3_mk_distinct(z, nb, e->p));

    /* The successor of an executed block that is not its thread's last:
     * its program-order next, or the first block of a CXT switch. */
    Z3_ast *alt = malloc(sizeof *alt * (r->ncxt + 2));
    if (!alt)
        return -1;
    uint32_t ci = 0;
    Z3_ast one = Z3_mk_int(z, 1, e->int_sort);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        for (uint32_t k = 0; k < r->bcount[t]; k++) {
            uint32_t b = r->bfirst[t] + k;
            if (k + 1 == r->bcount[t])
                break;
            ft_smt_assert(e, ft_smt_lt(e, b, b + 1));
            /* A glued block's successor is its thread's next block (the
             * runtime cannot switch there, nor can the replay); a model
             * with glue has no CXT (ft_smt_init_at).  Without CXT the
             * other blocks' successors are free: no terms for them. */
            int glued = ft_block_glued(r, b);
            if ((e->flags & FT_SMT_NO_CXT) && !glued)
                continue;
            unsigned na = 0;
            alt[na++] = ft_smt_next(e, b, b + 1);
            while (!glued && ci < r->ncxt &&
                   (r->cxt[ci].from_thread < t ||
                    (r->cxt[ci].from_thread == t && r->cxt[ci].from_block < k)))
                ci++;
            for (uint32_t q = ci; !glued && q < r->ncxt &&
                                  r->cxt[q].from_thread == t &&
                                  r->cxt[q].from_block == k;
                 q++) {
                const ft_cxt *x = &r->cxt[q];
                if (x->to_thread >= c->nthreads ||
                    x->to_block >= r->bcount[x->to_thread])
                    continue;
                alt[na++] = ft_smt_next(e, b, r->bfirst[x->to_thread] +
                                                  x->to_block);
                if (na == r->ncxt + 2)
                    break;
            }
            Z3_ast args[2] = {e->p[b], one};
            Z3_ast has_succ =
                Z3_mk_lt(z, Z3_mk_add(z, 2, args), e->n);
            ft_smt_assert(e, Z3_mk_implies(z, has_succ,
                                           ft_smt_or(e, alt, na)));
        }
    }
    free(alt);

    /* Fork: the child starts after it.  Join: the child has finished. */
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (r->bcount[t] == 0)
            continue;
        uint32_t f = c->fork_trans[t];
        if (f != FT_CTM_NONE)
            ft_smt_assert(e, ft_smt_lt(e, blk(e, f), r->bfirst[t]));
    }
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (c->op[x] != FT_OP_JOIN)
            continue;
        uint64_t ch = c->value[x];
        if (ch >= c->nthreads || r->bcount[ch] == 0 || ch == c->tid[x])
            continue;
        uint32_t last = r->bfirst[ch] + r->bcount[ch] - 1;
        ft_smt_assert(e, ft_smt_lt(e, last, blk(e, x)));
    }
    return 0;
}

/* Below this many blocks the default solver is faster than QF_IDL's. */
#define FT_SMT_IDL_MIN_BLOCKS 64

/* Z3's memory, all contexts of the process together (Z3's global
 * memory_high_watermark, in bytes in Debian's Z3 4.8): past it the
 * solvers give up (unknown, "memout") instead of growing without bound.
 * An order property of a 1,677-event quicksort took 3.4 GB and 56 s
 * undecided; with 128 MB, 290 MB at peak (Z3 checks its watermark only
 * now and then) and the same verdicts in 7 s, while no property of
 * bench/predict's shapes gave up for it (256 MB overshot to 1.2 GB).
 * Not memory_max_size: past that Z3 throws where nothing catches it and
 * the process aborts.  FORETELL_Z3_MEMORY (MB) overrides it; 0 lifts
 * it. */
#define FT_SMT_MEMORY_MB 128u

static unsigned long memory_mb = FT_SMT_MEMORY_MB;

unsigned long ft_smt_memory_mb(void) { return memory_mb; }

static void set_memory_bound(void)
{
    const char *env = getenv("FORETELL_Z3_MEMORY");
    unsigned long mb = FT_SMT_MEMORY_MB;
    if (env && *env && strspn(env, "0123456789") == strlen(env))
        mb = strtoul(env, NULL, 10);
    if (mb > 4095)
        mb = 4095; /* an unsigned int of bytes */
    memory_mb = mb;
    char v[32];
    snprintf(v, sizeof v, "%lu", mb << 20);
    Z3_global_param_set("memory_high_watermark", v);
    /* Z3's own warnings ("(smt.diff_logic: non-diff logic expression
     * ...)") went to stderr between our progress lines: they are about
     * its choice of theory solver, not the user's program */
    Z3_global_param_set("warning", "false");
}

void ft_smt_unknown_reason(const ft_smt *e, char *buf, size_t len)
{
    if (e->late) {
        snprintf(buf, len, "solver: timeout (as it found a model)");
        return;
    }
    const char *why = Z3_solver_get_reason_unknown(e->z, e->s);
    if (e->memout)
        snprintf(buf, len,
                 "solver: memout (the process grew by over %lu MB "
                 "in one check, %u times Z3's memory bound, %lu MB, which it "
                 "did not keep: FORETELL_Z3_MEMORY=MB raises both)",
                 FT_SMT_RSS_FACTOR * memory_mb, FT_SMT_RSS_FACTOR, memory_mb);
    else if (why && strstr(why, "memout") && memory_mb)
        snprintf(buf, len, "solver: %s (Z3's memory bound, %lu MB: "
                 "FORETELL_Z3_MEMORY=MB raises it)", why, memory_mb);
    else
        snprintf(buf, len, "solver: %s", why ? why : "unknown");
}

int ft_smt_init(ft_smt *e, const ft_reduced *r, const ft_smt_region *reg,
                uint32_t nreg, unsigned timeout_ms, unsigned flags)
{
    return ft_smt_init_at(e, r, NULL, reg, nreg, timeout_ms, flags);
}

int ft_smt_init_at(ft_smt *e, const ft_reduced *r, const ft_smt_start *start,
                   const ft_smt_region *reg, uint32_t nreg,
                   unsigned timeout_ms, unsigned flags)
{
    memset(e, 0, sizeof *e);
    /* MAT's context switches are computed for the model without glue:
     * its representatives may switch where glue forbids it, so a model
     * with glue gets none (docs/prediction.md "glued steps"). */
    if (r->ctm->nglue)
        flags |= FT_SMT_NO_CXT;
    e->flags = flags;
    e->start = start;
    e->r = r;
    e->c = r->ctm;
    e->nb = r->nblocks;
    e->nreg = nreg;
    if (nreg > 2) { /* 0: the property kinds of predict/kind.h */
        snprintf(e->err, sizeof e->err, "a property has at most 2 regions");
        return -1;
    }
    e->in_region = calloc(e->nb + 1, 1);
    e->p = calloc(e->nb + 1, sizeof *e->p);
    e->match = calloc(e->nb + 1, sizeof *e->match);
    if (!e->in_region || !e->p || !e->match) {
        snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < nreg; i++) {
        const ft_smt_region *g = &reg[i];
        if (g->thread >= e->c->nthreads || g->first_block > g->last_block ||
            g->first_block < r->bfirst[g->thread] ||
            g->last_block >= r->bfirst[g->thread] + r->bcount[g->thread]) {
            snprintf(e->err, sizeof e->err,
                     "region %u: blocks %u..%u are not in thread %u", i,
                     g->first_block, g->last_block, g->thread);
            return -1;
        }
        e->reg[i] = *g;
        for (uint32_t b = g->first_block; b <= g->last_block; b++)
            e->in_region[b] |= (uint8_t)(1u << i);
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_memory_bound);
    e->z = ft_smt_context_take();
    if (!e->z) {
        snprintf(e->err, sizeof e->err, "z3: cannot make a context");
        return -1;
    }
    e->int_sort = Z3_mk_int_sort(e->z);
    e->bool_sort = Z3_mk_bool_sort(e->z);
    /* Every constraint is a difference of two positions against a
     * constant, except the counts of semaphores and barriers (sums of
     * indicators, smt/sync.c; a condition variable's signal picks its
     * waiter with booleans): without those, Z3's difference-logic theory
     * decides large formulas several times faster than the general
     * arithmetic one; on small ones its setup costs more than it saves
     * (bench/predict, tests/predict).  It runs in the plain SMT kernel
     * (arith.solver 1), not behind the QF_IDL tactic: that tactic's
     * equation solving rewrote our bounds into terms its own theory then
     * refused (Z3 4.8.12 printed "(smt.diff_logic: non-diff logic
     * expression (>= p209 337))" and gave up after seconds, "smt tactic
     * failed ... memout": every order candidate of bench/predict's
     * wsdeque that reached the solver).  Where the theory still gives up
     * ("incomplete") ft_smt_check asks the tactic, then the general
     * solver. */
    int counting = 0;
    for (uint32_t v = 0; v < e->c->nvars; v++)
        counting |= e->c->vars[v].shared &&
                    (e->c->vars[v].kind == FT_VAR_SEM ||
                     e->c->vars[v].kind == FT_VAR_BARRIER);
    e->difflogic = !counting && e->nb >= FT_SMT_IDL_MIN_BLOCKS
                       ? FT_SMT_DL_CORE
                       : 0;
    e->timeout_ms = timeout_ms;
    e->s = Z3_mk_simple_solver(e->z);
    Z3_solver_inc_ref(e->z, e->s);
    ft_smt_set_params(e, timeout_ms);
    e->st.nblocks = e->nb;
    if (ft_smt_encode_order(e) || ft_smt_encode_sync(e) ||
        ft_smt_build_deps(e) || ft_smt_encode_data(e)) {
        if (!e->err[0])
            snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    if (Z3_get_error_code(e->z) != Z3_OK) {
        snprintf(e->err, sizeof e->err, "z3: %s",
                 Z3_get_error_msg(e->z, Z3_get_error_code(e->z)));
        return -1;
    }
    return 0;
}

void ft_smt_free(ft_smt *e)
{
    if (e->z) {
        if (e->s)
            Z3_solver_dec_ref(e->z, e->s);
        ft_smt_context_give(e->z, !e->tainted && !e->err[0]);
    }
    free(e->in_region);
    free(e->p);
    free(e->match);
    free(e->strict_read);
    free(e->strict_after);
    free(e->dep_first);
    free(e->dep);
    memset(e, 0, sizeof *e);
}

static int cmp_pos(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

long ft_smt_schedule(ft_smt *e, Z3_model m, uint32_t *order)
{
    int64_t *pairs = malloc(sizeof *pairs * 2 * (e->nb + 1));
    if (!pairs)
        return -1;
    int64_t n = 0;
    Z3_ast v;
    if (!Z3_model_eval(e->z, m, e->n, 1, &v) ||
        !Z3_get_numeral_int64(e->z, v, &n)) {
        free(pairs);
        return -1;
    }
    long cnt = 0;
    for (uint32_t b = 0; b < e->nb; b++) {
        int64_t pb;
        if (!Z3_model_eval(e->z, m, e->p[b], 1, &v) ||
            !Z3_get_numeral_int64(e->z, v, &pb)) {
            free(pairs);
            return -1;
        }
        if (pb < n) {
            pairs[2 * cnt] = pb;
            pairs[2 * cnt + 1] = b;
            cnt++;
        }
    }
    if (cnt)
        qsort(pairs, (size_t)cnt, 2 * sizeof *pairs, cmp_pos);
    for (long i = 0; i < cnt; i++)
        order[i] = (uint32_t)pairs[2 * i + 1];
    free(pairs);
    return cnt;
}

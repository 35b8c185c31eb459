/* SPDX-License-Identifier: MIT */
/* mat.c - MAT-based partial-order reduction (BEST section VII): for every
 * pair of threads, the mutually atomic transaction pairs reachable from
 * the initial control states; their end-to-begin context switches form
 * CXT(CTM); the i-transactions cut each thread at those switches.  The
 * algorithm and the soundness argument are in docs/reduction.md. */
#include "reduce/reduce.h"

#include <stdlib.h>
#include <string.h>

uint64_t ft_mat_max_states = (uint64_t)1 << 20;

/* Block index of thread b: (object, block) for every keyed block, sorted,
 * so the first block of b at or after fb touching an object is a binary
 * search away.  Fork/join of thread u use the pseudo-object nvars + u. */
struct occ {
    uint32_t obj, block;
};

struct thread_index {
    struct occ *occ;
    uint32_t n;
};

/* Threads touching an object: how many distinct (3 = three or more) and
 * which.  For n > 2 threads, two transitions of threads a and b that both
 * conflict with transitions of other threads count as dependent for the
 * pair (a, b): a third thread can order them although they commute with
 * each other (docs/reduction.md, "more than two threads"). */
struct acc {
    uint32_t n, id[3];
};

struct third {
    struct acc *any, *wr; /* by variable */
    /* thread t's start (end) is ordered by fork (join) after (before)
     * activity of its forking (joining) thread that other threads can
     * conflict with, directly or through that thread's own fork/join */
    uint8_t *start_tp, *end_tp;
};

static void acc_add(struct acc *x, uint32_t t)
{
    if (x->n >= 3)
        return;
    for (uint32_t i = 0; i < x->n; i++)
        if (x->id[i] == t)
            return;
    x->id[x->n++] = t;
}

static int acc_other(const struct acc *x, uint32_t a, uint32_t b)
{
    if (x->n >= 3)
        return 1;
    for (uint32_t i = 0; i < x->n; i++)
        if (x->id[i] != a && x->id[i] != b)
            return 1;
    return 0;
}

static int build_third(const ft_reduced *r, struct third *th)
{
    const ft_ctm *c = r->ctm;
    th->any = calloc(c->nvars + 1, sizeof *th->any);
    th->wr = calloc(c->nvars + 1, sizeof *th->wr);
    if (!th->any || !th->wr)
        return -1;
    for (uint32_t b = 0; b < r->nblocks; b++) {
        uint32_t x = r->bkey[b];
        if (x == FT_CTM_NONE || c->obj[x] == FT_CTM_NONE)
            continue;
        acc_add(&th->any[c->obj[x]], c->tid[x]);
        if (ft_ctm_writes(c, x))
            acc_add(&th->wr[c->obj[x]], c->tid[x]);
        if (c->obj2[x] != FT_CTM_NONE)
            acc_add(&th->any[c->obj2[x]], c->tid[x]);
    }
    uint32_t nt = c->nthreads;
    th->start_tp = calloc(nt + 1, 1);
    th->end_tp = calloc(nt + 1, 1);
    if (!th->start_tp || !th->end_tp)
        return -1;
    /* forks come before their children in trace order; joins after the
     * child's end, so one pass forward (starts) and one backward (ends) */
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (c->op[x] != FT_OP_FORK)
            continue;
        uint32_t p = c->tid[x], ch = (uint32_t)c->value[x];
        int tp = th->start_tp[p];
        for (uint32_t q = 0; q < c->pos[x] && !tp; q++) {
            uint32_t y = ft_ctm_at(c, p, q);
            tp = ft_ctm_is_shared(c, y) && c->obj[y] != FT_CTM_NONE;
        }
        th->start_tp[ch] = (uint8_t)tp;
    }
    for (uint32_t x = c->ntrans; x-- > 0;) {
        if (c->op[x] != FT_OP_JOIN)
            continue;
        uint32_t p = c->tid[x], ch = (uint32_t)c->value[x];
        int tp = th->end_tp[p];
        for (uint32_t q = c->pos[x] + 1; q < c->len[p] && !tp; q++) {
            uint32_t y = ft_ctm_at(c, p, q);
            tp = ft_ctm_is_shared(c, y) && c->obj[y] != FT_CTM_NONE;
        }
        th->end_tp[ch] |= (uint8_t)tp;
    }
    return 0;
}

/* Whether key transition x conflicts with some transition of a thread
 * other than a and b, or is ordered by fork/join after (before) such a
 * thread's shared activity. */
static int third_party(const ft_reduced *r, const struct third *th,
                       uint32_t x, uint32_t a, uint32_t b)
{
    const ft_ctm *c = r->ctm;
    if (!th || x == FT_CTM_NONE)
        return 0;
    uint32_t t = c->tid[x];
    uint32_t par = c->parent[t];
    if (th->start_tp[t] && par != FT_CTM_NONE && par != a && par != b)
        return 1;
    uint32_t jt = c->join_trans[t];
    if (th->end_tp[t] && jt != FT_CTM_NONE && c->tid[jt] != a &&
        c->tid[jt] != b)
        return 1;
    if (c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN)
        return c->value[x] != a && c->value[x] != b;
    uint32_t v = c->obj[x];
    if (c->vars[v].kind == FT_VAR_MEMORY)
        return acc_other(ft_ctm_writes(c, x) ? &th->any[v] : &th->wr[v], a, b);
    return acc_other(&th->any[v], a, b) ||
           (c->obj2[x] != FT_CTM_NONE && acc_other(&th->any[c->obj2[x]], a, b));
}

static int occ_cmp(const void *a, const void *b)
{
    const struct occ *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return x->block < y->block ? -1 : x->block > y->block;
}

static int build_index(const ft_reduced *r, uint32_t t, struct thread_index *ix)
{
    const ft_ctm *c = r->ctm;
    uint32_t nb = r->bcount[t];
    ix->occ = malloc(sizeof *ix->occ * (2 * (size_t)nb + 1));
    ix->n = 0;
    if (!ix->occ)
        return -1;
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t x = r->bkey[r->bfirst[t] + k];
        if (x == FT_CTM_NONE)
            continue;
        if (c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) {
            ix->occ[ix->n++] = (struct occ){c->nvars + (uint32_t)c->value[x], k};
            continue;
        }
        ix->occ[ix->n++] = (struct occ){c->obj[x], k};
        if (c->obj2[x] != FT_CTM_NONE)
            ix->occ[ix->n++] = (struct occ){c->obj2[x], k};
    }
    if (ix->n) /* qsort(NULL, 0) is undefined */
        qsort(ix->occ, ix->n, sizeof *ix->occ, occ_cmp);
    return 0;
}

/* First block l >= fb of thread b among those touching obj that is
 * dependent with a's block ka (and co-reachable with it, if asked). */
static uint32_t first_dep(const ft_reduced *r, const struct thread_index *ix,
                          uint32_t obj, uint32_t a, uint32_t ka, uint32_t b,
                          uint32_t fb, uint32_t best, unsigned flags)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct occ *o = &ix->occ[mid];
        if (o->obj < obj || (o->obj == obj && o->block < fb))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < ix->n && ix->occ[i].obj == obj; i++) {
        uint32_t l = ix->occ[i].block;
        if (l >= best)
            break;
        if (!ft_blocks_dependent(r, a, ka, b, l))
            continue;
        if ((flags & FT_REDUCE_SKIP_UNREACHABLE) &&
            !ft_blocks_coreachable(r, a, ka, b, l))
            continue;
        return l;
    }
    return best;
}

/* First block of b at or after fb dependent with a's block ka. */
static uint32_t partner(const ft_reduced *r, const struct thread_index *ix,
                        const struct third *th, const uint32_t *tb3,
                        uint32_t ntb3, uint32_t a, uint32_t ka, uint32_t b,
                        uint32_t fb, unsigned flags)
{
    const ft_ctm *c = r->ctm;
    uint32_t nb = r->bcount[b], best = nb;
    uint32_t x = r->bkey[r->bfirst[a] + ka];
    if (x == FT_CTM_NONE)
        return nb;
    if (ntb3 && third_party(r, th, x, a, b)) {
        uint32_t lo = 0, hi = ntb3;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (tb3[mid] < fb)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < ntb3; lo++)
            if (!(flags & FT_REDUCE_SKIP_UNREACHABLE) ||
                ft_blocks_coreachable(r, a, ka, b, tb3[lo])) {
                best = tb3[lo];
                break;
            }
    }
    if ((c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) &&
        c->value[x] == b) {
        for (uint32_t l = fb; l < nb; l++)
            if (ft_blocks_dependent(r, a, ka, b, l) &&
                (!(flags & FT_REDUCE_SKIP_UNREACHABLE) ||
                 ft_blocks_coreachable(r, a, ka, b, l)))
                return l;
        return nb;
    }
    best = first_dep(r, ix, c->nvars + a, a, ka, b, fb, best, flags);
    if (c->op[x] != FT_OP_FORK && c->op[x] != FT_OP_JOIN) {
        best = first_dep(r, ix, c->obj[x], a, ka, b, fb, best, flags);
        if (c->obj2[x] != FT_CTM_NONE)
            best = first_dep(r, ix, c->obj2[x], a, ka, b, fb, best, flags);
    }
    return best;
}

/* Open-addressing set of visited (fa, fb) start pairs, grown past 3/4
 * full: at the state budget it holds over 10^6 pairs, and at 1/2 its
 * last doubling (old and new table at once) was 48 MB at the peak of
 * analyze on 10^6 events (issue 16); at 3/4 it stayed at 16 MB. */
struct pairset {
    uint64_t *key;
    uint32_t cap, n;
};

static int pairset_add(struct pairset *s, uint64_t k) /* 1 new, 0 seen */
{
    if (((uint64_t)s->n + 1) * 4 > (uint64_t)s->cap * 3) {
        uint32_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *nk = malloc(sizeof *nk * cap);
        if (!nk)
            return -1;
        memset(nk, 0xff, sizeof *nk * cap);
        for (uint32_t i = 0; i < s->cap; i++)
            if (s->key[i] != UINT64_MAX) {
                uint32_t h = (uint32_t)((s->key[i] * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
                while (nk[h] != UINT64_MAX)
                    h = (h + 1) & (cap - 1);
                nk[h] = s->key[i];
            }
        free(s->key);
        s->key = nk;
        s->cap = cap;
    }
    uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (s->cap - 1);
    while (s->key[h] != UINT64_MAX) {
        if (s->key[h] == k)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->key[h] = k;
    s->n++;
    return 1;
}

static int push_mat(ft_reduced *r, ft_mat m, unsigned flags)
{
    if (flags & FT_REDUCE_NO_MAT_LIST) {
        r->nmats++;
        return 0;
    }
    if (r->nmats == r->cap_mats) {
        uint32_t cap = r->cap_mats ? r->cap_mats * 2 : 256;
        ft_mat *p = realloc(r->mats, sizeof *p * cap);
        if (!p)
            return -1;
        r->mats = p;
        r->cap_mats = cap;
    }
    r->mats[r->nmats++] = m;
    return 0;
}

static int push_cxt(ft_reduced *r, uint32_t i, uint32_t k, uint32_t j,
                    uint32_t l)
{
    if (k + 1 >= r->bcount[i] || !ft_switch_feasible(r, i, k, j, l))
        return 0; /* forced (end of thread) or never feasible */
    if (r->ncxt == r->cap_cxt) {
        uint32_t cap = r->cap_cxt ? r->cap_cxt * 2 : 256;
        ft_cxt *p = realloc(r->cxt, sizeof *p * cap);
        if (!p)
            return -1;
        r->cxt = p;
        r->cap_cxt = cap;
    }
    const ft_ctm *c = r->ctm;
    r->cxt[r->ncxt++] = (ft_cxt){
        i, k, j, l, ft_ctm_at(c, i, r->bend[r->bfirst[i] + k]),
        ft_ctm_at(c, j, r->bstart[r->bfirst[j] + l])};
    return 0;
}

/* GenMAT for threads a < b.  0 done, 1 over the state budget (*states
 * counts the states of every pair), -1 out of memory. */
static int gen_mat(ft_reduced *r, uint32_t a, uint32_t b,
                   const struct thread_index *ixa,
                   const struct thread_index *ixb, const struct third *th,
                   unsigned flags, uint64_t *states)
{
    uint32_t na = r->bcount[a], nb = r->bcount[b];
    if (!na || !nb)
        return 0;
    /* b's blocks that conflict with threads other than a and b */
    uint32_t *tb3 = malloc(sizeof *tb3 * (nb + 1)), ntb3 = 0;
    if (!tb3)
        return -1;
    for (uint32_t k = 0; th && k < nb; k++)
        if (third_party(r, th, r->bkey[r->bfirst[b] + k], a, b))
            tb3[ntb3++] = k;
    struct pairset seen = {0};
    uint64_t *queue = NULL;
    size_t qn = 0, qcap = 0;
    int rc = 0;
#define PUSH(fa, fb)                                                           \
    do {                                                                       \
        int added_ = pairset_add(&seen, ((uint64_t)(fa) << 32) | (fb));        \
        if (added_ < 0) {                                                      \
            rc = -1;                                                           \
            goto out;                                                          \
        }                                                                      \
        if (added_) {                                                          \
            if (qn == qcap) {                                                  \
                qcap = qcap ? qcap * 2 : 256;                                  \
                uint64_t *q_ = realloc(queue, sizeof *q_ * qcap);              \
                if (!q_) {                                                     \
                    rc = -1;                                                   \
                    goto out;                                                  \
                }                                                              \
                queue = q_;                                                    \
            }                                                                  \
            queue[qn++] = ((uint64_t)(fa) << 32) | (fb);                       \
        }                                                                      \
    } while (0)
    PUSH(0, 0);
    while (qn) {
        if (++*states > ft_mat_max_states) {
            rc = 1;
            goto out;
        }
        uint64_t k = queue[--qn];
        uint32_t fa = (uint32_t)(k >> 32), fb = (uint32_t)k;
        if (fa >= na || fb >= nb)
            continue;
        uint32_t la = fa, lb = nb;
        for (; la < na; la++) {
            lb = partner(r, ixb, th, tb3, ntb3, a, la, b, fb, flags);
            if (lb < nb)
                break;
        }
        (void)ixa;
        if (la == na) { /* no dependent pair left: both run to the end */
            if (push_mat(r, (ft_mat){a, b, fa, na - 1, fb, nb - 1, 0}, flags))
                goto oom;
            continue;
        }
        if (push_mat(r, (ft_mat){a, b, fa, la, fb, lb, 1}, flags) ||
            push_cxt(r, a, la, b, fb) || push_cxt(r, b, lb, a, fa))
            goto oom;
        PUSH(la + 1, fb);
        PUSH(fa, lb + 1);
    }
out:
    free(seen.key);
    free(queue);
    free(tb3);
    return rc;
oom:
    rc = -1;
    goto out;
#undef PUSH
}

static int cxt_cmp(const void *pa, const void *pb)
{
    const ft_cxt *x = pa, *y = pb;
    uint32_t kx[4] = {x->from_thread, x->from_block, x->to_thread, x->to_block};
    uint32_t ky[4] = {y->from_thread, y->from_block, y->to_thread, y->to_block};
    for (int i = 0; i < 4; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

int ft_cxt_allowed(const ft_reduced *r, uint32_t i, uint32_t k, uint32_t j,
                   uint32_t l)
{
    if (k + 1 >= r->bcount[i])
        return 1;
    if (r->stats.mat_abandoned)
        return ft_switch_feasible(r, i, k, j, l);
    ft_cxt key = {i, k, j, l, 0, 0};
    return r->ncxt && bsearch(&key, r->cxt, r->ncxt, sizeof key, cxt_cmp);
}

static int derive_itrans(ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    uint8_t *cut = calloc(r->nblocks + 1, 1); /* cut after block */
    r->it_first = malloc(sizeof *r->it_first * (c->nthreads + 1));
    if (!cut || !r->it_first) {
        free(cut);
        return -1;
    }
    if (r->stats.mat_abandoned)
        memset(cut, 1, r->nblocks);
    for (uint32_t e = 0; e < r->ncxt; e++) {
        const ft_cxt *x = &r->cxt[e];
        cut[r->bfirst[x->from_thread] + x->from_block] = 1;
        if (x->to_block > 0)
            cut[r->bfirst[x->to_thread] + x->to_block - 1] = 1;
    }
    uint32_t n = 0;
    for (uint32_t b = 0; b < r->nblocks; b++)
        n += cut[b];
    r->itrans = malloc(sizeof *r->itrans * (n + c->nthreads + 1));
    if (!r->itrans) {
        free(cut);
        return -1;
    }
    r->nitrans = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        r->it_first[t] = r->nitrans;
        uint32_t start = 0;
        for (uint32_t k = 0; k < r->bcount[t]; k++) {
            uint32_t b = r->bfirst[t] + k;
            if (cut[b] || k + 1 == r->bcount[t]) {
                uint32_t b0 = r->bfirst[t] + start;
                r->itrans[r->nitrans++] =
                    (ft_itrans){t, start, k, r->bstart[b0], r->bend[b]};
                start = k + 1;
            }
        }
    }
    r->it_first[c->nthreads] = r->nitrans;
    free(cut);
    return 0;
}

int ft_reduce_mat(ft_reduced *r, unsigned flags)
{
    const ft_ctm *c = r->ctm;
    uint32_t nt = c->nthreads;
    struct thread_index *ix = calloc(nt + 1, sizeof *ix);
    struct third th = {NULL, NULL, NULL, NULL};
    int rc = ix ? 0 : -1;
    if (!rc && nt > 2 && !(flags & FT_REDUCE_NAIVE_UNION))
        rc = build_third(r, &th);
    for (uint32_t t = 0; t < nt && !rc; t++)
        rc = build_index(r, t, &ix[t]);
    uint64_t states = 0;
    for (uint32_t a = 0; a < nt && !rc; a++)
        for (uint32_t b = a + 1; b < nt && !rc; b++)
            rc = gen_mat(r, a, b, &ix[a], &ix[b], th.any ? &th : NULL, flags,
                         &states);
    for (uint32_t t = 0; ix && t < nt; t++)
        free(ix[t].occ);
    free(ix);
    free(th.any);
    free(th.wr);
    free(th.start_tp);
    free(th.end_tp);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        free(r->mats);
        free(r->cxt);
        r->mats = NULL;
        r->cxt = NULL;
        r->nmats = r->cap_mats = r->ncxt = r->cap_cxt = 0;
        r->stats.mat_abandoned = 1;
        r->stats.cs_mat = UINT64_MAX;
        r->stats.nmats = 0;
        return derive_itrans(r);
    }
    if (r->ncxt) /* qsort(NULL, 0) is undefined */
        qsort(r->cxt, r->ncxt, sizeof *r->cxt, cxt_cmp);
    uint32_t u = 0;
    for (uint32_t e = 0; e < r->ncxt; e++)
        if (!u || cxt_cmp(&r->cxt[u - 1], &r->cxt[e]))
            r->cxt[u++] = r->cxt[e];
    r->ncxt = u;
    r->stats.cs_mat = u;
    r->stats.nmats = r->nmats;
    return derive_itrans(r);
}

/* SPDX-License-Identifier: MIT */
/* slice.c - property-preserving slicing (BEST section IV, "merging and
 * slicing").  We do not know the program's control and data dependences,
 * so every program-order predecessor of a kept transition is kept: the
 * slice is a prefix of each thread.  A prefix grows to cover (1) what must
 * happen before a kept transition (fork/join) and (2) the last transition
 * of another thread that conflicts with a kept one and need not happen
 * after it.  Taking the last such transition (not the first) keeps, e.g.,
 * the unlock after a lock, so a truncated thread never holds a lock, a
 * semaphore count or a cond notification the full model would give back.
 * ft_reduce_slice (merge.c) then merges and runs MAT on the slice. */
#include "reduce/reduce.h"

#include <stdlib.h>

/* The whole model's slice is the window [0, len) of each thread, with an
 * index built for it: the closure then looks up each kept transition's
 * last conflicting one per thread in its objects' lists.  Until
 * 2026-11-28 it scanned each other thread backwards from its end, which
 * is quadratic: 24 s per kind candidate on mbrossard/threadpool's
 * 450,957-event shutdown test, before the candidate was found too big to
 * solve.  The index costs a pass over the model, as the keep array and
 * the subset do anyway.  tests/model/test_reduce_random.c keeps the
 * backward scan as the oracle. */
int ft_slice_mark(ft_ctm *c, const uint32_t *prop, uint32_t n, uint8_t *keep)
{
    uint32_t nt = c->nthreads;
    ft_slice_index *ix = ft_slice_index_new(c);
    uint32_t *lo = calloc(nt + 1, sizeof *lo);
    uint32_t *cut = calloc(nt + 1, sizeof *cut);
    int rc = -1;
    if (ix && lo && cut &&
        ft_slice_mark_window(c, ix, prop, n, lo, c->len, cut, 0) == 0) {
        for (uint32_t t = 0; t < nt; t++)
            for (uint32_t p = 0; p < c->len[t]; p++)
                keep[ft_ctm_at(c, t, p)] = p < cut[t];
        rc = 0;
    }
    ft_slice_index_free(ix);
    free(lo);
    free(cut);
    return rc;
}

/* ---- windowed slicing ------------------------------------------------ */

/* The slots transition x is listed under: its object and second object,
 * or (fork, join) the child's slot; returns how many. */
static int slots_of(const ft_ctm *c, uint32_t x, uint32_t *s)
{
    int n = 0;
    if (c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) {
        if (c->value[x] < c->nthreads)
            s[n++] = c->nvars + (uint32_t)c->value[x];
        return n;
    }
    if (c->obj[x] < c->nvars)
        s[n++] = c->obj[x];
    if (c->obj2[x] < c->nvars && c->obj2[x] != c->obj[x])
        s[n++] = c->obj2[x];
    return n;
}

static int is_memory_write(const ft_ctm *c, uint32_t x)
{
    return c->obj[x] < c->nvars && c->vars[c->obj[x]].kind == FT_VAR_MEMORY &&
           ft_ctm_writes(c, x);
}

ft_slice_index *ft_slice_index_new(const ft_ctm *c)
{
    ft_slice_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return NULL;
    ix->nslots = c->nvars + c->nthreads;
    size_t ns = (size_t)ix->nslots + 2;
    ix->all_first = calloc(ns, sizeof *ix->all_first);
    ix->wr_first = calloc(ns, sizeof *ix->wr_first);
    uint32_t *fa = calloc(ns, sizeof *fa), *fw = calloc(ns, sizeof *fw);
    if (!ix->all_first || !ix->wr_first || !fa || !fw)
        goto fail;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        uint32_t s[2];
        int n = slots_of(c, x, s);
        for (int k = 0; k < n; k++) {
            ix->all_first[s[k] + 1]++;
            if (is_memory_write(c, x))
                ix->wr_first[s[k] + 1]++;
        }
    }
    for (uint32_t s = 0; s < ix->nslots; s++) {
        ix->all_first[s + 1] += ix->all_first[s];
        ix->wr_first[s + 1] += ix->wr_first[s];
    }
    ix->all = malloc(sizeof *ix->all * ((size_t)ix->all_first[ix->nslots] + 1));
    ix->wr = malloc(sizeof *ix->wr * ((size_t)ix->wr_first[ix->nslots] + 1));
    if (!ix->all || !ix->wr)
        goto fail;
    /* thread by thread, in program order: each slot's list ends up
     * sorted by (thread, position) */
    for (uint32_t t = 0; t < c->nthreads; t++)
        for (uint32_t p = 0; p < c->len[t]; p++) {
            uint32_t x = ft_ctm_at(c, t, p), s[2];
            int n = slots_of(c, x, s);
            for (int k = 0; k < n; k++) {
                ix->all[ix->all_first[s[k]] + fa[s[k]]++] = x;
                if (is_memory_write(c, x))
                    ix->wr[ix->wr_first[s[k]] + fw[s[k]]++] = x;
            }
        }
    free(fa);
    free(fw);
    return ix;
fail:
    free(fa);
    free(fw);
    ft_slice_index_free(ix);
    return NULL;
}

void ft_slice_index_free(ft_slice_index *ix)
{
    if (!ix)
        return;
    free(ix->all_first);
    free(ix->all);
    free(ix->wr_first);
    free(ix->wr);
    free(ix);
}

uint32_t ft_slice_upper(const ft_ctm *c, const uint32_t *list, uint32_t a,
                        uint32_t b, uint32_t j, uint32_t hi)
{
    while (a < b) {
        uint32_t m = a + (b - a) / 2, y = list[m];
        if (c->tid[y] < j || (c->tid[y] == j && c->pos[y] < hi))
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The highest position + 1 in [from, hi) of thread j holding a
 * transition that conflicts with x and need not happen after it; from if
 * there is none: the last transition y of j, at or above from, that
 * conflicts with x and need not happen after it (fork and join: any of
 * j's that need not). */
static uint32_t last_conflict(ft_ctm *c, const ft_slice_index *ix, uint32_t x,
                              uint32_t j, uint32_t from, uint32_t hi)
{
    uint32_t best = from;
    if ((c->op[x] == FT_OP_FORK || c->op[x] == FT_OP_JOIN) &&
        c->value[x] == j) {
        for (uint32_t q = hi; q > best; q--)
            if (!ft_ctm_must_hb(c, x, ft_ctm_at(c, j, q - 1)))
                return q;
        return best;
    }
    uint32_t s[3];
    int n = slots_of(c, x, s);
    int memory_read = c->obj[x] < c->nvars &&
                      c->vars[c->obj[x]].kind == FT_VAR_MEMORY &&
                      !ft_ctm_writes(c, x);
    s[n++] = c->nvars + c->tid[x]; /* forks and joins of x's thread */
    for (int k = 0; k < n; k++) {
        int wr = memory_read && s[k] < c->nvars;
        const uint32_t *list = wr ? ix->wr : ix->all;
        uint32_t a = (wr ? ix->wr_first : ix->all_first)[s[k]];
        uint32_t b = (wr ? ix->wr_first : ix->all_first)[s[k] + 1];
        uint32_t lo = ft_slice_upper(c, list, a, b, j, 0);
        for (uint32_t q = ft_slice_upper(c, list, a, b, j, hi); q > lo; q--) {
            uint32_t y = list[q - 1];
            if (c->pos[y] < best)
                break;
            if (ft_ctm_conflict(c, x, y) && !ft_ctm_must_hb(c, x, y)) {
                best = c->pos[y] + 1;
                break;
            }
        }
    }
    return best;
}

int ft_slice_mark_window(ft_ctm *c, const ft_slice_index *ix,
                         const uint32_t *prop, uint32_t n, const uint32_t *lo,
                         const uint32_t *hi, uint32_t *cut, uint64_t max)
{
    uint64_t size = 0; /* transitions marked so far */
    uint32_t nt = c->nthreads;
    if (!c->hb_vc && ft_ctm_hb_prepare(c))
        return -1;
    uint32_t *done = malloc(sizeof *done * (nt + 1));
    if (!done)
        return -1;
    for (uint32_t t = 0; t < nt; t++)
        cut[t] = done[t] = lo[t];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = prop[i];
        if (x >= c->ntrans || c->pos[x] < lo[c->tid[x]] ||
            c->pos[x] >= hi[c->tid[x]]) {
            free(done);
            return -1;
        }
        if (c->pos[x] + 1 > cut[c->tid[x]])
            cut[c->tid[x]] = c->pos[x] + 1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++)
            while (done[t] < cut[t]) {
                uint32_t x = ft_ctm_at(c, t, done[t]++);
                if (max && ++size > max) { /* too big: say so at once */
                    free(done);
                    return 1;
                }
                for (uint32_t j = 0; j < nt; j++) {
                    if (j == t)
                        continue;
                    uint32_t need = ft_ctm_hb_before(c, x, j);
                    if (need > hi[j])
                        need = hi[j];
                    uint32_t from = need > cut[j] ? need : cut[j];
                    if (ft_ctm_is_shared(c, x))
                        need = last_conflict(c, ix, x, j, from, hi[j]);
                    if (need > cut[j]) {
                        cut[j] = need;
                        changed = 1;
                    }
                }
            }
    }
    free(done);
    return 0;
}

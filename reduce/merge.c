/* SPDX-License-Identifier: MIT */
/* merge.c - the reduction driver and its first pass: every transition
 * with no shared access joins the next transition of its thread, so each
 * block holds at most one shared transition (trailing local transitions
 * join the thread's last block).  Local transitions commute with every
 * transition of other threads, so any run can be reordered to execute a
 * block without interruption (docs/reduction.md). */
#include "reduce/reduce.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ft_reduced_free(ft_reduced *r)
{
    if (!r)
        return;
    free(r->orig);
    free(r->bfirst);
    free(r->bcount);
    free(r->bstart);
    free(r->bend);
    free(r->bkey);
    free(r->block_of);
    free(r->held_after);
    free(r->ls_first);
    free(r->ls_len);
    free(r->ls_pool);
    free(r->ls_hash);
    free(r->mats);
    free(r->cxt);
    free(r->itrans);
    free(r->it_first);
    ft_ctm_free(r->owned);
    free(r);
}

void ft_reduced_drop_itrans(ft_reduced *r)
{
    free(r->itrans);
    free(r->it_first);
    r->itrans = NULL;
    r->it_first = NULL;
    r->nitrans = 0;
}

int ft_block_glued(const ft_reduced *r, uint32_t b)
{
    const ft_ctm *c = r->ctm;
    if (!c->nglue || b + 1 >= r->nblocks)
        return 0;
    uint32_t t = ft_block_thread(r, b);
    if (b + 1 >= r->bfirst[t] + r->bcount[t] || r->bkey[b + 1] == FT_CTM_NONE)
        return 0;
    uint32_t to = c->pos[r->bkey[b + 1]];
    for (uint32_t p = r->bend[b]; p < to; p++)
        if (!ft_ctm_glued(c, ft_ctm_at(c, t, p)))
            return 0;
    return 1;
}

/* Two passes in trace order (sequential reads of the transition arrays,
 * where walking thread by thread would gather through by_thread): the
 * first counts each thread's shared transitions, which fixes the block
 * numbering, and notes which transitions are shared in block_of; the
 * second cuts the blocks. */
int ft_reduce_merge(ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    uint32_t n = c->ntrans, nt = c->nthreads;
    r->bfirst = malloc(sizeof *r->bfirst * (nt + 1));
    r->bcount = calloc(nt + 1, sizeof *r->bcount);
    r->block_of = malloc(sizeof *r->block_of * (n + 1));
    uint32_t *next = calloc(nt + 1, sizeof *next);  /* block within thread */
    uint32_t *start = calloc(nt + 1, sizeof *start); /* its first position */
    if (!r->bfirst || !r->bcount || !r->block_of || !next || !start) {
        free(next);
        free(start);
        return -1;
    }
    ft_prefault(r->block_of, sizeof *r->block_of, 0, n);
    for (uint32_t x = 0; x < n; x++) {
        uint32_t shared = (uint32_t)ft_ctm_is_shared(c, x);
        r->block_of[x] = shared;
        next[c->tid[x]] += shared;
    }
    uint32_t nb = 0;
    for (uint32_t t = 0; t < nt; t++) {
        /* a block ends at each shared transition; trailing local ones
         * join the last block, or make the only one */
        r->bfirst[t] = nb;
        r->bcount[t] = next[t] ? next[t] : c->len[t] ? 1 : 0;
        nb += r->bcount[t];
        next[t] = 0;
    }
    r->bstart = malloc(sizeof *r->bstart * (nb + 1));
    r->bend = malloc(sizeof *r->bend * (nb + 1));
    r->bkey = malloc(sizeof *r->bkey * (nb + 1));
    if (!r->bstart || !r->bend || !r->bkey) {
        free(next);
        free(start);
        return -1;
    }
    ft_prefault(r->bstart, sizeof *r->bstart, 0, nb);
    ft_prefault(r->bend, sizeof *r->bend, 0, nb);
    ft_prefault(r->bkey, sizeof *r->bkey, 0, nb);
    for (uint32_t x = 0; x < n; x++) {
        uint32_t t = c->tid[x], k = next[t];
        uint32_t b = r->bfirst[t] + (k < r->bcount[t] ? k : r->bcount[t] - 1);
        if (r->block_of[x]) { /* shared: ends block b */
            uint32_t p = c->pos[x];
            r->bstart[b] = start[t];
            r->bend[b] = p;
            r->bkey[b] = x;
            next[t] = k + 1;
            start[t] = p + 1;
        }
        r->block_of[x] = b;
    }
    for (uint32_t t = 0; t < nt; t++) {
        if (!c->len[t])
            continue;
        uint32_t last = r->bfirst[t] + r->bcount[t] - 1;
        if (!next[t]) {
            r->bstart[last] = 0;
            r->bkey[last] = FT_CTM_NONE;
        }
        r->bend[last] = c->len[t] - 1;
    }
    free(next);
    free(start);
    r->nblocks = nb;
    r->stats.trans_before_merge = n;
    r->stats.trans_after_merge = nb;
    uint64_t total = 0;
    for (uint32_t i = 0; i < nt; i++)
        if (r->bcount[i] > 1)
            total += (uint64_t)(r->bcount[i] - 1) * (nb - r->bcount[i]);
    r->stats.cs_total = total;
    return 0;
}

static void *merge_main(void *arg)
{
    ft_reduced *r = arg;
    return (void *)(intptr_t)ft_reduce_merge(r);
}

/* Must-HB, merging and locksets.  Merging reads the model and writes the
 * blocks; must-HB writes the model's clocks and locksets their sets, and
 * neither reads what another writes, so merging runs on a second thread
 * meanwhile (each pass streams the transition arrays from memory, and
 * two cores stream more than one).  Without a thread, one after the
 * other. */
static int linear_passes(ft_reduced *r, ft_ctm *c)
{
    pthread_t merger;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int threaded = c->ntrans >= 65536 &&
                   pthread_create(&merger, NULL, merge_main, r) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    int rc = ft_ctm_hb_prepare(c) || ft_reduce_locksets(r);
    if (threaded) {
        void *merged;
        pthread_join(merger, &merged);
        return rc || merged != NULL ? -1 : 0;
    }
    return rc || ft_reduce_merge(r) ? -1 : 0;
}

static ft_reduced *reduce_model(ft_ctm *c, ft_ctm *owned, uint32_t *orig,
                                unsigned flags)
{
    ft_reduced *r = calloc(1, sizeof *r);
    if (!r) {
        ft_ctm_free(owned);
        free(orig);
        return NULL;
    }
    r->ctm = c;
    r->owned = owned;
    r->orig = orig;
    if (linear_passes(r, c)) {
        ft_reduced_free(r);
        return NULL;
    }
    r->stats.cs_lockset_hb =
        (flags & FT_REDUCE_NO_COUNT)
            ? UINT64_MAX
            : ft_count_feasible_switches(r, (uint64_t)1 << 28);
    if (!(flags & FT_REDUCE_NO_MAT) && ft_reduce_mat(r, flags)) {
        ft_reduced_free(r);
        return NULL;
    }
    return r;
}

ft_reduced *ft_reduce(ft_ctm *c, unsigned flags)
{
    return reduce_model(c, NULL, NULL, flags);
}

ft_reduced *ft_reduce_slice(ft_ctm *c, const uint32_t *prop, uint32_t n,
                            unsigned flags)
{
    uint8_t *keep = calloc((size_t)c->ntrans + 1, 1);
    if (!keep || ft_slice_mark(c, prop, n, keep)) {
        free(keep);
        return NULL;
    }
    uint32_t *map = NULL;
    ft_ctm *s = ft_ctm_subset(c, keep, &map);
    free(keep);
    if (!s)
        return NULL;
    return reduce_model(s, s, map, flags);
}

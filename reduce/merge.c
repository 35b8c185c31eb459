/* merge.c - the reduction driver and its first pass: every transition
 * with no shared access joins the next transition of its thread, so each
 * block holds at most one shared transition (trailing local transitions
 * join the thread's last block).  Local transitions commute with every
 * transition of other threads, so any run can be reordered to execute a
 * block without interruption (docs/reduction.md). */
#include "reduce/reduce.h"

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

int ft_reduce_merge(ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    uint32_t n = c->ntrans, nt = c->nthreads;
    r->bfirst = malloc(sizeof *r->bfirst * (nt + 1));
    r->bcount = calloc(nt + 1, sizeof *r->bcount);
    r->bstart = malloc(sizeof *r->bstart * (n + 1));
    r->bend = malloc(sizeof *r->bend * (n + 1));
    r->bkey = malloc(sizeof *r->bkey * (n + 1));
    r->block_of = malloc(sizeof *r->block_of * (n + 1));
    if (!r->bfirst || !r->bcount || !r->bstart || !r->bend || !r->bkey ||
        !r->block_of)
        return -1;
    uint32_t nb = 0;
    for (uint32_t t = 0; t < nt; t++) {
        r->bfirst[t] = nb;
        uint32_t start = 0;
        for (uint32_t p = 0; p < c->len[t]; p++) {
            uint32_t x = ft_ctm_at(c, t, p);
            if (!ft_ctm_is_shared(c, x))
                continue;
            r->bstart[nb] = start;
            r->bend[nb] = p;
            r->bkey[nb] = x;
            nb++;
            start = p + 1;
        }
        if (start < c->len[t]) {
            if (nb > r->bfirst[t]) {
                r->bend[nb - 1] = c->len[t] - 1;
            } else {
                r->bstart[nb] = start;
                r->bend[nb] = c->len[t] - 1;
                r->bkey[nb] = FT_CTM_NONE;
                nb++;
            }
        }
        r->bcount[t] = nb - r->bfirst[t];
        for (uint32_t b = r->bfirst[t]; b < nb; b++)
            for (uint32_t p = r->bstart[b]; p <= r->bend[b]; p++)
                r->block_of[ft_ctm_at(c, t, p)] = b;
    }
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
    if (ft_ctm_hb_prepare(c) || ft_reduce_merge(r) || ft_reduce_locksets(r)) {
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

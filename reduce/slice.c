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

int ft_slice_mark(ft_ctm *c, const uint32_t *prop, uint32_t n, uint8_t *keep)
{
    uint32_t nt = c->nthreads;
    if (!c->hb_vc && ft_ctm_hb_prepare(c))
        return -1;
    uint32_t *cut = calloc(nt + 1, sizeof *cut);  /* prefix kept */
    uint32_t *done = calloc(nt + 1, sizeof *done); /* prefix processed */
    if (!cut || !done) {
        free(cut);
        free(done);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (prop[i] >= c->ntrans) {
            free(cut);
            free(done);
            return -1;
        }
        uint32_t x = prop[i];
        if (c->pos[x] + 1 > cut[c->tid[x]])
            cut[c->tid[x]] = c->pos[x] + 1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++) {
            while (done[t] < cut[t]) {
                uint32_t x = ft_ctm_at(c, t, done[t]++);
                for (uint32_t j = 0; j < nt; j++) {
                    if (j == t)
                        continue;
                    uint32_t need = ft_ctm_hb_before(c, x, j);
                    if (need > c->len[j])
                        need = c->len[j];
                    if (ft_ctm_is_shared(c, x))
                        for (uint32_t q = c->len[j]; q > need && q > cut[j];
                             q--) {
                            uint32_t y = ft_ctm_at(c, j, q - 1);
                            if (ft_ctm_conflict(c, x, y) &&
                                !ft_ctm_must_hb(c, x, y)) {
                                need = q;
                                break;
                            }
                        }
                    if (need > cut[j]) {
                        cut[j] = need;
                        changed = 1;
                    }
                }
            }
        }
    }
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t p = 0; p < c->len[t]; p++)
            keep[ft_ctm_at(c, t, p)] = p < cut[t];
    free(cut);
    free(done);
    return 0;
}

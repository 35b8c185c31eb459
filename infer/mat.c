/* SPDX-License-Identifier: MIT */
/* mat.c - the bridge from stage ii to stage iii: turns the i-transactions
 * of reduce/'s MAT analysis (thread, transition positions) into trace event
 * ranges and proves the regions that lie inside one of them (paper section
 * VIII, "proving atomicity").  Kept in its own file so the rest of ft_infer
 * does not depend on the CTM. */
#include "infer/internal.h"
#include "reduce/reduce.h"

#include <stdlib.h>

long fi_prove_by_reduce(fi_analysis *a, const struct ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    fi_itx *itx = malloc((r->nitrans ? r->nitrans : 1) * sizeof *itx);
    if (!itx)
        return -1;
    size_t n = 0;
    for (uint32_t i = 0; i < r->nitrans; i++) {
        const ft_itrans *it = &r->itrans[i];
        if (it->thread >= c->nthreads || it->last_pos < it->first_pos ||
            it->last_pos >= c->len[it->thread])
            continue; /* not a range of this model: proves nothing */
        uint32_t x = ft_ctm_at(c, it->thread, it->first_pos);
        uint32_t y = ft_ctm_at(c, it->thread, it->last_pos);
        itx[n++] = (fi_itx){it->thread, c->event[x], c->event[y]};
    }
    long proved = fi_prove_by_itx(a, itx, n);
    free(itx);
    return proved;
}

/* SPDX-License-Identifier: MIT */
/* pipeline.c - stage iii in one call, as `foretell analyze` runs it:
 * regions and their statuses, the MAT proof with the i-transactions of a
 * CTM built from the same events and reduced by reduce/, then properties.
 * When the CTM cannot be built (an event the model rejects) the analysis
 * goes on without the MAT proof and says why, rather than failing. */
#include "infer/internal.h"
#include "reduce/reduce.h"

#include <stdio.h>
#include <string.h>

int fi_run(fi_analysis *a, const fi_trace *t, const fi_options *opt,
           int use_mat, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = 0;
    if (fi_analyze(a, t, opt) < 0)
        return -1;
    if (use_mat) {
        ft_ctm *c = ft_ctm_new();
        if (!c)
            return -1;
        char msg[256] = "";
        int ok = 1;
        for (size_t i = 0; i < t->nev && ok; i++) {
            ft_event ev;
            fi_trace_get(t, i, &ev);
            if (ft_ctm_add(c, &ev, msg, sizeof msg) != 0) {
                if (why)
                    snprintf(why, whylen,
                             "MAT proof skipped: event %zu: %s", i, msg);
                ok = 0;
            }
        }
        if (ok && ft_ctm_finish(c) < 0) {
            ft_ctm_free(c);
            return -1;
        }
        if (ok) {
            ft_reduced *r =
                ft_reduce(c, FT_REDUCE_NO_COUNT | FT_REDUCE_NO_MAT_LIST);
            if (!r || fi_prove_by_reduce(a, r) < 0) {
                ft_reduced_free(r);
                ft_ctm_free(c);
                return -1;
            }
            ft_reduced_free(r);
        }
        ft_ctm_free(c);
    }
    return fi_properties(a);
}

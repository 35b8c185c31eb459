/* SPDX-License-Identifier: MIT */
/* strategy_surwsym.c - surw-sym: SURW's runs (strategy_surw.c: the same
 * counts and seeds) with two changes, both ours, not the paper's.
 *
 * - In every other run (the even ones) the runtime draws over classes
 *   of threads (`g=1`, ft_surw_step_grouped): threads waiting at the
 *   same instruction on the same object are interchangeable for the next
 *   step, so they share one draw.  SURW makes every order of the
 *   interesting events equally likely, and so gives a thread unlike the
 *   others (the one checker among N setters, data/reorder.c) about
 *   1/(N+1) of the first places: its mean schedules to the bug grow with
 *   N.  Drawn over classes, that thread weighs as much as all the setters
 *   together, and the bug's probability per run no longer depends on N
 *   (1/3 on the model of tests/explore/test_explore_surwsym.c).  Where
 *   every thread is unlike the others the draw is SURW's.  The odd runs
 *   keep SURW's draw: where the lone thread must instead wait for the
 *   alike ones (SV-COMP's twostage_3), the class draw alone needed twice
 *   SURW's schedules, and alternating bounds that loss.
 * - The variables after the first are drawn by how much their threads
 *   overlap the chosen ones' (fx_surw_draw_vars): a bug on two variables
 *   needs threads that touch both.
 *
 * docs/explore.md gives the measurements that made it the default. */
#include "replay/explore.h"

#include <stdlib.h>

static int surwsym_next(void *st, uint64_t i, char *spec, size_t len)
{
    return fx_surw_next(st, i, 1, spec, len);
}

const fx_strategy fx_strategy_surwsym = {
    .name = "surw-sym",
    .parallel = 1,
    .wants_log = 0,
    .init = fx_surw_init,
    .next = surwsym_next,
    .fini = free,
};

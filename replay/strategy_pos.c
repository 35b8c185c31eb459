/* SPDX-License-Identifier: MIT */
/* strategy_pos.c - POS, partial order sampling (Yuan, Yang and Gu,
 * CAV'18): each run is decided in the runtime from its seed alone
 * (recorder/rt/policy_pos.c), so runs are independent and go in
 * parallel.  POS needs no estimate from the calibration run. */
#include "replay/explore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pos_state {
    uint64_t seed;
} pos_state;

static void *pos_init(const fx_opts *o, const fx_calib *c)
{
    (void)c;
    pos_state *s = calloc(1, sizeof *s);
    if (s)
        s->seed = o->seed;
    return s;
}

static int pos_next(void *st, uint64_t i, char *spec, size_t len)
{
    const pos_state *s = st;
    snprintf(spec, len, "pos:seed=%" PRIu64, fx_run_seed(s->seed, i));
    return 1;
}

const fx_strategy fx_strategy_pos = {
    .name = "pos", .parallel = 1, .wants_log = 0, .init = pos_init,
    .next = pos_next, .fini = free,
};

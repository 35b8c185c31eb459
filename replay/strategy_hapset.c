/* SPDX-License-Identifier: MIT */
/* strategy_hapset.c - `--strategy hapset` (Wang, Said and Gupta, paper
 * 002): stateless DPOR guided by history-aware predecessor sets with
 * continuous learning.  One fresh process per schedule; the search state
 * (the HaPSet, the DPOR stack with its backtrack and done sets) stays in
 * the driver between runs (hapset_search.c).  Each run follows a prefix
 * (recorder/rt/policy_prefix.c) and writes its decision log; the run is
 * read back from the log and its trace (hapset_run.c) and replayed over
 * the search state (hapset_analyze.c): learning when it did not fail,
 * backtrack points where a race would give a new scenario.  With
 * --learn N the first N runs are random walks learned from only (the
 * paper's algorithm 1; its experiments used none, the default).
 * `--strategy dpor` is the paper's baseline: the same search, no HaPSets.
 * docs/explore.md describes the strategy, its log and its departures. */
#include "replay/explore.h"
#include "replay/hapset.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hapset_st {
    fh_search *s;
    int ctx_depth;
    uint64_t learn_runs, handed, seed;
} hapset_st;

static void *search_init(const fx_opts *o, int guide)
{
    hapset_st *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->s = fh_search_new(guide, guide);
    if (!h->s) {
        free(h);
        return NULL;
    }
    h->ctx_depth = o->ctx_depth;
    h->learn_runs = o->learn_runs;
    h->seed = o->seed;
    return h;
}

static void *hapset_init(const fx_opts *o, const fx_calib *c)
{
    (void)c;
    return search_init(o, 1);
}

/* The paper's baseline: the same search without HaPSets (algorithms 2-3). */
static void *dpor_init(const fx_opts *o, const fx_calib *c)
{
    (void)c;
    fx_opts plain = *o;
    plain.learn_runs = 0;
    return search_init(&plain, 0);
}

static int hapset_next(void *st, uint64_t i, char *spec, size_t len)
{
    (void)i;
    hapset_st *h = st;
    if (h->handed < h->learn_runs) {
        snprintf(spec, len, "random:seed=%" PRIu64, fx_run_seed(h->seed, h->handed));
        h->handed++;
        return 1;
    }
    return fh_search_next(h->s, spec, len);
}

static void hapset_done(void *st, const char *spec, const char *log_path,
                        const char *trace_path, int failure)
{
    hapset_st *h = st;
    int systematic = strncmp(spec, "prefix", 6) == 0;
    fh_run r;
    /* An unreadable trace (a killed run) still gives the decisions: the
     * stack moves on, with nothing learned and no race seen. */
    fh_run_read(&r, systematic ? log_path : NULL, trace_path, h->ctx_depth);
    if (fx_time_up()) { /* read in part: the exploration ends here anyway */
        fh_run_free(&r);
        return;
    }
    if (systematic)
        fh_search_feed(h->s, &r, failure == FR_OK);
    else if (failure == FR_OK)
        fh_search_learn(h->s, &r);
    fh_run_free(&r);
}

static void hapset_fini(void *st)
{
    hapset_st *h = st;
    if (!h)
        return;
    if (getenv("FORETELL_HAPSET_STATS")) {
        fh_stats s;
        fh_search_stats(h->s, &s);
        fprintf(stderr, "hapset: %" PRIu64 " runs, %" PRIu64 " HaPSet pairs, %"
                PRIu64 " diverged, %" PRIu64 " dropped\n",
                s.runs, s.pairs, s.diverged, s.dropped);
    }
    fh_search_free(h->s);
    free(h);
}

const fx_strategy fx_strategy_hapset = {
    .name = "hapset", .parallel = 0, .wants_log = 1, .init = hapset_init,
    .next = hapset_next, .fini = hapset_fini,
    .done_trace = hapset_done,
};
const fx_strategy fx_strategy_dpor = {
    .name = "dpor", .parallel = 0, .wants_log = 1, .init = dpor_init,
    .next = hapset_next, .fini = hapset_fini,
    .done_trace = hapset_done,
};

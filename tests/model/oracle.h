/* SPDX-License-Identifier: MIT */
/* oracle.h - the reference enumerator for small CTMs: a depth-first walk
 * over every interleaving of the unmerged model under the exact sync
 * semantics and glue (no other thread right after a step whose glued
 * chain reaches a shared one, ctm.h ft_ctm_binds),
 * and by default the recorded read values, written
 * independently of reduce/ so that the reductions can be checked against
 * it.  It knows nothing of MATs; it only executes. */
#ifndef FORETELL_TEST_ORACLE_H
#define FORETELL_TEST_ORACLE_H

#include "ctm/ctm.h"
#include "reduce/reduce.h"

#define ORACLE_MAX_THREADS 8
#define ORACLE_MAX_VARS 64
#define ORACLE_MAX_TRANS 64

typedef struct oracle_opts {
    int read_values;        /* reads must return their recorded value */
    const ft_reduced *atomic_blocks; /* non-NULL: blocks run unbroken */
    const ft_reduced *blocks;        /* non-NULL: compute blocked flags */
    long max_visits;        /* > 0: give up (-1) past this many prefixes */
} oracle_opts;

/* Called for every feasible schedule prefix (the empty one included);
 * maximal = no transition is enabled after it.  With opts->blocks,
 * blocked[i] says that right after seq[i] its thread had finished or its
 * next block could not run (the block's shared transition was not
 * enabled); else blocked is NULL. */
typedef void (*oracle_visit)(void *ctx, const uint32_t *seq, uint32_t n,
                             int maximal, const uint8_t *blocked);

/* Walks every feasible prefix.  Returns the number visited, or -1 if the
 * model is too big for the oracle (or has more than o->max_visits
 * prefixes: then some were not visited). */
long oracle_walk(const ft_ctm *c, const oracle_opts *o, oracle_visit visit,
                 void *ctx);

/* Equivalence-class key of a schedule (Mazurkiewicz trace): the executed
 * set and the order of every dependent pair of different threads. */
uint64_t oracle_class_key(const ft_ctm *c, const uint32_t *seq, uint32_t n);

/* Whether every context switch in seq lies in r's CXT at block
 * boundaries (switches away from a finished or blocked thread are free). */
int oracle_respects_cxt(const ft_reduced *r, const uint32_t *seq, uint32_t n,
                        const uint8_t *blocked);

#endif

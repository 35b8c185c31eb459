/* SPDX-License-Identifier: MIT */
/* avcheck.h - the independent side of the prediction tests: decides for
 * one schedule prefix of the whole (unsliced, unmerged) CTM whether it
 * obeys the data rule of docs/prediction.md and whether it violates a CA
 * or CMA property, by direct simulation over transitions.  It shares no
 * code with smt/ or predict/. */
#ifndef FORETELL_TEST_AVCHECK_H
#define FORETELL_TEST_AVCHECK_H

#include "predict/predict.h"

/* 1 when seq[0..n) obeys the data rule for property p, with the
 * straight-line bound of the model's code spans (a violating read that
 * returned another value lets its thread run on only through the code
 * after it). */
int av_data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
               uint32_t n);
/* The same with the paper's rule (no bound: the region's end). */
int av_data_ok_paper(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                     uint32_t n);
/* 1 when seq[0..n) is not (mutually) serializable for p. */
int av_violates(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                uint32_t n);

/* The same with memory, fork and join conflicts only (a data violation). */
int av_violates_data(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                     uint32_t n);

/* ---- walking the oracle for properties -------------------------------- */

#define AV_MAX_PROPS 16

/* The hashes of the feasible, data-consistent prefixes of one property. */
typedef struct av_hset {
    uint64_t *k;
    size_t n, cap;
} av_hset;

/* oracle_walk's context: for each property whether some prefix violates
 * it under the paper's data rule (found) and under the straight-line
 * bound (found_strict), and the prefixes that obey the paper's rule
 * (av_walk_sort before looking them up). */
typedef struct av_walk {
    const ft_ctm *c;
    const ft_prop *props;
    int nprops;
    int found[AV_MAX_PROPS];
    av_hset valid[AV_MAX_PROPS];
    int found_strict[AV_MAX_PROPS];
} av_walk;

uint64_t av_seq_hash(const uint32_t *seq, uint32_t n);
/* oracle_visit callbacks: av_visit fills an av_walk, av_count_visit
 * only counts. */
void av_visit(void *ctx, const uint32_t *seq, uint32_t n, int maximal,
              const uint8_t *blocked);
void av_count_visit(void *ctx, const uint32_t *seq, uint32_t n, int maximal,
                    const uint8_t *blocked);
void av_walk_sort(av_walk *w);
void av_walk_free(av_walk *w);

/* A random region of thread t (shared positions): 0, -1 if it has none. */
int av_pick_region(const ft_ctm *c, uint64_t *rs, uint32_t t, ft_pregion *g);
/* "seed S CA (tT F..L / tT F..L)": a property in a failure message. */
const char *av_prop_name(uint64_t seed, const ft_prop *p, char *buf, size_t n);
/* Whether a witness (steps, no recorded prefix) is a known feasible,
 * data-consistent (the paper's rule), violating prefix with at least two
 * marked steps. */
int av_witness_ok(const ft_ctm *c, const ft_prop *p, const ft_presult *res,
                  const av_hset *valid);
/* Gives c a code table: every transition its own site, in address
 * order per thread, whose straight-line span is random (unknown, or over
 * the next 0 to 3 transitions), seeded by seed. */
void av_random_code(ft_ctm *c, uint64_t seed);
/* A window's witness as a whole-run sequence: the recorded prefix, then
 * the steps (tmp->steps allocated). */
void av_expand_prefix(const ft_presult *res, ft_presult *tmp);

#endif

/* SPDX-License-Identifier: MIT */
/* helpers.h - building small traces by hand for the stage iii tests, and
 * the brute-force serializability oracle the vector-clock checker is
 * compared with. */
#ifndef FORETELL_TESTS_INFER_HELPERS_H
#define FORETELL_TESTS_INFER_HELPERS_H

#include "infer/infer.h"

/* Appends one event; returns its index. */
uint64_t ev_add(fi_trace *t, uint32_t tid, unsigned kind, uint32_t site,
                uint64_t addr);
/* Same, with the second object / value fields. */
uint64_t ev_add2(fi_trace *t, uint32_t tid, unsigned kind, uint32_t site,
                 uint64_t addr, uint64_t obj2, uint64_t value);

/* Oracle: is the sequence not conflict-serializable when span is the only
 * non-unary transaction?  Explicit dependence graph plus search, O(n^2). */
int oracle_violated(const fi_sev *ev, size_t n, const fi_span *span);

/* A small xorshift generator so failures reproduce from the seed. */
uint64_t rnd_next(uint64_t *s);
uint32_t rnd_below(uint64_t *s, uint32_t n);

/* Region of an analysis covering exactly [first, last] of tid, or NULL. */
const fi_region *find_region(const fi_analysis *a, uint32_t tid,
                             uint64_t first, uint64_t last);

#endif

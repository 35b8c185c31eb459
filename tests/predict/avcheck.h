/* avcheck.h - the independent side of the prediction tests: decides for
 * one schedule prefix of the whole (unsliced, unmerged) CTM whether it
 * obeys the data rule of docs/prediction.md and whether it violates a CA
 * or CMA property, by direct simulation over transitions.  It shares no
 * code with smt/ or predict/. */
#ifndef FORETELL_TEST_AVCHECK_H
#define FORETELL_TEST_AVCHECK_H

#include "predict/predict.h"

/* 1 when seq[0..n) obeys the data rule for property p. */
int av_data_ok(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
               uint32_t n);
/* 1 when seq[0..n) is not (mutually) serializable for p. */
int av_violates(const ft_ctm *c, const ft_prop *p, const uint32_t *seq,
                uint32_t n);

#endif

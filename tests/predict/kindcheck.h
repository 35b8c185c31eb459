/* SPDX-License-Identifier: MIT */
/* kindcheck.h - the independent side of the property-kind tests
 * (test_kinds_random.c): for one schedule prefix of the whole CTM, as the
 * brute-force enumerator (tests/model/oracle.c) walks them, whether it
 * reaches the state a property kind of predict/kind.h predicts, decided by
 * direct simulation over transitions.  It shares no code with smt/ or
 * predict/ (only the model's accessors). */
#ifndef FORETELL_TEST_KINDCHECK_H
#define FORETELL_TEST_KINDCHECK_H

#include "predict/predict.h"

/* The cycles of threads waiting for each other's locks after seq[0..n):
 * each thread's next transition is a blocking acquisition of a lock
 * another thread holds in an excluding mode.  For each cycle found,
 * cb(ctx, acq, k) gets the waiting acquisitions (transitions). */
/* Whether a[0..na) and b[0..nb) hold the same elements (no repeats). */
int kc_same_set(const uint32_t *a, uint32_t na, const uint32_t *b,
                uint32_t nb);
typedef void (*kc_cycle_fn)(void *ctx, const uint32_t *acq, uint32_t k);
void kc_deadlocks(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                  kc_cycle_fn cb, void *ctx);

/* Whether the acquisitions acq[0..k) all wait, in a cycle, after seq. */
int kc_is_deadlock(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                   const uint32_t *acq, uint32_t k);

/* Whether, after seq (maximal: the enumerator found no transition
 * enabled), every thread has finished, has not begun, or stands at an
 * operation it would wait at (ft_ctm_blocking), and some thread stands
 * at one.  If so, *waiting (may be NULL) gets a bit per thread that
 * stands at a wait. */
int kc_is_stuck(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                int maximal, uint32_t *waiting);

/* Whether seq obeys the data rule (no thread goes past a read that
 * returned another value than recorded, or one from a write whose own
 * thread went past such a read) and read transition r, its thread's last
 * in seq, returned another value than recorded (value want, when
 * specific; an unknown initial value counts as another when not). */
int kc_reads_other(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                   uint32_t r, int specific, uint64_t want);
/* Whether seq obeys the data rule (as above), and *other (may be NULL)
 * gets a bit per thread whose last read in seq returned another value. */
int kc_data_ok(const ft_ctm *c, const uint32_t *seq, uint32_t n,
               uint32_t *other);

/* Whether seq obeys the data rule and free f ran in it, after which
 * thread t's last transition in seq accesses memory inside the freed
 * object. */
int kc_use_after_free(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                      uint32_t f, uint32_t t);

/* Thread t's next position after seq. */
uint32_t kc_next(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                 uint32_t t);

/* Steps, as the runtime runs glued transitions (the race kind). */
/* Whether x binds its thread to run on (x glued, and the chain of glued
 * transitions after it reaches a shared one): no scheduling point. */
int kc_binds(const ft_ctm *c, uint32_t x);
/* The last position of thread t's step from position q. */
uint32_t kc_step_end(const ft_ctm *c, uint32_t t, uint32_t q);
/* The first position of thread t's next step after seq, or UINT32_MAX
 * (not begun, or finished). */
uint32_t kc_step_next(const ft_ctm *c, const uint32_t *seq, uint32_t n,
                      uint32_t t);
/* Whether x is a read, write or atomic update of memory. */
int kc_is_mem_access(const ft_ctm *c, uint32_t x);
/* Whether steps[at..at+len) are x's thread's step up to x (x marked and
 * last, the transitions before it with_next). */
int kc_is_step_of(const ft_ctm *c, const ft_step *steps, uint32_t at,
                  uint32_t len, uint32_t x);

#endif

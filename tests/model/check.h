/* SPDX-License-Identifier: MIT */
/* check.h - the property checks that compare the reductions with the
 * oracle on one model; shared by the randomized tests and the figure-2
 * test.  Each returns 0 when the property holds and prints what failed. */
#ifndef FORETELL_TEST_CHECK_H
#define FORETELL_TEST_CHECK_H

#include "oracle.h"

/* Nonzero: failures are not printed. */
extern int check_quiet;

/* Every equivalence class of feasible prefixes has a member whose context
 * switches all lie in CXT. */
int check_cxt_sound(const ft_reduced *r, int read_values, const char *tag);
/* Every switch taken by a feasible run is lockset/HB-feasible. */
int check_lockset_sound(const ft_reduced *r, const char *tag);
/* Running blocks unbroken yields the same orders of shared transitions. */
int check_merge_preserves(const ft_reduced *r, const char *tag);
/* The slice for prop yields the same orders of prop transitions. */
int check_slice_preserves(ft_ctm *c, const uint32_t *prop, uint32_t n,
                          unsigned flags, const char *tag);

/* Loads a trace written from b (through a temporary file). */
ft_ctm *load_events(const void *evbuf_ptr, const char *tag);

#endif

/* SPDX-License-Identifier: MIT */
/* atomic_oracle.h - brute-force atomicity of regions: every schedule
 * prefix of a small CTM (tests/model's enumerator, no read-value guards)
 * is checked for a path of must-stay-ordered transition pairs that leaves
 * a region and comes back into it.  Written from the pthread semantics,
 * independently of infer/, for test_infer_reduction_oracle.c. */
#ifndef FORETELL_TESTS_INFER_ATOMIC_ORACLE_H
#define FORETELL_TESTS_INFER_ATOMIC_ORACLE_H

#include "infer/infer.h"
#include "tests/model/oracle.h"

#include <stddef.h>
#include <stdint.h>

/* A region under test: its transitions are tr[0..n) (program order). */
typedef struct checked_region {
    const fi_region *r;
    uint32_t tr[ORACLE_MAX_TRANS];
    uint32_t n;
    int claimed;  /* infer says it cannot be violated */
    unsigned kind; /* by which proof (enum fi_proof); 5: no conflict */
    int violated; /* some schedule is not serializable for it */
    uint32_t bad_seq[ORACLE_MAX_TRANS], bad_n;
} checked_region;

/* Sets violated (and the first violating schedule in bad_seq) for each of
 * reg[0..nreg) that some feasible schedule of c does not serialize.
 * Returns the number of prefixes visited, -1 if c is too big. */
long atomic_oracle_walk(const ft_ctm *c, checked_region *reg, size_t nreg);

#endif

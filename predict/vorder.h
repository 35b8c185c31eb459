/* vorder.h - internal to the value order (vorder.c builds it,
 * vorder_holds.c asks it about properties): the clocks, the critical
 * sections, and the lookups both sides use. */
#ifndef FORETELL_PREDICT_VORDER_H
#define FORETELL_PREDICT_VORDER_H

#include "predict/window.h"

#define VO_NONE UINT32_MAX

typedef struct vo_cs { /* an outermost critical section of a mutex */
    uint32_t lock, tid, acq, rel; /* rel VO_NONE: never released */
} vo_cs;

struct ft_value_order {
    const ft_ctm *c;
    uint32_t nt;
    uint32_t **vc, **rpos; /* per thread: rows of nt counts, from rpos */
    uint32_t *nrows, *caprows;
    uint64_t cells;
    vo_cs *cs; /* sorted by lock, thread, acquisition */
    size_t ncs;
    const ft_slice_index *ix; /* per object: ids by thread, position */
};

/* The mutex x acquires (*acq 1) or releases (*acq 0), or VO_NONE. */
uint32_t vo_lock_op(const ft_ctm *c, uint32_t x, int *acq);
/* The last section of (lock, t) acquired below position lim, or NULL. */
const vo_cs *vo_cs_before(const ft_value_order *v, uint32_t lock, uint32_t t,
                          uint32_t lim);
/* The section of (lock, t) that holds position q, or NULL. */
const vo_cs *vo_cs_at(const ft_value_order *v, uint32_t lock, uint32_t t,
                      uint32_t q);
/* Thread t's clock row in force at position p, NULL before its first. */
const uint32_t *vo_row_at(const ft_value_order *v, uint32_t t, uint32_t p);
/* How many of thread j's transitions must come before (or be) thread
 * t's transition at position p. */
uint32_t vo_before(const ft_value_order *v, uint32_t t, uint32_t p,
                   uint32_t j);

#endif

/* SPDX-License-Identifier: MIT */
/* kind_stuck.h - internal to the lost wake-up kind: the cut search's
 * state, shared by kind_stuck.c (the search over where each thread
 * stands, and the solver's goal) and kind_stuck_wake.c (the rules that
 * ask the value order what a notify must have woken). */
#ifndef FORETELL_PREDICT_KIND_STUCK_H
#define FORETELL_PREDICT_KIND_STUCK_H

#include "predict/kind.h"
#include "predict/vorder.h"

#define UNSTARTED UINT32_MAX
#define STUCK_HELD_BY_MANY (UINT32_MAX - 1)
#define CUT_BUDGET 2000000L
/* Condition operations looked at for the wake rule over all stops of one
 * property (past it the remaining stops have none: fewer refusals). */
#define WAKE_BUDGET 4000000L
/* The leaf's order rule's work over one property (stuck_ordered_at_leaf):
 * the transitions it looks at, and k*k*4 for each group of k standing
 * waits it orders (its answers are kept, so most leaves cost a few
 * lookups; past it, no claim). */
#define ORDER_BUDGET 4000000L

/* A semaphore's operations by thread: positions of posts and waits. */
typedef struct semops {
    uint32_t v;
    int known;    /* its one init precedes every other operation */
    int64_t base; /* the initial count */
    uint32_t **post, **wait, *npost, *nwait; /* per thread, increasing */
} semops;

typedef struct cuts {
    const ft_ctm *c;
    const ft_reduced *w;
    uint32_t **stop, *nstop; /* per thread: positions it may stop at */
    uint32_t *cut;           /* the combination being tried */
    uint32_t *at;            /* its stops' indices */
    uint32_t *order;         /* the threads in the order they are chosen */
    uint8_t **used;          /* NULL: stop at the first consistent one;
                                else per thread, the stops some
                                consistent combination has */
    semops *sem;             /* the semaphores waited on at stops */
    uint32_t nsem;
    long budget;
    const ft_value_order *vo; /* NULL: the rules below that need it off */
    uint32_t ***wake;         /* per thread, per stop: NULL, or per thread
                                 u the first position of a notify that
                                 would have woken the wait (wake_of) */
    long wake_budget;         /* condition operations wake_of looks at */
    long order_budget;        /* the order rule's work (ORDER_BUDGET) */
    struct order_memo *om;    /* its answers so far (kind_stuck_wake.c) */
    uint32_t *held_by;        /* per lock: the thread that holds it at
                                 some stop, VO_NONE none,
                                 STUCK_HELD_BY_MANY more than one */
} cuts;

static inline uint32_t stuck_held_at(const cuts *s, uint32_t t)
{
    uint32_t p = s->cut[t];
    if (p == UNSTARTED || p == 0)
        return 0;
    return s->w->held_after[ft_ctm_at(s->c, t, p - 1)];
}

/* ---- kind_stuck_wake.c ---- */
/* For thread t standing at position q, a condition wait: per thread u,
 * the first position of a notify that would have woken it (VO_NONE
 * none); NULL when none would or q is no such wait.  -1 out of memory
 * (*out NULL). */
int stuck_wake_of(cuts *s, uint32_t t, uint32_t q, uint32_t **out);
/* The cut of the thread chosen at depth d against those chosen before
 * it (with the value order only). */
int stuck_fits(const cuts *s, uint32_t d);
/* 1 when a notify that ran must have woken a thread the cuts leave at
 * a condition wait (the state is then not final). */
int stuck_woken_at_leaf(cuts *s);
/* 1 when no order of the sections of the condition waits the cuts leave
 * standing lets them all stay (a notify that ran after one began would
 * have woken a thread left standing). */
int stuck_ordered_at_leaf(cuts *s);
/* Frees what stuck_ordered_at_leaf kept over the search. */
void stuck_order_free(cuts *s);

#endif

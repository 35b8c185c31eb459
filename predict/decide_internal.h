/* SPDX-License-Identifier: MIT */
/* decide_internal.h - internal to decide.c and decide_witness.c: the
 * decider's state (the executor, the greedy scheduler, the reachability
 * marks) and the witness they cut from a violating run.  Split so that
 * the search and the witness each stay one file. */
#ifndef FORETELL_PREDICT_DECIDE_INTERNAL_H
#define FORETELL_PREDICT_DECIDE_INTERNAL_H

#include "predict/decide.h"
#include "predict/exec.h"
#include "predict/vorder.h"

#define DECIDE_NONE UINT32_MAX

/* Split points tried per region, remote holds per property. */
#define MAX_SPLITS 12
#define MAX_REMOTE 8
/* Steps a thread runs alone when released. */
#define RELEASE_STEPS 96
/* Steps of the other threads per candidate, beyond the regions' span. */
#define RUN_STEPS 4096
/* A witness whose cut is below this is written whole (prefix 0), so that
 * ft_presult_trim can cut it; above, its recorded prefix stays implicit. */
#define INLINE_PREFIX 20000

typedef struct cand {
    uint32_t k;    /* the cut: recorded ids below it run first */
    uint32_t prop; /* index into the batch */
    uint32_t hold; /* the thread held back from its position at k on */
} cand;

typedef struct blk {
    uint32_t t, obj;
} blk;

struct ft_decider {
    ft_ctm *c;
    const ft_value_order *vo;
    const ft_slice_index *ix;
    ft_exec *x;
    uint32_t base;     /* recorded ids below it have run in x */
    uint32_t base_bad; /* the first recorded id x could not run, or NONE */
    /* scheduler */
    uint32_t *heap, nheap;
    uint8_t *inheap;
    blk *blocked;
    uint32_t nblocked;
    uint32_t *steps;   /* the candidate's steps after the cut */
    uint32_t nsteps, capsteps;
    /* marks */
    uint32_t *oreach; /* per object: index of a reached step by class,
                         and the same by another thread than the region's
                         (8 per object), NONE */
    uint32_t *treach; /* per thread: last reached index */
    uint32_t *touched;
    uint32_t ntouched;
    uint8_t *unlocked; /* bit id: its thread holds no mutex or rwlock
                          before transition id (a place to hold it) */
    ft_decide_stats st;
    /* the candidate being tried; per property the best witness found
     * so far that is not yet good enough to stop at (spare_level 1: a
     * violation through synchronisation conflicts alone, 2: a data
     * violation in which every read returns its recorded value) */
    const ft_prop *cur;
    uint32_t cur_k, cur_s0, cur_i;
    ft_presult **spare;
    uint8_t *spare_level;
    uint8_t *gviol; /* ft_decide_opts.gviol during a run: a data
                       violation of an instance, kept as a spare, marks
                       its group too */
    int stop; /* the candidate has given what it can */
    double until; /* the search's end (0: none): a candidate's run stops
                     there too */
    int oom;
};

/* Fills res with the witness: the recorded run below cut k, then the
 * candidate's steps.  s0 is the regions' first transition (the
 * monitor's start).  0 ok, 1 the data reachability does not confirm the
 * violation, -1 out of memory. */
int ft_decide_witness(ft_decider *d, const ft_prop *p, uint32_t k,
                      uint32_t s0, int data, ft_presult *res);

#endif

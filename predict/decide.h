/* SPDX-License-Identifier: MIT */
/* decide.h - internal to predict/: the decisions made before any solver
 * call (decide.c; docs/prediction.md, "deciding without the solver").
 * A property kind plugs in with two things: a proof that it holds from
 * the value order (vorder_holds.c) and a monitor in the executor that
 * says when an executed prefix violates it (exec.c); the search that
 * moves one thread of the recorded run is the same for every kind. */
#ifndef FORETELL_PREDICT_DECIDE_H
#define FORETELL_PREDICT_DECIDE_H

#include "predict/window.h"

typedef struct ft_decider ft_decider;

typedef struct ft_decide_opts {
    int no_value_order; /* no "holds" from the value order (ablation) */
    int no_search;      /* no violation search (ablation) */
    double until;       /* CLOCK_MONOTONIC s: stop there (0: none) */
    int relaxed;        /* the search's executor follows the paper's data
                           rule (ft_exec_set_relaxed); its witnesses are
                           marked relaxed when they break the bound */
    ft_budget *budget;  /* progress (stage, then tries of the search)
                           and the command's bound, or NULL */
    const char *stage;
    uint8_t *gviol;     /* per static group (ft_prop.group, groups.c): a
                           violation is known; the search skips such
                           groups' instances and sets it when it violates
                           one (NULL: every instance is searched) */
} ft_decide_opts;

/* w: the trace's window index (value order, slicing index). */
ft_decider *ft_decider_new(ft_ctm *c, const ft_window_index *w);
void ft_decider_free(ft_decider *d);
const ft_decide_stats *ft_decider_stats(const ft_decider *d);

/* Decides what it can of props[0..n) not yet decided[]: fills res[i]
 * (holds, or violated with a witness) and sets decided[i].  Returns how
 * many it decided, -1 out of memory. */
long ft_decide_run(ft_decider *d, const ft_prop *props, size_t n,
                   const ft_decide_opts *o, ft_presult *res, uint8_t *decided);

#endif

/* SPDX-License-Identifier: MIT */
/* window.h - internal to predict/: how findav.c (one property on one
 * model) and window.c (the windows of a long trace) call each other. */
#ifndef FORETELL_PREDICT_WINDOW_H
#define FORETELL_PREDICT_WINDOW_H

#include "predict/predict.h"

double ft_predict_now(void);

/* Solves p on the reduced model r (a slice of c, a window of it, or c
 * itself), starting in state start (NULL: the program's start), with the
 * data-violation retry of the direct mode.  Fills res (verdict, witness
 * in c's ids, sizes); deadline 0 = none.  Returns the verdict. */
int ft_predict_model(ft_ctm *c, const ft_reduced *r,
                     const ft_smt_start *start, const ft_prop *p,
                     const ft_predict_opts *o, double deadline,
                     ft_presult *res);

/* Whether the first window of p (window transitions each side) already
 * covers the whole trace: then the whole slice is solved as before. */
int ft_window_covers_all(const ft_ctm *c, const ft_prop *p, uint32_t window);

/* Whether the value order in w proves p holds (and o allows it). */
int ft_window_value_holds(const ft_window_index *w, const ft_prop *p,
                          const ft_predict_opts *o);

/* The index's value order (NULL: too big to keep) and slicing index. */
typedef struct ft_value_order ft_value_order;
const ft_value_order *ft_window_index_vorder(const ft_window_index *w);
const ft_slice_index *ft_window_index_slice(const ft_window_index *w);

/* Fills res with the value order's verdict: holds, on the whole trace. */
void ft_presult_value_order(const ft_ctm *c, ft_presult *res);

/* The state the recorded prefix 0 .. k-1 of c leaves for the objects the
 * window model s touches (window_start.c): memory values into s's
 * variables, the rest into st (its arrays allocated here, freed by the
 * caller).  lo[j]: thread j's positions before k.  ix: c's slicing
 * index.  0, or -1 out of memory. */
int ft_window_start_state(const ft_ctm *c, const ft_slice_index *ix, uint32_t k,
                          const uint32_t *lo, ft_ctm *s, ft_smt_start *st);

/* Solves p on growing windows (w NULL: an index is built and freed). */
int ft_predict_windowed(ft_ctm *c, const ft_window_index *w, const ft_prop *p,
                        const ft_predict_opts *o, double deadline,
                        ft_presult *res);

/* The value order of c (vorder.c): a must-happen-before relation that
 * the data rule adds to program order, fork/join, mutual exclusion,
 * condition variables and semaphores.
 * ix (kept, not owned) lists each object's transitions.  NULL when out
 * of memory or too big to keep. */
ft_value_order *ft_value_order_new(const ft_ctm *c, const ft_slice_index *ix);
/* The same, given up (NULL) when until (ft_predict_now seconds, 0 none)
 * passes while it is built. */
ft_value_order *ft_value_order_new_until(const ft_ctm *c,
                                         const ft_slice_index *ix,
                                         double until);
void ft_value_order_free(ft_value_order *v);
/* The first position of thread t that must follow thread a's
 * transition at position q (len[t] if none). */
uint32_t ft_value_order_first_after(const ft_value_order *v, uint32_t t,
                                    uint32_t a, uint32_t q);
/* 1 when it proves that p holds (no feasible schedule violates it). */
int ft_value_order_holds(const ft_value_order *v, const ft_prop *p);

#endif

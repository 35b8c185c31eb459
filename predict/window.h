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

/* Solves p on growing windows (w NULL: an index is built and freed). */
int ft_predict_windowed(ft_ctm *c, const ft_window_index *w, const ft_prop *p,
                        const ft_predict_opts *o, double deadline,
                        ft_presult *res);

#endif

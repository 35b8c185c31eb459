/* SPDX-License-Identifier: MIT */
/* calib_order.h - which of the calibration run's shared variables another
 * schedule can reorder (calib_order.c), for SURW's choice of interesting
 * variables.  Internal to replay/: explore_calib.c feeds it the events. */
#ifndef FORETELL_CALIB_ORDER_H
#define FORETELL_CALIB_ORDER_H

#include "recorder/trace.h"

#include <stdint.h>

typedef struct fx_order fx_order;

fx_order *fx_order_new(void);
void fx_order_free(fx_order *o);

/* Every event of the run, in trace order.  key: the variable (or lock)
 * the event accesses (explore_calib.c's key of ev->addr), 0 when it names
 * none.  Returns -1 when out of memory (the filter then keeps every
 * variable). */
int fx_order_event(fx_order *o, const ft_event *ev, uint64_t key);

/* After the last event: 1 when the variable can be reordered usefully
 * (see calib_order.c), 1 also for keys it never saw and when it gave up
 * (too many threads or locks for its memory bound). */
int fx_order_keep(const fx_order *o, uint64_t key);

#endif

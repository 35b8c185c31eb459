/* SPDX-License-Identifier: MIT */
/* exec.h - internal to predict/: exact execution of a schedule prefix of
 * a CTM (exec.c) and the greedy search for violating schedules built on it
 * (decide.c).  The executor is a third implementation of the model's
 * semantics (docs/ctm.md; smt/ encodes them, tests/model/oracle.c
 * enumerates them) plus the data rule (docs/prediction.md, "data") and
 * the reachability that makes a prefix a violation; the tests check it
 * against the oracle.  Every change of state goes to a journal, so a
 * search can try a continuation and take it back. */
#ifndef FORETELL_PREDICT_EXEC_H
#define FORETELL_PREDICT_EXEC_H

#include "predict/predict.h"

typedef struct ft_exec ft_exec;

/* NULL when out of memory or when the per-thread state of condition
 * variables, rwlocks and barriers would pass 2^24 cells. */
ft_exec *ft_exec_new(const ft_ctm *c);
void ft_exec_free(ft_exec *x);
/* Back to the program's initial state, no property, journal empty. */
void ft_exec_reset(ft_exec *x);

/* The property whose regions' reads may return other values (their
 * thread is then tainted and may not go past the region) and whose
 * violation the monitor watches, from now on (reachability starts at the
 * region transitions executed after this call).  The monitor must be
 * clean: after ft_exec_reset, or after ft_exec_undo to a mark taken
 * before the previous property was set.  Journaled. */
void ft_exec_set_prop(ft_exec *x, const ft_prop *p);

enum ft_exec_why {
    FT_EXEC_OK = 0,
    FT_EXEC_NOT_NEXT,   /* not its thread's next transition */
    FT_EXEC_GUARD,      /* its synchronisation guard is false */
    FT_EXEC_VALUE,      /* a read outside the regions would not return
                           its recorded value */
    FT_EXEC_PAST,       /* a tainted region thread would leave its region */
    FT_EXEC_FROZEN,     /* its thread ended on a changed read */
    FT_EXEC_GLUED,      /* another thread's last step binds it to run on
                           (ft_ctm_binds): that one runs first */
};

/* The thread whose last step binds it to run on (ft_ctm_binds), so that
 * only it may run now, or UINT32_MAX. */
uint32_t ft_exec_glued(const ft_exec *x);
/* Relaxed: the paper's data rule (docs/prediction.md, the data
 * argument): a thread whose region read returned another value runs on
 * past the code that may depend on it, which the default refuses
 * (FT_EXEC_PAST); ft_exec_broke gives the first step of the executed
 * prefix that did so, or UINT32_MAX.  Not journaled: set it on a clean
 * executor. */
void ft_exec_set_relaxed(ft_exec *x, int relaxed);
uint32_t ft_exec_broke(const ft_exec *x);
/* Whether transition id can run now (enum ft_exec_why). */
int ft_exec_can(const ft_exec *x, uint32_t id);
/* Runs id if it can (returns FT_EXEC_OK) or says why not.  last_read: a
 * read outside the regions may return another value when it is its
 * thread's last step (the thread is frozen after it). */
int ft_exec_step(ft_exec *x, uint32_t id, int last_read);
/* The object a transition that cannot run waits for (a variable index,
 * or nvars + t for "thread t started or finished"). */
uint32_t ft_exec_waits_for(const ft_exec *x, uint32_t id);

/* Feeds the monitor transition id, which ran before the property was
 * set (the part of a recorded prefix after the regions began). */
void ft_exec_observe(ft_exec *x, uint32_t id);
/* Grows each time the monitor learns of a newly reached transition. */
uint64_t ft_exec_gen(const ft_exec *x);

/* Monitor: bit 0, the executed prefix violates the property (conflicts
 * of every kind); bit 1, with memory and fork/join conflicts only (a
 * data violation, the kind direct mode reports first). */
int ft_exec_violated(const ft_exec *x);
/* Whether a read in the regions has returned another value than it did
 * in the recorded run (its thread then computes something new). */
int ft_exec_changed(const ft_exec *x);
/* The transitions of the last violation found by kind (data: 1), the
 * region transition that completed it and the other thread's transition
 * it conflicts with (CA) or the two region transitions reached (CMA). */
void ft_exec_culprits(const ft_exec *x, int data, uint32_t out[2]);

/* Conflict classes of an access to an object: two accesses of one
 * object by different threads conflict unless both are reads (memory),
 * both read locks, or both semaphore posts (ft_ctm_conflict). */
enum { FT_K_READ = 0, FT_K_RDLOCK = 1, FT_K_POST = 2, FT_K_OTHER = 3 };
unsigned ft_exec_class(const ft_ctm *c, uint32_t id);
/* Whether an access of class k conflicts with one of the classes in
 * the bit set. */
int ft_exec_conflicts(unsigned k, unsigned set);

uint32_t ft_exec_pos(const ft_exec *x, uint32_t t);
/* The mutex and rwlock holds thread t has not released. */
uint32_t ft_exec_held(const ft_exec *x, uint32_t t);
/* The value memory variable v holds now. */
uint64_t ft_exec_value(const ft_exec *x, uint32_t v);
/* Whether thread t ended on a read of another value than it recorded
 * (outside the property's regions). */
int ft_exec_frozen(const ft_exec *x, uint32_t t);

/* Journal: ft_exec_undo(x, m) takes back everything after the matching
 * ft_exec_mark. */
size_t ft_exec_mark(const ft_exec *x);
void ft_exec_undo(ft_exec *x, size_t mark);
/* Forgets the journal: what ran so far can no longer be taken back. */
void ft_exec_commit(ft_exec *x);

/* ---- holding threads back in the recorded run (kind_order_search.c,
 * kind_race_search.c) ---- */

/* A run of an executor: the transitions it ran, in order; waiting, per
 * thread: could not run since the last step. */
typedef struct ft_hold_run {
    const ft_ctm *c;
    ft_exec *x;
    uint32_t *steps, n, cap;
    uint8_t *waiting;
} ft_hold_run;

/* A run over c (NULL members when out of memory: check x and waiting);
 * ft_hold_run_free frees what it holds. */
ft_hold_run ft_hold_run_new(const ft_ctm *c);
void ft_hold_run_free(ft_hold_run *s);
/* Appends id to s->steps: 0, -1 out of memory. */
int ft_hold_push(ft_hold_run *s, uint32_t id);
/* Resets s and runs the recorded prefix below k, the first transition
 * that lim (per thread: positions below it may run) holds back, and
 * below end.  *k is set.  1 ran, 0 the recording did not replay (cannot
 * happen: it is feasible), -1 out of memory. */
int ft_hold_prefix(ft_hold_run *s, const uint32_t *lim, uint32_t end,
                   uint32_t *k);
/* The greedy choice: of the threads not waiting, below their limit (pass:
 * a thread that may go past it, UINT32_MAX none), the one whose next
 * transition came first in the recording; UINT32_MAX if none. */
uint32_t ft_hold_pick(const ft_hold_run *s, const uint32_t *lim,
                      uint32_t pass);

#endif

/* SPDX-License-Identifier: MIT */
/* smt.h - the Z3 encoding of BEST stage iv (paper section VIII): a
 * quantifier-free formula over one (sliced, merged, MAT-reduced) CTM whose
 * models are exactly the feasible schedule prefixes that take context
 * switches only in CXT, plus the atomicity-violation conditions (NAV and
 * the direct reachability encoding) that predict/ conjoins with it.
 *
 * Every block of the reduced model gets an integer position; executed
 * blocks take positions 0 .. N-1 (N is a variable), so "block y directly
 * follows block x" is p(y) = p(x) + 1 and the CXT restriction is a
 * successor constraint.  docs/prediction.md gives every constraint, the
 * data rule and the argument that a representative of each equivalence
 * class of violating prefixes stays admitted.
 *
 * One ft_smt uses one Z3 context, taken from the calling thread
 * (smt/context.c) and given back by ft_smt_free: use one per worker
 * thread, and free it on the thread that built it. */
#ifndef FORETELL_SMT_H
#define FORETELL_SMT_H

#include "reduce/reduce.h"

#include <stdint.h>
#include <z3.h>

/* An e-transaction in block terms: blocks first_block .. last_block
 * (global block indices of r) of one thread, the shared transitions of
 * the region; read_free lets its reads return other values (they are the
 * violating accesses, docs/prediction.md "data"). */
typedef struct ft_smt_region {
    uint32_t thread;
    uint32_t first_block, last_block;
} ft_smt_region;

/* The state the model starts from when it is a window of a longer trace
 * whose earlier part runs first in its recorded order (predict/window.c):
 * locks held at the cut, semaphore counts, once objects already done.
 * Memory values need nothing here (the window model's variables carry
 * them as initial values); condition waits and barrier episodes are never
 * open at a cut.  NULL: the program's initial state. */
typedef struct ft_smt_hold {
    uint32_t obj, thread, depth; /* depth: nesting, or read holds */
    uint8_t read;                /* rwlock held for reading */
} ft_smt_hold;

typedef struct ft_smt_start {
    ft_smt_hold *holds;
    uint32_t nholds;
    uint32_t *sem_obj;
    int64_t *sem_count;
    uint32_t nsems;
    uint32_t *once_done;
    uint32_t nonce_done;
    uint32_t at; /* the cut: the recorded prefix is the whole model's
                    transitions 0 .. at-1 (what a witness runs first) */
} ft_smt_start;

typedef struct ft_smt_stats {
    uint64_t nblocks, nbool, nint, nassert; /* formula size */
    uint64_t nreads, nsections, nconflicts;
} ft_smt_stats;

enum { FT_SMT_DL_TACTIC = 1, FT_SMT_DL_CORE = 2 };

typedef struct ft_smt {
    Z3_context z;
    Z3_solver s;
    Z3_sort int_sort, bool_sort;
    const ft_reduced *r;
    const ft_ctm *c;
    uint32_t nb;
    Z3_ast *p;     /* per block: position */
    Z3_ast n;      /* number of executed blocks */
    Z3_ast *match; /* per block whose key reads memory: reads a certain
                      write of its recorded value (or the initial value) */
    uint8_t *in_region; /* per block: 1 / 2 in region 0 / 1 */
    ft_smt_region reg[2];
    uint32_t nreg;
    /* conflict edges between keys of different threads, CSR by block */
    uint32_t *dep_first, *dep;
    uint64_t ndep;
    ft_smt_stats st;
    unsigned flags;
    /* The straight-line bound (data.c): a violating read that returned
     * another value lets its thread run on only through the code that
     * runs whatever it returned.  Not asserted: predict/ asks for a
     * witness that obeys it first and takes one that does not (the
     * paper's rule) only when there is none.  NULL: nothing to bound. */
    Z3_ast strict;
    /* its parts: block strict_after[k] runs only if region read block
     * strict_read[k] returned its recorded value */
    uint32_t *strict_read, *strict_after, nstrict;
    const ft_smt_start *start; /* NULL: the initial state */
    int tainted; /* a check was interrupted or unknown: the context is
                    not reused */
    int late;    /* a check found a model as its deadline interrupted
                    it: ft_smt_check said unknown */
    int memout;  /* a check was interrupted for the memory it took
                    (smt/check.c) */
    /* s runs the difference-logic theory, which gives up ("incomplete")
     * on some formulas: ft_smt_check then asks the next solver.
     * FT_SMT_DL_CORE: the theory in the SMT core; FT_SMT_DL_TACTIC:
     * behind Z3's QF_IDL tactic; 0: the general solver. */
    int difflogic;
    unsigned timeout_ms;
    char err[160];
} ft_smt;

/* Builds the schedule formula for r with the regions of one property
 * (nreg 1 for CA, 2 for CMA).  timeout_ms 0 = none.  0 ok, -1 with
 * e->err set (out of memory, bad region). */
enum ft_smt_flags {
    FT_SMT_NO_CXT = 1, /* any context switch (ablation for bench/) */
    FT_SMT_DATA_DEPS = 2, /* the violation's conflict edges on memory and
                             fork/join only: violations made of data
                             conflicts (predict/ tries these first) */
};
int ft_smt_init(ft_smt *e, const ft_reduced *r, const ft_smt_region *reg,
                uint32_t nreg, unsigned timeout_ms, unsigned flags);
/* The same for a model that starts in state start (may be NULL). */
int ft_smt_init_at(ft_smt *e, const ft_reduced *r, const ft_smt_start *start,
                   const ft_smt_region *reg, uint32_t nreg,
                   unsigned timeout_ms, unsigned flags);
void ft_smt_free(ft_smt *e);
/* Z3_solver_check with a hard deadline (CLOCK_MONOTONIC seconds, 0 none):
 * the context is interrupted when it passes, wherever Z3 is (smt/check.c);
 * then Z3_L_UNDEF. */
Z3_lbool ft_smt_check(ft_smt *e, double deadline);
/* Z3's memory bound in MB (FORETELL_Z3_MEMORY, default 128; 0: none).
 * Z3 keeps it only where its search polls it: a check whose process
 * grows by more than FT_SMT_RSS_FACTOR times it is interrupted
 * (smt/check.c). */
unsigned long ft_smt_memory_mb(void);
#define FT_SMT_RSS_FACTOR 4u
/* "solver: WHY" for a check that returned Z3_L_UNDEF, with what to do
 * when WHY is Z3's memory bound. */
void ft_smt_unknown_reason(const ft_smt *e, char *buf, size_t len);
/* Sets e's solver's time limit (0: none) and its theory (difflogic). */
void ft_smt_set_params(ft_smt *e, unsigned timeout_ms);

/* The calling thread's kept Z3 context (with model generation, no error
 * handler), or a new one; NULL if Z3 could not make one.  give hands it
 * back: kept for the thread's next encoding if clean and still small,
 * else deleted (smt/context.c). */
Z3_context ft_smt_context_take(void);
void ft_smt_context_give(Z3_context z, int clean);

/* Whether the schedule order[0..n) of model m obeys the straight-line
 * bound (e->strict): 1 yes, 0 no, -1 out of memory. */
int ft_smt_prefix_obeys(ft_smt *e, Z3_model m, const uint32_t *order,
                        uint32_t n);

/* Helpers over the formula. */
Z3_ast ft_smt_exec(ft_smt *e, uint32_t b);       /* p(b) < N */
Z3_ast ft_smt_lt(ft_smt *e, uint32_t a, uint32_t b); /* p(a) < p(b) */
Z3_ast ft_smt_next(ft_smt *e, uint32_t a, uint32_t b); /* p(b) = p(a)+1 */
Z3_ast ft_smt_and(ft_smt *e, Z3_ast *v, unsigned n);
Z3_ast ft_smt_or(ft_smt *e, Z3_ast *v, unsigned n);
void ft_smt_assert(ft_smt *e, Z3_ast a);
Z3_ast ft_smt_bool(ft_smt *e, const char *prefix, uint32_t i);
Z3_ast ft_smt_int(ft_smt *e, const char *prefix, uint32_t i);

/* NAV (paper eqn. 1): some region has a context switch between two of
 * its consecutive i-transactions, both executed. */
Z3_ast ft_smt_nav(ft_smt *e);
/* The boundaries NAV looks at: blocks k of a region with k+1 in the
 * region and k ending an i-transaction; *out allocated. */
uint32_t ft_smt_boundaries(const ft_smt *e, uint32_t **out);

/* The direct violation condition: the executed prefix is not conflict-
 * serializable w.r.t. the region (CA, nreg 1) or the two regions are not
 * mutually serializable (CMA, nreg 2), by reachability over program
 * order and conflict edges (docs/prediction.md). */
Z3_ast ft_smt_violation(ft_smt *e);

/* ---- where a prefix leaves the threads (state.c), for the property
 * kinds that ask about the final state rather than an order of accesses
 * (predict/kind.h): blocks are e's, threads the model's. */

/* Thread t has begun: its fork ran (always, for a thread not forked in
 * the model). */
Z3_ast ft_smt_started(ft_smt *e, uint32_t t);
/* Thread t ran all its blocks (or has none and has begun). */
Z3_ast ft_smt_finished(ft_smt *e, uint32_t t);
/* Block b's thread stands at b: every earlier block of the thread ran,
 * and its reads returned their recorded values, b did not. */
Z3_ast ft_smt_at(ft_smt *e, uint32_t b);
/* Thread t holds lock (a mutex or rwlock variable) when the prefix ends;
 * write_only: only a write (exclusive) hold counts. */
Z3_ast ft_smt_holds_at_end(ft_smt *e, uint32_t t, uint32_t lock,
                           int write_only);
/* Block b's shared transition cannot run when the prefix ends and its
 * thread would wait for it (ft_ctm_blocking): a lock another thread
 * holds, a wait no executed notify woke, a join of an unfinished thread,
 * a semaphore at zero, a barrier generation not complete.  NULL when
 * the transition never waits that way. */
Z3_ast ft_smt_blocked_at_end(ft_smt *e, uint32_t b);
/* sync.c: the condition wait whose WAIT_PRE is block pre was woken by an
 * executed notify (NULL if pre is not a wait). */
Z3_ast ft_smt_woken(ft_smt *e, uint32_t pre);

/* Part of the encoding, by file. */
int ft_smt_encode_order(ft_smt *e);  /* order.c: positions, po, CXT, fork */
int ft_smt_encode_sync(ft_smt *e);   /* sync.c: locks, rwlocks, conds ... */
int ft_smt_encode_data(ft_smt *e);   /* data.c: reads from, data rule */
int ft_smt_build_deps(ft_smt *e);    /* viol.c: conflict edges */

/* Whether the keys of blocks a and b conflict (ft_ctm_conflict). */
int ft_smt_conflict_blocks(const ft_smt *e, uint32_t a, uint32_t b);

/* The model's schedule: executed blocks in position order into order[]
 * (nb entries), returns how many.  -1 if the model is unusable. */
long ft_smt_schedule(ft_smt *e, Z3_model m, uint32_t *order);

#endif

/* SPDX-License-Identifier: MIT */
/* internal.h - what the files of infer/ share and nobody else needs: how a
 * trace event maps to an access of an object, and the region-building
 * helpers that inference, annotations and spec functions have in common. */
#ifndef FORETELL_INFER_INTERNAL_H
#define FORETELL_INFER_INTERNAL_H

#include "infer/infer.h"

/* What one event does to one object, for conflicts and inference. */
typedef struct fi_access {
    uint8_t op;     /* enum fi_op */
    uint8_t data;   /* a plain data access (not synchronisation) */
    uint8_t hb;     /* happens-before transition: ends inferred regions */
    uint64_t key;   /* object address (READ/WRITE) or tid (FORK/JOIN) */
} fi_access;

void fi_classify(const fi_trace *t, const fi_event *e, fi_access *a);

/* Counts thread tid's access (a write or not) into x, whose accesses are
 * seen in trace order (seen: not its first). */
void fi_var_account(fi_var *x, uint32_t tid, int write, int seen);
/* Merges each group of data variables whose accesses overlap with
 * different extents into its first (infer/overlap.c).  0, -1 OOM. */
int fi_merge_overlaps(fi_analysis *a);
/* Splits each data variable at the frees of the heap block holding it
 * that fall between its accesses: one variable per lifetime
 * (infer/lifetimes.c).  0, or -1 out of memory. */
int fi_split_lifetimes(fi_analysis *a);

/* Adds a region [first, last] of thread tid; fills the rest later. */
int fi_add_region(fi_analysis *a, uint32_t tid, uint64_t first,
                  uint64_t last, unsigned source, uint32_t site);

/* Collects inferred, annotated and spec regions (infer/regions.c). */
int fi_collect_regions(fi_analysis *a);

/* Must happen-before clocks (infer/musthb.c): fork, join, and barriers
 * whose generations are fixed. */
typedef struct fi_mhb {
    uint32_t T;
    uint32_t *pos; /* per event: 1-based position in its thread */
    uint32_t *rtid, *rpos, *rclk; /* rows: thread, from position, clock */
    uint32_t nrows, caprows;
    uint32_t *first; /* T + 1: thread t's rows are order[first[t]..] */
    uint32_t *order;
} fi_mhb;

int fi_mhb_build(fi_mhb *m, const fi_trace *t);
void fi_mhb_free(fi_mhb *m);
/* Thread u's events that must precede thread t's event at position pos. */
uint32_t fi_mhb_before_count(const fi_mhb *m, uint32_t t, uint32_t pos,
                             uint32_t u);
/* The first position of thread u whose events must follow thread t's
 * event at tpos (in every run); UINT32_MAX if none must. */
uint32_t fi_mhb_first_after(const fi_mhb *m, uint32_t u, uint32_t t,
                            uint32_t tpos);
/* Event x must happen before event y (in every run). */
int fi_mhb_ordered(const fi_mhb *m, const fi_trace *t, uint64_t x,
                   uint64_t y);

/* solo[i] = 1 when event i is must-HB ordered with every event of every
 * other thread: each thread begun by then has finished before it (joined),
 * and threads forked later are forked after it.  Main's accesses before
 * its first fork and after its last join are solo; no lock need guard
 * them.  0 ok, -1 out of memory. */
int fi_mhb_solo(const fi_mhb *m, const fi_trace *t, uint8_t *solo);

/* Events grouped by variable (infer/conflict.c), each group by thread,
 * then trace order: acc[start[v] .. start[v + 1]) are v's accesses, wacc[wstart[v]
 * ..) only its writes (what a read can conflict with), facc[fstart[v] ..)
 * its failed tries (trylock, timedlock, sem_trywait).  The filtered lists
 * keep the scans short on hot objects: a lock taken 10^5 times has no
 * failed try to scan, a read-mostly variable few writes. */
typedef struct fi_by_var {
    uint32_t *start, *wstart, *fstart;
    uint64_t *acc, *wacc, *facc;
} fi_by_var;

int fi_by_var_build(const fi_analysis *a, fi_by_var *g);
/* Does an access (acc on variable v, UINT32_MAX if none) of thread tid
 * conflict with any event of another thread?  Fork and join always do. */
int fi_conflicts_outside(const fi_analysis *a, const fi_access *acc,
                         uint32_t v, uint32_t tid);
void fi_by_var_free(fi_by_var *g);
/* Lock and reduction proofs of open regions (infer/lockset.c), with the
 * trace's must-HB clocks and per-object lists: how many it proved, -1 out
 * of memory. */
long fi_prove_by_locks(fi_analysis *a, const fi_mhb *m, const fi_by_var *g);
/* Is one of list[lo, hi) (a group of fi_by_var: by thread, then
 * position) an event of another thread than r's that is not must-HB
 * ordered with r?  Exact, O(threads x log n). */
int fi_concurrent_in(const fi_analysis *a, const fi_mhb *m,
                     const fi_region *r, const uint64_t *list, uint32_t lo,
                     uint32_t hi);
/* Is e a failed try (trylock, timedlock, sem_trywait that failed)? */
int fi_failed_try(const fi_event *e);
/* Can r's access (op on v) conflict with another thread's access that is
 * not must-HB ordered with r? */
int fi_concurrent_conflict(const fi_analysis *a, const fi_mhb *m,
                           const fi_by_var *g, const fi_region *r, uint32_t v,
                           unsigned op);

/* 64-bit hash of a string (0 for NULL): function and file identity. */
uint64_t fi_str_id(const char *s);

#endif

/* SPDX-License-Identifier: MIT */
/* hapset.h - the internals of the HaPSet strategy (Wang, Said and Gupta,
 * "Coverage guided systematic concurrency testing", paper 002): DPOR
 * (Flanagan and Godefroid's backtracking, the paper's algorithms 2-3)
 * guided by history-aware predecessor sets learned continuously from the
 * good runs (algorithms 1, 4, 5).  Shared by strategy_hapset.c (the
 * search), hapset_run.c (a run read back from its decision log and trace)
 * and tests/explore/test_explore_hapset.c (the search on a model).
 *
 * A run is a sequence of blocks: what one thread executes between two
 * scheduling decisions (docs/explore.md, HaPSet).  A block holds events
 * (one statement each: code site and calling context) and each event the
 * objects it touches (accesses with an operation kind). */
#ifndef FORETELL_HAPSET_H
#define FORETELL_HAPSET_H

#include <stddef.h>
#include <stdint.h>

/* What an access does to its object. */
enum fh_op {
    FH_R,      /* memory read */
    FH_W,      /* memory write; also semaphores, barriers, once, heap blocks */
    FH_ACQ,    /* lock acquisition, exclusive (mutex, write lock) */
    FH_RACQ,   /* read-lock acquisition */
    FH_REL,    /* exclusive release */
    FH_RREL,   /* read-lock release */
    FH_WAIT,   /* condition wait (enters) */
    FH_NOTIFY, /* condition signal or broadcast */
    FH_WAKE,   /* condition wait returns (ordered after the notify) */
    FH_HB,     /* thread create, start, exit, join: ordering only */
    FH_NOPS
};

/* Object keys: the kind of object in the top byte, then its identity
 * (memory: the 8-byte word, addr >> 3). */
#define FH_OBJ(space, id) (((uint64_t)(space) << 56) | ((uint64_t)(id) & ((1ull << 56) - 1)))
enum { FH_SPACE_MEM, FH_SPACE_LOCK, FH_SPACE_COND, FH_SPACE_SYNC, FH_SPACE_THREAD };

#define FH_MAX_TID 64 /* thread sets are 64-bit masks: alternatives among 0..63 */

typedef struct fh_access {
    uint64_t obj;
    uint32_t ev;   /* the event (its statement) */
    uint32_t blk;  /* the block it belongs to */
    uint8_t op;    /* enum fh_op */
} fh_access;

/* A statement in the paper's sense (file, line, ctx; thr is derived from
 * the pair): the code site (module << 48 | offset) and a hash of the
 * innermost calls. */
typedef struct fh_event {
    uint64_t stmt, ctx;
} fh_event;

typedef struct fh_block {
    int tid;
    int64_t dec;          /* the decision it starts at, -1: none */
    uint32_t acc, nacc;   /* its accesses: acc[acc .. acc+nacc) */
} fh_block;

typedef struct fh_decision {
    uint64_t step;        /* decision point number, from 1 */
    uint64_t mark;        /* trace index of the block's first event */
    int cur, chosen;
    char kind;            /* p preemptible, y yield, b blocked */
    uint64_t enabled;     /* mask of enabled threads (tids < 64) */
} fh_decision;

typedef struct fh_run {
    fh_decision *dec;
    size_t ndec, capdec;
    fh_block *blk;
    size_t nblk, capblk;
    fh_access *acc;
    size_t nacc, capacc;
    fh_event *ev;
    size_t nev, capev;
    int nthreads;
    int64_t *creator;     /* creator[t]: the block that created t, or -1 */
    size_t capcreator;
    int oom;              /* an allocation failed: the run is unusable */
} fh_run;

/* ---- building a run (hapset_run.c) ---- */
void fh_run_init(fh_run *r);
void fh_run_free(fh_run *r);
void fh_run_decision(fh_run *r, const fh_decision *d);
/* Starts a block of tid at decision dec (-1: none); returns its index. */
uint32_t fh_run_block(fh_run *r, int tid, int64_t dec);
/* An event of statement (stmt, ctx); returns its index. */
uint32_t fh_run_event(fh_run *r, uint64_t stmt, uint64_t ctx);
/* Event ev touches obj in block blk. */
void fh_run_access(fh_run *r, uint32_t blk, uint32_t ev, uint64_t obj, int op);
void fh_run_created(fh_run *r, int child, uint32_t blk);
/* Orders the accesses by block (kept in event order within a block). */
int fh_run_finish(fh_run *r);

/* Reads a run: decisions from the log (may be NULL or missing: a run
 * without decisions, e.g. a random learning run) and events from the
 * trace.  ctx_depth: calls in a statement's context.  0, or -1 if the
 * trace cannot be read at all. */
int fh_run_read(fh_run *r, const char *log_path, const char *trace_path,
                int ctx_depth);

/* ---- the search (strategy_hapset.c) ---- */
typedef struct fh_search fh_search;
/* guide: prune with HaPSets (0: plain DPOR).  learn: learn from good
 * runs (continuous learning). */
fh_search *fh_search_new(int guide, int learn);
void fh_search_free(fh_search *s);
/* The next run's FORETELL_STRATEGY ("prefix" first, then
 * "prefix:at=S.T,..." replaying the stack up to a backtrack point): 1,
 * or 0 when no backtrack point is left (exhausted). */
int fh_search_next(fh_search *s, char *spec, size_t len);
/* The run of the last spec handed out: its decisions join the stack, its
 * races add backtrack points; learned from when good. */
void fh_search_feed(fh_search *s, const fh_run *r, int good);
/* Learning only (a good run of another strategy: algorithm 1). */
void fh_search_learn(fh_search *s, const fh_run *r);

typedef struct fh_stats {
    uint64_t runs, pairs, diverged, dropped;
} fh_stats;
void fh_search_stats(const fh_search *s, fh_stats *st);
/* 1 if the pair "b is immediately dependent upon a" was learned: a's
 * statement in HaPSet[b's], a_first: tid(a) < tid(b) (the paper's thr). */
int fh_search_has_pair(const fh_search *s, const fh_event *b,
                       const fh_event *a, int a_first);

#endif

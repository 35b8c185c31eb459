/* SPDX-License-Identifier: MIT */
/* ctm.h - the concurrent trace model (CTM, BEST stage i): threads, their
 * program-ordered transitions with guards and updates, variables and sync
 * objects, built from one recorded trace.
 *
 * We do not know the program's expressions, only observed values, so a
 * transition's guard and update are implied by its operation and recorded
 * values: a write writes its recorded value, a read is guarded by "reads the
 * recorded value" (or by nothing, in the relaxed mode the prediction stage
 * uses after a violation), a lock is guarded by "the mutex is free", and so
 * on (docs/ctm.md has the full table).  The model generalises the observed
 * run completely: every interleaving that respects program order, must
 * happen-before (fork/join) and these guards is a run of the model.
 *
 * Storage is struct-of-arrays indexed by a uint32 transition id, ids in
 * trace order; per-thread sequences are index arrays into those.  Memory is
 * about 50 bytes per transition and nothing is allocated per event. */
#ifndef FORETELL_CTM_H
#define FORETELL_CTM_H

#include "recorder/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Transition operations.  "obj" is the transition's var (an index into the
 * variable table); "obj2" its second object. */
enum ft_op {
    FT_OP_READ = 1,       /* guard obj == value */
    FT_OP_WRITE,          /* obj := value */
    FT_OP_RMW,            /* guard obj == value; obj := value2 (atomic RMW,
                             successful CAS) */
    FT_OP_LOCK,           /* guard mutex free or (recursive) owned by me;
                             value: how it was called (enum ft_lock_how:
                             ft_ctm_blocking says whether it waits) */
    FT_OP_LOCK_FAIL,      /* trylock/timedlock that failed: guard held by
                             another thread; no update */
    FT_OP_UNLOCK,         /* owner := none (or recursion count - 1) */
    FT_OP_RDLOCK,         /* guard no writer; readers + 1 (value: how) */
    FT_OP_WRLOCK,         /* guard no writer, no reader; writer := me
                             (value: how) */
    FT_OP_RWLOCK_FAIL,    /* try/timed rw lock that failed (value: 1 = wr) */
    FT_OP_RWUNLOCK,       /* releases my read or write hold */
    FT_OP_WAIT_PRE,       /* cond obj, mutex obj2: releases the mutex and
                             joins the cond's waiters */
    FT_OP_WAIT_POST,      /* guard notified (or value 1: timed out) and
                             mutex free; reacquires it */
    FT_OP_NOTIFY,         /* wakes at most one waiter; lost if none */
    FT_OP_NOTIFY_ALL,     /* wakes every waiter */
    FT_OP_SEM_INIT,       /* obj := value */
    FT_OP_SEM_POST,       /* obj + 1 */
    FT_OP_SEM_WAIT,       /* guard obj > 0; obj - 1 (value: how) */
    FT_OP_SEM_FAIL,       /* failed trywait/timedwait: guard obj == 0 */
    FT_OP_BARRIER_ARRIVE, /* obj: arrivals + 1; the N-th opens a generation */
    FT_OP_BARRIER_LEAVE,  /* guard my arrival's generation is open */
    FT_OP_ONCE_RUN,       /* guard once not started; started := 1 */
    FT_OP_ONCE_SKIP,      /* guard once done */
    FT_OP_ONCE_DONE,      /* done := 1 */
    FT_OP_FORK,           /* value = child tid; must-HB child's first */
    FT_OP_JOIN,           /* value = child tid; guard child finished */
    FT_OP_FREE,           /* obj: the heap object (its base address, kind
                             FT_VAR_HEAP) given back; value: its size */
    FT_OP_COUNT
};

/* Kinds of variables (interned by address and kind). */
enum ft_var_kind {
    FT_VAR_MEMORY = 0,
    FT_VAR_MUTEX,
    FT_VAR_RWLOCK,
    FT_VAR_COND,
    FT_VAR_SEM,
    FT_VAR_BARRIER,
    FT_VAR_ONCE,
    FT_VAR_HEAP,   /* a heap object, by its base address: only its frees
                      are transitions (accesses are to memory variables);
                      shared when another thread than the freeing one
                      accessed memory inside it */
};

typedef struct ft_ctm_var {
    uint64_t addr;
    uint64_t init;       /* sem initial value, barrier count, memory:
                            the value read before any write */
    uint32_t first_tid;  /* first thread that touched it */
    uint8_t kind;        /* enum ft_var_kind */
    uint8_t shared;      /* touched by two or more threads */
    uint8_t written;     /* some transition writes it (memory) */
    uint8_t mutex_type;  /* enum ft_mutex_type, from MUTEX_INIT */
    uint8_t has_init;    /* MUTEX/SEM/BARRIER_INIT seen; memory: init
                            known (first access was a read) */
    uint32_t size;       /* memory: bytes its first access covered (after
                            ft_ctm_finish: every access's, ctm/mixed.c) */
} ft_ctm_var;

#define FT_CTM_NONE UINT32_MAX

/* private: a free of a known heap object while building: the memory
 * [lo, hi) starts new variables from transition `at` on
 * (ctm/incarnation.c) */
typedef struct ft_ctm_freed {
    uint64_t lo, hi;
    uint32_t at;
} ft_ctm_freed;

/* The most variables a model holds (the interning table's key width). */
#define FT_CTM_MAX_VARS ((1u << 29) - 2)

/* private: a slot of the interning table: var + 1 (0 = empty) with the
 * kind in the top 3 bits, and a state word: the first touching thread in
 * the low 24 bits (or a mark once shared) and, for memory, whether the
 * variable was accessed and written yet, so a lookup reads one slot and
 * the variable itself is written only when one of those changes */
typedef struct ft_ctm_slot {
    uint64_t addr;
    uint32_t var1_kind;
    uint32_t state;
} ft_ctm_slot;

/* Where a site's machine code is, and how far straight-line code runs
 * from it (ft_site.straight, recorder/straight.c). */
typedef struct ft_ctm_code {
    uint64_t offset;
    uint32_t module;
    uint32_t straight; /* bytes + 1; 0 unknown */
} ft_ctm_code;

typedef struct ft_ctm {
    /* transitions, by id (trace order) */
    uint32_t ntrans;
    uint8_t *op;      /* enum ft_op */
    uint32_t *tid;
    uint32_t *pos;    /* position in its thread, from 0 */
    uint32_t *obj;    /* variable index, FT_CTM_NONE for fork/join */
    uint32_t *obj2;   /* cond wait: the mutex; else FT_CTM_NONE */
    uint64_t *value;  /* value read or written; child tid for fork/join */
    uint32_t *site;
    uint32_t *event;  /* index of the generating trace event (a model
                         holds fewer than 2^32 - 1 of them: ft_ctm_add) */
    /* The value an RMW writes, for RMW transitions only (ids increasing):
     * few transitions are RMWs, and a second value array cost 8 of the
     * model's ~62 bytes per event.  ft_ctm_value2 looks one up. */
    uint32_t *rmw_id;
    uint64_t *rmw_val;
    uint32_t nrmw, cap_rmw;
    /* Glued transitions, ids increasing: x and the next transition of its
     * thread ran as one step, no other thread between them (a read the
     * runtime recorded while the thread's write was still pending,
     * FT_READ_PAIRED: it cannot switch threads there, so neither may a
     * schedule of the model; docs/ctm.md).  ft_ctm_glued looks one up. */
    uint32_t *glue_id;
    uint32_t nglue, cap_glue;

    /* threads: thread t's transitions are by_thread[first[t] ..
     * first[t] + len[t]) */
    uint32_t nthreads;
    uint32_t *first;
    uint32_t *len;
    uint32_t *by_thread;
    uint32_t *parent;      /* forking thread, FT_CTM_NONE for roots */
    uint32_t *fork_trans;  /* the FORK transition creating t, or NONE */
    uint32_t *join_trans;  /* the first JOIN transition of t, or NONE */

    /* variables */
    uint32_t nvars;
    ft_ctm_var *vars;

    /* sites' code by site id - 1 (ft_ctm_set_code); a subset shares its
     * model's table (code_owned 0), so it must not outlive the model */
    ft_ctm_code *code;
    uint32_t ncode;
    uint8_t code_owned;

    /* trace figures (table IV of the paper) */
    uint64_t nevents;      /* events read from the trace */
    uint64_t nlocal_vars, nglobal_vars, nglobal_accesses;

    /* private: must-HB clocks (ft_ctm_hb_prepare): thread t's rows are
     * hb_first[t] .. + hb_count[t], row r applies from position hb_pos[r]
     * on and holds nthreads counts at hb_vc[r * nthreads] */
    uint32_t *hb_vc, *hb_first, *hb_count, *hb_pos;
    uint32_t hb_rows;

    /* private: the live heap objects while building (recorder/
     * heapmap.h), for the size of a FREE */
    struct ft_heapmap *heap;
    /* private: the frees seen while building, until ft_ctm_finish */
    ft_ctm_freed *frees;
    uint32_t nfrees, cap_frees;
    /* private: interning table */
    ft_ctm_slot *hash;
    uint32_t hash_cap;
    uint32_t cap_trans, cap_vars, cap_threads;
    /* private (ctm/mixed.c), while building: the accesses whose size is
     * not their variable's (ids increasing, with that size), and the
     * contents of wide accesses the split may need (ids increasing;
     * wide_at: offset in wide_bytes, FT_CTM_WIDE_UNIFORM set when one
     * byte stands for all) */
    uint32_t *size_id, *size_val;
    uint32_t nsize, cap_size;
    uint32_t *wide_id;
    uint64_t *wide_at;
    uint32_t nwide, cap_wide;
    uint8_t *wide_bytes;
    size_t nwide_bytes, cap_wide_bytes;
    uint64_t nmixed_split, nmixed_left; /* figures: accesses split, mixed
                                           groups left whole */
    uint8_t mixed_done; /* private: split already (a subset's model) */
    /* private: the last paired read while building, until its thread's
     * next transition (FT_CTM_NONE: none) */
    uint32_t pair_open;
    uint32_t prefaulted; /* transition arrays are faulted in below this */
} ft_ctm;

/* Builds the model from a trace.  Returns NULL with *err set (file, byte
 * offset, what) on a damaged trace or on events that contradict themselves
 * (unlock of a mutex never locked is fine; a tid beyond the limit is not). */
ft_ctm *ft_ctm_build(ft_reader *r, ft_error *err);
ft_ctm *ft_ctm_load(const char *path, ft_error *err);
void ft_ctm_free(ft_ctm *c);

/* Incremental construction from decoded events, for tests and importers:
 * ft_ctm_build is new + add for every event + finish. */
ft_ctm *ft_ctm_new(void);
/* 0 ok, -1 with msg filled (the event is invalid for the model). */
int ft_ctm_add(ft_ctm *c, const ft_event *ev, char *msg, size_t msglen);
/* Computes per-thread sequences and sharedness.  0 ok, -1 out of memory. */
int ft_ctm_finish(ft_ctm *c);

/* Gives the model its sites' code (sites[i].id == i + 1, as readers and
 * fi_trace keep them).  0 ok, -1 out of memory (the model then knows no
 * spans). */
int ft_ctm_set_code(ft_ctm *c, const ft_site *sites, uint32_t nsites);
/* Does transition y run whatever value the earlier read x of the same
 * thread returned: does y's site lie in the straight-line code that
 * follows x's site (no jump, branch or return between)?  1 yes, 0 no,
 * -1 not known (the trace has no spans for x: docs/prediction.md, the
 * data rule, says what then). */
int ft_ctm_runs_regardless(const ft_ctm *c, uint32_t x, uint32_t y);
/* Where the straight-line code after x's site ends (module offset),
 * UINT64_MAX when not known. */
uint64_t ft_ctm_straight_end(const ft_ctm *c, uint32_t x);

/* The first index of the increasing ids[0..n) whose id is not below x. */
static inline uint32_t ft_ctm_id_lower(const uint32_t *ids, uint32_t n,
                                       uint32_t x)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (ids[m] < x)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* What RMW transition x writes (0 if x is not an RMW). */
static inline uint64_t ft_ctm_value2(const ft_ctm *c, uint32_t x)
{
    uint32_t a = ft_ctm_id_lower(c->rmw_id, c->nrmw, x);
    return a < c->nrmw && c->rmw_id[a] == x ? c->rmw_val[a] : 0;
}

/* Whether x and the next transition of its thread run as one step (no
 * other thread between them: glue_id). */
static inline int ft_ctm_glued(const ft_ctm *c, uint32_t x)
{
    uint32_t a = ft_ctm_id_lower(c->glue_id, c->nglue, x);
    return a < c->nglue && c->glue_id[a] == x;
}

/* Whether x binds its thread to run on: x is glued and the chain of
 * glued transitions after it reaches a shared one (ft_ctm_is_shared, in
 * this model).  Then no other thread runs before that one.  A chain that
 * reaches only local transitions binds nothing: they commute with every
 * other thread's.  Defined after ft_ctm_is_shared (model.c). */
int ft_ctm_binds(const ft_ctm *c, uint32_t x);

/* The value a writing transition x leaves in memory. */
static inline uint64_t ft_ctm_written(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_RMW ? ft_ctm_value2(c, x) : c->value[x];
}

/* The id of thread t's transition at position p. */
static inline uint32_t ft_ctm_at(const ft_ctm *c, uint32_t t, uint32_t p)
{
    return c->by_thread[c->first[t] + p];
}

/* How many of thread t's positions hold a transition id below k (thread
 * t's ids grow with its position): a binary search. */
static inline uint32_t ft_ctm_pos_before(const ft_ctm *c, uint32_t t,
                                         uint32_t k)
{
    uint32_t a = 0, b = c->len[t];
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (ft_ctm_at(c, t, m) < k)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Whether transition x touches a shared variable or object (fork and join
 * always count as shared: they order threads). */
static inline int ft_ctm_is_shared(const ft_ctm *c, uint32_t x)
{
    if (c->obj[x] == FT_CTM_NONE)
        return 1; /* fork, join */
    if (c->vars[c->obj[x]].shared)
        return 1;
    return c->obj2[x] != FT_CTM_NONE && c->vars[c->obj2[x]].shared;
}

/* Dependence of transitions of different threads through a shared
 * object: same memory variable with at least one write, or sync
 * operations on the same object (docs/ctm.md lists the pairs). */
int ft_ctm_conflict(const ft_ctm *c, uint32_t x, uint32_t y);

/* Whether the thread of transition x would wait if x's guard were false
 * (a blocking lock, rwlock or semaphore call, a condition wait that was
 * notified, a barrier, a join), rather than return with an error (a try or
 * timed call) or read another value. */
int ft_ctm_blocking(const ft_ctm *c, uint32_t x);

/* Whether transition x writes its memory variable (WRITE, RMW). */
int ft_ctm_writes(const ft_ctm *c, uint32_t x);
/* Whether x reads its memory variable (READ, RMW). */
int ft_ctm_reads(const ft_ctm *c, uint32_t x);

const char *ft_op_name(unsigned op);

/* Must happen-before (program order plus fork/join, transitively): the
 * number of thread j's transitions that must precede transition x of
 * another thread in every run.  ft_ctm_hb_prepare computes the clocks
 * (O(threads^2) memory); 0 ok, -1 out of memory. */
int ft_ctm_hb_prepare(ft_ctm *c);
uint32_t ft_ctm_hb_before(const ft_ctm *c, uint32_t x, uint32_t j);
/* x must happen before y (x, y any transitions). */
int ft_ctm_must_hb(const ft_ctm *c, uint32_t x, uint32_t y);

/* private (the model and its passes): faults in the pages holding
 * elements [from, to) of an array of elem-byte elements in one system
 * call, where a page fault per page would cost more than the work done
 * on it; best effort (nothing happens where the kernel cannot). */
void ft_prefault(void *base, size_t elem, uint64_t from, uint64_t to);

/* A copy holding only the transitions with keep[id] != 0, in the same
 * order, with map[new id] = old id (map allocated, caller frees).
 * Variables keep their indices; sharedness is recomputed. */
ft_ctm *ft_ctm_subset(const ft_ctm *c, const uint8_t *keep, uint32_t **map);

/* private (ctm/incarnation.c): records a free of [lo, lo + size) while
 * building; at ft_ctm_finish, the accesses after each free to memory
 * inside it move to new variables (one per lifetime).  0, -1 on out of
 * memory. */
int ft_ctm_note_free(ft_ctm *c, uint64_t lo, uint64_t size);
/* private: a new variable (zeroed but for these fields) at the end of
 * c->vars, outside the interning table; FT_CTM_NONE past
 * FT_CTM_MAX_VARS or out of memory. */
uint32_t ft_ctm_append_var(ft_ctm *c, uint64_t addr, unsigned kind,
                           uint32_t tid);
int ft_ctm_split_incarnations(ft_ctm *c);
/* private (ctm/mixed.c): notes that access x has size s (bytes NULL),
 * or keeps a wide access's contents (uniform: bytes[0] fills the range);
 * 0, -1 out of memory. */
int ft_ctm_note_size(ft_ctm *c, uint32_t x, uint32_t s, const uint8_t *bytes,
                     uint32_t nbytes, int uniform);
/* private (ctm/mixed.c): the value of a wide access's contents, as the
 * model keeps it: up to 8 bytes their little-endian number, longer their
 * hash (uniform: bytes[0] repeated size times); 0 when not known. */
uint64_t ft_ctm_wide_value(const uint8_t *bytes, uint32_t nbytes, uint64_t size,
                           int uniform);
/* private (ctm/mixed.c): splits the variables whose accesses overlap with
 * different extents into one per byte range every access agrees on;
 * called by ft_ctm_finish before the incarnations.  0, -1 out of memory. */
int ft_ctm_split_mixed(ft_ctm *c);
/* private: grows the transition arrays to hold want transitions; 0, -1
 * out of memory. */
int ft_ctm_reserve_trans(ft_ctm *c, uint32_t want);
/* private: variable v's sharedness, writes and initial value from its
 * accesses, given in trace order (seen[v] 0 before the first). */
void ft_ctm_account(ft_ctm *c, uint32_t v, uint32_t x, uint8_t *seen);
#define FT_CTM_WIDE_UNIFORM (1ull << 63)

/* The memory variables sorted by address, as pairs (address, variable)
 * in a malloc'd array of 2 * *n words (a free's range looked up: the use
 * after free kind, heap sharedness); NULL on out of memory. */
uint64_t *ft_ctm_mem_by_addr(const ft_ctm *c, uint32_t *n);
/* The first pair of mem[0..n) at or after address addr. */
uint32_t ft_ctm_mem_lower(const uint64_t *mem, uint32_t n, uint64_t addr);

#endif

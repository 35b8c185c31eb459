/* SPDX-License-Identifier: MIT */
/* reduce.h - BEST stage ii: shrink the interleaving space of a CTM without
 * losing any feasible behaviour (docs/reduction.md has the algorithms and
 * their soundness arguments).
 *
 *   merging     local transitions join the next shared one of their
 *               thread: "blocks", the transitions the solver sees;
 *   lockset/HB  context switches that no feasible run can take (the two
 *               sides hold a common lock, or fork/join orders them);
 *   MAT         mutually atomic transaction pairs for every pair of
 *               threads; their end-to-begin switches form CXT(CTM), the
 *               only switches a representative of every equivalence class
 *               of runs needs; i-transactions cut each thread at them;
 *   slicing     per property: keep the property transitions and what they
 *               depend on, then merge and run MAT again on the slice.
 *
 * A context switch (i, k) -> (j, l) means: thread i has just executed its
 * block k and thread j executes its block l next.  Switches away from a
 * thread that has executed its last block are forced, always allowed, and
 * not listed. */
#ifndef FORETELL_REDUCE_H
#define FORETELL_REDUCE_H

#include "ctm/ctm.h"

#include <stdint.h>

typedef struct ft_cxt {
    uint32_t from_thread, from_block, to_thread, to_block;
    uint32_t from_trans; /* last transition of the from block (ctm id) */
    uint32_t to_trans;   /* first transition of the to block */
} ft_cxt;

/* A mutually atomic transaction pair: blocks [a_first, a_last] of thread
 * a and [b_first, b_last] of thread b (a_last/b_last = block count - 1 and
 * conflict = 0 when the pair runs both threads to their ends). */
typedef struct ft_mat {
    uint32_t a, b;
    uint32_t a_first, a_last, b_first, b_last;
    int conflict;
} ft_mat;

/* An i-transaction of a thread: blocks [first_block, last_block], i.e.
 * transitions at positions [first_pos, last_pos] of the thread. */
typedef struct ft_itrans {
    uint32_t thread, first_block, last_block, first_pos, last_pos;
} ft_itrans;

typedef struct ft_reduce_stats {
    uint64_t trans_before_merge, trans_after_merge;
    /* context switches between blocks of different threads, switches
     * from a thread's last block excluded */
    uint64_t cs_total;
    uint64_t cs_lockset_hb; /* UINT64_MAX: not counted (too many pairs) */
    uint64_t cs_mat;
    uint64_t nmats;
    int mat_abandoned; /* MAT went over ft_mat_max_states: see below */
} ft_reduce_stats;

/* GenMAT visits up to one state per pair of blocks of two threads, so on
 * long traces where most blocks conflict it is quadratic in time and
 * memory.  Past 2^20 states (all thread pairs together) ft_reduce_mat
 * gives up, soundly: no CXT is kept (ncxt = 0, stats.cs_mat = UINT64_MAX),
 * ft_cxt_allowed falls back to ft_switch_feasible, every block is its own
 * i-transaction (nothing is proved atomic by MAT), and the encoder allows
 * every lockset/HB-feasible switch.  Slices are small and rarely hit it. */
extern uint64_t ft_mat_max_states;

enum ft_reduce_flags {
    /* MAT: treat a dependent pair whose joint state is unreachable by
     * lockset or must-HB as independent (the paper's "skip unreachable"). */
    FT_REDUCE_SKIP_UNREACHABLE = 1,
    /* Skip counting lockset/HB-feasible switches (quadratic). */
    FT_REDUCE_NO_COUNT = 2,
    /* n > 2 threads: plain union of the pairwise MATs, without the
     * third-thread dependences; unsound (kept to show why, in tests). */
    FT_REDUCE_NAIVE_UNION = 4,
    /* Stop after merging and locksets (the linear passes). */
    FT_REDUCE_NO_MAT = 8,
    /* MAT: count the mutually atomic pairs (stats.nmats, nmats) without
     * keeping their list (mats stays NULL).  Only `analyze --mats` prints
     * the list; the analysis needs the CXT alone, and on 10^6 events the
     * list was 29 MB at the analysis's peak (issue 16). */
    FT_REDUCE_NO_MAT_LIST = 16,
};

typedef struct ft_reduced {
    const ft_ctm *ctm; /* the model reduced */
    ft_ctm *owned;     /* set when the reduced owns ctm (slices) */
    uint32_t *orig;    /* slices: ctm id -> id in the sliced-from model */

    /* blocks: thread t's blocks are bfirst[t] .. bfirst[t] + bcount[t];
     * block b covers positions bstart[b] .. bend[b] of its thread and has
     * at most one shared transition, bkey[b] (FT_CTM_NONE if none) */
    uint32_t nblocks;
    uint32_t *bfirst, *bcount, *bstart, *bend, *bkey;
    uint32_t *block_of; /* transition id -> global block index */

    /* locksets (lockset/HB pass): id of the set held after each
     * transition; 0 is the empty set */
    uint32_t *held_after;
    uint32_t *ls_first, *ls_len, *ls_pool; /* entries: lock << 1 | read */
    uint32_t nls, ls_cap, pool_len, pool_cap;
    uint32_t *ls_hash;
    uint32_t ls_hash_cap;

    ft_mat *mats;
    uint32_t nmats, cap_mats;
    ft_cxt *cxt; /* sorted (from_thread, from_block, to_thread, to_block) */
    uint32_t ncxt, cap_cxt;
    ft_itrans *itrans; /* by thread, then position */
    uint32_t nitrans;
    uint32_t *it_first; /* thread t's i-transactions start here */

    ft_reduce_stats stats;
} ft_reduced;

/* Runs merging, lockset/HB and MAT on c (which must outlive the result;
 * ft_ctm_hb_prepare is called on it).  NULL on out of memory. */
ft_reduced *ft_reduce(ft_ctm *c, unsigned flags);
void ft_reduced_free(ft_reduced *r);
/* Frees the i-transactions (itrans = it_first = NULL, nitrans = 0) once
 * they have been turned into proofs: nothing after needs them, and on
 * 10^6 events they are 20 MB through the whole prediction (issue 16). */
void ft_reduced_drop_itrans(ft_reduced *r);

/* Property-preserving slice of c for the property transitions prop[0..n)
 * (ctm ids), merged and MAT-reduced.  The result owns the sliced model;
 * r->orig maps its transition ids back to c's.  NULL on out of memory or
 * a property id out of range. */
ft_reduced *ft_reduce_slice(ft_ctm *c, const uint32_t *prop, uint32_t n,
                            unsigned flags);
/* The slice's membership alone: keep[id] = 1 for transitions of c in the
 * slice of prop (keep has c->ntrans entries).  0 ok, -1 bad id / OOM. */
int ft_slice_mark(ft_ctm *c, const uint32_t *prop, uint32_t n, uint8_t *keep);

/* Windowed slicing (slice.c): the same closure restricted to positions
 * lo[t] .. hi[t] of each thread, for prediction on a window of a long
 * trace (predict/window.c) where everything before lo is fixed.  The
 * index (per object, the transitions touching it by thread and
 * position) makes one closure cost its window, not the trace. */
typedef struct ft_slice_index {
    uint32_t nslots;        /* variables, then one per thread (fork/join) */
    uint32_t *all_first, *all; /* CSR by slot: ids by (thread, position) */
    uint32_t *wr_first, *wr;   /* the same, memory writes only */
} ft_slice_index;
ft_slice_index *ft_slice_index_new(const ft_ctm *c);
void ft_slice_index_free(ft_slice_index *ix);
/* In list[a, b) (one of the index's lists: by thread, then position),
 * one past the last entry of thread j at a position below hi. */
uint32_t ft_slice_upper(const ft_ctm *c, const uint32_t *list, uint32_t a,
                        uint32_t b, uint32_t j, uint32_t hi);
/* cut[t] (in: unused; out): thread t keeps positions lo[t] .. cut[t]-1.
 * prop ids must lie inside the window.  0 ok, -1 bad id or OOM, 1 when
 * the slice passes max transitions (0: no limit; cut is then partial):
 * a window too big to solve costs max steps, not its whole closure. */
int ft_slice_mark_window(ft_ctm *c, const ft_slice_index *ix,
                         const uint32_t *prop, uint32_t n, const uint32_t *lo,
                         const uint32_t *hi, uint32_t *cut, uint64_t max);

/* Individual passes (ft_reduce runs them in this order). */
int ft_reduce_merge(ft_reduced *r);
int ft_reduce_locksets(ft_reduced *r);
int ft_reduce_mat(ft_reduced *r, unsigned flags);

/* The global block index of transition x (r->block_of[x]). */
static inline uint32_t ft_block_of(const ft_reduced *r, uint32_t x)
{
    return r->block_of[x];
}

/* The thread block b belongs to (a keyless block has no transition to
 * ask): the last thread whose blocks start at or before b. */
static inline uint32_t ft_block_thread(const ft_reduced *r, uint32_t b)
{
    uint32_t a = 0, z = r->ctm->nthreads;
    while (z - a > 1) {
        uint32_t m = a + (z - a) / 2;
        if (r->bfirst[m] <= b)
            a = m;
        else
            z = m;
    }
    return a;
}

/* Whether block b must be followed directly by b + 1 of its thread in
 * any schedule: the transitions from b's last one up to b + 1's shared
 * one are glued (ft_ctm_glued), no other thread runs between them.  A
 * chain that stops at a local transition before the key constrains no
 * block (locals commute; the key may have to wait: ctm.h ft_ctm_binds);
 * a property about such a local times it at the glued step
 * (kind_uaf.c). */
int ft_block_glued(const ft_reduced *r, uint32_t b);
/* Whether the switch (i, k) -> (j, l) is in CXT; switches from a
 * thread's last block are always allowed. */
int ft_cxt_allowed(const ft_reduced *r, uint32_t i, uint32_t k, uint32_t j,
                   uint32_t l);

/* Lockset/HB: whether the switch (i, k) -> (j, l) can occur in some
 * feasible run (0 when the lockset or must-HB relation rules it out). */
int ft_switch_feasible(const ft_reduced *r, uint32_t i, uint32_t k,
                       uint32_t j, uint32_t l);

/* Whether block pair (a at ka, b at kb) can both be next at once. */
int ft_blocks_coreachable(const ft_reduced *r, uint32_t a, uint32_t ka,
                          uint32_t b, uint32_t kb);

/* Whether blocks ka of a and kb of b are dependent. */
int ft_blocks_dependent(const ft_reduced *r, uint32_t a, uint32_t ka,
                        uint32_t b, uint32_t kb);

/* Counts the lockset/HB-feasible switches when there are at most budget
 * block pairs to test; UINT64_MAX otherwise. */
uint64_t ft_count_feasible_switches(const ft_reduced *r, uint64_t budget);

#endif

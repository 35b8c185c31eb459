/* SPDX-License-Identifier: MIT */
/* hapset_internal.h - the search state shared by hapset_search.c (the
 * stack, the HaPSet, next prefix) and hapset_analyze.c (a run replayed
 * over that state: learning and guided backtracking). */
#ifndef FORETELL_HAPSET_INTERNAL_H
#define FORETELL_HAPSET_INTERNAL_H

#include "replay/hapset.h"

/* HaPSet[dependent statement] contains predecessor statement: an event of
 * (ds, dc) was immediately dependent upon one of (ps, pc); pred_first:
 * the predecessor's thread had the lower id (the paper's thr bits). */
typedef struct hp_pair {
    uint64_t ds, dc, ps, pc;
    uint8_t pred_first;
} hp_pair;

/* One decision state of the DPOR stack (algorithm 2's s). */
typedef struct hp_state {
    uint64_t full;       /* enabled threads as logged */
    uint64_t alt;        /* those that may be chosen here */
    uint64_t backtrack, done;
    int cur, sel;        /* who ran into the state, who runs from it */
    char kind;
} hp_state;

struct fh_search {
    int guide, learn;
    hp_pair *tab;
    unsigned char *used;
    size_t cap, npairs;
    hp_state *st;
    size_t nst, capst;
    int started;
    uint64_t runs, diverged, dropped;
};

int hp_has(const fh_search *s, const hp_pair *p);
void hp_add(fh_search *s, const hp_pair *p);
/* Replays run r over the search state: learns from it when learn, adds
 * backtrack points when backtrack. */
void hp_analyze(fh_search *s, const fh_run *r, int learn, int backtrack);

#endif

/* SPDX-License-Identifier: MIT */
/* vorder.h - internal to the value order (vorder.c builds it,
 * vorder_holds.c asks it about properties): the clocks, the critical
 * sections, and the lookups both sides use. */
#ifndef FORETELL_PREDICT_VORDER_H
#define FORETELL_PREDICT_VORDER_H

#include "predict/window.h"

#define VO_NONE UINT32_MAX

typedef struct vo_cs { /* an outermost critical section of a mutex or
                         rwlock */
    uint32_t lock, tid, acq, rel; /* rel VO_NONE: never released */
    uint32_t excl;   /* 1: a mutex or write hold; 0: a read hold */
    uint32_t last_excl; /* index in cs of the latest exclusive section
                           of (lock, tid) up to this one, or VO_NONE */
} vo_cs;

struct ft_value_order {
    const ft_ctm *c;
    uint32_t nt;
    uint32_t **vc, **rpos; /* per thread: rows of nt counts, from rpos */
    uint32_t *nrows, *caprows;
    uint64_t cells;
    vo_cs *cs; /* sorted by lock, thread, acquisition */
    size_t ncs;
    const ft_slice_index *ix; /* per object: ids by thread, position */
    struct vo_write *w;       /* every write by (obj, val, tid, id); NULL
                                 (nw 0) when the trace has no condition
                                 wait, the one rule that asks */
    size_t nw;
    uint8_t *rmw; /* per variable: some write of it is no plain write */
};

/* A transition on an object, sorted by (obj, val, tid, id): a write and
 * its value, a notify (val 0), a semaphore operation (val its op). */
typedef struct vo_write {
    uint32_t obj, id, tid;
    uint64_t val;
} vo_write;
void vo_writes_sort(vo_write *w, size_t n);
/* The first of w[0, n) at or after (obj, val, tid, id). */
size_t vo_write_lower(const vo_write *w, size_t n, uint32_t obj,
                      uint64_t val, uint32_t tid, uint32_t id);

/* The mutex or rwlock x acquires (*acq 1) or releases (*acq 0), or
 * VO_NONE.  An acquisition is exclusive unless it is a read lock. */
uint32_t vo_lock_op(const ft_ctm *c, uint32_t x, int *acq);
/* Adds to locks[0, n) the locks thread t holds as it reaches position
 * p that it took in its last VO_ENTRY_WALK transitions, at most
 * VO_MAX_HELD, none twice (locks has room for them); returns the new
 * count.  A region whose lock was taken in the function that called it
 * (a `possess(lock)` before the region's `twist`, pigz's yarn.c) still
 * sits in one section of it. */
#define VO_ENTRY_WALK 512u
#define VO_MAX_HELD 4u
uint32_t vo_add_held_on_entry(const ft_value_order *v, uint32_t t, uint32_t p,
                              uint32_t *locks, uint32_t n);
/* The last section of (lock, t) acquired below position lim, or NULL. */
const vo_cs *vo_cs_before(const ft_value_order *v, uint32_t lock, uint32_t t,
                          uint32_t lim);
/* The last section of (lock, t) acquired below lim that excludes a
 * section of mode excl (any section when excl, else an exclusive one). */
const vo_cs *vo_cs_excluding(const ft_value_order *v, uint32_t lock,
                             uint32_t t, uint32_t lim, int excl);
/* The section of (lock, t) that holds position q, or NULL. */
const vo_cs *vo_cs_at(const ft_value_order *v, uint32_t lock, uint32_t t,
                      uint32_t q);
/* Thread t's clock row in force at position p, NULL before its first. */
const uint32_t *vo_row_at(const ft_value_order *v, uint32_t t, uint32_t p);
/* Joins into clock cl what thread t's transition at position p must
 * follow, and that transition; returns whether cl grew. */
int vo_join_at(const ft_value_order *v, uint32_t *cl, uint32_t t,
               uint32_t p);
/* How many of thread j's transitions must come before (or be) thread
 * t's transition at position p. */
uint32_t vo_before(const ft_value_order *v, uint32_t t, uint32_t p,
                   uint32_t j);

/* Region g's free read, as the value order sees it (vo_free_of): rg is
 * the position of g's first read that may return another value than
 * recorded (the data rule leaves a region's reads free) and whose rule
 * added to its thread's clock, g->last + 1 when none; taken is g's first
 * position past rg where another thread may take in g's thread by an
 * edge that holds whatever rg returned, g->last + 1 when none.  The
 * clocks assumed every read returned its value, so a row that rests on
 * rg must not be used for a property of g. */
typedef struct vo_free {
    const ft_pregion *g;
    uint32_t rg, taken;
} vo_free;
void vo_free_of(const ft_value_order *v, const ft_pregion *g, vo_free *f);
/* vo_before(v, t, p, j) from a row that does not rest on f's free read:
 * g's thread's row at rg for later positions; 0 for another thread's
 * row that took g's thread in at or past f->taken. */
uint32_t vo_before_clean(const ft_value_order *v, uint32_t t, uint32_t p,
                         uint32_t j, const vo_free *f);

/* ---- vorder_ca.c: CA pair by pair ---- */
/* 1 when no path of conflicts through other threads can leave region
 * fr->g and come back into it (vorder_ca.c's comment has the argument);
 * fr: the region's free read (vo_free_of). */
int vo_ca_pairs_hold(const ft_value_order *v, const vo_free *fr);
/* The objects transition y touches that another thread can share, with
 * whether any access to them conflicts (else only writes): at most 2. */
int vo_objects_of(const ft_ctm *c, uint32_t y, uint32_t *obj, int *all);

/* ---- vorder_sem.c: semaphore counting ---- */
typedef struct vo_sems vo_sems;
vo_sems *vo_sems_new(const ft_ctm *c);
void vo_sems_free(vo_sems *s);
/* What successful semaphore wait x needs, given its clock cl: the posts
 * that must come before it, joined into out (x's clock).  Returns
 * whether out grew. */
int vo_sem_rule(const ft_value_order *v, const vo_sems *s, uint32_t x,
                const uint32_t *cl, uint32_t *out);

#endif

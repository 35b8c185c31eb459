/* SPDX-License-Identifier: MIT */
/* strategy_period.h - Period (Wen et al., ICSE'22, paper 003): the schedule
 * generator, schedule prefixes and the job list of the feedback analyser,
 * exposed for the tests; the driver strategy is fx_strategy_period
 * (explore.h).  Thread t here is the runtime's tid t: main is t0, the
 * threads it creates t1, t2, ... in creation order.  The paper's slices
 * list the worker threads only: main's count stays 0 (never chosen, free
 * in the last period) unless the program has fewer than two workers.
 *
 * A schedule is a series of periods, each one thread's and a number of its
 * key points; the threads of a dynamic key-point slice that it does not
 * name (the neglected ones) run in its last period. */
#ifndef FORETELL_STRATEGY_PERIOD_H
#define FORETELL_STRATEGY_PERIOD_H

#include <stddef.h>
#include <stdint.h>

#define FX_PERIOD_MAX 32     /* periods in a schedule: --periods at most */
#define FX_PERIOD_THREADS 64 /* threads a slice tracks (later ones run free) */

/* A dynamic key-point slice: key points per thread. */
typedef struct fx_pslice {
    int n;
    uint64_t k[FX_PERIOD_THREADS];
} fx_pslice;

typedef struct fx_pschedule {
    int np;
    int thr[FX_PERIOD_MAX];
    uint64_t cnt[FX_PERIOD_MAX];
} fx_pschedule;

/* A prefix: nlit periods kept literally (thread and count), then npat
 * pattern periods (thread only, any count): the paper's
 * {t×c}...{t×c}[t]...[t]. */
typedef struct fx_pprefix {
    int nlit, npat;
    int thr[FX_PERIOD_MAX];
    uint64_t cnt[FX_PERIOD_MAX];
} fx_pprefix;

/* The generator of the p-period schedules of a slice satisfying a prefix,
 * in the paper's order: thread combinations of 1..min(p, n) threads in
 * quasi-lexicographic order (by size, then lexicographically), for each
 * the serialised patterns in lexicographic order (adjacent periods of
 * different threads, every chosen thread present, no more periods of a
 * thread than its key points), for each the allocations of every chosen
 * thread's key points, exactly, one at least per period, in descending
 * lexicographic order of the counts (the remaining key points go to the
 * earliest periods first, as in the paper's example). */
typedef struct fx_pgen {
    fx_pslice s;
    fx_pprefix pfx;
    int p;
    int state;
    int m, nel, el[FX_PERIOD_THREADS];     /* combination: m of el[] */
    int comb[FX_PERIOD_MAX];               /* indexes into el[] */
    int fresh;                             /* patterns not started */
    int cpos[FX_PERIOD_MAX], pat[FX_PERIOD_MAX];
    int use[FX_PERIOD_THREADS];            /* periods per thread so far */
    uint64_t lit[FX_PERIOD_THREADS];       /* literal key points per thread */
    uint64_t cnt[FX_PERIOD_MAX];
} fx_pgen;

void fx_pgen_init(fx_pgen *g, const fx_pslice *s, int p, const fx_pprefix *pfx);
/* The next schedule into out: 1, or 0 when there is none left. */
int fx_pgen_next(fx_pgen *g, fx_pschedule *out);

/* 1 if s satisfies pfx. */
int fx_pprefix_match(const fx_pprefix *pfx, const fx_pschedule *s);
/* The prefix the feedback analyser gives the slice cur's run found: cur's
 * periods before the one holding the first key point where cur differs
 * from prev (both expanded with their slices' neglected threads in their
 * last periods), literally, then that key point's thread as a pattern.
 * prev NULL: the empty schedule. */
void fx_pprefix_of(const fx_pschedule *cur, const fx_pslice *cur_s,
                   const fx_pschedule *prev, const fx_pslice *prev_s,
                   fx_pprefix *out);
/* The common prefix of a and b: equal literal periods stay literal; from
 * the first difference on, periods of the same thread become patterns;
 * it ends at the first period whose threads differ. */
void fx_pprefix_common(const fx_pprefix *a, const fx_pprefix *b, fx_pprefix *out);
/* "{t0x4}{t1x2}[t0]" (for tests and messages). */
void fx_pprefix_str(const fx_pprefix *pfx, char *buf, size_t len);

/* ---- the exploration (strategy_period.c) ---- */
typedef struct fx_period fx_period;
/* nthreads: the calibration run's, main included; max_p: the bound P;
 * with_main: main is a thread of the slices. */
fx_period *fx_period_new(int nthreads, int max_p, int with_main);
void fx_period_free(fx_period *x);
/* The next schedule (algorithm 1): 0 when every job is done or P passed.
 * *p gets its period count. */
int fx_period_next(fx_period *x, fx_pschedule *s, int *p);
/* The slice the run of the last schedule handed out activated (NULL: the
 * run reported none): a new job, or a wider prefix for an existing one. */
void fx_period_feed(fx_period *x, const fx_pslice *seen);
/* Jobs so far (done ones included) and job i's slice and prefix. */
size_t fx_period_njobs(const fx_period *x);
const fx_pslice *fx_period_job(const fx_period *x, size_t i, fx_pprefix *pfx,
                               int *done);
/* FORETELL_STRATEGY for s: "period:p=T.C,..." (runtime tids). */
int fx_period_spec(const fx_pschedule *s, char *buf, size_t len);
/* Reads a run's slice from its FORETELL_EXPLORE_LOG; 0, or -1. */
int fx_period_read_log(const char *path, fx_pslice *out);

#endif

/* SPDX-License-Identifier: MIT */
/* explore.h - schedule exploration (`foretell explore`): runs a program
 * many times, each run under one schedule chosen by a strategy, and
 * reports the distinct failures found, each saved with its trace and a
 * schedule that replays it.
 *
 * Strategies (docs/explore.md):
 *   random  uniform random walk at every key point   (in-process, seeded)
 *   pct     PCT, depth d                              (in-process, seeded)
 *   rpro    RPro, depth d, radius r [, deadlock]      (in-process, seeded)
 *   pctvb   PCT with variable + thread bounding       (driver picks the
 *           variables and change points, the runtime applies them)
 *   icb     iterative preemption bounding             (stateful, driver)
 *   idb     iterative delay bounding                  (stateful, driver)
 *   period  Period: periods, slices, prefixes         (stateful, driver)
 *   hapset  DPOR guided by HaPSets, learning          (stateful, driver)
 *   dpor    the same DPOR without HaPSets (baseline)  (stateful, driver)
 *   pos     partial order sampling                    (in-process, seeded)
 *   surw    selectively uniform random walk           (driver picks the
 *           interesting variables and their counts by thread, the
 *           runtime walks)
 * The in-process halves are recorder/rt/policy_explore.c, policy_prefix.c,
 * policy_period.c, policy_pos.c and policy_surw.c; FORETELL_STRATEGY carries each run's plan.
 *
 * Ownership: replay/explore*.c, replay/strategy_*.c. */
#ifndef FORETELL_EXPLORE_H
#define FORETELL_EXPLORE_H

#include "replay/replay.h"

#include <stdint.h>

#define FX_MAX_BUGS 64
#define FX_SPEC_MAX 8192
/* Key points a run may take by default (--max-run-events): about 200 MB
 * of trace; a run still going then is a livelock or longer than this. */
#define FX_DEFAULT_MAX_RUN_EVENTS 20000000ull

typedef struct fx_opts {
    char *const *argv;      /* program and arguments */
    const char *strategy;   /* a name from the list above */
    uint64_t budget;        /* schedules to run at most (0: no bound) */
    double time_s;          /* wall-clock bound of the whole exploration,
                               runs in flight included (0: none) */
    uint64_t seed;          /* base seed: run i uses seed + i */
    int jobs;               /* runs at once (seeded strategies only) */
    int all;                /* keep going after the first bug */
    const char *outdir;     /* where bugs are saved (created) */
    int depth;              /* bug depth d (0: strategy default) */
    uint64_t radius;        /* rpro radius (0: default 10) */
    int vars;               /* pctvb variable bound (0: default 1) */
    int deadlock;           /* rpro: count lock acquisitions only */
    int bound;              /* icb/idb: largest bound (0: default 3) */
    int periods;            /* period: the period bound P (0: default 6) */
    int ctx_depth;          /* hapset: calls in a statement's context (5) */
    uint64_t learn_runs;    /* hapset: random learning runs first (0) */
    double run_timeout_s;   /* a run without progress for this long is
                               hung (key points or CPU time; a run that
                               progresses is bounded by max_run_events) */
    uint64_t max_run_events; /* key points of one run (FORETELL_MAX_STEPS):
                               a run reaching it is a hang (0: none) */
    /* Failures a rule covers are not bugs: not saved, not counted, and
     * without --all the exploration goes on (predict.h; NULL none). */
    struct ft_suppressions *suppressions;
    /* Called after every run (progress line), may be NULL. */
    void (*progress)(void *arg, uint64_t runs, int bugs, double seconds);
    void *progress_arg;
} fx_opts;

void fx_opts_default(fx_opts *o);

typedef struct fx_bug {
    int failure;            /* enum fr_failure */
    char site[256];         /* where (file:line or module+0xoff) */
    char detail[512];
    uint64_t schedule_no;   /* which run found it, from 1 */
    char spec[512];         /* the run's FORETELL_STRATEGY (truncated) */
    char trace[512];        /* saved trace */
    char schedule[512];     /* saved schedule file */
    uint64_t hang_steps;    /* a hang at the bound on key points: the
                               bound (replay it with --max-steps) */
} fx_bug;

typedef struct fx_result {
    uint64_t runs;          /* schedules run */
    int failed;             /* foretell itself failed after runs were made
                               (error says what); the bugs stay valid */
    char error[700];
    uint64_t first_bug;     /* schedules up to the first bug, 0 if none */
    int nbugs;
    fx_bug bugs[FX_MAX_BUGS];
    uint64_t suppressed;    /* distinct failures a suppression covered */
    uint64_t suppressed_runs; /* runs that ended in one of them */
    double seconds;
    uint64_t n_est, k_est;  /* threads and key points of the calibration */
    uint64_t shared_vars;   /* variables two or more threads touched in it */
    uint64_t reorderable;   /* of those, the ones surw may choose */
    int exhausted;          /* a systematic strategy ran out of schedules */
    int cut_calibration;    /* --time ran out in the first run */
    int write_errno;        /* the error came from a failed write (a run's
                               trace, a saved bug): the errno; exit 4 */
} fx_result;

/* Runs the exploration.  0 when it ran (res says what it found, and
 * res->failed whether foretell failed after some runs: res->write_errno
 * when a write failed, a full disk under TMPDIR or the output directory),
 * or one of these with err set: */
enum {
    FX_ERR_INPUT = -1,      /* bad input: unknown strategy, a program not
                               built with foretell-cc */
    FX_ERR_SYSTEM = -2,     /* foretell or the system failed before any
                               result: /dev/null, the work directory, a
                               run that cannot start, a runtime refusal,
                               a write (res->write_errno) */
    FX_ERR_NOT_FOUND = -3,  /* the program is not there */
};
int fx_explore(const fx_opts *o, fx_result *res, ft_error *err);

/* Whether the running exploration's --time is up: strategies whose work
 * between runs may be long (HaPSet/DPOR analysis) stop it there. */
int fx_time_up(void);

/* 1 if name is a strategy fx_explore knows. */
int fx_strategy_known(const char *name);
const char *fx_failure_name(int failure);

/* ---- between the driver and the strategies ---- */

/* What the calibration run (strategy none) measured. */
typedef struct fx_calib {
    uint64_t threads, events, locks;
    /* pctvb: shared variables, "g<mod>.<hexoff>" or "h<mod>.<hexoff>",
     * with their access counts. */
    char (*var)[48];
    uint64_t *var_count;
    uint64_t nvars;
    /* surw: the variables two or more threads touched, atomics included
     * (what policy_surw.c sees), that another schedule can reorder
     * (calib_order.c), each with its accesses by thread: the pairs
     * sv_tid/sv_count[sv_first[i] .. sv_first[i+1]).  sv_shared: how many
     * were shared before that filter. */
    char (*svar)[48];
    uint64_t nsvars, sv_shared;
    uint64_t *sv_first;
    uint32_t *sv_tid;
    uint64_t *sv_count;
    uint64_t *thread_events; /* events by thread id (threads entries) */
} fx_calib;

int fx_calibrate(const char *trace, fx_calib *c, ft_error *err);
void fx_calib_free(fx_calib *c);

/* A strategy: next() writes run i's FORETELL_STRATEGY into spec and
 * returns 1, or 0 when it has nothing left to run; done() hears how a run
 * ended and reads its decision log (stateful strategies; NULL for the
 * seeded ones). */
typedef struct fx_strategy {
    const char *name;
    int parallel;           /* runs independent of each other */
    int wants_log;          /* runs write FORETELL_EXPLORE_LOG */
    void *(*init)(const fx_opts *o, const fx_calib *c);
    int (*next)(void *st, uint64_t i, char *spec, size_t len);
    void (*done)(void *st, const char *spec, const char *log_path);
    void (*fini)(void *st);
    /* Called instead of done() when set (done may then be NULL): also
     * the run's trace (still in the work directory) and its failure
     * (enum fr_failure), for strategies that learn from good runs. */
    void (*done_trace)(void *st, const char *spec, const char *log_path,
                       const char *trace_path, int failure);
} fx_strategy;

extern const fx_strategy fx_strategy_random, fx_strategy_pct,
    fx_strategy_rpro, fx_strategy_pctvb, fx_strategy_icb, fx_strategy_idb;
extern const fx_strategy fx_strategy_period; /* strategy_period.c */
extern const fx_strategy fx_strategy_hapset, fx_strategy_dpor; /* strategy_hapset.c */
extern const fx_strategy fx_strategy_pos;  /* strategy_pos.c */
extern const fx_strategy fx_strategy_surw; /* strategy_surw.c */
extern const fx_strategy fx_strategy_surwsym; /* strategy_surwsym.c */

/* The seed of run i of a seeded strategy from the base seed X: X * phi + i
 * (phi the 64-bit golden ratio), so that X = 0 gives 0, 1, 2, ... and two
 * base seeds share no run within 2^61 runs (X + i made --seed 2 repeat
 * all but one of --seed 1's runs). */
static inline uint64_t fx_run_seed(uint64_t base, uint64_t i)
{
    return base * 0x9e3779b97f4a7c15ull + i;
}
/* strategy_surw.c: run seed's FORETELL_STRATEGY: vars of c's shared
 * variables (atomics included) and each thread's count of accesses to
 * them; 0 when it does not fit in len.  surw draws the variables
 * uniformly; sym (surw-sym) draws those after the first by how much
 * their threads overlap the chosen ones'.  fx_surw_draw_vars is that
 * draw (indices into c's svar, at most 16; returns how many);
 * fx_surw_init and fx_surw_next are both strategies' init and next, and
 * surw-sym's next asks the runtime for the draw over classes of threads
 * (g=1) in every other run. */
int fx_surw_spec(const fx_calib *c, int vars, int sym, uint64_t seed,
                 char *spec, size_t len);
int fx_surw_draw_vars(const fx_calib *c, uint64_t seed, int vars, int sym,
                      uint64_t *chosen);
void *fx_surw_init(const fx_opts *o, const fx_calib *c);
int fx_surw_next(void *st, uint64_t i, int sym, char *spec, size_t len);

/* ---- strategy_bounded.c: the ICB/IDB enumeration, exposed for tests ---- */

typedef struct fx_decision {
    uint64_t step;
    int cur, chosen;
    char kind;              /* 'p' preemptible, 'y' yield, 'b' blocked */
    int n;
    int enabled[16];        /* first 16 enabled threads */
    uint64_t enabled_mask;  /* every enabled thread below 64 */
    uint64_t mark;          /* "@M": trace index of the next event */
    int has_mark;           /* older logs have no mark */
} fx_decision;

typedef struct fx_bounded fx_bounded;
/* delay: 0 = preemption bounding (ICB), 1 = delay bounding (IDB). */
fx_bounded *fx_bounded_new(int delay, int max_bound);
void fx_bounded_free(fx_bounded *b);
/* The next prefix as "prefix[:at=S.T,...]"; 0 when every schedule
 * within max_bound was run.  *bound gets its cost. */
int fx_bounded_next(fx_bounded *b, char *spec, size_t len, int *bound);
/* The decisions of the run of the last prefix handed out. */
void fx_bounded_feed(fx_bounded *b, const fx_decision *d, uint64_t n);
/* Parses a FORETELL_EXPLORE_LOG file; malloc'd array, count in *n. */
fx_decision *fx_read_log(const char *path, uint64_t *n);

/* ---- explore_run.c: one run of the program ---- */
/* What every run of an exploration shares. */
typedef struct fx_launch {
    char *const *argv;      /* program and arguments */
    int devnull;            /* the program's stdin, stdout and stderr */
    uint64_t max_events;    /* key points a run may take (0: no bound) */
} fx_launch;

typedef struct fx_child {
    int pid;
    int report;             /* the status channel's read end (ft_report_open,
                               one per run: refusals, write errors), -1 */
    double start;
    char trace[512], log[512], spec[FX_SPEC_MAX];
    fr_progress prog;       /* the runtime's progress page (fr_progress_open
                               by the driver, one per slot): presence and
                               progress while the run goes */
    double term_at;         /* when SIGTERM was sent, 0 not yet */
    int hung;               /* stopped for want of progress */
    int cut;                /* stopped because the exploration's time is
                               up: no outcome */
    int started;            /* the runtime started in the program */
    uint64_t max_events;    /* the run's bound on key points */
    int refused;            /* the runtime refused the run (a "refuse" line
                               on the status channel and that exit status):
                               the status */
    char why[1024];         /* and its reason */
} fx_child;

/* Starts one run; -1 with err set when it cannot be started (the system:
 * spawn failed). */
int fx_child_start(fx_child *c, const fx_launch *l, const char *spec,
                   int with_log, ft_error *err);
/* 1 when the run ended (out filled from its status and trace), 0 while
 * it runs.  A run that made no progress (key points or CPU time, from the
 * progress page) for stall_s seconds is hung: stopped (SIGTERM, so that its
 * trace ends cleanly, then SIGKILL) and reported as FR_HANG.  At deadline
 * (fx_now() clock, 0: none) it is stopped and c->cut set. */
int fx_child_poll(fx_child *c, double stall_s, double deadline,
                  fr_outcome *out);
double fx_now(void);
/* explore_suppress.c: 1 when a rule of s covers the failure the
 * (symbolised) trace ended in: the failing thread's last site and its
 * call sites, every blocked or live thread's for a deadlock or hang. */
int fx_failure_suppressed(const char *trace, int failure,
                          struct ft_suppressions *s);

/* Fills out->site (and tid, events) from a failed run's trace: the last
 * site of the signalled thread, or of every live thread for a deadlock or
 * hang. */
void fx_failure_site(const char *trace, int failure, fr_outcome *out);
/* Classifies a failed run again from its (now symbolised) trace, for
 * file:line sites in the report; out keeps its failure kind. */
void fx_reclassify(const char *trace, fr_outcome *out);

/* ---- explore_save.c ---- */
/* Writes the schedule of a run (fr_schedule_from_trace: its thread
 * switches) to path, note in its property line; -1 with err set
 * (err->offset UINT64_MAX when writing path failed).  The signal that
 * stopped a hung run (hung nonzero) is no step of it. */
int fx_schedule_from_trace(const char *trace, const char *path,
                           const char *note, int hung, ft_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* predict.h - BEST stage iv (paper section VIII, algorithm FindAV): for
 * each CA or CMA property, find a feasible schedule of the recorded run
 * that violates it or prove that none exists, and write it as a schedule
 * file the replay harness consumes (docs/schedule-format.md).
 *
 * A property names its e-transactions by thread and transition positions
 * in the CTM; ft_pregion_from_events maps an infer/ region (trace event
 * indices) to that form.  Each property is sliced, merged and MAT-reduced
 * (reduce/), encoded (smt/) and solved in its own Z3 context, so
 * ft_predict_run can solve properties on several threads.
 * docs/prediction.md has the semantics and the soundness arguments. */
#ifndef FORETELL_PREDICT_H
#define FORETELL_PREDICT_H

#include "ctm/ctm.h"
#include "reduce/reduce.h"
#include "smt/smt.h"

#include <stdint.h>
#include <stdio.h>

/* CA and CMA are BEST's (findav.c); the others are the property kinds of
 * predict/kind.h, one file each. */
enum ft_prop_kind {
    FT_PROP_CA = 0,
    FT_PROP_CMA = 1,
    FT_PROP_DEADLOCK,  /* a cycle of threads each waiting for a lock the
                          next holds (kind_deadlock.c) */
    FT_PROP_STUCK,     /* every thread finished or waiting for good, one
                          at a given wait: lost wake-ups (kind_stuck.c) */
    FT_PROP_ORDER,     /* a read from another write than it read from:
                          order violations (kind_order.c) */
    FT_PROP_NULL,      /* a pointer read that reads NULL and is then
                          dereferenced (kind_order.c) */
    FT_PROP_UAF,       /* an access after another thread's free of the
                          object (kind_uaf.c) */
    FT_PROP_RACE,      /* two conflicting accesses that can run at once:
                          data races (kind_race.c) */
    FT_PROP_NKINDS
};

#define FT_PROP_MAX_TGT 8

/* An e-transaction: positions first .. last (inclusive) of a thread. */
typedef struct ft_pregion {
    uint32_t thread, first, last;
} ft_pregion;

/* One per property (10^5 on a long trace): ordered for no padding. */
typedef struct ft_prop {
    uint32_t id;      /* the caller's number, echoed in reports */
    uint32_t group;   /* the static property (same sites, same bug) */
    /* The other kinds (kind.h): a kind's own datum, and the transitions
     * the property is about. */
    uint64_t aux;
    ft_pregion r[2];  /* r[1] only for CMA */
    uint32_t tgt[FT_PROP_MAX_TGT];
    uint8_t kind;     /* enum ft_prop_kind */
    uint8_t ntgt;
} ft_prop;

/* The transitions of thread tid whose trace events lie in [first_event,
 * last_event] (infer/'s fi_region).  0 ok, -1 if there are none. */
int ft_pregion_from_events(const ft_ctm *c, uint32_t tid, uint64_t first_event,
                           uint64_t last_event, ft_pregion *out);

enum ft_predict_mode {
    FT_PREDICT_DIRECT = 0, /* one SMT call: sched and violation (default) */
    FT_PREDICT_FINDAV = 1, /* the paper's loop: NAV, is_serializable, cls */
};

typedef struct ft_predict_opts {
    int mode;              /* enum ft_predict_mode */
    unsigned timeout_ms;   /* per property, 0 = none (default
                              FT_PREDICT_TIMEOUT_MS) */
    unsigned jobs;         /* worker threads, 0 or 1 = sequential */
    unsigned reduce_flags; /* passed to ft_reduce_slice */
    int no_slice;          /* solve on the whole model (ablation) */
    int no_cxt;            /* allow every context switch (ablation) */
    uint32_t max_iterations; /* FindAV, 0 = unbounded */
    /* Windows (window.c, docs/prediction.md "windows"): when the trace is
     * longer than the first window, a property is solved on the
     * transitions from `window` before its first region transition to
     * `window` after its last, everything earlier fixed in its recorded
     * order; a window that shows no violation is widened 4x until it
     * covers the trace (then "holds" is proved) or its slice has more
     * than window_max_trans transitions (then the verdict is unknown,
     * window_holds set).  window 0: always the whole trace. */
    uint32_t window;
    uint32_t window_max_trans;
    int use_cxt; /* direct mode: 1 the CXT restriction (an
                    ablation: it can lose violations,
                    docs/prediction.md), else none */
    /* The whole analysis's time (ft_pipeline_predict, `analyze --time`):
     * ms for all properties, 0 = none.  A property's own limit is cut
     * to what is left; properties not started when it is spent are
     * unknown ("not solved"). */
    unsigned total_ms;
    /* Windows only: no "holds" from the value order (predict/vorder.c,
     * docs/prediction.md "value order"): for ablation, and set by the
     * pipeline once it has asked the value order itself. */
    int no_value_order;
    /* No violation search before the solver (decide.c; ablation). */
    int no_search;
    /* ft_pipeline_predict: solve every dynamic instance of a static CA or
     * CMA property (ft_prop.group), also once another instance of it is
     * violated; by default those are left (ft_presult.covered). */
    int every_instance;
    double until;          /* set from total_ms: CLOCK_MONOTONIC s, 0 none */
    /* the other kinds' first pass: every candidate with this timeout
     * (ms), then those that reached it with timeout_ms (kinds.c);
     * 0: 2500 */
    unsigned kind_first_ms;
} ft_predict_opts;

/* The default time limit per property, in ms (--timeout). */
#define FT_PREDICT_TIMEOUT_MS 10000u
void ft_predict_opts_default(ft_predict_opts *o);

enum ft_verdict {
    FT_HOLDS = 0,     /* unsat: no feasible violating schedule */
    FT_VIOLATED = 1,  /* sat: steps hold a witness */
    FT_UNKNOWN = 2,   /* time limit or solver gave up: see reason */
    FT_ERROR = 3,     /* bad property or out of memory: see reason */
    FT_SUPPRESSED = 4,/* violated, but a suppression rule covers it
                         (ft_pipeline_suppress): neither reported nor
                         replayed */
};

/* One step of a witness: a transition of the CTM given to
 * ft_predict_run; mark = 1 for the violating accesses. */
typedef struct ft_step {
    uint32_t trans;
    uint8_t mark;
    uint8_t with_next; /* runs with its thread's next step, no other
                          thread between (glued: a race's step) */
    uint16_t run;      /* packed steps only (ft_presult.packed): `run`
                          more steps follow this one, the recorded
                          transitions trans+1 .. trans+run, unmarked and
                          unglued */
} ft_step;

/* Reads a witness's steps in order, packed or not. */
typedef struct ft_step_iter {
    const ft_step *at;
    uint32_t left; /* steps still to read */
    uint32_t off;  /* of at's run, already read */
    int packed;
} ft_step_iter;

static inline void ft_steps_begin(ft_step_iter *it, const ft_step *s,
                                  uint32_t n, int packed)
{
    it->at = s;
    it->left = n;
    it->off = 0;
    it->packed = packed;
}

/* The next step (it->left must be positive). */
static inline ft_step ft_steps_next(ft_step_iter *it)
{
    ft_step st = *it->at;
    it->left--;
    if (!it->packed) {
        it->at++;
        return st;
    }
    if (it->off > 0)
        st = (ft_step){st.trans + it->off, 0, 0, 0};
    if (it->off == it->at->run) {
        it->at++;
        it->off = 0;
    } else {
        it->off++;
    }
    st.run = 0;
    return st;
}

/* One property's result.  One per property, and a long trace has 10^5
 * of them, most decided without the solver: the fields are as narrow as
 * what they hold (96 bytes; 448 until the reason became a pointer, 200
 * until the flags became bytes and the solver figures 32 bits, 112 until
 * the times became single precision, 104 until the flags became bits). */
typedef struct ft_presult {
    /* why (unknown, error, or how it was decided without the solver):
     * set by ft_presult_why, read by ft_presult_reason; a constant format
     * is pointed to, a formatted one owned (reason_owned). */
    const char *reason;
    ft_step *steps;        /* the witness prefix, up to the violation */
    ft_step *alt_steps;    /* after ft_presult_trim: the witness trimmed
                              keeping the writes the violating reads read
                              (NULL when that is steps) */
    uint32_t *vars;        /* CTM variables of the violating accesses */
    /* slicing, encoding and solving; single precision is a microsecond
     * up to 8 s, a millisecond up to 2 hours */
    float seconds;
    float solve_seconds;
    uint32_t nsteps, nalt_steps, nvars;
    uint32_t iterations;   /* SMT checks made */
    /* the model solved and the formula's size (smt's nblocks, nassert,
     * saturated at UINT32_MAX) */
    uint32_t slice_trans, slice_blocks, slice_cxt;
    uint32_t size_blocks, size_asserts;
    /* Windows: the last model solved was transitions window_first ..
     * window_end-1 (CTM ids, i.e. recorded order) sliced; window_first
     * 0 and window_end ntrans when the whole trace was solved.  A
     * violation's witness is the recorded run's first `prefix`
     * transitions (ids 0 .. prefix-1, in that order) followed by steps.
     * window_holds: no violation in the window, the whole trace not
     * solved (verdict unknown). */
    uint32_t window_first, window_end, prefix;
    uint32_t windows;      /* windows solved (0: the smallest was over
                              window_max_trans, nothing solved) */
    int8_t verdict;        /* enum ft_verdict */
    /* one bit each */
    uint8_t reason_owned : 1;
    uint8_t special_case : 1; /* single-variable all-read/all-write regions */
    uint8_t relaxed : 1;   /* no witness obeys the straight-line bound:
                              in this one a violating read that returned
                              another value has its thread run on past
                              code that may depend on it (the paper's
                              rule; docs/prediction.md, the data
                              argument), so its replay may diverge */
    uint8_t not_solved : 1; /* FT_UNKNOWN: never taken up (--time,
                              --stop-after); counted in nskipped */
    uint8_t covered : 1;   /* FT_UNKNOWN, not solved: another dynamic
                              instance of its static property (same
                              ft_prop.group) was violated first */
    uint8_t sync_only : 1; /* the violation is made of synchronisation
                              conflicts alone (no data violation exists
                              in direct mode) */
    uint8_t window_holds : 1;
    uint8_t trimmed : 1;   /* ft_presult_trim ran: again, it does nothing */
    uint8_t packed : 1;    /* steps and alt_steps are packed (ft_step.run;
                              nsteps and nalt_steps count the steps, not
                              the array's entries): read them with
                              ft_steps_next or ft_presult_steps */
} ft_presult;

/* Saturates a solver figure into a result's 32 bits. */
static inline uint32_t ft_presult_u32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void ft_presult_free(ft_presult *r);
/* r's steps one per entry: the array itself when r is not packed, else
 * a copy unpacked into *owned, which the caller frees (NULL when not
 * made).  NULL out of memory (and when there are no steps).  For the
 * alternative, a copy of r with alt_steps as its steps. */
const ft_step *ft_presult_steps(const ft_presult *r, ft_step **owned);
/* Sets r's reason: fmt itself when it has no conversion (it must then be
 * a string constant), else the formatted text (at most 255 characters);
 * fmt NULL clears it.  Out of memory leaves "out of memory". */
void ft_presult_why(ft_presult *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* r's reason, "" when none. */
const char *ft_presult_reason(const ft_presult *r);

/* Cuts a violation's witness to the causal past of its violating accesses
 * (trim.c): still a feasible prefix with the same violation, without the
 * steps it does not need; the violating reads in the regions may then
 * read older values (alt_steps keeps their writes).  Once per result (a
 * second call does nothing).  0, -1 out of memory. */
int ft_presult_trim(const ft_ctm *c, const ft_prop *p, ft_presult *res);

/* Solves one property on c (ft_ctm_hb_prepare must have been called when
 * several threads share c).  whole: the reduced whole model, used only
 * with opts->no_slice (may be NULL otherwise).  Returns the verdict. */
int ft_predict_one(ft_ctm *c, const ft_reduced *whole, const ft_prop *p,
                   const ft_predict_opts *o, ft_presult *res);

/* What windows need of a long trace, built once and shared by the
 * workers (window.c): the slicing index and where a cut may fall. */
typedef struct ft_window_index ft_window_index;
ft_window_index *ft_window_index_new(ft_ctm *c);
/* The same under a bound (ft_now seconds, 0 none): past it, the value
 * order is given up and the index has none (ft_window_index_vorder NULL,
 * as when it is too big to keep); the rest is linear and kept. */
ft_window_index *ft_window_index_new_until(ft_ctm *c, double until);
/* One more holder of w (w itself): a solving job that may be abandoned
 * while it still reads w frees its own (predict/solve_job.c).  Any
 * thread may let go. */
ft_window_index *ft_window_index_ref(ft_window_index *w);
/* Lets go of w; the last holder frees it. */
void ft_window_index_free(ft_window_index *w);
/* ft_predict_one with a window index (NULL: built when needed). */
int ft_predict_one_in(ft_ctm *c, const ft_reduced *whole,
                      const ft_window_index *w, const ft_prop *p,
                      const ft_predict_opts *o, ft_presult *res);

/* Solves props[0..n) with opts->jobs workers into results[0..n).
 * Returns the number of violations, -1 on out of memory. */
long ft_predict_run(ft_ctm *c, const ft_reduced *whole, const ft_prop *props,
                    size_t n, const ft_predict_opts *o, ft_presult *results);
/* The same with a window index (NULL: built here when a property needs
 * windows). */
long ft_predict_run_in(ft_ctm *c, const ft_reduced *whole,
                       const ft_window_index *w, const ft_prop *props,
                       size_t n, const ft_predict_opts *o,
                       ft_presult *results);

/* ---- serializability of one schedule (predict/serial.c) ------------- */

/* A schedule of a reduced model as executed blocks in order.  Returns 1
 * if it is (mutually) serializable for the regions, 0 if not; then, if
 * closing is not NULL, *closing is the index in order[] of the block
 * that completes the violation and mark[b] = 1 for the blocks of the
 * violating accesses (mark has r->nblocks entries, may be NULL). */
int ft_is_serializable(const ft_reduced *r, const ft_smt_region *reg,
                       uint32_t nreg, const uint32_t *order, uint32_t n,
                       uint32_t *closing, uint8_t *mark);
/* The same with only data (memory, fork/join) conflicts when data_only:
 * marks the accesses of a data violation. */
int ft_is_serializable_ex(const ft_reduced *r, const ft_smt_region *reg,
                          uint32_t nreg, const uint32_t *order, uint32_t n,
                          uint32_t *closing, uint8_t *mark, int data_only);

/* ---- trace details for reports and schedules (predict/traceinfo.c) -- */

typedef struct ft_trace_info {
    char *path, *program;
    uint32_t ntrans;
    uint32_t *tindex;  /* per CTM transition: per-thread event index (a
                          loaded trace has under 2^32 events) */
    uint8_t *kind;     /* per CTM transition: trace event kind (below
                          0x80, as every reader bounds them) */
    uint32_t nsites;
    char **site_file, **site_func; /* by site id, NULL unknown */
    uint32_t *site_line;
    /* by site id, for a site without a file: where it is in its module
     * ("libfoo.so+0x1234", as ft_site_format says), else NULL */
    char **site_where;
    /* Names variables in reports (NULL: addresses); ctx is its first
     * argument.  `foretell analyze` sets ft_pipeline_var_name. */
    const char *(*var_name)(const void *ctx, uint64_t addr, char *buf,
                            size_t len);
    /* A value of the variable at addr for reports (NULL: hex); ctx is
     * var_ctx.  `foretell analyze` sets ft_pipeline_var_value. */
    const char *(*var_value)(const void *ctx, uint64_t addr, uint64_t value,
                             char *buf, size_t len);
    const void *var_ctx;
} ft_trace_info;

/* Reads the trace c was built from once more.  0 ok, -1 err set. */
int ft_trace_info_load(ft_trace_info *ti, const char *path, const ft_ctm *c,
                       ft_error *err);
void ft_trace_info_free(ft_trace_info *ti);
/* Fills ti->site_where from rd (NULL: none known) for the sites ti has
 * no file for.  0, -1 out of memory. */
int ft_trace_info_where(ft_trace_info *ti, const ft_reader *rd);
/* "file:line" of transition x into buf; for a site without a file, where
 * it is in its module ("prog+0xae27"); "?:0" when neither is known. */
const char *ft_trace_info_site(const ft_trace_info *ti, const ft_ctm *c,
                               uint32_t x, char *buf, size_t len);

/* ---- schedule files (predict/schedule.c, docs/schedule-format.md) --- */

typedef struct ft_sched_step {
    uint32_t tid;
    uint64_t tindex;   /* per-thread event index in the trace */
    char kind[32];     /* trace event kind name */
    char site[200];    /* file:line, "?" unknown */
    uint8_t mark;      /* a violating access */
    uint8_t with_next; /* runs with its thread's next step ('+') */
} ft_sched_step;

typedef struct ft_schedule {
    char trace[512], program[256], property[512];
    char kind[24];     /* "CA", "CMA" or a kind's name (kind.h) */
    ft_sched_step *steps;
    uint32_t nsteps;
} ft_schedule;

int ft_schedule_write(FILE *out, const ft_schedule *s);
/* Parses a schedule; -1 with "name:line: what" in err on bad input. */
int ft_schedule_read(FILE *in, const char *name, ft_schedule *s, char *err,
                     size_t errlen);
void ft_schedule_free(ft_schedule *s);
/* Fills s from a violation (steps are CTM transitions of c). */
int ft_schedule_from_result(ft_schedule *s, const ft_ctm *c,
                            const ft_trace_info *ti, const ft_prop *p,
                            const ft_presult *res);
/* The same without the steps (s->steps NULL, s->nsteps their number),
 * for ft_schedule_save_result; -1 when they would be 2^32 or more. */
int ft_schedule_head_from_result(ft_schedule *s, const ft_ctm *c,
                                 const ft_trace_info *ti, const ft_prop *p,
                                 const ft_presult *res);
/* A race witness's other order (as kind_race.c writes its .alt.schedule):
 * its last two steps, the two marked accesses of two threads, swapped.
 * 0 when s does not end so (nothing changed), 1 swapped. */
int ft_schedule_other_order(ft_schedule *s);
/* Writes s to path; -1 with err (path and what) set. */
int ft_schedule_save(const ft_schedule *s, const char *path, char *err,
                     size_t errlen);
/* Writes head's header and res's steps, made one at a time as they are
 * written (ft_schedule_from_result's, without holding them): the same
 * file ft_schedule_save writes of ft_schedule_from_result's schedule. */
int ft_schedule_save_result(const ft_schedule *head, const ft_ctm *c,
                            const ft_trace_info *ti, const ft_presult *res,
                            const char *path, char *err, size_t errlen);

/* ---- reports (predict/report.c) ------------------------------------ */

/* Compiler-style text for one property's result. */
void ft_report_text(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                    const ft_prop *p, const ft_presult *res,
                    const char *schedule_path);
/* The same with the violation's headline chosen by the caller
 * ("FILE:LINE: SEVERITY: HEADLINE (CA property #N COUNT)"): what a
 * replay showed of it, and how many instances it stands for. */
void ft_report_text_as(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                       const ft_prop *p, const ft_presult *res,
                       const char *schedule_path, const char *severity,
                       const char *headline, const char *count);
/* One JSON object (no trailing newline) for one property's result. */
void ft_report_json(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                    const ft_prop *p, const ft_presult *res,
                    const char *schedule_path);

/* ---- the whole pipeline, as `foretell analyze` runs it (pipeline.c) -- */
/* Stages ii-iv on one trace: load it (foretell or STD format), build the
 * CTM and reduce it, infer and prune regions with infer/ (the MAT proof
 * uses the same reduced model), map the CA/CMA properties to CTM
 * positions, solve them, and write schedule files for the violations. */
#include "infer/infer.h"

/* What the decisions before the solver did (predict/decide.c). */
typedef struct ft_decide_stats {
    uint64_t holds, violated;  /* properties decided each way */
    uint64_t sync_only;        /* of the violations: made of
                                  synchronisation conflicts alone */
    uint64_t candidates;       /* schedules the search tried */
    uint64_t unconfirmed;      /* the monitor saw a violation the witness
                                  check did not: an internal defect */
    uint64_t relaxed;          /* of the violations: found by the search
                                  under the paper's rule, taken where the
                                  solver ended unknown (ft_decide_opts) */
} ft_decide_stats;

/* pthread API misuse the recorded run shows (misuse.c), one entry per
 * static misuse (what, the call's site, the site of the holder's lock):
 * its first MISUSE event, with the event at which the holder took the
 * mutex, and how many times the run did it. */
typedef struct ft_misuse {
    uint64_t event;   /* the first MISUSE event (the misusing call's site) */
    uint64_t taken;   /* the holder's lock of it, UINT64_MAX unknown */
    uint64_t obj;     /* the mutex */
    uint32_t what;    /* enum ft_misuse_what (recorder/trace.h) */
    uint32_t tid;     /* the misusing thread */
    int64_t holder;   /* the thread holding it, -1 none */
    uint64_t instances; /* MISUSE events of this static misuse */
} ft_misuse;
/* The misuse in t, in trace order of their first events (*out
 * malloc'd).  Linear in the trace (log of the misused mutexes' count).
 * 0, -1 out of memory. */
int ft_misuse_list(const fi_trace *t, ft_misuse **out, size_t *n);
/* "destroy of a locked mutex", ... (as ThreadSanitizer words them). */
const char *ft_misuse_title(unsigned what);

enum ft_input_format { FT_INPUT_DETECT = -1, FT_INPUT_FORETELL = 0,
                       FT_INPUT_STD = 1 };

typedef struct ft_pipeline {
    const char *path;
    int format;           /* enum ft_input_format, as read */
    fi_trace trace;
    int damaged;          /* the trace's tail was damaged: see damage */
    ft_error damage;
    ft_ctm *ctm;
    ft_reduced *reduced;  /* the whole CTM reduced (MAT proof, no_slice) */
    fi_analysis infer;
    ft_trace_info info;   /* sites and per-thread indices for reports */
    ft_reader *names;     /* foretell traces: sites and data symbols */
    ft_prop *props;       /* props[i].id: index into infer.props */
    size_t nprops;
    size_t nunmapped;     /* infer properties with no CTM transition */
    ft_presult *results;  /* per props[i], after ft_pipeline_predict */
    size_t nviolated, nholds, nunknown, nerror, nobserved;
    size_t nskipped;      /* not solved (stop_after, total_ms), counted in
                             nunknown (ft_presult.not_solved) */
    const char *skip_why; /* "--stop-after" or "--time" when nskipped */
    size_t ncovered;      /* not solved, another instance of their static
                             property violated (ft_presult.covered); not
                             in nunknown */
    size_t ngroups;       /* static CA/CMA properties (ft_prop.group) */
    double infer_seconds, predict_seconds;
    ft_decide_stats decide;
    ft_budget *budget;    /* the command's time bound and progress, or NULL */
    const char *stopped;  /* the stage the budget ran out in before
                             solving ("loading", "model", "inference",
                             "properties"), else NULL */
    int abandoned;        /* the solver overran the bound and was left
                             running: the process must _exit, not free */
    /* The other property kinds (kind.h, kinds.c): candidates, results. */
    ft_prop *kprops;
    size_t nkprops;
    ft_presult *kresults;
    size_t nkviolated, nkholds, nkunknown, nkskipped;
    double kinds_seconds;
    ft_misuse *misuse;    /* API misuse the run shows (misuse.c), after
                             ft_pipeline_infer (also when it stopped) */
    size_t nmisuse;
    /* ft_pipeline_suppress: findings a rule covered (counted out of
     * nviolated, nkviolated, nobserved and nmisuse), and which observed
     * regions they were (NULL none) */
    size_t nsuppressed;
    uint8_t *region_suppressed;
    /* Heap variables named from their source line ("pool->completed"):
     * key and the member's type (ft_reader_heap_name), by key, for
     * printing their values. */
    struct ft_heap_type *heap_types;
    size_t nheap_types;
} ft_pipeline;

/* Whether infer region k is a violation the recorded run shows that no
 * suppression covers. */
int ft_pipeline_observed(const ft_pipeline *pl, size_t k);

/* A variable's name for reports: the STD trace's own name, the global or
 * static variable holding it ("counter", "table+16"), or the heap
 * object by allocation site and count ("heap@file.c:40#1+8"); else its
 * address.  The result is static storage or buf. */
const char *ft_pipeline_var_name(const ft_pipeline *pl, uint64_t key,
                                 char *buf, size_t len);
/* A value the variable at key held, printed by its type when the trace
 * says it (TYPES: "-5", "true", "RED") into buf; NULL when it does not
 * (callers print hex then, "0x64"). */
const char *ft_pipeline_var_value(const ft_pipeline *pl, uint64_t key,
                                  uint64_t value, char *buf, size_t len);

/* varnames.c, for ft_pipeline_infer: names infer/'s variables from the
 * trace (0, -1 out of memory), and points ti's var_name and var_value
 * at ft_pipeline_var_name and ft_pipeline_var_value. */
int ft_pipeline_name_vars(ft_pipeline *pl);
void ft_pipeline_var_callbacks(ft_trace_info *ti);

/* Reads the trace (format: enum ft_input_format; DETECT looks at the first
 * byte and the ".std" extension).  0 ok, 1 damaged tail (the complete
 * events are kept, err says where it stopped), -1 unusable (err set). */
int ft_pipeline_load(ft_pipeline *pl, const char *path, int format,
                     ft_error *err);
/* The same under a time bound (budget, may be NULL; kept in pl->budget
 * for the stages after): once it is spent while reading, the events read
 * so far are kept and pl->stopped is "loading" (returns 0). */
int ft_pipeline_load_bounded(ft_pipeline *pl, const char *path, int format,
                             ft_budget *budget, ft_error *err);
/* Builds the CTM, reduces it, runs infer/ with o and the MAT proof, and
 * maps the properties.  0 ok; -1 with err set: the CTM rejected an event
 * (bad input, err->offset is the event index) or out of memory
 * (err->offset UINT64_MAX). */
int ft_pipeline_infer(ft_pipeline *pl, const fi_options *o, ft_error *err);
/* Solves every property (o->jobs workers), CMA properties first, or on a
 * trace long enough for windows the near ones first (docs/prediction.md,
 * step 6); with
 * stop_after > 0, stops once that many are violated, with o->total_ms
 * once that time is spent (the rest become FT_UNKNOWN, counted in
 * nskipped).  progress, if not NULL, is called
 * after each batch with the number solved so far.  Returns the number of
 * violations, -1 out of memory. */
typedef void ft_progress_fn(void *arg, size_t done, size_t total);
long ft_pipeline_predict(ft_pipeline *pl, const ft_predict_opts *o,
                         size_t stop_after, ft_progress_fn *progress,
                         void *arg);
/* Writes the schedule of violated property i to dir/<kind>-<id>.schedule
 * and puts that path into path.  0 ok, -1 with err (what and where). */
/* The alternative witness of violation i (alt_steps) as DIR/<name>.alt.schedule;
 * 1 written, 0 none, -1 with err. */
int ft_pipeline_write_alt_schedule(const ft_pipeline *pl, size_t i,
                                   const char *dir, char *path, size_t pathlen,
                                   char *err, size_t errlen);
int ft_pipeline_write_schedule(const ft_pipeline *pl, size_t i,
                               const char *dir, char *path, size_t pathlen,
                               char *err, size_t errlen);
/* groups.c: numbers the static CA/CMA properties (ft_prop.group: kind
 * and the code of the regions) and sets ngroups; ft_pipeline_infer calls
 * it.  0, -1 out of memory. */
int ft_pipeline_group(ft_pipeline *pl);
/* *r becomes FT_UNKNOWN, covered, with its reason (groups.c). */
void ft_presult_cover(ft_presult *r);
/* Solves (as every_instance would) the covered properties of the groups
 * need[] marks, at most per_group of each in property order, within what
 * is left of the analysis's time (o, pl->budget); their results replace
 * the covered ones (violations trimmed) and the counts follow.  idx (room
 * for nprops) receives their indices.  Returns how many, -1 out of
 * memory. */
long ft_pipeline_uncover(ft_pipeline *pl, const uint8_t *need,
                         unsigned per_group, const ft_predict_opts *o,
                         size_t *idx);
/* infer/'s region id (fi_property.r1/r2), NULL if out of range. */
const fi_region *ft_pipeline_region(const ft_pipeline *pl, uint32_t id);
void ft_pipeline_free(ft_pipeline *pl);

/* ---- findings, whatever their kind (predict/finding.c) ------------- */
/* What stores, reports and groupings need of a finding: a kind, a
 * message, the events that make it, each with its code site, and the
 * witness interleaving.  The fingerprint names the static bug: the same
 * bug in two traces or two builds has one fingerprint (docs/batch.md,
 * "Fingerprints", is the key). */

typedef struct ft_fsite {
    char *module;     /* basename of the module's path, "" unknown */
    char *file;       /* as the debug information names it, "" unknown */
    char *function;   /* "" unknown */
    char *text;       /* the source line (as symbolised, else as the
                         file reads now), NULL when not at hand */
    uint32_t line, column;
    uint64_t offset;  /* in the module (unsymbolised sites) */
} ft_fsite;

typedef struct ft_fevent {
    char role[16];    /* "region-begin", "region-end", "access", ... */
    char kind[32];    /* the trace event's kind name */
    uint8_t key;      /* part of the fingerprint */
    uint32_t tid;
    uint64_t index;   /* position in the trace */
    ft_fsite site;
} ft_fevent;

typedef struct ft_finding {
    char kind[32];    /* "atomicity" (CA), "atomicity-pair" (CMA), or a
                         kind's name (kind.h: "deadlock", ...) */
    char *message;
    ft_fevent *events;
    uint32_t nevents;
    char *witness;    /* schedule text (schedule-format.md), NULL none */
    int replayable;   /* the witness is a schedule from the run's start */
    int observed;     /* the recorded run itself shows it */
    size_t prop;      /* index into pl->props, SIZE_MAX none */
    size_t kprop;     /* index into pl->kprops (another kind than
                         atomicity: kind.h), SIZE_MAX none */
    size_t region;    /* observed: index into pl->infer.regions */
    size_t misuse;    /* API misuse: index into pl->misuse */
} ft_finding;

/* The findings of an analyzed pipeline: the violations the recorded run
 * shows, then the predicted ones (after ft_pipeline_predict), then the
 * other kinds' violated properties (after ft_pipeline_predict_kinds,
 * predict/kind.h).  Source
 * lines are read from the files the sites name when readable.  0, -1 out
 * of memory. */
int ft_pipeline_findings(const ft_pipeline *pl, ft_finding **out, size_t *n);
void ft_findings_free(ft_finding *f, size_t n);
void ft_finding_clear(ft_finding *f); /* frees what f holds */
void ft_fsite_free(ft_fsite *s);

/* ---- suppressions (predict/suppress.c) ----------------------------- */
/* A file of KIND:PATTERN rules in ThreadSanitizer's spirit (docs/user-
 * guide.md, "Suppressions"): a rule covers a finding of its kind when the
 * pattern matches the function, file or module of one of its frames, or,
 * ending in ":N" or ":N-M", its file and line. */
typedef struct ft_suppressions ft_suppressions;
typedef struct ft_supp_frame {
    const char *function, *file, *module; /* NULL or "" unknown */
    uint32_t line;
} ft_supp_frame;
/* 0 ok; -1 with err (the file, "line N: what").  Unknown kinds and rules
 * without a pattern are errors. */
int ft_suppressions_read(const char *path, ft_suppressions **out,
                         ft_error *err);
int ft_suppressions_read_file(FILE *f, const char *path, ft_suppressions **out,
                              ft_error *err);
void ft_suppressions_free(ft_suppressions *s);
/* The index of the first rule covering a finding of kind (a kind name of
 * kind.h, "atomicity", "misuse", or explore's failure name) with these
 * frames, counted as a hit; -1 none (also when s is NULL). */
int ft_suppressions_match(ft_suppressions *s, const char *kind,
                          const ft_supp_frame *frames, size_t n);
/* TSan's pattern: a substring unless anchored by '^' or '$'; '*' any
 * run of characters.  NULL or "" text matches nothing. */
int ft_suppress_pattern_match(const char *pattern, const char *text);
size_t ft_suppressions_count(const ft_suppressions *s);
/* Rule i: its pattern (NULL past the end), line in the file, hits, kind. */
const char *ft_suppressions_rule(const ft_suppressions *s, size_t i,
                                 unsigned *line, uint64_t *hits,
                                 const char **kind);
const char *ft_suppressions_path(const ft_suppressions *s);
uint64_t ft_suppressions_hits(const ft_suppressions *s);
/* "FILE:LINE: note: suppressed N findings: KIND:PATTERN" per used rule. */
void ft_suppressions_print_used(FILE *out, const ft_suppressions *s);
/* Marks the analyzed pipeline's findings a rule covers (after
 * ft_pipeline_predict and the kinds'): verdict FT_SUPPRESSED, observed
 * regions in region_suppressed, misuse entries removed; the counts
 * follow.  Returns how many it suppressed, -1 out of memory. */
long ft_pipeline_suppress(ft_pipeline *pl, ft_suppressions *s);

#define FT_FINGERPRINT_LEN 32 /* hex digits: 128 bits of SHA-256 */
/* The canonical key (malloc'd text, NULL out of memory), and its hash. */
char *ft_finding_key(const ft_finding *f);
int ft_fingerprint_of_key(const char *key, char out[FT_FINGERPRINT_LEN + 1]);
int ft_finding_fingerprint(const ft_finding *f,
                           char out[FT_FINGERPRINT_LEN + 1]);

#endif

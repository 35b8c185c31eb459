/* SPDX-License-Identifier: MIT */
/* infer.h - stage iii of BEST (paper sections V and VI): decide which code
 * regions the programmer meant to be atomic (e-transactions), drop those that
 * cannot be violated, report those the observed run already violates, and
 * turn the rest into causal atomicity (CA) and causal mutual atomicity (CMA)
 * properties for the prediction stage.
 *
 * Everything works on an in-memory copy of the trace's event stream
 * (fi_trace): event indices are the reader's, sites carry function/file/line
 * from the site table, FUNC_ENTRY/FUNC_EXIT give procedure boundaries.  The
 * trace can come from a foretell trace file (fi_trace_load) or from RAPID's
 * STD text format (fi_std_read).  docs/infer.md describes the rules, the
 * defaults and where we deviate from the paper.
 */
#ifndef FORETELL_INFER_H
#define FORETELL_INFER_H

#include "recorder/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the event stream ------------------------------------------------- */

/* A name for an object, kept by the STD importer so that exporting gives
 * the user's names back.  ns: 'V' variable, 'L' lock, 'T' thread. */
typedef struct fi_name {
    char ns;
    uint64_t key; /* address, lock object, or tid */
    char *name;
} fi_name;

/* One event of an in-memory trace: an ft_event without what is implicit
 * or rare, 32 bytes instead of 88, because every stage holds the trace
 * (a 10^6-event trace, issue 16).  Its index is its position in
 * fi_trace.ev; obj2, value2 and value3, zero for most kinds, are in the
 * trace's side table (fi_trace_extra), and so is a return code outside
 * int16_t (rc is then FI_RC_WIDE: the analysis asks only whether it is
 * 0); wide contents are not kept.  tid and kind are narrower than
 * ft_event's because every reader bounds them (FT_TRACE_MAX_THREADS
 * threads, opcodes below 0x80).  The other fields are ft_event's, with
 * the same names and meanings. */
typedef struct fi_event {
    uint64_t addr;
    uint64_t value;
    uint32_t site;
    uint32_t arg;
    uint16_t tid;
    uint16_t size;
    int16_t rc;
    uint8_t kind;
    uint8_t mo;
} fi_event;

#define FI_RC_WIDE INT16_MIN

/* The rare fields of event `index`, for the events where one is not 0
 * (rc: where it does not fit fi_event's), in index order. */
typedef struct fi_extra {
    uint64_t index;
    uint64_t obj2, value2, value3;
    int32_t rc;
} fi_extra;

/* The contents of a wide access kept (FI_WIDE_KEEP bytes at most, or one
 * byte that fills the whole range), for the model's mixed-size split and
 * values (ctm/mixed.c). */
typedef struct fi_wide {
    uint64_t index;
    uint64_t at; /* offset in fi_trace.wbytes */
    uint32_t n;  /* bytes kept */
    uint8_t uniform;
} fi_wide;
#define FI_WIDE_KEEP 64u

typedef struct fi_trace {
    fi_event *ev; /* ev[i] is event i */
    size_t nev, capev;
    fi_extra *extra; /* sorted by index */
    size_t nextra, capextra;
    fi_wide *wide; /* sorted by index */
    size_t nwide, capwide;
    uint8_t *wbytes;
    size_t nwbytes, capwbytes;
    ft_site *sites; /* sites[i].id == i + 1; strings owned */
    uint32_t nsites, capsites;
    uint32_t nthreads; /* 1 + the largest tid seen */
    fi_name *names;
    size_t nnames, capnames;
    struct fi_site_index *site_index; /* private: dedup of fi_trace_site */
} fi_trace;

void fi_trace_init(fi_trace *t);
void fi_trace_free(fi_trace *t);
/* Appends a copy of *ev (its index is its position; of its wide contents
 * only FI_WIDE_KEEP bytes, or one byte repeated, are kept).  -1: no
 * memory. */
int fi_trace_add(fi_trace *t, const ft_event *ev);
/* Room for n events in all (a loader that knows the count); -1 no memory. */
int fi_trace_reserve(fi_trace *t, size_t n);
/* Gives back the unused capacity once the trace is complete. */
void fi_trace_shrink(fi_trace *t);
/* Event i's obj2, value2 and value3 (all 0 for most events). */
const fi_extra *fi_trace_extra(const fi_trace *t, size_t i);
/* The index of e, an event of t, and its rare fields. */
static inline size_t fi_ev_index(const fi_trace *t, const fi_event *e)
{
    return (size_t)(e - t->ev);
}
static inline uint64_t fi_ev_obj2(const fi_trace *t, const fi_event *e)
{
    return fi_trace_extra(t, fi_ev_index(t, e))->obj2;
}
/* Event i as an ft_event (index i; a wide access's bytes as kept, else
 * NULL), for code shared with the reader's stream (ft_ctm_add). */
void fi_trace_get(const fi_trace *t, size_t i, ft_event *out);
/* Site with these attributes (function/file may be NULL), reusing an equal
 * one.  Returns its id (>= 1), 0 when out of memory. */
uint32_t fi_trace_site(fi_trace *t, const char *function, const char *file,
                       uint32_t line);
const ft_site *fi_trace_site_get(const fi_trace *t, uint32_t id);
int fi_trace_name(fi_trace *t, char ns, uint64_t key, const char *name);
const char *fi_trace_name_of(const fi_trace *t, char ns, uint64_t key);

/* Reads a foretell trace with ft_reader (infer/load.c).  A damaged tail is
 * not fatal: the complete events are kept and *err says where it stopped
 * (return 1).  0 ok, -1 unusable (err set). */
int fi_trace_load(fi_trace *t, const char *path, ft_error *err);
/* The same from an open reader, streamed from its current position. */
int fi_trace_read(fi_trace *t, ft_reader *r, ft_error *err);
int fi_trace_read_bounded(fi_trace *t, ft_reader *r, ft_budget *budget,
                          ft_error *err);
/* The same, polling budget (stage "loading"): 2 when it ran out (the
 * events read so far are kept). */
int fi_trace_load_bounded(fi_trace *t, const char *path, ft_budget *budget,
                          ft_error *err);
/* Writes t as a foretell trace with ft_writer.  0 ok, -1 err set. */
int fi_trace_save(const fi_trace *t, const char *path, ft_error *err);

/* ---- RAPID STD text format (infer/std.c) -------------------------------- */
/* Lines "T|op(decor)|loc" with op in r w acq rel fork join begin end (decor
 * optional for begin/end), an optional 4th field "|value" on r/w (our
 * extension), blank lines and lines starting with '#' ignored.  Errors name
 * the file and line.  0 ok, -1 err set (t holds the lines before it). */
int fi_std_read(fi_trace *t, FILE *in, const char *name, ft_error *err);
int fi_std_read_path(fi_trace *t, const char *path, ft_error *err);
/* Writes the STD form of t (events STD cannot express are skipped:
 * THREAD_START/EXIT, FUNC_*, ...; cond waits and wakes become rel/acq of the
 * mutex).  with_values adds the value field on r/w.  Returns the number of
 * events written, -1 on I/O error. */
long fi_std_write(const fi_trace *t, FILE *out, int with_values);

/* ---- regions ----------------------------------------------------------- */

enum fi_source {
    FI_SRC_INFERRED = 0, /* code layout rules, paper section V */
    FI_SRC_ANNOTATED = 1,/* foretell_atomic_begin/end, STD begin/end */
    FI_SRC_SPEC = 2,     /* a function named in the spec file */
};

enum fi_status {
    FI_ST_OPEN = 0,       /* may be violated: becomes a CA property */
    FI_ST_PROVED = 1,     /* cannot be violated (see fi_region.proof) */
    FI_ST_NOCONFLICT = 2, /* no access conflicts with another thread's */
    FI_ST_OBSERVED = 3,   /* the observed run is not serializable for it */
};

enum fi_proof {
    FI_PROOF_NONE = 0,
    FI_PROOF_MAT = 1,    /* lies inside one i-transaction (section VIII) */
    FI_PROOF_SINGLE = 2, /* at most one conflicting event: trivially atomic */
    FI_PROOF_LOCK = 3,   /* inside one critical section of a lock that
                            guards every object it conflicts on */
    FI_PROOF_REDUCTION = 4, /* Lipton movers: (right|both)* [non]
                               (left|both)* */
};

/* Why a region is not serializable in the observed run: event `out` of
 * the region reaches the foreign event `via` through conflict, fork and
 * join edges, and `via` has a conflict edge into `in`, a later event of the
 * region.  All are trace event indices. */
typedef struct fi_witness {
    uint64_t out, via, in;
} fi_witness;

typedef struct fi_region {
    uint32_t id;
    uint32_t tid;
    uint64_t first, last; /* trace event indices, inclusive, of thread tid */
    uint32_t nevents;     /* events of tid in [first, last] */
    uint32_t naccesses;   /* shared data accesses among them */
    const char *function; /* of the first anchor site (owned by the trace) */
    const char *file;
    uint32_t line_lo, line_hi;
    uint32_t *vars; /* shared data variables (fi_analysis.vars indices) */
    uint32_t nvars;
    /* status == FI_ST_OBSERVED: its witness is fi_analysis.witnesses[
     * witness] (fi_region_witness), kept apart because 10^5 regions of a
     * long trace have a handful of them */
    uint32_t witness;
    uint8_t source, status, proof;
} fi_region;

/* A variable: a data address or a synchronisation object. */
typedef struct fi_var {
    uint64_t key;
    uint32_t tid0, wtid0; /* first accessing / writing thread */
    uint8_t sync;         /* touched by a synchronisation operation */
    uint8_t multi;        /* accessed by two or more threads (shared) */
    uint8_t written, multiw; /* written at all / by two or more threads */
} fi_var;

/* ---- properties -------------------------------------------------------- */

enum fi_prop_kind { FI_PROP_CA = 0, FI_PROP_CMA = 1 };

typedef struct fi_property {
    uint8_t kind;
    uint32_t r1, r2;       /* region ids; r2 == r1 for CA */
    uint32_t nconflicts;   /* CMA: conflicting event pairs (capped) */
    uint32_t *vars;        /* CMA: variables the pair conflicts on */
    uint32_t nvars;
} fi_property;

/* An i-transaction from the MAT analysis (reduce/): a run of thread tid's
 * events, [first, last] in trace event indices. */
typedef struct fi_itx {
    uint32_t tid;
    uint64_t first, last;
} fi_itx;

typedef struct fi_options {
    uint32_t maxd;        /* max source-line span of a region's accesses */
    uint32_t max_anchors; /* a region closes after this many accesses */
    int infer;            /* apply the code layout rules (default 1) */
    const char *const *spec_functions; /* bodies stated atomic */
    size_t nspec;
    uint32_t max_cma;     /* stop generating CMA properties after this */
    int system_regions;   /* also infer regions in system headers and
                             library sources (libstdc++'s, libc's: code
                             inlined into the program); default 0 */
    /* NULL, or a time bound: fi_analyze and fi_properties stop between
     * passes once it is spent (the analysis is then partial: a->stopped) */
    ft_budget *budget;
} fi_options;

#define FI_DEFAULT_MAXD 10
#define FI_DEFAULT_MAX_ANCHORS 64
#define FI_DEFAULT_MAX_CMA 100000
/* CMA candidates on a variable touched by more than twice this many
 * regions: each region with the next this many of other threads. */
#define FI_CMA_WINDOW 64

void fi_options_default(fi_options *o);

typedef struct fi_analysis {
    const fi_trace *trace;
    fi_options opt;
    fi_var *vars;
    uint32_t nvars;
    uint32_t *var_of; /* per event: its variable, UINT32_MAX if none */
    fi_region *regions;
    size_t nregions, capregions;
    fi_property *props;
    size_t nprops, ncma_dropped;
    fi_witness *witnesses; /* of the observed regions (fi_region) */
    uint32_t nwitnesses;
    /* where the regions' and the properties' variable lists live
     * (infer/u32pool.h): freed with the analysis, not one by one */
    struct fi_u32pool *region_vars, *prop_vars;
    uint64_t ncma_window_skipped; /* region pairs past FI_CMA_WINDOW */
    int itx_applied; /* fi_prove_by_itx was called */
    int stopped;     /* the budget ran out: regions or properties partial */
    uint64_t nmerged_vars; /* data variables merged into an overlapping
                              one (infer/overlap.c) */
} fi_analysis;

/* Interns variables, infers, collects annotated and spec regions, checks
 * observed serializability and non-conflict, proves single-event regions.
 * Properties are generated by fi_properties (after fi_prove_by_itx, when
 * the i-transactions exist).  0 ok, -1 out of memory. */
int fi_analyze(fi_analysis *a, const fi_trace *t, const fi_options *opt);
/* MAT pruning (paper VIII "proving atomicity"): every region not observed
 * violated whose events with a conflict role (accesses, synchronisation,
 * fork, join: the CTM's transitions) lie inside one i-transaction becomes
 * FI_ST_PROVED / FI_PROOF_MAT.  itx need not be sorted.  Returns how many regions it proved, -1 out of memory. */
long fi_prove_by_itx(fi_analysis *a, const fi_itx *itx, size_t n);
/* The same with the i-transactions behind a lookup: find sets *last to
 * the last event of the last i-transaction of thread tid that starts at
 * or before event first and returns 1, or returns 0 when there is none
 * (fi_prove_by_reduce looks them up in the reduction, without a copy). */
typedef int (*fi_itx_find)(const void *arg, uint32_t tid, uint64_t first,
                           uint64_t *last);
long fi_prove_by_find(fi_analysis *a, fi_itx_find find, const void *arg);
/* The same with the i-transactions of reduce/'s MAT analysis (infer/mat.c;
 * thread ids and event indices are the trace's, as in ft_ctm). */
struct ft_reduced;
long fi_prove_by_reduce(fi_analysis *a, const struct ft_reduced *r);
/* One CA property per open region, one CMA per pair of open regions of
 * different threads with at least two conflicting event pairs that are not
 * ordered by fork/join.  Replaces earlier properties.  0 ok, -1 no memory. */
int fi_properties(fi_analysis *a);
void fi_analysis_free(fi_analysis *a);
/* An observed region's witness (r->status FI_ST_OBSERVED). */
const fi_witness *fi_region_witness(const fi_analysis *a, const fi_region *r);

/* Everything above in order (infer/pipeline.c): fi_analyze; with use_mat,
 * a CTM of the same events, ft_reduce and fi_prove_by_reduce (if the CTM
 * rejects an event, the proof is skipped and *why says so); fi_properties.
 * 0 ok (why may hold a note), -1 out of memory. */
int fi_run(fi_analysis *a, const fi_trace *t, const fi_options *opt,
           int use_mat, char *why, size_t whylen);

/* The paper's table IV columns for this run. */
typedef struct fi_summary {
    size_t ia;     /* regions (all sources) */
    size_t ra;     /* left after removing proved and non-conflicting ones */
    size_t ra2;    /* ra minus those observed not conflict-serializable */
    double vavg;   /* shared variables per region */
    size_t ca, cma, observed;
} fi_summary;
void fi_summarize(const fi_analysis *a, fi_summary *s);

/* ---- observed serializability (infer/serial.c) ------------------------ */

/* The checker's compact input: one entry per trace event. */
enum fi_op {
    FI_OP_NONE = 0,  /* no conflict role */
    FI_OP_READ = 1,  /* reads obj */
    FI_OP_WRITE = 2, /* writes obj (sync operations are writes of obj) */
    FI_OP_FORK = 3,  /* obj = child tid */
    FI_OP_JOIN = 4,  /* obj = joined tid */
};

typedef struct fi_sev {
    uint32_t tid;
    uint32_t obj;
    uint8_t op;
} fi_sev;

typedef struct fi_span {
    uint32_t tid;
    uint64_t first, last; /* indices into the fi_sev array */
} fi_span;

/* For each span s (one thread's events first..last): is the event sequence
 * conflict-serializable when s is the only non-unary transaction (causal
 * atomicity of s in the observed run)?  One pass with vector clocks, linear
 * in n (times the number of threads).  violated[i] = 1 and wit[i] filled
 * for each violated span.  nobj bounds obj, nthreads bounds tid.  Returns
 * the number of violated spans, -1 out of memory / bad input. */
long fi_serial_check(const fi_sev *ev, size_t n, uint32_t nthreads,
                     uint32_t nobj, const fi_span *spans, size_t nspans,
                     uint8_t *violated, fi_witness *wit);

/* ---- output (infer/report.c) ------------------------------------------ */
const char *fi_status_name(unsigned status);
const char *fi_source_name(unsigned source);
void fi_print_regions(FILE *out, const fi_analysis *a, int json);
void fi_print_properties(FILE *out, const fi_analysis *a, int json);
void fi_print_summary(FILE *out, const fi_analysis *a, int json);

/* ---- spec file (infer/spec.c) ----------------------------------------- */
/* One function name per line; '#' starts a comment; blank lines ignored.
 * Fills *names (free with fi_spec_free).  0 ok, -1 err set (line number). */
int fi_spec_read(const char *path, char ***names, size_t *n, ft_error *err);
/* The same from an open stream; path names it in errors. */
int fi_spec_read_file(FILE *f, const char *path, char ***names, size_t *n,
                      ft_error *err);
void fi_spec_free(char **names, size_t n);

#endif

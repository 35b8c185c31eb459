/* SPDX-License-Identifier: MIT */
/* batch.h - `foretell batch`: many recorded traces (collected by CI)
 * analyzed in bulk into one results store, the findings deduplicated by
 * fingerprint across traces and builds, for reports and baselines.
 *
 *   inputs.c   which traces: files, directories, @lists; content hashes;
 *              the shard of a job array that owns a trace
 *   worker.c   one trace analyzed (predict/'s pipeline) in a child
 *              process, its result sent back over a pipe (wire.c)
 *   run.c      the scheduler: N children, time bounds, progress lines,
 *              each finished trace committed to the store
 *   store.c    the SQLite store: traces, findings, occurrences, events;
 *              one transaction per trace, so a killed batch loses nothing
 *              and counts nothing twice; merge of shard stores
 *   store_read.c  what reports read back
 *   confirm.c  replays one witness per finding not yet confirmed
 *
 * docs/batch.md describes the commands, the store and the fingerprint. */
#ifndef FORETELL_BATCH_H
#define FORETELL_BATCH_H

#include "predict/predict.h"

#include <stddef.h>
#include <stdint.h>

#define FB_HASH_LEN 64 /* hex digits of a trace's SHA-256 */

/* ---- inputs (inputs.c) ------------------------------------------------ */

typedef struct fb_input {
    char *path;
    char hash[FB_HASH_LEN + 1];
    uint64_t size;
} fb_input;

typedef struct fb_inputs {
    fb_input *v;
    size_t n, cap;
    size_t duplicates; /* paths dropped by fb_inputs_hash: same content */
} fb_inputs;

/* Adds TRACE, every trace under DIR (recursively: regular files that
 * start like a foretell trace, or end in .std), or for "@LIST" the paths
 * LIST holds, one per line ("-": standard input).  0, or -1 with err
 * naming the argument and what is wrong with it. */
int fb_inputs_add(fb_inputs *in, const char *arg, ft_error *err);
/* Hashes every input (SHA-256 of the content), drops the second and
 * later paths of the same content, sorts by hash.  0, or -1 with err (an
 * input that cannot be read). */
int fb_inputs_hash(fb_inputs *in, ft_error *err);
void fb_inputs_free(fb_inputs *in);
/* SHA-256 of a file as lowercase hex, and its size.  0, or -1 with err. */
int fb_hash_file(const char *path, char out[FB_HASH_LEN + 1], uint64_t *size,
                 ft_error *err);

/* A shard of a job array: the traces whose hash, taken modulo count, is
 * index.  count 0: everything. */
typedef struct fb_shard {
    uint32_t index, count;
} fb_shard;

/* "I/N" with I < N.  0, or -1. */
int fb_shard_parse(const char *s, fb_shard *out);
/* From the environment: Slurm's SLURM_ARRAY_TASK_ID (relative to
 * SLURM_ARRAY_TASK_MIN, divided by SLURM_ARRAY_TASK_STEP) and
 * SLURM_ARRAY_TASK_COUNT, else Kubernetes' JOB_COMPLETION_INDEX with
 * k8s_count (0: not given).  1 found (*out and `from` set to where),
 * 0 none, -1 set but unusable (why says what). */
int fb_shard_from_env(fb_shard *out, uint32_t k8s_count, char *from,
                      size_t fromlen, char *why, size_t whylen);
int fb_shard_owns(const fb_shard *s, const char *hash);

/* ---- one trace's result (worker.c, wire.c) ---------------------------- */

enum fb_status {
    FB_ANALYZED = 0,   /* analyzed to the end */
    FB_DAMAGED = 1,    /* a damaged tail: the events before it analyzed */
    FB_BAD = 2,        /* unusable: not a trace, unreadable, rejected */
    FB_TIMEOUT = 3,    /* the per-trace time bound killed its analysis */
    FB_CRASHED = 4,    /* the analysis died (a defect of foretell) */
    FB_ERROR = 5,      /* foretell failed (out of memory, I/O) */
    FB_NSTATUS
};
const char *fb_status_name(int status);
int fb_status_from_name(const char *name);

/* The replay of one witness (analyze --confirm, batch confirm). */
typedef struct fb_confirm {
    char status[24];   /* fr_confirm_status_name, "" not replayed */
    char failure[32];  /* fr_failure_name of the replayed run, "" none */
    char *detail;      /* where it diverged or failed, NULL */
} fb_confirm;

/* The instances of one finding in one trace: the first is kept with its
 * events and witness (a replayable one when there is one). */
typedef struct fb_group {
    char fingerprint[FT_FINGERPRINT_LEN + 1];
    char *key;          /* ft_finding_key */
    uint32_t instances;
    int observed;       /* one instance was seen in the recorded run */
    ft_finding f;       /* the instance kept (owned) */
    fb_confirm confirm;
} fb_group;

typedef struct fb_result {
    char hash[FB_HASH_LEN + 1];
    char *path;
    /* from the trace */
    char *program, *build_id, *end_reason;
    char *argv;         /* the recorded command line, NUL-separated */
    uint32_t argv_len;  /* bytes of argv, NULs included */
    int64_t recorded_ns, exit_status;
    uint64_t events, threads;
    /* the analysis */
    int status;         /* enum fb_status */
    char *message;      /* what went wrong, NULL when nothing did */
    int exit_code;      /* what `foretell analyze` would have returned */
    uint64_t regions, properties, violated, holds, unknown, observed;
    double seconds;
    fb_group *groups;
    size_t ngroups;
} fb_result;

void fb_result_free(fb_result *r);

/* What `analyze` options the batch passes to each trace's analysis. */
typedef struct fb_analyze_opts {
    fi_options infer;
    ft_predict_opts predict;
    size_t stop_after;
    uint32_t kinds;           /* --kinds: a bit per enum ft_prop_kind
                                 (predict/kind.h) */
    const char *spec;         /* --spec FILE */
    /* --suppressions FILE, read by the parent (the forked workers share
     * it): findings its rules cover are not stored; NULL none */
    struct ft_suppressions *suppressions;
    const char *suppressions_path;
    int std;                  /* --std: every input is STD text */
    /* --confirm: PROG [ARGS]; NULL: no replay */
    char *const *prog;
    unsigned refine, tails;
    double tail_time; /* --tail-time: more tails while the trace's
                         replays took under it (0: none) */
    double run_timeout;
    const char *work_dir;     /* schedules and replayed runs go below */
} fb_analyze_opts;

void fb_analyze_opts_default(fb_analyze_opts *o);
/* The options as text, kept with each trace in the store. */
void fb_analyze_opts_describe(const fb_analyze_opts *o, char *buf,
                              size_t len);

/* Analyzes one trace into r (r->hash and r->path must be set).  Never
 * fails: what went wrong is r->status and r->message.  In the child. */
void fb_analyze_trace(const fb_analyze_opts *o, fb_result *r);

/* The status a replay c of a finding of this kind is stored with, and
 * its detail: fr_confirm_status_id's, but "reached" for a kind whose
 * state the replay must only reach (an order, a race: FT_EXPECT_FOLLOWED)
 * when the program did not fail (analyze does not count those as bugs;
 * the store counts only confirmed, refined and failed_early), and
 * "undecided" for a diverged witness whose refinement the time cut (its
 * detail says how much was left undecided). */
struct fr_confirmation;
const char *fb_confirm_status(const char *kind,
                              const struct fr_confirmation *c,
                              const char **detail);

/* The result as bytes (msgpack) and back: wire.c.  0, or -1. */
int fb_result_encode(const fb_result *r, char **buf, size_t *len);
int fb_result_decode(const char *buf, size_t len, fb_result *r);

/* Groups findings by fingerprint into r->groups (taking them over:
 * f is freed).  0, or -1 out of memory. */
int fb_result_group(fb_result *r, ft_finding *f, size_t n);

/* ---- the store (store.c, store_read.c) -------------------------------- */

typedef struct fb_store fb_store;

enum fb_store_mode { FB_STORE_READ, FB_STORE_WRITE, FB_STORE_CREATE };
/* Opens a store (FB_STORE_CREATE: creating it when missing).  NULL with
 * err when it cannot be opened, is not a foretell store, or is of
 * another version. */
fb_store *fb_store_open(const char *path, int mode, ft_error *err);
/* The analysis options stored with the traces put from now on. */
void fb_store_set_options(fb_store *s, const char *options);
/* 0, or -1 with err when the last write could not be completed. */
int fb_store_close(fb_store *s, ft_error *err);
/* The status of the trace with this hash: enum fb_status, or -1 when
 * the store does not have it (-2 on error); *exit_code (may be NULL)
 * gets what `foretell analyze` returned for it. */
int fb_store_status(fb_store *s, const char *hash, int *exit_code);
/* Puts one trace's result, in one transaction: nothing of it is stored
 * unless all of it is.  replace: a trace already stored is replaced
 * (its occurrences first removed).  1 stored, 0 it was there (not
 * replace), -1 with err. */
int fb_store_put(fb_store *s, const fb_result *r, int replace, ft_error *err);

typedef struct fb_merge_stats {
    uint64_t traces, findings, occurrences; /* rows added */
    uint64_t traces_had;                    /* traces already there */
} fb_merge_stats;
/* Adds what the store at path has and s has not, in one transaction:
 * merging twice, or a shard already merged, adds nothing. */
int fb_store_merge(fb_store *s, const char *path, fb_merge_stats *st,
                   ft_error *err);

/* Totals. */
typedef struct fb_totals {
    uint64_t traces, findings, occurrences, instances;
    uint64_t by_status[FB_NSTATUS];
    uint64_t confirmed, unconfirmed; /* findings by their replay */
} fb_totals;
int fb_store_totals(fb_store *s, fb_totals *t, ft_error *err);

/* A finding as reports show it: its totals and its representative
 * occurrence (the one in the trace with the smallest hash, so a store
 * and the merge of its shards show the same). */
typedef struct fb_event_row {
    char *role, *kind, *module, *file, *function, *text;
    int key;
    uint32_t tid, line, column;
    uint64_t index;
} fb_event_row;

typedef struct fb_finding_row {
    char *fingerprint, *kind, *key, *message;
    uint64_t traces, instances;
    int observed;              /* in some trace's recorded run */
    char *trace_hash, *trace_path, *program;
    char *witness;             /* schedule text, NULL none */
    int replayable;
    fb_event_row *events;
    uint32_t nevents;
    char *confirm_status, *confirm_failure, *confirm_detail; /* NULL: not */
} fb_finding_row;

/* Every finding, most traces first (then by fingerprint).  0, -1. */
int fb_store_findings(fb_store *s, fb_finding_row **rows, size_t *n,
                      ft_error *err);
void fb_finding_rows_free(fb_finding_row *rows, size_t n);

typedef struct fb_occ_row {
    char *fingerprint, *kind, *message, *file;
    uint32_t line, instances;
} fb_occ_row;

typedef struct fb_trace_row {
    char *hash, *path, *program, *status, *message, *end_reason;
    int exit_code;
    uint64_t events, threads, properties, unknown;
    double seconds;
    fb_occ_row *occ;
    uint32_t nocc;
} fb_trace_row;

/* Every trace, by path, with its occurrences.  0, -1. */
int fb_store_traces(fb_store *s, fb_trace_row **rows, size_t *n,
                    ft_error *err);
void fb_trace_rows_free(fb_trace_row *rows, size_t n);

/* ---- batch analyze (run.c) -------------------------------------------- */

typedef struct fb_run_opts {
    unsigned jobs;          /* traces analyzed at once */
    fb_shard shard;
    int redo;               /* analyze traces the store has again */
    int retry;              /* again those that timed out or crashed */
    double trace_time;      /* per trace, seconds (0 none) */
    double total_time;      /* the whole batch, seconds (0 none) */
    int progress;           /* progress lines on stderr */
    const fb_analyze_opts *analyze;
} fb_run_opts;

typedef struct fb_run_stats {
    size_t inputs, mine;           /* given; in this shard */
    size_t skipped, analyzed;      /* already stored; analyzed now */
    size_t left;                   /* not analyzed: time ran out */
    size_t by_status[FB_NSTATUS];
    size_t with_findings;          /* traces of this run with a finding */
    size_t occurrences;            /* their distinct findings, summed */
    int store_failed;              /* a write to the store failed */
    int interrupted;               /* SIGINT/SIGTERM stopped it: the
                                      signal */
    double seconds;
} fb_run_stats;

/* Analyzes the inputs (hashed) this shard owns into the store.  0 done
 * (see st), -1 with err when the store failed. */
int fb_run(fb_store *s, const fb_inputs *in, const fb_run_opts *o,
           fb_run_stats *st, ft_error *err);

/* ---- batch confirm (confirm.c) ---------------------------------------- */

typedef struct fb_confirm_opts {
    char *const *prog;       /* PROG [ARGS]; NULL: each trace's command */
    const char *program;     /* only findings of traces of this program
                                (basename), NULL all */
    double run_timeout;
    unsigned tails;
    double tail_time; /* more tails while a finding's replays took
                         under it (0: none) */
    const char *work_dir;
    int all;                 /* also findings already confirmed */
    int progress;
} fb_confirm_opts;

typedef struct fb_confirm_stats {
    size_t tried, confirmed, spurious, not_run;
    size_t unconfirmed; /* replayed, not spurious, no bug shown: "reached"
                           without a failure, "not_reproduced" */
} fb_confirm_stats;

/* Replays one witness of every finding not yet confirmed and records
 * the result.  0, or -1 with err (store failed). */
int fb_confirm_findings(fb_store *s, const fb_confirm_opts *o,
                        fb_confirm_stats *st, ft_error *err);

#endif

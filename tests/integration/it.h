/* SPDX-License-Identifier: MIT */
/* it.h - shared helpers of the integration tests: running foretell and the
 * example programs (posix_spawn), reading data/examples.tsv, loading a
 * trace into memory, and checking a trace against the semantics of the
 * pthread primitives it records (an oracle independent of the runtime).
 */
#ifndef FT_IT_H
#define FT_IT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/trace.h"

/* Paths, from the environment ctest sets (CMakeLists.txt). */
const char *it_bin_dir(void);  /* FT_BIN: foretell, foretell-cc */
const char *it_data_dir(void); /* FT_DATA: data/ sources and manifest */
const char *it_inst_dir(void); /* FT_INST: instrumented examples */
const char *it_work_dir(void); /* FT_WORK: scratch, created on demand */

/* Runs argv[0] (a path) with extra environment entries ("K=V", may be
 * NULL), stdout and stderr to out_path / err_path (NULL: /dev/null).
 * Returns the raw waitpid status, or -1 if it could not be started. */
int it_run(char *const argv[], char *const extra_env[], const char *out_path,
           const char *err_path);
/* Exit code as a shell reports it: status, or 128 + signal. */
int it_exit_code(int status);

/* `foretell record -o trace [--quantum q] [--seed s] [--timeout t] --
 * prog args...`; q, s, t may be NULL.  Returns foretell's exit code (the
 * program's, 128+N for a signal, 86 deadlock), -1 if not started. */
int it_record(const char *trace, const char *quantum, const char *seed,
              const char *timeout, const char *prog, char *const args[],
              const char *err_path);

/* One row of data/examples.tsv. */
typedef struct it_example {
    char name[64], source[64], lang[8], kind[32], failure[16], natural[32];
    char args[64]; /* "" for none ("-" in the file) */
    int threads;   /* threads the run creates, main included */
} it_example;

/* Loads the manifest; returns the number of rows (at most max), -1 on a
 * malformed file (message on stderr naming the line). */
int it_manifest(it_example *rows, int max);
/* Name of the instrumented binary of a row: source without extension. */
void it_example_prog(const it_example *ex, char *buf, size_t len);

/* "BUG:" marked lines of a source that apply to a row (a "BUG:" in a
 * comment after code on the same line): a marker naming
 * "fig N[, M...]" applies only to rows whose first argument is one of
 * them.  Returns the count (at most max). */
int it_bug_lines(const it_example *ex, unsigned *lines, int max);

/* A whole trace in memory. */
typedef struct it_trace {
    ft_reader *r;
    ft_event *ev;
    size_t n;
    int damaged;   /* the file ends in a damaged or incomplete chunk */
    ft_error damage;
    int read_error; /* ft_reader_next returned -1 */
} it_trace;

it_trace *it_trace_load(const char *path, char *why, size_t len);
void it_trace_free(it_trace *t);
/* Threads that started (THREAD_START events). */
int it_trace_threads(const it_trace *t);
/* Count of events of a kind. */
size_t it_trace_count(const it_trace *t, unsigned kind);
/* 1 if some event's site is at basename(file):line. */
int it_trace_hits_line(const it_trace *t, const char *file, unsigned line);
/* ft_check_consistency on a fresh reader of path: violations, or -1. */
int64_t it_consistency(const char *path);

/* What the semantic check saw besides violations. */
typedef struct it_sync_report {
    unsigned violations;
    char first[512];      /* the first violation, human readable */
    unsigned double_frees; /* FREE of a block that is not live */
    unsigned freed_accesses; /* accesses into freed, not reused, blocks */
    unsigned null_objects;   /* lock/unlock events on address 0 */
    unsigned misuse;         /* unlocks of mutexes the thread did not hold:
                                undefined for a normal mutex, a program bug */
} it_sync_report;

/* Replays the trace against models of mutexes, rwlocks, semaphores,
 * barriers, condition variables, threads and the heap; each event that no
 * correct implementation of pthreads could produce in this order is a
 * violation.  Heap misuse by the program is counted, not a violation. */
void it_check_sync(const it_trace *t, it_sync_report *rep);

#endif

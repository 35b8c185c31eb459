/* SPDX-License-Identifier: MIT */
/* replay.h - the harness side of replay and exploration: runs a program
 * built with foretell-cc under the controlled scheduler (the same runtime
 * as recording, with another policy chosen by environment variables), with
 * bounds on time and steps, and tells what happened.  The run is always
 * recorded, so every run that fails can be replayed from its own trace.
 *
 * Ownership: replay/run.c, replay/outcome.c (fr_run, outcome
 * classification) and the runtime's replay policy (recorder/rt/
 * policy_replay.c) implement the first half; replay/explore*.c and
 * recorder/rt/policy_explore.c the exploration strategies.
 *
 * Environment understood by the runtime (set by fr_run):
 *   FORETELL_TRACE=PATH        record the run here (always set)
 *   FORETELL_SCHEDULE=PATH     follow this schedule file first
 *                              (docs/schedule-format.md)
 *   FORETELL_DIVERGE=stop|continue  what to do when the program departs
 *                              from the schedule
 *   FORETELL_STRATEGY=SPEC     in-process strategy after the schedule (or
 *                              from the start): "none" (run to completion,
 *                              round-robin, no preemption: the default),
 *                              "random:seed=X", "pct:depth=D:n=N:k=K:seed=X",
 *                              ... (replay/explore.h lists them)
 *   FORETELL_MAX_STEPS=N       stop the run (a hang) after N key points
 *   FORETELL_HEAP_CHECK=0|1    heap oracle (default 1 when a schedule or
 *                              strategy is set)
 *   FORETELL_VIRTUAL_TIME=0|1  sleeps are yields (same default)
 *   FORETELL_STATUS_FD=N       the runtime's reports to the harness
 *                              (ft_report_read, recorder/trace.h)
 * docs/replay.md describes the replay policy, divergence and oracles.
 */
#ifndef FORETELL_REPLAY_H
#define FORETELL_REPLAY_H

#include "predict/predict.h"
#include "recorder/progress.h"
#include "recorder/trace.h"

#include <stdint.h>

enum fr_diverge { FR_DIVERGE_STOP = 0, FR_DIVERGE_CONTINUE = 1 };

typedef struct fr_run_opts {
    char *const *argv;      /* program and its arguments (argv[0] found in
                               PATH like execvp) */
    const char *trace_out;  /* the run's trace (required) */
    const char *schedule;   /* schedule file to follow first, or NULL */
    const char *strategy;   /* FORETELL_STRATEGY, or NULL for "none" */
    int diverge;            /* enum fr_diverge */
    double timeout_s;       /* wall-clock bound, 0 = none (a hang is
                               reported as FR_HANG) */
    double stall_s;         /* a run without progress (key points, CPU:
                               fr_progress_stalled) this long is hung
                               (FR_HANG), 0 = no such bound */
    double until;           /* CLOCK_MONOTONIC seconds (ft_now), 0 none:
                               the caller's own deadline; a run still
                               going then is stopped as FR_UNFINISHED */
    double tail_until;      /* CLOCK_MONOTONIC seconds, 0 none: a replay
                               past its schedule (the progress page's
                               in_tail) still going then is stopped as
                               at until (FR_UNFINISHED, "its share of the
                               time bound (--time)"); one still following
                               its schedule is not */
    void (*tick)(void *arg); /* called every look at the run (about 4
                               times a second): the caller's progress */
    void *tick_arg;
    uint64_t max_steps;     /* key-point bound, 0 = none */
    int quiet;              /* program's stdout/stderr to /dev/null */
} fr_run_opts;

void fr_run_opts_default(fr_run_opts *o);

/* What went wrong in a run, from the most specific evidence: the runtime's
 * own reports in the trace (deadlock, heap errors, divergence), the signal
 * that ended it, its exit status. */
enum fr_failure {
    FR_OK = 0,          /* exited 0 */
    FR_ABORT,           /* SIGABRT: assertion failure or abort() */
    FR_CRASH,           /* SIGSEGV, SIGBUS, SIGFPE, SIGILL */
    FR_NULL_DEREF,      /* a crash at an access near address 0 */
    FR_USE_AFTER_FREE,  /* an access to freed heap memory */
    FR_DOUBLE_FREE,     /* free of freed heap memory */
    FR_DEADLOCK,        /* no enabled thread while threads remain */
    FR_HANG,            /* time or step bound reached */
    FR_EXIT,            /* non-zero exit status */
    FR_DIVERGED,        /* the schedule could not be followed (stop) */
    FR_HEAP_CORRUPTION, /* a write before or past a heap block */
    FR_MISUSE,          /* the pthread API misused (a MISUSE event: an
                           unlock by a thread that does not hold the
                           mutex, a destroy of a held one), the run
                           otherwise fine */
    FR_UNFINISHED,      /* stopped at the caller's deadline
                           (fr_run_opts.until) before it ended: no
                           verdict of the program's */
    FR_NFAILURES
};

const char *fr_failure_name(int failure); /* "abort", "deadlock", ... */

/* A context switch seen in the trace: from -> to, at the site of the
 * first event to runs (file:line). */
typedef struct fr_switch {
    int from, to;
    uint64_t index;         /* event index in the trace */
    char site[160];         /* file:line of that event, "" when it has
                               none (a thread's start or exit) */
    char what[24];          /* then its kind: "thread_start", ... */
} fr_switch;

#define FR_LAST_SWITCHES 8

typedef struct fr_outcome {
    int failure;            /* enum fr_failure */
    int exit_status;        /* exit status, or -1 if killed */
    int signo;              /* killing signal, or 0 */
    int tid;                /* thread where it happened, -1 unknown */
    char site[256];         /* file:line where it happened, "" unknown */
    char detail[1024];      /* one human sentence or more: what and where
                               (both sites for heap errors, every blocked
                               thread for a deadlock) */
    int diverged;           /* the schedule was not followed to its end */
    char divergence[512];   /* where and how (thread, index, expected vs
                               found), "" if followed */
    uint64_t steps_followed; /* schedule steps completed */
    uint64_t events;        /* events in the run's trace */
    double seconds;         /* wall time of the run */
    /* Added for reports: the last context switches before the end (or
     * before the failure), oldest first; where the free happened for heap
     * errors; the trace the outcome was read from. */
    fr_switch last_switches[FR_LAST_SWITCHES];
    int nlast_switches;
    char free_site[256];
    uint64_t steps_total;   /* steps in the schedule, 0 without one */
    int64_t diverge_step;   /* step the runtime could not follow, -1 */
    int ended_early;        /* every step was followed until the run
                               ended, before the schedule's end */
    /* The run's trace could not be written whole (a full disk): the
     * errno, and what happened ("No space left on device; the trace is
     * cut at byte N (K events)").  The outcome is read from what was
     * written; the command exits 4. */
    int write_errno;
    char write_error[256];
    int exec_errno;         /* the program could not be started: exec's
                               errno (ENOENT: exit 127, else 126) */
} fr_outcome;

/* Puts head before o->detail (what does not fit is cut from the end). */
void fr_detail_prepend(fr_outcome *o, const char *head);

/* Runs the program once.  0 when the run happened (whatever its outcome,
 * which *out describes); -1 with err set when the input is to blame
 * (program missing or not executable: out->exec_errno, errno ENOENT or
 * EACCES; not built with foretell-cc; the runtime refused the schedule or
 * strategy, its reason in err) or when writing the trace failed
 * (out->write_errno; *out then says what the cut trace shows); -2
 * with err set when the harness or the system failed (fork, pipe,
 * /dev/null, the progress page, a runtime that started but wrote no
 * trace).  The trace at o->trace_out is replaced only when the run wrote
 * one (the runtime writes a temporary file beside it).  The program dies
 * with foretell. */
int fr_run(const fr_run_opts *o, fr_outcome *out, ft_error *err);

/* prog as execvp would find it (PATH, or /usr/bin:/bin without one) into
 * buf: 0; or, with err naming the file and why, the shell's exit code:
 * 127 (errno ENOENT) no such program, 126 (errno EACCES) a file that
 * cannot be executed: a directory, not a regular file, no execute
 * permission, or empty (execvp would hand an empty file to /bin/sh,
 * which runs it as an empty script and exits 0). */
int fr_find_program(const char *prog, char *buf, size_t len, ft_error *err);
/* The same as a lookup: buf, or NULL when there is no such program. */
const char *fr_which(const char *prog, char *buf, size_t len);

/* ---- which runtime the program gets (replay/backend.c) ---- */
enum fr_backend {
    FR_BACKEND_AUTO = 0, /* its own if built with foretell-cc, else the
                            LD_PRELOAD one if dynamically linked */
    FR_BACKEND_RUNTIME,  /* run as it is */
    FR_BACKEND_PRELOAD,  /* LD_PRELOAD=libforetell_preload.so */
    FR_BACKEND_VALGRIND  /* record only: under Valgrind with foretell's
                            tool (recorder/valgrind/) */
};
/* "auto", "runtime", "preload", "valgrind": the enum, -1 for anything
 * else. */
int fr_backend_parse(const char *s);
/* Decides, in the parent, for the runs of prog that follow (the last call
 * wins); with the preload runtime, says so once on note (may be NULL).
 * Returns the backend, or -1 with err (preload asked for a static
 * program, or the library not found). */
int fr_backend_prepare(const char *prog, int want, FILE *note, ft_error *err);
/* fr_backend_prepare(prog, auto, stderr) unless prog was prepared last
 * (fr_run and explore call it: a confirmation's program too). */
void fr_backend_ensure(const char *prog);
/* Why auto left prog, which has no runtime, as it is ("it starts no
 * thread; ...", "not a dynamically linked program ..."), for the "not
 * built with foretell-cc" messages; NULL otherwise. */
const char *fr_backend_why(const char *prog);
/* "LD_PRELOAD=..." as chosen for prog into buf (a spawned child's
 * environment), NULL when prog runs as it is. */
const char *fr_backend_env(const char *prog, char *buf, size_t len);
/* In a child about to exec prog: LD_PRELOAD as chosen for it. */
void fr_backend_apply(const char *prog);
/* As fr_backend_prepare, for `record`: auto runs a dynamically linked
 * program without the runtime that starts threads under Valgrind when Valgrind and the tool
 * are installed (else as fr_backend_prepare), and valgrind forces it;
 * says which on note. */
int fr_backend_prepare_record(const char *prog, int want, FILE *note,
                              ft_error *err);
/* Whether prog (as execvp finds it) carries foretell's runtime (built
 * with foretell-cc), needs a library built with foretell-cc, or is no
 * ELF file at all (a script): whether its replays control the accesses
 * a trace of it holds. */
int fr_program_has_runtime(const char *prog);
/* Whether the last prepare chose Valgrind for prog. */
int fr_backend_is_valgrind(const char *prog);
/* The tool's directory (VALGRIND_LIB): $FORETELL_VALGRIND_LIB, else
 * bin/../lib/foretell-valgrind, else the installed libdir's; NULL if none
 * holds the tool. */
const char *fr_valgrind_dir(char *buf, size_t len);
/* In a child: execs `valgrind -q --tool=foretell --foretell-raw=RAW
 * args...` with VALGRIND_LIB set; returns only if that failed (errno). */
void fr_valgrind_exec(char **args, const char *raw);
/* The LD_PRELOAD runtime: $FORETELL_PRELOAD, else beside the foretell
 * executable (bin/../lib), else the installed libdir; NULL if none. */
const char *fr_preload_path(char *buf, size_t len);

/* Whether prog (as execvp finds it) is the binary the trace recorded, by
 * the main program's build id (replay/binary_check.c): 1 the same, 0 not
 * (then a warning naming both goes to warn, which may be NULL), -1 not
 * known (no trace at hand, no build id, program not found). */
int fr_check_binary(const char *trace, const char *prog, FILE *warn);

/* The switches of from_trace's run (fr_schedule_from_trace) mapped onto
 * the events of another build of the program, as ref_trace (a run of that
 * build) numbers them: each thread's events paired by kind and FILE:LINE
 * (replay/build_map.c).  -1 with err on an unreadable trace. */
typedef struct fr_map_stats {
    uint32_t steps;   /* in from_trace's schedule */
    uint32_t mapped;  /* in out (steps of one thread run together, and
                         those before any paired event, are merged) */
    uint32_t unmapped; /* of them, of a thread ref_trace's run has no
                          event of: the recorded step as it is */
    uint64_t events;  /* from_trace's events */
    uint64_t matched; /* of them, paired with one of ref_trace's */
    uint64_t sited;   /* from_trace's events with a site */
    uint64_t known;   /* of them, at a FILE:LINE ref_trace's run has */
} fr_map_stats;
int fr_schedule_map(const char *from_trace, const char *ref_trace,
                    ft_schedule *out, fr_map_stats *st, ft_error *err);

/* Replays from_trace's run on ro's program, another build: a reference
 * run of it under the deterministic policy (its output discarded), then
 * the switches mapped onto that run's events; while the replay diverges,
 * mapped again onto the replay's own run (which continues past the
 * divergence), up to FR_MAP_ROUNDS replays, the last (or one whose
 * mapping is the one before's) with ro's own divergence mode.  Each run
 * is bounded as ro says.  Returns as fr_run, *o the last run's outcome,
 * its trace at ro->trace_out; or 1, with no replay made, when fewer than
 * half of from_trace's events with a site are at a FILE:LINE of the
 * reference's run (another program, not another build: mr->st says how
 * many).  What it does goes to progress (NULL: nothing). */
#define FR_MAP_ROUNDS 8
typedef struct fr_map_run {
    int rounds;      /* replays made */
    fr_map_stats st; /* the last mapping's */
} fr_map_run;
int fr_replay_mapped(const fr_run_opts *ro, const char *from_trace,
                     fr_outcome *o, fr_map_run *mr, FILE *progress,
                     ft_error *err);

/* Classifies a finished run from its trace and wait status (exposed for
 * the tests and for `foretell replay --trace` reports). */
int fr_outcome_from_trace(const char *trace, int wait_status, int hung,
                          fr_outcome *out, ft_error *err);

/* Compares a replayed run's trace with the schedule it followed: each
 * step's thread must have its event at the step's index, of the step's
 * kind and (when both are known) site.  Sets out->steps_followed,
 * out->steps_total, and out->diverged/divergence at the first step that
 * does not match ("step S (schedule line L): thread T event I: expected
 * KIND at SITE, found ...").  0, or -1 with err set. */
int fr_check_schedule(const char *trace, const ft_schedule *s,
                      fr_outcome *out, ft_error *err);

/* The schedule that makes a replay repeat a recorded run: one step per
 * maximal run of one thread's events (the run's last event), so that the
 * replay switches threads exactly where the recording did.  0, or -1 with
 * err set (unreadable or damaged trace). */
int fr_schedule_from_trace(const char *trace, ft_schedule *s,
                           ft_error *err);
/* The same for what a damaged trace (a run killed with SIGKILL) still
 * holds: its readable prefix. */
int fr_schedule_from_prefix(const char *trace, ft_schedule *s,
                            ft_error *err);
/* Whether an event of kind has a place in a schedule's per-thread
 * numbering (the runtime's deadlock and heap reports have none). */
int fr_step_event(unsigned kind);
/* *p: thread tid's event tindex, of kind at site (named through r). */
void fr_step_fill(ft_sched_step *p, const ft_reader *r, uint32_t tid,
                  unsigned kind, uint32_t site, uint64_t tindex);
/* s written to a new temporary file, its name in path (32 bytes or
 * more); -1 with err set (nothing left behind). */
int fr_schedule_write_temp(const ft_schedule *s, char *path, size_t len,
                           ft_error *err);

/* ---- frames.c: a failure's site in the program's own code ---- */
typedef struct fr_frames fr_frames;
fr_frames *fr_frames_new(const ft_reader *r);
/* Feed every event of the trace, in order. */
void fr_frames_event(fr_frames *f, const ft_event *ev);
/* site (of an event of thread tid) as file:line, or, when it is library
 * code, where it entered the program's own code: the inlined call site,
 * else the thread's innermost frame of program code (its last event
 * there, or the call out of it). */
const char *fr_frames_user_site(fr_frames *f, int tid, uint32_t site,
                                char *buf, size_t len);
/* The call sites of thread tid's open frames, innermost first, into
 * sites[cap]; how many (0 when the stack is unknown or overflowed). */
uint32_t fr_frames_calls(const fr_frames *f, int tid, uint32_t *sites,
                         uint32_t cap);
void fr_frames_free(fr_frames *f);

/* ---- child_env.c: a program's environment, built before the fork ---- */
typedef struct fr_child_env {
    char **envp;          /* NULL-terminated, for execve */
    unsigned char *owned; /* per entry: allocated here */
    size_t n, cap;
} fr_child_env;
/* A copy of the process's environment; -1 out of memory. */
int fr_child_env_init(fr_child_env *e);
/* NAME=value, replacing NAME's entry; -1 out of memory. */
int fr_child_env_set(fr_child_env *e, const char *name, const char *value);
/* entry ("NAME=value", kept by the caller until the fork) in NAME's
 * place; -1 out of memory or no '='. */
int fr_child_env_put(fr_child_env *e, char *entry);
void fr_child_env_unset(fr_child_env *e, const char *name);
void fr_child_env_free(fr_child_env *e);
/* fork() without the atfork handlers (_Fork, glibc 2.34 on; fork()
 * before): the child may make system calls only, then exec or _exit. */
pid_t fr_fork_quiet(void);

/* ---- progress.c: the runtime's progress page (recorder/progress.h) ---- */
typedef struct fr_progress {
    int fd;                 /* memfd, close-on-exec in the harness */
    ft_progress_page *page;   /* shared with the runtime: atomics only */
    char env[40];           /* "FORETELL_PROGRESS_FD=N" for the child */
    /* progress as the harness last saw it (fr_progress_look) */
    uint64_t last_kp, last_cpu_ns;
    double last_look, last_progress, last_kp_time;
} fr_progress;

/* Creates the page; -1 with err set. */
int fr_progress_open(fr_progress *r, ft_error *err);
/* Clears it for the next run. */
void fr_progress_reset(fr_progress *r);
void fr_progress_close(fr_progress *r);
/* The runtime started in the program (it was built with foretell-cc). */
int fr_progress_started(const fr_progress *r);
/* Whether the run is past its schedule (the runtime's last snapshot). */
int fr_progress_in_tail(const fr_progress *r);
/* Takes a look at the run's progress at time now (seconds, any clock):
 * last_progress is when key points or CPU time last moved, last_kp_time
 * when key points last moved (the first look is the baseline). */
void fr_progress_look(fr_progress *r, double now);
/* Whether the run is hung at time now, as of the last look: no progress
 * for stall_s seconds, or no key points for FR_NO_KEYPOINTS_STALLS times
 * that while it burns CPU (uninstrumented code looping).  stall_s <= 0:
 * never. */
#define FR_NO_KEYPOINTS_STALLS 6
int fr_progress_stalled(const fr_progress *r, double now, double stall_s);
/* In a forked child before exec: keep fd open across exec. */
int fr_child_keep_fd(int fd);

/* Schedule file line of step i (the header takes 8 lines). */
#define FR_STEP_LINE(i) ((unsigned)(i) + 8u)

#endif

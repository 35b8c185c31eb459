/* SPDX-License-Identifier: MIT */
/* analyze_cmd.h - the parts of `foretell analyze` (cmd_analyze.c parses the
 * options and runs predict/'s pipeline; analyze_stats.c prints the stage ii
 * figures; analyze_report.c prints the findings for people and tools). */
#ifndef FORETELL_CLI_ANALYZE_CMD_H
#define FORETELL_CLI_ANALYZE_CMD_H

#include "predict/predict.h"

#include <stdio.h>

/* -o DIR (analyze_outdir.c): before loading, DIR or the directory it
 * is to be made in exists and is writable (nothing is created); then DIR
 * is made, or found to be a writable directory.  0, or -1 with a message
 * on stderr naming DIR. */
int analyze_out_dir_check(const char *dir);
int analyze_out_dir_make(const char *dir);

/* --stats/--mats/--cxt/--itrans.  Returns the exit code. */
int analyze_stats(const char *path, int json, int table, int mats, int cxt,
                  int itrans, int skip_unreachable);

/* Schedule paths of the violated properties (NULL where not written),
 * indexed like pl->props. */
struct fr_confirmation;
typedef struct analyze_out {
    const ft_pipeline *pl;
    char **schedule;
    struct fr_confirmation *confirm; /* --confirm, indexed like schedule */
    /* the other property kinds (predict/kind.h), indexed like pl->kprops:
     * schedules (NULL where not written), a race's other order, and
     * their confirmations */
    char **kschedule, **kalt;
    struct fr_confirmation *kconfirm;
    /* why the findings were not replayed ("" when they were) */
    char unconfirmed[512];
} analyze_out;

/* The regions the recorded run already violates, compiler style. */
void analyze_print_observed(FILE *out, const ft_pipeline *pl);
void analyze_print_misuse(FILE *out, const ft_pipeline *pl);
/* The source line of trace event ev under its location, as compilers
 * print it ("   38 |     if (balance >= amount)"), when the trace has
 * its text (SOURCE chunk); nothing otherwise. */
void analyze_print_source(FILE *out, const ft_pipeline *pl, uint64_t ev);
/* The machine instruction at event ev's site when it has no file:line
 * (the trace's INSN entry), else NULL. */
const char *analyze_site_insn(const ft_pipeline *pl, uint64_t ev);
/* Each predicted violation (and each property left unknown) compiler
 * style, then the summary line. */
void analyze_print_text(FILE *out, const analyze_out *ao);
/* Everything as one JSON document. */
void analyze_print_json(FILE *out, const analyze_out *ao);

/* What the replays say on stderr (analyze_confirm.c): on a terminal one
 * line rewritten (which replay, of how many, its seconds so far),
 * elsewhere (a CI log) a line when a replay starts 10 s or more after
 * the last line and every 10 s during a long one, once the command has
 * run 2 s, so that the slow replay of a long program is not silence. */
typedef struct analyze_talk {
    int on, tty, open;
    double t0, last, start; /* the command's start, the last line, this
                               replay's start (ft_now) */
    const char *what;       /* "confirming", "replaying findings" */
    size_t done, total;
    const char *schedule; /* the one being replayed */
} analyze_talk;

/* --confirm (analyze_confirm.c): replay every schedule written. */
typedef struct analyze_confirm_opts {
    char *const *prog;        /* PROG and ARGS after -- */
    const char *dir;          /* -o DIR: replayed runs' traces go there */
    double timeout_s;         /* per replayed run */
    unsigned refine;          /* refinement rounds after a divergence */
    unsigned tails;           /* random tails after a non-failing one */
    double tail_time;         /* then more, while the tails took less
                                 (seconds, 0 none) */
    const fi_options *infer;
    const ft_predict_opts *predict;
    int progress;             /* stderr says what the replays do (the
                                 uncovering's line; the lines of the
                                 replays themselves come from talk) */
    double until;             /* --time's end (ft_now), 0 none: findings
                                 not replayed by then stay unconfirmed */
    const ft_pipeline *recorded; /* its API misuse is no replay's failure */
    analyze_talk *talk;       /* the replays' progress (the caller sets
                                 its on, tty and t0), or NULL: none */
} analyze_confirm_opts;

/* The talker of a stage of replays: what, how many; and one replay's
 * start, and the stage's end (the pending terminal line). */
void analyze_talk_begin(analyze_talk *t, const char *what, size_t total);
void analyze_talk_replay(analyze_talk *t, const char *schedule);
void analyze_talk_end(analyze_talk *t);

/* Fills ao->confirm.  Returns the exit code: 0, or 127/2 when the program
 * cannot be run, 4 out of memory. */
int analyze_confirm(analyze_out *ao, const analyze_confirm_opts *co);
/* After every witness's first replay (analyze_confirm, analyze_uncover,
 * analyze_confirm_kinds): the atomicity witnesses that diverged are
 * refined (re-recorded, re-predicted, replayed; replay/confirm.h), each
 * with a progress line.  The exit code, as analyze_confirm's. */
int analyze_refine(analyze_out *ao, const analyze_confirm_opts *co);
/* Writes violated property i's schedule into dir and its path into
 * ao->schedule[i]; says what failed on stderr.  0, -1. */
int analyze_write_schedule(analyze_out *ao, size_t i, const char *dir);
/* After analyze_confirm: the static CA/CMA properties whose replays all
 * ran without the program failing get up to a few more of their covered
 * instances solved (ft_pipeline_uncover), written and replayed: the
 * instance that fails may be among them.  The exit code, as above. */
int analyze_uncover(analyze_out *ao, const analyze_confirm_opts *co,
                    ft_pipeline *pl);
/* The replay options every confirmation shares (program, directory, run
 * time, tails). */
struct fr_confirm_opts;
void analyze_confirm_opts_fill(struct fr_confirm_opts *o,
                               const analyze_confirm_opts *co);
/* Once a witness's first replay is past its schedule (its violation
 * reached, the tail running), it runs on for at most its share of what
 * is left of --time: the witnesses still to replay (this one included,
 * left) share it equally, at least 1 s each (o->tail_until; none without
 * --time).  So one whose tail runs on cannot leave the others unreplayed
 * (SV-COMP qrcu-2: its updater spins after the schedule in a loop without
 * key points, 48 s of --time 60, and 13 witnesses were never replayed),
 * and a long replay still following its schedule is never cut by it.
 * The witnesses of the other kinds are counted for the stages before
 * theirs. */
void analyze_share_time(struct fr_confirm_opts *o, size_t left);
size_t analyze_kind_witnesses(const analyze_out *ao);
/* Under --time: once o's time is up, c says "not replayed" (FR_NOT_RUN)
 * and 1 is returned; else 0. */
int analyze_confirm_skip(const struct fr_confirm_opts *o,
                         struct fr_confirmation *c);
/* The random tails of the findings whose witnesses were replayed
 * without tails and ran without a failure (atomicity ones, the more
 * instances analyze_uncover solved, the other kinds'), after every
 * witness, in turns: tail 1 of each, then tail 2 of each, ... (a long
 * program's tail runs for seconds: 16 of them for the first finding
 * left the last ones unreplayed under --time).  The exit code, as
 * above. */
int analyze_tails_in_turns(analyze_out *ao, const analyze_confirm_opts *co);
/* What stops the analysis when a replay of c could not run (err, errno
 * e), said on stderr: the exit code (2, 4, 126, 127). */
struct fr_confirmation;
int analyze_replay_failed(const struct fr_confirmation *c, const ft_error *err,
                          int e, analyze_talk *talk);
/* Violations confirmed (directly or after refinement). */
size_t analyze_confirmed(const analyze_out *ao);
void analyze_print_confirm(FILE *out, const analyze_out *ao);
/* Replayed violation i: its schedule, what the replay showed, the
 * replayed run (indented lines under its finding). */
void analyze_print_confirm_one(FILE *out, const analyze_out *ao, size_t i);
/* 1 when violation i was replayed and the program then failed. */
int analyze_confirm_fails(const analyze_out *ao, size_t i);
/* Region g (0, or 1 for a CMA pair's second) of property p. */
const fi_region *analyze_prop_region(const ft_pipeline *pl, const ft_prop *p,
                                     int g);
/* The atomicity violations (analyze_atomicity.c): one per static bug
 * (kind and regions' code), failing ones first, with its instances; then
 * the properties left unknown. */
void analyze_print_atomicity(FILE *out, const analyze_out *ao);
struct ft_json;
/* The confirmation of violation i as one JSON object. */
void analyze_json_confirm(struct ft_json *j, const analyze_out *ao, size_t i);
void analyze_json_confirmation(struct ft_json *j,
                               const struct fr_confirmation *c);

/* ---- the property kinds (analyze_kinds.c) ---------------------------- */

/* The recorded program and its arguments from the trace header, when the
 * binary there is the build the trace recorded: a NULL-terminated argv
 * (free with analyze_free_argv), or NULL with why set. */
char **analyze_recorded_program(const char *trace, char *why, size_t len);
void analyze_free_argv(char **argv);
/* Writes the schedule of each violated kind property (made and solved
 * with the atomicity ones, under the same --time) into dir.  Returns the
 * exit code: 0, or 4. */
int analyze_kinds(analyze_out *ao, ft_pipeline *pl, const char *dir);
/* Replays every kind schedule written. */
int analyze_confirm_kinds(analyze_out *ao, const analyze_confirm_opts *co);
/* Kind findings that are bugs: confirmed (when replayed) and, for the
 * kinds whose replay only shows the reordering, made the program fail;
 * without replay, every one predicted. */
size_t analyze_kind_bugs(const analyze_out *ao);
/* Predicted violations (atomicity and kinds) whose replay did not run
 * (--time ran out first): undecided, not clean. */
size_t analyze_not_replayed(const analyze_out *ao);
/* Atomicity witnesses that diverged and whose refinement the time (or
 * its share of it) stopped: undecided, not clean. */
size_t analyze_unrefined(const analyze_out *ao);
void analyze_free_kinds(analyze_out *ao);

/* ---- findings grouped per static bug (analyze_findings.c) ------------ */

/* The kind findings, one group per kind and sites, with the number of
 * dynamic instances, each event with its site, call stack and locks
 * held, the schedule and what its replay showed. */
void analyze_print_findings(FILE *out, const analyze_out *ao);
/* The same as the JSON "findings" array (atomicity violations too, each
 * with its kind, sites and fingerprint). */
void analyze_json_findings(struct ft_json *j, const analyze_out *ao);
/* The kinds' candidates left undecided (unknown, error), each with its
 * sites and why: a warning line each (at most 20, then a count), and the
 * JSON "kind_unsolved" array (all of them).  Those the bound left
 * unsolved are only counted ("kind_not_solved"). */
void analyze_print_kind_unknown(FILE *out, const analyze_out *ao);
void analyze_json_kind_unknown(struct ft_json *j, const analyze_out *ao);

#endif

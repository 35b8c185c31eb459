/* SPDX-License-Identifier: MIT */
/* confirm.h - confirming predicted violations (`foretell analyze
 * --confirm`): replay each predicted schedule against the real program;
 * the violation is confirmed when the schedule is followed up to its
 * violating accesses, spurious where the program departed from it.  BEST
 * only drops spurious schedules; we go further and refine: the diverged
 * run is recorded to its end, analyzed again, and the same regions'
 * violation (same threads, functions and lines) is predicted and replayed
 * on that new trace, up to a bound of rounds.  A violation that happens
 * but does not make the run fail under the default tail (no preemption
 * after the schedule) is replayed again with random tails, to find the
 * failure it can lead to.  docs/replay.md. */
#ifndef FORETELL_REPLAY_CONFIRM_H
#define FORETELL_REPLAY_CONFIRM_H

#include "predict/predict.h"
#include "replay/replay.h"

typedef struct fr_confirm_opts {
    char *const *argv;        /* the program and its arguments */
    const char *dir;          /* where replay traces and schedules go */
    double timeout_s;         /* a replayed run without progress this
                                 long is hung (fr_run_opts.stall_s), 0 =
                                 no such bound */
    uint64_t max_steps;       /* key points per replayed run, 0 = the
                                 larger of FR_CONFIRM_MAX_STEPS and 4
                                 times the recorded run's events */
    unsigned refine;          /* refinement rounds after a divergence */
    unsigned tails;           /* confirmed but no failure: replays with a
                                 random tail after the schedule, at most */
    double tails_more_until;  /* CLOCK_MONOTONIC s, 0 none: after the
                                 tails, more (up to FR_TAILS_MORE_MAX in
                                 all) while it has not passed (batch
                                 analyze --tail-time; analyze gives its
                                 tails out in turns instead) */
    const fi_options *infer;  /* for re-analyzing a diverged run */
    const ft_predict_opts *predict;
    double until;                /* CLOCK_MONOTONIC s (ft_now), 0 none: no
                                    replay (tail, refinement) starts after
                                    it, and one running then is stopped
                                    (FR_UNFINISHED: fr_confirm_cut) */
    double tail_until;           /* CLOCK_MONOTONIC s, 0 none: a replay
                                    past its schedule (its violation
                                    reached, the tail running) still
                                    going then is stopped (FR_UNFINISHED,
                                    fr_run_opts.tail_until); its share of
                                    the time (analyze: what is left of
                                    --time over the witnesses still to
                                    replay), so that one whose tail runs
                                    on cannot leave the others
                                    unreplayed */
    double refine_until;         /* CLOCK_MONOTONIC s, 0 none: a
                                    refinement (fr_confirm_refine: its
                                    replays and its re-analysis) stops
                                    then, as at until; analyze gives each
                                    its share of what is left of --time
                                    (over the refinements still to make
                                    and the tails owed), so that one
                                    cannot take the time of the others and
                                    of the tails (SV-COMP gcd-2: one took
                                    the last 50 s of --time 60) */
    void (*tick)(void *arg);     /* fr_run_opts.tick of every replay */
    void *tick_arg;
    const ft_pipeline *recorded; /* the recorded run's analysis, or NULL:
                                 a replay's API misuse at a call where the
                                 recorded run misused it too is not a
                                 failure the schedule caused */
} fr_confirm_opts;

/* A replayed run reaching this many key points is a livelock (hang),
 * as explore's --max-run-events default. */
#define FR_CONFIRM_MAX_STEPS 20000000ull
/* Random tails of one finding at most, --tail-time's included: a
 * failure that needs many switches in a row (SV-COMP's fib_bench-2,
 * about one random tail in 300) is found by hundreds of tails. */
#define FR_TAILS_MORE_MAX 4096u

void fr_confirm_opts_default(fr_confirm_opts *o);

enum fr_confirm_status {
    FR_CONFIRMED = 0,  /* followed up to the violating accesses */
    FR_SPURIOUS = 1,   /* diverged, and refinement found no way */
    FR_REFINED = 2,    /* confirmed on a refined schedule */
    FR_NOT_RUN = 3,    /* the program could not be run (error set) */
    FR_FAILED_EARLY = 4, /* followed until the program failed, before the
                            schedule's end: the interleaving is real and
                            it breaks the program */
    FR_NOT_REPRODUCED = 5, /* property kinds (confirm_kind.c): followed,
                              but the run did not show the predicted state
                              (no deadlock, no heap error) */
};

typedef struct fr_confirmation {
    int status;              /* enum fr_confirm_status */
    fr_outcome outcome;      /* of the last replay (failure, divergence) */
    fr_outcome first;        /* of the first replay (where it diverged) */
    char trace[1024];        /* the last replay's trace */
    char schedule[1024];     /* the schedule that confirmed, or last tried */
    unsigned rounds;         /* refinement rounds made */
    char note[1024];         /* what refinement found, "" if none made */
    unsigned tails_tried;    /* random tails run after the schedule */
    char tail[64];           /* FORETELL_STRATEGY of the tail that made
                                the run fail, "" if none did */
    char failing_schedule[1024]; /* that failing run as a schedule file */
    char alt[1024];              /* an atomicity finding's alternative witness
                                    (predict/trim.c), followed without a
                                    failure and replayed without tails: its
                                    tails are owed (fr_confirm_atom_tail);
                                    "" if none */
    int write_errno;         /* a replay's trace could not be written (a
                                full disk): fr_confirm returned -1 */
    int refine_cut;          /* FR_SPURIOUS whose refinement the time
                                (--time, or its share) stopped before it
                                was done: undecided, not clean */
} fr_confirmation;

const char *fr_confirm_status_name(int status);
/* Whether o's time is up: no replay may start (fr_confirm_opts.until). */
int fr_confirm_time_up(const fr_confirm_opts *o);
/* The end of one share of what is left before until (CLOCK_MONOTONIC s),
 * over left shares, at least 1 s; 0 without until.  analyze gives each
 * witness's tail and each refinement one (tail_until, refine_until), and
 * so does batch each refinement of a trace. */
double fr_confirm_share_until(double until, size_t left);
/* The same as one word for JSON and stores: "confirmed", "refined",
 * "failed_early", "spurious", "not_run". */
const char *fr_confirm_status_id(int status);

/* Confirms violated property i of pl, whose schedule is schedule_path.
 * 0 (see c->status), -1 with err set when the program cannot be run.
 * With o->refine 0 a divergence stays FR_SPURIOUS, and
 * fr_confirm_refine refines it later (analyze replays every witness
 * once before any refinement: a refinement re-analyzes a run and can
 * take the time left). */
int fr_confirm(const ft_pipeline *pl, size_t i, const char *schedule_path,
               const fr_confirm_opts *o, fr_confirmation *c, ft_error *err);
/* The refinement rounds of c, a spurious confirmation fr_confirm made of
 * property i (schedule_path as given to it), up to o->refine; nothing
 * when c is not FR_SPURIOUS.  The re-analysis calls o->tick. */
int fr_confirm_refine(const ft_pipeline *pl, size_t i,
                      const char *schedule_path, const fr_confirm_opts *o,
                      fr_confirmation *c, ft_error *err);
/* Random tail k (1 ..) of an atomicity finding fr_confirm confirmed
 * with o->tails 0 whose run did not fail (fr_confirm_wants_tails): after
 * its schedule, then after its alternative witness's (kept, with a note,
 * when it fails).  So analyze replays every finding's witness before any
 * finding's tails, then gives the tails out in turns
 * (cli/analyze_confirm.c), as for the other kinds.  schedule_path: the
 * one fr_confirm was given (it names the files).  1 when the program
 * failed, 0 not, -1 with err set; fr_confirm_atom_tails_done cleans up
 * after the last. */
int fr_confirm_wants_tails(const fr_confirmation *c);
int fr_confirm_atom_tail(const char *schedule_path, const fr_confirm_opts *o,
                         fr_confirmation *c, unsigned k, ft_error *err);
void fr_confirm_atom_tails_done(const char *schedule_path,
                                const fr_confirm_opts *o);
/* The first part of fr_confirm, for a schedule without its analysis
 * (`foretell batch confirm` replays stored witnesses): replayed, and
 * when followed without a failure, replayed with random tails; a
 * divergence is FR_SPURIOUS (no refinement: that needs the analysis). */
int fr_confirm_schedule(const char *schedule_path, const fr_confirm_opts *o,
                        fr_confirmation *c, ft_error *err);

/* The pieces fr_confirm is made of, for confirm_kind.c: one replay of a
 * schedule (a trace it could not write sets c->write_errno); whether the program followed it until it failed before its
 * end (confirmed); replays of the schedule with random tails until one
 * fails (c->schedule is replayed; base[0..blen) names the files). */
int fr_confirm_replay(const fr_confirm_opts *o, fr_confirmation *c,
                      const char *schedule, const char *trace, int diverge,
                      fr_outcome *out, ft_error *err);
int fr_failed_early(const fr_outcome *o);
/* A replay of c stopped when the analysis's time ran out (FR_UNFINISHED)
 * before it showed anything: before the schedule's end, or after it when
 * !shown (the state a kind expects did not come in time).  Then c is
 * FR_NOT_RUN, its note says so, and 1 is returned; else 0. */
int fr_confirm_cut(fr_confirmation *c, int shown);
int fr_confirm_tails(const fr_confirm_opts *o, fr_confirmation *c,
                     const char *base, int blen, ft_error *err);
/* One of them, random:seed=k: 1 when it made the program fail (c takes
 * its outcome, trace and failing schedule), 0 not, -1 on error; and the
 * cleanup after the last that did not (its trace is removed). */
int fr_confirm_tail(const fr_confirm_opts *o, fr_confirmation *c,
                    const char *base, int blen, unsigned k, ft_error *err);
void fr_confirm_tails_done(const fr_confirm_opts *o, const char *base,
                           int blen);
/* The files of a finding whose schedule is path are named by its base
 * name up to the first dot: that name, its length in *blen. */
const char *fr_confirm_base(const char *path, int *blen);
/* Tail k after c's schedule, then (alt non-NULL) after alt, their files
 * named base and base.alt: 1 when the schedule's run failed, 2 when
 * alt's did (c then holds alt's run, schedule and tail; the caller says
 * why in c->note), 0 neither, -1 with err set.  A run that failed leaves
 * no trace of the other's last tail; fr_confirm_pair_done cleans up
 * after the last turn when neither did. */
int fr_confirm_tail_or_alt(const fr_confirm_opts *o, fr_confirmation *c,
                           const char *base, int blen, const char *alt,
                           unsigned k, ft_error *err);
void fr_confirm_pair_done(const fr_confirm_opts *o, const char *base, int blen);

/* Confirms violated kind property i of pl (pl->kprops, predict/kind.h):
 * replays its schedule and checks what the kind expects (a deadlock, a
 * heap error, the state reached), with random tails after a state that
 * did not make the program fail; alt (may be NULL) is a second schedule
 * (a race's other order) replayed the same way when the first shows no
 * failure.  0 (see c->status), -1 with err set when the program cannot
 * be run. */
int fr_confirm_kind(const ft_pipeline *pl, size_t i, const char *schedule,
                    const char *alt, const fr_confirm_opts *o,
                    fr_confirmation *c, ft_error *err);
/* Random tail k (1 ..) for a finding fr_confirm_kind confirmed with
 * o->tails 0 whose run reached its state without failing: after the
 * schedule, then after alt's (kept, with a note, when it fails).  So
 * analyze replays every finding's witness before any finding's tails,
 * then gives the tails out in turns (cli/analyze_kinds.c).  1 when the
 * program failed, 0 not (or nothing to do), -1 with err set. */
int fr_confirm_kind_tail(const ft_pipeline *pl, size_t i, const char *alt,
                         const fr_confirm_opts *o, fr_confirmation *c,
                         unsigned k, ft_error *err);
/* Whether fr_confirm_kind_tail has anything to do for c; the cleanup
 * when its tails are over (their traces removed). */
int fr_confirm_kind_wants_tails(const ft_pipeline *pl, size_t i,
                                const fr_confirmation *c);
void fr_confirm_kind_tails_done(const fr_confirm_opts *o,
                                const fr_confirmation *c);
/* The same for a schedule without its analysis (`foretell batch confirm`
 * replays stored witnesses): expect is the kind's (enum ft_expect,
 * predict/kind.h). */
int fr_confirm_expect(int expect, const char *schedule, const char *alt,
                      const fr_confirm_opts *o, fr_confirmation *c,
                      ft_error *err);

#endif

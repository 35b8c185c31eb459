/* SPDX-License-Identifier: MIT */
/* confirm.c - fr_confirm: replays a predicted schedule and, when the
 * program departs from it, refines: the diverged run is recorded to its
 * end (divergence "continue"), analyzed again with the same options, and
 * the violation of the same regions (matched by thread, function, file
 * and lines, since event indices change between runs) is predicted on the
 * new trace and replayed, up to o->refine rounds.  A prediction rests on
 * the recorded reads; when the real program reads otherwise, the new
 * trace holds the values it really reads, so the next prediction is made
 * from the truth of that run. */
#define _GNU_SOURCE
#include "replay/confirm.h"
#include "replay/explore.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void fr_confirm_opts_default(fr_confirm_opts *o)
{
    memset(o, 0, sizeof *o);
    o->refine = 2;
    o->tails = 16;
    o->timeout_s = 30;
}

int fr_confirm_time_up(const fr_confirm_opts *o)
{
    return o->until > 0 && ft_now() >= o->until;
}

/* At least this much of the time for a witness's tail or a refinement. */
#define SHARE_MIN_S 1.0

double fr_confirm_share_until(double until, size_t left)
{
    if (until <= 0 || !left)
        return 0;
    double now = ft_now(), share = (until - now) / (double)left;
    return now + (share < SHARE_MIN_S ? SHARE_MIN_S : share);
}

const char *fr_confirm_status_name(int status)
{
    switch (status) {
    case FR_CONFIRMED: return "confirmed";
    case FR_SPURIOUS: return "spurious";
    case FR_REFINED: return "confirmed after refinement";
    case FR_NOT_RUN: return "not run";
    case FR_FAILED_EARLY: return "confirmed: the program failed before the "
                                 "schedule's end";
    case FR_NOT_REPRODUCED: return "not reproduced";
    default: return "?";
    }
}

const char *fr_confirm_status_id(int status)
{
    switch (status) {
    case FR_CONFIRMED: return "confirmed";
    case FR_SPURIOUS: return "spurious";
    case FR_REFINED: return "refined";
    case FR_NOT_RUN: return "not_run";
    case FR_FAILED_EARLY: return "failed_early";
    case FR_NOT_REPRODUCED: return "not_reproduced";
    default: return "?";
    }
}

/* Where a region is in the source: what survives a new run. */
typedef struct region_key {
    uint32_t tid, line_lo, line_hi;
    const char *function, *file;
} region_key;

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_region(const region_key *x, const region_key *y)
{
    return x->tid == y->tid && x->line_lo == y->line_lo &&
           x->line_hi == y->line_hi && same_str(x->function, y->function) &&
           same_str(x->file, y->file);
}

/* The regions of pipeline property i: 1 for CA, 2 for CMA. */
static int keys_of(const ft_pipeline *pl, size_t i, region_key k[2])
{
    const fi_property *fp = &pl->infer.props[pl->props[i].id];
    uint32_t ids[2] = {fp->r1, fp->r2};
    int n = fp->kind == FI_PROP_CMA ? 2 : 1;
    for (int g = 0; g < n; g++) {
        const fi_region *r = ft_pipeline_region(pl, ids[g]);
        if (!r)
            return 0;
        k[g] = (region_key){r->tid, r->line_lo, r->line_hi, r->function,
                            r->file};
    }
    return n;
}

static int matches(const ft_pipeline *pl, size_t j, const region_key *want,
                   int nwant)
{
    region_key k[2];
    int n = keys_of(pl, j, k);
    if (n != nwant)
        return 0;
    if (n == 1)
        return same_region(&k[0], &want[0]);
    return (same_region(&k[0], &want[0]) && same_region(&k[1], &want[1])) ||
           (same_region(&k[0], &want[1]) && same_region(&k[1], &want[0]));
}

/* A misuse at a call where the recorded run (which passed) misused the
 * API too happens whatever the schedule: it proves no finding.  The run
 * counts as one that did not fail (the detail keeps what it did). */
static void known_misuse(const fr_confirm_opts *o, fr_outcome *out)
{
    const ft_pipeline *pl = o->recorded;
    if (!pl || out->failure != FR_MISUSE)
        return;
    for (size_t k = 0; k < pl->nmisuse; k++) {
        uint64_t ev = pl->misuse[k].event;
        const ft_site *s =
            ev < pl->trace.nev ? fi_trace_site_get(&pl->trace,
                                                   pl->trace.ev[ev].site)
                               : NULL;
        char site[sizeof out->site];
        if (!s || !s->file)
            continue;
        snprintf(site, sizeof site, "%s:%u", s->file, s->line);
        if (strcmp(site, out->site) != 0)
            continue;
        out->failure = FR_OK;
        fr_detail_prepend(out, "no failure but the API misuse the recorded "
                               "run showed too: ");
        return;
    }
}

/* One replay; a run whose trace could not be written (a full disk) is
 * a failure of the confirmation (c->write_errno: exit 4). */
static int replay_tail(const fr_confirm_opts *o, fr_confirmation *c,
                       const char *schedule, const char *trace, int diverge,
                       const char *tail, fr_outcome *out, ft_error *err)
{
    fr_run_opts ro;
    fr_run_opts_default(&ro);
    ro.argv = o->argv;
    ro.trace_out = trace;
    ro.schedule = schedule;
    ro.strategy = tail;
    ro.diverge = diverge;
    /* a hang is judged by progress, not wall time: a long program
     * controlled step by step is slow, not hung (a 10^7-event work queue
     * was reported hung at 30 s); a livelock, whose key points go on, ends
     * at the key-point bound; --time's end stops the run (unfinished) */
    ro.stall_s = o->timeout_s;
    ro.until = o->until;
    ro.tail_until = o->tail_until;
    ro.max_steps = o->max_steps;
    if (!ro.max_steps) { /* and at least 4 times the recorded run's */
        uint64_t rec = o->recorded ? 4 * (uint64_t)o->recorded->trace.nev : 0;
        ro.max_steps = rec > FR_CONFIRM_MAX_STEPS ? rec : FR_CONFIRM_MAX_STEPS;
    }
    ro.quiet = 1;
    ro.tick = o->tick;
    ro.tick_arg = o->tick_arg;
    int rc = fr_run(&ro, out, err);
    if (out->write_errno)
        c->write_errno = out->write_errno;
    if (rc >= 0)
        known_misuse(o, out);
    return rc;
}

int fr_confirm_replay(const fr_confirm_opts *o, fr_confirmation *c,
                      const char *schedule, const char *trace, int diverge,
                      fr_outcome *out, ft_error *err)
{
    return replay_tail(o, c, schedule, trace, diverge, NULL, out, err);
}

/* The program followed every step until it failed, before the schedule's
 * end (an assertion right after the violating reads, before the other
 * thread's last violating write): not a departure from the schedule. */
int fr_failed_early(const fr_outcome *o)
{
    return o->diverged && o->ended_early && o->failure != FR_OK &&
           o->failure != FR_DIVERGED && o->failure != FR_HANG &&
           o->failure != FR_EXIT && o->failure != FR_UNFINISHED;
}

int fr_confirm_cut(fr_confirmation *c, int shown)
{
    const fr_outcome *out = &c->outcome;
    if (out->failure != FR_UNFINISHED || (shown && !out->diverged))
        return 0;
    c->status = FR_NOT_RUN;
    if (!out->steps_total) /* stopped before its trace began */
        snprintf(c->note, sizeof c->note,
                 "not finished: the analysis's "
                 "time (--time) ran out as the replay began");
    else
        snprintf(c->note, sizeof c->note,
                 "not finished: the analysis's "
                 "time (--time) ran out during the replay (%.1f s, %llu of "
                 "%llu steps followed)",
                 out->seconds, (unsigned long long)out->steps_followed,
                 (unsigned long long)out->steps_total);
    return 1;
}

/* The violation happened but the run went on without failing under the
 * default tail (the running thread keeps going).  The failure it leads to
 * may need other threads to move first: replay the same schedule with
 * random tails (seeds 1..o->tails) and keep the first run that fails,
 * with its schedule (every switch of that run) so it replays exactly. */
int fr_confirm_tail(const fr_confirm_opts *o, fr_confirmation *c,
                    const char *base, int blen, unsigned k, ft_error *err)
{
    char trace[1000], spec[64];
    snprintf(trace, sizeof trace, "%.800s/%.*s.tail.ftrace", o->dir, blen,
             base);
    fr_outcome out;
    snprintf(spec, sizeof spec, "random:seed=%u", k);
    if (replay_tail(o, c, c->schedule, trace, FR_DIVERGE_STOP, spec, &out,
                    err) < 0)
        return -1;
    c->tails_tried = k;
    if (out.diverged || out.failure == FR_OK || out.failure == FR_UNFINISHED)
        return 0;
    c->outcome = out;
    snprintf(c->trace, sizeof c->trace, "%s", trace);
    snprintf(c->tail, sizeof c->tail, "%s", spec);
    char path[1000], note[200];
    snprintf(path, sizeof path, "%.800s/%.*s.failing.schedule", o->dir, blen,
             base);
    snprintf(note, sizeof note, "the violation, then tail %s: %s", spec,
             fr_failure_name(out.failure));
    ft_error e;
    if (fx_schedule_from_trace(trace, path, note, 0, &e) == 0)
        snprintf(c->failing_schedule, sizeof c->failing_schedule, "%s", path);
    return 1;
}

void fr_confirm_tails_done(const fr_confirm_opts *o, const char *base, int blen)
{
    char trace[1000];
    snprintf(trace, sizeof trace, "%.800s/%.*s.tail.ftrace", o->dir, blen,
             base);
    unlink(trace); /* the last attempt shows nothing the first did not */
}

int fr_confirm_tails(const fr_confirm_opts *o, fr_confirmation *c,
                     const char *base, int blen, ft_error *err)
{
    for (unsigned k = 1; !fr_confirm_time_up(o); k++) {
        if (k > o->tails &&
            (k > FR_TAILS_MORE_MAX || o->tails_more_until <= 0 ||
             ft_now() >= o->tails_more_until))
            break;
        int r = fr_confirm_tail(o, c, base, blen, k, err);
        if (r != 0)
            return r < 0 ? -1 : 0;
    }
    fr_confirm_tails_done(o, base, blen);
    return 0;
}

/* What a finding confirmed by its alternative witness says. */
static void alt_note(fr_confirmation *alt, const char *path)
{
    snprintf(alt->note, sizeof alt->note,
             "the witness's violating reads see fewer writes without "
             "failing; with the writes the solver had them read (%.600s) "
             "the program fails",
             path);
}

/* The violation happened without a failure, tails included: replay the
 * alternative witness (the violating reads reading the writes the solver's
 * witness had them read, predict/trim.c), with tails too.  Keeps c as it
 * was unless the alternative makes the program fail. */
static int try_alt(const ft_pipeline *pl, size_t i, const fr_confirm_opts *o,
                   fr_confirmation *c, const char *base, int blen,
                   ft_error *err)
{
    char path[1000], why[300], trace[1000];
    int w = ft_pipeline_write_alt_schedule(pl, i, o->dir, path, sizeof path,
                                           why, sizeof why);
    if (w <= 0)
        return 0;
    snprintf(trace, sizeof trace, "%.800s/%.*s.alt.replay.ftrace", o->dir,
             blen, base);
    fr_outcome out;
    if (fr_confirm_replay(o, c, path, trace, FR_DIVERGE_STOP, &out, err) < 0)
        return -1;
    if (out.failure == FR_UNFINISHED)
        return 0; /* --time ran out: c stays as it was */
    fr_confirmation alt = *c;
    alt.outcome = out;
    snprintf(alt.schedule, sizeof alt.schedule, "%s", path);
    snprintf(alt.trace, sizeof alt.trace, "%s", trace);
    alt.tail[0] = alt.failing_schedule[0] = 0;
    if (fr_failed_early(&out))
        alt.status = FR_FAILED_EARLY;
    else if (out.diverged)
        return 0;
    else if (out.failure == FR_OK) {
        char b2[300];
        snprintf(b2, sizeof b2, "%.*s.alt", blen, base);
        if (fr_confirm_tails(o, &alt, b2, (int)strlen(b2), err) < 0) {
            c->write_errno = alt.write_errno;
            return -1;
        }
        if (alt.outcome.failure == FR_OK && !o->tails)
            snprintf(c->alt, sizeof c->alt, "%s", path); /* tails owed */
        if (alt.outcome.failure == FR_OK ||
            alt.outcome.failure == FR_UNFINISHED)
            return 0;
    }
    alt_note(&alt, path);
    *c = alt;
    return 0;
}

int fr_confirm_wants_tails(const fr_confirmation *c)
{
    return (c->status == FR_CONFIRMED || c->status == FR_REFINED) &&
           c->outcome.failure == FR_OK && !c->tail[0];
}

const char *fr_confirm_base(const char *path, int *blen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    *blen = (int)strcspn(base, ".");
    return base;
}

int fr_confirm_tail_or_alt(const fr_confirm_opts *o, fr_confirmation *c,
                           const char *base, int blen, const char *alt,
                           unsigned k, ft_error *err)
{
    char abase[300];
    snprintf(abase, sizeof abase, "%.*s.alt", blen, base);
    int r = fr_confirm_tail(o, c, base, blen, k, err);
    if (r > 0 && alt) /* the alternative's last tail: not needed */
        fr_confirm_tails_done(o, abase, (int)strlen(abase));
    if (r != 0 || !alt)
        return r;
    fr_confirmation a = *c;
    snprintf(a.schedule, sizeof a.schedule, "%s", alt);
    r = fr_confirm_tail(o, &a, abase, (int)strlen(abase), k, err);
    if (r < 0)
        c->write_errno = a.write_errno;
    if (r <= 0)
        return r;
    fr_confirm_tails_done(o, base, blen);
    *c = a;
    return 2;
}

void fr_confirm_pair_done(const fr_confirm_opts *o, const char *base, int blen)
{
    char abase[300];
    snprintf(abase, sizeof abase, "%.*s.alt", blen, base);
    fr_confirm_tails_done(o, base, blen);
    fr_confirm_tails_done(o, abase, (int)strlen(abase));
}

int fr_confirm_atom_tail(const char *schedule_path, const fr_confirm_opts *o,
                         fr_confirmation *c, unsigned k, ft_error *err)
{
    if (!fr_confirm_wants_tails(c))
        return 0;
    int blen;
    const char *base = fr_confirm_base(schedule_path, &blen);
    char alt[sizeof c->alt];
    snprintf(alt, sizeof alt, "%s", c->alt);
    int r =
        fr_confirm_tail_or_alt(o, c, base, blen, alt[0] ? alt : NULL, k, err);
    if (r > 0)
        c->alt[0] = 0; /* no tails owed */
    if (r == 2)
        alt_note(c, alt);
    return r > 0 ? 1 : r;
}

void fr_confirm_atom_tails_done(const char *schedule_path,
                                const fr_confirm_opts *o)
{
    int blen;
    const char *base = fr_confirm_base(schedule_path, &blen);
    fr_confirm_pair_done(o, base, blen);
}

/* Progress of a refinement's re-analysis: the replays' tick, so that a
 * long one is not silence. */
static void refine_progress(void *arg, const char *stage, uint64_t done,
                            uint64_t total)
{
    (void)stage, (void)done, (void)total;
    const fr_confirm_opts *o = arg;
    if (o->tick)
        o->tick(o->tick_arg);
}

/* FORETELL_TEST_REFINE_STALL=S: the tests' stand-in for the
 * re-analysis of a long diverged run, S seconds (at most 60) cut at
 * o->until as the real one is (tests/confirm/confirm_cli.sh: each
 * refinement gets its share of --time). */
static void test_stall(const fr_confirm_opts *o)
{
    const char *v = getenv("FORETELL_TEST_REFINE_STALL");
    if (!v || !*v)
        return;
    double end = ft_now() + fmin(atof(v), 60);
    if (o->until > 0 && o->until < end)
        end = o->until;
    while (ft_now() < end)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
}

/* Analyzes trace and keeps only the properties of the wanted regions;
 * solves them.  Returns the number violated, -1 if the trace is unusable
 * or the time (whose: which) ran out first, with note saying so. */
static long reanalyze(ft_pipeline *pl, const char *trace,
                      const fr_confirm_opts *o, const char *whose,
                      const region_key *want, int nwant, char *note,
                      size_t notelen)
{
    ft_error e;
    /* under what is left of the analysis's --time: a spinning program's
     * diverged run is a long trace, and its re-analysis ran minutes past
     * the bound (SV-COMP's dekker and szymanski, killed at 180 s under
     * --time 60) */
    test_stall(o);
    ft_budget budget = {o->until, 0, refine_progress, (void *)o, 0};
    if (ft_pipeline_load_bounded(pl, trace, FT_INPUT_FORETELL,
                                 o->until > 0 || o->tick ? &budget : NULL,
                                 &e) < 0 ||
        ft_pipeline_infer(pl, o->infer, &e) < 0) {
        snprintf(note, notelen, "the diverged run's trace %.600s cannot "
                 "be analyzed: %.256s", trace, e.message);
        return -1;
    }
    if (pl->stopped) {
        snprintf(note, notelen,
                 "not refined: %s ran out in %s of the "
                 "diverged run's trace %.600s",
                 whose, pl->stopped, trace);
        return -1;
    }
    size_t kept = 0;
    for (size_t j = 0; j < pl->nprops; j++)
        if (matches(pl, j, want, nwant))
            pl->props[kept++] = pl->props[j];
    pl->nprops = kept;
    ft_predict_opts po;
    if (o->predict)
        po = *o->predict;
    else
        ft_predict_opts_default(&po);
    if (o->until > 0)
        po.until = o->until;
    return ft_pipeline_predict(pl, &po, 1, NULL, NULL);
}

int fr_confirm_schedule(const char *schedule_path, const fr_confirm_opts *o,
                        fr_confirmation *c, ft_error *err)
{
    memset(c, 0, sizeof *c);
    int blen;
    const char *base = fr_confirm_base(schedule_path, &blen);
    snprintf(c->trace, sizeof c->trace, "%.900s/%.*s.replay.ftrace", o->dir,
             blen, base);
    snprintf(c->schedule, sizeof c->schedule, "%s", schedule_path);
    if (fr_confirm_replay(o, c, schedule_path, c->trace, FR_DIVERGE_STOP, &c->outcome,
               err) < 0) {
        c->status = FR_NOT_RUN;
        return -1;
    }
    c->first = c->outcome;
    if (fr_confirm_cut(c, 1))
        return 0;
    if (fr_failed_early(&c->outcome)) {
        c->status = FR_FAILED_EARLY;
        return 0;
    }
    if (!c->outcome.diverged) {
        c->status = FR_CONFIRMED;
        if (c->outcome.failure == FR_OK &&
            fr_confirm_tails(o, c, base, blen, err) < 0)
            return -1;
        return 0;
    }
    c->status = FR_SPURIOUS;
    return 0;
}

int fr_confirm(const ft_pipeline *pl, size_t i, const char *schedule_path,
               const fr_confirm_opts *o, fr_confirmation *c, ft_error *err)
{
    if (fr_confirm_schedule(schedule_path, o, c, err) < 0)
        return -1;
    int blen;
    const char *base = fr_confirm_base(schedule_path, &blen);
    if (c->status == FR_CONFIRMED && c->outcome.failure == FR_OK)
        return try_alt(pl, i, o, c, base, blen, err);
    return fr_confirm_refine(pl, i, schedule_path, o, c, err);
}

int fr_confirm_refine(const ft_pipeline *pl, size_t i,
                      const char *schedule_path, const fr_confirm_opts *o,
                      fr_confirmation *c, ft_error *err)
{
    if (c->status != FR_SPURIOUS || !o->refine)
        return 0;
    int blen;
    const char *base = fr_confirm_base(schedule_path, &blen);
    region_key want[2];
    int nwant = keys_of(pl, i, want);
    if (!nwant)
        return 0;
    /* within its share of the time (refine_until), said as such */
    fr_confirm_opts own = *o;
    double whole_until = o->until; /* the command's */
    const char *whose = "the analysis's time";
    if (o->refine_until > 0 && (o->until <= 0 || o->refine_until < o->until)) {
        own.until = o->refine_until;
        whose = "its share of the analysis's time";
    }
    o = &own;
    for (unsigned round = 1; round <= o->refine; round++) {
        if (fr_confirm_time_up(o)) {
            snprintf(c->note, sizeof c->note, "not refined: %s ran out", whose);
            c->refine_cut = 1;
            return 0;
        }
        c->rounds = round;
        char rdir[700], rtrace[800], sched[900], why[300];
        snprintf(rdir, sizeof rdir, "%.500s/%.*s.refine-%u", o->dir, blen, base,
                 round);
        if (mkdir(rdir, 0777) != 0 && errno != EEXIST) {
            snprintf(c->note, sizeof c->note, "cannot create %.700s: %s", rdir,
                     strerror(errno));
            return 0;
        }
        /* The diverged run, to its end: what the program really does. */
        snprintf(rtrace, sizeof rtrace, "%.700s/diverged.ftrace", rdir);
        fr_outcome full;
        if (fr_confirm_replay(o, c, c->schedule, rtrace, FR_DIVERGE_CONTINUE, &full,
                   err) < 0)
            return -1;
        ft_pipeline next;
        long viol = reanalyze(&next, rtrace, o, whose, want, nwant, c->note,
                              sizeof c->note);
        if (viol <= 0) {
            c->refine_cut = next.stopped != NULL || next.nskipped > 0;
            if (viol == 0 && next.nunknown)
                snprintf(c->note, sizeof c->note,
                         "round %u: no violation "
                         "of these regions found on the diverged run (%s): "
                         "%zu of its %zu properties undecided, %s%s",
                         round, rtrace, next.nunknown, next.nprops,
                         next.nskipped ? whose : "by the solver",
                         next.nskipped ? " ran out" : "");
            else if (viol == 0)
                snprintf(c->note, sizeof c->note, "round %u: the diverged "
                         "run (%s) admits no violation of these regions",
                         round, rtrace);
            ft_pipeline_free(&next);
            return 0;
        }
        size_t j = 0;
        while (next.results[j].verdict != FT_VIOLATED)
            j++;
        if (ft_pipeline_write_schedule(&next, j, rdir, sched, sizeof sched,
                                       why, sizeof why) < 0) {
            snprintf(c->note, sizeof c->note, "round %u: %.300s", round, why);
            ft_pipeline_free(&next);
            return 0;
        }
        ft_pipeline_free(&next);
        snprintf(c->schedule, sizeof c->schedule, "%s", sched);
        snprintf(c->trace, sizeof c->trace, "%.700s/replay.ftrace", rdir);
        if (fr_confirm_replay(o, c, c->schedule, c->trace, FR_DIVERGE_STOP, &c->outcome,
                   err) < 0)
            return -1;
        if (o->until != whole_until && c->outcome.failure == FR_UNFINISHED &&
            c->outcome.diverged) { /* stopped at its share: still spurious */
            snprintf(c->note, sizeof c->note,
                     "not refined: %s ran out "
                     "during the replay of %.800s",
                     whose, c->schedule);
            c->refine_cut = 1;
            return 0;
        }
        if (fr_confirm_cut(c, 1))
            return 0;
        if (fr_failed_early(&c->outcome)) {
            c->status = FR_FAILED_EARLY;
            snprintf(c->note, sizeof c->note, "round %u: re-predicted on the "
                     "diverged run: %.900s", round, c->schedule);
            return 0;
        }
        if (!c->outcome.diverged) {
            c->status = FR_REFINED;
            snprintf(c->note, sizeof c->note, "round %u: re-predicted on the "
                     "diverged run and followed: %.900s", round, c->schedule);
            return c->outcome.failure == FR_OK
                       ? fr_confirm_tails(o, c, base, blen, err)
                       : 0;
        }
        snprintf(c->note, sizeof c->note, "round %u: the refined schedule "
                 "%.500s diverged too: %.400s", round, c->schedule,
                 c->outcome.divergence);
    }
    return 0;
}

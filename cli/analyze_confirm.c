/* SPDX-License-Identifier: MIT */
/* analyze_confirm.c - `foretell analyze TRACE --confirm -- PROG [ARGS]`:
 * replays every predicted schedule against the program (replay/confirm.h)
 * and says, per violation, whether it was confirmed, confirmed after
 * refinement, or spurious (where it diverged), and which failure it led
 * to.  Printing lives here too, so analyze_report.c only calls in. */
#include "cli/analyze_cmd.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "replay/confirm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void talk_line(analyze_talk *t, double now)
{
    char where[128] = "";
    if (t->schedule) {
        const char *b = strrchr(t->schedule, '/');
        snprintf(where, sizeof where, ": %.80s, %.0f s",
                 b ? b + 1 : t->schedule, now - t->start);
    }
    fprintf(stderr, "%sforetell analyze: %.0f s: %s %zu/%zu%s%s",
            t->tty ? "\r" : "", now - t->t0, t->what, t->done, t->total, where,
            t->tty ? "\033[K" : "\n");
    t->open = t->tty;
    t->last = now;
}

static void talk_maybe(analyze_talk *t, int starting)
{
    if (!t || !t->on)
        return;
    double now = ft_now();
    if (t->tty ? starting || now - t->last >= 0.25
               : now - t->t0 >= 2 && now - t->last >= 10)
        talk_line(t, now);
}

static void talk_tick(void *arg) { talk_maybe(arg, 0); }

void analyze_talk_begin(analyze_talk *t, const char *what, size_t total)
{
    if (!t)
        return;
    t->what = what;
    t->total = total;
    t->done = 0;
    t->schedule = NULL;
}

void analyze_talk_replay(analyze_talk *t, const char *schedule)
{
    if (!t)
        return;
    t->done++;
    t->schedule = schedule;
    t->start = ft_now();
    talk_maybe(t, 1);
}

void analyze_talk_end(analyze_talk *t)
{
    if (t && t->open)
        fputc('\n', stderr);
    if (t) {
        t->open = 0;
        t->schedule = NULL;
    }
}

void analyze_confirm_opts_fill(fr_confirm_opts *o,
                               const analyze_confirm_opts *co)
{
    fr_confirm_opts_default(o);
    o->argv = co->prog;
    o->dir = co->dir;
    o->timeout_s = co->timeout_s;
    o->tails = co->tails;
    o->until = co->until;
    o->recorded = co->recorded;
    if (co->talk && co->talk->on) {
        o->tick = talk_tick;
        o->tick_arg = co->talk;
    }
}

void analyze_share_time(fr_confirm_opts *o, size_t left)
{
    o->tail_until = fr_confirm_share_until(o->until, left);
}

size_t analyze_kind_witnesses(const analyze_out *ao)
{
    size_t n = 0;
    for (size_t i = 0; ao->kschedule && i < ao->pl->nkprops; i++)
        n += ao->kschedule[i] != NULL;
    return n;
}

int analyze_confirm_skip(const fr_confirm_opts *o, fr_confirmation *c)
{
    if (!fr_confirm_time_up(o))
        return 0;
    memset(c, 0, sizeof *c);
    c->status = FR_NOT_RUN;
    snprintf(c->note, sizeof c->note, "not replayed: the analysis's time "
             "(--time) ran out first");
    return 1;
}

int analyze_write_schedule(analyze_out *ao, size_t i, const char *dir)
{
    char path[4096], msg[4200];
    if (ft_pipeline_write_schedule(ao->pl, i, dir, path, sizeof path, msg,
                                   sizeof msg) < 0) {
        fprintf(stderr, "foretell analyze: error: %s\n", msg);
        return -1;
    }
    if (!(ao->schedule[i] = strdup(path))) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return -1;
    }
    return 0;
}

int analyze_replay_failed(const fr_confirmation *c, const ft_error *err, int e,
                          analyze_talk *talk)
{
    analyze_talk_end(talk);
    fprintf(stderr, "foretell analyze: --confirm: %s%s%s\n",
            err->path[0] ? err->path : "", err->path[0] ? ": " : "",
            err->message);
    if (c->write_errno)
        return FT_EXIT_INTERNAL;
    if (c->outcome.exec_errno)
        return c->outcome.exec_errno == ENOENT ? FT_EXIT_NOT_FOUND
                                               : FT_EXIT_CANNOT_EXEC;
    return e == ENOENT   ? FT_EXIT_NOT_FOUND
           : e == EACCES ? FT_EXIT_CANNOT_EXEC
                         : FT_EXIT_BAD_INPUT;
}

/* Replays property i's schedule into ao->confirm[i].  The exit code: 0,
 * or what stops the analysis (the program cannot run, a write failed). */
static int confirm_one(analyze_out *ao, const fr_confirm_opts *o, size_t i,
                       analyze_talk *talk)
{
    ft_error err;
    errno = 0;
    if (fr_confirm(ao->pl, i, ao->schedule[i], o, &ao->confirm[i], &err) >= 0)
        return FT_EXIT_OK;
    return analyze_replay_failed(&ao->confirm[i], &err, errno, talk);
}

/* Whether finding i (of the other kinds when kinds) has random tails
 * to run; its tail k; the cleanup after the last. */
static int wants_tails(const analyze_out *ao, int kinds, size_t i)
{
    return kinds ? ao->kschedule[i] &&
                       fr_confirm_kind_wants_tails(ao->pl, i, &ao->kconfirm[i])
                 : ao->schedule[i] && fr_confirm_wants_tails(&ao->confirm[i]);
}

static int tail(analyze_out *ao, int kinds, size_t i, const fr_confirm_opts *o,
                unsigned k, ft_error *err)
{
    return kinds ? fr_confirm_kind_tail(ao->pl, i, ao->kalt[i], o,
                                        &ao->kconfirm[i], k, err)
                 : fr_confirm_atom_tail(ao->schedule[i], o, &ao->confirm[i], k,
                                        err);
}

static void tails_done(analyze_out *ao, int kinds, size_t i,
                       const fr_confirm_opts *o)
{
    if (kinds)
        fr_confirm_kind_tails_done(o, &ao->kconfirm[i]);
    else
        fr_confirm_atom_tails_done(ao->schedule[i], o);
}

/* Finding j of the two sets in turn: the atomicity ones (0 ..
 * nprops - 1), then the other kinds'. */
static size_t which(const analyze_out *ao, size_t j, int *kinds)
{
    size_t na = ao->confirm ? ao->pl->nprops : 0;
    *kinds = j >= na;
    return *kinds ? j - na : j;
}

/* Whether the tails begun at start may go on past the --tails turns. */
static int tail_time_left(const analyze_confirm_opts *co, double start)
{
    return co->tail_time > 0 && ft_now() - start < co->tail_time;
}

/* How many findings are owed their random tails. */
static size_t tails_owed(const analyze_out *ao)
{
    size_t n = (ao->confirm ? ao->pl->nprops : 0) +
               (ao->kconfirm ? ao->pl->nkprops : 0);
    size_t want = 0;
    int kinds;
    for (size_t j = 0; j < n; j++) {
        size_t i = which(ao, j, &kinds);
        want += (size_t)wants_tails(ao, kinds, i);
    }
    return want;
}

int analyze_tails_in_turns(analyze_out *ao, const analyze_confirm_opts *co)
{
    size_t n = (ao->confirm ? ao->pl->nprops : 0) +
               (ao->kconfirm ? ao->pl->nkprops : 0);
    size_t want = tails_owed(ao);
    int kinds;
    if (!want || !co->tails)
        return FT_EXIT_OK;
    fr_confirm_opts o;
    analyze_confirm_opts_fill(&o, co);
    analyze_talk_begin(co->talk,
                       "random tails of the findings that did not "
                       "fail",
                       want * co->tails);
    int rc = FT_EXIT_OK;
    double start = ft_now();
    for (unsigned k = 1; rc == FT_EXIT_OK && !fr_confirm_time_up(&o); k++) {
        if (k > co->tails) {
            /* more turns while the tails took under --tail-time (up to
             * FR_TAILS_MORE_MAX: why, replay/confirm.h); a program whose
             * runs are long gets few more */
            want = tails_owed(ao);
            if (!want || k > FR_TAILS_MORE_MAX || !tail_time_left(co, start))
                break;
            if (k == co->tails + 1)
                analyze_talk_begin(co->talk, "more random tails (--tail-time)",
                                   want * (FR_TAILS_MORE_MAX - co->tails));
        }
        for (size_t j = 0; j < n && rc == FT_EXIT_OK && !fr_confirm_time_up(&o);
             j++) {
            size_t i = which(ao, j, &kinds);
            if (!wants_tails(ao, kinds, i))
                continue;
            if (k > co->tails && !tail_time_left(co, start))
                break;
            analyze_talk_replay(co->talk,
                                kinds ? ao->kschedule[i] : ao->schedule[i]);
            ft_error err;
            errno = 0;
            if (tail(ao, kinds, i, &o, k, &err) < 0)
                rc = analyze_replay_failed(kinds ? &ao->kconfirm[i]
                                                 : &ao->confirm[i],
                                           &err, errno, co->talk);
        }
    }
    for (size_t j = 0; j < n; j++) {
        size_t i = which(ao, j, &kinds);
        if (wants_tails(ao, kinds, i))
            tails_done(ao, kinds, i, &o);
    }
    analyze_talk_end(co->talk);
    return rc;
}

static void fill(fr_confirm_opts *o, const analyze_confirm_opts *co)
{
    analyze_confirm_opts_fill(o, co);
    o->refine = co->refine;
    o->infer = co->infer;
    o->predict = co->predict;
}

int analyze_confirm(analyze_out *ao, const analyze_confirm_opts *co)
{
    const ft_pipeline *pl = ao->pl;
    ao->confirm = calloc(pl->nprops + 1, sizeof *ao->confirm);
    if (!ao->confirm) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return FT_EXIT_INTERNAL;
    }
    fr_confirm_opts o;
    fill(&o, co);
    o.tails = 0; /* every witness first (analyze_tails_in_turns) */
    o.refine = 0; /* and before any refinement (analyze_refine) */
    size_t total = 0;
    for (size_t i = 0; i < pl->nprops; i++)
        total += ao->schedule[i] != NULL;
    analyze_talk_begin(co->talk, "confirming", total);
    int rc = FT_EXIT_OK;
    size_t left = total + analyze_kind_witnesses(ao);
    for (size_t i = 0; i < pl->nprops && rc == FT_EXIT_OK; i++) {
        if (!ao->schedule[i] || analyze_confirm_skip(&o, &ao->confirm[i]))
            continue;
        analyze_share_time(&o, left--);
        analyze_talk_replay(co->talk, ao->schedule[i]);
        rc = confirm_one(ao, &o, i, co->talk);
    }
    analyze_talk_end(co->talk);
    return rc;
}

int analyze_refine(analyze_out *ao, const analyze_confirm_opts *co)
{
    const ft_pipeline *pl = ao->pl;
    size_t total = 0;
    for (size_t i = 0; ao->confirm && i < pl->nprops; i++)
        total += ao->schedule[i] && ao->confirm[i].status == FR_SPURIOUS;
    if (!total || !co->refine)
        return FT_EXIT_OK;
    fr_confirm_opts o;
    fill(&o, co);
    o.tails = 0; /* every witness first (analyze_tails_in_turns) */
    /* each refinement its share of the time left, the tails owed one
     * share between them (analyze_tails_in_turns comes next) */
    size_t left = total + (co->tails && tails_owed(ao) ? 1 : 0);
    analyze_talk_begin(co->talk, "refining diverged witnesses", total);
    int rc = FT_EXIT_OK;
    for (size_t i = 0; i < pl->nprops && rc == FT_EXIT_OK; i++) {
        fr_confirmation *c = &ao->confirm[i];
        if (!ao->schedule[i] || c->status != FR_SPURIOUS)
            continue;
        o.refine_until = fr_confirm_share_until(o.until, left--);
        /* (fr_confirm_refine says "not refined" once the time is up) */
        analyze_talk_replay(co->talk, ao->schedule[i]);
        ft_error err;
        errno = 0;
        if (fr_confirm_refine(pl, i, ao->schedule[i], &o, c, &err) < 0)
            rc = analyze_replay_failed(c, &err, errno, co->talk);
    }
    analyze_talk_end(co->talk);
    return rc;
}

/* How many more instances of a static property whose replays did not
 * fail are solved and replayed (predict/groups.c). */
#define UNCOVER_PER_GROUP 4

int analyze_uncover(analyze_out *ao, const analyze_confirm_opts *co,
                    ft_pipeline *pl)
{
    if (!ao->confirm || !pl->ncovered || !pl->ngroups)
        return FT_EXIT_OK;
    uint8_t *viol = calloc(pl->ngroups, 1), *fails = calloc(pl->ngroups, 1);
    size_t *idx = malloc(sizeof *idx * (pl->nprops + 1));
    int rc = FT_EXIT_INTERNAL;
    if (!viol || !fails || !idx)
        goto out;
    for (size_t i = 0; i < pl->nprops; i++) {
        uint32_t g = pl->props[i].group;
        if (pl->results[i].verdict == FT_VIOLATED && ao->schedule[i])
            viol[g] = 1;
        fails[g] |= (uint8_t)analyze_confirm_fails(ao, i);
    }
    size_t need = 0;
    for (size_t g = 0; g < pl->ngroups; g++) {
        viol[g] &= (uint8_t)!fails[g];
        need += viol[g];
    }
    rc = FT_EXIT_OK;
    if (!need)
        goto out;
    fr_confirm_opts o;
    fill(&o, co);
    o.tails = 0; /* every witness first (analyze_tails_in_turns) */
    o.refine = 0; /* and before any refinement (analyze_refine) */
    if (fr_confirm_time_up(&o))
        goto out;
    if (co->progress)
        fprintf(stderr, "foretell analyze: the replays of %zu static "
                "propert%s did not fail: solving up to %d more instances "
                "of each\n", need, need == 1 ? "y" : "ies",
                UNCOVER_PER_GROUP);
    long m = ft_pipeline_uncover(pl, viol, UNCOVER_PER_GROUP, co->predict,
                                 idx);
    if (m < 0) {
        rc = FT_EXIT_INTERNAL;
        goto out;
    }
    analyze_talk_begin(co->talk, "confirming more instances", (size_t)m);
    for (long k = 0; k < m && rc == FT_EXIT_OK; k++) {
        size_t i = idx[k];
        if (pl->results[i].verdict != FT_VIOLATED)
            continue;
        if (analyze_write_schedule(ao, i, co->dir) < 0) {
            rc = FT_EXIT_INTERNAL;
            break;
        }
        analyze_share_time(&o, (size_t)(m - k) + analyze_kind_witnesses(ao));
        analyze_talk_replay(co->talk, ao->schedule[i]);
        if (!analyze_confirm_skip(&o, &ao->confirm[i]))
            rc = confirm_one(ao, &o, i, co->talk);
    }
    analyze_talk_end(co->talk);
out:
    if (rc == FT_EXIT_INTERNAL && !idx)
        fprintf(stderr, "foretell analyze: out of memory\n");
    free(viol);
    free(fails);
    free(idx);
    return rc;
}

size_t analyze_confirmed(const analyze_out *ao)
{
    size_t n = 0;
    for (size_t i = 0; ao->confirm && i < ao->pl->nprops; i++)
        n += ao->schedule[i] && (ao->confirm[i].status == FR_CONFIRMED ||
                                 ao->confirm[i].status == FR_REFINED ||
                                 ao->confirm[i].status == FR_FAILED_EARLY);
    return n;
}

static const char *failure_of(const fr_outcome *o)
{
    return o->failure == FR_OK ? "none" : fr_failure_name(o->failure);
}

void analyze_print_confirm_one(FILE *out, const analyze_out *ao, size_t i)
{
    const fr_confirmation *c = &ao->confirm[i];
    fprintf(out, "  %s: %s", ao->schedule[i],
            fr_confirm_status_name(c->status));
    if (c->status == FR_NOT_RUN) {
        fprintf(out, ": %s\n", c->note);
        return;
    }
    if (c->status == FR_SPURIOUS)
        fprintf(out, ": %s%s", c->first.divergence,
                ao->pl->results[i].relaxed
                    ? " (the witness let a read that returned another "
                      "value go on past code that may depend on it: "
                      "no witness of this property avoids that)"
                    : "");
    if (c->status == FR_FAILED_EARLY)
        fprintf(out, " (steps followed %llu of %llu)",
                (unsigned long long)c->outcome.steps_followed,
                (unsigned long long)c->outcome.steps_total);
    if (c->status != FR_SPURIOUS && c->outcome.failure == FR_OK)
        fprintf(out, "; the run then finished without failure");
    else if (c->status != FR_SPURIOUS && c->outcome.failure == FR_UNFINISHED)
        fprintf(out, "; the run was then stopped before it ended");
    else if (c->status != FR_SPURIOUS) {
        fprintf(out, "; the run then failed: %s", failure_of(&c->outcome));
        if (c->outcome.site[0])
            fprintf(out, " at %s", c->outcome.site);
        if (c->tail[0])
            fprintf(out, " (with tail %s, try %u)", c->tail, c->tails_tried);
    }
    if (c->status != FR_SPURIOUS && c->outcome.failure == FR_OK &&
        c->tails_tried)
        fprintf(out, ", nor with %u random tails", c->tails_tried);
    fputc('\n', out);
    if (c->note[0])
        fprintf(out, "  refinement: %s\n", c->note);
    if (c->outcome.failure != FR_OK && c->outcome.detail[0])
        fprintf(out, "  %s\n", c->outcome.detail);
    fprintf(out, "  replayed run: %s\n", c->trace);
    if (c->failing_schedule[0])
        fprintf(out, "  failing run as a schedule: %s\n", c->failing_schedule);
}

int analyze_confirm_fails(const analyze_out *ao, size_t i)
{
    return ao->confirm && ao->schedule[i] &&
           ao->confirm[i].status != FR_SPURIOUS &&
           ao->confirm[i].status != FR_NOT_RUN &&
           ao->confirm[i].outcome.failure != FR_OK &&
           ao->confirm[i].outcome.failure != FR_UNFINISHED;
}

void analyze_print_confirm(FILE *out, const analyze_out *ao)
{
    if (!ao->confirm)
        return;
    size_t n = 0, fail = 0;
    for (size_t i = 0; i < ao->pl->nprops; i++) {
        n += ao->schedule[i] != NULL;
        fail += (size_t)analyze_confirm_fails(ao, i);
    }
    if (n)
        fprintf(out, "confirmation: %zu of %zu predicted violations "
                "confirmed, %zu of them fail the program\n",
                analyze_confirmed(ao), n, fail);
}

void analyze_json_confirm(ft_json *j, const analyze_out *ao, size_t i)
{
    analyze_json_confirmation(j, &ao->confirm[i]);
}

void analyze_json_confirmation(ft_json *j, const fr_confirmation *c)
{
    ft_json_begin_object(j);
    ft_json_kstr(j, "status", fr_confirm_status_id(c->status));
    ft_json_kstr(j, "divergence",
                 c->first.diverged ? c->first.divergence : NULL);
    ft_json_kstr(j, "failure", failure_of(&c->outcome));
    ft_json_kstr(j, "failure_site", c->outcome.site[0] ? c->outcome.site
                                                       : NULL);
    ft_json_kstr(j, "detail", c->outcome.detail[0] ? c->outcome.detail
                                                   : NULL);
    ft_json_kuint(j, "refinement_rounds", c->rounds);
    ft_json_kstr(j, "refinement", c->note[0] ? c->note : NULL);
    ft_json_kbool(j, "refinement_cut", c->refine_cut != 0);
    ft_json_kstr(j, "schedule", c->schedule);
    ft_json_kstr(j, "replay_trace", c->trace);
    ft_json_kuint(j, "tails_tried", c->tails_tried);
    ft_json_kstr(j, "tail", c->tail[0] ? c->tail : NULL);
    ft_json_kstr(j, "failing_schedule",
                 c->failing_schedule[0] ? c->failing_schedule : NULL);
    ft_json_end_object(j);
}

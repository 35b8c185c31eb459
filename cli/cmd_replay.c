/* SPDX-License-Identifier: MIT */
/* cmd_replay.c - `foretell replay`: runs an instrumented program under a
 * schedule (a predicted one, --schedule, or the switches of a recorded
 * run, --trace) with the replay harness (replay/replay.h), records the
 * replayed run, and reports what happened compiler-style: the failure,
 * the thread and file:line, and the context switches that led to it.
 * Exit: 0 no failure, 1 the program failed, 2 bad input, 3 the schedule
 * could not be followed, 126 the program cannot be executed, 127 program
 * not found (docs/replay.md).  A --trace of another build of the program
 * is mapped onto this one's events first (replay/build_map.c). */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "replay/replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ft_opt replay_opts[] = {
    {"schedule", 0, "FILE", "follow this schedule file"},
    {"trace", 0, "TRACE", "follow the thread switches of this recorded run "
                          "(of another build too: mapped onto this one's "
                          "events)"},
    {"output", 'o', "TRACE", "the replayed run's trace (default "
                             "./PROG.replay.ftrace)"},
    {"on-divergence", 0, "stop|continue", "when the program leaves the "
                                          "schedule (default stop)"},
    {"strategy", 0, "SPEC", "policy after the schedule ends (default none)"},
    {"timeout", 0, "S", "stop the program after S seconds (a hang)"},
    {"max-steps", 0, "N", "stop the program after N key points (a hang)"},
    {"save-schedule", 0, "FILE", "write a schedule that replays this run "
                                 "to FILE and its report to FILE.report "
                                 "(for a failure: the bug's witness)"},
    {"json", 0, NULL, "one JSON object on stdout"},
    {"quiet", 'q', NULL, "discard the program's output"},
    {"backend", 0, "B", "auto (default: the program's own runtime if built "
                        "with foretell-cc, else the LD_PRELOAD one), runtime "
                        "or preload (synchronisation only)"},
    {NULL, 0, NULL, NULL},
};

enum { OPT_SCHEDULE, OPT_TRACE, OPT_OUTPUT, OPT_DIVERGE, OPT_STRATEGY,
       OPT_TIMEOUT, OPT_MAX_STEPS, OPT_SAVE, OPT_JSON, OPT_QUIET,
       OPT_BACKEND };

static const char usage_line[] =
    "foretell replay (--schedule FILE | --trace TRACE) [options] -- PROG "
    "[ARGS]";

static void report_text(FILE *f, const char *prog, const fr_outcome *o,
                        const char *sched_name)
{
    const char *site = o->site[0] ? o->site : prog;
    if (o->diverged)
        fprintf(f, "%s: %s: replay diverged: %s\n", sched_name,
                o->failure == FR_DIVERGED || o->failure == FR_OK ? "error"
                                                                 : "warning",
                o->divergence);
    if (o->failure != FR_OK && o->failure != FR_DIVERGED) {
        fprintf(f, "%s: error: %s: %s\n", site, fr_failure_name(o->failure),
                o->detail);
        if (o->free_site[0])
            fprintf(f, "%s: note: the block was freed here\n", o->free_site);
    }
    for (int i = 0; i < o->nlast_switches; i++) {
        const fr_switch *s = &o->last_switches[i];
        /* an event without a site (a thread's start or exit) is located
         * at the program, as compilers locate what has no line */
        fprintf(f, "%s: note: switch thread %d -> thread %d%s%s (event "
                   "%llu)\n",
                s->site[0] ? s->site : prog, s->from, s->to,
                s->site[0] ? "" : " at its ", s->site[0] ? "" : s->what,
                (unsigned long long)s->index);
    }
    fprintf(f, "foretell replay: %s after %llu events, %.3f s; schedule "
               "steps followed %llu/%llu\n",
            o->failure == FR_OK ? "finished" : fr_failure_name(o->failure),
            (unsigned long long)o->events, o->seconds,
            (unsigned long long)o->steps_followed,
            (unsigned long long)o->steps_total);
}

static void report_json(const fr_outcome *o, const char *trace,
                        const fr_map_run *mr)
{
    ft_json j;
    ft_json_init(&j, stdout);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "failure", fr_failure_name(o->failure));
    ft_json_kint(&j, "tid", o->tid);
    ft_json_kstr(&j, "site", o->site);
    ft_json_kstr(&j, "detail", o->detail);
    ft_json_kstr(&j, "free_site", o->free_site);
    ft_json_kint(&j, "exit_status", o->exit_status);
    ft_json_kint(&j, "signal", o->signo);
    ft_json_kbool(&j, "diverged", o->diverged);
    ft_json_kstr(&j, "divergence", o->divergence);
    ft_json_kuint(&j, "steps_followed", o->steps_followed);
    ft_json_kuint(&j, "steps", o->steps_total);
    ft_json_kuint(&j, "events", o->events);
    ft_json_key(&j, "seconds");
    ft_json_double(&j, o->seconds);
    ft_json_kstr(&j, "trace", trace);
    ft_json_key(&j, "last_switches");
    ft_json_begin_array(&j);
    for (int i = 0; i < o->nlast_switches; i++) {
        ft_json_begin_object(&j);
        ft_json_kint(&j, "from", o->last_switches[i].from);
        ft_json_kint(&j, "to", o->last_switches[i].to);
        ft_json_kuint(&j, "index", o->last_switches[i].index);
        ft_json_kstr(&j, "site", o->last_switches[i].site);
        if (o->last_switches[i].what[0])
            ft_json_kstr(&j, "event", o->last_switches[i].what);
        ft_json_end_object(&j);
    }
    ft_json_end_array(&j);
    if (mr) { /* --trace of another build: how its switches were mapped */
        ft_json_key(&j, "mapped");
        ft_json_begin_object(&j);
        ft_json_kuint(&j, "switches", mr->st.steps);
        ft_json_kuint(&j, "mapped", mr->st.mapped);
        ft_json_kuint(&j, "events", mr->st.events);
        ft_json_kuint(&j, "paired", mr->st.matched);
        ft_json_kuint(&j, "sited", mr->st.sited);
        ft_json_kuint(&j, "at_known_lines", mr->st.known);
        ft_json_kint(&j, "replays", mr->rounds);
        ft_json_end_object(&j);
    }
    ft_json_end_object(&j);
    ft_json_line(&j);
}

/* The replayed run's own schedule and report, for a later replay. */
static int save_failure(const char *path, const char *trace,
                        const char *prog, const fr_outcome *o)
{
    ft_schedule s;
    ft_error err;
    if (fr_schedule_from_trace(trace, &s, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", trace, err.message);
        return -1;
    }
    char tmp[4200], rpath[4200];
    snprintf(rpath, sizeof rpath, "%.4000s.report", path);
    FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
    int rc = f ? ft_schedule_write(f, &s) : -1;
    if (f && ft_out_fclose(f, tmp, path) != 0)
        rc = -1;
    ft_schedule_free(&s);
    const char *failed = path;
    if (rc == 0) {
        failed = rpath;
        FILE *r = ft_out_fopen(rpath, tmp, sizeof tmp);
        if (r)
            report_text(r, prog, o, path);
        rc = r && ft_out_fclose(r, tmp, rpath) == 0 ? 0 : -1;
    }
    if (rc < 0)
        fprintf(stderr, "foretell replay: cannot write %s: %s\n", failed,
                strerror(errno));
    return rc;
}

int cmd_replay(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell replay", argc, argv);
    const char *schedule = NULL, *trace = NULL, *output = NULL, *save = NULL,
               *v;
    fr_run_opts ro;
    fr_run_opts_default(&ro);
    int json = 0, k, prog_at = -1, backend = FR_BACKEND_AUTO;
    uint64_t num;
    while (prog_at < 0 && (k = ft_opt_next(&p, replay_opts, &v)) != FT_OPT_END) {
        switch (k) {
        case OPT_SCHEDULE: schedule = v; break;
        case OPT_TRACE: trace = v; break;
        case OPT_OUTPUT: output = v; break;
        case OPT_SAVE: save = v; break;
        case OPT_STRATEGY: ro.strategy = v; break;
        case OPT_JSON: json = 1; break;
        case OPT_QUIET: ro.quiet = 1; break;
        case OPT_BACKEND:
            if (ft_cli_backend_opt("foretell replay", v, &backend))
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_DIVERGE:
            if (!strcmp(v, "stop"))
                ro.diverge = FR_DIVERGE_STOP;
            else if (!strcmp(v, "continue"))
                ro.diverge = FR_DIVERGE_CONTINUE;
            else {
                fprintf(stderr, "foretell replay: --on-divergence: expected "
                        "stop or continue, got '%s'\n", v);
                return FT_EXIT_BAD_INPUT;
            }
            break;
        case OPT_TIMEOUT:
            if (ft_opt_seconds(&p, "timeout", v, &ro.timeout_s) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_MAX_STEPS:
            if (ft_opt_uint(&p, "max-steps", v, UINT64_MAX, &num) < 0)
                return FT_EXIT_BAD_INPUT;
            ro.max_steps = num;
            break;
        case FT_OPT_POSITIONAL: prog_at = p.i - 1; break;
        case FT_OPT_DASHDASH: prog_at = p.i; break;
        case FT_OPT_HELP:
            ft_opt_usage(stdout, usage_line,
                         "Replay a program under a schedule and report how "
                         "it ends (docs/replay.md).",
                         replay_opts);
            return FT_EXIT_OK;
        default: return FT_EXIT_BAD_INPUT;
        }
    }
    if (prog_at < 0 || prog_at >= argc) {
        fprintf(stderr, "foretell replay: no program given (usage: %s)\n",
                usage_line);
        return FT_EXIT_BAD_INPUT;
    }
    if (!!schedule == !!trace) {
        fprintf(stderr, "foretell replay: give exactly one of --schedule and "
                "--trace\n");
        return FT_EXIT_BAD_INPUT;
    }
    char **args = argv + prog_at;
    int found = ft_cli_check_program("foretell replay", args[0]);
    if (found)
        return found;
    if ((found = ft_cli_backend("foretell replay", args[0], backend)))
        return found;
    char outbuf[4096], tmpsched[64];
    if (!output) {
        const char *b = strrchr(args[0], '/');
        snprintf(outbuf, sizeof outbuf, "%s.replay.ftrace", b ? b + 1 : args[0]);
        output = outbuf;
    }
    /* Outputs are checked before the run, not after it. */
    char real[4096], sreal[4096], omsg[4400];
    if (ft_out_check(output, FT_OUT_TRACE, real, sizeof real, omsg,
                     sizeof omsg) < 0 ||
        (save && ft_out_check(save, 0, sreal, sizeof sreal, omsg,
                              sizeof omsg) < 0)) {
        fprintf(stderr, "foretell replay: %s\n", omsg);
        return FT_EXIT_BAD_INPUT;
    }
    output = real;
    if (save)
        save = sreal;
    ft_schedule s;
    char msg[512];
    ft_error err;
    int tmp = 0, mapped = 0;
    if (schedule) {
        FILE *f = ft_fopen_regular(schedule, msg, sizeof msg);
        if (!f) {
            fprintf(stderr, "%s: error: cannot read schedule: %s\n", schedule,
                    msg);
            return FT_EXIT_BAD_INPUT;
        }
        int rc = ft_schedule_read(f, schedule, &s, msg, sizeof msg);
        fclose(f);
        if (rc < 0) {
            fprintf(stderr, "%s: error: malformed schedule\n", msg);
            return FT_EXIT_BAD_INPUT;
        }
        fr_check_binary(s.trace, args[0], stderr);
        ft_schedule_free(&s);
    } else {
        if (fr_schedule_from_trace(trace, &s, &err) < 0) {
            fprintf(stderr, "%s: error: at byte %llu: %s\n", err.path,
                    (unsigned long long)err.offset, err.message);
            return FT_EXIT_BAD_INPUT;
        }
        /* another build (a rebuild, or the plain build recorded under
         * Valgrind): its indexes are not this build's */
        mapped = fr_check_binary(trace, args[0], NULL) == 0;
        if (mapped)
            fprintf(stderr,
                    "foretell replay: note: %s was recorded from "
                    "another build of %s: its switches are mapped onto "
                    "this build's events (docs/replay.md)\n",
                    trace, args[0]);
        int rc = fr_schedule_write_temp(&s, tmpsched, sizeof tmpsched, &err);
        ft_schedule_free(&s);
        if (rc < 0) {
            fprintf(stderr, "foretell replay: %s: %s\n", err.path, err.message);
            return FT_EXIT_INTERNAL;
        }
        tmp = 1;
        schedule = tmpsched;
    }
    ro.argv = args;
    ro.trace_out = output;
    ro.schedule = schedule;
    fr_outcome o;
    fr_map_run mr;
    int rc = mapped ? fr_replay_mapped(&ro, trace, &o, &mr, stderr, &err)
                    : fr_run(&ro, &o, &err);
    int saved_errno = errno;
    if (mapped && rc == 1) {
        /* too few pairs: another program, not another build; its replay
         * diverges, and the warning says why */
        fprintf(stderr,
                "foretell replay: only %llu of the %llu events of "
                "%s are at lines %s runs: not a build of the same "
                "program? Replaying its switches as they are\n",
                (unsigned long long)mr.st.known,
                (unsigned long long)mr.st.sited, trace, args[0]);
        fr_check_binary(trace, args[0], stderr);
        mapped = 0;
        rc = fr_run(&ro, &o, &err);
        saved_errno = errno;
    }
    if (mapped && rc == 0)
        fprintf(stderr,
                "foretell replay: %u of %u switches mapped (%llu of "
                "%llu recorded events paired with this build's), %d "
                "replay%s\n",
                mr.st.mapped, mr.st.steps, (unsigned long long)mr.st.matched,
                (unsigned long long)mr.st.events, mr.rounds,
                mr.rounds == 1 ? "" : "s");
    if (tmp)
        unlink(tmpsched);
    if (o.write_errno) { /* what the cut trace shows, then the error */
        if (rc == 0 || o.events)
            report_text(stderr, args[0], &o, trace ? trace : schedule);
        fprintf(stderr, "%s: error: cannot write the replayed run's trace: "
                "%s\n", output, o.write_error[0] ? o.write_error
                                               : strerror(o.write_errno));
        return FT_EXIT_INTERNAL;
    }
    if (rc < 0) {
        fprintf(stderr, "%s: error: %s\n", err.path, err.message);
        if (rc == -2) /* the harness's own failure, not the input's */
            return FT_EXIT_INTERNAL;
        if (o.exec_errno)
            return o.exec_errno == ENOENT ? FT_EXIT_NOT_FOUND
                                          : FT_EXIT_CANNOT_EXEC;
        return saved_errno == ENOENT   ? FT_EXIT_NOT_FOUND
               : saved_errno == EACCES ? FT_EXIT_CANNOT_EXEC
                                       : FT_EXIT_BAD_INPUT;
    }
    const char *sched_name = trace ? trace : schedule;
    if (json)
        report_json(&o, output, mapped ? &mr : NULL);
    else
        report_text(stderr, args[0], &o, sched_name);
    int failed = o.failure != FR_OK && o.failure != FR_DIVERGED;
    if (save && save_failure(save, output, args[0], &o) < 0)
        return FT_EXIT_INTERNAL;
    if (failed)
        return FT_EXIT_FOUND;
    return o.diverged ? FT_EXIT_DIVERGED : FT_EXIT_OK;
}

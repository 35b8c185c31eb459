/* SPDX-License-Identifier: MIT */
/* cmd_explore.c - `foretell explore`: runs an instrumented program under
 * many schedules chosen by a strategy (replay/explore.h) and reports the
 * distinct failures, each saved as a trace, the strategy spec that
 * reproduces it and a schedule file.  Exit 0: no bug within the budget;
 * 1: bug found; 2: bad input; 4: foretell itself failed (after some runs:
 * what they found is printed first; a trace or a bug that could not be
 * written); 126: the program cannot be executed; 127: it is not there. */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "predict/predict.h"
#include "replay/explore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const ft_opt explore_opts[] = {
    {"strategy", 's', "S", "random, pct, rpro, pctvb, icb, idb, period, hapset, dpor, pos, surw or surw-sym (default surw-sym)"},
    {"budget", 'n', "N", "schedules to run at most (default 1000; 0 = no bound)"},
    {"time", 't', "SECONDS", "stop after this wall time"},
    {"seed", 0, "X", "base seed: run i uses X*phi+i (default 0)"},
    {"jobs", 'j', "J", "runs at once (random, pct, rpro, pctvb, pos, surw, surw-sym)"},
    {"all", 'a', NULL, "keep going after the first bug"},
    {"output", 'o', "DIR", "save bugs here, with report.json (the --json document, "
                          "for 'foretell report') (default ./foretell-explore)"},
    {"json", 0, NULL, "print the result as one JSON object"},
    {"depth", 'd', "D", "bug depth for pct/rpro/pctvb (default 3; rpro 2)"},
    {"radius", 'r', "R", "rpro: radius of the bug in events (default 10)"},
    {"deadlock", 0, NULL, "rpro: count only lock acquisitions"},
    {"vars", 'v', "V", "pctvb, surw, surw-sym: variables per schedule (default 1; surw 2)"},
    {"bound", 'b', "B", "icb/idb: largest preemption/delay bound (default 3)"},
    {"periods", 'P', "P", "period: largest number of periods (default 6)"},
    {"ctx", 0, "K", "hapset: calls in a statement's context (default 5)"},
    {"learn", 0, "N", "hapset: random runs to learn from first (default 0)"},
    {"run-timeout", 0, "SECONDS", "a run without progress (key points, CPU) "
                                  "this long is hung (default 10)"},
    {"max-run-events", 0, "N", "key points one run may take: a run "
                               "reaching it is a hang (default 20000000; 0 = "
                               "no bound)"},
    {"suppressions", 0, "FILE", "failures a KIND:PATTERN rule of FILE covers "
                                "are not bugs (default "
                                "$FORETELL_SUPPRESSIONS)"},
    {"quiet", 'q', NULL, "no progress line"},
    {"backend", 0, "B", "auto (default: the program's own runtime if built "
                        "with foretell-cc, else the LD_PRELOAD one), runtime "
                        "or preload (synchronisation only)"},
    {NULL, 0, NULL, NULL},
};

enum {
    OPT_STRATEGY, OPT_BUDGET, OPT_TIME, OPT_SEED, OPT_JOBS, OPT_ALL,
    OPT_OUTPUT, OPT_JSON, OPT_DEPTH, OPT_RADIUS, OPT_DEADLOCK, OPT_VARS,
    OPT_BOUND, OPT_PERIODS, OPT_CTX, OPT_LEARN, OPT_RUN_TIMEOUT,
    OPT_MAX_RUN_EVENTS, OPT_SUPP, OPT_QUIET, OPT_BACKEND,
};

static const char usage_line[] =
    "foretell explore --strategy S [options] -- PROG [ARGS]";
static const char about[] =
    "Runs PROG (built with foretell-cc) under many schedules and reports the\n"
    "distinct failures (kind and site), each saved as DIR/bug-N.ftrace (its\n"
    "trace), bug-N.strategy (FORETELL_STRATEGY that reproduces it) and\n"
    "bug-N.schedule.  Exit 0: no bug within the budget, 1: bug found,\n"
    "2: bad input.";

/* Progress on stderr: on a terminal one line rewritten after every run;
 * elsewhere (a CI log) a line every 10 s once the exploration has run
 * 2 s, as analyze does. */
typedef struct talk {
    int tty;
    double next;     /* seconds of the next line (not a terminal) */
    int printed;     /* a tty line is open */
    uint64_t said;   /* schedules the last line counted, +1 (0: none) */
} talk;

static void progress(void *arg, uint64_t runs, int bugs, double seconds)
{
    talk *t = arg;
    if (t->tty) {
        fprintf(stderr, "\rexplore: %" PRIu64 " schedules, %d bug%s, %.1f s   ",
                runs, bugs, bugs == 1 ? "" : "s", seconds);
        t->printed = 1;
    } else if (seconds >= t->next) {
        fprintf(stderr, "foretell explore: %" PRIu64 " schedules, %d bug%s, "
                "%.0f s\n", runs, bugs, bugs == 1 ? "" : "s", seconds);
        t->next = seconds + 10;
        t->said = runs + 1;
    } else {
        return;
    }
    fflush(stderr);
}

static void print_json(FILE *out, const fx_opts *o, const fx_result *r)
{
    ft_json j;
    ft_json_init(&j, out);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "strategy", o->strategy);
    ft_json_kuint(&j, "schedules_run", r->runs);
    ft_json_kbool(&j, "bug_found", r->nbugs > 0);
    ft_json_key(&j, "schedules_to_first_bug");
    if (r->first_bug)
        ft_json_uint(&j, r->first_bug);
    else
        ft_json_null(&j);
    ft_json_key(&j, "seconds");
    ft_json_double(&j, r->seconds);
    ft_json_key(&j, "schedules_per_second");
    ft_json_double(&j, r->seconds > 0 ? (double)r->runs / r->seconds : 0);
    ft_json_kuint(&j, "threads_estimate", r->n_est);
    ft_json_kuint(&j, "events_estimate", r->k_est);
    ft_json_kuint(&j, "shared_variables", r->shared_vars);
    ft_json_kuint(&j, "reorderable_variables", r->reorderable);
    ft_json_kbool(&j, "exhausted", r->exhausted);
    ft_json_kuint(&j, "suppressed", r->suppressed);
    ft_json_kuint(&j, "suppressed_runs", r->suppressed_runs);
    ft_json_key(&j, "error");
    if (r->failed)
        ft_json_str(&j, r->error);
    else
        ft_json_null(&j);
    ft_json_key(&j, "bugs");
    ft_json_begin_array(&j);
    for (int i = 0; i < r->nbugs; i++) {
        const fx_bug *b = &r->bugs[i];
        ft_json_begin_object(&j);
        ft_json_kstr(&j, "failure", fx_failure_name(b->failure));
        ft_json_kstr(&j, "site", b->site);
        ft_json_kstr(&j, "detail", b->detail);
        ft_json_kuint(&j, "schedule_number", b->schedule_no);
        ft_json_kstr(&j, "strategy_spec", b->spec);
        ft_json_kstr(&j, "trace", b->trace);
        ft_json_kstr(&j, "schedule", b->schedule[0] ? b->schedule : NULL);
        ft_json_end_object(&j);
    }
    ft_json_end_array(&j);
    ft_json_end_object(&j);
    ft_json_line(&j);
}

static void print_text(const fx_opts *o, const fx_result *r)
{
    for (int i = 0; i < r->nbugs; i++) {
        const fx_bug *b = &r->bugs[i];
        /* a deadlock's or hang's site lists every thread's (the key that
         * tells bugs apart): the first is the error's location, the
         * others are notes, each a location of its own */
        const char *site = b->site[0] ? b->site : o->argv[0];
        const char *comma = strchr(site, ',');
        printf("%.*s: error: %s (%s) in schedule %" PRIu64 "\n",
               comma ? (int)(comma - site) : (int)strlen(site), site,
               fx_failure_name(b->failure), b->detail, b->schedule_no);
        while (comma) {
            const char *next = strchr(comma + 1, ',');
            int n = next ? (int)(next - comma - 1) : (int)strlen(comma + 1);
            printf("%.*s: note: another thread %s here\n", n, comma + 1,
                   b->failure == FR_DEADLOCK ? "of the deadlock waits"
                                             : "of the hung run stands");
            comma = next;
        }
        printf("  saved: %s%s%s\n  reproduce: FORETELL_STRATEGY='%s'\n",
               b->trace, b->schedule[0] ? ", " : "", b->schedule, b->spec);
        if (b->failure == FR_HANG && b->schedule[0]) {
            /* A hang replays only with a bound that stops it. */
            if (b->hang_steps)
                printf("  replay: foretell replay --schedule %s --max-steps "
                       "%" PRIu64 " -- %s\n", b->schedule, b->hang_steps,
                       o->argv[0]);
            else
                printf("  replay: foretell replay --schedule %s --timeout "
                       "%g -- %s\n", b->schedule, o->run_timeout_s,
                       o->argv[0]);
        }
    }
    printf("strategy %s: %" PRIu64 " schedules in %.2f s (%.0f/s), %d distinct "
           "bug%s",
           o->strategy, r->runs, r->seconds,
           r->seconds > 0 ? (double)r->runs / r->seconds : 0.0, r->nbugs,
           r->nbugs == 1 ? "" : "s");
    if (r->first_bug)
        printf(", first after %" PRIu64 " schedules", r->first_bug);
    if (r->suppressed)
        printf(", %" PRIu64 " suppressed (%" PRIu64 " run%s)", r->suppressed,
               r->suppressed_runs, r->suppressed_runs == 1 ? "" : "s");
    if (r->exhausted)
        printf(" (every schedule within the bound was run)");
    printf("\n");
}

static int explore_run(fx_opts *o, int quiet, int json);

int cmd_explore(int argc, char **argv)
{
    fx_opts o;
    fx_opts_default(&o);
    int json = 0, quiet = 0, backend = FR_BACKEND_AUTO;
    const char *supp_path = NULL;
    ft_optparse p;
    ft_opt_init(&p, "foretell explore", argc, argv);
    const char *v;
    int k;
    uint64_t u;
    while ((k = ft_opt_next(&p, explore_opts, &v)) != FT_OPT_END) {
        switch (k) {
        case FT_OPT_HELP:
            ft_opt_usage(stdout, usage_line, about, explore_opts);
            return FT_EXIT_OK;
        case FT_OPT_ERROR:
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_POSITIONAL:
            fprintf(stderr, "foretell explore: put the program after '--' "
                            "(got '%s')\n", v);
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_DASHDASH:
            goto program;
        case OPT_STRATEGY:
            if (!fx_strategy_known(v)) {
                fprintf(stderr, "foretell explore: --strategy: unknown strategy '%s' "
                                "(random, pct, rpro, pctvb, icb, idb, period, hapset, dpor, pos, surw, surw-sym)\n", v);
                return FT_EXIT_BAD_INPUT;
            }
            o.strategy = v;
            break;
        case OPT_BUDGET:
            if (ft_opt_uint(&p, "budget", v, UINT64_MAX, &o.budget) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_TIME:
            if (ft_opt_seconds(&p, "time", v, &o.time_s) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_SEED:
            if (ft_opt_uint(&p, "seed", v, UINT64_MAX / 2, &o.seed) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_JOBS:
            if (ft_opt_uint(&p, "jobs", v, 64, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            if (u == 0) {
                fprintf(stderr, "foretell explore: --jobs must be 1..64\n");
                return FT_EXIT_BAD_INPUT;
            }
            o.jobs = (int)u;
            break;
        case OPT_ALL: o.all = 1; break;
        case OPT_OUTPUT: o.outdir = v; break;
        case OPT_JSON: json = 1; break;
        case OPT_DEPTH:
            if (ft_opt_uint(&p, "depth", v, 16, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            if (u == 0) {
                fprintf(stderr, "foretell explore: --depth must be 1..16\n");
                return FT_EXIT_BAD_INPUT;
            }
            o.depth = (int)u;
            break;
        case OPT_RADIUS:
            if (ft_opt_uint(&p, "radius", v, UINT32_MAX, &o.radius) < 0)
                return FT_EXIT_BAD_INPUT;
            if (o.radius == 0) {
                fprintf(stderr, "foretell explore: --radius must be >= 1\n");
                return FT_EXIT_BAD_INPUT;
            }
            break;
        case OPT_DEADLOCK: o.deadlock = 1; break;
        case OPT_VARS:
            if (ft_opt_uint(&p, "vars", v, 16, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            if (u == 0) {
                fprintf(stderr, "foretell explore: --vars must be 1..16\n");
                return FT_EXIT_BAD_INPUT;
            }
            o.vars = (int)u;
            break;
        case OPT_BOUND:
            if (ft_opt_uint(&p, "bound", v, 64, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            o.bound = (int)u;
            break;
        case OPT_PERIODS:
            if (ft_opt_uint(&p, "periods", v, 32, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            if (u == 0) {
                fprintf(stderr, "foretell explore: --periods must be 1..32\n");
                return FT_EXIT_BAD_INPUT;
            }
            o.periods = (int)u;
            break;
        case OPT_CTX:
            if (ft_opt_uint(&p, "ctx", v, 64, &u) < 0)
                return FT_EXIT_BAD_INPUT;
            o.ctx_depth = (int)u;
            break;
        case OPT_LEARN:
            if (ft_opt_uint(&p, "learn", v, UINT32_MAX, &o.learn_runs) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_RUN_TIMEOUT:
            if (ft_opt_seconds(&p, "run-timeout", v, &o.run_timeout_s) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_MAX_RUN_EVENTS:
            if (ft_opt_uint(&p, "max-run-events", v, UINT64_MAX / 2,
                            &o.max_run_events) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_SUPP: supp_path = v; break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_BACKEND:
            if (ft_cli_backend_opt("foretell explore", v, &backend))
                return FT_EXIT_BAD_INPUT;
            break;
        }
    }
    fprintf(stderr, "foretell explore: no program given (usage: %s)\n", usage_line);
    return FT_EXIT_BAD_INPUT;
program:
    if (p.i >= argc) {
        fprintf(stderr, "foretell explore: no program after '--'\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (o.budget == 0 && o.time_s <= 0 && strcmp(o.strategy, "icb") != 0 &&
        strcmp(o.strategy, "idb") != 0 && strcmp(o.strategy, "period") != 0 &&
        strcmp(o.strategy, "hapset") != 0 && strcmp(o.strategy, "dpor") != 0) {
        fprintf(stderr, "foretell explore: give --budget or --time (a seeded "
                        "strategy never runs out of schedules)\n");
        return FT_EXIT_BAD_INPUT;
    }
    o.argv = argv + p.i;
    int found = ft_cli_check_program("foretell explore", o.argv[0]);
    if (found)
        return found;
    if ((found = ft_cli_backend("foretell explore", o.argv[0], backend)))
        return found;
    ft_suppressions *supp = NULL;
    if ((found = ft_cli_suppressions(supp_path, &supp)) != 0)
        return found;
    o.suppressions = supp;
    int rc = explore_run(&o, quiet, json);
    if (!quiet) {
        fflush(stdout);
        ft_suppressions_print_used(stderr, supp);
    }
    ft_suppressions_free(supp);
    return rc;
}

/* Runs the exploration o and prints what it found; the exit code. */
static int explore_run(fx_opts *o_, int quiet, int json)
{
    fx_opts o = *o_;
    /* Where bugs are saved is checked before the first run, not when
     * the first bug is found. */
    char real[4096], msg[4400];
    if (ft_out_check(o.outdir, FT_OUT_DIR, real, sizeof real, msg,
                     sizeof msg) < 0) {
        fprintf(stderr, "foretell explore: %s\n", msg);
        return FT_EXIT_BAD_INPUT;
    }
    talk tk = {isatty(2), 2, 0, 0};
    if (!quiet && (!json || !tk.tty)) {
        o.progress = progress;
        o.progress_arg = &tk;
    }
    fx_result r;
    ft_error err;
    int rc = fx_explore(&o, &r, &err);
    if (tk.printed)
        fprintf(stderr, "\n");
    /* a log's last line says where it ended, also when no run ended
     * between the 2 s mark and the bound (a loaded machine's runs) */
    if (o.progress && !tk.tty && rc >= 0 && r.seconds >= 2 &&
        tk.said != r.runs + 1) {
        tk.next = 0;
        progress(&tk, r.runs, r.nbugs, r.seconds);
    }
    if (rc < 0) {
        fprintf(stderr, "foretell explore: %s%s%s\n", err.path,
                err.path[0] ? ": " : "", err.message);
        if (r.write_errno) /* a run's trace or a saved bug: exit 4 */
            return FT_EXIT_INTERNAL;
        return rc == FX_ERR_NOT_FOUND ? FT_EXIT_NOT_FOUND
               : rc == FX_ERR_SYSTEM  ? FT_EXIT_INTERNAL
                                      : FT_EXIT_BAD_INPUT;
    }
    /* DIR/report.json beside the bugs it names, for `foretell report` */
    int saved = 0;
    if (r.nbugs) {
        char path[4200], tmp[4300];
        snprintf(path, sizeof path, "%.4000s/report.json", o.outdir);
        FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
        if (f)
            print_json(f, &o, &r);
        saved = f && ft_out_fclose(f, tmp, path) == 0 ? 1 : -1;
        if (saved < 0)
            fprintf(stderr, "foretell explore: %s: cannot write: %s\n", path,
                    strerror(errno));
    }
    if (json)
        print_json(stdout, &o, &r);
    else
        print_text(&o, &r);
    if (r.cut_calibration)
        fprintf(stderr, "foretell explore: --time ran out in the first run "
                "(the program runs longer than %.1f s under foretell)\n",
                o.time_s);
    if (r.failed) {
        /* What was found stays valid; foretell could not go on. */
        fprintf(stderr, "foretell explore: stopped after %" PRIu64
                " schedules: %s\n", r.runs, r.error);
        return FT_EXIT_INTERNAL;
    }
    if (saved < 0)
        return FT_EXIT_INTERNAL;
    return r.nbugs ? FT_EXIT_FOUND : FT_EXIT_OK;
}

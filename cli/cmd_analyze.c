/* SPDX-License-Identifier: MIT */
/* cmd_analyze.c - `foretell analyze TRACE`: BEST stages ii-iv on a recorded
 * (or STD) trace.  By default: infer and prune atomic regions, report the
 * violations the recorded run already shows, predict violating schedules
 * of the CA and CMA properties with Z3 and write one schedule file per
 * violation.  --regions/--properties list stage iii's results, --stats
 * the stage ii figures.  This file parses options and picks the output;
 * predict/pipeline.c does the work, analyze_report.c the printing. */
#include "cli/analyze_cmd.h"
#include "cli/json.h"
#include "cli/commands.h"
#include "cli/opt.h"
#include "predict/kind.h"
#include "replay/replay.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_OUT "foretell-out"
#define DEFAULT_TIME_S "600"

static const ft_opt opts[] = {
    {"output", 'o', "DIR",
     "write one schedule file per violation, and report.json (the "
     "--json document, for 'foretell report'), into DIR (default " DEFAULT_OUT
     ")"},
    {"json", 0, NULL, "print one JSON document instead of text"},
    {"jobs", 'j', "N", "solve N properties in parallel (default 1)"},
    {"timeout", 0, "S",
     "give up on a property after S seconds (default 10, 0 = none; 500ms "
     "also reads): verdict unknown"},
    {"mode", 0, "MODE",
     "direct (one SMT check per property, default) or findav (the paper's "
     "loop)"},
    {"max-iterations", 0, "N", "findav: stop after N checks (0 = no limit)"},
    {"stop-after", 0, "N",
     "stop solving once N violations are predicted (0 = solve all)"},
    {"every-instance", 0, NULL,
     "solve every dynamic instance of a CA/CMA property, also once another "
     "instance of the same code is violated (by default those are left "
     "unsolved and counted)"},
    {"time", 't', "SECONDS",
     "bound the whole analysis (loading, model, inference, properties, "
     "solving) to this wall time (default " DEFAULT_TIME_S ", 0 = none): "
     "it then reports what it decided and exits 5 if nothing was found"},
    {"maxd", 0, "N",
     "inference: max source-line span of a region (default "
     "10)"},
    {"spec", 0, "FILE", "functions whose bodies are atomic, one per line"},
    {"suppressions", 0, "FILE",
     "leave out the findings a KIND:PATTERN rule of FILE covers (by "
     "function, file, module or file:line; default $FORETELL_SUPPRESSIONS)"},
    {"system-regions", 0, NULL,
     "inference: also regions in system headers (libstdc++, libc code "
     "inlined into the program), left out by default"},
    {"std", 0, NULL,
     "TRACE is in RAPID's STD text format (default: detected from the "
     "first byte or a .std extension)"},
    {"regions", 0, NULL, "list the atomic regions and their status, then stop"},
    {"properties", 0, NULL, "list the CA and CMA properties, then stop"},
    {"confirm", 0, NULL,
     "replay every predicted schedule against PROG (given after --): "
     "confirmed, or spurious where it diverged, and the failure it led to "
     "(default: the program the trace recorded, when it is the same build)"},
    {"no-confirm", 0, NULL,
     "do not replay: findings are reported predicted, unconfirmed"},
    {"kinds", 0, "LIST",
     "what to predict, comma-separated: atomicity (CA/CMA), deadlock, "
     "lost-wakeup, ..., all (default all)"},
    {"refine", 0, "N",
     "--confirm: after a divergence, re-record, re-predict and replay up to "
     "N times (default 2)"},
    {"tails", 0, "N",
     "--confirm: a confirmed violation whose run did not fail is replayed "
     "with up to N random tails after the schedule (default 16; 0: none)"},
    {"tail-time", 0, "S",
     "--confirm: then more random tails (up to 4096 each), while the tails "
     "so far took under S seconds in all (default 0: N only)"},
    {"run-timeout", 0, "S",
     "--confirm: a replayed run without progress (key points, CPU) this "
     "long is hung (default 30)"},
    {"quiet", 'q', NULL, "no progress on stderr"},
    {"stats", 0, NULL, "print the model and reduction figures (tables IV, V)"},
    {"mats", 0, NULL, "with --stats: list the mutually atomic pairs"},
    {"cxt", 0, NULL, "with --stats: list the reduced context switches"},
    {"itrans", 0, NULL, "with --stats: list the i-transactions"},
    {"skip-unreachable", 0, NULL,
     "with --stats: MAT ignores pairs lockset/HB prove never co-enabled"},
    {NULL, 0, NULL, NULL},
};

enum { O_OUT, O_JSON, O_JOBS, O_TIMEOUT, O_MODE, O_MAXIT, O_STOP, O_EVERY,
       O_TIME,
       O_MAXD,
       O_SPEC, O_SUPP, O_SYSREG,
       O_STD, O_REGIONS, O_PROPS, O_CONFIRM, O_NO_CONFIRM, O_KINDS, O_REFINE,
       O_TAILS, O_TAIL_TIME, O_RUN_TIMEOUT,
       O_QUIET, O_STATS, O_MATS, O_CXT, O_ITRANS,
       O_SKIP, O_COUNT };

struct args {
    int flag[O_COUNT];
    const char *path, *out, *spec;
    const char *supp_path; /* --suppressions, else $FORETELL_SUPPRESSIONS */
    ft_suppressions *supp;
    char *const *prog; /* --confirm: PROG ARGS after -- */
    char **recorded;   /* the recorded program, confirmed by default */
    uint32_t kinds;    /* --kinds: a bit per enum ft_prop_kind */
    unsigned refine, tails;
    double tail_time; /* --tail-time */
    double run_timeout;
    fi_options fo;
    ft_predict_opts po;
    size_t stop_after;
    double time_s; /* --time, 0 none */
};

static int parse(struct args *a, int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell analyze", argc, argv);
    fi_options_default(&a->fo);
    ft_predict_opts_default(&a->po);
    a->out = DEFAULT_OUT;
    a->refine = 2;
    a->tails = 16;
    a->tail_time = 0;
    a->kinds = FT_KINDS_ALL;
    a->run_timeout = 30;
    a->time_s = atof(DEFAULT_TIME_S);
    const char *value;
    uint64_t n;
    for (;;) {
        int o = ft_opt_next(&p, opts, &value);
        if (o == FT_OPT_END)
            break;
        if (o == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell analyze [options] TRACE",
                         "Infers atomic regions of TRACE, reports the "
                         "violations the run shows, predicts schedules that "
                         "violate the others and writes them to DIR. Exit: "
                         "0 none, 1 violations, 2 bad input, 4 internal "
                         "error, 5 nothing found but not everything decided "
                         "(docs/user-guide.md).",
                         opts);
            return FT_EXIT_OK;
        }
        if (o == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (o == FT_OPT_POSITIONAL || o == FT_OPT_DASHDASH) {
            if (o == FT_OPT_DASHDASH) {
                if (p.i >= argc)
                    break;
                if (a->path) { /* TRACE [options] -- PROG [ARGS] */
                    a->prog = argv + p.i;
                    break;
                }
                value = argv[p.i++];
            }
            if (a->path) {
                fprintf(stderr, "foretell analyze: one trace only ('%s')\n",
                        value);
                return FT_EXIT_BAD_INPUT;
            }
            a->path = value;
            continue;
        }
        a->flag[o] = 1;
        switch (o) {
        case O_OUT:
            a->out = value;
            break;
        case O_SUPP:
            a->supp_path = value;
            break;
        case O_SPEC:
            a->spec = value;
            break;
        case O_KINDS: {
            char why[512];
            int64_t m = ft_pkind_parse_mask(value, why, sizeof why);
            if (m < 0) {
                fprintf(stderr, "foretell analyze: --kinds: %s\n", why);
                return FT_EXIT_BAD_INPUT;
            }
            a->kinds = (uint32_t)m;
            break;
        }
        case O_JOBS:
            if (ft_opt_uint(&p, "jobs", value, 1024, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->po.jobs = (unsigned)n;
            break;
        case O_TIMEOUT: {
            double s;
            if (ft_opt_seconds0(&p, "timeout", value, &s) < 0)
                return FT_EXIT_BAD_INPUT;
            if (s > 0 && s < 0.001)
                s = 0.001; /* the solver counts milliseconds */
            a->po.timeout_ms = s * 1000 > UINT32_MAX ? UINT32_MAX
                                                     : (unsigned)(s * 1000);
            break;
        }
        case O_MAXIT:
            if (ft_opt_uint(&p, "max-iterations", value, UINT32_MAX, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->po.max_iterations = (uint32_t)n;
            break;
        case O_STOP:
            if (ft_opt_uint(&p, "stop-after", value, UINT32_MAX, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->stop_after = (size_t)n;
            break;
        case O_TIME:
            if (ft_opt_seconds0(&p, "time", value, &a->time_s) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case O_REFINE:
            if (ft_opt_uint(&p, "refine", value, 100, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->refine = (unsigned)n;
            break;
        case O_TAILS:
            if (ft_opt_uint(&p, "tails", value, 10000, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->tails = (unsigned)n;
            break;
        case O_TAIL_TIME:
            if (ft_opt_seconds0(&p, "tail-time", value, &a->tail_time) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case O_RUN_TIMEOUT:
            if (ft_opt_seconds(&p, "run-timeout", value, &a->run_timeout) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case O_MAXD:
            if (ft_opt_uint(&p, "maxd", value, 1000000, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            a->fo.maxd = (uint32_t)n;
            break;
        case O_EVERY:
            a->po.every_instance = 1;
            break;
        case O_SYSREG:
            a->fo.system_regions = 1;
            break;
        case O_MODE:
            if (strcmp(value, "direct") == 0)
                a->po.mode = FT_PREDICT_DIRECT;
            else if (strcmp(value, "findav") == 0)
                a->po.mode = FT_PREDICT_FINDAV;
            else {
                fprintf(stderr, "foretell analyze: --mode expects direct or "
                                "findav, got '%s'\n", value);
                return FT_EXIT_BAD_INPUT;
            }
            break;
        }
    }
    if (!a->path) {
        fprintf(stderr, "foretell analyze: missing TRACE (see --help)\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->prog && !a->flag[O_CONFIRM]) {
        fprintf(stderr, "foretell analyze: a program after -- needs "
                        "--confirm\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->flag[O_CONFIRM] && a->flag[O_NO_CONFIRM]) {
        fprintf(stderr, "foretell analyze: --confirm and --no-confirm "
                        "contradict each other\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->flag[O_NO_CONFIRM] &&
        (a->flag[O_REFINE] || a->flag[O_TAILS] || a->flag[O_TAIL_TIME] ||
         a->flag[O_RUN_TIMEOUT])) {
        fprintf(stderr, "foretell analyze: --%s only applies when findings "
                        "are replayed (not with --no-confirm)\n",
                a->flag[O_REFINE]      ? "refine"
                : a->flag[O_TAILS]     ? "tails"
                : a->flag[O_TAIL_TIME] ? "tail-time"
                                       : "run-timeout");
        return FT_EXIT_BAD_INPUT;
    }
    return -1;
}

/* Progress on stderr, for every stage (the budget's reports): on a
 * terminal one line rewritten in place; elsewhere (CI logs) a line when a
 * stage starts or every 10 s, once the command has run for 2 s, so that
 * quick runs print nothing. */
typedef struct talk {
    int quiet, tty;
    double t0, last;
    const char *stage;   /* the last printed */
    const char *current; /* the last reported (for the watchdog) */
    int open; /* a terminal line is pending its newline */
    /* FORETELL_TEST_STALL, read once: the tests' stand-in for a stage
     * that does not poll the budget (tests/model/analyze_cli.sh):
     * STAGE[:SECONDS] sleeps there once, 60 s by default and at most */
    const char *stall;
} talk;

static void stage_progress(void *arg, const char *stage, uint64_t done,
                           uint64_t total)
{
    talk *k = arg;
    k->current = stage;
    size_t sl = k->stall ? strcspn(k->stall, ":") : 0;
    if (k->stall && strlen(stage) == sl &&
        strncmp(k->stall, stage, sl) == 0) {
        double s = k->stall[sl] ? atof(k->stall + sl + 1) : 60;
        k->stall = NULL; /* once */
        for (int i = 0; i < 600 && i < s * 10; i++)
            nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    if (k->quiet)
        return;
    double t = ft_now();
    int changed = !k->stage || strcmp(k->stage, stage) != 0;
    if (t - k->t0 < 2 || (!changed && t - k->last < (k->tty ? 0.25 : 10)))
        return;
    k->stage = stage;
    k->last = t;
    char what[64] = "";
    if (total)
        snprintf(what, sizeof what, " %llu/%llu", (unsigned long long)done,
                 (unsigned long long)total);
    else if (done)
        snprintf(what, sizeof what, " %llu", (unsigned long long)done);
    fprintf(stderr, "%sforetell analyze: %.0f s: %s%s%s", k->tty ? "\r" : "",
            t - k->t0, stage, what, k->tty ? "\033[K" : "\n");
    k->open = k->tty;
}

static void talk_end(talk *k)
{
    if (k->open)
        fputc('\n', stderr);
    k->open = 0;
}

/* The backstop of --time: a stage that does not poll the budget often
 * enough (a long pass, a solver that ignores its interrupt) cannot keep
 * the command running past the bound by more than WATCHDOG_GRACE_S; the
 * watchdog then says where it was and exits 5 (nothing was decided yet:
 * the solving stage keeps its own, shorter, bound and returns). */
#define WATCHDOG_GRACE_S 8.0

typedef struct watchdog {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double at;
    int disarmed;
    const talk *k;
    ft_budget *b;
    int json;           /* --json: the document says what happened */
    const char *path;
    int printing;       /* the report is being written (atomic): wait */
    const char *out;    /* -o DIR: its report.json says so too (NULL:
                           --regions/--properties write none) */
} watchdog;

/* The document of a command the watchdog stopped: what stopped, nothing
 * found. */
static void watchdog_doc(FILE *f, const watchdog *w, const char *stage,
                         const char *msg)
{
    ft_json j;
    ft_json_init(&j, f);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "trace", w->path);
    ft_json_kstr(&j, "stopped_in", stage);
    ft_json_kstr(&j, "error", msg);
    ft_json_key(&j, "findings");
    ft_json_begin_array(&j);
    ft_json_end_array(&j);
    ft_json_end_object(&j);
    ft_json_line(&j);
}

/* DIR/report.json replaced by the watchdog's document: a report of an
 * earlier run left there would read as this run's (CI reads the file,
 * not the exit code, as often as not).  Best effort: the exit code and
 * stderr say it all already. */
static void watchdog_report(const watchdog *w, const char *stage,
                            const char *msg)
{
    char path[4200], tmp[4300];
    struct stat st;
    if (!w->out || (mkdir(w->out, 0777) != 0 && errno != EEXIST) ||
        stat(w->out, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    snprintf(path, sizeof path, "%.4000s/report.json", w->out);
    FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
    if (!f)
        return;
    watchdog_doc(f, w, stage, msg);
    if (ft_out_fclose(f, tmp, path) != 0)
        fprintf(stderr, "foretell analyze: error: %s: cannot write: %s\n",
                path, strerror(errno));
}

static void *watchdog_main(void *arg)
{
    watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    double whole, frac = modf(w->at, &whole);
    struct timespec at = {(time_t)whole, (long)(frac * 1e9)};
    int rc = 0;
    for (;;) {
        while (!w->disarmed && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&w->cv, &w->mu, &at);
        /* a report half written would be cut: let it finish */
        if (w->disarmed || !__atomic_load_n(&w->printing, __ATOMIC_ACQUIRE))
            break;
        at.tv_sec += WATCHDOG_GRACE_S;
        rc = 0;
    }
    if (!w->disarmed) {
        const char *stage = w->k->current ? w->k->current : "loading";
        char msg[200];
        snprintf(msg, sizeof msg, "--time %.0f s ran out in %s, which did "
                 "not stop in time; nothing decided", w->b->seconds, stage);
        fprintf(stderr, "%sforetell analyze: error: %s\n",
                w->k->open ? "\n" : "", msg);
        /* machines get a document too: what stopped, nothing found */
        if (w->json)
            watchdog_doc(stdout, w, stage, msg);
        watchdog_report(w, stage, msg);
        fflush(stdout);
        _exit(FT_EXIT_UNDECIDED);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void watchdog_disarm(watchdog *w)
{
    pthread_mutex_lock(&w->mu);
    w->disarmed = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* DIR/report.json: the document --json prints, kept with the schedules
 * it names for `foretell report` (docs/user-guide.md).  0, or -1 with a
 * message. */
static int write_report_json(const char *dir, const analyze_out *ao)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4000s/report.json", dir);
    FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
    if (f) {
        analyze_print_json(f, ao);
        if (ft_out_fclose(f, tmp, path) == 0)
            return 0;
    }
    fprintf(stderr, "foretell analyze: error: %s: cannot write: %s\n", path,
            strerror(errno));
    return -1;
}

static void free_out(analyze_out *ao)
{
    for (size_t i = 0; i < ao->pl->nprops; i++)
        free(ao->schedule[i]);
    free(ao->schedule);
    free(ao->confirm);
    analyze_free_kinds(ao);
}

/* A run of threads without one memory read is what the LD_PRELOAD
 * runtime records (docs/recorder.md): say what can be predicted from it,
 * or the empty atomicity summary reads as "nothing wrong". */
static int has_memory_reads(const ft_pipeline *pl)
{
    const ft_ctm *c = pl->ctm;
    for (uint32_t x = 0; c && x < c->ntrans; x++)
        if (ft_ctm_reads(c, x) && c->obj[x] < c->nvars &&
            c->vars[c->obj[x]].kind == FT_VAR_MEMORY)
            return 1;
    return 0;
}

static void note_no_reads(const ft_pipeline *pl, const char *path)
{
    const ft_ctm *c = pl->ctm;
    if (!c || c->nthreads < 2 || has_memory_reads(pl))
        return;
    fprintf(stderr, "%s: note: the trace holds no memory read (a program "
            "not built with foretell-cc is recorded at its synchronisation "
            "only): deadlocks, lost wake-ups and misuse can be predicted "
            "from it, atomicity violations, races and order violations "
            "cannot (docs/recorder.md)\n", path);
}

static int run(struct args *a, ft_pipeline *pl, ft_budget *b, talk *k,
               watchdog *w)
{
    ft_error err;
    if (!a->flag[O_REGIONS] && !a->flag[O_PROPS] &&
        analyze_out_dir_check(a->out) < 0)
        return FT_EXIT_BAD_INPUT;
    int rc = ft_pipeline_load_bounded(
        pl, a->path, a->flag[O_STD] ? FT_INPUT_STD : FT_INPUT_DETECT, b,
        &err);
    if (rc < 0) {
        fprintf(stderr, "%s: error: at byte %llu: %s\n",
                err.path[0] ? err.path : a->path,
                (unsigned long long)err.offset, err.message);
        return FT_EXIT_BAD_INPUT;
    }
    if (rc == 1)
        fprintf(stderr, "%s: warning: %s; analyzing the events recovered\n",
                a->path, err.message);
    char **spec = NULL;
    size_t nspec = 0;
    if (a->spec) {
        if (fi_spec_read(a->spec, &spec, &nspec, &err) < 0) {
            fprintf(stderr, "%s: error: %s\n", a->spec, err.message);
            return FT_EXIT_BAD_INPUT;
        }
        a->fo.spec_functions = (const char *const *)spec;
        a->fo.nspec = nspec;
    }
    int infer_rc = ft_pipeline_infer(pl, &a->fo, &err);
    fi_spec_free(spec, nspec);
    if (infer_rc < 0) {
        talk_end(k);
        fprintf(stderr, "%s: error: %s\n", a->path, err.message);
        return err.offset == UINT64_MAX ? FT_EXIT_INTERNAL
                                         : FT_EXIT_BAD_INPUT;
    }
    if (!pl->stopped)
        note_no_reads(pl, a->path);
    int ok = pl->damaged ? FT_EXIT_BAD_INPUT : FT_EXIT_OK;
    if (a->flag[O_REGIONS] || a->flag[O_PROPS]) {
        talk_end(k);
        if (pl->stopped)
            fprintf(stderr, "%s: warning: --time ran out in %s: the lists "
                            "are incomplete\n", a->path, pl->stopped);
        if (a->flag[O_REGIONS])
            fi_print_regions(stdout, &pl->infer, a->flag[O_JSON]);
        if (a->flag[O_PROPS])
            fi_print_properties(stdout, &pl->infer, a->flag[O_JSON]);
        return ok == FT_EXIT_OK && pl->stopped ? FT_EXIT_UNDECIDED : ok;
    }
    if (analyze_out_dir_make(a->out) < 0)
        return FT_EXIT_BAD_INPUT;
    if (!a->flag[O_JSON]) {
        talk_end(k);
        analyze_print_observed(stdout, pl);
        analyze_print_misuse(stdout, pl);
    }
    fflush(stdout);
    if (!(a->kinds & (1u << FT_PROP_CA | 1u << FT_PROP_CMA)))
        pl->nprops = 0; /* --kinds without atomicity */
    /* the other kinds first: what their cheap decisions leave to the
     * solver gets at most half of what is left of --time, the atomicity
     * properties the rest (ft_pipeline_predict_kinds) */
    long prc = ft_pipeline_kind_candidates(pl, a->kinds, 4);
    if (prc >= 0)
        prc = ft_pipeline_predict_kinds(pl, &a->po);
    if (prc >= 0)
        prc = ft_pipeline_predict(pl, &a->po, a->stop_after, NULL, NULL);
    /* before any schedule is written or replayed: a suppressed finding
     * costs nothing more */
    if (prc >= 0 && a->supp && ft_pipeline_suppress(pl, a->supp) < 0)
        prc = -1;
    /* what follows is not cut by the watchdog: the schedules poll the
     * budget, and no replay of the confirmation starts after it (one
     * running keeps its own run timeout) */
    watchdog_disarm(w);
    talk_end(k);
    if (prc < 0) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return FT_EXIT_INTERNAL;
    }
    analyze_out ao = {.pl = pl,
                      .schedule = calloc(pl->nprops + 1, sizeof(char *))};
    if (!ao.schedule) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return FT_EXIT_INTERNAL;
    }
    int exit_code = analyze_kinds(&ao, pl, a->out);
    if (exit_code != FT_EXIT_OK) {
        free_out(&ao);
        return exit_code;
    }
    exit_code = ok;
    size_t nwritten = 0, unwritten = 0;
    for (size_t i = 0; i < pl->nprops; i++) {
        if (pl->results[i].verdict != FT_VIOLATED)
            continue;
        /* a window's schedule holds the recorded prefix: on a long trace
         * each is megabytes, and writing them is under --time too */
        if (ft_budget_poll(b, "writing schedules", nwritten++,
                           pl->nviolated)) {
            unwritten++;
            continue;
        }
        /* The first failure stops the writing (a full disk would fail
         * every later one the same way). */
        if (analyze_write_schedule(&ao, i, a->out) < 0) {
            exit_code = FT_EXIT_INTERNAL;
            break;
        }
    }
    talk_end(k);
    if (unwritten)
        fprintf(stderr, "foretell analyze: warning: --time ran out: %zu of "
                        "%zu schedules not written (a larger --time, or "
                        "--stop-after N, writes them)\n", unwritten,
                pl->nviolated);
    /* without PROG, the program the trace recorded (same build) */
    char why[512] = "--no-confirm";
    if (!a->prog && !a->flag[O_NO_CONFIRM])
        a->prog = a->recorded =
            analyze_recorded_program(a->path, why, sizeof why);
    /* accesses recorded from a program without our runtime: the Valgrind
     * recorder's trace, whose schedules order accesses that the replay
     * (the LD_PRELOAD runtime) cannot hold back */
    if (a->recorded && !a->flag[O_CONFIRM] &&
        !fr_program_has_runtime(a->prog[0]) && has_memory_reads(pl)) {
        fprintf(stderr,
                "%s: note: %s was not built with foretell-cc, and "
                "the trace orders its memory accesses (recorded under "
                "Valgrind): its replays control synchronisation only and "
                "cannot follow the schedules; findings are reported "
                "unconfirmed (to confirm them, build it with foretell-cc, "
                "replay this run there with `foretell replay --trace %s "
                "-o RUN -- PROG` and analyze RUN; or force the replays "
                "with --confirm)\n",
                a->path, a->prog[0], a->path);
        snprintf(why, sizeof why, "recorded under Valgrind");
        a->prog = NULL;
    }
    if (!a->prog && a->flag[O_CONFIRM]) {
        fprintf(stderr, "foretell analyze: --confirm: %s; give the program: "
                        "TRACE --confirm -- PROG [ARGS]\n", why);
        free_out(&ao);
        return 127;
    }
    if (!a->prog)
        snprintf(ao.unconfirmed, sizeof ao.unconfirmed, "%s", why);
    if (a->prog && exit_code == ok) {
        /* another build: the schedules' indexes are not its own */
        if (!a->recorded && fr_check_binary(a->path, a->prog[0], stderr) == 0)
            fprintf(stderr,
                    "%s: note: to confirm on that build, replay this run "
                    "there first (`foretell replay --trace %s -o RUN -- "
                    "PROG`: its switches mapped onto that build's events) "
                    "and analyze RUN\n",
                    a->path, a->path);
        analyze_talk replays = {
            .on = !a->flag[O_QUIET], .tty = isatty(2), .t0 = k->t0};
        analyze_confirm_opts co = {
            a->prog,          a->out, a->run_timeout, a->refine,
            a->tails,         a->tail_time, &a->fo, &a->po,
            !a->flag[O_QUIET], b ? b->until : 0, pl, &replays};
        exit_code = analyze_confirm(&ao, &co);
        if (exit_code == FT_EXIT_OK && !a->po.every_instance)
            exit_code = analyze_uncover(&ao, &co, pl);
        if (exit_code == FT_EXIT_OK)
            exit_code = analyze_confirm_kinds(&ao, &co);
        if (exit_code == FT_EXIT_OK)
            exit_code = analyze_refine(&ao, &co);
        if (exit_code == FT_EXIT_OK)
            exit_code = analyze_tails_in_turns(&ao, &co);
        if (exit_code != FT_EXIT_OK) {
            free_out(&ao);
            return exit_code;
        }
        exit_code = ok;
    }
    __atomic_store_n(&w->printing, 1, __ATOMIC_RELEASE);
    /* after a schedule could not be written, the disk said enough */
    if (exit_code != FT_EXIT_INTERNAL && write_report_json(a->out, &ao) < 0)
        exit_code = FT_EXIT_INTERNAL;
    if (a->flag[O_JSON])
        analyze_print_json(stdout, &ao);
    else
        analyze_print_text(stdout, &ao);
    /* With replays, only confirmed predictions count as found. */
    size_t found = (ao.confirm ? analyze_confirmed(&ao) : pl->nviolated) +
                   analyze_kind_bugs(&ao);
    size_t not_replayed = analyze_not_replayed(&ao) + analyze_unrefined(&ao);
    free_out(&ao);
    if (exit_code == FT_EXIT_OK && (found || pl->nobserved || pl->nmisuse))
        exit_code = FT_EXIT_FOUND;
    /* nothing found, but not everything decided: not "clean" (the
     * kinds' candidates too: an unknown race is no clean run either) */
    if (exit_code == FT_EXIT_OK &&
        (pl->stopped || pl->nunknown || pl->nerror || pl->nkunknown ||
         not_replayed || unwritten))
        exit_code = FT_EXIT_UNDECIDED;
    return exit_code;
}

int cmd_analyze(int argc, char **argv)
{
    struct args a;
    memset(&a, 0, sizeof a);
    int rc = parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (a.flag[O_STATS] || a.flag[O_MATS] || a.flag[O_CXT] ||
        a.flag[O_ITRANS])
        return analyze_stats(a.path, a.flag[O_JSON], a.flag[O_STATS] ||
                             !(a.flag[O_MATS] || a.flag[O_CXT] ||
                               a.flag[O_ITRANS]),
                             a.flag[O_MATS], a.flag[O_CXT], a.flag[O_ITRANS],
                             a.flag[O_SKIP]);
    /* --confirm: a typo in the program is named before minutes of
     * solving, not after */
    if (a.prog && (rc = ft_cli_check_program("foretell analyze",
                                             a.prog[0])) != 0)
        return rc;
    if ((rc = ft_cli_suppressions(a.supp_path, &a.supp)) != 0)
        return rc;
    talk k = {a.flag[O_QUIET], isatty(2), ft_now(), 0, NULL, NULL, 0,
              getenv("FORETELL_TEST_STALL")};
    ft_budget b = {0, a.time_s, stage_progress, &k, 0};
    watchdog w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
                  &k, &b, a.flag[O_JSON], a.path, 0,
                  a.flag[O_REGIONS] || a.flag[O_PROPS] ? NULL : a.out};
    pthread_t wth;
    int armed = 0;
    if (a.time_s) {
        b.until = k.t0 + a.time_s;
        /* the solver's per-property limit is cut to what is left */
        a.po.total_ms = a.time_s * 1000 >= UINT32_MAX ? UINT32_MAX
                        : a.time_s < 0.001 ? 1
                                           : (unsigned)(a.time_s * 1000);
        w.at = b.until + WATCHDOG_GRACE_S;
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&w.cv, &ca);
        pthread_condattr_destroy(&ca);
        armed = pthread_create(&wth, NULL, watchdog_main, &w) == 0;
    }
    ft_pipeline pl;
    rc = run(&a, &pl, &b, &k, &w);
    talk_end(&k);
    watchdog_disarm(&w);
    if (armed)
        pthread_join(wth, NULL);
    if (!a.flag[O_QUIET]) {
        fflush(stdout);
        ft_suppressions_print_used(stderr, a.supp);
    }
    if (pl.abandoned) {
        /* a solver thread still runs in Z3: leave without unwinding */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    ft_pipeline_free(&pl);
    ft_suppressions_free(a.supp);
    analyze_free_argv(a.recorded);
    return rc;
}

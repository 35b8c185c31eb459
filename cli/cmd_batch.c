/* SPDX-License-Identifier: MIT */
/* cmd_batch.c - `foretell batch`: many traces collected by CI analyzed
 * into one results store (batch/batch.h), and what is done with it:
 *   analyze  the traces (files, directories, @lists) of this shard
 *   merge    shard stores into one
 *   report   SARIF, JUnit, JSON lines, HTML (batch_report.c)
 *   confirm  one witness per finding replayed against the program
 * This file parses options and prints summaries; batch/ does the work.
 * docs/batch.md is the user's page. */
#include "cli/batch_cmd.h"
#include "cli/commands.h"
#include "cli/opt.h"
#include "predict/kind.h"
#include "replay/replay.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_STORE "foretell.db"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- batch analyze ----------------------------------------------------- */

static const ft_opt analyze_opts[] = {
    {"store", 's', "S.db",
     "the results store (default " DEFAULT_STORE "; created when missing)"},
    {"jobs", 'j', "N", "analyze N traces at once (default 1)"},
    {"shard", 0, "I/N",
     "analyze only the traces whose hash is I modulo N (default: from "
     "SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX)"},
    {"shard-count", 0, "N",
     "the number of shards when the index comes from JOB_COMPLETION_INDEX"},
    {"redo", 0, NULL, "analyze again the traces the store already has"},
    {"retry", 0, NULL,
     "analyze again the traces that timed out, crashed or failed"},
    {"trace-time", 0, "SECONDS",
     "bound each trace's analysis (prediction stops then, the analysis is "
     "killed 10 s later: status timeout)"},
    {"time", 't', "SECONDS",
     "bound the whole batch: traces not finished by then are left for a "
     "rerun"},
    {"quiet", 'q', NULL, "no progress lines on stderr"},
    /* analyze's options, passed to each trace's analysis */
    {"timeout", 0, "S", "analyze: give up on a property after S seconds"},
    {"mode", 0, "MODE", "analyze: direct or findav"},
    {"max-iterations", 0, "N", "analyze: findav stops after N checks"},
    {"stop-after", 0, "N", "analyze: stop a trace once N are predicted"},
    {"maxd", 0, "N", "analyze: max source-line span of a region"},
    {"spec", 0, "FILE", "analyze: functions whose bodies are atomic"},
    {"suppressions", 0, "FILE",
     "analyze: findings a KIND:PATTERN rule of FILE covers are not stored "
     "(default $FORETELL_SUPPRESSIONS)"},
    {"system-regions", 0, NULL, "analyze: also regions in system headers"},
    {"kinds", 0, "LIST",
     "analyze: what to predict, comma-separated: atomicity (CA/CMA), "
     "deadlock, lost-wakeup, order, null-deref, use-after-free, data-race, "
     "all (default all)"},
    {"std", 0, NULL, "analyze: every trace is in RAPID's STD format"},
    {"confirm", 0, NULL,
     "replay each finding's witness against PROG (given after --)"},
    {"refine", 0, "N", "--confirm: refinement rounds (default 2)"},
    {"tails", 0, "N", "--confirm: random tails (default 16)"},
    {"tail-time", 0, "S",
     "--confirm: then more random tails (up to 4096 a finding) while the "
     "trace's replays so far took under S seconds (default 0: N only)"},
    {"run-timeout", 0, "S",
     "--confirm: a replayed run without progress "
     "(key points, CPU) this long is hung"},
    {"work", 0, "DIR", "--confirm: keep schedules and replayed runs under DIR"},
    {NULL, 0, NULL, NULL},
};

enum {
    A_STORE,
    A_JOBS,
    A_SHARD,
    A_SHARD_COUNT,
    A_REDO,
    A_RETRY,
    A_TRACE_TIME,
    A_TIME,
    A_QUIET,
    A_TIMEOUT,
    A_MODE,
    A_MAXIT,
    A_STOP,
    A_MAXD,
    A_SPEC,
    A_SUPP,
    A_SYSREG,
    A_KINDS,
    A_STD,
    A_CONFIRM,
    A_REFINE,
    A_TAILS,
    A_TAIL_TIME,
    A_RUN_TIMEOUT,
    A_WORK,
    A_COUNT
};

/* The numeric options: where each goes and its bound. */
typedef struct num_opt {
    int opt;
    uint64_t max;
    int width; /* bytes of the destination: 4 or 8 */
    size_t offset;
} num_opt;

typedef struct analyze_args {
    const char *store, *shard, *work;
    uint64_t jobs, shard_count;
    double trace_time, total_time;
    fb_analyze_opts ao;
    uint64_t timeout, maxit, stop, maxd, refine, tails;
    int flag[A_COUNT];
    char **inputs;
    int ninputs;
} analyze_args;

#define NUM(o, max, field)                                                \
    {o, max, (int)sizeof(((analyze_args *)0)->field),                     \
     offsetof(analyze_args, field)}

static const num_opt nums[] = {
    NUM(A_JOBS, 256, jobs),          NUM(A_SHARD_COUNT, 1000000, shard_count),
    NUM(A_MAXIT, UINT32_MAX, maxit),
    NUM(A_STOP, UINT32_MAX, stop),   NUM(A_MAXD, 1000000, maxd),
    NUM(A_REFINE, 100, refine),      NUM(A_TAILS, 10000, tails),
};

static int parse_analyze(analyze_args *a, int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell batch analyze", argc, argv);
    a->store = DEFAULT_STORE;
    a->jobs = 1;
    fb_analyze_opts_default(&a->ao);
    a->maxd = a->ao.infer.maxd;
    a->refine = a->ao.refine;
    a->tails = a->ao.tails;
    a->timeout = a->ao.predict.timeout_ms;
    a->inputs = calloc((size_t)argc + 1, sizeof *a->inputs);
    if (!a->inputs)
        return FT_EXIT_INTERNAL;
    const char *v;
    for (;;) {
        int o = ft_opt_next(&p, analyze_opts, &v);
        if (o == FT_OPT_END)
            break;
        if (o == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell batch analyze [options] "
                         "TRACE|DIR|@LIST... [-- PROG [ARGS]]",
                         "Analyzes every trace given (a directory: every "
                         "trace below it; @LIST: the paths in LIST, one a "
                         "line) into the store, skipping those it already "
                         "has (by content hash). Exit: 0 nothing found, 1 "
                         "findings, 2 bad input, 4 internal error, 5 "
                         "undecided (time ran out) (docs/batch.md).",
                         analyze_opts);
            return FT_EXIT_OK;
        }
        if (o == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (o == FT_OPT_DASHDASH) {
            if (p.i < argc)
                a->ao.prog = argv + p.i;
            break;
        }
        if (o == FT_OPT_POSITIONAL) {
            a->inputs[a->ninputs++] = (char *)v;
            continue;
        }
        a->flag[o] = 1;
        for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
            if (nums[k].opt != o)
                continue;
            uint64_t n;
            if (ft_opt_uint(&p, analyze_opts[o].name, v, nums[k].max, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            char *dst = (char *)a + nums[k].offset;
            if (nums[k].width == 8)
                memcpy(dst, &n, 8);
            else {
                uint32_t n32 = (uint32_t)n;
                memcpy(dst, &n32, 4);
            }
        }
        switch (o) {
        case A_STORE: a->store = v; break;
        case A_SHARD: a->shard = v; break;
        case A_WORK: a->work = v; break;
        case A_SPEC: a->ao.spec = v; break;
        case A_SUPP: a->ao.suppressions_path = v; break;
        case A_SYSREG: a->ao.infer.system_regions = 1; break;
        case A_KINDS: {
            char why[512];
            int64_t m = ft_pkind_parse_mask(v, why, sizeof why);
            if (m < 0) {
                fprintf(stderr, "foretell batch analyze: --kinds: %s\n", why);
                return FT_EXIT_BAD_INPUT;
            }
            a->ao.kinds = (uint32_t)m;
            break;
        }
        case A_TRACE_TIME:
            if (ft_opt_seconds(&p, "trace-time", v, &a->trace_time) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case A_TIME:
            if (ft_opt_seconds(&p, "time", v, &a->total_time) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case A_TIMEOUT: { /* seconds, kept in milliseconds as analyze's */
            double s;
            if (ft_opt_seconds0(&p, "timeout", v, &s) < 0)
                return FT_EXIT_BAD_INPUT;
            a->timeout = s * 1000 >= UINT32_MAX ? UINT32_MAX
                         : s > 0 && s < 0.001  ? 1
                                               : (uint64_t)(s * 1000);
            break;
        }
        case A_RUN_TIMEOUT:
            if (ft_opt_seconds(&p, "run-timeout", v, &a->ao.run_timeout) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case A_TAIL_TIME:
            if (ft_opt_seconds0(&p, "tail-time", v, &a->ao.tail_time) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case A_MODE:
            if (!strcmp(v, "direct") || !strcmp(v, "findav")) {
                a->ao.predict.mode = v[0] == 'd' ? FT_PREDICT_DIRECT
                                                 : FT_PREDICT_FINDAV;
                break;
            }
            fprintf(stderr, "foretell batch analyze: --mode expects direct "
                    "or findav, got '%s'\n", v);
            return FT_EXIT_BAD_INPUT;
        }
    }
    if (a->jobs == 0) {
        fprintf(stderr, "foretell batch analyze: --jobs must be at least 1\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->ninputs == 0) {
        fprintf(stderr, "foretell batch analyze: no traces given (TRACE, DIR "
                "or @LIST; see --help)\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->flag[A_TAIL_TIME] && !a->flag[A_CONFIRM]) {
        fprintf(stderr, "foretell batch analyze: --tail-time only applies "
                        "when findings are replayed (--confirm)\n");
        return FT_EXIT_BAD_INPUT;
    }
    if (a->flag[A_CONFIRM] != (a->ao.prog != NULL)) {
        fprintf(stderr, "foretell batch analyze: %s\n",
                a->ao.prog ? "a program after -- needs --confirm"
                           : "--confirm needs the program: ... -- PROG "
                             "[ARGS]");
        return FT_EXIT_BAD_INPUT;
    }
    a->ao.predict.timeout_ms = (unsigned)a->timeout;
    a->ao.predict.max_iterations = (uint32_t)a->maxit;
    a->ao.stop_after = (size_t)a->stop;
    a->ao.infer.maxd = (uint32_t)a->maxd;
    a->ao.refine = (unsigned)a->refine;
    a->ao.tails = (unsigned)a->tails;
    a->ao.std = a->flag[A_STD];
    return -1;
}

/* The shard: --shard, else the job array's environment. */
static int pick_shard(const analyze_args *a, fb_shard *sh, int quiet)
{
    memset(sh, 0, sizeof *sh);
    if (a->shard) {
        if (fb_shard_parse(a->shard, sh) < 0) {
            fprintf(stderr, "foretell batch analyze: --shard expects I/N with "
                    "I < N, got '%s'\n", a->shard);
            return -1;
        }
        return 0;
    }
    char from[128], why[300];
    int rc = fb_shard_from_env(sh, (uint32_t)a->shard_count, from,
                               sizeof from, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "foretell batch analyze: %s\n", why);
        return -1;
    }
    if (rc == 0 && a->shard_count) {
        fprintf(stderr, "foretell batch analyze: --shard-count needs "
                "JOB_COMPLETION_INDEX in the environment (or use --shard "
                "I/N)\n");
        return -1;
    }
    if (rc == 1 && !quiet)
        fprintf(stderr, "foretell batch: shard %u/%u (from %s)\n", sh->index,
                sh->count, from);
    return 0;
}

/* The exit code of the traces this shard owns, as documented: findings
 * first, then a failed analysis, then undecided, then bad input. */
static int batch_exit(fb_store *s, const fb_inputs *in, const fb_shard *sh,
                      const fb_run_stats *st)
{
    int found = 0, internal = 0, bad = 0, undecided = st->left != 0;
    for (size_t i = 0; i < in->n; i++) {
        if (!fb_shard_owns(sh, in->v[i].hash))
            continue;
        int code = 0, status = fb_store_status(s, in->v[i].hash, &code);
        found |= code == FT_EXIT_FOUND;
        internal |= status == FB_CRASHED || status == FB_ERROR;
        undecided |= status == FB_TIMEOUT;
        bad |= status == FB_BAD || status == FB_DAMAGED;
    }
    return found      ? FT_EXIT_FOUND
           : internal ? FT_EXIT_INTERNAL
           : undecided ? FT_EXIT_UNDECIDED
           : bad      ? FT_EXIT_BAD_INPUT
                      : FT_EXIT_OK;
}

static int batch_analyze(int argc, char **argv)
{
    analyze_args a;
    memset(&a, 0, sizeof a);
    double t0 = now();
    int rc = parse_analyze(&a, argc, argv);
    if (rc >= 0) {
        free(a.inputs);
        return rc;
    }
    fb_shard sh;
    fb_inputs in = {0};
    fb_store *s = NULL;
    ft_error err;
    rc = FT_EXIT_BAD_INPUT;
    if (pick_shard(&a, &sh, a.flag[A_QUIET]) < 0)
        goto out;
    if (a.ao.prog && !fr_which(a.ao.prog[0], (char[4096]){0}, 4096)) {
        fprintf(stderr, "foretell batch analyze: --confirm: %s: program "
                "not found\n", a.ao.prog[0]);
        rc = 127;
        goto out;
    }
    if (a.ao.spec) {
        char **spec;
        size_t nspec;
        if (fi_spec_read(a.ao.spec, &spec, &nspec, &err) < 0) {
            fprintf(stderr, "%s: error: %s\n", a.ao.spec, err.message);
            goto out;
        }
        fi_spec_free(spec, nspec);
    }
    if (!a.ao.suppressions_path) {
        const char *env = getenv("FORETELL_SUPPRESSIONS");
        a.ao.suppressions_path = env && *env ? env : NULL;
    }
    if (ft_cli_suppressions(a.ao.suppressions_path, &a.ao.suppressions))
        goto out;
    for (int i = 0; i < a.ninputs; i++)
        if (fb_inputs_add(&in, a.inputs[i], &err) < 0) {
            fprintf(stderr, "%s: error: %s\n", err.path, err.message);
            goto out;
        }
    if (!a.flag[A_QUIET] && in.n > 100)
        fprintf(stderr, "foretell batch: hashing %zu traces\n", in.n);
    if (fb_inputs_hash(&in, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", err.path, err.message);
        goto out;
    }
    /* --time covers the listing and hashing too */
    double left = a.total_time > 0 ? a.total_time - (now() - t0) : 0;
    if (a.total_time > 0 && left <= 0)
        left = 1e-3;
    s = fb_store_open(a.store, FB_STORE_CREATE, &err);
    if (!s) {
        fprintf(stderr, "%s: error: %s\n", err.path[0] ? err.path : a.store,
                err.message);
        goto out;
    }
    char tmp[4096] = "";
    if (a.ao.prog) {
        if (a.work) {
            if (mkdir(a.work, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "%s: error: cannot create the work "
                        "directory: %s\n", a.work, strerror(errno));
                goto out;
            }
            a.ao.work_dir = a.work;
        } else {
            const char *t = getenv("TMPDIR");
            snprintf(tmp, sizeof tmp, "%s/foretell-batch-XXXXXX",
                     t && *t ? t : "/tmp");
            if (!mkdtemp(tmp)) {
                fprintf(stderr, "%s: error: cannot create a work directory: "
                        "%s\n", tmp, strerror(errno));
                goto out;
            }
            a.ao.work_dir = tmp;
        }
    }
    char desc[512];
    fb_analyze_opts_describe(&a.ao, desc, sizeof desc);
    fb_store_set_options(s, desc);
    fb_run_opts ro = {.jobs = (unsigned)a.jobs, .shard = sh,
                      .redo = a.flag[A_REDO], .retry = a.flag[A_RETRY],
                      .trace_time = a.trace_time,
                      .total_time = left,
                      .progress = !a.flag[A_QUIET], .analyze = &a.ao};
    if (!a.flag[A_QUIET])
        fprintf(stderr, "foretell batch: %zu traces%s into %s, %llu at once"
                "\n", in.n, in.duplicates ? " (duplicates dropped)" : "",
                a.store, (unsigned long long)a.jobs);
    fb_run_stats st;
    int r = fb_run(s, &in, &ro, &st, &err);
    if (tmp[0])
        rmdir(tmp);
    if (r < 0) {
        fprintf(stderr, "%s: error: %s\n", err.path[0] ? err.path : a.store,
                err.message);
        rc = FT_EXIT_INTERNAL;
        goto out;
    }
    if (st.left)
        fprintf(stderr, "foretell batch: %s: %zu traces not analyzed; "
                "run the same command again to complete the store\n",
                st.interrupted ? "interrupted" : "the time bound (--time) "
                                                 "was reached",
                st.left);
    rc = st.interrupted ? 128 + st.interrupted : batch_exit(s, &in, &sh, &st);
out:
    if (s && fb_store_close(s, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", err.path, err.message);
        rc = FT_EXIT_INTERNAL;
    }
    fb_inputs_free(&in);
    ft_suppressions_free(a.ao.suppressions);
    free(a.inputs);
    return rc;
}

/* ---- batch merge -------------------------------------------------------- */

static int batch_merge(int argc, char **argv)
{
    static const ft_opt opts[] = {
        {"quiet", 'q', NULL, "no summary on stderr"},
        {NULL, 0, NULL, NULL},
    };
    ft_optparse p;
    ft_opt_init(&p, "foretell batch merge", argc, argv);
    const char *v, *paths[argc + 1];
    int n = 0, quiet = 0, o;
    while ((o = ft_opt_next(&p, opts, &v)) != FT_OPT_END) {
        if (o == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell batch merge OUT.db SHARD.db...",
                         "Adds every trace, finding and occurrence of the "
                         "shard stores that OUT.db lacks (creating OUT.db). "
                         "Merging twice changes nothing.", opts);
            return FT_EXIT_OK;
        }
        if (o == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (o == FT_OPT_DASHDASH) {
            while (p.i < argc)
                paths[n++] = argv[p.i++];
            break;
        }
        if (o == FT_OPT_POSITIONAL)
            paths[n++] = v;
        else
            quiet = 1;
    }
    if (n < 2) {
        fprintf(stderr, "foretell batch merge: expected OUT.db and at least "
                "one SHARD.db (see --help)\n");
        return FT_EXIT_BAD_INPUT;
    }
    ft_error err;
    /* every shard is checked before the output is touched */
    for (int i = 1; i < n; i++) {
        fb_store *sh = fb_store_open(paths[i], FB_STORE_READ, &err);
        if (!sh) {
            fprintf(stderr, "%s: error: %s\n", paths[i], err.message);
            return FT_EXIT_BAD_INPUT;
        }
        fb_store_close(sh, NULL);
    }
    fb_store *s = fb_store_open(paths[0], FB_STORE_CREATE, &err);
    if (!s) {
        fprintf(stderr, "%s: error: %s\n", paths[0], err.message);
        return FT_EXIT_BAD_INPUT;
    }
    int rc = FT_EXIT_OK;
    for (int i = 1; i < n && rc == FT_EXIT_OK; i++) {
        fb_merge_stats ms;
        if (fb_store_merge(s, paths[i], &ms, &err) < 0) {
            fprintf(stderr, "%s: error: %s\n", err.path[0] ? err.path
                                                            : paths[i],
                    err.message);
            rc = FT_EXIT_INTERNAL;
        } else if (!quiet) {
            fprintf(stderr, "foretell batch merge: %s: %llu traces, %llu "
                    "findings, %llu occurrences added (%llu traces were "
                    "there)\n", paths[i], (unsigned long long)ms.traces,
                    (unsigned long long)ms.findings,
                    (unsigned long long)ms.occurrences,
                    (unsigned long long)ms.traces_had);
        }
    }
    fb_totals t;
    if (rc == FT_EXIT_OK && !quiet && fb_store_totals(s, &t, NULL) == 0)
        fprintf(stderr, "foretell batch merge: %s: %llu traces, %llu "
                "findings, %llu occurrences\n", paths[0],
                (unsigned long long)t.traces, (unsigned long long)t.findings,
                (unsigned long long)t.occurrences);
    if (fb_store_close(s, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", paths[0], err.message);
        rc = FT_EXIT_INTERNAL;
    }
    return rc;
}

/* ---- batch confirm ------------------------------------------------------ */

static int batch_confirm(int argc, char **argv)
{
    static const ft_opt opts[] = {
        {"store", 's', "S.db", "the results store (default " DEFAULT_STORE ")"},
        {"program", 0, "NAME",
         "only findings of traces of this program (basename)"},
        {"all", 0, NULL, "also findings a replay found spurious before"},
        {"run-timeout", 0, "S",
         "a replayed run without progress (key points, CPU) this long is "
         "hung (default 30)"},
        {"tails", 0, "N",
         "random tails after a run that did not fail "
         "(default 16)"},
        {"tail-time", 0, "S",
         "then more random tails (up to 4096) while the finding's replays "
         "so far took under S seconds (default 0: N only)"},
        {"work", 0, "DIR", "keep schedules and replayed runs under DIR"},
        {"quiet", 'q', NULL, "no progress lines on stderr"},
        {NULL, 0, NULL, NULL},
    };
    enum {
        C_STORE,
        C_PROGRAM,
        C_ALL,
        C_RUN_TIMEOUT,
        C_TAILS,
        C_TAIL_TIME,
        C_WORK,
        C_QUIET
    };
    ft_optparse p;
    ft_opt_init(&p, "foretell batch confirm", argc, argv);
    fb_confirm_opts co = {.run_timeout = 30, .tails = 16, .progress = 1};
    const char *store = DEFAULT_STORE, *v;
    int o;
    uint64_t n;
    while ((o = ft_opt_next(&p, opts, &v)) != FT_OPT_END) {
        switch (o) {
        case FT_OPT_HELP:
            ft_opt_usage(stdout, "foretell batch confirm [options] [-- PROG "
                         "[ARGS]]",
                         "Replays one witness of every finding not yet "
                         "confirmed against its trace's recorded command "
                         "(or PROG) and records the result. Exit: 0 none "
                         "confirmed, 1 some confirmed, 2 bad input, 4 "
                         "internal error, 127 PROG not found.", opts);
            return FT_EXIT_OK;
        case FT_OPT_ERROR:
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_POSITIONAL:
            fprintf(stderr, "foretell batch confirm: unexpected argument "
                    "'%s' (the program goes after --)\n", v);
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_DASHDASH:
            if (p.i < argc)
                co.prog = argv + p.i;
            p.i = argc;
            break;
        case C_STORE: store = v; break;
        case C_PROGRAM: co.program = v; break;
        case C_ALL: co.all = 1; break;
        case C_WORK: co.work_dir = v; break;
        case C_QUIET: co.progress = 0; break;
        case C_RUN_TIMEOUT:
            if (ft_opt_seconds(&p, "run-timeout", v, &co.run_timeout) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case C_TAILS:
            if (ft_opt_uint(&p, "tails", v, 10000, &n) < 0)
                return FT_EXIT_BAD_INPUT;
            co.tails = (unsigned)n;
            break;
        case C_TAIL_TIME:
            if (ft_opt_seconds0(&p, "tail-time", v, &co.tail_time) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        }
    }
    char buf[4096];
    if (co.prog && !fr_which(co.prog[0], buf, sizeof buf)) {
        fprintf(stderr, "foretell batch confirm: %s: program not found\n",
                co.prog[0]);
        return 127;
    }
    ft_error err;
    fb_store *s = fb_store_open(store, FB_STORE_WRITE, &err);
    if (!s) {
        fprintf(stderr, "%s: error: %s\n", store, err.message);
        return FT_EXIT_BAD_INPUT;
    }
    fb_confirm_stats st;
    int rc = fb_confirm_findings(s, &co, &st, &err);
    if (rc < 0)
        fprintf(stderr, "%s: error: %s\n", err.path[0] ? err.path : store,
                err.message);
    char more[100] = "";
    if (rc >= 0 && st.unconfirmed)
        snprintf(more, sizeof more, ", %zu reached or not reproduced "
                 "without a failure", st.unconfirmed);
    if (rc >= 0 && co.progress)
        fprintf(stderr, "foretell batch confirm: %zu findings replayed: %zu "
                "confirmed, %zu spurious, %zu not run%s\n", st.tried,
                st.confirmed, st.spurious, st.not_run, more);
    if (fb_store_close(s, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", store, err.message);
        rc = -1;
    }
    return rc < 0 ? FT_EXIT_INTERNAL : st.confirmed ? FT_EXIT_FOUND
                                                    : FT_EXIT_OK;
}

/* ---- dispatch ----------------------------------------------------------- */

int cmd_batch(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
        const char *summary;
    } sub[] = {
        {"analyze", batch_analyze, "analyze many traces into a store"},
        {"merge", batch_merge, "merge shard stores into one"},
        {"report", batch_report, "SARIF, JUnit, JSON lines, HTML"},
        {"confirm", batch_confirm, "replay a witness per finding"},
    };
    const size_t nsub = sizeof sub / sizeof *sub;
    if (argc >= 2)
        for (size_t i = 0; i < nsub; i++)
            if (!strcmp(argv[1], sub[i].name))
                return sub[i].fn(argc - 1, argv + 1);
    int help = argc >= 2 && (!strcmp(argv[1], "--help") ||
                             !strcmp(argv[1], "-h"));
    FILE *out = help ? stdout : stderr;
    if (argc >= 2 && !help)
        fprintf(stderr, "foretell batch: '%s' is not a batch command\n",
                argv[1]);
    fprintf(out, "usage: foretell batch <command> [options]\n\n"
                 "commands:\n");
    for (size_t i = 0; i < nsub; i++)
        fprintf(out, "  %-10s %s\n", sub[i].name, sub[i].summary);
    fprintf(out, "\n'foretell batch <command> --help' describes a command; "
                 "docs/batch.md the workflow.\n");
    return help ? FT_EXIT_OK : FT_EXIT_BAD_INPUT;
}

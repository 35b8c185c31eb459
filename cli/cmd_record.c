/* SPDX-License-Identifier: MIT */
/* cmd_record.c - `foretell record`: runs an instrumented program with
 * FORETELL_TRACE pointing at a temporary file beside the output, waits for
 * it (with an optional timeout: SIGTERM, then SIGKILL after a grace
 * period), then symbolises the trace, appends an END chunk with the
 * status it observed and renames the trace into place.  What was at the
 * output stays there when no trace was written (a typo in the program's
 * name, a program not built with foretell-cc).  Exits with the program's
 * own status (128+signo if a signal killed it), like a shell would, so
 * `foretell record -- make test` composes in scripts; 4 when the trace
 * could not be written (a full disk: the runtime reports it on a pipe). */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/opt.h"
#include "recorder/trace.h"
#include "recorder/valgrind/ftvg_raw.h"
#include "replay/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const ft_opt record_opts[] = {
    {"output", 'o', "TRACE", "write the trace here (default ./PROG.ftrace)"},
    {"timeout", 0, "S", "stop the program after S seconds (SIGTERM, then "
                        "SIGKILL)"},
    {"grace", 0, "S", "seconds between SIGTERM and SIGKILL (default 2)"},
    {"quantum", 0, "N", "events a thread runs before the scheduler switches "
                        "(FORETELL_QUANTUM)"},
    {"seed", 0, "X", "scheduler seed (FORETELL_SEED)"},
    {"no-compress", 0, NULL, "write the trace uncompressed, format version 3 "
                             "(FORETELL_COMPRESS=0)"},
    {"backend", 0, "B", "auto (default: the program's own runtime if built "
                        "with foretell-cc, else Valgrind with foretell's "
                        "tool, else the LD_PRELOAD one), runtime, valgrind "
                        "(every access) or preload (synchronisation only)"},
    {NULL, 0, NULL, NULL},
};

enum { OPT_OUTPUT, OPT_TIMEOUT, OPT_GRACE, OPT_QUANTUM, OPT_SEED,
       OPT_NO_COMPRESS, OPT_BACKEND };

static volatile pid_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

/* Default trace path: ./basename(PROG).ftrace */
static void default_output(const char *prog, char *buf, size_t len)
{
    const char *b = strrchr(prog, '/');
    snprintf(buf, len, "%s.ftrace", b ? b + 1 : prog);
}

/* FORETELL_TRACE must survive a chdir in the program: make it absolute. */
static int absolute(const char *path, char *buf, size_t len)
{
    if (path[0] == '/')
        return snprintf(buf, len, "%s", path) < (int)len ? 0 : -1;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return snprintf(buf, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

typedef struct run {
    int status;
    int timed_out;
    int deadlock;   /* the Valgrind tool's run stopped with every thread
                       waiting: killed, and recorded as a deadlock */
    int exec_errno; /* nonzero: exec failed with this errno */
    ft_rt_report report; /* the runtime could not write the trace */
} run;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether the raw file's last record is the tool's ALLBLOCKED. */
static int ends_all_blocked(const char *raw, off_t size)
{
    struct ftvg_rec r;
    int fd = open(raw, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, &r, sizeof r, size - (off_t)sizeof r);
    close(fd);
    return n == (ssize_t)sizeof r && r.op == FTVG_ALLBLOCKED;
}

/* Waits for a run under Valgrind as ft_child_wait does, and also ends a
 * deadlocked one: the tool writes ALLBLOCKED when the last live thread
 * enters a wait (or exits while the others wait), flushed, and flushes
 * its next record at once; a file that still ends there after
 * DEADLOCK_QUIET_S is a run in which no thread can move (Valgrind sleeps
 * in the futexes), so it is killed and imported as a deadlock, where the
 * runtime would have stopped it.  A thread the tool still counts as
 * waiting may have been woken (signalled, or its mutex released) and not
 * yet run; it writes a record as soon as it does, which a second is
 * plenty for even on a loaded machine. */
#define DEADLOCK_QUIET_S 1.0

static int wait_valgrind(pid_t pid, const char *raw, double timeout,
                         double grace, run *out)
{
    double start = mono_s(), quiet_since = start;
    off_t last = -1;
    int blocked = 0;
    for (;;) {
        pid_t r = waitpid(pid, &out->status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        double t = mono_s();
        if (timeout > 0 && t - start >= timeout) {
            kill(pid, SIGTERM);
            int ignored;
            out->timed_out = 1;
            return ft_child_wait(pid, grace > 0 ? grace : 0.1, 1.0,
                                 &out->status, &ignored);
        }
        struct stat st;
        if (stat(raw, &st) == 0 && st.st_size >= (off_t)sizeof(struct
                                                                ftvg_rec)) {
            if (st.st_size != last) {
                last = st.st_size;
                quiet_since = t;
                blocked = ends_all_blocked(raw, st.st_size);
            } else if (blocked && t - quiet_since >= DEADLOCK_QUIET_S) {
                kill(pid, SIGKILL);
                while (waitpid(pid, &out->status, 0) < 0 && errno == EINTR)
                    ;
                out->deadlock = 1;
                return 0;
            }
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* Forks and execs; the close-on-exec pipe carries exec's errno back, the
 * report pipe the runtime's write errors. */
static int spawn_and_wait(char **args, const char *trace, const char *raw,
                          const char *quantum, const char *seed,
                          int no_compress, double timeout, double grace,
                          run *out)
{
    int pfd[2], rfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    if (ft_report_open(rfd) < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        close(rfd[0]);
        close(rfd[1]);
        return -1;
    }
    if (pid == 0) {
        close(pfd[0]);
        close(rfd[0]);
        ft_child_setup(rfd[1], parent);
        char value[8200]; /* '%' doubled: the runtime expands patterns */
        if (ft_trace_path_escape(trace, value, sizeof value) == 0)
            setenv("FORETELL_TRACE", value, 1);
        else
            setenv("FORETELL_TRACE", trace, 1);
        if (quantum)
            setenv("FORETELL_QUANTUM", quantum, 1);
        if (seed)
            setenv("FORETELL_SEED", seed, 1);
        if (no_compress)
            setenv("FORETELL_COMPRESS", "0", 1);
        if (raw)
            fr_valgrind_exec(args, raw); /* returns only if it failed */
        else {
            fr_backend_apply(args[0]);
            execvp(args[0], args);
        }
        int e = errno;
        if (write(pfd[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(pfd[1]);
    close(rfd[1]);
    child_pid = pid;
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler =
                                                               forward_signal};
    struct sigaction old_int, old_quit, old_term, old_hup;
    sigaction(SIGINT, &ign, &old_int); /* the terminal signals both of us */
    sigaction(SIGQUIT, &ign, &old_quit);
    sigaction(SIGTERM, &fwd, &old_term);
    sigaction(SIGHUP, &fwd, &old_hup);

    int e = 0;
    ssize_t n;
    while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    out->exec_errno = n == (ssize_t)sizeof e ? e : 0;

    int wait_rc = raw ? wait_valgrind(pid, raw, timeout, grace, out)
                      : ft_child_wait(pid, timeout, grace, &out->status,
                                      &out->timed_out);
    ft_report_read(rfd[0], &out->report);
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return wait_rc;
}

/* Events, threads and whether the run deadlocked, from the trace itself:
 * from the runtime's END chunk when the run ended cleanly and every chunk
 * frame is intact (decoding a large trace again would cost more than the
 * run: docs/benchmarks.md), else by decoding every event. */
static void summarise(ft_reader *r, const char *path, uint64_t *events,
                      uint64_t *threads, int *deadlock, int *damaged)
{
    const ft_end *e0 = ft_reader_end(r);
    ft_error derr;
    if (e0->present && e0->threads && !ft_reader_damage(r, &derr)) {
        *events = e0->events;
        *threads = e0->threads;
        *deadlock = !strcmp(e0->reason, "deadlock");
        *damaged = 0;
        return;
    }
    enum { MAX_TRACKED = 1 << 20 };
    uint8_t *seen = calloc(MAX_TRACKED / 8, 1);
    ft_event ev;
    *events = *threads = 0;
    unsigned last = 0;
    while (ft_reader_next(r, &ev) == 1) {
        (*events)++;
        last = ev.kind;
        if (seen && ev.tid < MAX_TRACKED &&
            !(seen[ev.tid / 8] & (1u << (ev.tid % 8)))) {
            seen[ev.tid / 8] |= (uint8_t)(1u << (ev.tid % 8));
            (*threads)++;
        }
    }
    const ft_end *end = ft_reader_end(r);
    *deadlock = last == FT_EV_DEADLOCK ||
                (end->present && !strcmp(end->reason, "deadlock"));
    *damaged = ft_cli_finish_trace(r, path, 0) != 0;
    free(seen);
}

/* Prediction reorders what the run did; a run in which one worker thread
 * did nearly everything (a thread pool whose first worker drained the
 * queue within its quantum) leaves it little: say so, with what to do.
 * Traces past this many events are not decoded again for it. */
#define MATERIAL_MAX_EVENTS 1000000

static void check_material(const char *trace, const char *output,
                           uint64_t events, uint64_t threads)
{
    if (threads < 3 || events > MATERIAL_MAX_EVENTS)
        return; /* main and at least two workers */
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r)
        return;
    uint64_t *per = calloc(threads + 1, sizeof *per), total = 0;
    ft_event ev;
    while (per && ft_reader_next(r, &ev) == 1)
        if (ev.tid != 0 && ev.tid <= threads &&
            ev.kind != FT_EV_FUNC_ENTRY && ev.kind != FT_EV_FUNC_EXIT) {
            per[ev.tid]++;
            total++;
        }
    ft_reader_close(r);
    uint64_t top = 0, busy = 0;
    uint32_t who = 0;
    for (uint32_t t = 1; per && t <= threads; t++) {
        busy += per[t] > 0;
        if (per[t] > top) {
            top = per[t];
            who = t;
        }
    }
    /* two or more workers ran, and one of them did 90% of their events */
    if (per && busy >= 2 && total >= 200 && top * 10 >= total * 9)
        fprintf(stderr, "%s: warning: thread %u ran %.0f%% of the worker "
                "threads' events: the run gives prediction little to "
                "reorder; record again with a smaller --quantum (100) or "
                "another --seed (docs/user-guide.md, record)\n", output,
                who, 100.0 * (double)top / (double)total);
    free(per);
}

/* The Valgrind tool's records into the trace (recorder/vgimport.c); 0, or
 * the exit code when there is no trace to keep. */
static int import_valgrind(const char *raw, const char *trace, char **args,
                           run *rn, const char *output)
{
    int status = rn->status;
    struct stat st;
    if (stat(raw, &st) < 0 || st.st_size == 0) {
        fprintf(stderr, "foretell record: Valgrind did not run %s with "
                "foretell's tool (no records; its messages are above)\n",
                args[0]);
        return FT_EXIT_BAD_INPUT;
    }
    if (st.st_size > (off_t)64 << 20) /* seconds of work: say so */
        fprintf(stderr, "foretell record: turning %lld MB of Valgrind "
                "records into a trace\n", (long long)(st.st_size >> 20));
    char prog[4096], abs[4096];
    const char *file = fr_which(args[0], prog, sizeof prog);
    if (!file || !realpath(file, abs))
        snprintf(abs, sizeof abs, "%s", args[0]);
    int argc = 0;
    while (args[argc])
        argc++;
    ft_error err;
    int rc = ft_vg_import(raw, trace, abs, argc, args,
                          WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                          rn->deadlock, &err);
    if (rc < 0) {
        fprintf(stderr, "%s: error: at byte %llu: %s (no trace kept)\n",
                err.path, (unsigned long long)err.offset, err.message);
        return errno == ENOSPC ? FT_EXIT_INTERNAL : FT_EXIT_BAD_INPUT;
    }
    if (rc == 2) {
        /* as the runtime ends a deadlocked run */
        fprintf(stderr, "foretell: deadlock: no thread can run (%s under "
                "Valgrind; each thread's wait is in the trace)\n", args[0]);
        rn->status = FT_DEADLOCK_STATUS << 8;
    } else if (rc == 1 && !rn->timed_out)
        fprintf(stderr, "%s: warning: the Valgrind tool did not end "
                "cleanly (the run was killed); the trace holds what it "
                "recorded\n", output);
    return 0;
}

static int exit_code_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return FT_EXIT_INTERNAL;
}

int cmd_record(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell record", argc, argv);
    const char *output = NULL, *quantum = NULL, *seed = NULL, *v;
    int no_compress = 0, backend = FR_BACKEND_AUTO;
    double timeout = 0, grace = 2;
    uint64_t num;
    int k, prog_at = -1;
    while (prog_at < 0 && (k = ft_opt_next(&p, record_opts, &v)) !=
                              FT_OPT_END) {
        switch (k) {
        case FT_OPT_HELP:
            ft_opt_usage(stdout, "foretell record [options] [--] PROG [ARGS]",
                         "Runs PROG (built with foretell-cc; any other "
                         "dynamically linked program that starts threads is "
                         "recorded at synchronisation granularity through "
                         "the LD_PRELOAD runtime) and records one execution "
                         "as a trace. Exits with PROG's status.",
                         record_opts);
            return FT_EXIT_OK;
        case FT_OPT_ERROR:
            return FT_EXIT_BAD_INPUT;
        case FT_OPT_DASHDASH:
            prog_at = p.i;
            break;
        case FT_OPT_POSITIONAL:
            prog_at = p.i - 1; /* the first non-option is the program */
            break;
        case OPT_OUTPUT:
            output = v;
            break;
        case OPT_TIMEOUT:
            if (ft_opt_seconds(&p, "timeout", v, &timeout) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_GRACE:
            if (ft_opt_seconds(&p, "grace", v, &grace) < 0)
                return FT_EXIT_BAD_INPUT;
            break;
        case OPT_QUANTUM:
            if (ft_opt_uint(&p, "quantum", v, UINT32_MAX, &num) < 0 ||
                num == 0) {
                if (num == 0)
                    fprintf(stderr, "foretell record: --quantum must be at "
                            "least 1\n");
                return FT_EXIT_BAD_INPUT;
            }
            quantum = v;
            break;
        case OPT_SEED:
            if (ft_opt_uint(&p, "seed", v, UINT64_MAX, &num) < 0)
                return FT_EXIT_BAD_INPUT;
            seed = v;
            break;
        case OPT_NO_COMPRESS:
            no_compress = 1;
            break;
        case OPT_BACKEND:
            if (ft_cli_backend_opt("foretell record", v, &backend))
                return FT_EXIT_BAD_INPUT;
            break;
        }
    }
    if (prog_at < 0 || prog_at >= argc) {
        fprintf(stderr, "foretell record: missing PROG (usage: foretell "
                "record [options] -- PROG [ARGS])\n");
        return FT_EXIT_BAD_INPUT;
    }
    char **args = argv + prog_at;
    int found = ft_cli_check_program("foretell record", args[0]);
    if (found)
        return found;
    ft_error berr;
    if (fr_backend_prepare_record(args[0], backend, stderr, &berr) < 0) {
        fprintf(stderr, "foretell record: %s: %s\n", berr.path,
                berr.message);
        return FT_EXIT_BAD_INPUT;
    }
    int valgrind = fr_backend_is_valgrind(args[0]);
    if (valgrind && (quantum || seed || no_compress))
        fprintf(stderr, "foretell record: warning: --quantum, --seed and "
                "--no-compress set the runtime's scheduler and writer; "
                "under Valgrind they do nothing\n");
    char defpath[4096], real[4096], dest[4096], trace[4200], msg[4400];
    if (!output) {
        default_output(args[0], defpath, sizeof defpath);
        output = defpath;
    }
    /* Nothing is created, truncated or removed at the output before a
     * trace exists: the runtime writes a temporary file beside it. */
    if (ft_out_check(output, FT_OUT_TRACE, real, sizeof real, msg,
                     sizeof msg) < 0) {
        fprintf(stderr, "foretell record: %s\n", msg);
        return FT_EXIT_BAD_INPUT;
    }
    if (absolute(real, dest, sizeof dest) < 0) {
        fprintf(stderr, "foretell record: output path '%s' is too long\n",
                output);
        return FT_EXIT_BAD_INPUT;
    }
    int fd = ft_out_temp(dest, trace, sizeof trace);
    if (fd < 0) {
        fprintf(stderr, "foretell record: cannot write trace '%s': %s\n",
                output, strerror(errno));
        return FT_EXIT_INTERNAL;
    }
    close(fd);

    run rn = {0};
    char raw[4300];
    snprintf(raw, sizeof raw, "%s.vgraw", trace);
    fflush(NULL);
    if (spawn_and_wait(args, trace, valgrind ? raw : NULL, quantum, seed,
                       no_compress, timeout, grace, &rn) < 0) {
        fprintf(stderr, "foretell record: cannot run '%s': %s\n", args[0],
                strerror(errno));
        unlink(trace);
        return FT_EXIT_INTERNAL;
    }
    if (valgrind && !rn.exec_errno) {
        int vrc = import_valgrind(raw, trace, args, &rn, output);
        unlink(raw);
        if (vrc) {
            unlink(trace);
            return vrc;
        }
    }
    if (rn.exec_errno) {
        unlink(trace);
        if (rn.exec_errno == ENOENT)
            fprintf(stderr, "foretell record: %s: %s\n", args[0],
                    strchr(args[0], '/') ? "no such file"
                                         : "command not found");
        else
            fprintf(stderr, "foretell record: %s: cannot execute: %s\n",
                    args[0], strerror(rn.exec_errno));
        return rn.exec_errno == ENOENT ? 127 : 126;
    }
    int code = exit_code_of(rn.status);
    char status_text[128];
    ft_status_text(NULL, rn.status, status_text, sizeof status_text);
    if (rn.report.refusal[0] && WIFEXITED(rn.status) &&
        WEXITSTATUS(rn.status) == rn.report.refused_status) {
        unlink(trace); /* the runtime's verdict, not the program's status */
        fprintf(stderr, "foretell record: the runtime refused to run %s: "
                "%s\n", args[0], rn.report.refusal);
        return FT_EXIT_BAD_INPUT;
    }
    struct stat st;
    if (stat(trace, &st) < 0 || st.st_size == 0) {
        unlink(trace);
        if (rn.report.write_errno) {
            fprintf(stderr, "foretell record: cannot write trace '%s': %s "
                    "(no trace was written; %s)\n", output,
                    strerror(rn.report.write_errno), status_text);
            return FT_EXIT_INTERNAL;
        }
        const char *why = fr_backend_why(args[0]);
        fprintf(stderr, "foretell record: %s was not built with foretell-cc "
                "(it wrote no trace; %s%s%s)\n", args[0], status_text,
                why ? "; " : "", why ? why : "");
        return FT_EXIT_BAD_INPUT;
    }

    uint64_t events = 0, threads = 0;
    int deadlock = 0, damaged = 0, execd = 0;
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r) {
        unlink(trace);
        if (rn.report.write_errno)
            fprintf(stderr, "foretell record: cannot write trace '%s': %s "
                    "(no usable trace was written; %s)\n", output,
                    strerror(rn.report.write_errno), status_text);
        else
            fprintf(stderr, "%s: error: at byte %llu: %s (no trace kept; "
                    "%s)\n", output, (unsigned long long)err.offset,
                    err.message, status_text);
        return rn.report.write_errno ? FT_EXIT_INTERNAL : FT_EXIT_BAD_INPUT;
    }
    /* The runtime writes nothing after a failed write, so a report next
     * to an intact END of its own is not the runtime's. */
    const ft_end *rt_end = ft_reader_end(r);
    ft_error derr;
    if (rt_end->present && !ft_reader_damage(r, &derr))
        rn.report.write_errno = 0;
    execd = rt_end->present && !strcmp(rt_end->reason, "exec");
    summarise(r, output, &events, &threads, &deadlock, &damaged);
    const char *reason = rn.timed_out ? "timeout"
                         : deadlock   ? "deadlock"
                         : execd      ? "exec"
                         : WIFSIGNALED(rn.status)
                             ? (WTERMSIG(rn.status) == SIGKILL ? "killed"
                                                               : "signal")
                             : "exit";
    int write_failed = 0;
    if (rn.report.write_errno) {
        /* Cut by a write error: no END, which would claim a whole run. */
        fprintf(stderr, "foretell record: cannot write trace '%s': %s; the "
                "trace is cut at byte %llu (%" PRIu64 " events recovered)\n",
                output, strerror(rn.report.write_errno),
                (unsigned long long)rn.report.offset, events);
        write_failed = 1;
    } else if (!damaged) {
        ft_end end = {.present = 1, .events = events,
                      .exit_status = rn.status, .reason = reason};
        int src = ft_symbolize_reader(r, trace, 0, &end, threads, stderr,
                                      &err);
        if (src == -2) {
            fprintf(stderr, "foretell record: cannot write trace '%s': %s "
                    "(its events are all there; symbols and END are "
                    "not)\n", output, err.message);
            write_failed = 1;
        } else if (src < 0) {
            fprintf(stderr, "%s: warning: not symbolised, or no END: %s\n",
                    output, err.message);
        }
    }
    ft_reader_close(r);
    if (ft_out_commit(trace, dest) < 0) {
        fprintf(stderr, "foretell record: cannot write trace '%s': %s\n",
                output, strerror(errno));
        return FT_EXIT_INTERNAL;
    }
    if (!damaged && !write_failed)
        check_material(dest, output, events, threads);
    char how[160];
    fprintf(stderr, "foretell: trace %s: %" PRIu64 " events, %" PRIu64
            " thread%s, %s\n", output, events, threads,
            threads == 1 ? "" : "s",
            ft_status_text(reason, rn.status, how, sizeof how));
    return write_failed ? FT_EXIT_INTERNAL : code;
}

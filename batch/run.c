/* SPDX-License-Identifier: MIT */
/* run.c - `foretell batch analyze`: the traces of this shard that the
 * store does not have yet, analyzed by up to N child processes at once
 * (worker.c), each result committed to the store as it arrives (one
 * transaction per trace).  A child that exceeds the per-trace time is
 * killed and its trace stored as timed out; a child that dies is stored
 * as crashed; when the batch's own time is spent, running children are
 * killed and their traces left for a rerun.  Progress lines go to
 * stderr: traces done of total, findings so far, rate. */
#define _GNU_SOURCE
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_S 10.0 /* after --trace-time, before the child is killed */

typedef struct slot {
    pid_t pid;
    int fd;             /* read end of the child's pipe, -1 at EOF */
    size_t input;
    char *buf;
    size_t len, cap;
    double deadline;    /* 0: none */
    int timed_out;
} slot;

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The child: analyze, send, exit without running the parent's atexit
 * handlers or touching its store. */
static void child(const fb_input *x, const fb_run_opts *o, double until,
                  int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* For tests (tests/batch/batch_cli.sh): the worker of the trace whose
     * base name FT_BATCH_TEST_STALL gives stops answering, as one stuck
     * in a system call would, so that --trace-time is checked every
     * time, not only when a poll happens to catch a fast analysis. */
    const char *stall = getenv("FT_BATCH_TEST_STALL");
    const char *base = strrchr(x->path, '/');
    if (stall && *stall && !strcmp(base ? base + 1 : x->path, stall))
        raise(SIGSTOP);
    fb_analyze_opts ao = *o->analyze;
    unsigned bound = 0;
    if (o->trace_time > 0)
        bound = (unsigned)fmin(o->trace_time * 1000, UINT32_MAX);
    if (until > 0) {
        double left = (until - now()) * 1000;
        unsigned l = left < 1 ? 1 : (unsigned)fmin(left, UINT32_MAX);
        bound = bound && bound < l ? bound : l;
    }
    if (bound && (!ao.predict.total_ms || bound < ao.predict.total_ms))
        ao.predict.total_ms = bound;
    fb_result r;
    memset(&r, 0, sizeof r);
    memcpy(r.hash, x->hash, sizeof r.hash);
    r.path = strdup(x->path);
    if (r.path)
        fb_analyze_trace(&ao, &r);
    char *buf = NULL;
    size_t len = 0;
    int rc = r.path && fb_result_encode(&r, &buf, &len) == 0 &&
                     write_all(fd, buf, len) == 0
                 ? 0
                 : 1;
    _exit(rc);
}

static int start(slot *sl, size_t i, const fb_inputs *in,
                 const fb_run_opts *o, double until, ft_error *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        goto fail;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        goto fail;
    }
    if (pid == 0) {
        close(p[0]);
        child(&in->v[i], o, until, p[1]);
    }
    close(p[1]);
    memset(sl, 0, sizeof *sl);
    sl->pid = pid;
    sl->fd = p[0];
    sl->input = i;
    double t = now();
    if (o->trace_time > 0)
        sl->deadline = t + o->trace_time + KILL_GRACE_S;
    return 0;
fail:
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", in->v[i].path);
    snprintf(err->message, sizeof err->message, "cannot start its analysis: "
             "%s", strerror(errno));
    return -1;
}

static void read_some(slot *sl)
{
    if (sl->cap - sl->len < 65536) {
        size_t nc = sl->cap ? 2 * sl->cap : 65536;
        char *b2 = realloc(sl->buf, nc);
        if (!b2) { /* the result is lost: stored as an error */
            close(sl->fd);
            sl->fd = -1;
            free(sl->buf);
            sl->buf = NULL;
            sl->len = sl->cap = 0;
            return;
        }
        sl->buf = b2;
        sl->cap = nc;
    }
    ssize_t n = read(sl->fd, sl->buf + sl->len, sl->cap - sl->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(sl->fd);
        sl->fd = -1;
        return;
    }
    sl->len += (size_t)n;
}

/* What is known of a trace whose analysis did not report. */
static void failed_result(fb_result *r, const fb_input *x, int status,
                          const char *msg)
{
    memset(r, 0, sizeof *r);
    memcpy(r->hash, x->hash, sizeof r->hash);
    r->path = strdup(x->path);
    r->exit_status = -1;
    r->status = status;
    r->message = strdup(msg);
    r->exit_code = 4;
}

static int finish(fb_store *s, slot *sl, const fb_inputs *in,
                  const fb_run_opts *o, fb_run_stats *st, ft_error *err)
{
    int ws = 0;
    while (waitpid(sl->pid, &ws, 0) < 0 && errno == EINTR)
        ;
    const fb_input *x = &in->v[sl->input];
    fb_result r;
    char msg[512];
    if (sl->timed_out) {
        snprintf(msg, sizeof msg, "the analysis took more than %g s "
                 "(--trace-time) and was stopped", o->trace_time);
        failed_result(&r, x, FB_TIMEOUT, msg);
        r.exit_code = 0;
    } else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0 &&
               fb_result_decode(sl->buf, sl->len, &r) == 0 &&
               strcmp(r.hash, x->hash) == 0) {
        /* as the child reported */
    } else if (WIFSIGNALED(ws)) {
        snprintf(msg, sizeof msg, "the analysis died of signal %d (%s): a "
                 "defect of foretell; 'foretell analyze %.300s' reproduces "
                 "it", WTERMSIG(ws), strsignal(WTERMSIG(ws)), x->path);
        failed_result(&r, x, FB_CRASHED, msg);
    } else {
        snprintf(msg, sizeof msg, "the analysis ended with status %d "
                 "without a result (out of memory?)",
                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        failed_result(&r, x, FB_ERROR, msg);
    }
    free(sl->buf);
    sl->buf = NULL;
    sl->pid = 0;
    int rc = fb_store_put(s, &r, o->redo || o->retry, err);
    if (rc >= 0) {
        st->analyzed++;
        st->by_status[r.status]++;
        st->with_findings += r.ngroups > 0;
        st->occurrences += r.ngroups;
    }
    fb_result_free(&r);
    return rc < 0 ? -1 : 0;
}

static void print_progress(fb_store *s, const fb_run_stats *st, size_t todo,
                           double t0, int final)
{
    fb_totals t;
    if (fb_store_totals(s, &t, NULL) < 0)
        memset(&t, 0, sizeof t);
    double el = now() - t0;
    double rate = el > 0 ? st->analyzed / el : 0;
    size_t failed = st->by_status[FB_BAD] + st->by_status[FB_TIMEOUT] +
                    st->by_status[FB_CRASHED] + st->by_status[FB_ERROR];
    fprintf(stderr, "foretell batch: %zu/%zu traces (%zu skipped, %zu "
            "failed), %llu findings in %llu occurrences, %.2f traces/s",
            st->skipped + st->analyzed, st->mine, st->skipped, failed,
            (unsigned long long)t.findings,
            (unsigned long long)t.occurrences, rate);
    size_t left = todo - st->analyzed;
    if (!final && rate > 0 && left)
        fprintf(stderr, ", %.0f s left", left / rate);
    fprintf(stderr, "%s\n", !final ? ""
                            : stop_signal ? " [interrupted]"
                            : st->left ? " [stopped: time]"
                                       : " [done]");
}

static void kill_all(slot *sl, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        if (sl[k].pid > 0) {
            kill(sl[k].pid, SIGKILL);
            while (waitpid(sl[k].pid, NULL, 0) < 0 && errno == EINTR)
                ;
            if (sl[k].fd >= 0)
                close(sl[k].fd);
            free(sl[k].buf);
            sl[k].pid = 0;
        }
}

int fb_run(fb_store *s, const fb_inputs *in, const fb_run_opts *o,
           fb_run_stats *st, ft_error *err)
{
    memset(st, 0, sizeof *st);
    double t0 = now(), until = o->total_time > 0 ? t0 + o->total_time : 0;
    st->inputs = in->n;
    size_t *todo = calloc(in->n + 1, sizeof *todo), ntodo = 0;
    unsigned jobs = o->jobs ? o->jobs : 1;
    slot *sl = calloc(jobs, sizeof *sl);
    if (!todo || !sl) {
        free(todo);
        free(sl);
        memset(err, 0, sizeof *err);
        snprintf(err->message, sizeof err->message, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < in->n; i++) {
        if (!fb_shard_owns(&o->shard, in->v[i].hash))
            continue;
        st->mine++;
        int had = fb_store_status(s, in->v[i].hash, NULL);
        int again = o->redo || (o->retry && (had == FB_TIMEOUT ||
                                             had == FB_CRASHED ||
                                             had == FB_ERROR));
        if (had >= 0 && !again)
            st->skipped++;
        else
            todo[ntodo++] = i;
    }
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_signal = 0;
    int isterm = isatty(2);
    double last = t0, every = isterm ? 1.0 : 10.0;
    size_t next = 0;
    unsigned active = 0;
    int rc = 0;
    while (next < ntodo || active) {
        double t = now();
        if (stop_signal || (until && t >= until)) {
            kill_all(sl, jobs);
            st->left = ntodo - next + active;
            active = 0;
            break;
        }
        for (unsigned k = 0; k < jobs && next < ntodo; k++)
            if (sl[k].pid == 0) {
                if (start(&sl[k], todo[next], in, o, until, err) < 0) {
                    rc = -1;
                    break;
                }
                next++;
                active++;
            }
        if (rc < 0)
            break;
        struct pollfd pf[jobs];
        unsigned np = 0;
        for (unsigned k = 0; k < jobs; k++)
            if (sl[k].pid > 0 && sl[k].fd >= 0)
                pf[np++] = (struct pollfd){.fd = sl[k].fd, .events = POLLIN};
        poll(pf, np, 200);
        t = now();
        for (unsigned k = 0; k < jobs && rc == 0; k++) {
            if (sl[k].pid <= 0)
                continue;
            if (sl[k].fd >= 0)
                for (unsigned q = 0; q < np; q++)
                    if (pf[q].fd == sl[k].fd && pf[q].revents)
                        read_some(&sl[k]);
            if (sl[k].fd >= 0 && sl[k].deadline && t >= sl[k].deadline) {
                kill(sl[k].pid, SIGKILL);
                close(sl[k].fd);
                sl[k].fd = -1;
                sl[k].timed_out = 1;
            }
            if (sl[k].fd < 0) {
                active--;
                if (finish(s, &sl[k], in, o, st, err) < 0) {
                    st->store_failed = 1;
                    rc = -1;
                }
            }
        }
        if (rc < 0)
            break;
        if (o->progress && t - last >= every) {
            print_progress(s, st, ntodo, t0, 0);
            last = t;
        }
    }
    if (rc < 0)
        kill_all(sl, jobs);
    st->seconds = now() - t0;
    if (o->progress && rc == 0)
        print_progress(s, st, ntodo, t0, 1);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    st->interrupted = stop_signal;
    free(todo);
    free(sl);
    return rc;
}

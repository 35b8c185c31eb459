/* SPDX-License-Identifier: MIT */
/* outcome.c - what happened in a run, read from its trace: the runtime's
 * own reports (DIVERGE, HEAP_ERROR, DEADLOCK + BLOCKED, SIGNAL, the END
 * reason) first, the wait status second.  Also checks a replayed trace
 * against the schedule it was meant to follow (kind and site at each
 * step's per-thread index), which the runtime cannot do itself: it has no
 * symbols.  Sites are file:line from the trace's SYMBOLS chunk. */
#include "replay/replay.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const failure_names[FR_NFAILURES] = {
    "ok",
    "abort",
    "crash",
    "null-deref",
    "use-after-free",
    "double-free",
    "deadlock",
    "hang",
    "exit",
    "diverged",
    "heap-corruption",
    "misuse",
    "unfinished",
};

void fr_detail_prepend(fr_outcome *o, const char *head)
{
    size_t n = strlen(o->detail), h = strlen(head);
    if (h >= sizeof o->detail)
        h = sizeof o->detail - 1;
    if (n + h >= sizeof o->detail)
        n = sizeof o->detail - h - 1;
    memmove(o->detail + h, o->detail, n);
    memcpy(o->detail, head, h);
    o->detail[n + h] = 0;
}

const char *fr_failure_name(int failure)
{
    return failure >= 0 && failure < FR_NFAILURES ? failure_names[failure]
                                                  : "?";
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

static const char *wait_name(unsigned k)
{
    static const char *const names[] = {
        "nothing", "mutex", "rwlock (read)", "rwlock (write)", "condvar",
        "semaphore", "barrier", "once", "join",
    };
    return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* Per-thread memory of the read pass. */
typedef struct tinfo {
    uint32_t last_site;   /* site of the thread's last event with a site */
    uint64_t count;       /* events so far */
} tinfo;

typedef struct scan {
    tinfo *t;
    uint32_t nt;
    /* heap error waiting for its access event */
    int heap_what, heap_tid, heap_pending;
    uint64_t heap_addr;
    uint32_t heap_site, heap_free_site, heap_before_site;
    int deadlock, nblocked, signo, sig_tid;
    uint32_t sig_site;
    int diverge_seen;
    int misuse_what, misuse_tid;
    uint32_t misuse_site;
    uint64_t misuse_holder;
    uint64_t div_step, div_index;
    uint32_t div_tid, div_why;
    fr_switch ring[FR_LAST_SWITCHES];
    unsigned nring;
    int cur;
    int frozen;           /* failure seen: keep the switches before it */
    fr_frames *frames;    /* call stacks: sites in the program's code */
} scan;

static tinfo *thread_info(scan *sc, uint32_t tid)
{
    if (tid >= sc->nt) {
        uint32_t n = sc->nt ? sc->nt : 8;
        while (n <= tid)
            n *= 2;
        tinfo *t2 = realloc(sc->t, n * sizeof *t2);
        if (!t2)
            return NULL;
        memset(t2 + sc->nt, 0, (n - sc->nt) * sizeof *t2);
        sc->t = t2;
        sc->nt = n;
    }
    return &sc->t[tid];
}

static void note_switch(scan *sc, const ft_reader *r, const ft_event *ev)
{
    if (sc->cur >= 0 && sc->cur != (int)ev->tid && !sc->frozen) {
        fr_switch *s = &sc->ring[sc->nring++ % FR_LAST_SWITCHES];
        s->from = sc->cur;
        s->to = (int)ev->tid;
        s->index = ev->index;
        s->site[0] = s->what[0] = 0;
        if (ev->site)
            ft_site_format(r, ev->site, s->site, sizeof s->site);
        else
            snprintf(s->what, sizeof s->what, "%s", ft_kind_name(ev->kind));
    }
    sc->cur = (int)ev->tid;
}

static void set_err(ft_error *err, const char *path, const char *msg)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, "%s", msg);
}

static void on_event(scan *sc, const ft_reader *r, const ft_event *ev,
                     tinfo *ti, fr_outcome *out)
{
    char a[160];
    switch (ev->kind) {
    case FT_EV_HEAP_ERROR:
        if (sc->heap_what)
            break;
        sc->heap_what = (int)ev->arg;
        sc->heap_tid = (int)ev->tid;
        sc->heap_addr = ev->addr;
        sc->heap_site = ev->site;
        sc->heap_free_site = (uint32_t)ev->value;
        sc->heap_before_site = ti->last_site;
        sc->heap_pending = ev->site == 0;
        sc->frozen = 1;
        return;
    case FT_EV_MISUSE:
        if (!sc->misuse_what) {
            sc->misuse_what = (int)ev->arg;
            sc->misuse_tid = (int)ev->tid;
            sc->misuse_site = ev->site;
            sc->misuse_holder = ev->value;
        }
        break;
    case FT_EV_DEADLOCK:
        sc->deadlock = 1;
        sc->frozen = 1;
        return;
    case FT_EV_BLOCKED:
        sc->frozen = 1;
        appendf(out->detail, sizeof out->detail,
                "%sthread %llu waits for %s", sc->nblocked ? "; " : "",
                (unsigned long long)ev->value, wait_name(ev->arg));
        if (ev->arg == 8)
            appendf(out->detail, sizeof out->detail, " (thread %llu)",
                    (unsigned long long)ev->addr);
        appendf(out->detail, sizeof out->detail, " at %s",
                fr_frames_user_site(sc->frames, (int)ev->value, ev->site, a,
                                    sizeof a));
        if (sc->nblocked++ == 0) {
            out->tid = (int)ev->value;
            fr_frames_user_site(sc->frames, out->tid, ev->site, out->site,
                                sizeof out->site);
        }
        return;
    case FT_EV_SIGNAL:
        if (!sc->signo) {
            sc->signo = (int)ev->value;
            sc->sig_tid = (int)ev->tid;
            sc->sig_site = ti->last_site;
        }
        sc->frozen = 1;
        return;
    case FT_EV_DIVERGE:
        if (!sc->diverge_seen) {
            sc->diverge_seen = 1;
            sc->div_step = ev->value;
            sc->div_tid = (uint32_t)ev->value2;
            sc->div_index = ev->value3;
            sc->div_why = ev->arg;
        }
        return;
    default:
        break;
    }
    if (sc->heap_pending && (int)ev->tid == sc->heap_tid && ev->site) {
        sc->heap_site = ev->site; /* the faulty access, recorded next */
        sc->heap_pending = 0;
    }
    if (ev->site)
        ti->last_site = ev->site;
}

static void classify(scan *sc, const ft_reader *r, int wait_status, int hung,
                     fr_outcome *out)
{
    const ft_end *end = ft_reader_end(r);
    const char *reason = end && end->present && end->reason ? end->reason : "";
    int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    char a[160], b[160];
    if (sc->diverge_seen) {
        static const char *const why[] = {
            "?", "it is blocked", "it has exited", "it was never created",
            "its event there differs", "the program ended first",
        };
        out->diverged = 1;
        out->diverge_step = (int64_t)sc->div_step;
        snprintf(out->divergence, sizeof out->divergence,
                 "step %llu: thread %u should run up to its event %llu but "
                 "%s",
                 (unsigned long long)sc->div_step, sc->div_tid,
                 (unsigned long long)sc->div_index,
                 why[sc->div_why < 6 ? sc->div_why : 0]);
    }
    if (sc->heap_what) {
        int corrupt = sc->heap_what == FT_HEAP_WRITE_BEFORE ||
                      sc->heap_what == FT_HEAP_WRITE_AFTER ||
                      sc->heap_what == FT_HEAP_HEADER_OVERWRITTEN;
        out->failure = corrupt ? FR_HEAP_CORRUPTION
                       : sc->heap_what == FT_HEAP_DOUBLE_FREE ? FR_DOUBLE_FREE
                       : sc->heap_what == FT_HEAP_NULL_DEREF
                           ? FR_NULL_DEREF
                           : FR_USE_AFTER_FREE;
        out->tid = sc->heap_tid;
        uint32_t site = sc->heap_site ? sc->heap_site : sc->heap_before_site;
        fr_frames_user_site(sc->frames, out->tid, site, out->site,
                            sizeof out->site);
        char alloc[160] = "?";
        if (sc->heap_free_site && corrupt)
            ft_site_format(r, sc->heap_free_site, alloc, sizeof alloc);
        else if (sc->heap_free_site)
            ft_site_format(r, sc->heap_free_site, out->free_site,
                           sizeof out->free_site);
        if (sc->heap_what == FT_HEAP_HEADER_OVERWRITTEN)
            snprintf(out->detail, sizeof out->detail,
                     "thread %d frees %#llx, whose heap header was "
                     "overwritten (by code foretell does not see); the block "
                     "was allocated at %s", out->tid,
                     (unsigned long long)sc->heap_addr, alloc);
        else if (corrupt)
            snprintf(out->detail, sizeof out->detail,
                     "thread %d writes %#llx, %s the heap block allocated "
                     "at %s", out->tid,
                     (unsigned long long)sc->heap_addr,
                     sc->heap_what == FT_HEAP_WRITE_BEFORE ? "before"
                                                           : "past the end of",
                     alloc);
        else if (out->failure == FR_NULL_DEREF)
            snprintf(out->detail, sizeof out->detail,
                     "thread %d dereferences %#llx (a null pointer)%s",
                     out->tid, (unsigned long long)sc->heap_addr,
                     sc->heap_site ? "" : " just after this access");
        else
            snprintf(out->detail, sizeof out->detail,
                     "thread %d %s %#llx, freed at %s", out->tid,
                     out->failure == FR_DOUBLE_FREE ? "frees" : "accesses",
                     (unsigned long long)sc->heap_addr,
                     out->free_site[0] ? out->free_site : "?");
    } else if (sc->deadlock || !strcmp(reason, "deadlock")) {
        out->failure = FR_DEADLOCK;
        if (!out->detail[0])
            snprintf(out->detail, sizeof out->detail, "no thread can run");
        else
            fr_detail_prepend(out, "no thread can run: ");
    } else if (!strcmp(reason, "diverged") ||
               (WIFEXITED(wait_status) && code == 83 && sc->diverge_seen)) {
        out->failure = FR_DIVERGED;
        snprintf(out->detail, sizeof out->detail, "the schedule could not be "
                 "followed: %s", out->divergence);
    } else if (!strcmp(reason, "stopped")) {
        /* the harness's deadline (fr_run_opts.until), not the program's */
        out->failure = FR_UNFINISHED;
        snprintf(out->detail, sizeof out->detail,
                 "stopped before it "
                 "ended: the caller's time ran out");
    } else if (hung || !strcmp(reason, "max-steps") ||
               !strcmp(reason, "timeout")) {
        out->failure = FR_HANG;
        snprintf(out->detail, sizeof out->detail, "%s",
                 hung ? "the run did not end within the time limit"
                      : "the run reached its bound on key points");
    } else if (sc->signo || WIFSIGNALED(wait_status)) {
        int sig = sc->signo ? sc->signo : WTERMSIG(wait_status);
        out->failure = sig == SIGABRT ? FR_ABORT
                       : (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
                          sig == SIGILL)
                           ? FR_CRASH
                           : FR_EXIT;
        if (sc->signo) {
            out->tid = sc->sig_tid;
            fr_frames_user_site(sc->frames, out->tid, sc->sig_site, out->site,
                                sizeof out->site);
        }
        snprintf(out->detail, sizeof out->detail, "%s in thread %d (%s)",
                 strsignal(sig), out->tid,
                 sig == SIGABRT ? "an assertion failed or abort() was called"
                                : "killed by a signal");
    } else if (sc->misuse_what) {
        out->failure = FR_MISUSE;
        out->tid = sc->misuse_tid;
        fr_frames_user_site(sc->frames, out->tid, sc->misuse_site, out->site,
                            sizeof out->site);
        unsigned long long h = (unsigned long long)sc->misuse_holder;
        if (sc->misuse_what == FT_MISUSE_DESTROY_LOCKED)
            snprintf(out->detail, sizeof out->detail,
                     "thread %d destroys a mutex that thread %llu holds",
                     out->tid, h);
        else if (sc->misuse_what == FT_MISUSE_UNLOCK_OTHER)
            snprintf(out->detail, sizeof out->detail,
                     "thread %d unlocks a mutex that thread %llu holds",
                     out->tid, h);
        else
            snprintf(out->detail, sizeof out->detail,
                     "thread %d unlocks a mutex nobody holds", out->tid);
        if (code > 0)
            appendf(out->detail, sizeof out->detail,
                    "; the program then exited with status %d", code);
    } else if (code != 0) {
        out->failure = FR_EXIT;
        snprintf(out->detail, sizeof out->detail, "exited with status %d",
                 code);
    } else {
        out->failure = FR_OK;
    }
    (void)b;
    (void)a;
    unsigned n = sc->nring < FR_LAST_SWITCHES ? sc->nring : FR_LAST_SWITCHES;
    for (unsigned i = 0; i < n; i++)
        out->last_switches[i] =
            sc->ring[(sc->nring - n + i) % FR_LAST_SWITCHES];
    out->nlast_switches = (int)n;
}

int fr_outcome_from_trace(const char *trace, int wait_status, int hung,
                          fr_outcome *out, ft_error *err)
{
    double seconds = out->seconds;
    memset(out, 0, sizeof *out);
    out->seconds = seconds;
    out->tid = -1;
    out->diverge_step = -1;
    out->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    out->signo = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    scan sc = {.cur = -1, .frames = fr_frames_new(r)};
    ft_event ev;
    int got;
    while ((got = ft_reader_next(r, &ev)) > 0) {
        tinfo *ti = thread_info(&sc, ev.tid);
        if (!ti) {
            set_err(err, trace, "out of memory");
            free(sc.t);
            fr_frames_free(sc.frames);
            ft_reader_close(r);
            return -1;
        }
        note_switch(&sc, r, &ev);
        if (!sc.frozen)
            fr_frames_event(sc.frames, &ev);
        on_event(&sc, r, &ev, ti, out);
        ti->count++;
        out->events++;
    }
    /* A damaged tail (a killed run) still classifies from what was read. */
    classify(&sc, r, wait_status, hung, out);
    free(sc.t);
    fr_frames_free(sc.frames);
    ft_reader_close(r);
    return 0;
}

static int kind_matches(const char *want, unsigned kind)
{
    const char *name = ft_kind_name(kind);
    for (; *want && *name; want++, name++)
        if (*want != *name && !(*want == '_' && *name == ' '))
            return 0;
    return *want == *name;
}

/* Sites compare only when both sides are resolved file:line. */
static int site_matches(const char *want, const char *found)
{
    if (!strchr(want, ':') || !strchr(found, ':') || want[0] == '?' ||
        found[0] == '?')
        return 1;
    return !strcmp(want, found);
}

int fr_check_schedule(const char *trace, const ft_schedule *s,
                      fr_outcome *out, ft_error *err)
{
    out->steps_total = s->nsteps;
    out->steps_followed = 0;
    if (out->diverge_step >= 0 && (uint64_t)out->diverge_step < s->nsteps) {
        const ft_sched_step *p = &s->steps[out->diverge_step];
        appendf(out->divergence, sizeof out->divergence,
                " (schedule line %u: %s at %s)",
                FR_STEP_LINE(out->diverge_step), p->kind, p->site);
    }
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    /* Steps of each thread come in increasing index order; walk the trace
     * once, checking each event that a step names. */
    uint32_t nt = 0;
    uint64_t *count = NULL;
    uint32_t *next_step = NULL; /* per thread: next step of this thread */
    for (uint32_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].tid >= nt)
            nt = s->steps[i].tid + 1;
    count = calloc(nt + 1, sizeof *count);
    next_step = calloc(nt + 1, sizeof *next_step);
    uint8_t *ok = calloc(s->nsteps + 1, 1);
    uint32_t *order = calloc(s->nsteps + 1, sizeof *order); /* by thread */
    uint32_t *start = calloc(nt + 2, sizeof *start);
    uint64_t *at = calloc(s->nsteps + 1, sizeof *at); /* trace position */
    if (!count || !next_step || !ok || !order || !start || !at) {
        set_err(err, trace, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < s->nsteps; i++)
        start[s->steps[i].tid + 1]++;
    for (uint32_t t = 0; t < nt; t++)
        start[t + 1] += start[t];
    for (uint32_t i = 0, *fill = next_step; i < s->nsteps; i++)
        order[start[s->steps[i].tid] + fill[s->steps[i].tid]++] = i;
    memset(next_step, 0, (nt + 1) * sizeof *next_step);
    char found_site[200];
    int mismatch = 0;
    ft_event ev;
    uint64_t seen = 0;
    while (!mismatch && ft_reader_next(r, &ev) > 0) {
        seen++;
        /* the heap oracle's report comes just before the access it is
         * about, and a recorded run (oracle off) numbers no such event:
         * the access is the step's event */
        if (ev.tid >= nt || ev.kind == FT_EV_HEAP_ERROR)
            continue;
        uint64_t idx = count[ev.tid]++;
        uint32_t t = ev.tid;
        while (start[t] + next_step[t] < start[t + 1]) {
            uint32_t i = order[start[t] + next_step[t]];
            const ft_sched_step *p = &s->steps[i];
            if (p->tindex > idx)
                break;
            next_step[t]++;
            if (p->tindex < idx)
                continue; /* passed without this index: cannot happen */
            ft_site_format(r, ev.site, found_site, sizeof found_site);
            if (!kind_matches(p->kind, ev.kind) ||
                !site_matches(p->site, found_site)) {
                mismatch = 1;
                if (out->diverged)
                    break; /* the runtime's report names the first */
                out->diverged = 1;
                snprintf(out->divergence, sizeof out->divergence,
                         "step %u (schedule line %u): thread %u event %llu: "
                         "expected %s at %s, found %s at %s",
                         i, FR_STEP_LINE(i), p->tid,
                         (unsigned long long)p->tindex, p->kind, p->site,
                         ft_kind_name(ev.kind), found_site);
                break;
            }
            ok[i] = 1;
            at[i] = seen;
        }
    }
    for (uint32_t i = 0; i < s->nsteps && ok[i]; i++)
        out->steps_followed++;
    /* The marked events (the accesses a finding is about) ran in the
     * schedule's order: a step is passed once its thread is past it,
     * whoever ran it, so a thread whose events run as one (a paired read
     * and its write) could complete a later step early unnoticed. */
    for (uint32_t i = 0, prev = UINT32_MAX; !mismatch && !out->diverged &&
                                            i < out->steps_followed; i++) {
        if (!s->steps[i].mark)
            continue;
        if (prev != UINT32_MAX && at[i] < at[prev]) {
            const ft_sched_step *p = &s->steps[prev], *q = &s->steps[i];
            out->diverged = 1;
            snprintf(out->divergence, sizeof out->divergence,
                     "step %u (schedule line %u): thread %u event %llu (%s "
                     "at %.80s) ran before step %u's thread %u event %llu "
                     "(%s at %.80s): the marked events ran in another order",
                     i, FR_STEP_LINE(i), q->tid,
                     (unsigned long long)q->tindex, q->kind, q->site, prev,
                     p->tid, (unsigned long long)p->tindex, p->kind,
                     p->site);
            out->steps_followed = i; /* i ran out of order */
        }
        prev = i;
    }
    if (!mismatch && out->steps_followed < s->nsteps && !out->diverged) {
        const ft_sched_step *p = &s->steps[out->steps_followed];
        out->diverged = 1;
        out->ended_early = out->diverge_step < 0;
        snprintf(out->divergence, sizeof out->divergence,
                 "step %llu (schedule line %u): thread %u never reached its "
                 "event %llu (%s at %s): the program ended first",
                 (unsigned long long)out->steps_followed,
                 FR_STEP_LINE(out->steps_followed), p->tid,
                 (unsigned long long)p->tindex, p->kind, p->site);
    }
    free(count), free(next_step), free(ok), free(order), free(start);
    free(at);
    ft_reader_close(r);
    return 0;
fail:
    free(count), free(next_step), free(ok), free(order), free(start);
    free(at);
    ft_reader_close(r);
    return -1;
}

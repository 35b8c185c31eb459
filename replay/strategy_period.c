/* SPDX-License-Identifier: MIT */
/* strategy_period.c - Period (Wen et al., ICSE'22) as a driver strategy:
 * algorithm 1 of the paper.  Jobs pair a dynamic key-point slice with a
 * schedule prefix; the first is the slice of one key point per thread with
 * the empty prefix (threads are tids, main included).  For p = 1..P, every job in turn (jobs created during
 * round p join it) gets all its p-period schedules (period_gen.c), one
 * run each (recorder/rt/policy_period.c); a job is done when p exceeds its
 * key points (or its prefix can never be met).  After each run the
 * feedback analyser reads the slice the run activated (its
 * FORETELL_EXPLORE_LOG) and, if the generating job's slice does not
 * support it (more key points in some thread), makes it a job whose
 * prefix leads to it: the schedule's periods before its first key point
 * that differs from the previous schedule's, then that key point's
 * thread.  A slice that already has a job widens that job's prefix to the
 * common prefix of both.  The search state stays here between runs; runs
 * are sequential. */
#include "replay/explore.h"
#include "replay/strategy_period.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pjob {
    fx_pslice s;
    fx_pprefix pfx;
    int done;
} pjob;

struct fx_period {
    int max_p, p;
    int verbose;                    /* FORETELL_PERIOD_STATS: jobs, rounds */
    uint64_t handed;                /* schedules handed out */
    int with_main;                  /* else main's key points count 0 */
    pjob *jobs;
    size_t njobs, cap;
    size_t turn;                    /* the job whose schedules run now */
    int generating;
    fx_pgen gen;
    fx_pschedule last, prev;        /* handed out; run before it */
    fx_pslice last_s, prev_s;       /* their jobs' slices */
    size_t last_job;
    int have_last, have_prev;
};

static uint64_t total_kp(const fx_pslice *s)
{
    uint64_t n = 0;
    for (int t = 0; t < s->n; t++)
        n += s->k[t];
    return n;
}

static int add_job(fx_period *x, const fx_pslice *s, const fx_pprefix *pfx)
{
    if (x->njobs == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 16;
        pjob *nv = realloc(x->jobs, nc * sizeof *nv);
        if (!nv)
            return -1;
        x->jobs = nv;
        x->cap = nc;
    }
    pjob *j = &x->jobs[x->njobs++];
    memset(j, 0, sizeof *j);
    j->s = *s;
    if (pfx)
        j->pfx = *pfx;
    return 0;
}

fx_period *fx_period_new(int nthreads, int max_p, int with_main)
{
    fx_period *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->max_p = max_p < 1 ? 1 : max_p > FX_PERIOD_MAX ? FX_PERIOD_MAX : max_p;
    x->p = 1;
    x->with_main = with_main;
    x->verbose = getenv("FORETELL_PERIOD_STATS") != NULL;
    if (nthreads > 0) { /* one key point per thread, the empty prefix */
        fx_pslice s;
        memset(&s, 0, sizeof s);
        s.n = nthreads < FX_PERIOD_THREADS ? nthreads : FX_PERIOD_THREADS;
        for (int t = 0; t < s.n; t++)
            s.k[t] = t > 0 || with_main;
        if (add_job(x, &s, NULL) < 0) {
            free(x);
            return NULL;
        }
    }
    return x;
}

void fx_period_free(fx_period *x)
{
    if (x)
        free(x->jobs);
    free(x);
}

int fx_period_next(fx_period *x, fx_pschedule *s, int *p)
{
    for (;;) {
        if (!x->generating) {
            while (x->turn < x->njobs && x->jobs[x->turn].done)
                x->turn++;
            if (x->turn == x->njobs) { /* round p is over */
                size_t live = 0;
                for (size_t i = 0; i < x->njobs; i++)
                    live += !x->jobs[i].done;
                if (x->verbose)
                    fprintf(stderr, "period: round %d done after %" PRIu64
                            " schedules, %zu jobs (%zu live)\n", x->p, x->handed,
                            x->njobs, live);
                if (live == 0 || x->p >= x->max_p)
                    return 0;
                x->p++;
                x->turn = 0;
                continue;
            }
            pjob *j = &x->jobs[x->turn];
            if ((uint64_t)x->p > total_kp(&j->s)) {
                j->done = 1; /* periods would be left empty */
                continue;
            }
            fx_pgen_init(&x->gen, &j->s, x->p, &j->pfx);
            x->generating = 1;
        }
        if (fx_pgen_next(&x->gen, s)) {
            x->last = *s;
            x->last_s = x->jobs[x->turn].s;
            x->last_job = x->turn;
            x->have_last = 1;
            x->handed++;
            *p = x->p;
            return 1;
        }
        x->generating = 0;
        x->turn++;
    }
}

static int supports(const fx_pslice *big, const fx_pslice *small)
{
    for (int t = 0; t < small->n; t++)
        if (small->k[t] > (t < big->n ? big->k[t] : 0))
            return 0;
    return 1;
}

static int same_slice(const fx_pslice *a, const fx_pslice *b)
{
    int n = a->n > b->n ? a->n : b->n;
    for (int t = 0; t < n; t++)
        if ((t < a->n ? a->k[t] : 0) != (t < b->n ? b->k[t] : 0))
            return 0;
    return 1;
}

void fx_period_feed(fx_period *x, const fx_pslice *run)
{
    if (!x->have_last)
        return;
    x->have_last = 0;
    fx_pslice copy, *seen = NULL;
    if (run) {
        copy = *run;
        if (!x->with_main && copy.n > 0)
            copy.k[0] = 0;
        seen = &copy;
    }
    if (seen && !supports(&x->jobs[x->last_job].s, seen)) {
        fx_pprefix pfx;
        fx_pprefix_of(&x->last, &x->last_s, x->have_prev ? &x->prev : NULL,
                      &x->prev_s, &pfx);
        size_t i = 0;
        while (i < x->njobs && !same_slice(&x->jobs[i].s, seen))
            i++;
        int changed = 1;
        if (i == x->njobs) {
            (void)add_job(x, seen, &pfx); /* out of memory: not explored */
        } else if (!x->jobs[i].done) {
            fx_pprefix before = x->jobs[i].pfx;
            fx_pprefix_common(&before, &pfx, &x->jobs[i].pfx);
            pfx = x->jobs[i].pfx;
            changed = memcmp(&before, &pfx, sizeof pfx) != 0;
        } else {
            changed = 0;
        }
        if (x->verbose && changed && i < x->njobs) {
            char b[512];
            size_t n = 0;
            for (int t = 0; t < seen->n && n < 200; t++)
                n += (size_t)snprintf(b + n, sizeof b - n, "%s%" PRIu64, t ? "," : "",
                                      seen->k[t]);
            snprintf(b + n, sizeof b - n, ") prefix ");
            n = strlen(b);
            fx_pprefix_str(&pfx, b + n, sizeof b - n);
            fprintf(stderr, "period: schedule %" PRIu64 ": job %zu%s (%s\n",
                    x->handed, i, x->jobs[i].done ? " (done)" : "", b);
        }
    }
    x->prev = x->last;
    x->prev_s = x->last_s;
    x->have_prev = 1;
}

size_t fx_period_njobs(const fx_period *x)
{
    return x->njobs;
}

const fx_pslice *fx_period_job(const fx_period *x, size_t i, fx_pprefix *pfx,
                               int *done)
{
    if (i >= x->njobs)
        return NULL;
    if (pfx)
        *pfx = x->jobs[i].pfx;
    if (done)
        *done = x->jobs[i].done;
    return &x->jobs[i].s;
}

int fx_period_spec(const fx_pschedule *s, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "period:p=");
    for (int i = 0; i < s->np && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%d.%" PRIu64, i ? "," : "",
                              s->thr[i], s->cnt[i]);
    return n < len ? 0 : -1;
}

int fx_period_read_log(const char *path, fx_pslice *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char head[16];
    uint64_t kp[FX_PERIOD_THREADS];
    size_t got = fread(head, 1, sizeof head, f) == sizeof head
                     ? fread(kp, sizeof kp[0], FX_PERIOD_THREADS, f)
                     : 0;
    fclose(f);
    if (got == 0 || memcmp(head, "FTPERIOD", 8) != 0)
        return -1;
    uint32_t nthreads = (uint32_t)head[8] | (uint32_t)head[9] << 8 |
                        (uint32_t)head[10] << 16 | (uint32_t)head[11] << 24;
    memset(out, 0, sizeof *out);
    out->n = nthreads < got ? (int)nthreads : (int)got;
    for (int t = 0; t < out->n; t++)
        out->k[t] = kp[t];
    return 0;
}

/* ---- as a driver strategy ---- */

static void *init_period(const fx_opts *o, const fx_calib *c)
{
    /* The paper's slices are of worker threads; with one worker there is
     * nothing to interleave but main. */
    return fx_period_new((int)c->threads, o->periods ? o->periods : 6,
                         c->threads < 3);
}

static int period_next(void *st, uint64_t i, char *spec, size_t len)
{
    (void)i;
    fx_pschedule s;
    int p;
    while (fx_period_next(st, &s, &p))
        if (fx_period_spec(&s, spec, len) == 0)
            return 1;
    return 0;
}

static void period_done(void *st, const char *spec, const char *log)
{
    (void)spec;
    fx_pslice seen;
    fx_period_feed(st, fx_period_read_log(log, &seen) == 0 ? &seen : NULL);
}

static void period_fini(void *st)
{
    fx_period_free(st);
}

const fx_strategy fx_strategy_period = {
    .name = "period", .parallel = 0, .wants_log = 1, .init = init_period,
    .next = period_next, .done = period_done, .fini = period_fini,
};

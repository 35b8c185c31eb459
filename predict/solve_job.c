/* SPDX-License-Identifier: MIT */
/* solve_job.c - the solving of a pipeline's properties, in a thread of
 * its own so that `analyze --time` is kept strictly (Z3 does not always
 * return at once when interrupted), in batches handed over under a lock;
 * the atomicity properties' instances of a violated static property are
 * covered there, not solved (groups.c).  Moved out of pipeline.c, which
 * orchestrates the stages. */
#include "predict/kind.h"
#include "predict/predict.h"
#include "predict/window.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The solving, in a thread of its own so that the caller can keep the
 * analysis's deadline strictly: Z3_interrupt does not reach every step
 * of Z3 (smt/check.c), and a check may return seconds late.  Batches of
 * a few properties are solved into the thread's own results and handed
 * over under the lock; once the caller gives up on the thread
 * (abandoned), what it solves after is dropped, and the last of the two
 * to let go of the job frees it. */
typedef struct solve_job {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ft_pipeline *pl;
    const ft_prop *props; /* what is solved: the atomicity properties or */
    ft_presult *results;  /* the other kinds' (pl->kprops) */
    size_t n;
    const char *stage;  /* for progress */
    ft_predict_opts o;
    ft_window_index *w; /* NULL unless windowed */
    ft_window_index *own; /* freed with the job */
    size_t stop_after, batch;
    uint8_t *gviol;     /* per static group: an instance is violated (the
                           atomicity properties, unless every_instance);
                           its undecided instances are covered, not
                           solved (groups.c) */
    size_t done;        /* results handed over */
    int finished, abandoned, failed, refs;
    ft_progress_fn *progress;
    void *arg;
} solve_job;

static void job_release(solve_job *j)
{
    /* called with j->mu held; unlocks it */
    int last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (last) {
        ft_window_index_free(j->own);
        free(j->gviol);
        pthread_cond_destroy(&j->cv);
        pthread_mutex_destroy(&j->mu);
        free(j);
    }
}

static void *solve_main(void *arg)
{
    solve_job *j = arg;
    ft_pipeline *pl = j->pl;
    size_t done = j->done; /* only this thread moves it */
    ft_presult *tmp = calloc(j->batch, sizeof *tmp);
    /* the batch less its covered properties, and where each came from */
    ft_prop *sub = malloc(sizeof *sub * j->batch);
    ft_presult *subres = calloc(j->batch, sizeof *subres);
    size_t *from = malloc(sizeof *from * j->batch);
    int failed = !tmp || !sub || !subres || !from;
    /* FORETELL_TEST_SOLVE_STALL=S: the tests' stand-in for a property
     * the solver takes S seconds on (at most 10), once, before the first
     * batch (tests/predict/test_budget.c: the heartbeat) */
    const char *stall = getenv("FORETELL_TEST_SOLVE_STALL");
    if (stall && *stall) {
        double s = fmin(atof(stall), 10);
        for (int i = 0; i < s * 10; i++)
            nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    while (!failed && done < j->n) {
        size_t viol = 0;
        for (size_t i = 0; i < done && j->stop_after; i++)
            viol += j->results[i].verdict == FT_VIOLATED;
        if ((j->stop_after && viol >= j->stop_after) ||
            (j->o.until > 0 && ft_now() >= j->o.until))
            break;
        size_t n = j->n - done < j->batch ? j->n - done : j->batch;
        memset(tmp, 0, sizeof *tmp * n);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const ft_prop *p = &j->props[done + i];
            if (j->gviol && j->gviol[p->group]) {
                ft_presult_cover(&tmp[i]);
                continue;
            }
            sub[m] = *p;
            from[m++] = i;
        }
        memset(subres, 0, sizeof *subres * m);
        if (m && ft_predict_run_in(pl->ctm, pl->reduced, j->w, sub, m, &j->o,
                                   subres) < 0) {
            failed = 1;
            break;
        }
        for (size_t k = 0; k < m; k++) {
            tmp[from[k]] = subres[k];
            if (j->gviol && subres[k].verdict == FT_VIOLATED)
                j->gviol[sub[k].group] = 1;
        }
        /* progress under the lock: the caller's heartbeat reports too */
        pthread_mutex_lock(&j->mu);
        int gone = j->abandoned;
        if (!gone) {
            memcpy(j->results + done, tmp, sizeof *tmp * n);
            j->done = done += n;
            if (j->progress)
                j->progress(j->arg, done, j->n);
            ft_budget_poll(pl->budget, j->stage, done, j->n);
        }
        pthread_mutex_unlock(&j->mu);
        if (gone) {
            for (size_t i = 0; i < n; i++)
                ft_presult_free(&tmp[i]);
            break;
        }
    }
    free(tmp);
    free(sub);
    free(subres);
    free(from);
    pthread_mutex_lock(&j->mu);
    j->failed = failed;
    j->finished = 1;
    pthread_cond_signal(&j->cv);
    job_release(j);
    return NULL;
}

/* The end of the solving: the command's bound (loading included) when it
 * has one, less a tenth kept for trimming the witnesses and writing the
 * schedules; else --time counted from t0 (o->total_ms); an earlier
 * o->until (batch: one end for a trace's atomicity and kinds) wins. */
double ft_pipeline_solve_until(const ft_pipeline *pl,
                               const ft_predict_opts *o, double t0)
{
    double until = 0;
    if (pl->budget && pl->budget->until > 0)
        until = pl->budget->until - pl->budget->seconds / 10;
    else if (o->total_ms)
        until = t0 + o->total_ms / 1000.0;
    if (o->until > 0 && (until <= 0 || o->until < until))
        until = o->until;
    return until;
}

/* How long past the deadline the solver thread may take to notice it
 * before it is abandoned (Z3_interrupt is usually seen within 0.1 s). */
#define FT_SOLVE_GRACE_S 2.0
/* The caller's progress report while one batch is being solved. */
#define FT_SOLVE_HEARTBEAT_S 1.0

long ft_pipeline_solve_bounded(ft_pipeline *pl, const ft_prop *props,
                               ft_presult *results, size_t n, size_t done0,
                               const ft_predict_opts *o,
                               ft_window_index *w, ft_window_index *own_w,
                               size_t stop_after, const char *stage,
                               ft_progress_fn *progress, void *arg)
{
    solve_job *j = calloc(1, sizeof *j);
    if (!j) {
        ft_window_index_free(own_w);
        return -1;
    }
    size_t batch = (o->jobs > 1 ? o->jobs : 1) * 4;
    j->pl = pl;
    j->props = props;
    j->results = results;
    j->n = n;
    j->stage = stage;
    j->o = *o;
    j->w = w;
    j->own = own_w;
    j->stop_after = stop_after;
    int oom;
    j->gviol =
        ft_pipeline_violated_groups(pl, props, results, done0, o, &oom);
    if (oom) {
        ft_window_index_free(own_w);
        free(j);
        return -1;
    }
    /* batches of a few properties per worker, so that progress is told
     * without the workers knowing about it */
    j->batch = batch;
    j->done = done0;
    j->refs = 2;
    j->progress = progress;
    j->arg = arg;
    pthread_mutex_init(&j->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t th;
    if (done0 == n || pthread_create(&th, NULL, solve_main, j) != 0) {
        solve_main(j); /* here: nothing to solve, or no thread */
    } else {
        pthread_detach(th);
    }
    pthread_mutex_lock(&j->mu);
    /* (a deadline already past when solving starts still leaves the
     * thread its grace to notice it) */
    double hard = o->until > 0 ? fmax(o->until, ft_now()) + FT_SOLVE_GRACE_S
                               : 0;
    while (!j->finished) {
        /* one property may take the solver a minute: the progress line
         * is told every FT_SOLVE_HEARTBEAT_S meanwhile (the budget's
         * report keeps its own pace), or it reads as a hang */
        double wake = ft_now() + FT_SOLVE_HEARTBEAT_S;
        int beat = pl->budget && (hard <= 0 || wake < hard);
        if (!beat && hard <= 0) {
            pthread_cond_wait(&j->cv, &j->mu);
            continue;
        }
        if (!beat)
            wake = hard;
        double whole, frac = modf(wake, &whole);
        struct timespec at = {(time_t)whole, (long)(frac * 1e9)};
        if (pthread_cond_timedwait(&j->cv, &j->mu, &at) != ETIMEDOUT ||
            j->finished)
            continue;
        if (beat) {
            ft_budget_poll(pl->budget, j->stage, j->done, j->n);
            continue;
        }
        j->abandoned = 1;
        pl->abandoned = 1;
        break;
    }
    size_t done = j->done;
    int failed = j->failed;
    int abandoned = j->abandoned;
    /* the last to let go frees the job and w: the thread, when it was
     * abandoned, once it comes back */
    job_release(j);
    if (failed)
        return -1;
    if (done < n) {
        int spent = o->until > 0 && ft_now() >= o->until;
        size_t viol = 0;
        for (size_t i = 0; i < done; i++)
            viol += results[i].verdict == FT_VIOLATED;
        unsigned secs = pl->budget && pl->budget->until > 0
                            ? (unsigned)(pl->budget->seconds + 0.5)
                            : o->total_ms / 1000;
        /* a static property violated already covers its instances
         * left (groups.c), as it would have had they been reached */
        /* (without memory for it, they are only not solved) */
        uint8_t *gviol =
            ft_pipeline_violated_groups(pl, props, results, done, o, &oom);
        for (size_t i = done; i < n; i++) {
            ft_presult *r = &results[i];
            if (gviol && gviol[props[i].group]) {
                ft_presult_cover(r);
                continue;
            }
            r->verdict = FT_UNKNOWN;
            r->not_solved = 1;
            if (abandoned && i < done + batch)
                ft_presult_why(r, "not solved: the solver overran the analysis's "
                         "time (%u s) and was abandoned", secs);
            else if (spent || pl->abandoned)
                ft_presult_why(r, "not solved: the analysis's time (%u s) was spent",
                         secs);
            else
                ft_presult_why(r, "not solved: stopped after %zu violations", viol);
        }
        free(gviol);
        if (progress)
            progress(arg, n, n);
    }
    return (long)done;
}

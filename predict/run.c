/* SPDX-License-Identifier: MIT */
/* run.c - solving many properties: a pool of worker threads takes the
 * next unsolved property from a shared counter; each property gets its
 * own slice and Z3 context, so workers share only the (read-only) CTM,
 * whose must-HB clocks are prepared once before the workers start. */
#include "predict/predict.h"
#include "predict/window.h"

#include <pthread.h>
#include <stdlib.h>

struct pool {
    ft_ctm *c;
    const ft_reduced *whole;
    const ft_window_index *w;
    const ft_prop *props;
    size_t n;
    const ft_predict_opts *o;
    ft_presult *res;
    size_t next;
    pthread_mutex_t lock;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        ft_predict_one_in(p->c, p->whole, p->w, &p->props[i], p->o,
                          &p->res[i]);
    }
}

long ft_predict_run(ft_ctm *c, const ft_reduced *whole, const ft_prop *props,
                    size_t n, const ft_predict_opts *o, ft_presult *results)
{
    return ft_predict_run_in(c, whole, NULL, props, n, o, results);
}

long ft_predict_run_in(ft_ctm *c, const ft_reduced *whole,
                       const ft_window_index *w, const ft_prop *props,
                       size_t n, const ft_predict_opts *o,
                       ft_presult *results)
{
    if (!c->hb_vc && ft_ctm_hb_prepare(c))
        return -1;
    /* one window index for every worker, when some property needs it */
    ft_window_index *own = NULL;
    for (size_t i = 0; !w && i < n && o->window && !o->no_slice; i++)
        if (!ft_window_covers_all(c, &props[i], o->window) &&
            !(w = own = ft_window_index_new(c)))
            return -1;
    struct pool p = {c, whole, w, props, n, o, results, 0,
                     PTHREAD_MUTEX_INITIALIZER};
    unsigned jobs = o->jobs > 1 ? o->jobs : 1;
    if (jobs > n)
        jobs = (unsigned)(n ? n : 1);
    pthread_t *th = calloc(jobs, sizeof *th);
    if (!th)
        return -1;
    unsigned started = 0;
    for (unsigned j = 1; j < jobs; j++)
        if (pthread_create(&th[started], NULL, worker, &p) == 0)
            started++;
    worker(&p);
    for (unsigned j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    free(th);
    ft_window_index_free(own);
    long viol = 0;
    for (size_t i = 0; i < n; i++)
        viol += results[i].verdict == FT_VIOLATED;
    return viol;
}

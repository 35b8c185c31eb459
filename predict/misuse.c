/* SPDX-License-Identifier: MIT */
/* misuse.c - pthread API misuse the recorded run itself shows: the
 * runtime reports, as MISUSE events (trace.h), an unlock of a mutex or
 * rwlock another thread holds (for writing) or nobody holds, and the
 * destruction of one some thread holds (ThreadSanitizer's "unlock of an
 * unlocked mutex (or by a wrong thread)" and "destroy of a locked
 * mutex").  These are bugs
 * in every schedule that reaches them, so they are reported as observed,
 * with where the holder took the mutex; what a reordering could add is
 * left to `foretell explore`, whose runs report them the same way. */
#define _GNU_SOURCE /* qsort_r */
#include "predict/predict.h"

#include <stdlib.h>

const char *ft_misuse_title(unsigned what)
{
    switch (what) {
    case FT_MISUSE_DESTROY_LOCKED: return "destroy of a locked mutex";
    case FT_MISUSE_UNLOCK_OTHER: return "unlock of a mutex another thread holds";
    case FT_MISUSE_UNLOCK_UNLOCKED: return "unlock of an unlocked mutex";
    default: return "pthread API misuse";
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Index of obj in the sorted objs[0, n), or n. */
static size_t obj_index(const uint64_t *objs, size_t n, uint64_t obj)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (objs[mid] < obj)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && objs[lo] == obj ? lo : n;
}

static uint32_t site_of(const fi_trace *t, uint64_t ev)
{
    return ev < t->nev ? t->ev[ev].site : 0;
}

/* The static misuse: what, the call's site, the holder's lock's site;
 * then the first event. */
static int cmp_static(const void *a, const void *b, void *arg)
{
    const fi_trace *t = arg;
    const ft_misuse *x = a, *y = b;
    uint64_t kx[4] = {x->what, site_of(t, x->event), site_of(t, x->taken),
                      x->event};
    uint64_t ky[4] = {y->what, site_of(t, y->event), site_of(t, y->taken),
                      y->event};
    for (int i = 0; i < 4; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static int same_static(const fi_trace *t, const ft_misuse *x,
                       const ft_misuse *y)
{
    return x->what == y->what &&
           site_of(t, x->event) == site_of(t, y->event) &&
           site_of(t, x->taken) == site_of(t, y->taken);
}

static int cmp_event(const void *a, const void *b)
{
    const ft_misuse *x = a, *y = b;
    return (x->event > y->event) - (x->event < y->event);
}

int ft_misuse_list(const fi_trace *t, ft_misuse **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t m = 0;
    for (uint64_t i = 0; i < t->nev; i++)
        m += t->ev[i].kind == FT_EV_MISUSE;
    if (!m)
        return 0;
    ft_misuse *v = calloc(m, sizeof *v);
    uint64_t *objs = malloc(m * sizeof *objs);
    uint64_t *last = malloc(m * sizeof *last);
    if (!v || !objs || !last) {
        free(v);
        free(objs);
        free(last);
        return -1;
    }
    /* the misused mutexes, sorted, each with its last acquisition so far:
     * at a misuse, the holder is the thread that acquired it last */
    size_t k = 0, no = 0;
    for (uint64_t i = 0; i < t->nev; i++)
        if (t->ev[i].kind == FT_EV_MISUSE)
            objs[k++] = t->ev[i].addr;
    qsort(objs, m, sizeof *objs, cmp_u64);
    for (size_t i = 0; i < m; i++)
        if (!no || objs[i] != objs[no - 1])
            objs[no++] = objs[i];
    for (size_t i = 0; i < no; i++)
        last[i] = UINT64_MAX;
    k = 0;
    for (uint64_t i = 0; i < t->nev && k < m; i++) {
        const fi_event *e = &t->ev[i];
        int acquired = (e->kind == FT_EV_MUTEX_LOCK || e->kind == FT_EV_RW_WRLOCK ||
                        e->kind == FT_EV_RW_RDLOCK) && e->rc == 0;
        uint64_t obj = acquired                     ? e->addr
                       : e->kind == FT_EV_COND_WAKE ? fi_ev_obj2(t, e)
                       : e->kind == FT_EV_MISUSE    ? e->addr
                                                    : 0;
        size_t x = obj ? obj_index(objs, no, obj) : no;
        if (x == no)
            continue;
        if (e->kind != FT_EV_MISUSE) {
            last[x] = i;
            continue;
        }
        ft_misuse *u = &v[k++];
        u->event = i;
        u->what = e->arg;
        u->tid = e->tid;
        u->obj = e->addr;
        u->holder = e->arg == FT_MISUSE_UNLOCK_UNLOCKED ? -1
                                                         : (int64_t)e->value;
        u->taken = u->holder >= 0 && last[x] != UINT64_MAX &&
                           t->ev[last[x]].tid == (uint32_t)u->holder
                       ? last[x]
                       : UINT64_MAX;
        u->instances = 1;
    }
    free(objs);
    free(last);
    /* one entry per static misuse, its first event standing for it */
    qsort_r(v, k, sizeof *v, cmp_static, (void *)t);
    size_t g = 0;
    for (size_t i = 0; i < k; i++) {
        if (g && same_static(t, &v[g - 1], &v[i])) {
            v[g - 1].instances++;
            continue;
        }
        v[g++] = v[i];
    }
    qsort(v, g, sizeof *v, cmp_event);
    *out = v;
    *n = g;
    return 0;
}

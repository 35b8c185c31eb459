/* SPDX-License-Identifier: MIT */
/* misuse.c - pthread API misuse the recorded run itself shows: the
 * runtime reports, as MISUSE events (trace.h), an unlock of a mutex
 * another thread holds or nobody holds, and the destruction of a mutex
 * some thread holds (ThreadSanitizer's "unlock of an unlocked mutex (or
 * by a wrong thread)" and "destroy of a locked mutex").  These are bugs
 * in every schedule that reaches them, so they are reported as observed,
 * with where the holder took the mutex; what a reordering could add is
 * left to `foretell explore`, whose runs report them the same way. */
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

/* The event at which thread tid last took obj before event end, or
 * UINT64_MAX. */
static uint64_t taken_at(const fi_trace *t, uint32_t tid, uint64_t obj,
                         uint64_t end)
{
    for (uint64_t i = end; i-- > 0;) {
        const ft_event *e = &t->ev[i];
        if (e->tid != tid)
            continue;
        if ((e->kind == FT_EV_MUTEX_LOCK && e->addr == obj && e->rc == 0) ||
            (e->kind == FT_EV_COND_WAKE && e->obj2 == obj))
            return i;
    }
    return UINT64_MAX;
}

int ft_misuse_list(const fi_trace *t, ft_misuse **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (uint64_t i = 0; i < t->nev; i++) {
        const ft_event *e = &t->ev[i];
        if (e->kind != FT_EV_MISUSE)
            continue;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            ft_misuse *m = realloc(*out, nc * sizeof *m);
            if (!m) {
                free(*out);
                *out = NULL;
                *n = 0;
                return -1;
            }
            *out = m;
            cap = nc;
        }
        ft_misuse *m = &(*out)[(*n)++];
        m->event = i;
        m->what = e->arg;
        m->tid = e->tid;
        m->obj = e->addr;
        m->holder = e->arg == FT_MISUSE_UNLOCK_UNLOCKED ? -1
                                                         : (int64_t)e->value;
        m->taken = m->holder >= 0
                       ? taken_at(t, (uint32_t)m->holder, e->addr, i)
                       : UINT64_MAX;
    }
    return 0;
}

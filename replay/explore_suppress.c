/* SPDX-License-Identifier: MIT */
/* explore_suppress.c - whether a failing run of `foretell explore` is one
 * the user's suppressions cover (predict/suppress.c has the rules).
 * Explore's failures are not analyze's findings: what a rule can match is
 * where the run failed, read back from its symbolised trace as
 * fx_failure_site reads it: the failing thread's last site and the call
 * sites of its open frames (as ThreadSanitizer matches every frame of a
 * report's stacks), or, for a deadlock, every blocked thread's wait and
 * stack, for a hang every live thread's. */
#include "predict/predict.h"
#include "replay/explore.h"

#include <stdlib.h>
#include <string.h>

#define MAXT 1024
#define MAXCALLS 32

typedef struct reading {
    uint32_t last_site[MAXT], blocked_site[MAXT];
    unsigned char exited[MAXT];
    int fail_tid;      /* the thread a signal, heap error or misuse hit */
    uint32_t nthreads;
    int nblocked;
} reading;

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

/* Adds site's frame (and the place inlined system code entered the
 * program's own) to fr. */
static size_t add_site(const ft_reader *r, uint32_t id, ft_supp_frame *fr,
                       size_t n, size_t cap)
{
    const ft_site *s = id ? ft_reader_site(r, id) : NULL;
    if (!s || n >= cap)
        return n;
    const ft_header *h = ft_reader_header(r);
    const char *module = h && s->module < h->nmodules
                             ? base_name(h->modules[s->module].path) : NULL;
    fr[n++] = (ft_supp_frame){s->function, s->file, module, s->line};
    if (s->user_file && n < cap)
        fr[n++] = (ft_supp_frame){NULL, s->user_file, NULL, s->user_line};
    return n;
}

/* Thread t's frames: its site, then its open calls, innermost first. */
static size_t add_thread(const ft_reader *r, const fr_frames *frames,
                         int t, uint32_t site, ft_supp_frame *fr, size_t n,
                         size_t cap)
{
    n = add_site(r, site, fr, n, cap);
    uint32_t calls[MAXCALLS];
    uint32_t nc = fr_frames_calls(frames, t, calls, MAXCALLS);
    for (uint32_t k = 0; k < nc; k++)
        n = add_site(r, calls[k], fr, n, cap);
    return n;
}

int fx_failure_suppressed(const char *trace, int failure,
                          struct ft_suppressions *s)
{
    if (!s || !ft_suppressions_count(s))
        return 0;
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r)
        return 0;
    fr_frames *frames = fr_frames_new(r);
    reading *d = calloc(1, sizeof *d);
    enum { CAP = 512 };
    ft_supp_frame *fr = malloc(CAP * sizeof *fr);
    int hit = 0;
    if (!frames || !d || !fr)
        goto out;
    d->fail_tid = -1;
    ft_event ev;
    while (ft_reader_next(r, &ev) == 1) {
        fr_frames_event(frames, &ev);
        if (ev.tid >= MAXT)
            continue;
        if (ev.tid + 1 > d->nthreads)
            d->nthreads = ev.tid + 1;
        if (ev.kind == FT_EV_SIGNAL || ev.kind == FT_EV_HEAP_ERROR ||
            ev.kind == FT_EV_MISUSE)
            d->fail_tid = (int)ev.tid;
        else if (ev.kind == FT_EV_THREAD_EXIT)
            d->exited[ev.tid] = 1;
        else if (ev.kind == FT_EV_BLOCKED && ev.value < MAXT) {
            d->blocked_site[ev.value] = ev.site;
            d->nblocked++;
        }
        if (ev.kind != FT_EV_DEADLOCK && ev.kind != FT_EV_BLOCKED && ev.site)
            d->last_site[ev.tid] = ev.site;
    }
    size_t n = 0;
    if (failure == FR_DEADLOCK && d->nblocked) {
        for (uint32_t t = 0; t < MAXT; t++)
            if (d->blocked_site[t])
                n = add_thread(r, frames, (int)t, d->blocked_site[t], fr, n,
                               CAP);
    } else if (failure == FR_DEADLOCK || failure == FR_HANG) {
        for (uint32_t t = 0; t < d->nthreads; t++)
            if (!d->exited[t])
                n = add_thread(r, frames, (int)t, d->last_site[t], fr, n,
                               CAP);
    } else {
        /* a signal, heap error or misuse names its thread; a failing exit
         * status is the main thread's */
        int t = d->fail_tid >= 0 ? d->fail_tid : 0;
        n = add_thread(r, frames, t, d->last_site[t], fr, n, CAP);
    }
    hit = ft_suppressions_match(s, fx_failure_name(failure), fr, n) >= 0;
out:
    free(fr);
    free(d);
    fr_frames_free(frames);
    ft_reader_close(r);
    return hit;
}

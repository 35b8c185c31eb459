/* SPDX-License-Identifier: MIT */
/* frames.c - where a failure is in the program's own code.  The event a
 * failure is found at may lie in library code: std::vector::at's range
 * check (inlined from a system header, or an out-of-line instance with
 * its own FUNC_ENTRY), libc's strlen, a std::mutex wrapper.  A report at
 * stl_vector.h:988 tells the user nothing; the first frame of their own
 * code does.  Each thread's call stack is rebuilt from FUNC_ENTRY/EXIT as
 * the trace is read, with, per frame, the last event of the program's own
 * code seen at that depth.  A site is the program's own when its file is
 * not a system one or it was inlined from a system header into the
 * program's code (the trace's INLINED entries: ft_site_format_user). */
#include "replay/replay.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4096 /* deeper frames are counted, not kept */

typedef struct frame {
    uint32_t call_site;  /* where this frame was entered (in its caller) */
    uint32_t last_user;  /* last event of the program's code at this depth */
} frame;

typedef struct tstack {
    frame *f;            /* f[0]: the thread's outermost code */
    uint32_t n, cap;
    uint64_t lost;       /* frames beyond MAX_DEPTH */
} tstack;

struct fr_frames {
    const ft_reader *r;
    tstack *t;
    uint32_t nt;
    uint8_t *kind;       /* per site id: 0 unknown, 1 user, 2 system */
    uint32_t nkind;
};

fr_frames *fr_frames_new(const ft_reader *r)
{
    fr_frames *f = calloc(1, sizeof *f);
    if (f)
        f->r = r;
    return f;
}

void fr_frames_free(fr_frames *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->nt; i++)
        free(f->t[i].f);
    free(f->t);
    free(f->kind);
    free(f);
}

static int is_user(fr_frames *f, uint32_t site)
{
    if (!site)
        return 0;
    if (site >= f->nkind) {
        uint32_t n = f->nkind ? f->nkind : 256;
        while (n <= site)
            n *= 2;
        uint8_t *k2 = realloc(f->kind, n);
        if (!k2)
            return 0;
        memset(k2 + f->nkind, 0, n - f->nkind);
        f->kind = k2;
        f->nkind = n;
    }
    if (!f->kind[site]) {
        char buf[8];
        f->kind[site] = ft_site_format_user(f->r, site, buf, sizeof buf) ? 1 : 2;
    }
    return f->kind[site] == 1;
}

static tstack *stack_of(fr_frames *f, uint32_t tid)
{
    if (tid >= f->nt) {
        uint32_t n = f->nt ? f->nt : 8;
        while (n <= tid)
            n *= 2;
        tstack *t2 = realloc(f->t, n * sizeof *t2);
        if (!t2)
            return NULL;
        memset(t2 + f->nt, 0, (n - f->nt) * sizeof *t2);
        f->t = t2;
        f->nt = n;
    }
    tstack *s = &f->t[tid];
    if (!s->f) {
        s->f = calloc(16, sizeof *s->f);
        if (!s->f)
            return NULL;
        s->cap = 16;
        s->n = 1; /* the outermost frame: the thread's start */
    }
    return s;
}

void fr_frames_event(fr_frames *f, const ft_event *ev)
{
    if (!f || ev->kind == FT_EV_BLOCKED || ev->kind == FT_EV_DEADLOCK)
        return; /* written by another thread than the one they are about */
    tstack *s = stack_of(f, ev->tid);
    if (!s)
        return;
    if (ev->kind == FT_EV_FUNC_ENTRY) {
        if (s->lost || s->n == MAX_DEPTH) {
            s->lost++;
            return;
        }
        if (s->n == s->cap) {
            frame *f2 = realloc(s->f, 2 * s->cap * sizeof *f2);
            if (!f2) {
                s->lost++;
                return;
            }
            s->f = f2;
            s->cap *= 2;
        }
        s->f[s->n++] = (frame){(uint32_t)ev->value, 0};
        return;
    }
    if (ev->kind == FT_EV_FUNC_EXIT) {
        if (s->lost)
            s->lost--;
        else if (s->n > 1)
            s->n--;
        return;
    }
    if (ev->site && !s->lost && is_user(f, ev->site))
        s->f[s->n - 1].last_user = ev->site;
}

const char *fr_frames_user_site(fr_frames *f, int tid, uint32_t site,
                                char *buf, size_t len)
{
    if (f && ft_site_format_user(f->r, site, buf, len))
        return buf;
    tstack *s = f && tid >= 0 && (uint32_t)tid < f->nt ? &f->t[tid] : NULL;
    /* Innermost first: the last event of the program's code in that
     * function, else the call that entered the frame above it. */
    for (uint32_t k = s && s->f && !s->lost ? s->n : 0; k-- > 0;) {
        if (s->f[k].last_user)
            return ft_site_format(f->r, s->f[k].last_user, buf, len);
        if (k > 0 && is_user(f, s->f[k].call_site))
            return ft_site_format_user(f->r, s->f[k].call_site, buf, len);
    }
    return ft_site_format(f->r, site, buf, len);
}

uint32_t fr_frames_calls(const fr_frames *f, int tid, uint32_t *sites,
                         uint32_t cap)
{
    const tstack *s = f && tid >= 0 && (uint32_t)tid < f->nt ? &f->t[tid]
                                                            : NULL;
    uint32_t n = 0;
    for (uint32_t k = s && s->f && !s->lost ? s->n : 0; k-- > 1 && n < cap;)
        if (s->f[k].call_site)
            sites[n++] = s->f[k].call_site;
    return n;
}

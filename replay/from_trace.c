/* SPDX-License-Identifier: MIT */
/* from_trace.c - the schedule of a recorded run: where its threads
 * switched.  `foretell replay --trace` follows it to repeat a run, and
 * --save-schedule writes it for a failing run, so the failure can be
 * replayed from a small text file.  Steps name the last event of each
 * maximal run of one thread's events (per-thread index, kind, site), the
 * same form predicted schedules take (docs/schedule-format.md).  Also the
 * pieces the mapping onto another build shares (build_map.c): which
 * events a schedule numbers, a step, a schedule in a temporary file. */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void set_err(ft_error *err, const char *path, const char *msg)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, "%s", msg);
}

void fr_step_fill(ft_sched_step *p, const ft_reader *r, uint32_t tid,
                  unsigned kind, uint32_t site, uint64_t tindex)
{
    memset(p, 0, sizeof *p);
    p->tid = tid;
    p->tindex = tindex;
    snprintf(p->kind, sizeof p->kind, "%s", ft_kind_name(kind));
    for (char *k = p->kind; *k; k++)
        if (*k == ' ')
            *k = '_';
    if (site)
        ft_site_format(r, site, p->site, sizeof p->site);
    else
        snprintf(p->site, sizeof p->site, "?");
}

int fr_step_event(unsigned kind)
{
    /* The deadlock report ends the run and belongs to no thread's
     * schedule (it lands in whichever thread blocked last).  Nor is the
     * heap oracle's report a step: it comes just before the access it is
     * about, and a run without the oracle numbers no such event
     * (fr_check_schedule skips it the same way). */
    return kind != FT_EV_DEADLOCK && kind != FT_EV_BLOCKED &&
           kind != FT_EV_HEAP_ERROR;
}

int fr_schedule_write_temp(const ft_schedule *s, char *path, size_t len,
                           ft_error *err)
{
    snprintf(path, len, "/tmp/foretell-schedule-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc = f ? ft_schedule_write(f, s) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    else if (!f && fd >= 0)
        close(fd);
    if (rc < 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "cannot write a schedule: %s",
                 strerror(errno));
        set_err(err, path, msg);
        if (fd >= 0)
            unlink(path);
    }
    return rc;
}

static int from_trace(const char *trace, int keep_prefix, ft_schedule *s,
                      ft_error *err)
{
    memset(s, 0, sizeof *s);
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    const ft_header *h = ft_reader_header(r);
    snprintf(s->trace, sizeof s->trace, "%s", trace);
    snprintf(s->program, sizeof s->program, "%s",
             h && h->program ? h->program : "");
    /* The format knows only predicted kinds; a recorded run's schedule is
     * marked by its property text (docs/replay.md). */
    snprintf(s->kind, sizeof s->kind, "CA");
    snprintf(s->property, sizeof s->property, "recorded run %s", trace);
    uint64_t *count = NULL;
    uint32_t ncount = 0, cap = 0;
    /* prev is read only once have is set; zeroed so no path reads junk */
    ft_event ev, prev = {0};
    uint64_t prev_tindex = 0;
    int have = 0, got, rc = -1;
    while ((got = ft_reader_next(r, &ev)) > 0) {
        if (!fr_step_event(ev.kind))
            continue;
        if (ev.tid >= ncount) {
            uint32_t nc = ncount ? ncount : 8;
            while (nc <= ev.tid)
                nc *= 2;
            uint64_t *c2 = realloc(count, nc * sizeof *c2);
            if (!c2)
                goto oom;
            memset(c2 + ncount, 0, (nc - ncount) * sizeof *c2);
            count = c2;
            ncount = nc;
        }
        if (have && prev.tid != ev.tid) {
            if (s->nsteps == cap) {
                uint32_t nc = cap ? 2 * cap : 64;
                ft_sched_step *n2 = realloc(s->steps, nc * sizeof *n2);
                if (!n2)
                    goto oom;
                s->steps = n2;
                cap = nc;
            }
            fr_step_fill(&s->steps[s->nsteps++], r, prev.tid, prev.kind,
                         prev.site, prev_tindex);
        }
        prev = ev;
        prev_tindex = count[ev.tid]++;
        have = 1;
    }
    if (!keep_prefix && (got < 0 || ft_reader_damage(r, err))) {
        if (got < 0)
            *err = *ft_reader_error(r);
        goto done;
    }
    if (have) {
        ft_sched_step *n2 = realloc(s->steps, (s->nsteps + 1) * sizeof *n2);
        if (!n2)
            goto oom;
        s->steps = n2;
        fr_step_fill(&s->steps[s->nsteps++], r, prev.tid, prev.kind, prev.site,
                     prev_tindex);
    }
    rc = 0;
    goto done;
oom:
    set_err(err, trace, "out of memory");
done:
    free(count);
    ft_reader_close(r);
    if (rc)
        ft_schedule_free(s);
    return rc;
}

int fr_schedule_from_trace(const char *trace, ft_schedule *s, ft_error *err)
{
    return from_trace(trace, 0, s, err);
}

int fr_schedule_from_prefix(const char *trace, ft_schedule *s, ft_error *err)
{
    return from_trace(trace, 1, s, err);
}

/* SPDX-License-Identifier: MIT */
/* traceinfo.c - what reports and schedule files need from the trace and
 * the CTM does not keep: each transition's per-thread event index (the
 * numbering the replay runtime uses), its event kind, and the sites'
 * file:line.  One more streaming pass over the trace. */
#include "predict/predict.h"

#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

int ft_trace_info_load(ft_trace_info *ti, const char *path, const ft_ctm *c,
                       ft_error *err)
{
    memset(ti, 0, sizeof *ti);
    ft_reader *rd = ft_reader_open(path, err);
    if (!rd)
        return -1;
    ti->path = dup_str(path);
    const ft_header *h = ft_reader_header(rd);
    ti->program = dup_str(h && h->program ? h->program : "");
    ti->ntrans = c->ntrans;
    ti->tindex = calloc(c->ntrans + 1, sizeof *ti->tindex);
    ti->kind = calloc(c->ntrans + 1, sizeof *ti->kind);
    uint32_t cap = 64;
    uint64_t *count = calloc(cap, sizeof *count);
    int rc = -1;
    if (!ti->path || !ti->program || !ti->tindex || !ti->kind || !count)
        goto oom;
    ft_event ev;
    uint32_t j = 0;
    int got;
    while ((got = ft_reader_next(rd, &ev)) > 0) {
        if (ev.tid >= cap) {
            uint32_t nc = cap;
            while (nc <= ev.tid)
                nc *= 2;
            uint64_t *n2 = realloc(count, nc * sizeof *count);
            if (!n2)
                goto oom;
            memset(n2 + cap, 0, (nc - cap) * sizeof *n2);
            count = n2;
            cap = nc;
        }
        while (j < c->ntrans && c->event[j] < ev.index)
            j++;
        while (j < c->ntrans && c->event[j] == ev.index) {
            ti->tindex[j] = (uint32_t)count[ev.tid];
            ti->kind[j] = ev.kind;
            j++;
        }
        count[ev.tid]++;
    }
    ti->nsites = ft_reader_nsites(rd) + 1;
    ti->site_file = calloc(ti->nsites + 1, sizeof *ti->site_file);
    ti->site_func = calloc(ti->nsites + 1, sizeof *ti->site_func);
    ti->site_line = calloc(ti->nsites + 1, sizeof *ti->site_line);
    if (!ti->site_file || !ti->site_func || !ti->site_line)
        goto oom;
    for (uint32_t i = 0; i + 1 < ti->nsites; i++) {
        const ft_site *s = ft_reader_site_at(rd, i);
        if (!s || s->id >= ti->nsites)
            continue;
        ti->site_file[s->id] = dup_str(s->file);
        ti->site_func[s->id] = dup_str(s->function);
        ti->site_line[s->id] = s->line;
    }
    if (ft_trace_info_where(ti, rd) < 0)
        goto oom;
    rc = 0;
    goto done;
oom:
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, "out of memory");
done:
    free(count);
    ft_reader_close(rd);
    if (rc)
        ft_trace_info_free(ti);
    return rc;
}

void ft_trace_info_free(ft_trace_info *ti)
{
    for (uint32_t i = 0; i < ti->nsites; i++) {
        if (ti->site_file)
            free(ti->site_file[i]);
        if (ti->site_func)
            free(ti->site_func[i]);
        if (ti->site_where)
            free(ti->site_where[i]);
    }
    free(ti->site_where);
    free(ti->site_file);
    free(ti->site_func);
    free(ti->site_line);
    free(ti->tindex);
    free(ti->kind);
    free(ti->path);
    free(ti->program);
    memset(ti, 0, sizeof *ti);
}

const char *ft_trace_info_site(const ft_trace_info *ti, const ft_ctm *c,
                               uint32_t x, char *buf, size_t len)
{
    uint32_t s = x < c->ntrans ? c->site[x] : 0;
    if (ti && s < ti->nsites && ti->site_file && ti->site_file[s])
        snprintf(buf, len, "%s:%u", ti->site_file[s], ti->site_line[s]);
    else if (ti && s < ti->nsites && ti->site_where && ti->site_where[s])
        snprintf(buf, len, "%s", ti->site_where[s]);
    else
        snprintf(buf, len, "?:0");
    return buf;
}

int ft_trace_info_where(ft_trace_info *ti, const ft_reader *rd)
{
    ti->site_where = calloc(ti->nsites + 1, sizeof *ti->site_where);
    if (!ti->site_where)
        return -1;
    for (uint32_t id = 1; rd && id < ti->nsites; id++) {
        char buf[600];
        const ft_site *s = ft_reader_site(rd, id);
        if (!s || s->file || (ti->site_file && ti->site_file[id]))
            continue;
        ft_site_format(rd, id, buf, sizeof buf);
        if (buf[0] != '?' && !(ti->site_where[id] = strdup(buf)))
            return -1;
    }
    return 0;
}

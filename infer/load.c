/* SPDX-License-Identifier: MIT */
/* load.c - moves a foretell trace file into an fi_trace and back, through
 * the recorder's reader and writer.  Kept apart from the rest of ft_infer so
 * that programs which never touch trace files (the STD tools, the checker
 * benchmark) do not depend on the reader. */
#include "infer/infer.h"

#include <stdlib.h>
#include <string.h>

int fi_trace_load(fi_trace *t, const char *path, ft_error *err)
{
    return fi_trace_load_bounded(t, path, NULL, err);
}

int fi_trace_load_bounded(fi_trace *t, const char *path, ft_budget *budget,
                          ft_error *err)
{
    ft_reader *r = ft_reader_open(path, err);
    if (!r)
        return -1;
    int rc = fi_trace_read_bounded(t, r, budget, err);
    ft_reader_close(r);
    if (rc < 0 && err && !err->path[0])
        snprintf(err->path, sizeof err->path, "%s", path);
    return rc;
}

int fi_trace_read(fi_trace *t, ft_reader *r, ft_error *err)
{
    return fi_trace_read_bounded(t, r, NULL, err);
}

int fi_trace_read_bounded(fi_trace *t, ft_reader *r, ft_budget *budget,
                          ft_error *err)
{
    /* Sites keep their ids (events name them): copy the table as is.  The
     * reader accepts only ids dense from 1, so the table is as large as the
     * file's own site entries, whatever id an entry names. */
    uint32_t n = ft_reader_nsites(r);
    if (n) {
        t->sites = calloc(n, sizeof *t->sites);
        if (!t->sites)
            goto nomem;
        t->nsites = t->capsites = n;
        for (uint32_t id = 1; id <= n; id++) {
            ft_site *mine = &t->sites[id - 1];
            const ft_site *s = ft_reader_site(r, id);
            mine->id = id;
            mine->module = s->module;
            mine->offset = s->offset;
            mine->line = s->line;
            mine->column = s->column;
            mine->straight = s->straight;
            mine->function = s->function ? strdup(s->function) : NULL;
            mine->file = s->file ? strdup(s->file) : NULL;
            if ((s->function && !mine->function) || (s->file && !mine->file))
                goto nomem;
        }
    }
    /* Sized once from the END chunk's count (bounded as ft_ctm_build
     * bounds it: it is only the writer's word), not by doubling: the
     * trace is the largest thing every later stage holds.  A hint: when
     * it cannot be had, the array grows as the events come. */
    const ft_end *end = ft_reader_end(r);
    if (end && end->present && end->events < (1ull << 31) &&
        end->events <= ft_reader_event_bytes(r))
        (void)fi_trace_reserve(t, t->nev + end->events);
    ft_event ev;
    int rc;
    while ((rc = ft_reader_next(r, &ev)) == 1) {
        if (fi_trace_add(t, &ev) < 0)
            goto nomem;
        if ((t->nev & 0xffff) == 0 &&
            ft_budget_poll(budget, "loading", t->nev, 0)) {
            fi_trace_shrink(t);
            return 2; /* the events read so far are kept */
        }
    }
    fi_trace_shrink(t);
    int damaged = rc < 0 || ft_reader_damage(r, err);
    if (rc < 0 && err)
        *err = *ft_reader_error(r);
    return damaged ? 1 : 0;
nomem:
    if (err) {
        err->path[0] = 0; /* fi_trace_load names the file */
        err->offset = 0;
        snprintf(err->message, sizeof err->message,
                 "out of memory loading the trace");
    }
    return -1;
}

int fi_trace_save(const fi_trace *t, const char *path, ft_error *err)
{
    static const char *argv0[] = {"foretell-import"};
    ft_header h = {.version = FT_FORMAT_VERSION,
                   .program = "foretell-import",
                   .argc = 1,
                   .argv = argv0};
    ft_writer *w = ft_writer_open(path, &h, err);
    if (!w)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < t->nsites && rc == 0; i++)
        rc = ft_writer_site(w, &t->sites[i]);
    for (size_t i = 0; i < t->nev && rc == 0; i++) {
        ft_event ev;
        fi_trace_get(t, i, &ev);
        rc = ft_writer_event(w, &ev);
    }
    ft_end end = {.present = 1, .events = t->nev, .exit_status = -1,
                  .reason = "exit"};
    if (ft_writer_close(w, &end) < 0)
        rc = -1;
    if (rc < 0 && err) {
        snprintf(err->path, sizeof err->path, "%s", path);
        err->offset = 0;
        snprintf(err->message, sizeof err->message, "cannot write the trace");
    }
    return rc;
}

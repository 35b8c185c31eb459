/* explore_save.c - the schedule of an explored run, from its trace: every
 * event in trace order as one step (thread, per-thread event index, kind,
 * site), in the schedule-file layout that predict/ writes
 * (docs/schedule-format.md), with "kind: explore" and the strategy spec
 * that produced the run as its property line.  Following every event is
 * stricter than needed (only the switches matter) but cannot be
 * ambiguous. */
#define _GNU_SOURCE
#include "replay/explore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_schedule_from_trace(const char *trace, const char *path,
                           const char *note, ft_error *err)
{
    ft_reader *r = ft_reader_open(trace, err);
    if (!r)
        return -1;
    uint64_t nsteps = 0;
    ft_event ev;
    while (ft_reader_next(r, &ev) == 1)
        nsteps++;
    if (ft_reader_rewind(r) < 0) {
        ft_reader_close(r);
        snprintf(err->message, sizeof err->message, "cannot rewind %s", trace);
        return -1;
    }
    FILE *out = fopen(path, "w");
    if (!out) {
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message, "cannot write: %s",
                 strerror(errno));
        ft_reader_close(r);
        return -1;
    }
    const ft_header *h = ft_reader_header(r);
    fprintf(out, "foretell-schedule 1\n");
    fprintf(out, "trace: %s\n", trace);
    fprintf(out, "program: %s\n", h && h->program ? h->program : "?");
    fprintf(out, "kind: explore\n");
    fprintf(out, "property: %s\n", note ? note : "");
    fprintf(out, "steps: %" PRIu64 "\n", nsteps);
    fprintf(out, "# tid thread-event-index kind mark(! = violating) site\n");
    enum { MAXT = 1024 };
    static uint64_t tindex[MAXT];
    memset(tindex, 0, sizeof tindex);
    char site[200];
    while (ft_reader_next(r, &ev) == 1) {
        uint64_t ti = ev.tid < MAXT ? tindex[ev.tid]++ : 0;
        char kind[32];
        snprintf(kind, sizeof kind, "%s", ft_kind_name(ev.kind));
        for (char *k = kind; *k; k++)
            if (*k == ' ')
                *k = '_';
        ft_site_format(r, ev.site, site, sizeof site);
        for (char *s = site; *s; s++)
            if (*s == ' ' || *s == '\n')
                *s = '_';
        fprintf(out, "%u %" PRIu64 " %s - %s\n", ev.tid, ti, kind, site);
    }
    fprintf(out, "end\n");
    ft_reader_close(r);
    if (fclose(out) != 0) {
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message, "write failed");
        return -1;
    }
    return 0;
}

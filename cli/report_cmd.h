/* SPDX-License-Identifier: MIT */
/* report_cmd.h - the parts of `foretell report` (cmd_report.c reads the
 * analysis or exploration document and maps witnesses to trace events;
 * report_html.c writes the page). */
#ifndef FORETELL_CLI_REPORT_CMD_H
#define FORETELL_CLI_REPORT_CMD_H

#include "cli/html.h"
#include "recorder/trace.h"

#include <jansson.h>
#include <stdio.h>

/* The document read: report.json of an analysis or an exploration. */
typedef struct report_doc {
    char path[4200];
    char dir[4100]; /* where it is: files it names are looked for here too */
    json_t *root;
    int explore;    /* an exploration's ("bugs"), else an analysis's */
} report_doc;

typedef struct report_ctx {
    const report_doc *doc;
    ft_source_cache *sources;
    ft_reader *reader; /* the last trace read, kept for the next finding */
    char reader_path[4200];
} report_ctx;

/* What a step or an event shows, copied out of its trace's reader (one
 * finding's events and witness come from two traces, read one after the
 * other): the strings html_step_info points at. */
typedef struct report_site_text {
    char function[160], file[512], text[256];
} report_site_text;

/* One witness: the schedule, and what the trace says of its drawn steps
 * (html_lanes_from on). */
typedef struct report_witness {
    ft_schedule s;
    int loaded;
    html_step_info *info;   /* NULL when not mapped */
    report_site_text *text; /* what info points at, a step each */
    char mapped[4200];      /* the trace the steps were found in, "" none */
    char note[600];         /* why not loaded or not mapped */
} report_witness;

/* One event a finding names, as the trace describes it. */
typedef struct report_access {
    html_step_info info;
    report_site_text text;
} report_access;

/* path as written if it is a file, else its name in the document's
 * directory; NULL when neither is there. */
const char *report_resolve(const report_doc *d, const char *path, char *buf,
                           size_t len);
/* A schedule file: 0, or -1 with why ("NAME:LINE: what"). */
int report_load_schedule(const char *path, ft_schedule *s, char *why,
                         size_t len);
/* Fills w->info from trace (w may be NULL) and acc[k].info from the
 * trace's events gidx[k].  A trace that cannot be read leaves them
 * empty, with w->note saying why.  0, or -1 out of memory. */
int report_map(report_ctx *c, const char *trace, report_witness *w,
               const uint64_t *gidx, report_access *acc, uint32_t ng);
void report_witness_free(report_witness *w);

/* The page body.  0, or -1 out of memory. */
int report_write_html(FILE *o, report_ctx *c);

#endif

/* SPDX-License-Identifier: MIT */
/* batch_cmd.h - the parts of `foretell batch` (cmd_batch.c: the
 * subcommands analyze, merge and confirm; batch_report.c: report, with
 * JUnit XML and JSON lines; batch_sarif.c: SARIF and baselines;
 * batch_html.c: the static HTML page). */
#ifndef FORETELL_CLI_BATCH_CMD_H
#define FORETELL_CLI_BATCH_CMD_H

#include "batch/batch.h"

#include <stdio.h>

int batch_report(int argc, char **argv);

/* A previous SARIF report's fingerprints (--baseline), and its results
 * as they were, for those that are gone now. */
typedef struct batch_baseline {
    char **fp;            /* sorted */
    size_t nfp;
    struct json_t *doc;   /* the parsed file (jansson) */
} batch_baseline;

/* Reads OLD.sarif.  0, or -1 with a message on stderr. */
int batch_baseline_read(const char *path, batch_baseline *b);
void batch_baseline_free(batch_baseline *b);
int batch_baseline_has(const batch_baseline *b, const char *fp);
/* "new" or "unchanged" against b; NULL without a baseline. */
const char *batch_baseline_state(const batch_baseline *b, const char *fp);

/* --sarif: one SARIF 2.1.0 log.  source_root (may be NULL): paths under
 * it are written relative to %SRCROOT%.  0, or -1 on a write error. */
int batch_write_sarif(FILE *out, const fb_finding_row *rows, size_t n,
                      const batch_baseline *bl, const char *source_root);
/* --html DIR: DIR/index.html with the totals t (the store's, less what
 * --suppressions left out).  0, or -1 with a message on stderr. */
int batch_write_html(const char *dir, const fb_totals *t,
                     const fb_finding_row *rows, size_t n,
                     const fb_trace_row *traces, size_t ntraces,
                     const batch_baseline *bl);

/* The steps of a witness (schedule text), for SARIF thread flows and
 * HTML swimlanes.  -1 when the text does not parse. */
int batch_witness_parse(const char *text, ft_schedule *s);

/* A report file, written as PATH.tmp.PID and renamed into place on
 * success ("-": standard output). */
typedef struct batch_out {
    const char *path;
    char tmp[4200];
    FILE *f;
} batch_out;
/* NULL with a message on stderr. */
FILE *batch_out_open(batch_out *o, const char *path);
/* failed: the caller's own writing failed.  0, or -1 (said on stderr;
 * the temporary file removed, the old file left as it was). */
int batch_out_close(batch_out *o, int failed);

/* "file" and line from a schedule step's "file:line" site. */
void batch_split_site(const char *site, char *file, size_t len,
                      unsigned *line);

#endif

/* SPDX-License-Identifier: MIT */
/* html.h - what the static HTML pages share (`foretell batch report
 * --html`: batch_html.c; `foretell report --html`: report_html.c): text
 * escaping, the page around the content (one inline style sheet, no
 * scripts, no external resources, so a page opens from disk anywhere),
 * DIR/index.html written whole or not at all, and a witness interleaving
 * drawn as swimlanes, one column per thread. */
#ifndef FORETELL_CLI_HTML_H
#define FORETELL_CLI_HTML_H

#include "predict/predict.h"

#include <stdio.h>

/* s as XML/HTML text (markup escaped; characters XML does not allow and
 * invalid UTF-8 become U+FFFD), NULL as "".  JUnit XML and SARIF's XML
 * parts use it too. */
void html_text(FILE *out, const char *s);

/* DIR/index.html being written: created beside its place and renamed
 * there by html_page_close. */
typedef struct html_page {
    char path[4200], tmp[4300];
    FILE *f;
} html_page;

/* Creates DIR if absent (its parent must exist), checks that it is a
 * writable directory, opens DIR/index.html and writes the head (title
 * escaped) and an <h1>.  The stream, or NULL with "DIR: error: ..." on
 * stderr (a path that is a file, an unwritable or uncreatable directory:
 * the user's input is wrong). */
FILE *html_page_open(html_page *p, const char *dir, const char *title);
/* Ends the page and renames it into place (failed: the caller's writing
 * failed).  0, or -1 with a message on stderr and the old page kept. */
int html_page_close(html_page *p, int failed);

/* What the trace says of one step of a witness, for its swimlane cell
 * (any field NULL/0 when unknown: the schedule's own site is shown). */
typedef struct html_step_info {
    const char *function, *file, *text;
    unsigned line;
} html_step_info;

#define HTML_MAX_LANE_STEPS 500 /* the last steps of a long witness */

/* The first step drawn of s: the last HTML_MAX_LANE_STEPS are. */
uint32_t html_lanes_from(const ft_schedule *s);
/* s as swimlanes: a row per step in witness order, a column per thread
 * (in order of first appearance), the violating accesses marked.  info
 * (may be NULL) is indexed from html_lanes_from(s). */
void html_lanes(FILE *o, const ft_schedule *s, const html_step_info *info);

#endif

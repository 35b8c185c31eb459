/* SPDX-License-Identifier: MIT */
/* batch_html.c - `foretell batch report --html DIR`: one static page,
 * DIR/index.html, readable without a server or scripts: the totals, a
 * table of findings by kind, then the findings of each kind, most traces
 * first, each opening (<details>) on the interleaving of its witness as
 * swimlanes, one column per thread, the violating accesses marked; and
 * the traces with their status. */
#include "cli/batch_cmd.h"
#include "cli/html.h"

#include <inttypes.h>
#include <string.h>

static void esc(FILE *o, const char *s)
{
    html_text(o, s);
}

static void totals(FILE *o, const fb_totals *tp)
{
    fb_totals t = *tp;
    fprintf(o, "<p>%" PRIu64 " traces (", t.traces);
    int first = 1;
    for (int k = 0; k < FB_NSTATUS; k++)
        if (t.by_status[k]) {
            fprintf(o, "%s%" PRIu64 " %s", first ? "" : ", ", t.by_status[k],
                    fb_status_name(k));
            first = 0;
        }
    fprintf(o, "): <b>%" PRIu64 " findings</b> in %" PRIu64
               " occurrences (%" PRIu64 " dynamic instances), %" PRIu64
               " confirmed by replay.</p>\n",
            t.findings, t.occurrences, t.instances, t.confirmed);
}

/* Whether rows[i] is the first of its kind (kinds in order of first
 * appearance: the one of the most traces first). */
static int first_of_kind(const fb_finding_row *rows, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (!strcmp(rows[k].kind, rows[i].kind))
            return 0;
    return 1;
}

static void kind_table(FILE *o, const fb_finding_row *f, size_t n)
{
    fputs("<h2>Findings by kind</h2>\n<table><tr><th>kind</th>"
          "<th>findings</th><th>traces</th><th>instances</th></tr>\n",
          o);
    for (size_t i = 0; i < n; i++) {
        if (!first_of_kind(f, i))
            continue;
        uint64_t nf = 0, tr = 0, in = 0;
        for (size_t k = i; k < n; k++)
            if (!strcmp(f[k].kind, f[i].kind)) {
                nf++;
                tr += f[k].traces;
                in += f[k].instances;
            }
        fputs("<tr><td><a href=\"#kind-", o);
        esc(o, f[i].kind);
        fputs("\">", o);
        esc(o, f[i].kind);
        fprintf(o, "</a></td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">"
                   "%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                nf, tr, in);
    }
    fputs("</table>\n", o);
}

/* The witness as swimlanes: a row per step, a column per thread. */
static void lanes(FILE *o, const char *witness)
{
    ft_schedule s;
    if (batch_witness_parse(witness, &s) < 0 || s.nsteps == 0)
        fputs("<p>(no witness interleaving stored)</p>\n", o);
    else
        html_lanes(o, &s, NULL);
    ft_schedule_free(&s);
}

static void finding(FILE *o, const fb_finding_row *f,
                    const batch_baseline *bl)
{
    const fb_event_row *p = NULL;
    for (uint32_t e = 0; e < f->nevents && !p; e++)
        if (f->events[e].key)
            p = &f->events[e];
    fputs("<details id=\"f-", o);
    esc(o, f->fingerprint);
    fputs("\"><summary><span class=\"loc\">", o);
    if (p) {
        char loc[600];
        snprintf(loc, sizeof loc, "%.500s:%u",
                 p->file[0] ? p->file : "?", p->line);
        esc(o, loc);
    }
    fputs("</span> ", o);
    esc(o, f->message);
    fprintf(o, " &mdash; %" PRIu64 " trace%s, %" PRIu64 " instance%s",
            f->traces, f->traces == 1 ? "" : "s", f->instances,
            f->instances == 1 ? "" : "s");
    if (f->confirm_status) {
        fputs(" <span class=\"confirmed\">", o);
        esc(o, f->confirm_status);
        if (f->confirm_failure) {
            fputs(": ", o);
            esc(o, f->confirm_failure);
        }
        fputs("</span>", o);
    }
    const char *state = batch_baseline_state(bl, f->fingerprint);
    if (state && !strcmp(state, "new"))
        fputs(" <span class=\"new\">new</span>", o);
    fputs("</summary>\n<p>fingerprint <code>", o);
    esc(o, f->fingerprint);
    fputs("</code>; first witness from <code>", o);
    esc(o, f->trace_path);
    fputs("</code></p>\n<table><tr><th>event</th><th>thread</th><th>site"
          "</th><th>source</th></tr>\n",
          o);
    for (uint32_t e = 0; e < f->nevents; e++) {
        const fb_event_row *x = &f->events[e];
        char loc[700];
        snprintf(loc, sizeof loc, "%.300s:%u (%.300s)",
                 x->file[0] ? x->file : "?", x->line,
                 x->function[0] ? x->function : "?");
        fputs("<tr><td>", o);
        esc(o, x->role);
        fputs(" ", o);
        esc(o, x->kind);
        fprintf(o, "</td><td class=\"n\">%u</td><td class=\"loc\">", x->tid);
        esc(o, loc);
        fputs("</td><td><code>", o);
        esc(o, x->text ? x->text : "");
        fputs("</code></td></tr>\n", o);
    }
    fputs("</table>\n", o);
    lanes(o, f->witness);
    fputs("</details>\n", o);
}

static void trace_table(FILE *o, const fb_trace_row *t, size_t n)
{
    fputs("<h2>Traces</h2>\n<table><tr><th>trace</th><th>status</th>"
          "<th>events</th><th>findings</th><th>seconds</th></tr>\n",
          o);
    for (size_t i = 0; i < n; i++) {
        fputs("<tr><td class=\"loc\">", o);
        esc(o, t[i].path);
        fputs("</td><td>", o);
        esc(o, t[i].status);
        if (t[i].message) {
            fputs(": ", o);
            esc(o, t[i].message);
        }
        fprintf(o, "</td><td class=\"n\">%" PRIu64 "</td><td>", t[i].events);
        for (uint32_t k = 0; k < t[i].nocc; k++) {
            fputs("<a href=\"#f-", o);
            esc(o, t[i].occ[k].fingerprint);
            fputs("\">", o);
            esc(o, t[i].occ[k].kind);
            fputs("</a> ", o);
        }
        fprintf(o, "</td><td class=\"n\">%.2f</td></tr>\n", t[i].seconds);
    }
    fputs("</table>\n", o);
}

int batch_write_html(const char *dir, const fb_totals *t,
                     const fb_finding_row *rows, size_t n,
                     const fb_trace_row *traces, size_t ntraces,
                     const batch_baseline *bl)
{
    html_page p;
    FILE *o = html_page_open(&p, dir, "foretell batch report");
    if (!o)
        return -1;
    totals(o, t);
    kind_table(o, rows, n);
    for (size_t i = 0; i < n; i++) {
        if (!first_of_kind(rows, i))
            continue;
        fputs("<h2 id=\"kind-", o);
        esc(o, rows[i].kind);
        fputs("\">", o);
        esc(o, rows[i].kind);
        fputs("</h2>\n", o);
        for (size_t k = i; k < n; k++)
            if (!strcmp(rows[k].kind, rows[i].kind))
                finding(o, &rows[k], bl);
    }
    trace_table(o, traces, ntraces);
    return html_page_close(&p, 0);
}

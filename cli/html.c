/* SPDX-License-Identifier: MIT */
/* html.c - the pieces of the static HTML pages both reports draw with
 * (html.h): escaping, the page frame and its style sheet, the file
 * written safely, and the swimlanes of a witness. */
#include "cli/html.h"
#include "cli/json.h"
#include "recorder/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One style sheet for both pages: inline, so a page is one file. */
static const char css[] =
    "body{font:14px/1.4 sans-serif;margin:2em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;"
    "vertical-align:top}th{background:#f0f0f0}"
    "td.n{text-align:right}"
    "details,section.finding{margin:.3em 0;border:1px solid #ddd;"
    "padding:.3em .6em}"
    "summary{cursor:pointer}"
    ".kind{font-weight:bold}.loc{font-family:monospace}"
    ".new{color:#b00;font-weight:bold}.confirmed{color:#060}"
    ".bug{color:#b00;font-weight:bold}.note{color:#666}"
    "table.lanes td{font-family:monospace;font-size:12px;min-width:12em}"
    "table.lanes td.step{background:#eef4ff}"
    "table.lanes td.mark{background:#ffd0d0;font-weight:bold}"
    "table.lanes .fn{color:#555}"
    "pre.src{margin:2px 0;white-space:pre-wrap;background:#fafafa}"
    "code{font-size:12px}";

void html_text(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t len = ft_utf8_len(p + i, n - i);
        if (len == 0 || (c < 0x20 && c != '\n' && c != '\t')) {
            fputs("\xef\xbf\xbd", out);
            i += len ? len : 1;
            continue;
        }
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\'')
            fputs("&#39;", out);
        else
            fwrite(p + i, 1, len, out);
        i += len;
    }
}

FILE *html_page_open(html_page *p, const char *dir, const char *title)
{
    struct stat st;
    p->f = NULL;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: error: cannot create the directory: %s\n", dir,
                strerror(errno));
        return NULL;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: not a directory (the HTML report is "
                        "written as DIR/index.html)\n", dir);
        return NULL;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: error: the directory is not writable: %s\n",
                dir, strerror(errno));
        return NULL;
    }
    snprintf(p->path, sizeof p->path, "%.4000s/index.html", dir);
    p->f = ft_out_fopen(p->path, p->tmp, sizeof p->tmp);
    if (!p->f) {
        fprintf(stderr, "%s: error: cannot write: %s\n", p->path,
                strerror(errno));
        return NULL;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>", p->f);
    html_text(p->f, title);
    fprintf(p->f, "</title><style>%s</style></head><body>\n<h1>", css);
    html_text(p->f, title);
    fputs("</h1>\n", p->f);
    return p->f;
}

int html_page_close(html_page *p, int failed)
{
    if (!p->f)
        return -1;
    fputs("</body></html>\n", p->f);
    if (failed) {
        fclose(p->f);
        unlink(p->tmp);
        p->f = NULL;
        return -1;
    }
    int rc = ft_out_fclose(p->f, p->tmp, p->path);
    p->f = NULL;
    if (rc < 0)
        fprintf(stderr, "%s: error: cannot write: %s\n", p->path,
                strerror(errno));
    return rc;
}

uint32_t html_lanes_from(const ft_schedule *s)
{
    return s->nsteps > HTML_MAX_LANE_STEPS
               ? s->nsteps - HTML_MAX_LANE_STEPS
               : 0;
}

/* One step's cell: kind, where (the trace's file:line and function when
 * known, else the schedule's site), the source line. */
static void lane_cell(FILE *o, const ft_sched_step *st,
                      const html_step_info *in)
{
    fprintf(o, "<td class=\"%s\">%s", st->mark ? "step mark" : "step",
            st->mark ? "! " : "");
    html_text(o, st->kind);
    fputs("<br><span class=\"loc\">", o);
    if (in && in->file) {
        char loc[600];
        snprintf(loc, sizeof loc, "%.500s:%u", in->file, in->line);
        html_text(o, loc);
    } else {
        html_text(o, st->site);
    }
    fputs("</span>", o);
    if (in && in->function) {
        fputs(" <span class=\"fn\">", o);
        html_text(o, in->function);
        fputs("</span>", o);
    }
    if (in && in->text) {
        fputs("<pre class=\"src\">", o);
        html_text(o, in->text);
        fputs("</pre>", o);
    }
    fputs("</td>", o);
}

void html_lanes(FILE *o, const ft_schedule *s, const html_step_info *info)
{
    uint32_t from = html_lanes_from(s);
    uint32_t *tid = calloc(s->nsteps - from + 1, sizeof *tid), nt = 0;
    if (!tid) {
        fputs("<p>(out of memory drawing the interleaving)</p>\n", o);
        return;
    }
    for (uint32_t i = from; i < s->nsteps; i++) {
        uint32_t k = 0;
        while (k < nt && tid[k] != s->steps[i].tid)
            k++;
        if (k == nt)
            tid[nt++] = s->steps[i].tid;
    }
    if (from)
        fprintf(o, "<p>the last %u of %u steps (the first ones replay the "
                   "recorded run)</p>\n",
                s->nsteps - from, s->nsteps);
    fputs("<table class=\"lanes\"><tr><th>step</th>", o);
    for (uint32_t k = 0; k < nt; k++)
        fprintf(o, "<th class=\"lane\" data-tid=\"%u\">thread %u</th>",
                tid[k], tid[k]);
    fputs("</tr>\n", o);
    for (uint32_t i = from; i < s->nsteps; i++) {
        const ft_sched_step *st = &s->steps[i];
        fprintf(o, "<tr data-step=\"%u\" data-tid=\"%u\"><td class=\"n\">"
                   "%u</td>",
                i + 1, st->tid, i + 1);
        for (uint32_t k = 0; k < nt; k++) {
            if (tid[k] != st->tid)
                fputs("<td></td>", o);
            else
                lane_cell(o, st, info ? &info[i - from] : NULL);
        }
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
    free(tid);
}

/* SPDX-License-Identifier: MIT */
/* cmd_report.c - `foretell report --html DIR INPUT`: one analysis or one
 * exploration as a static page, DIR/index.html.  INPUT is the output
 * directory of `foretell analyze -o OUT` or `foretell explore -o OUT`
 * (both write OUT/report.json, the document --json prints) or such a JSON
 * file itself.  This file reads that document, finds the files it names
 * (schedules, traces: as written, else beside the document, since an
 * output directory may have been moved), and maps each witness step to
 * its trace event for file:line, function and source line; report_html.c
 * draws the page. */
#include "cli/commands.h"
#include "cli/opt.h"
#include "cli/report_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const ft_opt report_opts[] = {
    {"html", 0, "DIR", "write the report as DIR/index.html (DIR is created "
                       "if absent)"},
    {NULL, 0, NULL, NULL},
};

static const char usage_line[] = "foretell report --html DIR INPUT";
static const char about[] =
    "Draws one analysis or exploration as a static HTML page, DIR/index.html\n"
    "(no server, no scripts): each finding, surest first (confirmed by\n"
    "replay, then predicted), with its message, the conflicting accesses and\n"
    "the witness interleaving as swimlanes, one column per thread, each step\n"
    "with file:line, function and source line.  INPUT is the output\n"
    "directory of 'foretell analyze -o OUT' or 'foretell explore -o OUT'\n"
    "(it reads OUT/report.json), or a JSON document they wrote (--json).\n"
    "Exit 0 when the page is written, 2 on bad input, 4 when it cannot be\n"
    "written.";

/* ---- finding the files a report names -------------------------------- */

const char *report_resolve(const report_doc *d, const char *path, char *buf,
                           size_t len)
{
    if (!path || !path[0])
        return NULL;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return path;
    /* moved with its directory: the same name beside the document */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, len, "%s/%s", d->dir, base);
    if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
        return buf;
    return NULL;
}

int report_load_schedule(const char *path, ft_schedule *s, char *why,
                         size_t len)
{
    memset(s, 0, sizeof *s);
    uint64_t size;
    int fd = ft_open_regular(path, &size, why, len);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(why, len, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    int rc = ft_schedule_read(f, path, s, why, len);
    fclose(f);
    return rc;
}

/* ---- steps to trace events ------------------------------------------- */

typedef struct want_step {
    uint32_t tid;
    uint64_t tindex;
    uint32_t pos; /* into the drawn steps */
} want_step;

static int want_cmp(const void *a, const void *b)
{
    const want_step *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->tindex > y->tindex) - (x->tindex < y->tindex);
}

/* The site of each drawn step of s (at site[i - from]) and of each event
 * gidx[k] (gsite[k]), in one pass over r.  Steps name events by thread
 * and per-thread index (docs/schedule-format.md), events by global
 * index.  0, or -1 out of memory. */
static int scan(ft_reader *r, const ft_schedule *s, uint32_t from,
                uint32_t *site, const uint64_t *gidx, uint32_t *gsite,
                uint32_t ng)
{
    uint32_t n = s ? s->nsteps - from : 0;
    want_step *w = calloc(n + 1, sizeof *w);
    uint32_t *head = calloc(FT_TRACE_MAX_THREADS + 1, sizeof *head);
    uint64_t *count = calloc(FT_TRACE_MAX_THREADS, sizeof *count);
    if (!w || !head || !count) {
        free(w);
        free(head);
        free(count);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        w[i] = (want_step){s->steps[from + i].tid, s->steps[from + i].tindex,
                           i};
    qsort(w, n, sizeof *w, want_cmp);
    /* head[t]: the first wanted step of thread t not yet met */
    for (uint32_t t = 0, i = 0; t <= FT_TRACE_MAX_THREADS; t++) {
        while (i < n && w[i].tid < t)
            i++;
        head[t] = i;
    }
    ft_reader_rewind(r);
    ft_event ev;
    while (ft_reader_next(r, &ev) > 0) {
        for (uint32_t k = 0; k < ng; k++)
            if (gidx[k] == ev.index)
                gsite[k] = ev.site;
        if (ev.tid >= FT_TRACE_MAX_THREADS)
            continue;
        uint64_t c = count[ev.tid]++;
        uint32_t *h = &head[ev.tid];
        while (*h < n && w[*h].tid == ev.tid && w[*h].tindex <= c) {
            if (w[*h].tindex == c)
                site[w[*h].pos] = ev.site;
            (*h)++;
        }
    }
    free(w);
    free(head);
    free(count);
    return 0;
}

/* A site's place and text, copied into t: the trace's SOURCE line, else
 * the source file read now (when it is still where it was built). */
static void site_info(report_ctx *c, const ft_reader *r, uint32_t id,
                      html_step_info *in, report_site_text *t)
{
    const ft_site *st = id ? ft_reader_site(r, id) : NULL;
    memset(in, 0, sizeof *in);
    if (!st)
        return;
    if (st->function) {
        snprintf(t->function, sizeof t->function, "%s", st->function);
        in->function = t->function;
    }
    if (st->file) {
        snprintf(t->file, sizeof t->file, "%s", st->file);
        in->file = t->file;
    }
    in->line = st->line;
    if (st->text && st->text[0]) {
        snprintf(t->text, sizeof t->text, "%s", st->text);
        in->text = t->text;
    } else if (st->file && st->line && c->sources &&
               ft_source_line(c->sources, st->file, st->line, t->text,
                              sizeof t->text) == 1) {
        in->text = t->text;
    }
}

/* The reader of trace path, kept open for the next finding of the same
 * trace; NULL with why when it cannot be read. */
static ft_reader *trace_reader(report_ctx *c, const char *path, char *why,
                               size_t len)
{
    if (c->reader && !strcmp(c->reader_path, path))
        return c->reader;
    if (c->reader)
        ft_reader_close(c->reader);
    c->reader = NULL;
    ft_error err;
    c->reader = ft_reader_open(path, &err);
    if (!c->reader) {
        snprintf(why, len, "%s", err.message);
        return NULL;
    }
    snprintf(c->reader_path, sizeof c->reader_path, "%s", path);
    return c->reader;
}

int report_map(report_ctx *c, const char *trace, report_witness *w,
               const uint64_t *gidx, report_access *acc, uint32_t ng)
{
    uint32_t from = w && w->loaded ? html_lanes_from(&w->s) : 0;
    uint32_t n = w && w->loaded ? w->s.nsteps - from : 0;
    char why[300];
    ft_reader *r = trace ? trace_reader(c, trace, why, sizeof why) : NULL;
    if (!r) {
        if (w && trace)
            snprintf(w->note, sizeof w->note, "%s: %s", trace, why);
        return 0;
    }
    uint32_t *site = calloc(n + 1, sizeof *site);
    uint32_t *gsite = calloc(ng + 1, sizeof *gsite);
    if (w && n) {
        w->info = calloc(n, sizeof *w->info);
        w->text = calloc(n, sizeof *w->text);
    }
    if (!site || !gsite || (w && n && (!w->info || !w->text)) ||
        scan(r, w && w->loaded ? &w->s : NULL, from, site, gidx, gsite,
             ng) < 0) {
        free(site);
        free(gsite);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        site_info(c, r, site[i], &w->info[i], &w->text[i]);
    for (uint32_t k = 0; k < ng; k++)
        site_info(c, r, gsite[k], &acc[k].info, &acc[k].text);
    if (w)
        snprintf(w->mapped, sizeof w->mapped, "%s", trace);
    free(site);
    free(gsite);
    return 0;
}

void report_witness_free(report_witness *w)
{
    if (w->loaded)
        ft_schedule_free(&w->s);
    free(w->info);
    free(w->text);
    memset(w, 0, sizeof *w);
}

/* ---- the input document ---------------------------------------------- */

/* INPUT as a document: a directory's report.json, or the file. */
static int load_doc(const char *input, report_doc *d)
{
    struct stat st;
    char path[4200];
    if (stat(input, &st) != 0) {
        fprintf(stderr, "%s: error: %s\n", input, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(path, sizeof path, "%.4000s/report.json", input);
        snprintf(d->dir, sizeof d->dir, "%.4000s", input);
        if (stat(path, &st) != 0) {
            fprintf(stderr, "%s: error: no report.json here (foretell "
                            "analyze -o DIR and foretell explore -o DIR "
                            "write one)\n", input);
            return -1;
        }
    } else {
        snprintf(path, sizeof path, "%.4000s", input);
        const char *slash = strrchr(input, '/');
        if (slash)
            snprintf(d->dir, sizeof d->dir, "%.*s",
                     (int)(slash > input ? slash - input : 1), input);
        else
            snprintf(d->dir, sizeof d->dir, ".");
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    char why[300];
    uint64_t size;
    int fd = ft_open_regular(path, &size, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "%s: error: %s\n", path, why);
        return -1;
    }
    json_error_t je;
    /* one document: a JSON Lines file's first line is not the report */
    d->root = json_loadfd(fd, 0, &je);
    close(fd);
    if (!d->root) {
        fprintf(stderr, "%s:%d: error: not a JSON document: %s\n", path,
                je.line, je.text);
        return -1;
    }
    if (!json_is_object(d->root)) {
        fprintf(stderr, "%s: error: not a foretell report (a JSON object "
                        "is expected)\n", path);
        return -1;
    }
    if (json_is_array(json_object_get(d->root, "bugs")) &&
        json_object_get(d->root, "strategy"))
        d->explore = 1;
    else if (!json_is_array(json_object_get(d->root, "findings"))) {
        fprintf(stderr, "%s: error: not the report of foretell analyze or "
                        "foretell explore (no \"findings\" or \"bugs\")\n",
                path);
        return -1;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell report", argc, argv);
    const char *html = NULL, *input = NULL, *v;
    int k;
    while ((k = ft_opt_next(&p, report_opts, &v)) != FT_OPT_END) {
        if (k == FT_OPT_HELP) {
            ft_opt_usage(stdout, usage_line, about, report_opts);
            return FT_EXIT_OK;
        }
        if (k == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (k == 0) {
            html = v;
            continue;
        }
        if (k == FT_OPT_DASHDASH) {
            if (p.i >= p.argc)
                continue;
            v = p.argv[p.i++];
        }
        if (input) {
            fprintf(stderr, "foretell report: unexpected argument '%s'\n", v);
            return FT_EXIT_BAD_INPUT;
        }
        input = v;
    }
    if (!input || !html) {
        fprintf(stderr, "foretell report: missing %s (usage: %s)\n",
                !input ? "INPUT" : "--html DIR", usage_line);
        return FT_EXIT_BAD_INPUT;
    }
    if (!html[0]) {
        fprintf(stderr, "foretell report: --html: empty directory name\n");
        return FT_EXIT_BAD_INPUT;
    }
    report_doc d;
    memset(&d, 0, sizeof d);
    if (load_doc(input, &d) < 0) {
        if (d.root)
            json_decref(d.root);
        return FT_EXIT_BAD_INPUT;
    }
    report_ctx c;
    memset(&c, 0, sizeof c);
    c.doc = &d;
    c.sources = ft_source_cache_new();
    html_page page;
    int rc = FT_EXIT_OK;
    FILE *o = html_page_open(&page, html, d.explore ? "foretell exploration "
                                                      "report"
                                                    : "foretell analysis "
                                                      "report");
    if (!o)
        rc = FT_EXIT_BAD_INPUT;
    else {
        int bad = report_write_html(o, &c) < 0;
        if (html_page_close(&page, bad) < 0)
            rc = FT_EXIT_INTERNAL;
        else
            printf("%s/index.html\n", html);
    }
    if (c.reader)
        ft_reader_close(c.reader);
    ft_source_cache_free(c.sources);
    json_decref(d.root);
    return rc;
}

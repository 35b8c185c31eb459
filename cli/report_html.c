/* SPDX-License-Identifier: MIT */
/* report_html.c - the page of `foretell report --html`: what was analysed
 * or explored, then one section per finding, surest first (confirmed by
 * replay, reached, predicted, not reproduced, spurious), each with its
 * message, the events it names (thread, operation, file:line, function,
 * source line, locks held, call stack) and its witness interleaving as
 * swimlanes (html.c).  The witness drawn is the run that shows the bug
 * best: the failing run's schedule when a replay's random tail made the
 * program fail (mapped to that run's trace, *.tail.ftrace), else the
 * predicted schedule mapped to the recorded trace.  Everything taken from
 * the document or a trace is escaped: names in a trace are the recorded
 * program's, and a hostile program chooses them. */
#include "cli/report_cmd.h"
#include "predict/kind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { T_KIND, T_ATOMICITY, T_EXPLORED };

/* events of a finding looked up and shown: as many as analyze describes */
#define REPORT_MAX_EVENTS FT_KEVENTS_MAX

typedef struct item {
    json_t *obj;
    int type, rank;
    size_t order;
} item;

static const char *jstr(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint64_t jval(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) > 0
               ? (uint64_t)json_integer_value(v)
               : 0;
}

static uint64_t juint(const json_t *o, const char *key)
{
    return jval(json_object_get(o, key));
}

static void esc(FILE *o, const char *s)
{
    html_text(o, s);
}

/* before, text escaped, after; nothing when text is NULL (a member the
 * document does not have). */
static void field(FILE *o, const char *before, const char *text,
                  const char *after)
{
    if (!text)
        return;
    fputs(before, o);
    esc(o, text);
    fputs(after, o);
}

/* How sure a finding is: 0 shown by a replay, 1 reached, 2 predicted,
 * 3 not reproduced, 4 the replay departed from it. */
static int rank_of(const json_t *x, int type)
{
    static const char *const kind_status[] = {"bug", "reached", "predicted",
                                              "not_reproduced", "spurious"};
    if (type == T_EXPLORED)
        return 0; /* every explored bug is a run that failed */
    if (type == T_KIND) {
        const char *s = jstr(x, "status");
        for (int k = 0; s && k < 5; k++)
            if (!strcmp(s, kind_status[k]))
                return k;
        return 2;
    }
    const char *s = jstr(json_object_get(x, "confirmation"), "status");
    if (!s || !strcmp(s, "not_run"))
        return 2;
    if (!strcmp(s, "confirmed") || !strcmp(s, "refined") ||
        !strcmp(s, "failed_early"))
        return 0;
    return !strcmp(s, "not_reproduced") ? 3 : 4;
}

static int item_cmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return (x->order > y->order) - (x->order < y->order);
}

static const char *const rank_label[] = {
    "confirmed by replay", "reached on replay; the program did not fail",
    "predicted, not replayed", "not reproduced on replay",
    "not confirmed: the replay departed from the witness"};

static void summary(FILE *o, const report_doc *d, size_t nitems)
{
    const json_t *r = d->root;
    fputs("<p>", o);
    if (d->explore) {
        fputs("Exploration with strategy <code>", o);
        esc(o, jstr(r, "strategy"));
        fprintf(o, "</code>: %" PRIu64 " schedules run, ",
                juint(r, "schedules_run"));
    } else {
        fputs("Analysis of <code>", o);
        esc(o, jstr(r, "trace"));
        fputs("</code>: ", o);
    }
    fprintf(o, "<b>%zu finding%s</b>", nitems, nitems == 1 ? "" : "s");
    if (!d->explore) {
        uint64_t obs = json_array_size(json_object_get(r, "observed_"
                                                          "violations"));
        uint64_t mis = json_array_size(json_object_get(r, "misuse"));
        if (obs)
            fprintf(o, "; %" PRIu64 " atomicity violation%s observed in the "
                       "recorded run itself",
                    obs, obs == 1 ? "" : "s");
        if (mis)
            fprintf(o, "; %" PRIu64 " API misuse observed", mis);
        field(o, "; not replayed: ", jstr(r, "unconfirmed"), "");
        /* undecided is not clean: say what --time left open */
        uint64_t open = juint(r, "unknown") + juint(r, "not_solved");
        if (open)
            fprintf(o, "; <b>%" PRIu64 " propert%s undecided</b> (unknown "
                       "or not solved within --time)",
                    open, open == 1 ? "y" : "ies");
    }
    fputs(".</p>\n", o);
    field(o, "<p><b>The analysis stopped early:</b> ", jstr(r, "error"),
          "</p>\n");
    fputs("<p class=\"note\">From <code>", o);
    esc(o, d->path);
    fputs("</code>.</p>\n", o);
}

/* The events a kind finding names, with their source lines. */
static void events_table(FILE *o, const json_t *events,
                         const report_access *acc, uint32_t ng)
{
    fputs("<table class=\"events\"><tr><th>event</th><th>thread</th>"
          "<th>operation</th><th>where</th><th>source</th>"
          "<th>locks held</th><th>call stack</th></tr>\n",
          o);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (i >= ng)
            break;
        const html_step_info *in = &acc[i].info;
        fputs("<tr class=\"access\"><td>", o);
        esc(o, jstr(e, "role"));
        fprintf(o, "</td><td class=\"n\">%" PRIu64 "</td><td>",
                juint(e, "thread"));
        esc(o, jstr(e, "op"));
        field(o, " <code>", jstr(e, "object"), "</code>");
        fputs("</td><td class=\"loc\">", o);
        esc(o, jstr(e, "site"));
        field(o, " <span class=\"fn\">", in->function, "</span>");
        fputs("</td><td><pre class=\"src\">", o);
        esc(o, in->text);
        fputs("</pre></td><td>", o);
        esc(o, jstr(e, "locks_held"));
        fputs("</td><td class=\"loc\">", o);
        size_t d;
        json_t *f;
        json_array_foreach(json_object_get(e, "stack"), d, f)
        {
            fprintf(o, "%s#%zu ", d ? "<br>" : "", d);
            esc(o, jstr(f, "function"));
            fputs(" ", o);
            esc(o, jstr(f, "site"));
        }
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

/* A region's "file:lo-hi". */
static void region_lines(FILE *o, const json_t *r)
{
    json_t *lines = json_object_get(r, "lines");
    char loc[600];
    snprintf(loc, sizeof loc, "%.500s:%" PRIu64 "-%" PRIu64,
             jstr(r, "file") ? jstr(r, "file") : "?",
             jval(json_array_get(lines, 0)), jval(json_array_get(lines, 1)));
    esc(o, loc);
}

static void regions_table(FILE *o, const json_t *x)
{
    fputs("<table class=\"regions\"><tr><th>region</th><th>thread</th>"
          "<th>function</th><th>lines</th><th>from</th><th>to</th></tr>\n",
          o);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(x, "regions"), i, r)
    {
        fprintf(o, "<tr><td>R%" PRIu64 "</td><td class=\"n\">%" PRIu64
                   "</td><td>",
                juint(r, "region"), juint(r, "thread"));
        esc(o, jstr(r, "function"));
        fputs("</td><td class=\"loc\">", o);
        region_lines(o, r);
        fputs("</td><td class=\"loc\">", o);
        esc(o, jstr(r, "begin"));
        fputs("</td><td class=\"loc\">", o);
        esc(o, jstr(r, "end"));
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n<p>variables:", o);
    json_t *v;
    json_array_foreach(json_object_get(x, "variables"), i, v)
    {
        fputs(" <code>", o);
        esc(o, json_is_string(v) ? json_string_value(v) : "?");
        fputs("</code>", o);
    }
    fputs("</p>\n", o);
}

/* What the replay of a prediction showed. */
static void confirmation(FILE *o, const json_t *c)
{
    if (!c)
        return;
    field(o, "<p>replay: <b>", jstr(c, "status"), "</b>");
    if (jstr(c, "failure")) {
        field(o, ", the program failed: ", jstr(c, "failure"), "");
        field(o, " at <span class=\"loc\">", jstr(c, "failure_site"),
              "</span>");
    }
    field(o, " (after the witness, under tail <code>", jstr(c, "tail"),
          "</code>)");
    field(o, "; diverged: ", jstr(c, "divergence"), "");
    fputs("</p>\n", o);
    field(o, "<pre class=\"src\">", jstr(c, "detail"), "</pre>\n");
}

/* The witness of a finding: schedule sched_path, its steps found in
 * trace_path; the finding's events (gidx) are looked up in the recorded
 * trace.  0, or -1 out of memory. */
static int witness_load(report_ctx *c, report_witness *w, char *sp,
                        const char *sched_path, const char *trace_path,
                        const char *recorded, const uint64_t *gidx,
                        report_access *acc, uint32_t ng)
{
    char tbuf[4200], rbuf[4200], why[600];
    memset(w, 0, sizeof *w);
    const char *s = report_resolve(c->doc, sched_path, sp, 4200);
    const char *tp = report_resolve(c->doc, trace_path, tbuf, sizeof tbuf);
    const char *rp = report_resolve(c->doc, recorded, rbuf, sizeof rbuf);
    if (s != sp && s)
        snprintf(sp, 4200, "%s", s);
    if (!sched_path)
        snprintf(w->note, sizeof w->note, "no schedule was written");
    else if (!s)
        snprintf(w->note, sizeof w->note, "%s: not found", sched_path);
    else if (report_load_schedule(sp, &w->s, why, sizeof why) < 0)
        snprintf(w->note, sizeof w->note, "%s", why);
    else
        w->loaded = 1;
    if (trace_path && !tp && w->loaded)
        snprintf(w->note, sizeof w->note, "%s: not found; steps without "
                 "source lines", trace_path);
    int same = rp && tp && !strcmp(rp, tp);
    if (ng && rp && !same && report_map(c, rp, NULL, gidx, acc, ng) < 0)
        return -1;
    if (tp && report_map(c, tp, w, gidx, acc, same ? ng : 0) < 0)
        return -1;
    return 0;
}

static void witness_draw(FILE *o, const report_witness *w, const char *sp)
{
    fputs("<h3>Witness interleaving</h3>\n<p class=\"note\">", o);
    if (w->loaded) {
        fprintf(o, "%u step%s from <code>", w->s.nsteps,
                w->s.nsteps == 1 ? "" : "s");
        esc(o, sp);
        fputs("</code>", o);
        field(o, ", source lines from <code>",
              w->mapped[0] ? w->mapped : NULL, "</code>");
        fputs(".", o);
    }
    if (w->note[0]) {
        fputs(" ", o);
        esc(o, w->note);
    }
    fputs("</p>\n", o);
    if (w->loaded && w->s.nsteps)
        html_lanes(o, &w->s, w->info);
}

/* One finding's section.  0, or -1 out of memory. */
static int section(FILE *o, report_ctx *c, const item *it, size_t n)
{
    const json_t *x = it->obj;
    const json_t *conf = json_object_get(x, "confirmation");
    const char *kind = it->type == T_EXPLORED ? jstr(x, "failure")
                                              : jstr(x, "kind");
    fprintf(o, "<section class=\"finding\" id=\"finding-%zu\" "
               "data-rank=\"%d\"><h2>%zu. <span class=\"kind\">",
            n, it->rank, n);
    esc(o, kind ? kind : "?");
    fprintf(o, "</span> &mdash; <span class=\"%s\">%s</span></h2>\n",
            it->rank == 0 ? "bug" : "note",
            it->type == T_EXPLORED ? "the explored run failed"
                                   : rank_label[it->rank]);
    fputs("<p class=\"msg\">", o);
    if (it->type == T_KIND) {
        esc(o, jstr(x, "message"));
        uint64_t inst = juint(x, "instances");
        if (inst > 1)
            fprintf(o, " (%" PRIu64 " dynamic instances)", inst);
    } else if (it->type == T_ATOMICITY) {
        fputs("atomicity violation (", o);
        esc(o, kind);
        fputs("): another thread's accesses can come between the accesses "
              "of a region that the recorded run kept together", o);
    } else {
        esc(o, jstr(x, "detail") ? jstr(x, "detail") : kind);
        field(o, " at <span class=\"loc\">", jstr(x, "site"), "</span>");
    }
    fputs("</p>\n", o);
    /* the witness drawn: the run that failed, else the prediction */
    const char *sched = jstr(x, "schedule"), *trace = jstr(c->doc->root,
                                                           "trace");
    const char *recorded = trace;
    if (it->type == T_EXPLORED) {
        trace = recorded = jstr(x, "trace");
    } else if (conf && jstr(conf, "failing_schedule") &&
               jstr(conf, "replay_trace")) {
        sched = jstr(conf, "failing_schedule");
        trace = jstr(conf, "replay_trace");
    }
    json_t *events = json_object_get(x, "events");
    /* a document naming more events than analyze writes is not its:
     * each is compared with every event of the trace */
    size_t nev = json_array_size(events);
    uint32_t ng = nev > REPORT_MAX_EVENTS ? REPORT_MAX_EVENTS : (uint32_t)nev;
    uint64_t *gidx = calloc(ng + 1, sizeof *gidx);
    report_access *acc = calloc(ng + 1, sizeof *acc);
    char sp[4200] = "";
    report_witness w;
    memset(&w, 0, sizeof w);
    int rc = -1;
    if (gidx && acc) {
        for (uint32_t k = 0; k < ng; k++)
            gidx[k] = juint(json_array_get(events, k), "event");
        rc = witness_load(c, &w, sp, sched, trace, recorded, gidx, acc, ng);
    }
    if (rc == 0) {
        if (ng)
            events_table(o, events, acc, ng);
        if (it->type == T_ATOMICITY)
            regions_table(o, x);
        if (it->type == T_EXPLORED)
            field(o, "<p>reproduce: <code>FORETELL_STRATEGY='",
                  jstr(x, "strategy_spec"), "'</code></p>\n");
        confirmation(o, conf);
        witness_draw(o, &w, sp);
        fputs("</section>\n", o);
    }
    report_witness_free(&w);
    free(gidx);
    free(acc);
    return rc;
}

/* What the recorded run itself showed (no witness to draw: the run is
 * its own): atomicity violations observed and API misuse. */
static void observed(FILE *o, const json_t *r)
{
    json_t *obs = json_object_get(r, "observed_violations");
    json_t *mis = json_object_get(r, "misuse");
    if (!json_array_size(obs) && !json_array_size(mis))
        return;
    fputs("<h2>Observed in the recorded run</h2>\n<table class=\"observed\">"
          "<tr><th>what</th><th>thread</th><th>where</th><th>events</th>"
          "</tr>\n",
          o);
    size_t i;
    json_t *x;
    json_array_foreach(obs, i, x)
    {
        fprintf(o, "<tr><td>atomicity violation of region R%" PRIu64
                   "</td><td class=\"n\">%" PRIu64 "</td><td class=\"loc\">",
                juint(x, "region"), juint(x, "thread"));
        esc(o, jstr(x, "function"));
        fputs(" ", o);
        region_lines(o, x);
        fputs("</td><td class=\"loc\">", o);
        static const char *const role[3] = {"out", "via", "in"};
        for (int e = 0; e < 3; e++) {
            json_t *ev = json_object_get(x, role[e]);
            fprintf(o, "%s%s: thread %" PRIu64 " ", e ? "<br>" : "", role[e],
                    juint(ev, "thread"));
            esc(o, jstr(ev, "site"));
        }
        fputs("</td></tr>\n", o);
    }
    json_array_foreach(mis, i, x)
    {
        fputs("<tr><td>", o);
        esc(o, jstr(x, "what"));
        field(o, " (", jstr(x, "mutex"), ")");
        fprintf(o, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"loc\">",
                juint(x, "thread"));
        esc(o, jstr(x, "site"));
        field(o, " ", jstr(x, "function"), "");
        fputs("</td><td></td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

int report_write_html(FILE *o, report_ctx *c)
{
    const json_t *r = c->doc->root;
    json_t *kinds = json_object_get(r, "findings");
    json_t *atoms = json_object_get(r, "violations");
    json_t *bugs = json_object_get(r, "bugs");
    size_t cap = json_array_size(kinds) + json_array_size(atoms) +
                 json_array_size(bugs);
    item *it = calloc(cap + 1, sizeof *it);
    if (!it)
        return -1;
    size_t n = 0, i;
    json_t *x;
    json_t *lists[3] = {kinds, atoms, bugs};
    for (int t = 0; t < 3; t++)
        json_array_foreach(lists[t], i, x) if (json_is_object(x))
        {
            it[n] = (item){x, t, rank_of(x, t), n};
            n++;
        }
    qsort(it, n, sizeof *it, item_cmp);
    summary(o, c->doc, n);
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++)
        rc = section(o, c, &it[i], i + 1);
    if (n == 0)
        fputs("<p>No finding with a witness.</p>\n", o);
    if (!c->doc->explore)
        observed(o, r);
    free(it);
    return rc;
}

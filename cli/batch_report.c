/* SPDX-License-Identifier: MIT */
/* batch_report.c - `foretell batch report`: what a store holds, for
 * people (compiler-style lines, the HTML page: batch_html.c) and for
 * tools: SARIF for code scanning (batch_sarif.c), JUnit XML with a test
 * case per trace for CI test views, JSON lines.  With --baseline, findings
 * are new, unchanged or absent against a previous SARIF report, and only
 * new ones make the exit code 1.  Files are written next to their
 * destination and renamed into place, so a failed report never leaves a
 * half-written file where the last good one was. */
#include "cli/batch_cmd.h"
#include "cli/commands.h"
#include "cli/html.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "predict/predict.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- shared by the writers ---------------------------------------------- */

int batch_witness_parse(const char *text, ft_schedule *s)
{
    memset(s, 0, sizeof *s);
    if (!text)
        return -1;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f)
        return -1;
    char err[300];
    int rc = ft_schedule_read(f, "witness", s, err, sizeof err);
    fclose(f);
    return rc;
}

void batch_split_site(const char *site, char *file, size_t len,
                      unsigned *line)
{
    const char *colon = strrchr(site, ':');
    size_t n = colon ? (size_t)(colon - site) : strlen(site);
    if (n >= len)
        n = len - 1;
    memcpy(file, site, n);
    file[n] = 0;
    *line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
    if (!strcmp(file, "?"))
        file[0] = 0;
}

/* The first key event of a finding: where reports point. */
static const fb_event_row *primary(const fb_finding_row *f)
{
    for (uint32_t e = 0; e < f->nevents; e++)
        if (f->events[e].key)
            return &f->events[e];
    return f->nevents ? &f->events[0] : NULL;
}

static int confirmed(const char *status)
{
    return status && (!strcmp(status, "confirmed") ||
                      !strcmp(status, "refined") ||
                      !strcmp(status, "failed_early"));
}

/* ---- writing a file safely ---------------------------------------------- */

FILE *batch_out_open(batch_out *o, const char *path)
{
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        o->tmp[0] = 0;
        return o->f;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f)
        fprintf(stderr, "%s: error: cannot write: %s\n", path,
                strerror(errno));
    return o->f;
}

int batch_out_close(batch_out *o, int failed)
{
    if (!o->f)
        return -1;
    if (o->f == stdout)
        return fflush(stdout) != 0 || ferror(stdout) || failed ? -1 : 0;
    int bad = failed || ferror(o->f);
    int e = errno;
    if (fclose(o->f) != 0) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "%s: error: cannot write: %s\n", o->path,
                strerror(e));
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

/* ---- JUnit XML ----------------------------------------------------------- */

static int write_junit(FILE *out, const fb_trace_row *t, size_t n)
{
    size_t failures = 0, errors = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        int err = strcmp(t[i].status, "analyzed") &&
                  strcmp(t[i].status, "damaged");
        errors += err;
        failures += !err && t[i].nocc > 0;
        total += t[i].seconds;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"foretell batch\" tests=\"%zu\" "
                 "failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n"
                 "  <testsuite name=\"foretell\" tests=\"%zu\" failures=\"%zu\""
                 " errors=\"%zu\" skipped=\"0\" time=\"%.3f\">\n",
            n, failures, errors, total, n, failures, errors, total);
    for (size_t i = 0; i < n; i++) {
        const fb_trace_row *r = &t[i];
        const char *prog = r->program && r->program[0]
                               ? strrchr(r->program, '/')
                               : NULL;
        fputs("    <testcase classname=\"", out);
        html_text(out, prog ? prog + 1 : r->program && r->program[0]
                                                   ? r->program
                                                   : "trace");
        fputs("\" name=\"", out);
        html_text(out, r->path);
        fprintf(out, "\" time=\"%.3f\">\n", r->seconds);
        int err = strcmp(r->status, "analyzed") &&
                  strcmp(r->status, "damaged");
        if (err) {
            fputs("      <error type=\"", out);
            html_text(out, r->status);
            fputs("\" message=\"", out);
            html_text(out, r->message ? r->message : r->status);
            fputs("\"/>\n", out);
        } else if (r->nocc) {
            fprintf(out, "      <failure type=\"foretell\" message=\"%u "
                         "finding%s\">",
                    r->nocc, r->nocc == 1 ? "" : "s");
            for (uint32_t k = 0; k < r->nocc; k++) {
                const fb_occ_row *o = &r->occ[k];
                char loc[600];
                snprintf(loc, sizeof loc, "%.500s:%u: ",
                         o->file && o->file[0] ? o->file : "?", o->line);
                html_text(out, loc);
                html_text(out, o->kind);
                fputs(": ", out);
                html_text(out, o->message);
                fprintf(out, " [%s, %u instance%s]\n", o->fingerprint,
                        o->instances, o->instances == 1 ? "" : "s");
            }
            fputs("</failure>\n", out);
        }
        if (r->message && !err) {
            fputs("      <system-out>", out);
            html_text(out, r->message);
            fputs("</system-out>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON lines ----------------------------------------------------------- */

static void json_site(ft_json *j, const fb_event_row *e)
{
    ft_json_begin_object(j);
    ft_json_kstr(j, "role", e->role);
    ft_json_kstr(j, "kind", e->kind);
    ft_json_kbool(j, "key", e->key);
    ft_json_kuint(j, "thread", e->tid);
    ft_json_kuint(j, "event", e->index);
    ft_json_kstr(j, "module", e->module);
    ft_json_kstr(j, "file", e->file);
    ft_json_kstr(j, "function", e->function);
    ft_json_kuint(j, "line", e->line);
    ft_json_kstr(j, "text", e->text);
    ft_json_end_object(j);
}

static void write_jsonl(FILE *out, const fb_totals *tt,
                        const fb_finding_row *f, size_t nf,
                        const fb_trace_row *t, size_t nt,
                        const batch_baseline *bl)
{
    ft_json j;
    ft_json_init(&j, out);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "type", "summary");
    ft_json_kuint(&j, "traces", tt->traces);
    ft_json_kuint(&j, "findings", tt->findings);
    ft_json_kuint(&j, "occurrences", tt->occurrences);
    ft_json_kuint(&j, "instances", tt->instances);
    ft_json_kuint(&j, "confirmed", tt->confirmed);
    ft_json_key(&j, "traces_by_status");
    ft_json_begin_object(&j);
    for (int k = 0; k < FB_NSTATUS; k++)
        ft_json_kuint(&j, fb_status_name(k), tt->by_status[k]);
    ft_json_end_object(&j);
    ft_json_end_object(&j);
    ft_json_line(&j);
    for (size_t i = 0; i < nt; i++) {
        ft_json_begin_object(&j);
        ft_json_kstr(&j, "type", "trace");
        ft_json_kstr(&j, "hash", t[i].hash);
        ft_json_kstr(&j, "path", t[i].path);
        ft_json_kstr(&j, "program", t[i].program);
        ft_json_kstr(&j, "status", t[i].status);
        ft_json_kstr(&j, "message", t[i].message);
        ft_json_kint(&j, "exit_code", t[i].exit_code);
        ft_json_kuint(&j, "events", t[i].events);
        ft_json_kuint(&j, "properties", t[i].properties);
        ft_json_kuint(&j, "unknown", t[i].unknown);
        ft_json_key(&j, "seconds");
        ft_json_double(&j, t[i].seconds);
        ft_json_key(&j, "findings");
        ft_json_begin_array(&j);
        for (uint32_t k = 0; k < t[i].nocc; k++)
            ft_json_str(&j, t[i].occ[k].fingerprint);
        ft_json_end_array(&j);
        ft_json_end_object(&j);
        ft_json_line(&j);
    }
    for (size_t i = 0; i < nf; i++) {
        ft_json_begin_object(&j);
        ft_json_kstr(&j, "type", "finding");
        ft_json_kstr(&j, "fingerprint", f[i].fingerprint);
        ft_json_kstr(&j, "kind", f[i].kind);
        ft_json_kstr(&j, "message", f[i].message);
        ft_json_kuint(&j, "traces", f[i].traces);
        ft_json_kuint(&j, "instances", f[i].instances);
        ft_json_kbool(&j, "observed", f[i].observed);
        ft_json_kstr(&j, "trace", f[i].trace_path);
        ft_json_kstr(&j, "confirmation", f[i].confirm_status);
        ft_json_kstr(&j, "failure", f[i].confirm_failure);
        if (bl)
            ft_json_kstr(&j, "baseline", batch_baseline_state(bl, f[i].fingerprint));
        ft_json_kstr(&j, "key", f[i].key);
        ft_json_key(&j, "events");
        ft_json_begin_array(&j);
        for (uint32_t e = 0; e < f[i].nevents; e++)
            json_site(&j, &f[i].events[e]);
        ft_json_end_array(&j);
        ft_json_end_object(&j);
        ft_json_line(&j);
    }
}

/* ---- text ------------------------------------------------------------------ */

static void write_text(FILE *out, const fb_totals *tt,
                       const fb_finding_row *f, size_t nf,
                       const batch_baseline *bl)
{
    for (size_t i = 0; i < nf; i++) {
        const fb_event_row *p = primary(&f[i]);
        fprintf(out, "%s:%u: %s: %s: %s [%s; %" PRIu64 " trace%s, %" PRIu64
                     " instance%s%s%s%s%s]\n",
                p && p->file[0] ? p->file : "?", p ? p->line : 0,
                confirmed(f[i].confirm_status) || f[i].observed ? "error"
                                                                : "warning",
                f[i].kind, f[i].message, f[i].fingerprint, f[i].traces,
                f[i].traces == 1 ? "" : "s", f[i].instances,
                f[i].instances == 1 ? "" : "s",
                f[i].confirm_status ? "; " : "",
                f[i].confirm_status ? f[i].confirm_status : "",
                bl ? "; " : "", bl ? batch_baseline_state(bl, f[i].fingerprint) : "");
    }
    fprintf(out, "%" PRIu64 " traces (%" PRIu64 " analyzed, %" PRIu64
                 " damaged, %" PRIu64 " bad, %" PRIu64 " timed out, %" PRIu64
                 " crashed, %" PRIu64 " failed): %" PRIu64
                 " findings in %" PRIu64 " occurrences (%" PRIu64
                 " instances), %" PRIu64 " confirmed\n",
            tt->traces, tt->by_status[FB_ANALYZED], tt->by_status[FB_DAMAGED],
            tt->by_status[FB_BAD], tt->by_status[FB_TIMEOUT],
            tt->by_status[FB_CRASHED], tt->by_status[FB_ERROR], tt->findings,
            tt->occurrences, tt->instances, tt->confirmed);
}

/* ---- suppressions ------------------------------------------------------- */

/* Whether a rule of sp covers finding row f (its representative's
 * events are its frames). */
static int row_suppressed(ft_suppressions *sp, const fb_finding_row *f)
{
    ft_supp_frame fr[64];
    size_t n = 0;
    for (uint32_t e = 0; e < f->nevents && n < 64; e++) {
        const fb_event_row *ev = &f->events[e];
        fr[n++] = (ft_supp_frame){ev->function, ev->file, ev->module,
                                  ev->line};
    }
    return ft_suppressions_match(sp, f->kind, fr, n) >= 0;
}

static int fingerprint_in(char **fps, size_t n, const char *fp)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(fps[i], fp))
            return 1;
    return 0;
}

/* Leaves the findings a rule of sp covers out of the report: their rows
 * go past *nf (still freed with the others), their occurrences leave the
 * traces' rows, the totals follow.  0, -1 out of memory. */
static int suppress_rows(ft_suppressions *sp, fb_finding_row *f, size_t *nf,
                         fb_trace_row *t, size_t nt, fb_totals *tt)
{
    size_t n = *nf, keep = 0, gone = 0;
    fb_finding_row *tmp = malloc((n + 1) * sizeof *tmp);
    char **fps = malloc((n + 1) * sizeof *fps);
    if (!tmp || !fps) {
        free(tmp);
        free(fps);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!row_suppressed(sp, &f[i]))
            f[keep++] = f[i];
        else
            tmp[gone++] = f[i];
    memcpy(f + keep, tmp, gone * sizeof *tmp);
    for (size_t i = 0; i < gone; i++) {
        const fb_finding_row *r = &f[keep + i];
        fps[i] = r->fingerprint;
        tt->findings--;
        if (confirmed(r->confirm_status))
            tt->confirmed--;
        else
            tt->unconfirmed--;
    }
    for (size_t i = 0; i < nt; i++) {
        uint32_t k = 0;
        for (uint32_t j = 0; j < t[i].nocc; j++) {
            fb_occ_row *o = &t[i].occ[j];
            if (!fingerprint_in(fps, gone, o->fingerprint)) {
                t[i].occ[k++] = *o;
                continue;
            }
            tt->occurrences--;
            tt->instances -= o->instances;
            free(o->fingerprint);
            free(o->kind);
            free(o->message);
            free(o->file);
        }
        t[i].nocc = k;
    }
    free(tmp);
    free(fps);
    *nf = keep;
    return 0;
}

/* ---- the command ------------------------------------------------------------ */

int batch_report(int argc, char **argv)
{
    static const ft_opt opts[] = {
        {"store", 's', "S.db", "the results store (default foretell.db)"},
        {"sarif", 0, "FILE", "write a SARIF 2.1.0 log (- for stdout)"},
        {"junit", 0, "FILE", "write JUnit XML, a test case per trace"},
        {"json", 0, NULL, "print JSON lines (summary, traces, findings)"},
        {"html", 0, "DIR", "write DIR/index.html"},
        {"baseline", 0, "OLD.sarif",
         "compare with a previous SARIF report: new, unchanged, absent"},
        {"source-root", 0, "DIR",
         "SARIF: paths under DIR relative to %SRCROOT%"},
        {"suppressions", 0, "FILE",
         "leave out the findings a KIND:PATTERN rule of FILE covers "
         "(default $FORETELL_SUPPRESSIONS)"},
        {NULL, 0, NULL, NULL},
    };
    enum { R_STORE, R_SARIF, R_JUNIT, R_JSON, R_HTML, R_BASELINE, R_ROOT,
           R_SUPP };
    ft_optparse p;
    ft_opt_init(&p, "foretell batch report", argc, argv);
    const char *v, *arg[8] = {"foretell.db"};
    int json = 0, o;
    while ((o = ft_opt_next(&p, opts, &v)) != FT_OPT_END) {
        if (o == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell batch report [options]",
                         "Reports the findings of a store. Exit: 0 none (or "
                         "none new with --baseline), 1 findings (new ones), "
                         "2 bad input, 4 a report could not be written.",
                         opts);
            return FT_EXIT_OK;
        }
        if (o == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (o == FT_OPT_POSITIONAL || o == FT_OPT_DASHDASH) {
            fprintf(stderr, "foretell batch report: unexpected argument "
                    "'%s'\n", v ? v : "--");
            return FT_EXIT_BAD_INPUT;
        }
        if (o == R_JSON)
            json = 1;
        else
            arg[o] = v;
    }
    batch_baseline bl, *blp = NULL;
    if (arg[R_BASELINE]) {
        if (batch_baseline_read(arg[R_BASELINE], &bl) < 0)
            return FT_EXIT_BAD_INPUT;
        blp = &bl;
    }
    ft_suppressions *sp = NULL;
    if (ft_cli_suppressions(arg[R_SUPP], &sp)) {
        if (blp)
            batch_baseline_free(blp);
        return FT_EXIT_BAD_INPUT;
    }
    ft_error err;
    fb_store *s = fb_store_open(arg[R_STORE], FB_STORE_READ, &err);
    if (!s) {
        fprintf(stderr, "%s: error: %s\n", arg[R_STORE], err.message);
        if (blp)
            batch_baseline_free(blp);
        ft_suppressions_free(sp);
        return FT_EXIT_BAD_INPUT;
    }
    fb_finding_row *f = NULL;
    fb_trace_row *t = NULL;
    size_t nf = 0, nt = 0, nall = 0; /* nall: the rows to free (suppressed
                                        ones go past nf) */
    fb_totals tt;
    int rc = FT_EXIT_OK;
    if (fb_store_totals(s, &tt, &err) < 0 ||
        fb_store_findings(s, &f, &nf, &err) < 0 ||
        fb_store_traces(s, &t, &nt, &err) < 0) {
        fprintf(stderr, "%s: error: %s\n", arg[R_STORE], err.message);
        rc = FT_EXIT_INTERNAL;
        goto out;
    }
    nall = nf;
    if (sp && suppress_rows(sp, f, &nf, t, nt, &tt) < 0) {
        fprintf(stderr, "foretell batch report: out of memory\n");
        rc = FT_EXIT_INTERNAL;
        goto out;
    }
    batch_out of;
    if (arg[R_SARIF]) {
        FILE *w = batch_out_open(&of, arg[R_SARIF]);
        int bad = !w || batch_write_sarif(w, f, nf, blp, arg[R_ROOT]) < 0;
        if (batch_out_close(&of, bad) < 0)
            rc = FT_EXIT_INTERNAL;
    }
    if (arg[R_JUNIT]) {
        FILE *w = batch_out_open(&of, arg[R_JUNIT]);
        int bad = !w || write_junit(w, t, nt) < 0;
        if (batch_out_close(&of, bad) < 0)
            rc = FT_EXIT_INTERNAL;
    }
    if (arg[R_HTML] && batch_write_html(arg[R_HTML], &tt, f, nf, t, nt, blp) < 0)
        rc = FT_EXIT_INTERNAL;
    if (json)
        write_jsonl(stdout, &tt, f, nf, t, nt, blp);
    else if (!arg[R_SARIF] && !arg[R_JUNIT] && !arg[R_HTML])
        write_text(stdout, &tt, f, nf, blp);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "foretell batch report: cannot write the standard "
                "output: %s\n", strerror(errno));
        rc = FT_EXIT_INTERNAL;
    }
    if (rc == FT_EXIT_OK) {
        size_t counted = 0;
        for (size_t i = 0; i < nf; i++)
            counted += !blp || !batch_baseline_has(blp, f[i].fingerprint);
        rc = counted ? FT_EXIT_FOUND : FT_EXIT_OK;
    }
    ft_suppressions_print_used(stderr, sp);
out:
    fb_finding_rows_free(f, nall > nf ? nall : nf);
    fb_trace_rows_free(t, nt);
    fb_store_close(s, NULL);
    if (blp)
        batch_baseline_free(blp);
    ft_suppressions_free(sp);
    return rc;
}

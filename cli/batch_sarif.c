/* SPDX-License-Identifier: MIT */
/* batch_sarif.c - a store as one SARIF 2.1.0 log, as GitHub code
 * scanning and other SARIF consumers take it: one rule per finding kind,
 * one result per finding with its fingerprint in partialFingerprints
 * ("foretell/v1"), the key events as locations, and the witness as a
 * codeFlow with one threadFlow per thread, the steps numbered by
 * executionOrder so the interleaving is kept and the violating accesses
 * "essential".  With a baseline (a previous log), each result is "new" or
 * "unchanged" and the previous results that are gone come back "absent".
 * tests/batch validates the output against the OASIS schema. */
#include "cli/batch_cmd.h"
#include "cli/json.h"
#include "predict/kind.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define FP_KEY "foretell/v1"
#define MAX_FLOW_STEPS 1000 /* the last steps of a long witness */

/* ---- baselines ----------------------------------------------------------- */

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A previous report's result's fingerprint; NULL when it has none or
 * was already gone ("absent") in that report: not in its baseline. */
static const char *result_fp(json_t *res)
{
    json_t *fp = json_object_get(json_object_get(res, "partialFingerprints"),
                                 FP_KEY);
    json_t *st = json_object_get(res, "baselineState");
    if (!json_is_string(fp) ||
        (json_is_string(st) && !strcmp(json_string_value(st), "absent")))
        return NULL;
    return json_string_value(fp);
}

int batch_baseline_read(const char *path, batch_baseline *b)
{
    memset(b, 0, sizeof *b);
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        fprintf(stderr, "%s:%d:%d: error: --baseline: %s\n", path, je.line,
                je.column, je.text);
        return -1;
    }
    json_t *runs = json_object_get(doc, "runs");
    json_t *ver = json_object_get(doc, "version");
    if (!json_is_array(runs) || !json_is_string(ver) ||
        strcmp(json_string_value(ver), "2.1.0") != 0) {
        fprintf(stderr, "%s: error: --baseline: not a SARIF 2.1.0 log (no "
                "\"version\": \"2.1.0\" with \"runs\")\n", path);
        json_decref(doc);
        return -1;
    }
    size_t cap = 0, i, k;
    json_t *run, *res;
    json_array_foreach(runs, i, run) {
        json_t *results = json_object_get(run, "results");
        json_array_foreach(results, k, res) {
            const char *fp = result_fp(res);
            if (!fp)
                continue;
            if (b->nfp == cap) {
                size_t nc = cap ? 2 * cap : 64;
                char **v = realloc(b->fp, nc * sizeof *v);
                if (!v) {
                    fprintf(stderr, "%s: error: out of memory\n", path);
                    batch_baseline_free(b);
                    json_decref(doc);
                    return -1;
                }
                b->fp = v;
                cap = nc;
            }
            b->fp[b->nfp++] = (char *)fp;
        }
    }
    qsort(b->fp, b->nfp, sizeof *b->fp, by_str);
    b->doc = doc;
    return 0;
}

void batch_baseline_free(batch_baseline *b)
{
    free(b->fp);
    json_decref(b->doc);
    memset(b, 0, sizeof *b);
}

int batch_baseline_has(const batch_baseline *b, const char *fp)
{
    return b && b->nfp &&
           bsearch(&fp, b->fp, b->nfp, sizeof *b->fp, by_str) != NULL;
}

const char *batch_baseline_state(const batch_baseline *b, const char *fp)
{
    return !b ? NULL : batch_baseline_has(b, fp) ? "unchanged" : "new";
}

/* ---- locations ---------------------------------------------------------- */

/* A path as a URI reference: RFC 3986 path characters kept, the rest
 * percent-encoded; absolute paths as file:// URIs. */
static void uri_of(const char *path, const char *root, char *out, size_t len,
                   int *relative)
{
    size_t k = 0, rl = root ? strlen(root) : 0;
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    *relative = 0;
    if (rl && !strncmp(path, root, rl) && path[rl] == '/') {
        path += rl + 1;
        *relative = 1;
    } else if (path[0] == '/') {
        k = (size_t)snprintf(out, len, "file://");
    }
    static const char keep[] = "-._~/!$&'()*+,;=:@";
    for (const unsigned char *p = (const unsigned char *)path;
         *p && k + 4 < len; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || strchr(keep, *p))
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, len - k, "%%%02X", *p);
    }
    out[k] = 0;
}

static void physical(ft_json *j, const char *file, unsigned line,
                     const char *snippet, const char *root)
{
    ft_json_key(j, "physicalLocation");
    ft_json_begin_object(j);
    ft_json_key(j, "artifactLocation");
    ft_json_begin_object(j);
    char uri[4096];
    int rel;
    uri_of(file, root, uri, sizeof uri, &rel);
    ft_json_kstr(j, "uri", uri);
    if (rel)
        ft_json_kstr(j, "uriBaseId", "SRCROOT");
    ft_json_end_object(j);
    if (line > 0) {
        ft_json_key(j, "region");
        ft_json_begin_object(j);
        ft_json_kuint(j, "startLine", line);
        if (snippet) {
            ft_json_key(j, "snippet");
            ft_json_begin_object(j);
            ft_json_kstr(j, "text", snippet);
            ft_json_end_object(j);
        }
        ft_json_end_object(j);
    }
    ft_json_end_object(j);
}

/* A location for an event; with id >= 0 an id (relatedLocations). */
static void event_location(ft_json *j, const fb_event_row *e, long id,
                           const char *root)
{
    ft_json_begin_object(j);
    if (id >= 0)
        ft_json_kuint(j, "id", (uint64_t)id);
    if (e->file && e->file[0])
        physical(j, e->file, e->line, e->text, root);
    if (e->function && e->function[0]) {
        ft_json_key(j, "logicalLocations");
        ft_json_begin_array(j);
        ft_json_begin_object(j);
        ft_json_kstr(j, "name", e->function);
        ft_json_kstr(j, "kind", "function");
        ft_json_end_object(j);
        ft_json_end_array(j);
    }
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %s by thread %u", e->role, e->kind,
             e->tid);
    ft_json_key(j, "message");
    ft_json_begin_object(j);
    ft_json_kstr(j, "text", msg);
    ft_json_end_object(j);
    ft_json_end_object(j);
}

/* ---- rules ---------------------------------------------------------------- */

typedef struct rule_text {
    const char *kind, *name, *text;
} rule_text;

static const rule_text rules[] = {
    {"atomicity", "AtomicityViolation",
     "A code region that the program's layout says runs as a unit can be "
     "interleaved by another thread's conflicting accesses (a CA property "
     "of BEST is violated)."},
    {"atomicity-pair", "AtomicityViolationPair",
     "Two code regions run by two threads can interleave so that neither "
     "runs as a unit (a CMA property of BEST is violated)."},
    {"misuse", "PthreadApiMisuse",
     "The pthread API is misused: a mutex is unlocked by a thread that does "
     "not hold it, or destroyed while a thread holds it (observed in the "
     "recorded run)."},
};

static const rule_text *rule_of(const char *kind)
{
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (!strcmp(rules[i].kind, kind))
            return &rules[i];
    return NULL;
}

static void text_obj(ft_json *j, const char *key, const char *text)
{
    ft_json_key(j, key);
    ft_json_begin_object(j);
    ft_json_kstr(j, "text", text);
    ft_json_end_object(j);
}

/* The kinds of the findings, in order of first appearance. */
static size_t kinds_of(const fb_finding_row *rows, size_t n,
                       const char **kind)
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nk && strcmp(kind[k], rows[i].kind))
            k++;
        if (k == nk)
            kind[nk++] = rows[i].kind;
    }
    return nk;
}

static void write_rule(ft_json *j, const char *kind)
{
    /* atomicity (findav.c) has its texts here, the other kinds theirs in
     * their own files (predict/kind.h) */
    const rule_text *r = rule_of(kind);
    const ft_pkind *k = ft_pkind_by_name(kind);
    char generic[300];
    snprintf(generic, sizeof generic, "A concurrency bug of kind %s found "
             "by foretell.", kind);
    ft_json_begin_object(j);
    ft_json_kstr(j, "id", kind);
    ft_json_kstr(j, "name", r ? r->name : k ? k->rule : kind);
    text_obj(j, "shortDescription", r ? r->text : k ? k->summary : generic);
    ft_json_key(j, "defaultConfiguration");
    ft_json_begin_object(j);
    ft_json_kstr(j, "level", "warning");
    ft_json_end_object(j);
    ft_json_end_object(j);
}

/* ---- the witness as a code flow ------------------------------------------ */

static void code_flow(ft_json *j, const fb_finding_row *f, const char *root)
{
    ft_schedule s;
    if (batch_witness_parse(f->witness, &s) < 0 || s.nsteps == 0) {
        ft_schedule_free(&s);
        return;
    }
    uint32_t from = s.nsteps > MAX_FLOW_STEPS ? s.nsteps - MAX_FLOW_STEPS : 0;
    ft_json_key(j, "codeFlows");
    ft_json_begin_array(j);
    ft_json_begin_object(j);
    char msg[700];
    snprintf(msg, sizeof msg, "the interleaving that shows it, predicted "
             "from %.500s%s", f->trace_path ? f->trace_path : "?",
             from ? " (its last steps)" : "");
    text_obj(j, "message", msg);
    ft_json_key(j, "threadFlows");
    ft_json_begin_array(j);
    /* one thread flow per thread, in order of first appearance */
    for (uint32_t a = from; a < s.nsteps; a++) {
        uint32_t tid = s.steps[a].tid;
        int seen = 0;
        for (uint32_t b = from; b < a && !seen; b++)
            seen = s.steps[b].tid == tid;
        if (seen)
            continue;
        ft_json_begin_object(j);
        char id[32];
        snprintf(id, sizeof id, "thread %u", tid);
        ft_json_kstr(j, "id", id);
        text_obj(j, "message", id);
        ft_json_key(j, "locations");
        ft_json_begin_array(j);
        for (uint32_t b = a; b < s.nsteps; b++) {
            const ft_sched_step *st = &s.steps[b];
            if (st->tid != tid)
                continue;
            char file[300], text[300];
            unsigned line;
            batch_split_site(st->site, file, sizeof file, &line);
            ft_json_begin_object(j);
            ft_json_key(j, "location");
            ft_json_begin_object(j);
            if (file[0])
                physical(j, file, line, NULL, root);
            snprintf(text, sizeof text, "%s%s (thread %u, event %llu)",
                     st->mark ? "violating access: " : "", st->kind, tid,
                     (unsigned long long)st->tindex);
            text_obj(j, "message", text);
            ft_json_end_object(j);
            ft_json_kuint(j, "executionOrder", b - from + 1);
            ft_json_kstr(j, "importance", st->mark ? "essential"
                                                   : "unimportant");
            ft_json_end_object(j);
        }
        ft_json_end_array(j);
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
    ft_json_end_object(j);
    ft_json_end_array(j);
    ft_schedule_free(&s);
}

static void write_result(ft_json *j, const fb_finding_row *f,
                         const char **kinds, size_t nk,
                         const batch_baseline *bl, const char *root)
{
    ft_json_begin_object(j);
    ft_json_kstr(j, "ruleId", f->kind);
    size_t ri = 0;
    while (ri < nk && strcmp(kinds[ri], f->kind))
        ri++;
    ft_json_kuint(j, "ruleIndex", ri);
    int sure = f->observed ||
               (f->confirm_status && (!strcmp(f->confirm_status, "confirmed")
                                      || !strcmp(f->confirm_status, "refined")
                                      || !strcmp(f->confirm_status,
                                                 "failed_early")));
    ft_json_kstr(j, "level", sure ? "error" : "warning");
    text_obj(j, "message", f->message);
    const fb_event_row *p = NULL;
    for (uint32_t e = 0; e < f->nevents && !p; e++)
        if (f->events[e].key)
            p = &f->events[e];
    ft_json_key(j, "locations");
    ft_json_begin_array(j);
    if (p)
        event_location(j, p, -1, root);
    ft_json_end_array(j);
    ft_json_key(j, "relatedLocations");
    ft_json_begin_array(j);
    for (uint32_t e = 0; e < f->nevents; e++)
        if (&f->events[e] != p)
            event_location(j, &f->events[e], e, root);
    ft_json_end_array(j);
    ft_json_key(j, "partialFingerprints");
    ft_json_begin_object(j);
    ft_json_kstr(j, FP_KEY, f->fingerprint);
    ft_json_end_object(j);
    if (f->witness)
        code_flow(j, f, root);
    if (bl)
        ft_json_kstr(j, "baselineState",
                     batch_baseline_state(bl, f->fingerprint));
    ft_json_key(j, "properties");
    ft_json_begin_object(j);
    ft_json_kuint(j, "traces", f->traces);
    ft_json_kuint(j, "instances", f->instances);
    ft_json_kbool(j, "observed", f->observed);
    ft_json_kstr(j, "trace", f->trace_path);
    ft_json_kstr(j, "program", f->program);
    if (f->confirm_status) {
        ft_json_kstr(j, "confirmation", f->confirm_status);
        ft_json_kstr(j, "failure", f->confirm_failure);
        ft_json_kstr(j, "detail", f->confirm_detail);
    }
    ft_json_end_object(j);
    ft_json_end_object(j);
}

/* The baseline's results that are not in this log, as they were, now
 * "absent". */
static void absent_results(ft_json *j, const fb_finding_row *rows, size_t n,
                           const batch_baseline *bl)
{
    size_t i, k;
    json_t *run, *res;
    json_array_foreach(json_object_get(bl->doc, "runs"), i, run) {
        json_array_foreach(json_object_get(run, "results"), k, res) {
            const char *fp = result_fp(res);
            if (!fp)
                continue;
            size_t m = 0;
            while (m < n && strcmp(rows[m].fingerprint, fp))
                m++;
            if (m < n)
                continue;
            json_t *copy = json_deep_copy(res);
            /* the rule index belonged to the old log's rules */
            json_object_del(copy, "ruleIndex");
            json_object_set_new(copy, "baselineState",
                                json_string("absent"));
            char *text = json_dumps(copy, JSON_COMPACT | JSON_ENSURE_ASCII);
            if (text)
                ft_json_raw(j, text);
            free(text);
            json_decref(copy);
        }
    }
}

int batch_write_sarif(FILE *out, const fb_finding_row *rows, size_t n,
                      const batch_baseline *bl, const char *source_root)
{
    ft_json j;
    ft_json_init(&j, out);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "$schema", "https://json.schemastore.org/"
                                "sarif-2.1.0.json");
    ft_json_kstr(&j, "version", "2.1.0");
    ft_json_key(&j, "runs");
    ft_json_begin_array(&j);
    ft_json_begin_object(&j);
    ft_json_key(&j, "tool");
    ft_json_begin_object(&j);
    ft_json_key(&j, "driver");
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "name", "foretell");
    ft_json_kstr(&j, "version", "0.1.0");
    const char **kinds = calloc(n + 1, sizeof *kinds);
    size_t nk = kinds ? kinds_of(rows, n, kinds) : 0;
    ft_json_key(&j, "rules");
    ft_json_begin_array(&j);
    for (size_t k = 0; k < nk; k++)
        write_rule(&j, kinds[k]);
    ft_json_end_array(&j);
    ft_json_end_object(&j);
    ft_json_end_object(&j);
    if (source_root) {
        char uri[4096];
        int rel;
        uri_of(source_root, NULL, uri, sizeof uri - 1, &rel);
        size_t l = strlen(uri);
        if (l && uri[l - 1] != '/')
            strcat(uri, "/");
        ft_json_key(&j, "originalUriBaseIds");
        ft_json_begin_object(&j);
        ft_json_key(&j, "SRCROOT");
        ft_json_begin_object(&j);
        ft_json_kstr(&j, "uri", uri);
        ft_json_end_object(&j);
        ft_json_end_object(&j);
    }
    ft_json_key(&j, "results");
    ft_json_begin_array(&j);
    for (size_t i = 0; kinds && i < n; i++)
        write_result(&j, &rows[i], kinds, nk, bl, source_root);
    if (bl)
        absent_results(&j, rows, n, bl);
    ft_json_end_array(&j);
    ft_json_kstr(&j, "columnKind", "utf16CodeUnits");
    ft_json_end_object(&j);
    ft_json_end_array(&j);
    ft_json_end_object(&j);
    ft_json_line(&j);
    free(kinds);
    return !kinds || ferror(out) ? -1 : 0;
}

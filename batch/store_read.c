/* SPDX-License-Identifier: MIT */
/* store_read.c - what the reports read back from a store: every finding
 * with its totals and one representative occurrence (in the trace with
 * the smallest hash: a store and the merge of its shards pick the same),
 * every trace with its occurrences, and the totals for summaries. */
#include "batch/store_internal.h"

#include <stdlib.h>
#include <string.h>

static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

static int prepare(fb_store *s, const char *sql, sqlite3_stmt **st,
                   ft_error *err)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK)
        return 0;
    return fb_db_fail(s, err, "cannot read the store");
}

int fb_store_totals(fb_store *s, fb_totals *t, ft_error *err)
{
    memset(t, 0, sizeof *t);
    static const char sql[] =
        "SELECT (SELECT count(*) FROM traces),"
        " (SELECT count(*) FROM findings),"
        " (SELECT count(*) FROM occurrences),"
        " (SELECT coalesce(sum(instances), 0) FROM occurrences),"
        " (SELECT count(*) FROM findings WHERE confirm_status IN"
        "  ('confirmed','refined','failed_early')),"
        " (SELECT count(*) FROM findings WHERE confirm_status IS NULL OR"
        "  confirm_status NOT IN ('confirmed','refined','failed_early'))";
    sqlite3_stmt *st;
    if (prepare(s, sql, &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc == 0) {
        t->traces = col_u64(st, 0);
        t->findings = col_u64(st, 1);
        t->occurrences = col_u64(st, 2);
        t->instances = col_u64(st, 3);
        t->confirmed = col_u64(st, 4);
        t->unconfirmed = col_u64(st, 5);
    }
    sqlite3_finalize(st);
    if (rc < 0 ||
        prepare(s, "SELECT status, count(*) FROM traces GROUP BY status", &st,
                err) < 0)
        return rc < 0 ? fb_db_fail(s, err, "cannot read the store") : -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int k = fb_status_from_name((const char *)sqlite3_column_text(st, 0));
        t->by_status[k < 0 ? FB_ERROR : k] += col_u64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : fb_db_fail(s, err, "cannot read the store");
}

static int read_events(fb_store *s, fb_finding_row *f, ft_error *err)
{
    sqlite3_stmt *st;
    if (prepare(s, "SELECT role, kind, key, tid, idx, module, file, function,"
                   " line, col, text FROM events WHERE fingerprint = ? AND "
                   "trace = ? ORDER BY ord",
                &st, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, f->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->trace_hash, -1, SQLITE_STATIC);
    uint32_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (f->nevents == cap) {
            uint32_t nc = cap ? 2 * cap : 8;
            fb_event_row *e2 = realloc(f->events, nc * sizeof *e2);
            if (!e2) {
                rc = SQLITE_NOMEM;
                break;
            }
            f->events = e2;
            cap = nc;
        }
        fb_event_row *e = &f->events[f->nevents++];
        e->role = col_str(st, 0);
        e->kind = col_str(st, 1);
        e->key = sqlite3_column_int(st, 2);
        e->tid = (uint32_t)col_u64(st, 3);
        e->index = col_u64(st, 4);
        e->module = col_str(st, 5);
        e->file = col_str(st, 6);
        e->function = col_str(st, 7);
        e->line = (uint32_t)col_u64(st, 8);
        e->column = (uint32_t)col_u64(st, 9);
        e->text = col_str(st, 10);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : fb_db_fail(s, err, "cannot read events");
}

int fb_store_findings(fb_store *s, fb_finding_row **rows, size_t *n,
                      ft_error *err)
{
    *rows = NULL;
    *n = 0;
    static const char sql[] =
        "SELECT f.fingerprint, f.kind, f.key, count(*) AS ntraces,"
        " sum(o.instances), max(o.observed), min(o.trace),"
        " f.confirm_status, f.confirm_failure, f.confirm_detail "
        "FROM findings f JOIN occurrences o USING(fingerprint) "
        "GROUP BY f.fingerprint ORDER BY ntraces DESC, f.fingerprint";
    sqlite3_stmt *st, *occ;
    if (prepare(s, sql, &st, err) < 0)
        return -1;
    if (prepare(s, "SELECT o.message, o.witness, o.replayable, t.path,"
                   " t.program FROM occurrences o JOIN traces t ON"
                   " t.hash = o.trace WHERE o.fingerprint = ? AND"
                   " o.trace = ?",
                &occ, err) < 0) {
        sqlite3_finalize(st);
        return -1;
    }
    size_t cap = 0;
    int rc, reported = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            fb_finding_row *r2 = realloc(*rows, nc * sizeof *r2);
            if (!r2) {
                rc = SQLITE_NOMEM;
                break;
            }
            *rows = r2;
            cap = nc;
        }
        fb_finding_row *f = &(*rows)[(*n)++];
        memset(f, 0, sizeof *f);
        f->fingerprint = col_str(st, 0);
        f->kind = col_str(st, 1);
        f->key = col_str(st, 2);
        f->traces = col_u64(st, 3);
        f->instances = col_u64(st, 4);
        f->observed = sqlite3_column_int(st, 5);
        f->trace_hash = col_str(st, 6);
        f->confirm_status = col_str(st, 7);
        f->confirm_failure = col_str(st, 8);
        f->confirm_detail = col_str(st, 9);
        sqlite3_reset(occ);
        sqlite3_bind_text(occ, 1, f->fingerprint, -1, SQLITE_STATIC);
        sqlite3_bind_text(occ, 2, f->trace_hash, -1, SQLITE_STATIC);
        if (sqlite3_step(occ) == SQLITE_ROW) {
            f->message = col_str(occ, 0);
            f->witness = col_str(occ, 1);
            f->replayable = sqlite3_column_int(occ, 2);
            f->trace_path = col_str(occ, 3);
            f->program = col_str(occ, 4);
        }
        if (!f->fingerprint || !f->kind || !f->trace_hash || !f->message) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (read_events(s, f, err) < 0) {
            rc = SQLITE_ERROR;
            reported = 1;
            break;
        }
    }
    sqlite3_finalize(occ);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fb_finding_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return reported ? -1 : fb_db_fail(s, err, "cannot read findings");
    }
    return 0;
}

void fb_finding_rows_free(fb_finding_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        fb_finding_row *f = &rows[i];
        for (uint32_t e = 0; e < f->nevents; e++) {
            fb_event_row *x = &f->events[e];
            free(x->role);
            free(x->kind);
            free(x->module);
            free(x->file);
            free(x->function);
            free(x->text);
        }
        free(f->events);
        free(f->fingerprint);
        free(f->kind);
        free(f->key);
        free(f->message);
        free(f->trace_hash);
        free(f->trace_path);
        free(f->program);
        free(f->witness);
        free(f->confirm_status);
        free(f->confirm_failure);
        free(f->confirm_detail);
    }
    free(rows);
}

static int read_occ(sqlite3_stmt *q, fb_trace_row *t)
{
    sqlite3_reset(q);
    sqlite3_bind_text(q, 1, t->hash, -1, SQLITE_STATIC);
    uint32_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (t->nocc == cap) {
            uint32_t nc = cap ? 2 * cap : 4;
            fb_occ_row *o2 = realloc(t->occ, nc * sizeof *o2);
            if (!o2)
                return -1;
            t->occ = o2;
            cap = nc;
        }
        fb_occ_row *o = &t->occ[t->nocc++];
        o->fingerprint = col_str(q, 0);
        o->kind = col_str(q, 1);
        o->message = col_str(q, 2);
        o->instances = (uint32_t)col_u64(q, 3);
        o->file = col_str(q, 4);
        o->line = (uint32_t)col_u64(q, 5);
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

int fb_store_traces(fb_store *s, fb_trace_row **rows, size_t *n,
                    ft_error *err)
{
    *rows = NULL;
    *n = 0;
    sqlite3_stmt *st, *q;
    if (prepare(s, "SELECT hash, path, program, status, message, end_reason,"
                   " exit_code, events, threads, properties, unknown,"
                   " seconds FROM traces ORDER BY path, hash",
                &st, err) < 0)
        return -1;
    /* each occurrence with where it points: its first key event */
    if (prepare(s, "SELECT o.fingerprint, f.kind, o.message, o.instances,"
                   " e.file, e.line FROM occurrences o JOIN findings f"
                   " USING(fingerprint) LEFT JOIN events e ON"
                   " e.fingerprint = o.fingerprint AND e.trace = o.trace AND"
                   " e.ord = (SELECT min(ord) FROM events x WHERE"
                   " x.fingerprint = o.fingerprint AND x.trace = o.trace AND"
                   " x.key = 1) WHERE o.trace = ? ORDER BY o.fingerprint",
                &q, err) < 0) {
        sqlite3_finalize(st);
        return -1;
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            fb_trace_row *r2 = realloc(*rows, nc * sizeof *r2);
            if (!r2) {
                rc = SQLITE_NOMEM;
                break;
            }
            *rows = r2;
            cap = nc;
        }
        fb_trace_row *t = &(*rows)[(*n)++];
        memset(t, 0, sizeof *t);
        t->hash = col_str(st, 0);
        t->path = col_str(st, 1);
        t->program = col_str(st, 2);
        t->status = col_str(st, 3);
        t->message = col_str(st, 4);
        t->end_reason = col_str(st, 5);
        t->exit_code = sqlite3_column_int(st, 6);
        t->events = col_u64(st, 7);
        t->threads = col_u64(st, 8);
        t->properties = col_u64(st, 9);
        t->unknown = col_u64(st, 10);
        t->seconds = sqlite3_column_double(st, 11);
        if (!t->hash || !t->path || !t->status || read_occ(q, t) < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_finalize(q);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fb_trace_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return fb_db_fail(s, err, "cannot read traces");
    }
    return 0;
}

void fb_trace_rows_free(fb_trace_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        fb_trace_row *t = &rows[i];
        for (uint32_t k = 0; k < t->nocc; k++) {
            free(t->occ[k].fingerprint);
            free(t->occ[k].kind);
            free(t->occ[k].message);
            free(t->occ[k].file);
        }
        free(t->occ);
        free(t->hash);
        free(t->path);
        free(t->program);
        free(t->status);
        free(t->message);
        free(t->end_reason);
    }
    free(rows);
}

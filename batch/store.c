/* SPDX-License-Identifier: MIT */
/* store.c - the results store of `foretell batch`: an SQLite database
 * (docs/batch.md, "The store", has the schema).  Traces are keyed by
 * content hash, findings by fingerprint, occurrences by both.  Each
 * trace's result is written in one transaction, so a batch killed at any
 * point leaves the traces it finished and nothing of the others, and a
 * rerun completes it with nothing counted twice: counts are never kept as
 * running totals, they are the rows.  Merging adds the rows another store
 * has and this one has not, so it is idempotent. */
#include "batch/batch.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "batch/store_internal.h"

#define STORE_FORMAT "foretell-store"
#define STORE_VERSION 1

static const char schema[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) "
    "WITHOUT ROWID;"
    "CREATE TABLE traces("
    " hash TEXT PRIMARY KEY, path TEXT NOT NULL, program TEXT, argv BLOB,"
    " build_id TEXT, recorded_ns INTEGER, events INTEGER, threads INTEGER,"
    " end_reason TEXT, exit_status INTEGER,"
    " status TEXT NOT NULL, message TEXT, exit_code INTEGER NOT NULL,"
    " regions INTEGER, properties INTEGER, violated INTEGER, holds INTEGER,"
    " unknown INTEGER, observed INTEGER, findings INTEGER NOT NULL,"
    " seconds REAL, analyzed_ns INTEGER, options TEXT) WITHOUT ROWID;"
    "CREATE TABLE findings("
    " fingerprint TEXT PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL,"
    " confirm_status TEXT, confirm_failure TEXT, confirm_detail TEXT,"
    " confirm_trace TEXT, confirm_ns INTEGER) WITHOUT ROWID;"
    "CREATE TABLE occurrences("
    " fingerprint TEXT NOT NULL, trace TEXT NOT NULL,"
    " instances INTEGER NOT NULL, observed INTEGER NOT NULL,"
    " message TEXT NOT NULL, witness TEXT, replayable INTEGER NOT NULL,"
    " confirm_status TEXT, confirm_failure TEXT, confirm_detail TEXT,"
    " PRIMARY KEY(fingerprint, trace)) WITHOUT ROWID;"
    "CREATE INDEX occurrences_by_trace ON occurrences(trace);"
    "CREATE TABLE events("
    " fingerprint TEXT NOT NULL, trace TEXT NOT NULL, ord INTEGER NOT NULL,"
    " role TEXT NOT NULL, kind TEXT NOT NULL, key INTEGER NOT NULL,"
    " tid INTEGER, idx INTEGER, module TEXT, file TEXT, function TEXT,"
    " line INTEGER, col INTEGER, text TEXT, offset INTEGER,"
    " PRIMARY KEY(fingerprint, trace, ord)) WITHOUT ROWID;";

int fb_db_fail(fb_store *s, ft_error *err, const char *what)
{
    if (!err)
        return -1;
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%.250s", s->path);
    snprintf(err->message, sizeof err->message, "%s: %s", what,
             s->db ? sqlite3_errmsg(s->db) : "cannot open");
    return -1;
}

int fb_db_exec(fb_store *s, const char *sql, ft_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    if (err) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%.250s", s->path);
        snprintf(err->message, sizeof err->message, "%s",
                 msg ? msg : "SQLite error");
    }
    sqlite3_free(msg);
    return -1;
}

static int meta_get(fb_store *s, const char *key, char *out, size_t len)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc == 0)
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc;
}

static int create_schema(fb_store *s, ft_error *err)
{
    char sql[sizeof schema + 300];
    snprintf(sql, sizeof sql,
             "BEGIN IMMEDIATE;%s"
             "INSERT INTO meta VALUES('format', '" STORE_FORMAT "');"
             "INSERT INTO meta VALUES('version', '%d');"
             "PRAGMA user_version = %d;COMMIT;",
             schema, STORE_VERSION, STORE_VERSION);
    if (fb_db_exec(s, sql, err) < 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* A store is ours when its meta table says so; an empty database (just
 * created) gets the schema. */
static int check_schema(fb_store *s, int create, ft_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1,
                           &st, NULL) != SQLITE_OK)
        return fb_db_fail(s, err, "not a foretell store (cannot read it as "
                          "an SQLite database)");
    int ntables = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0)
                                                 : -1;
    sqlite3_finalize(st);
    if (ntables < 0)
        return fb_db_fail(s, err, "not a foretell store (cannot read it as "
                          "an SQLite database)");
    if (ntables == 0) {
        if (!create) {
            memset(err, 0, sizeof *err);
            snprintf(err->path, sizeof err->path, "%.250s", s->path);
            snprintf(err->message, sizeof err->message,
                     "the store is empty (no batch has written it)");
            return -1;
        }
        return create_schema(s, err);
    }
    char fmt[64] = "", ver[32] = "";
    if (meta_get(s, "format", fmt, sizeof fmt) < 0 ||
        strcmp(fmt, STORE_FORMAT) != 0 ||
        meta_get(s, "version", ver, sizeof ver) < 0) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%.250s", s->path);
        snprintf(err->message, sizeof err->message,
                 "an SQLite database, but not a foretell store");
        return -1;
    }
    if (atoi(ver) != STORE_VERSION) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%.250s", s->path);
        snprintf(err->message, sizeof err->message,
                 "store version %s; this foretell reads version %d", ver,
                 STORE_VERSION);
        return -1;
    }
    return 0;
}

fb_store *fb_store_open(const char *path, int mode, ft_error *err)
{
    fb_store *s = calloc(1, sizeof *s);
    if (!s) {
        memset(err, 0, sizeof *err);
        snprintf(err->message, sizeof err->message, "out of memory");
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message,
                 "not a regular file (a store is an SQLite database file)");
        free(s);
        return NULL;
    }
    int flags = mode == FB_STORE_READ    ? SQLITE_OPEN_READONLY
                : mode == FB_STORE_WRITE ? SQLITE_OPEN_READWRITE
                                         : SQLITE_OPEN_READWRITE |
                                               SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        fb_db_fail(s, err, mode == FB_STORE_CREATE ? "cannot create the store"
                                                   : "cannot open the store");
        sqlite3_close(s->db);
        free(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    /* another process may be reading or merging: wait for its lock */
    sqlite3_busy_timeout(s->db, 60000);
    if (check_schema(s, mode == FB_STORE_CREATE, err) < 0) {
        sqlite3_close(s->db);
        free(s);
        return NULL;
    }
    return s;
}

int fb_store_close(fb_store *s, ft_error *err)
{
    if (!s)
        return 0;
    int rc = 0;
    for (int i = 0; i < FB_NSTMT; i++)
        sqlite3_finalize(s->stmt[i]);
    if (sqlite3_close(s->db) != SQLITE_OK)
        rc = fb_db_fail(s, err, "cannot close the store");
    free(s);
    return rc;
}

int fb_store_status(fb_store *s, const char *hash, int *exit_code)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT status, exit_code FROM traces "
                           "WHERE hash = ?", -1, &st, NULL) != SQLITE_OK)
        return -2;
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int status = rc == SQLITE_ROW
                     ? fb_status_from_name(
                           (const char *)sqlite3_column_text(st, 0))
                 : rc == SQLITE_DONE ? -1
                                     : -2;
    if (rc == SQLITE_ROW && status < 0)
        status = FB_ERROR;
    if (exit_code)
        *exit_code = rc == SQLITE_ROW ? sqlite3_column_int(st, 1) : 0;
    sqlite3_finalize(st);
    return status;
}

/* ---- putting one trace ------------------------------------------------- */

sqlite3_stmt *fb_db_stmt(fb_store *s, int which, const char *sql)
{
    if (!s->stmt[which] &&
        sqlite3_prepare_v2(s->db, sql, -1, &s->stmt[which], NULL) != SQLITE_OK)
        return NULL;
    sqlite3_reset(s->stmt[which]);
    sqlite3_clear_bindings(s->stmt[which]);
    return s->stmt[which];
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int put_trace(fb_store *s, const fb_result *r)
{
    sqlite3_stmt *st = fb_db_stmt(
        s, FB_STMT_TRACE,
        "INSERT INTO traces VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        "?,?)");
    if (!st)
        return -1;
    int i = 1;
    bind_str(st, i++, r->hash);
    bind_str(st, i++, r->path);
    bind_str(st, i++, r->program);
    if (r->argv)
        sqlite3_bind_blob(st, i++, r->argv, (int)r->argv_len,
                          SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i++);
    bind_str(st, i++, r->build_id);
    sqlite3_bind_int64(st, i++, r->recorded_ns);
    bind_u64(st, i++, r->events);
    bind_u64(st, i++, r->threads);
    bind_str(st, i++, r->end_reason);
    sqlite3_bind_int64(st, i++, r->exit_status);
    bind_str(st, i++, fb_status_name(r->status));
    bind_str(st, i++, r->message);
    sqlite3_bind_int(st, i++, r->exit_code);
    bind_u64(st, i++, r->regions);
    bind_u64(st, i++, r->properties);
    bind_u64(st, i++, r->violated);
    bind_u64(st, i++, r->holds);
    bind_u64(st, i++, r->unknown);
    bind_u64(st, i++, r->observed);
    bind_u64(st, i++, r->ngroups);
    sqlite3_bind_double(st, i++, r->seconds);
    sqlite3_bind_int64(st, i++, now_ns());
    bind_str(st, i++, s->options[0] ? s->options : NULL);
    return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

static int put_events(fb_store *s, const fb_result *r, const fb_group *g)
{
    const ft_finding *f = &g->f;
    for (uint32_t e = 0; e < f->nevents; e++) {
        const ft_fevent *ev = &f->events[e];
        sqlite3_stmt *st = fb_db_stmt(
            s, FB_STMT_EVENT,
            "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        if (!st)
            return -1;
        int i = 1;
        bind_str(st, i++, g->fingerprint);
        bind_str(st, i++, r->hash);
        sqlite3_bind_int(st, i++, (int)e);
        bind_str(st, i++, ev->role);
        bind_str(st, i++, ev->kind);
        sqlite3_bind_int(st, i++, ev->key);
        sqlite3_bind_int64(st, i++, ev->tid);
        bind_u64(st, i++, ev->index);
        bind_str(st, i++, ev->site.module);
        bind_str(st, i++, ev->site.file);
        bind_str(st, i++, ev->site.function);
        sqlite3_bind_int64(st, i++, ev->site.line);
        sqlite3_bind_int64(st, i++, ev->site.column);
        bind_str(st, i++, ev->site.text);
        bind_u64(st, i++, ev->site.offset);
        if (sqlite3_step(st) != SQLITE_DONE)
            return -1;
    }
    return 0;
}

/* A finding's confirmation is the best one any of its occurrences got:
 * confirmed over spurious over nothing, then the smallest trace hash, so
 * that the order traces (or shards) arrive in does not matter. */
#define CONFIRM_RANK(c)                                                   \
    "(CASE WHEN " c " IN ('confirmed','refined','failed_early') THEN 2 "  \
    "WHEN " c " IS NULL OR " c " = '' THEN 0 ELSE 1 END)"

const char fb_confirm_better_sql[] =
    "UPDATE findings SET confirm_status = ?2, confirm_failure = ?3,"
    " confirm_detail = ?4, confirm_trace = ?5, confirm_ns = ?6 "
    "WHERE fingerprint = ?1 AND (" CONFIRM_RANK("?2") " > " CONFIRM_RANK(
        "confirm_status") " OR (" CONFIRM_RANK("?2") " = " CONFIRM_RANK(
        "confirm_status") " AND ?5 < coalesce(confirm_trace, '~')))";

int fb_db_confirm_finding(fb_store *s, const char *fp, const char *status,
                          const char *failure, const char *detail,
                          const char *trace, int64_t ns)
{
    sqlite3_stmt *st = fb_db_stmt(s, FB_STMT_CONFIRM, fb_confirm_better_sql);
    if (!st)
        return -1;
    bind_str(st, 1, fp);
    bind_str(st, 2, status);
    bind_str(st, 3, failure && failure[0] ? failure : NULL);
    bind_str(st, 4, detail);
    bind_str(st, 5, trace);
    sqlite3_bind_int64(st, 6, ns);
    return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

static int put_group(fb_store *s, const fb_result *r, const fb_group *g)
{
    sqlite3_stmt *st = fb_db_stmt(
        s, FB_STMT_FINDING,
        "INSERT OR IGNORE INTO findings(fingerprint, kind, key) "
        "VALUES(?,?,?)");
    if (!st)
        return -1;
    bind_str(st, 1, g->fingerprint);
    bind_str(st, 2, g->f.kind);
    bind_str(st, 3, g->key);
    if (sqlite3_step(st) != SQLITE_DONE)
        return -1;
    st = fb_db_stmt(s, FB_STMT_OCC,
                    "INSERT INTO occurrences VALUES(?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    int c = g->confirm.status[0] != 0;
    bind_str(st, 1, g->fingerprint);
    bind_str(st, 2, r->hash);
    sqlite3_bind_int64(st, 3, g->instances);
    sqlite3_bind_int(st, 4, g->observed);
    bind_str(st, 5, g->f.message);
    bind_str(st, 6, g->f.witness);
    sqlite3_bind_int(st, 7, g->f.replayable && g->f.witness);
    bind_str(st, 8, c ? g->confirm.status : NULL);
    bind_str(st, 9, c && g->confirm.failure[0] ? g->confirm.failure : NULL);
    bind_str(st, 10, c ? g->confirm.detail : NULL);
    if (sqlite3_step(st) != SQLITE_DONE)
        return -1;
    if (c && fb_db_confirm_finding(s, g->fingerprint, g->confirm.status,
                                   g->confirm.failure, g->confirm.detail,
                                   r->hash, now_ns()) < 0)
        return -1;
    return put_events(s, r, g);
}

static int drop_trace(fb_store *s, const char *hash, ft_error *err)
{
    static const char *const sql[] = {
        "DELETE FROM events WHERE trace = ?1",
        "DELETE FROM occurrences WHERE trace = ?1",
        "DELETE FROM traces WHERE hash = ?1",
        /* one statement over two lines (parenthesised: not a missing comma) */
        ("DELETE FROM findings WHERE fingerprint NOT IN "
         "(SELECT fingerprint FROM occurrences)"),
    };
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL) != SQLITE_OK)
            return fb_db_fail(s, err, "cannot replace the trace");
        if (i < 3)
            sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return fb_db_fail(s, err, "cannot replace the trace");
    }
    return 0;
}

void fb_store_set_options(fb_store *s, const char *options)
{
    snprintf(s->options, sizeof s->options, "%s", options ? options : "");
}

int fb_store_put(fb_store *s, const fb_result *r, int replace, ft_error *err)
{
    if (fb_db_exec(s, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    int had = fb_store_status(s, r->hash, NULL);
    int rc = 0;
    if (had == -2)
        rc = fb_db_fail(s, err, "cannot read the store");
    else if (had >= 0 && !replace) {
        fb_db_exec(s, "ROLLBACK", NULL);
        return 0;
    } else if (had >= 0)
        rc = drop_trace(s, r->hash, err);
    if (rc == 0 && put_trace(s, r) < 0)
        rc = fb_db_fail(s, err, "cannot store the trace");
    for (size_t k = 0; rc == 0 && k < r->ngroups; k++)
        if (put_group(s, r, &r->groups[k]) < 0)
            rc = fb_db_fail(s, err, "cannot store a finding");
    if (rc == 0 && fb_db_exec(s, "COMMIT", err) == 0)
        return 1;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* ---- merging ------------------------------------------------------------ */

static int64_t changes_of(fb_store *s, const char *sql, ft_error *err)
{
    if (fb_db_exec(s, sql, err) < 0)
        return -1;
    return sqlite3_changes64(s->db);
}

int fb_store_merge(fb_store *s, const char *path, fb_merge_stats *st,
                   ft_error *err)
{
    memset(st, 0, sizeof *st);
    struct stat a, b;
    if (stat(s->path, &a) == 0 && stat(path, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message,
                 "is the output store itself");
        return -1;
    }
    /* the shard is checked the way any store is, then attached */
    fb_store *other = fb_store_open(path, FB_STORE_READ, err);
    if (!other)
        return -1;
    fb_store_close(other, NULL);
    sqlite3_stmt *at;
    if (sqlite3_prepare_v2(s->db, "ATTACH DATABASE ? AS shard", -1, &at,
                           NULL) != SQLITE_OK)
        return fb_db_fail(s, err, "cannot attach the shard");
    sqlite3_bind_text(at, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(at);
    sqlite3_finalize(at);
    if (rc != SQLITE_DONE)
        return fb_db_fail(s, err, "cannot attach the shard");
    /* Only the traces this store lacks bring their occurrences: a trace
     * it has keeps its own analysis whole. */
    int64_t n[4];
    int ok = fb_db_exec(s,
                        "BEGIN IMMEDIATE;"
                        "CREATE TEMP TABLE fresh(hash TEXT PRIMARY KEY);"
                        "INSERT INTO fresh SELECT hash FROM shard.traces "
                        "WHERE hash NOT IN (SELECT hash FROM main.traces);",
                        err) == 0;
    if (ok) {
        n[0] = changes_of(s, "INSERT INTO main.traces SELECT * FROM "
                             "shard.traces WHERE hash IN temp.fresh", err);
        n[1] = n[0] < 0 ? -1
                        : changes_of(s,
                                     "INSERT OR IGNORE INTO main.findings"
                                     "(fingerprint, kind, key) SELECT "
                                     "fingerprint, kind, key FROM "
                                     "shard.findings WHERE fingerprint IN "
                                     "(SELECT fingerprint FROM "
                                     "shard.occurrences WHERE trace IN "
                                     "temp.fresh)",
                                     err);
        n[2] = n[1] < 0 ? -1
                        : changes_of(s, "INSERT INTO main.occurrences SELECT "
                                        "* FROM shard.occurrences WHERE "
                                        "trace IN temp.fresh",
                                     err);
        n[3] = n[2] < 0 ? -1
                        : changes_of(s, "INSERT INTO main.events SELECT * "
                                        "FROM shard.events WHERE trace IN "
                                        "temp.fresh",
                                     err);
        ok = n[3] >= 0;
    }
    /* confirmations the shard has for findings this store has */
    if (ok) {
        char sql[2048];
        snprintf(sql, sizeof sql,
                 "UPDATE main.findings AS f SET confirm_status = "
                 "o.confirm_status, confirm_failure = o.confirm_failure, "
                 "confirm_detail = o.confirm_detail, confirm_trace = "
                 "o.confirm_trace, confirm_ns = o.confirm_ns FROM "
                 "shard.findings AS o WHERE f.fingerprint = o.fingerprint "
                 "AND o.confirm_status IS NOT NULL AND (%s > %s OR (%s = %s "
                 "AND o.confirm_trace < coalesce(f.confirm_trace, '~')))",
                 CONFIRM_RANK("o.confirm_status"),
                 CONFIRM_RANK("f.confirm_status"),
                 CONFIRM_RANK("o.confirm_status"),
                 CONFIRM_RANK("f.confirm_status"));
        ok = fb_db_exec(s, sql, err) == 0;
    }
    if (ok) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM shard.traces",
                               -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            st->traces_had = (uint64_t)sqlite3_column_int64(q, 0) -
                             (uint64_t)n[0];
        sqlite3_finalize(q);
        ok = fb_db_exec(s, "DROP TABLE temp.fresh; COMMIT", err) == 0;
    }
    if (!ok) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_exec(s->db, "DROP TABLE IF EXISTS temp.fresh", NULL, NULL,
                     NULL);
    } else {
        st->traces = (uint64_t)n[0];
        st->findings = (uint64_t)n[1];
        st->occurrences = (uint64_t)n[2];
    }
    sqlite3_exec(s->db, "DETACH DATABASE shard", NULL, NULL, NULL);
    return ok ? 0 : -1;
}

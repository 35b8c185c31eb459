/* SPDX-License-Identifier: MIT */
/* confirm.c - `foretell batch confirm`: one witness per finding that has
 * no replay yet (the replayable occurrence in the trace with the
 * smallest hash), replayed against the program (the trace's recorded
 * command line, or the one given), and the result recorded on the
 * occurrence and the finding, each in its own transaction.  A program
 * that is missing or is another build than the one recorded is not run:
 * its findings stay unconfirmed for a later run. */
#define _GNU_SOURCE
#include "batch/store_internal.h"
#include "predict/kind.h"
#include "replay/confirm.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct candidate {
    char *fingerprint, *kind, *trace, *witness, *program, *build_id;
    char *argv;
    int argv_len;
} candidate;

static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

static void cand_free(candidate *c)
{
    free(c->fingerprint);
    free(c->kind);
    free(c->trace);
    free(c->witness);
    free(c->program);
    free(c->build_id);
    free(c->argv);
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "";
}

static int collect(fb_store *s, const fb_confirm_opts *o, candidate **out,
                   size_t *n, ft_error *err)
{
    static const char sql[] =
        "SELECT f.fingerprint, f.kind, o.trace, o.witness, t.program,"
        " t.build_id, t.argv FROM findings f JOIN occurrences o"
        " USING(fingerprint) JOIN traces t ON t.hash = o.trace"
        " WHERE o.replayable = 1 AND o.witness IS NOT NULL AND"
        " (f.confirm_status IS NULL OR (?1 AND f.confirm_status NOT IN"
        " ('confirmed','refined','failed_early')))"
        " ORDER BY f.fingerprint, o.trace";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fb_db_fail(s, err, "cannot read the store");
    sqlite3_bind_int(st, 1, o->all);
    size_t cap = 0;
    int rc;
    char last[FT_FINGERPRINT_LEN + 1] = "";
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *fp = (const char *)sqlite3_column_text(st, 0);
        const char *prog = (const char *)sqlite3_column_text(st, 4);
        if (!fp || strcmp(fp, last) == 0)
            continue;
        if (o->program && strcmp(base_name(prog), o->program) != 0)
            continue;
        snprintf(last, sizeof last, "%s", fp);
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            candidate *c2 = realloc(*out, nc * sizeof *c2);
            if (!c2) {
                rc = SQLITE_NOMEM;
                break;
            }
            *out = c2;
            cap = nc;
        }
        candidate *c = &(*out)[(*n)++];
        memset(c, 0, sizeof *c);
        c->fingerprint = col_str(st, 0);
        c->kind = col_str(st, 1);
        c->trace = col_str(st, 2);
        c->witness = col_str(st, 3);
        c->program = col_str(st, 4);
        c->build_id = col_str(st, 5);
        int bl = sqlite3_column_bytes(st, 6);
        const void *b = sqlite3_column_blob(st, 6);
        if (b && bl > 0 && (c->argv = malloc((size_t)bl + 1))) {
            memcpy(c->argv, b, (size_t)bl);
            c->argv[bl] = 0;
            c->argv_len = bl;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : fb_db_fail(s, err, "cannot read the store");
}

/* The command to run: the given one, or the recorded argv with argv[0]
 * the recorded program's absolute path. */
static char **command_of(const candidate *c, const fb_confirm_opts *o)
{
    if (o->prog) {
        size_t n = 0;
        while (o->prog[n])
            n++;
        char **v = calloc(n + 1, sizeof *v);
        for (size_t i = 0; v && i < n; i++)
            v[i] = o->prog[i];
        return v;
    }
    size_t n = 0;
    for (int i = 0; i < c->argv_len; i++)
        n += c->argv[i] == 0;
    char **v = calloc(n + 2, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (int i = 0; i < c->argv_len && k < n; i += (int)strlen(c->argv + i) + 1)
        v[k++] = c->argv + i;
    if (k == 0)
        v[k++] = c->program;
    else if (c->program && c->program[0])
        v[0] = c->program;
    v[k] = NULL;
    return v;
}

static int record(fb_store *s, const candidate *c, const char *status,
                  const char *failure, const char *detail, ft_error *err)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (fb_db_exec(s, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    sqlite3_stmt *st;
    int ok = sqlite3_prepare_v2(s->db,
                                "UPDATE occurrences SET confirm_status = ?,"
                                " confirm_failure = ?, confirm_detail = ?"
                                " WHERE fingerprint = ? AND trace = ?",
                                -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
        if (failure && failure[0])
            sqlite3_bind_text(st, 2, failure, -1, SQLITE_STATIC);
        if (detail && detail[0])
            sqlite3_bind_text(st, 3, detail, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, c->fingerprint, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, c->trace, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    ok = ok && fb_db_confirm_finding(s, c->fingerprint, status, failure,
                                     detail && detail[0] ? detail : NULL,
                                     c->trace, ns) == 0;
    if (ok && fb_db_exec(s, "COMMIT", err) == 0)
        return 0;
    if (!ok)
        fb_db_fail(s, err, "cannot record the replay");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int rm_one(const char *path, const struct stat *sb, int type,
                  struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(path);
    return 0;
}

/* Replays c; 1 recorded, 0 not run (said on stderr), -1 store failed. */
/* A race's other order (its witness with the two accesses swapped, as
 * analyze writes <name>.alt.schedule) into path; 0 when the witness does
 * not end in two accesses to swap or cannot be written (the witness
 * alone is replayed then). */
static int other_order(const candidate *c, const char *path)
{
    FILE *in = fmemopen(c->witness, strlen(c->witness), "r");
    if (!in)
        return 0;
    ft_schedule sc;
    char err[300];
    int rc = ft_schedule_read(in, c->fingerprint, &sc, err, sizeof err);
    fclose(in);
    if (rc < 0)
        return 0;
    rc = ft_schedule_other_order(&sc) &&
         ft_schedule_save(&sc, path, err, sizeof err) == 0;
    ft_schedule_free(&sc);
    return rc;
}

static int confirm_one(fb_store *s, const candidate *c,
                       const fb_confirm_opts *o, const char *dir,
                       char *what, size_t whatlen, ft_error *err)
{
    char **argv = command_of(c, o);
    if (!argv) {
        snprintf(what, whatlen, "not run: out of memory");
        return 0;
    }
    char found[4096], got[160];
    const char *exe = fr_which(argv[0], found, sizeof found);
    if (!exe) {
        snprintf(what, whatlen, "not run: %.300s not found (give the "
                 "program after --)", argv[0]);
        free(argv);
        return 0;
    }
    if (c->build_id && c->build_id[0] &&
        ft_file_build_id(exe, got, sizeof got) >= 0 &&
        strcmp(got, c->build_id) != 0) {
        snprintf(what, whatlen, "not run: %.300s is another build (build id "
                 "%.40s, the trace recorded %.40s)", exe,
                 got[0] ? got : "none", c->build_id);
        free(argv);
        return 0;
    }
    char sched[4200];
    snprintf(sched, sizeof sched, "%s/%s.schedule", dir, c->fingerprint);
    FILE *f = fopen(sched, "w");
    if (!f || fputs(c->witness, f) < 0 || fclose(f) != 0) {
        snprintf(what, whatlen, "not run: cannot write %.300s: %s", sched,
                 strerror(errno));
        free(argv);
        return 0;
    }
    fr_confirm_opts co;
    fr_confirm_opts_default(&co);
    co.argv = argv;
    co.dir = dir;
    co.timeout_s = o->run_timeout;
    co.tails = o->tails;
    co.tails_more_until = o->tail_time > 0 ? ft_now() + o->tail_time : 0;
    fr_confirmation cf;
    ft_error e;
    /* the other kinds' witnesses are replayed for what their kind
     * expects (a deadlock, a heap error, the state reached) */
    const ft_pkind *k = ft_pkind_by_name(c->kind);
    char alt[4200];
    snprintf(alt, sizeof alt, "%s/%s.alt.schedule", dir, c->fingerprint);
    int has_alt = k && k->kind == FT_PROP_RACE && other_order(c, alt);
    int rc = k ? fr_confirm_expect(k->expect, sched, has_alt ? alt : NULL,
                                   &co, &cf, &e)
               : fr_confirm_schedule(sched, &co, &cf, &e);
    free(argv);
    if (rc < 0) {
        snprintf(what, whatlen, "not run: %.400s", e.message);
        return 0;
    }
    const char *detail;
    const char *status = fb_confirm_status(c->kind, &cf, &detail);
    const char *failure = cf.outcome.failure != FR_OK
                              ? fr_failure_name(cf.outcome.failure)
                              : "";
    snprintf(what, whatlen, "%s%s%s", status, failure[0] ? ", " : "",
             failure);
    return record(s, c, status, failure, detail, err) < 0 ? -1 : 1;
}

int fb_confirm_findings(fb_store *s, const fb_confirm_opts *o,
                        fb_confirm_stats *st, ft_error *err)
{
    memset(st, 0, sizeof *st);
    candidate *c = NULL;
    size_t n = 0;
    int rc = collect(s, o, &c, &n, err);
    char tmp[4096];
    const char *dir = o->work_dir;
    int nodir = 0;
    if (rc == 0 && n && !dir) {
        const char *t = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/foretell-confirm-XXXXXX",
                 t && *t ? t : "/tmp");
        dir = tmp;
        nodir = !mkdtemp(tmp);
    } else if (rc == 0 && n) {
        nodir = mkdir(dir, 0777) != 0 && errno != EEXIST;
    }
    if (nodir) {
        rc = -1;
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%.250s", dir);
        snprintf(err->message, sizeof err->message,
                 "cannot create the work directory: %s", strerror(errno));
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        char what[600];
        int r = confirm_one(s, &c[i], o, dir, what, sizeof what, err);
        st->tried++;
        if (r < 0)
            rc = -1;
        else if (r == 0)
            st->not_run++;
        else if (!strncmp(what, "confirmed", 9) ||
                 !strncmp(what, "refined", 7) ||
                 !strncmp(what, "failed_early", 12))
            st->confirmed++;
        else if (!strncmp(what, "spurious", 8))
            st->spurious++;
        else /* reached without a failure, or not reproduced */
            st->unconfirmed++;
        if (o->progress && r >= 0)
            fprintf(stderr, "foretell batch confirm: %zu/%zu: %s %s: %s\n",
                    i + 1, n, c[i].fingerprint, c[i].kind, what);
    }
    if (!o->work_dir && n && dir == tmp && !nodir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    for (size_t i = 0; i < n; i++)
        cand_free(&c[i]);
    free(c);
    return rc;
}

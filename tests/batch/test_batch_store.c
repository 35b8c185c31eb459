/* SPDX-License-Identifier: MIT */
/* test_batch_store.c - batch/ without analysis: a trace's result through
 * the wire (round trip; every truncation and many corruptions refused or
 * decoded, never crashing), the store (one transaction per trace, a put
 * twice counts once, replace, what reports read back, merge: union,
 * idempotent, order-independent, refusing itself and non-stores),
 * shards (parsing, Slurm and Kubernetes environments, every hash owned by
 * exactly one shard) and inputs (directories, @lists, duplicates by
 * content, FIFOs and missing files named). */
#define _GNU_SOURCE
#include "batch/batch.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void path_in(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static void fill_event(ft_fevent *e, const char *role, int key, uint32_t tid,
                       const char *file, uint32_t line, const char *text)
{
    memset(e, 0, sizeof *e);
    snprintf(e->role, sizeof e->role, "%s", role);
    snprintf(e->kind, sizeof e->kind, "write");
    e->key = (uint8_t)key;
    e->tid = tid;
    e->index = 1000 + line;
    e->site.module = strdup("prog");
    e->site.file = strdup(file);
    e->site.function = strdup("fn");
    e->site.text = text ? strdup(text) : NULL;
    e->site.line = line;
    e->site.column = 3;
    e->site.offset = 0x10 * line;
}

/* A result with findings at the given lines (a finding per line; two
 * equal lines make one group of two instances). */
static void make_result(fb_result *r, const char *hash, const char *path,
                        const uint32_t *lines, size_t n)
{
    memset(r, 0, sizeof *r);
    snprintf(r->hash, sizeof r->hash, "%s", hash);
    r->path = strdup(path);
    r->program = strdup("/bin/prog");
    r->build_id = strdup("abcd");
    r->end_reason = strdup("exit");
    static const char argv[] = "prog\0-x\0a b";
    r->argv = malloc(sizeof argv);
    memcpy(r->argv, argv, sizeof argv);
    r->argv_len = sizeof argv;
    r->recorded_ns = 123456789;
    r->exit_status = 0;
    r->events = 55;
    r->threads = 3;
    r->status = FB_ANALYZED;
    r->exit_code = n ? 1 : 0;
    r->properties = 4;
    r->violated = n;
    r->seconds = 0.25;
    ft_finding *f = calloc(n + 1, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        snprintf(f[i].kind, sizeof f[i].kind, "atomicity");
        char msg[64];
        snprintf(msg, sizeof msg, "violation at line %u", lines[i]);
        f[i].message = strdup(msg);
        f[i].events = calloc(2, sizeof *f[i].events);
        f[i].nevents = 2;
        char text[32];
        snprintf(text, sizeof text, "x = %u;", lines[i]);
        fill_event(&f[i].events[0], "region-begin", 1, (uint32_t)i,
                   "/src/x.c", lines[i], text);
        fill_event(&f[i].events[1], "access", 0, 2, "/src/y.c", 7, NULL);
        f[i].witness = strdup("foretell-schedule 1\ntrace: t\nprogram: p\n"
                              "kind: CA\nproperty: #0\nsteps: 1\n"
                              "0 1 write ! /src/x.c:3\nend\n");
        f[i].replayable = 1;
        f[i].prop = i;
    }
    assert_int_equal(fb_result_group(r, f, n), 0);
}

static void test_wire(void **state)
{
    (void)state;
    fb_result r, back;
    const uint32_t lines[] = {10, 20, 10};
    make_result(&r, "ab12", "/t/a.ftrace", lines, 3);
    assert_int_equal(r.ngroups, 2);
    assert_int_equal(r.groups[0].instances, 2);
    snprintf(r.groups[1].confirm.status, sizeof r.groups[1].confirm.status,
             "spurious");
    r.groups[1].confirm.detail = strdup("step 3: diverged");
    r.message = strdup("a note");
    char *buf;
    size_t len;
    assert_int_equal(fb_result_encode(&r, &buf, &len), 0);
    assert_int_equal(fb_result_decode(buf, len, &back), 0);
    assert_string_equal(back.hash, "ab12");
    assert_string_equal(back.path, "/t/a.ftrace");
    assert_int_equal(back.argv_len, r.argv_len);
    assert_memory_equal(back.argv, r.argv, r.argv_len);
    assert_int_equal(back.recorded_ns, 123456789);
    assert_int_equal(back.exit_code, 1);
    assert_true(back.seconds == 0.25);
    assert_string_equal(back.message, "a note");
    assert_int_equal(back.ngroups, 2);
    for (size_t k = 0; k < 2; k++) {
        const fb_group *a = &r.groups[k], *b = &back.groups[k];
        assert_string_equal(a->fingerprint, b->fingerprint);
        assert_string_equal(a->key, b->key);
        assert_int_equal(a->instances, b->instances);
        assert_string_equal(a->f.message, b->f.message);
        assert_string_equal(a->f.witness, b->f.witness);
        assert_int_equal(a->f.prop, b->f.prop);
        assert_int_equal(a->f.nevents, b->f.nevents);
        for (uint32_t e = 0; e < a->f.nevents; e++) {
            const ft_fevent *x = &a->f.events[e], *y = &b->f.events[e];
            assert_string_equal(x->role, y->role);
            assert_int_equal(x->key, y->key);
            assert_int_equal(x->index, y->index);
            assert_string_equal(x->site.file, y->site.file);
            assert_int_equal(x->site.line, y->site.line);
            assert_int_equal(x->site.offset, y->site.offset);
            if (x->site.text)
                assert_string_equal(x->site.text, y->site.text);
            else
                assert_null(y->site.text);
        }
        assert_string_equal(a->confirm.status, b->confirm.status);
    }
    assert_string_equal(back.groups[1].confirm.detail, "step 3: diverged");
    fb_result_free(&back);
    /* a child that died mid-write: every prefix is refused */
    for (size_t cut = 0; cut < len; cut++)
        assert_int_equal(fb_result_decode(buf, cut, &back), -1);
    /* flipped bytes: refused or decoded, never a crash (ASan checks) */
    char *bad = malloc(len);
    for (size_t i = 0; i < len; i++) {
        memcpy(bad, buf, len);
        bad[i] ^= (char)(0x5a + i);
        if (fb_result_decode(bad, len, &back) == 0)
            fb_result_free(&back);
    }
    free(bad);
    free(buf);
    fb_result_free(&r);
}

static int64_t count(const char *db, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static void put(fb_store *s, const char *hash, const uint32_t *lines,
                size_t n, int replace, int want)
{
    fb_result r;
    char path[64];
    snprintf(path, sizeof path, "/t/%s.ftrace", hash);
    make_result(&r, hash, path, lines, n);
    ft_error err;
    assert_int_equal(fb_store_put(s, &r, replace, &err), want);
    fb_result_free(&r);
}

static void test_store(void **state)
{
    (void)state;
    char db[128];
    path_in(db, sizeof db, "s.db");
    ft_error err;
    assert_null(fb_store_open(db, FB_STORE_WRITE, &err));
    fb_store *s = fb_store_open(db, FB_STORE_CREATE, &err);
    assert_non_null(s);
    const uint32_t a[] = {10, 20, 10}, b[] = {20, 30}, c[] = {40};
    put(s, "bb", a, 3, 0, 1);
    put(s, "bb", c, 1, 0, 0); /* there already: not counted twice */
    put(s, "aa", b, 2, 0, 1);
    put(s, "cc", NULL, 0, 0, 1);
    assert_int_equal(fb_store_status(s, "aa", NULL), FB_ANALYZED);
    int code;
    assert_int_equal(fb_store_status(s, "bb", &code), FB_ANALYZED);
    assert_int_equal(code, 1);
    assert_int_equal(fb_store_status(s, "zz", NULL), -1);
    fb_totals t;
    assert_int_equal(fb_store_totals(s, &t, &err), 0);
    assert_int_equal(t.traces, 3);
    assert_int_equal(t.findings, 3);    /* lines 10, 20, 30 */
    assert_int_equal(t.occurrences, 4); /* bb: 10, 20; aa: 20, 30 */
    assert_int_equal(t.instances, 5);
    fb_finding_row *f;
    size_t n;
    assert_int_equal(fb_store_findings(s, &f, &n, &err), 0);
    assert_int_equal(n, 3);
    /* most traces first; the representative is the smallest hash */
    assert_int_equal(f[0].traces, 2);
    assert_string_equal(f[0].trace_hash, "aa");
    assert_string_equal(f[0].message, "violation at line 20");
    assert_int_equal(f[0].nevents, 2);
    assert_string_equal(f[0].events[0].text, "x = 20;");
    fb_finding_rows_free(f, n);
    fb_trace_row *tr;
    assert_int_equal(fb_store_traces(s, &tr, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(tr[0].path, "/t/aa.ftrace");
    assert_int_equal(tr[0].nocc, 2);
    assert_string_equal(tr[0].occ[0].file, "/src/x.c");
    fb_trace_rows_free(tr, n);
    /* replace: the old occurrences and the orphaned finding go */
    put(s, "bb", c, 1, 1, 1);
    assert_int_equal(fb_store_totals(s, &t, &err), 0);
    assert_int_equal(t.traces, 3);
    assert_int_equal(t.findings, 3); /* 20, 30, 40 (10 is gone) */
    assert_int_equal(t.occurrences, 3);
    assert_int_equal(fb_store_close(s, &err), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM events"), 6);
}

/* The canonical content of a store, for comparisons (times left out). */
static char *dump(const char *db)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    static const char *const q[] = {
        "SELECT hash, path, status, exit_code, findings FROM traces "
        "ORDER BY hash",
        "SELECT fingerprint, kind, key, confirm_status FROM findings "
        "ORDER BY fingerprint",
        "SELECT fingerprint, trace, instances, message, witness FROM "
        "occurrences ORDER BY fingerprint, trace",
        "SELECT fingerprint, trace, ord, file, line, text FROM events "
        "ORDER BY fingerprint, trace, ord",
    };
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(h, q[i], -1, &st, NULL),
                         SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                fprintf(m, "%s|", t ? (const char *)t : "NULL");
            }
            fputc('\n', m);
        }
        sqlite3_finalize(st);
        fputs("--\n", m);
    }
    fclose(m);
    sqlite3_close(h);
    return out;
}

static void make_store(const char *name, const char *const *hashes,
                       size_t n)
{
    char db[128];
    path_in(db, sizeof db, name);
    unlink(db);
    ft_error err;
    fb_store *s = fb_store_open(db, FB_STORE_CREATE, &err);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        uint32_t lines[2] = {(uint32_t)(hashes[i][0] - 'a') % 3 + 1, 9};
        put(s, hashes[i], lines, 2, 0, 1);
    }
    assert_int_equal(fb_store_close(s, &err), 0);
}

static void merge(const char *out, const char *in, int want)
{
    char o[128], i[128];
    path_in(o, sizeof o, out);
    path_in(i, sizeof i, in);
    ft_error err;
    fb_store *s = fb_store_open(o, FB_STORE_CREATE, &err);
    assert_non_null(s);
    fb_merge_stats st;
    assert_int_equal(fb_store_merge(s, i, &st, &err), want);
    assert_int_equal(fb_store_close(s, &err), 0);
}

static void test_merge(void **state)
{
    (void)state;
    static const char *const all[] = {"a1", "b2", "c3", "d4", "e5"};
    static const char *const s1[] = {"d4", "a1"}, *const s2[] = {"b2", "e5"},
                             *const s3[] = {"c3", "a1"};
    make_store("all.db", all, 5);
    make_store("s1.db", s1, 2);
    make_store("s2.db", s2, 2);
    make_store("s3.db", s3, 2);
    char p[128];
    path_in(p, sizeof p, "m.db");
    unlink(p);
    merge("m.db", "s3.db", 0);
    merge("m.db", "s1.db", 0);
    merge("m.db", "s2.db", 0);
    char a[128];
    path_in(a, sizeof a, "all.db");
    char *want = dump(a), *got = dump(p);
    assert_string_equal(want, got);
    free(got);
    /* twice, and a store into one that has it all: nothing changes */
    merge("m.db", "s1.db", 0);
    merge("m.db", "all.db", 0);
    got = dump(p);
    assert_string_equal(want, got);
    free(got);
    /* the other way round */
    path_in(p, sizeof p, "m2.db");
    unlink(p);
    merge("m2.db", "s2.db", 0);
    merge("m2.db", "s1.db", 0);
    merge("m2.db", "s3.db", 0);
    got = dump(p);
    assert_string_equal(want, got);
    free(got);
    free(want);
    /* itself, a missing file, not SQLite, SQLite of someone else */
    merge("m.db", "m.db", -1);
    merge("m.db", "missing.db", -1);
    char junk[128];
    path_in(junk, sizeof junk, "junk.db");
    FILE *f = fopen(junk, "w");
    fputs("not a database, just text that is long enough to look like a "
          "file of some size for SQLite to refuse it by its header\n",
          f);
    fclose(f);
    ft_error err;
    assert_null(fb_store_open(junk, FB_STORE_READ, &err));
    assert_non_null(strstr(err.message, "not a foretell store"));
    merge("m.db", "junk.db", -1);
    char other[128];
    path_in(other, sizeof other, "other.db");
    sqlite3 *h;
    sqlite3_open(other, &h);
    sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(h);
    assert_null(fb_store_open(other, FB_STORE_READ, &err));
    assert_non_null(strstr(err.message, "not a foretell store"));
    /* another version */
    path_in(other, sizeof other, "s1.db");
    sqlite3_open(other, &h);
    sqlite3_exec(h, "UPDATE meta SET value = '99' WHERE key = 'version'",
                 NULL, NULL, NULL);
    sqlite3_close(h);
    assert_null(fb_store_open(other, FB_STORE_READ, &err));
    assert_non_null(strstr(err.message, "version 99"));
}

static void test_shards(void **state)
{
    (void)state;
    fb_shard s;
    assert_int_equal(fb_shard_parse("2/4", &s), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    assert_int_equal(fb_shard_parse("4/4", &s), -1);
    assert_int_equal(fb_shard_parse("1/0", &s), -1);
    assert_int_equal(fb_shard_parse("-1/4", &s), -1);
    assert_int_equal(fb_shard_parse("1/", &s), -1);
    assert_int_equal(fb_shard_parse("1", &s), -1);
    assert_int_equal(fb_shard_parse("1/4x", &s), -1);
    char from[64], why[300];
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("JOB_COMPLETION_INDEX");
    assert_int_equal(fb_shard_from_env(&s, 0, from, 64, why, 300), 0);
    setenv("SLURM_ARRAY_TASK_ID", "7", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
    setenv("SLURM_ARRAY_TASK_STEP", "2", 1);
    assert_int_equal(fb_shard_from_env(&s, 0, from, 64, why, 300), 1);
    assert_int_equal(s.index, 3); /* tasks 1, 3, 5, 7 */
    assert_int_equal(s.count, 4);
    setenv("SLURM_ARRAY_TASK_ID", "4", 1); /* not a task of 1-7:2 */
    assert_int_equal(fb_shard_from_env(&s, 0, from, 64, why, 300), -1);
    unsetenv("SLURM_ARRAY_TASK_ID");
    setenv("JOB_COMPLETION_INDEX", "2", 1);
    assert_int_equal(fb_shard_from_env(&s, 0, from, 64, why, 300), -1);
    assert_non_null(strstr(why, "--shard-count"));
    assert_int_equal(fb_shard_from_env(&s, 3, from, 64, why, 300), 1);
    assert_int_equal(s.index, 2);
    assert_int_equal(fb_shard_from_env(&s, 2, from, 64, why, 300), -1);
    unsetenv("JOB_COMPLETION_INDEX");
    /* every hash in exactly one of 4 shards, and all shards used */
    int used[4] = {0};
    for (unsigned i = 0; i < 200; i++) {
        char h[FB_HASH_LEN + 1];
        for (int k = 0; k < FB_HASH_LEN; k++)
            h[k] = "0123456789abcdef"[(i * 7919u + (unsigned)k * 31u) % 16];
        h[FB_HASH_LEN] = 0;
        int owners = 0;
        for (uint32_t x = 0; x < 4; x++) {
            fb_shard q = {x, 4};
            if (fb_shard_owns(&q, h)) {
                owners++;
                used[x]++;
            }
        }
        assert_int_equal(owners, 1);
        fb_shard none = {0, 0};
        assert_true(fb_shard_owns(&none, h));
    }
    for (int x = 0; x < 4; x++)
        assert_true(used[x] > 0);
}

static void write_file(const char *name, const void *data, size_t n)
{
    char p[128];
    path_in(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fwrite(data, 1, n, f);
    fclose(f);
}

static void test_inputs(void **state)
{
    (void)state;
    char p[128], q[128];
    path_in(p, sizeof p, "in");
    mkdir(p, 0777);
    path_in(p, sizeof p, "in/sub");
    mkdir(p, 0777);
    static const unsigned char head[] = {0x94, 0x01, 1, 2, 3};
    static const unsigned char head2[] = {0x94, 0x01, 9, 9};
    write_file("in/a.ftrace", head, sizeof head);
    write_file("in/sub/b.anything", head2, sizeof head2);
    write_file("in/sub/copy.ftrace", head, sizeof head); /* same as a */
    write_file("in/notes.txt", "hello", 5);
    write_file("in/r.std", "T0|r(x)|1\n", 10);
    fb_inputs in = {0};
    ft_error err;
    path_in(p, sizeof p, "in");
    assert_int_equal(fb_inputs_add(&in, p, &err), 0);
    assert_int_equal(in.n, 4); /* a, b, copy, r.std; not notes.txt */
    assert_int_equal(fb_inputs_hash(&in, &err), 0);
    assert_int_equal(in.n, 3);
    assert_int_equal(in.duplicates, 1);
    for (size_t i = 1; i < in.n; i++)
        assert_true(strcmp(in.v[i - 1].hash, in.v[i].hash) < 0);
    fb_inputs_free(&in);
    /* an @list: comments, blank lines, then a missing file by line */
    path_in(p, sizeof p, "in/a.ftrace");
    path_in(q, sizeof q, "list");
    FILE *f = fopen(q, "w");
    fprintf(f, "# traces\n\n%s\n%s/in/nope.ftrace\n", p, dir);
    fclose(f);
    char arg[140];
    snprintf(arg, sizeof arg, "@%s", q);
    assert_int_equal(fb_inputs_add(&in, arg, &err), -1);
    assert_non_null(strstr(err.message, "line 4"));
    assert_non_null(strstr(err.message, "nope.ftrace"));
    assert_int_equal(in.n, 1);
    fb_inputs_free(&in);
    /* a FIFO is refused without blocking on it */
    path_in(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(fb_inputs_add(&in, p, &err), -1);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_int_equal(fb_inputs_add(&in, "@/nonexistent/list", &err), -1);
    assert_non_null(strstr(err.message, "cannot read the list"));
    fb_inputs_free(&in);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ft-batch-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire),
        cmocka_unit_test(test_store),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

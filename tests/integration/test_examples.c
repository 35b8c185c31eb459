/* SPDX-License-Identifier: MIT */
/* test_examples.c - every program of data/examples.tsv, recorded.  Run as
 * `test_examples NAME` (one ctest test per manifest row).
 *
 *  natural:   the default recording (round-robin, no preemption in such
 *             short runs) passes, or deadlocks for the rows meant to; the
 *             trace reads without damage, has the row's thread count, is
 *             consistent (ft_check_consistency), obeys the pthread models
 *             of sync.c, and has events at every BUG-marked line that the
 *             row executes (the SYMBOLS table maps sites to source lines).
 *  schedules: recordings with quantum 1 and seeds 1..N: every trace is
 *             still consistent and obeys the models (including crashed
 *             runs, which must end with a SIGNAL event and END "signal");
 *             correct programs never fail; for the buggy rows whose bug is
 *             shallow enough for random scheduling, some seed shows it in
 *             the row's own way (deadlock, crash, double free, use after
 *             free, failed assert).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/integration/it.h"

#define MAX_ROWS 64
#define SEEDS_BUGGY 150
#define SEEDS_CORRECT 12

static it_example row;

/* Rows whose bug random scheduling with quantum 1 does not reach within
 * SEEDS_BUGGY seeds (they need prediction or PCT-style depth): */
static const char *const deep_rows[] = {
    "best_fig2",       /* Mb sleeps before s6 and s12 */
    "vb_fig9",         /* both increments between two adjacent reads */
    "reorder_16",      /* 2 switches among 17 threads */
    "null_deref",      /* the closer sleeps a real millisecond first;
                          the worker has read long before (it showed
                          only when the machine's load stalled it) */
    NULL,
};

static int is_deep(const char *name)
{
    for (int i = 0; deep_rows[i]; i++)
        if (!strcmp(deep_rows[i], name))
            return 1;
    return 0;
}

static int split_args(char *buf, char **args, int max)
{
    int n = 0;
    for (char *p = strtok(buf, " "); p && n < max - 1; p = strtok(NULL, " "))
        args[n++] = p;
    args[n] = NULL;
    return n;
}

static void trace_path(char *buf, size_t len, const char *what)
{
    snprintf(buf, len, "%s/%s.%s.ft", it_work_dir(), row.name, what);
}

static int record_row(const char *trace, const char *quantum,
                      const char *seed)
{
    char prog[512], argbuf[64], *args[8], err[600];
    it_example_prog(&row, prog, sizeof prog);
    snprintf(argbuf, sizeof argbuf, "%s", row.args);
    split_args(argbuf, args, 8);
    snprintf(err, sizeof err, "%s.err", trace);
    return it_record(trace, quantum, seed, "60", prog, args, err);
}

static it_trace *load(const char *path)
{
    char why[512];
    it_trace *t = it_trace_load(path, why, sizeof why);
    if (!t)
        fail_msg("%s: trace does not load: %s", row.name, why);
    return t;
}

static void assert_models(const it_trace *t, it_sync_report *rep,
                          const char *what)
{
    it_check_sync(t, rep);
    if (rep->violations)
        fail_msg("%s (%s): %u violation(s) of pthread semantics; first: %s",
                 row.name, what, rep->violations, rep->first);
}

static void test_natural(void **state)
{
    (void)state;
    char trace[512];
    trace_path(trace, sizeof trace, "natural");
    int code = record_row(trace, NULL, NULL);
    int deadlocks = !strcmp(row.natural, "always-fails");
    assert_int_equal(code, deadlocks ? 86 : 0);

    it_trace *t = load(trace);
    assert_false(t->damaged);
    assert_false(t->read_error);
    const ft_end *end = ft_reader_end(t->r);
    assert_true(end->present);
    assert_string_equal(end->reason, deadlocks ? "deadlock" : "exit");
    assert_int_equal(it_trace_count(t, FT_EV_DEADLOCK), deadlocks);
    assert_int_equal(it_trace_threads(t), row.threads);

    const ft_header *h = ft_reader_header(t->r);
    char prog[512];
    it_example_prog(&row, prog, sizeof prog);
    assert_true(h->argc >= 1);
    assert_non_null(strstr(h->argv[0], strrchr(prog, '/')));
    if (row.args[0]) {
        assert_true(h->argc >= 2);
        assert_string_equal(h->argv[1], row.args);
    }

    assert_int_equal(it_consistency(trace), 0);
    it_sync_report rep;
    assert_models(t, &rep, "natural run");
    assert_int_equal(rep.double_frees, 0);
    assert_int_equal(rep.freed_accesses, 0);
    assert_int_equal(rep.misuse, 0);

    unsigned lines[64];
    int nlines = it_bug_lines(&row, lines, 64);
    assert_true(nlines >= 0);
    if (!strcmp(row.kind, "none"))
        assert_int_equal(nlines, 0);
    else
        assert_true(nlines > 0);
    /* a forced deadlock never reaches its inner acquisitions */
    for (int i = 0; i < nlines && !deadlocks; i++)
        if (!it_trace_hits_line(t, row.source, lines[i]))
            fail_msg("%s: no event at BUG line %s:%u", row.name, row.source,
                     lines[i]);
    it_trace_free(t);
}

/* Did this run show the row's bug, the way the manifest says it shows? */
static int manifests(int code, const it_sync_report *rep)
{
    if (!strcmp(row.kind, "deadlock"))
        return code == 86;
    if (!strcmp(row.kind, "null-deref"))
        return code == 128 + SIGSEGV || rep->null_objects > 0;
    if (!strcmp(row.kind, "use-after-free"))
        return rep->freed_accesses > 0 || code == 128 + SIGABRT;
    if (!strcmp(row.kind, "double-free"))
        return rep->double_frees > 0 || code == 128 + SIGABRT;
    return code != 0;
}

static void test_schedules(void **state)
{
    (void)state;
    int correct = !strcmp(row.kind, "none");
    int deep = is_deep(row.name);
    int nseeds = correct || deep ? SEEDS_CORRECT : SEEDS_BUGGY;
    int found = 0;
    for (int seed = 1; seed <= nseeds && !found; seed++) {
        char trace[512], seedstr[16];
        snprintf(seedstr, sizeof seedstr, "%d", seed);
        char what[32];
        snprintf(what, sizeof what, "seed%d", seed);
        trace_path(trace, sizeof trace, what);
        int code = record_row(trace, "1", seedstr);
        assert_true(code >= 0);
        if (correct && code != 0)
            fail_msg("%s: correct program failed (exit %d) with seed %d",
                     row.name, code, seed);

        it_trace *t = load(trace);
        assert_false(t->read_error);
        if (it_consistency(trace) != 0)
            fail_msg("%s: seed %d: inconsistent trace", row.name, seed);
        it_sync_report rep;
        assert_models(t, &rep, what);
        const ft_end *end = ft_reader_end(t->r);
        if (code > 128 && code != 128 + SIGKILL) {
            /* crashed: the runtime's handler ends the trace properly */
            assert_false(t->damaged);
            assert_true(end->present);
            assert_string_equal(end->reason, "signal");
            assert_int_equal(it_trace_count(t, FT_EV_SIGNAL), 1);
            assert_int_equal(t->ev[t->n - 1].kind, FT_EV_SIGNAL);
            assert_int_equal(t->ev[t->n - 1].value, code - 128);
        }
        if (code == 86) {
            assert_string_equal(end->reason, "deadlock");
            assert_int_equal(t->ev[t->n - 1].kind, FT_EV_DEADLOCK);
        }
        if (correct && (rep.misuse || rep.double_frees || rep.freed_accesses))
            fail_msg("%s: seed %d: correct program misused the heap or a "
                     "lock", row.name, seed);
        found = !correct && manifests(code, &rep);
        it_trace_free(t);
        if (!found)
            remove(trace);
    }
    if (!correct && !deep && !found)
        fail_msg("%s: bug (%s) not shown by seeds 1..%d at quantum 1",
                 row.name, row.kind, nseeds);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_examples NAME (a row of examples.tsv)\n");
        return 2;
    }
    static it_example rows[MAX_ROWS];
    int n = it_manifest(rows, MAX_ROWS);
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].name, argv[1]))
            row = rows[i];
    if (!row.name[0]) {
        fprintf(stderr, "test_examples: no row '%s' in examples.tsv\n",
                argv[1]);
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_natural),
        cmocka_unit_test(test_schedules),
    };
    return cmocka_run_group_tests_name(row.name, tests, NULL, NULL);
}

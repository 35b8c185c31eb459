/* SPDX-License-Identifier: MIT */
/* test_recovery.c - runs that do not end well: a program killed with
 * SIGKILL mid-run (the trace still reads, the events of every complete
 * chunk are recovered, no END from the runtime), `foretell record
 * --timeout` on a program blocked forever in read(2), and a forced ABBA
 * deadlock (the runtime reports it, names the blocked threads, exits 86).
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
#include <sys/wait.h>

#include "tests/integration/it.h"

static const char *fixture(const char *name, char *buf, size_t len)
{
    const char *dir = getenv("FT_FIXTURES");
    snprintf(buf, len, "%s/%s", dir ? dir : "fixtures", name);
    return buf;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return calloc(1, 1);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strdup(buf);
}

static it_trace *load(const char *path)
{
    char why[512];
    it_trace *t = it_trace_load(path, why, sizeof why);
    if (!t)
        fail_msg("%s: %s", path, why);
    return t;
}

/* Run directly with FORETELL_TRACE: only the runtime writes the file. */
static void test_self_kill_direct(void **state)
{
    (void)state;
    char prog[512], trace[512], env[600];
    fixture("self_kill", prog, sizeof prog);
    snprintf(trace, sizeof trace, "%s/self_kill.direct.ft", it_work_dir());
    snprintf(env, sizeof env, "FORETELL_TRACE=%s", trace);
    char *argv[] = {prog, NULL}, *envv[] = {env, NULL};
    int status = it_run(argv, envv, NULL, NULL);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);

    it_trace *t = load(trace);
    assert_false(ft_reader_end(t->r)->present); /* nobody wrote END */
    assert_true(t->n > 1000);                   /* several chunks survived */
    /* The writer thread may be in the middle of a chunk when the kill
     * lands: then reading stops at the truncated chunk, as damage that
     * says what was recovered; any other read error fails. */
    assert_true(!t->read_error || t->damaged);
    assert_int_equal(it_trace_count(t, FT_EV_THREAD_START), 3);
    if (t->damaged)
        assert_non_null(strstr(t->damage.message, "recovered"));
    it_sync_report rep;
    it_check_sync(t, &rep);
    assert_int_equal(rep.violations, 0);
    it_trace_free(t);
    assert_int_equal(it_consistency(trace), 0);
}

/* Under foretell record: exit 128+9; when the file ends on a chunk
 * boundary, record appends an END saying "killed". */
static void test_self_kill_record(void **state)
{
    (void)state;
    char prog[512], trace[512], err[600];
    fixture("self_kill", prog, sizeof prog);
    snprintf(trace, sizeof trace, "%s/self_kill.record.ft", it_work_dir());
    snprintf(err, sizeof err, "%s.err", trace);
    int code = it_record(trace, NULL, NULL, NULL, prog, NULL, err);
    assert_int_equal(code, 128 + SIGKILL);
    it_trace *t = load(trace);
    assert_true(t->n > 1000);
    const ft_end *end = ft_reader_end(t->r);
    if (t->damaged)
        assert_false(end->present);
    else {
        assert_true(end->present);
        assert_string_equal(end->reason, "killed");
    }
    it_trace_free(t);
    assert_int_equal(it_consistency(trace), 0);
}

static void test_timeout_pipe(void **state)
{
    (void)state;
    char prog[512], trace[512], err[600];
    fixture("pipe_hang", prog, sizeof prog);
    snprintf(trace, sizeof trace, "%s/pipe_hang.ft", it_work_dir());
    snprintf(err, sizeof err, "%s.err", trace);
    int code = it_record(trace, NULL, NULL, "1", prog, NULL, err);
    assert_true(code > 128); /* stopped by a signal, not an exit */
    it_trace *t = load(trace);
    const ft_end *end = ft_reader_end(t->r);
    assert_true(end->present);
    assert_string_equal(end->reason, "timeout");
    assert_int_equal(it_trace_count(t, FT_EV_THREAD_START), 2);
    assert_true(it_trace_count(t, FT_EV_SLEEP) >= 1); /* main's poll loop */
    /* the reader blocked in read(2) holding the baton: the watchdog took
     * it so that main could go on sleeping and polling */
    assert_true(it_trace_count(t, FT_EV_STEAL) >= 1);
    it_sync_report rep;
    it_check_sync(t, &rep);
    assert_int_equal(rep.violations, 0);
    it_trace_free(t);
    assert_int_equal(it_consistency(trace), 0);
}

static void test_forced_deadlock_report(void **state)
{
    (void)state;
    char prog[512], trace[512], err[600];
    snprintf(prog, sizeof prog, "%s/abba_deadlock", it_inst_dir());
    snprintf(trace, sizeof trace, "%s/abba_force.ft", it_work_dir());
    snprintf(err, sizeof err, "%s.err", trace);
    char *args[] = {"force", NULL};
    int code = it_record(trace, NULL, NULL, "60", prog, args, err);
    assert_int_equal(code, 86);
    char *msg = slurp(err);
    assert_non_null(strstr(msg, "deadlock"));
    /* both workers wait for a mutex, main waits to join */
    char *p = strstr(msg, "waits for mutex");
    assert_non_null(p);
    assert_non_null(strstr(p + 1, "waits for mutex"));
    assert_non_null(strstr(msg, "waits to join"));
    free(msg);

    it_trace *t = load(trace);
    assert_string_equal(ft_reader_end(t->r)->reason, "deadlock");
    assert_int_equal(t->ev[t->n - 1].kind, FT_EV_DEADLOCK);
    /* each worker holds one lock and passed the barrier */
    assert_int_equal(it_trace_count(t, FT_EV_MUTEX_LOCK), 2);
    assert_int_equal(it_trace_count(t, FT_EV_BARRIER_LEAVE), 2);
    it_sync_report rep;
    it_check_sync(t, &rep);
    assert_int_equal(rep.violations, 0);
    it_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_kill_direct),
        cmocka_unit_test(test_self_kill_record),
        cmocka_unit_test(test_timeout_pipe),
        cmocka_unit_test(test_forced_deadlock_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

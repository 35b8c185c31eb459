/* SPDX-License-Identifier: MIT */
/* test_cli.c - the record, dump, stats, check and symbolize commands as a
 * user runs them: exit codes (the program's own status, 128+signal, 127
 * for a missing program, 2 for bad input or a damaged trace, 1 for
 * consistency violations, 4 when the trace could not be written), the
 * messages, and the END chunk record appends.  fake_prog stands in for an instrumented program. */
#define _GNU_SOURCE
#include "fixture.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char out[1 << 16], err[1 << 16];
static char dir[256];

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Runs foretell with args (NULL-terminated); returns its exit code. */
static int run(const char *first, ...)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)FORETELL_BIN;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    char op[300], ep[300];
    snprintf(op, sizeof op, "%s/stdout", dir);
    snprintf(ep, sizeof ep, "%s/stderr", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || chdir(dir) < 0)
            _exit(200);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], argv);
        _exit(201);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    slurp(op, out, sizeof out);
    slurp(ep, err, sizeof err);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

#define ASSERT_IN(hay, needle)                                                \
    do {                                                                      \
        if (!strstr(hay, needle))                                             \
            fail_msg("expected '%s' in:\n%s", needle, hay);                   \
    } while (0)

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/ft-cli-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const ft_end *end_of(const char *path, ft_reader **keep)
{
    ft_error e;
    *keep = ft_reader_open(path, &e);
    assert_non_null(*keep);
    return ft_reader_end(*keep);
}

static void test_record_missing_program(void **state)
{
    (void)state;
    assert_int_equal(run("record", "-o", "x.ftrace", "--",
                         "/nonexistent/prog", NULL), 127);
    ASSERT_IN(err, "/nonexistent/prog: program not found (no such file)");
    assert_int_equal(run("record", "--", "no-such-command-ft", NULL), 127);
    ASSERT_IN(err, "no-such-command-ft: program not found (not in PATH)");
    assert_int_equal(run("record", NULL), 2);
    ASSERT_IN(err, "missing PROG");
}

static void test_record_bad_output_and_uninstrumented(void **state)
{
    (void)state;
    assert_int_equal(run("record", "-o", "/nonexistent-dir/t.ftrace", "--",
                         FAKE_PROG, NULL), 2);
    ASSERT_IN(err, "/nonexistent-dir/t.ftrace: cannot write: no such "
                   "directory");
    assert_int_equal(run("record", "-o", "n.ftrace", "--", FAKE_PROG,
                         "notrace", NULL), 2);
    ASSERT_IN(err, "was not built with foretell-cc");
    assert_int_equal(run("record", "--timeout", "soon", "--", FAKE_PROG,
                         NULL), 2);
    ASSERT_IN(err, "--timeout expects a positive number");
    /* every time in seconds, a fraction or a unit: 5x and -1 are not */
    assert_int_equal(run("record", "--timeout", "5x", "--", FAKE_PROG,
                         NULL), 2);
    ASSERT_IN(err, "500ms, 1.5 and 2s are all right");
    assert_int_equal(run("record", "--timeout", "-1", "--", FAKE_PROG,
                         NULL), 2);
    assert_int_equal(run("record", "-o", "u.ftrace", "--timeout", "30000ms",
                         "--grace", "0.5", "--", FAKE_PROG, NULL), 0);
    assert_int_not_equal(run("analyze", "--timeout", "1ms", "--time", "0.5",
                             "u.ftrace", NULL), 2);
    assert_int_equal(run("analyze", "--timeout", "two", "u.ftrace", NULL), 2);
    ASSERT_IN(err, "--timeout expects a number of seconds");
    assert_int_equal(run("analyze", "--time", "0.25s", "--timeout", "0",
                         "--bogus", "u.ftrace", NULL), 2);
    ASSERT_IN(err, "--bogus");
}

static void test_record_exit_status_and_end(void **state)
{
    (void)state;
    char trace[300];
    snprintf(trace, sizeof trace, "%s/e.ftrace", dir);
    assert_int_equal(run("record", "-o", "e.ftrace", "--", FAKE_PROG,
                         "exit", "3", NULL), 3);
    ASSERT_IN(err, "e.ftrace: 7 events, 2 threads, exit 3\n");
    ft_reader *r;
    const ft_end *e = end_of(trace, &r);
    assert_true(e->present);
    assert_string_equal(e->reason, "exit");
    assert_int_equal(e->exit_status, 3 << 8); /* raw waitpid status */
    assert_int_equal(e->events, 7);
    ft_reader_close(r);
    /* stats says the exit code, not the raw wait status (768) */
    assert_int_equal(run("stats", "e.ftrace", NULL), 0);
    ASSERT_IN(out, "ended:            exit 3");
    assert_int_equal(run("stats", "--json", "e.ftrace", NULL), 0);
    ASSERT_IN(out, "\"exit_code\":3");
    /* the default output is ./PROG.ftrace, and options may come without
     * "--" before the program */
    assert_int_equal(run("record", FAKE_PROG, "exit", "0", NULL), 0);
    char def[300];
    snprintf(def, sizeof def, "%s/fake_prog.ftrace", dir);
    assert_int_equal(access(def, R_OK), 0);
}

/* The runtime reports a failed write on its pipe: record says so, keeps
 * what was written, and exits 4; a report beside a whole trace (with the
 * runtime's END) did not come from the runtime. */
static void test_record_write_error(void **state)
{
    (void)state;
    assert_int_equal(run("record", "-o", "c.ftrace", "--", FAKE_PROG, "cut",
                         NULL), 4);
    ASSERT_IN(err, "foretell record: cannot write trace 'c.ftrace': No space "
                   "left on device; the trace is cut at byte ");
    char trace[300];
    snprintf(trace, sizeof trace, "%s/c.ftrace", dir);
    ft_reader *r;
    assert_false(end_of(trace, &r)->present); /* no END claims a whole run */
    ft_reader_close(r);
    assert_int_equal(run("record", "-o", "f.ftrace", "--", FAKE_PROG,
                         "forged", NULL), 0);
    assert_null(strstr(err, "cannot write"));
}

static void test_record_signal_timeout_deadlock(void **state)
{
    (void)state;
    char trace[300];
    snprintf(trace, sizeof trace, "%s/s.ftrace", dir);
    ft_reader *r;
    assert_int_equal(run("record", "-o", "s.ftrace", "--", FAKE_PROG,
                         "signal", "11", NULL), 128 + 11);
    assert_string_equal(end_of(trace, &r)->reason, "signal");
    ft_reader_close(r);
    /* 1 s, not less: the program must write its trace before the timeout
     * (ASan's start-up on a loaded machine took over 0.2 s) */
    assert_int_equal(run("record", "-o", "s.ftrace", "--timeout", "1",
                         "--", FAKE_PROG, "hang", NULL), 128 + 15);
    assert_string_equal(end_of(trace, &r)->reason, "timeout");
    ft_reader_close(r);
    assert_int_equal(run("record", "-o", "s.ftrace", "--timeout", "1",
                         "--grace", "0.2", "--", FAKE_PROG, "hang",
                         "ignore-term", NULL), 128 + 9);
    assert_string_equal(end_of(trace, &r)->reason, "timeout");
    ft_reader_close(r);
    assert_int_equal(run("record", "-o", "s.ftrace", "--", FAKE_PROG,
                         "deadlock", NULL), 86);
    assert_string_equal(end_of(trace, &r)->reason, "deadlock");
    ft_reader_close(r);
    /* a program that changes directory still finds its trace */
    assert_int_equal(run("record", "-o", "s.ftrace", "--", FAKE_PROG,
                         "chdir", NULL), 0);
    assert_string_equal(end_of(trace, &r)->reason, "exit");
    ft_reader_close(r);
}

static void test_dump_stats_check(void **state)
{
    (void)state;
    assert_int_equal(run("record", "-o", "d.ftrace", "--", FAKE_PROG, NULL),
                     0);
    assert_int_equal(run("dump", "d.ftrace", NULL), 0);
    ASSERT_IN(out, "mutex_lock");
    ASSERT_IN(out, "addr=0x6000 size=4 value=0x7");
    assert_int_equal(run("dump", "d.ftrace", "--kind", "write", NULL), 0);
    assert_null(strstr(out, "read"));
    ASSERT_IN(out, " write ");
    /* -n is --max ("at most N"); --limit, its old name, still reads */
    assert_int_equal(run("dump", "d.ftrace", "-n", "2", NULL), 0);
    assert_int_equal((int)(strchr(strchr(out, '\n') + 1, '\n') -
                           out + 1), (int)strlen(out));
    assert_int_equal(run("dump", "d.ftrace", "--limit", "2", NULL), 0);
    assert_int_equal((int)(strchr(strchr(out, '\n') + 1, '\n') -
                           out + 1), (int)strlen(out));
    /* -T: -t is --time wherever else it appears */
    assert_int_equal(run("dump", "--json", "-t", "1", "d.ftrace", NULL), 2);
    assert_int_equal(run("dump", "--json", "-T", "1", "d.ftrace", NULL), 0);
    ASSERT_IN(out, "{\"index\":2,\"tid\":1,\"kind\":\"thread_start\"");
    assert_null(strstr(out, "\"tid\":0"));
    assert_int_equal(run("dump", "d.ftrace", "--kind", "bogus", NULL), 2);
    ASSERT_IN(err, "unknown event kind 'bogus'");
    assert_int_equal(run("stats", "d.ftrace", NULL), 0);
    ASSERT_IN(out, "threads:          2");
    ASSERT_IN(out, "1 by more than one thread (2 accesses to those)");
    ASSERT_IN(out, "sync objects:     1 (mutex 1)");
    assert_int_equal(run("stats", "--json", "d.ftrace", NULL), 0);
    ASSERT_IN(out, "\"threads\":2");
    ASSERT_IN(out, "\"end_reason\":\"exit\"");
    assert_int_equal(run("check", "d.ftrace", NULL), 0);
    ASSERT_IN(out, "consistent (7 events)");
    assert_int_equal(run("symbolize", "d.ftrace", NULL), 0);
    ASSERT_IN(err, "cannot read module /nonexistent/fake_prog");
}

static void test_damaged_and_bad_input(void **state)
{
    (void)state;
    assert_int_equal(run("record", "-o", "t.ftrace", "--", FAKE_PROG, NULL),
                     0);
    char trace[300];
    snprintf(trace, sizeof trace, "%s/t.ftrace", dir);
    struct stat st;
    assert_int_equal(stat(trace, &st), 0);
    assert_int_equal(truncate(trace, st.st_size - 3), 0);
    assert_int_equal(run("dump", "t.ftrace", NULL), 2);
    ASSERT_IN(out, "thread_start"); /* what was recovered is printed */
    ASSERT_IN(err, "t.ftrace: warning: recovered 7 events; stopped at byte");
    assert_int_equal(run("stats", "t.ftrace", NULL), 2);
    ASSERT_IN(err, "warning: recovered 7 events");
    assert_int_equal(run("check", "t.ftrace", NULL), 2);
    assert_int_equal(run("dump", "missing.ftrace", NULL), 2);
    ASSERT_IN(err, "missing.ftrace: error: at byte 0: cannot open trace");
    assert_int_equal(run("dump", NULL), 2);
    assert_int_equal(run("stats", "--frobnicate", "t.ftrace", NULL), 2);
    ASSERT_IN(err, "unknown option '--frobnicate'");
    const char *cmds[] = {"record", "dump", "stats", "check", "symbolize"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(run(cmds[i], "--help", NULL), 0);
        ASSERT_IN(out, "usage: foretell ");
    }
}

static void test_check_reports_violation(void **state)
{
    (void)state;
    char trace[300];
    snprintf(trace, sizeof trace, "%s/bad.ftrace", dir);
    ft_event evs[] = {
        {.kind = FT_EV_WRITE, .tid = 0, .site = 1, .addr = 0x10, .size = 1,
         .value = 1},
        {.kind = FT_EV_READ, .tid = 1, .site = 2, .addr = 0x10, .size = 1,
         .value = 2},
    };
    assert_int_equal(fx_write_trace(trace, evs, 2, 3, "exit"), 0);
    assert_int_equal(run("check", "bad.ftrace", NULL), 1);
    ASSERT_IN(out, "src/file2.c:6: error: event 1 (thread 1, read)");
    ASSERT_IN(out, "1 consistency violation in 2 events");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_missing_program),
        cmocka_unit_test(test_record_bad_output_and_uninstrumented),
        cmocka_unit_test(test_record_exit_status_and_end),
        cmocka_unit_test(test_record_write_error),
        cmocka_unit_test(test_record_signal_timeout_deadlock),
        cmocka_unit_test(test_dump_stats_check),
        cmocka_unit_test(test_damaged_and_bad_input),
        cmocka_unit_test(test_check_reports_violation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

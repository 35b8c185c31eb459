/* SPDX-License-Identifier: MIT */
/* test_run_bounds.c FIXTURES WORK - fr_run's bounds other than wall time
 * (replay/run.c, fr_run_opts): the caller's deadline `until` stops a run
 * as FR_UNFINISHED, not a hang and not an error, also when the run is
 * stopped before its runtime wrote anything (a replay started as
 * --time ran out was an error "not built with foretell-cc", which failed
 * the whole batch analysis of its trace); `stall_s` lets a run that
 * makes progress go on past it.  The fixture `spin` never ends: a
 * thread reads a flag nobody sets, one key point per read. */
#include "recorder/trace.h"
#include "replay/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fails;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAIL(test_run_bounds): " __VA_ARGS__);            \
            fputc('\n', stderr);                                               \
            fails++;                                                           \
        }                                                                      \
    } while (0)

static int run(const char *prog, const char *trace, double until,
               double stall_s, double timeout_s, fr_outcome *out)
{
    char *argv[] = {(char *)prog, NULL};
    fr_run_opts o;
    fr_run_opts_default(&o);
    o.argv = argv;
    o.trace_out = trace;
    o.until = until;
    o.stall_s = stall_s;
    o.timeout_s = timeout_s;
    o.quiet = 1;
    ft_error err;
    int rc = fr_run(&o, out, &err);
    if (rc < 0)
        fprintf(stderr, "fr_run: %s: %s\n", err.path, err.message);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_run_bounds FIXTURES WORK\n");
        return 2;
    }
    char spin[4096], trace[4096];
    snprintf(spin, sizeof spin, "%s/spin", argv[1]);
    snprintf(trace, sizeof trace, "%s/bounds.ftrace", argv[2]);
    mkdir(argv[2], 0777);
    fr_outcome out;

    /* a deadline already past: stopped at once, before or after the
     * runtime began its trace, as many times as it takes to see both */
    for (int i = 0; i < 20; i++) {
        int rc = run(spin, trace, ft_now() - 1, 0, 0, &out);
        CHECK(rc == 0, "past deadline, try %d: fr_run returned %d", i, rc);
        CHECK(out.failure == FR_UNFINISHED,
              "past deadline, try %d: failure %s (%s)", i,
              fr_failure_name(out.failure), out.detail);
    }

    /* a deadline 1 s away, progress all along: stopped near it */
    double t0 = ft_now();
    int rc = run(spin, trace, t0 + 1, 0.5, 0, &out);
    double took = ft_now() - t0;
    CHECK(rc == 0, "deadline 1 s: fr_run returned %d", rc);
    CHECK(out.failure == FR_UNFINISHED, "deadline 1 s: failure %s (%s)",
          fr_failure_name(out.failure), out.detail);
    /* the run itself (its trace is read after it, slowly under ASan) */
    CHECK(out.seconds >= 0.9 && out.seconds < 5,
          "deadline 1 s: the run took %.2f s", out.seconds);
    CHECK(took < 60, "deadline 1 s: took %.2f s in all", took);
    CHECK(strstr(out.detail, "--time") != NULL, "deadline 1 s: detail %s",
          out.detail);

    /* stall_s 0.5 under a 2 s wall bound: the spinner shows progress
     * (key points) all the time, so the wall bound ends it, a hang */
    rc = run(spin, trace, 0, 0.5, 2.0, &out);
    CHECK(rc == 0, "stall 0.5 s: fr_run returned %d", rc);
    CHECK(out.failure == FR_HANG, "stall 0.5 s: failure %s (%s)",
          fr_failure_name(out.failure), out.detail);
    CHECK(out.seconds >= 1.9, "stall 0.5 s: stopped after %.2f s, while "
          "it made progress", out.seconds);
    unlink(trace);
    if (fails)
        return 1;
    printf("test_run_bounds: ok\n");
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* test_fork_quiet.c WORK - the replay harness starts a program while
 * another thread is in a Z3 check with a timeout (replay/child_env.c).
 * Z3's atfork handler (scoped_timer's finalize) makes fork() wait for
 * every such check to end: `analyze --confirm` sat in fork() for minutes
 * behind a solving thread still checking past --time.  Here a thread
 * checks the pigeonhole formula (11 pigeons, 10 holes: hard for Z3) with
 * a 6 s timeout; once it is in the check, fr_fork_quiet and then fr_run
 * of /bin/true must return while the check is still running.  What
 * plain fork() does is printed, not asserted (it is Z3's behaviour, of
 * its version). */
#include "replay/replay.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <z3.h>

enum { PIGEONS = 11, HOLES = 10 };

static int running, done;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *check(void *arg)
{
    (void)arg;
    Z3_config cfg = Z3_mk_config();
    Z3_context z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_solver s = Z3_mk_simple_solver(z);
    Z3_solver_inc_ref(z, s);
    Z3_params p = Z3_mk_params(z);
    Z3_params_inc_ref(z, p);
    Z3_params_set_uint(z, p, Z3_mk_string_symbol(z, "timeout"), 6000);
    Z3_solver_set_params(z, s, p);
    Z3_params_dec_ref(z, p);
    Z3_ast x[PIGEONS][HOLES];
    for (int i = 0; i < PIGEONS; i++)
        for (int h = 0; h < HOLES; h++) {
            char name[32];
            snprintf(name, sizeof name, "x%d_%d", i, h);
            x[i][h] = Z3_mk_const(z, Z3_mk_string_symbol(z, name),
                                  Z3_mk_bool_sort(z));
        }
    for (int i = 0; i < PIGEONS; i++) /* every pigeon in a hole */
        Z3_solver_assert(z, s, Z3_mk_or(z, HOLES, x[i]));
    for (int h = 0; h < HOLES; h++) /* no two in one */
        for (int i = 0; i < PIGEONS; i++)
            for (int j = i + 1; j < PIGEONS; j++) {
                Z3_ast both[2] = {x[i][h], x[j][h]};
                Z3_solver_assert(z, s, Z3_mk_not(z, Z3_mk_and(z, 2, both)));
            }
    __atomic_store_n(&running, 1, __ATOMIC_SEQ_CST);
    Z3_solver_check(z, s);
    __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
    Z3_solver_dec_ref(z, s);
    Z3_del_context(z);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_fork_quiet WORK\n");
        return 2;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, check, NULL) != 0)
        return 2;
    while (!__atomic_load_n(&running, __ATOMIC_SEQ_CST))
        usleep(10000);
    usleep(300000); /* well inside the check and its timer */
    int fails = 0;
    double t0 = now_s();
    pid_t pid = fr_fork_quiet();
    if (pid == 0)
        _exit(0);
    int quiet_done = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
    double quiet_s = now_s() - t0;
    if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
        fprintf(stderr, "FAIL(test_fork_quiet): fr_fork_quiet failed\n");
        fails++;
    }
    if (quiet_done) {
        fprintf(stderr,
                "FAIL(test_fork_quiet): fr_fork_quiet returned "
                "only after the check ended (%.2f s)\n",
                quiet_s);
        fails++;
    }
    /* the harness's own path: a run of a program with no runtime */
    char trace[4200];
    snprintf(trace, sizeof trace, "%s/true.ftrace", argv[1]);
    char *prog[] = {"/bin/true", NULL};
    fr_run_opts o;
    fr_run_opts_default(&o);
    o.argv = prog;
    o.trace_out = trace;
    o.timeout_s = 30;
    o.quiet = 1;
    fr_outcome out;
    ft_error err;
    t0 = now_s();
    fr_run(&o, &out, &err); /* its verdict on /bin/true is not the point */
    int run_done = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
    double run_s = now_s() - t0;
    if (run_done) {
        fprintf(stderr,
                "FAIL(test_fork_quiet): fr_run returned only after "
                "the check ended (%.2f s)\n",
                run_s);
        fails++;
    }
    /* for the record: what fork() does meanwhile */
    t0 = now_s();
    pid = fork();
    if (pid == 0)
        _exit(0);
    double fork_s = now_s() - t0;
    int fork_done = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    printf("fr_fork_quiet %.3f s, fr_run %.3f s, the check still running; "
           "fork() %.3f s%s\n",
           quiet_s, run_s, fork_s,
           fork_done ? ", returned after the check ended" : "");
    pthread_join(th, NULL);
    return fails ? 1 : 0;
}

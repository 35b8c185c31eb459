/* SPDX-License-Identifier: MIT */
/* fake_prog.c - stands in for a program built with foretell-cc in the
 * record tests: writes a small trace (2 threads, a lock, shared accesses)
 * to $FORETELL_TRACE like the runtime would, then does what argv[1] says:
 *   exit N | signal N | hang | notrace | deadlock | chdir | cut | forged
 * so each outcome `foretell record` must handle is testable without the
 * runtime.  cut: the trace loses its tail and a write error (ENOSPC) is
 * reported on FORETELL_STATUS_FD as the runtime would; forged: the same
 * report beside a whole trace (the program, not the runtime, wrote it). */
#include "recorder/trace.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_trace(const char *path, int deadlock)
{
    const char *argv[] = {"fake_prog"};
    ft_module m = {"/nonexistent/fake_prog", 0, 0, ""};
    ft_header h = {.program = "/nonexistent/fake_prog", .argc = 1,
                   .argv = argv, .pid = (uint64_t)getpid(), .nmodules = 1,
                   .modules = &m};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    if (!w) {
        fprintf(stderr, "fake_prog: %s\n", err.message);
        return -1;
    }
    ft_site s = {.id = 1, .module = 0, .offset = 0x40};
    ft_writer_site(w, &s);
    ft_event evs[] = {
        {.kind = FT_EV_THREAD_START, .tid = 0},
        {.kind = FT_EV_THREAD_CREATE, .tid = 0, .site = 1, .value = 1},
        {.kind = FT_EV_THREAD_START, .tid = 1},
        {.kind = FT_EV_MUTEX_LOCK, .tid = 1, .site = 1, .addr = 0x5000},
        {.kind = FT_EV_WRITE, .tid = 1, .site = 1, .addr = 0x6000, .size = 4,
         .value = 7},
        {.kind = FT_EV_MUTEX_UNLOCK, .tid = 1, .site = 1, .addr = 0x5000},
        {.kind = FT_EV_READ, .tid = 0, .site = 1, .addr = 0x6000, .size = 4,
         .value = 7},
        {.kind = FT_EV_DEADLOCK, .tid = 0},
    };
    size_t n = sizeof evs / sizeof evs[0] - (deadlock ? 0 : 1);
    for (size_t i = 0; i < n; i++)
        ft_writer_event(w, &evs[i]);
    /* the runtime ends a clean run with its own END; record adds another */
    ft_end end = {.present = 1, .reason = deadlock ? "deadlock" : "exit",
                  .exit_status = -1};
    return ft_writer_close(w, &end);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "exit";
    const char *path = getenv("FORETELL_TRACE");
    if (!strcmp(what, "chdir") && chdir("/") < 0)
        return 99;
    if (strcmp(what, "notrace") && (!path || write_trace(path,
                                                         !strcmp(what,
                                                                 "deadlock")) <
                                                 0))
        return 98;
    if (!strcmp(what, "cut") || !strcmp(what, "forged")) {
        const char *fd = getenv("FORETELL_STATUS_FD");
        struct stat st;
        if (!fd || stat(path, &st) < 0)
            return 97;
        off_t cut = what[0] == 'c' ? st.st_size - 10 : st.st_size;
        if (truncate(path, cut) < 0)
            return 97;
        char line[64];
        int n = snprintf(line, sizeof line, "write-error 28 %lld\n",
                         (long long)cut);
        if (write(atoi(fd), line, (size_t)n) != n)
            return 96;
        return 0;
    }
    if (!strcmp(what, "exit"))
        return argc > 2 ? atoi(argv[2]) : 0;
    if (!strcmp(what, "signal")) {
        int sig = argc > 2 ? atoi(argv[2]) : SIGSEGV;
        signal(sig, SIG_DFL); /* under ASan its handler would exit(1) */
        raise(sig);
    }
    if (!strcmp(what, "hang")) {
        if (argc > 2 && !strcmp(argv[2], "ignore-term"))
            signal(SIGTERM, SIG_IGN);
        for (;;)
            pause();
    }
    if (!strcmp(what, "deadlock"))
        return 86;
    return 0;
}

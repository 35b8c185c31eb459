/* SPDX-License-Identifier: MIT */
/* main.c - `foretell`: dispatches to a subcommand through one table, as
 * git does, so that adding a command is one line here and one file.  It
 * also checks that standard output was written: output to a full disk or
 * a closed pipe (with SIGPIPE ignored) is an error (exit 4), never a
 * silent success. */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct command {
    const char *name;
    ft_command_fn fn;
    const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "run a program and record its trace"},
    {"dump", cmd_dump, "print a trace, one event per line"},
    {"stats", cmd_stats, "summarise a trace (events, threads, objects)"},
    {"symbolize", cmd_symbolize, "add file:line for a trace's sites"},
    {"check", cmd_check, "check that a trace is sequentially consistent"},
    {"analyze", cmd_analyze, "build the trace model and analyze it"},
    {"replay", cmd_replay, "run a program under a schedule, report failures"},
    {"explore", cmd_explore, "run a program under many schedules to find bugs"},
    {"batch", cmd_batch, "analyze many traces into a store; report, merge"},
    {"report", cmd_report, "draw an analysis or exploration as an HTML page"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

#ifndef FT_VERSION
#define FT_VERSION "unknown" /* cli/CMakeLists.txt passes the project's */
#endif

static void usage(FILE *out)
{
    fprintf(out, "usage: foretell <command> [options] [args]\n"
                 "       foretell help <command>\n"
                 "       foretell --version\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\noptions:\n"
                 "  --help, -h  this list\n"
                 "  --version   print foretell's version\n"
                 "\n'foretell help <command>' or 'foretell <command> --help' "
                 "describes a command;\n'man foretell-<command>' has the "
                 "manual page.\n");
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static int not_a_command(const char *name)
{
    fprintf(stderr, "foretell: '%s' is not a command (see 'foretell --help')\n",
            name);
    return FT_EXIT_BAD_INPUT;
}

/* rc, or FT_EXIT_INTERNAL with a message when stdout lost output. */
static int finish_stdout(const char *cmd, int rc)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = errno;
    failed |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed)
        return rc;
    fprintf(stderr, "foretell%s%s: cannot write to standard output: %s\n",
            cmd ? " " : "", cmd ? cmd : "", e ? strerror(e) : "write error");
    return FT_EXIT_INTERNAL;
}

static int run_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return FT_EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "help") && argc >= 3) {
        /* `foretell help CMD [SUB]` is `foretell CMD [SUB] --help` */
        const struct command *c = find_command(argv[2]);
        if (!c)
            return not_a_command(argv[2]);
        char help[] = "--help";
        char *args[4] = {argv[2], help, NULL, NULL};
        int n = 2;
        if (argc >= 4) {
            args[1] = argv[3];
            args[2] = help;
            n = 3;
        }
        return c->fn(n, args);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return FT_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("foretell %s\n", FT_VERSION);
        return FT_EXIT_OK;
    }
    const struct command *c = find_command(argv[1]);
    if (c)
        return c->fn(argc - 1, argv + 1);
    return not_a_command(argv[1]);
}

int main(int argc, char **argv)
{
    int rc = run_main(argc, argv);
    return finish_stdout(argc >= 2 && argv[1][0] != '-' ? argv[1] : NULL, rc);
}

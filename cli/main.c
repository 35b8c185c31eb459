/* main.c - `foretell`: dispatches to a subcommand through one table, as
 * git does, so that adding a command is one line here and one file. */
#include "cli/commands.h"

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
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: foretell <command> [options] [args]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'foretell <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return FT_EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return FT_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("foretell 0.1.0\n");
        return FT_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "foretell: '%s' is not a command (see 'foretell --help')\n",
            argv[1]);
    return FT_EXIT_BAD_INPUT;
}

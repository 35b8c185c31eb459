/* SPDX-License-Identifier: MIT */
/* commands.h - the subcommands of `foretell`, one function each, and the
 * exit codes they share.  main.c holds the table; each cmd_*.c file owns
 * one command's option parsing and output and calls the stage libraries. */
#ifndef FORETELL_COMMANDS_H
#define FORETELL_COMMANDS_H

/* Exit codes (README "Exit codes" is the user's copy of this table). */
enum {
    FT_EXIT_OK = 0,        /* success; nothing found */
    FT_EXIT_FOUND = 1,     /* violations predicted / program failed */
    FT_EXIT_BAD_INPUT = 2, /* usage error, unreadable or damaged input */
    FT_EXIT_DIVERGED = 3,  /* a schedule could not be followed */
    FT_EXIT_INTERNAL = 4,  /* foretell itself failed (I/O, out of memory) */
    FT_EXIT_UNDECIDED = 5, /* nothing found, but not everything decided:
                              analyze (unknown, --time ran out), batch (the
                              time bound stopped it before every trace) */
    FT_EXIT_CANNOT_EXEC = 126, /* the program exists but cannot be run */
    FT_EXIT_NOT_FOUND = 127,   /* no such program */
};

typedef int (*ft_command_fn)(int argc, char **argv);

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/* opt.h - option parsing shared by the subcommands: long options
 * (--name, --name=value, --name value), single-letter aliases, "--", and
 * --help, with error messages that name the command and the option.  A
 * table of ft_opt entries also produces the --help text, so usage and
 * parsing cannot drift apart. */
#ifndef FORETELL_CLI_OPT_H
#define FORETELL_CLI_OPT_H

#include <stdint.h>
#include <stdio.h>

typedef struct ft_opt {
    const char *name;       /* long name without dashes */
    char short_name;        /* single-letter alias, 0 if none */
    const char *value_name; /* NULL for a flag, else e.g. "N" */
    const char *help;       /* NULL: accepted, not listed (an old name) */
} ft_opt;

enum {
    FT_OPT_END = -1,        /* no more arguments */
    FT_OPT_POSITIONAL = -2, /* *value is a positional argument */
    FT_OPT_ERROR = -3,      /* message printed; exit FT_EXIT_BAD_INPUT */
    FT_OPT_HELP = -4,       /* --help or -h: print usage, exit 0 */
    FT_OPT_DASHDASH = -5,   /* "--": the rest starts at p->i */
};

typedef struct ft_optparse {
    const char *cmd; /* "foretell dump", used in messages */
    int argc;
    char **argv;
    int i;           /* next argument to look at */
} ft_optparse;

void ft_opt_init(ft_optparse *p, const char *cmd, int argc, char **argv);

/* The next option: its index in opts (with *value set when it takes one),
 * or one of the FT_OPT_* codes.  opts ends with a {NULL} entry. */
int ft_opt_next(ft_optparse *p, const ft_opt *opts, const char **value);

/* Prints "usage: <usage>" then the option table. */
void ft_opt_usage(FILE *out, const char *usage, const char *about,
                  const ft_opt *opts);

/* Parse numbers for option `name`; print an error and return -1 if s is
 * not a number in [0, max] (resp. a non-negative decimal). */
int ft_opt_uint(const ft_optparse *p, const char *name, const char *s,
                uint64_t max, uint64_t *out);
int ft_opt_seconds(const ft_optparse *p, const char *name, const char *s,
                   double *out);
/* The same, 0 allowed (the options where 0 means "no bound"). */
int ft_opt_seconds0(const ft_optparse *p, const char *name, const char *s,
                    double *out);

/* Trace plumbing shared by the commands that read a trace. */
#include "recorder/trace.h"

/* Opens a trace or prints "TRACE: error: at byte X: ..." and returns
 * NULL (the caller exits with FT_EXIT_BAD_INPUT). */
ft_reader *ft_cli_open_trace(const char *path);

/* After streaming: prints the damage warning if any ("TRACE: warning:
 * recovered N events; stopped at byte X: ...") and returns
 * FT_EXIT_BAD_INPUT then, else ok_code. */
int ft_cli_finish_trace(ft_reader *r, const char *path, int ok_code);

/* The program a command is to run, found as execvp finds it, before any
 * work: 0, or prints "CMD: FILE: why" and returns 127 (not found) or 126
 * (a directory, not executable, empty: cannot be executed). */
int ft_cli_check_program(const char *cmd, const char *prog);

/* --backend B (record, replay, explore): *backend set (replay/backend.c's
 * enum), or prints why and returns FT_EXIT_BAD_INPUT. */
int ft_cli_backend_opt(const char *cmd, const char *v, int *backend);
/* Chooses the runtime prog's runs get (a note on stderr when it is the
 * LD_PRELOAD one): 0, or prints "CMD: PROG: why" and returns
 * FT_EXIT_BAD_INPUT. */
int ft_cli_backend(const char *cmd, const char *prog, int backend);

/* The suppressions a command applies: the file of its --suppressions
 * option, else $FORETELL_SUPPRESSIONS when set and not empty.  0 with
 * *out set (NULL: none), or prints "FILE:LINE: error: ..." and returns
 * FT_EXIT_BAD_INPUT. */
struct ft_suppressions;
int ft_cli_suppressions(const char *path, struct ft_suppressions **out);

#endif

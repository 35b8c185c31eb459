/* SPDX-License-Identifier: MIT */
/* opt.c - the shared option parser (see opt.h).  Deliberately not
 * getopt_long: the subcommands need "--" handling that hands the rest of
 * the command line to a program (record), consistent messages naming the
 * command, and help text generated from the same table. */
#include "cli/opt.h"
#include "cli/commands.h"
#include "predict/predict.h"
#include "replay/replay.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ft_opt_init(ft_optparse *p, const char *cmd, int argc, char **argv)
{
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->i = 1; /* argv[0] is the command name */
}

static int find_long(const ft_opt *opts, const char *name, size_t n)
{
    for (int k = 0; opts[k].name; k++)
        if (strlen(opts[k].name) == n && !strncmp(opts[k].name, name, n))
            return k;
    return -1;
}

int ft_opt_next(ft_optparse *p, const ft_opt *opts, const char **value)
{
    *value = NULL;
    if (p->i >= p->argc)
        return FT_OPT_END;
    const char *a = p->argv[p->i++];
    if (!strcmp(a, "--"))
        return FT_OPT_DASHDASH;
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
        return FT_OPT_HELP;
    if (a[0] != '-' || a[1] == 0) {
        *value = a;
        return FT_OPT_POSITIONAL;
    }
    int k = -1;
    const char *inline_value = NULL;
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        k = find_long(opts, name, eq ? (size_t)(eq - name) : strlen(name));
        inline_value = eq ? eq + 1 : NULL;
    } else {
        for (int j = 0; opts[j].name; j++)
            if (opts[j].short_name && opts[j].short_name == a[1])
                k = j;
        if (k >= 0 && a[2])
            inline_value = a + 2; /* -oFILE */
    }
    if (k < 0) {
        fprintf(stderr, "%s: unknown option '%s' (see '%s --help')\n", p->cmd,
                a, p->cmd);
        return FT_OPT_ERROR;
    }
    if (!opts[k].value_name) {
        if (inline_value) {
            fprintf(stderr, "%s: option '--%s' takes no value\n", p->cmd,
                    opts[k].name);
            return FT_OPT_ERROR;
        }
        return k;
    }
    if (inline_value) {
        *value = inline_value;
    } else if (p->i < p->argc) {
        *value = p->argv[p->i++];
    } else {
        fprintf(stderr, "%s: option '--%s' needs a value (%s)\n", p->cmd,
                opts[k].name, opts[k].value_name);
        return FT_OPT_ERROR;
    }
    return k;
}

void ft_opt_usage(FILE *out, const char *usage, const char *about,
                  const ft_opt *opts)
{
    fprintf(out, "usage: %s\n", usage);
    if (about)
        fprintf(out, "\n%s\n", about);
    fprintf(out, "\noptions:\n");
    for (int k = 0; opts[k].name; k++) {
        char left[64];
        if (!opts[k].help)
            continue; /* an old name kept working, not listed */
        snprintf(left, sizeof left, "%s%c%s--%s%s%s",
                 opts[k].short_name ? "-" : "",
                 opts[k].short_name ? opts[k].short_name : ' ',
                 opts[k].short_name ? ", " : " ", opts[k].name,
                 opts[k].value_name ? " " : "",
                 opts[k].value_name ? opts[k].value_name : "");
        fprintf(out, "  %-24s %s\n", opts[k].short_name ? left : left + 2,
                opts[k].help);
    }
    fprintf(out, "  %-24s %s\n", "-h, --help", "show this help");
}

int ft_opt_uint(const ft_optparse *p, const char *name, const char *s,
                uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || errno || s[0] == '-' || v > max) {
        fprintf(stderr, "%s: --%s expects a number from 0 to %llu, got '%s'\n",
                p->cmd, name, (unsigned long long)max, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* A duration: a decimal number of seconds, or with a unit, "s" or "ms"
 * (every timeout of every command is in seconds; "ms" keeps the old
 * milliseconds of analyze's --timeout writable). */
static int duration(const ft_optparse *p, const char *name, const char *s,
                    int zero, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s && !strcmp(end, "ms"))
        v /= 1000;
    else if (end != s && !strcmp(end, "s"))
        ;
    else if (*end)
        v = -1;
    if (!*s || s[0] == '-' || errno || !isfinite(v) || v < 0 ||
        (v == 0 && !zero) || v > 1e9) {
        fprintf(stderr, "%s: --%s expects a %snumber of seconds (500ms, "
                "1.5 and 2s are all right), got '%s'\n", p->cmd, name,
                zero ? "" : "positive ", s);
        return -1;
    }
    *out = v;
    return 0;
}

int ft_opt_seconds(const ft_optparse *p, const char *name, const char *s,
                   double *out)
{
    return duration(p, name, s, 0, out);
}

int ft_opt_seconds0(const ft_optparse *p, const char *name, const char *s,
                    double *out)
{
    return duration(p, name, s, 1, out);
}

ft_reader *ft_cli_open_trace(const char *path)
{
    ft_error err;
    ft_reader *r = ft_reader_open(path, &err);
    if (!r)
        fprintf(stderr, "%s: error: at byte %llu: %s\n", path,
                (unsigned long long)err.offset, err.message);
    return r;
}

int ft_cli_finish_trace(ft_reader *r, const char *path, int ok_code)
{
    ft_error err;
    if (!ft_reader_damage(r, &err))
        return ok_code;
    fflush(stdout);
    fprintf(stderr, "%s: warning: %s\n", path, err.message);
    return FT_EXIT_BAD_INPUT;
}

int ft_cli_check_program(const char *cmd, const char *prog)
{
    char buf[4096];
    ft_error err;
    int rc = fr_find_program(prog, buf, sizeof buf, &err);
    if (rc)
        fprintf(stderr, "%s: %s: %s\n", cmd, err.path, err.message);
    return rc;
}

int ft_cli_backend_opt(const char *cmd, const char *v, int *backend)
{
    if ((*backend = fr_backend_parse(v)) >= 0)
        return 0;
    fprintf(stderr, "%s: --backend: '%s' is not auto, runtime, preload or "
            "valgrind\n",
            cmd, v);
    return FT_EXIT_BAD_INPUT;
}

int ft_cli_backend(const char *cmd, const char *prog, int backend)
{
    ft_error err;
    if (fr_backend_prepare(prog, backend, stderr, &err) >= 0)
        return 0;
    fprintf(stderr, "%s: %s: %s\n", cmd, err.path, err.message);
    return FT_EXIT_BAD_INPUT;
}

int ft_cli_suppressions(const char *path, ft_suppressions **out)
{
    *out = NULL;
    if (!path)
        path = getenv("FORETELL_SUPPRESSIONS");
    if (!path || !*path)
        return 0;
    ft_error err;
    memset(&err, 0, sizeof err);
    if (ft_suppressions_read(path, out, &err) == 0)
        return 0;
    /* "line N: what" from the parser: as compilers name a line */
    unsigned long line;
    int used = 0;
    if (sscanf(err.message, "line %lu: %n", &line, &used) == 1 && used)
        fprintf(stderr, "%s:%lu: error: %s\n", path, line,
                err.message + used);
    else
        fprintf(stderr, "%s: error: suppressions: %s\n",
                err.path[0] ? err.path : path, err.message);
    return FT_EXIT_BAD_INPUT;
}

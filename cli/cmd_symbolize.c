/* SPDX-License-Identifier: MIT */
/* cmd_symbolize.c - `foretell symbolize`: adds function, file, line,
 * column and the line's text for traces' sites (libdw, see
 * recorder/symbolize.c).  `record` does this itself; the command is for
 * traces written with FORETELL_TRACE alone (a test suite run under the
 * runtime: docs/ci.md), moved to a machine with the binaries, or recorded
 * when the binaries were missing. */
#include "cli/commands.h"
#include "cli/opt.h"
#include "recorder/trace.h"

#include <stdlib.h>

enum { OPT_DEBUGINFO }; /* indices into sym_opts */

static const ft_opt sym_opts[] = {
    {"debuginfo", 0, NULL,
     "also read separate debuginfo files (build-id and debug-link, "
     "/usr/lib/debug) for modules stripped of their DWARF"},
    {NULL, 0, NULL, NULL},
};

static int symbolize_one(const char *path, unsigned flags)
{
    ft_error err;
    int n = ft_symbolize_with(path, flags, stderr, &err);
    if (n == -2) { /* the OS refused the write: the trace is as it was */
        fprintf(stderr, "%s: error: %s (the trace is unchanged)\n", path,
                err.message);
        return FT_EXIT_INTERNAL;
    }
    if (n < 0) {
        fprintf(stderr, "%s: error: at byte %llu: %s\n", path,
                (unsigned long long)err.offset, err.message);
        return FT_EXIT_BAD_INPUT;
    }
    ft_reader *r = ft_cli_open_trace(path);
    if (!r)
        return FT_EXIT_BAD_INPUT;
    uint32_t total = ft_reader_nsites(r), with = 0;
    for (uint32_t i = 0; i < total; i++) {
        const ft_site *s = ft_reader_site_at(r, i);
        with += s->function || s->file;
    }
    ft_reader_close(r);
    fprintf(stderr, "%s: symbolised %d site%s (%u of %u sites now have "
            "symbols)\n", path, n, n == 1 ? "" : "s", with, total);
    return FT_EXIT_OK;
}

int cmd_symbolize(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell symbolize", argc, argv);
    const char *v;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    int n = 0;
    unsigned flags = 0;
    int k;
    if (!paths)
        return FT_EXIT_INTERNAL;
    while ((k = ft_opt_next(&p, sym_opts, &v)) != FT_OPT_END) {
        if (k == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell symbolize [--debuginfo] TRACE...",
                         "Resolves each TRACE's sites to function, "
                         "file:line:column and the line's text using the "
                         "recorded modules (their build ids must match) and "
                         "appends SYMBOLS and SOURCE chunks. Sites already "
                         "symbolised are skipped.", sym_opts);
            free(paths);
            return FT_EXIT_OK;
        }
        if (k == FT_OPT_ERROR) {
            free(paths);
            return FT_EXIT_BAD_INPUT;
        }
        if (k == OPT_DEBUGINFO) {
            flags |= FT_SYM_DEBUGINFO;
            continue;
        }
        if (k == FT_OPT_DASHDASH) {
            while (p.i < p.argc)
                paths[n++] = p.argv[p.i++];
            continue;
        }
        paths[n++] = (char *)v;
    }
    if (n == 0) {
        fprintf(stderr, "foretell symbolize: missing TRACE (see 'foretell "
                "symbolize --help')\n");
        free(paths);
        return FT_EXIT_BAD_INPUT;
    }
    /* every trace is tried; the exit code says whether one failed */
    int rc = FT_EXIT_OK;
    for (int i = 0; i < n; i++) {
        int one = symbolize_one(paths[i], flags);
        /* a write the OS refused (4) outweighs a bad trace (2) */
        if (one != FT_EXIT_OK && rc != FT_EXIT_INTERNAL)
            rc = one;
    }
    free(paths);
    return rc;
}

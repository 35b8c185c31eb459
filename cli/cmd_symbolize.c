/* cmd_symbolize.c - `foretell symbolize`: adds function, file, line and
 * column for a trace's sites (libdw, see recorder/symbolize.c).  `record`
 * does this itself; the command is for traces moved to a machine with the
 * binaries, or recorded when the binaries were missing. */
#include "cli/commands.h"
#include "cli/opt.h"
#include "recorder/trace.h"

enum { OPT_DEBUGINFO }; /* indices into sym_opts */

static const ft_opt sym_opts[] = {
    {"debuginfo", 0, NULL,
     "also read separate debuginfo files (build-id and debug-link, "
     "/usr/lib/debug) for modules stripped of their DWARF"},
    {NULL, 0, NULL, NULL},
};

int cmd_symbolize(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell symbolize", argc, argv);
    const char *path = NULL, *v;
    unsigned flags = 0;
    int k;
    while ((k = ft_opt_next(&p, sym_opts, &v)) != FT_OPT_END) {
        if (k == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell symbolize [--debuginfo] TRACE",
                         "Resolves TRACE's sites to function, file:line:column "
                         "using the recorded modules (their build ids must "
                         "match) and appends a SYMBOLS chunk. Sites already "
                         "symbolised are skipped.", sym_opts);
            return FT_EXIT_OK;
        }
        if (k == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (k == OPT_DEBUGINFO) {
            flags |= FT_SYM_DEBUGINFO;
            continue;
        }
        if (k == FT_OPT_DASHDASH) {
            if (p.i >= p.argc)
                continue;
            v = p.argv[p.i++];
        }
        if (path) {
            fprintf(stderr, "foretell symbolize: unexpected argument '%s'\n",
                    v);
            return FT_EXIT_BAD_INPUT;
        }
        path = v;
    }
    if (!path) {
        fprintf(stderr, "foretell symbolize: missing TRACE (see 'foretell "
                "symbolize --help')\n");
        return FT_EXIT_BAD_INPUT;
    }
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

/* SPDX-License-Identifier: MIT */
/* cmd_check.c - `foretell check`: verifies that a trace is sequentially
 * consistent (every read returns the last write), which a recorded trace
 * must be.  Violations are listed compiler-style so editors can jump to
 * them; exit 1 when there are any. */
#include "cli/commands.h"
#include "cli/opt.h"
#include "recorder/trace.h"

#include <inttypes.h>

static const ft_opt check_opts[] = {
    {"max", 'n', "N", "list at most N violations (default 20)"},
    {NULL, 0, NULL, NULL},
};

int cmd_check(int argc, char **argv)
{
    ft_optparse p;
    ft_opt_init(&p, "foretell check", argc, argv);
    const char *path = NULL, *v;
    uint64_t max = 20;
    int k;
    while ((k = ft_opt_next(&p, check_opts, &v)) != FT_OPT_END) {
        if (k == FT_OPT_HELP) {
            ft_opt_usage(stdout, "foretell check TRACE [--max N]",
                         "Checks that every read in TRACE returns the value "
                         "of the last write to the same bytes (fresh heap "
                         "memory may hold anything). Exit 1 on violations.",
                         check_opts);
            return FT_EXIT_OK;
        }
        if (k == FT_OPT_ERROR)
            return FT_EXIT_BAD_INPUT;
        if (k == 0) {
            if (ft_opt_uint(&p, "max", v, UINT32_MAX, &max) < 0)
                return FT_EXIT_BAD_INPUT;
            continue;
        }
        if (k == FT_OPT_DASHDASH) {
            if (p.i >= p.argc)
                continue;
            v = p.argv[p.i++];
        }
        if (path) {
            fprintf(stderr, "foretell check: unexpected argument '%s'\n", v);
            return FT_EXIT_BAD_INPUT;
        }
        path = v;
    }
    if (!path) {
        fprintf(stderr, "foretell check: missing TRACE (see 'foretell check "
                "--help')\n");
        return FT_EXIT_BAD_INPUT;
    }
    ft_reader *r = ft_cli_open_trace(path);
    if (!r)
        return FT_EXIT_BAD_INPUT;
    uint64_t bad = ft_check_consistency(r, stdout, (unsigned)max);
    uint64_t events = ft_reader_delivered(r);
    if (bad)
        printf("%s: %" PRIu64 " consistency violation%s in %" PRIu64
               " events\n", path, bad, bad == 1 ? "" : "s", events);
    else
        printf("%s: consistent (%" PRIu64 " events)\n", path, events);
    int rc = ft_cli_finish_trace(r, path, bad ? FT_EXIT_FOUND : FT_EXIT_OK);
    ft_reader_close(r);
    return rc;
}

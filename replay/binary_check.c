/* SPDX-License-Identifier: MIT */
/* binary_check.c - whether the program about to be replayed is the binary
 * a trace recorded.  A schedule names per-thread event indexes and sites
 * of one build; after a rebuild the same schedule diverges somewhere
 * unrelated, which reads like a wrong prediction.  The trace's module
 * table holds the main program's build id (module 0, from
 * /proc/self/exe), so a mismatch is named before the run instead. */
#include "replay/replay.h"

#include <string.h>

int fr_check_binary(const char *trace, const char *prog, FILE *warn)
{
    ft_error err;
    ft_reader *r = trace && trace[0] ? ft_reader_open(trace, &err) : NULL;
    if (!r)
        return -1; /* no trace at hand (moved, or STD input): no check */
    const ft_header *h = ft_reader_header(r);
    char want[160] = "", recorded[4096] = "", got[160], buf[4096];
    if (h->nmodules > 0 && h->modules[0].build_id) {
        snprintf(want, sizeof want, "%s", h->modules[0].build_id);
        snprintf(recorded, sizeof recorded, "%s",
                 h->modules[0].path ? h->modules[0].path : "");
    }
    ft_reader_close(r);
    const char *file = fr_which(prog, buf, sizeof buf);
    if (!want[0] || !file || ft_file_build_id(file, got, sizeof got) < 0)
        return -1;
    if (!strcmp(want, got))
        return 1;
    if (warn)
        fprintf(warn, "foretell: warning: %s has build id %s, but %s was "
                "recorded from %s with build id %s (rebuilt since?): the "
                "schedule's event indexes and sites may not match this "
                "binary\n", file, got[0] ? got : "(none)", trace,
                recorded[0] ? recorded : "(unknown path)", want);
    return 0;
}

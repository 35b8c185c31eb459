/* SPDX-License-Identifier: MIT */
/* mkfig2.c - writes the paper's figure-2 run as a trace file, for the
 * `foretell analyze` command test (tests/model/analyze_cli.sh). */
#include "fig2.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkfig2 OUT.ftrace\n");
        return 2;
    }
    evbuf b = {0};
    fig2_events(&b);
    int rc = trace_write(argv[1], &b);
    evbuf_free(&b);
    if (rc)
        fprintf(stderr, "mkfig2: cannot write %s\n", argv[1]);
    return rc ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* stdtrace.c - see stdtrace.h: infer/'s STD reader, then the foretell
 * writer, as `foretell analyze --std` would read the same text. */
#include "stdtrace.h"
#include "predict/predict.h"

#include <stdio.h>
#include <unistd.h>

int ft_test_std_to_trace(const char *std, const char *out)
{
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    int rc = fi_std_read_path(&t, std, &err) == 0 &&
                     fi_trace_save(&t, out, &err) == 0
                 ? 0
                 : -1;
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", err.path, err.message);
    fi_trace_free(&t);
    unlink(std);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* stdtrace.c - see stdtrace.h: infer/'s STD reader, then the foretell
 * writer, as `foretell analyze --std` would read the same text. */
#include "stdtrace.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ft_test_trace_from_std(const char *text, const char *tag, char *path,
                           size_t len)
{
    char std[96];
    snprintf(std, sizeof std, "/tmp/ft_%s_%d.std", tag, (int)getpid());
    snprintf(path, len, "/tmp/ft_%s_%d.ftrace", tag, (int)getpid());
    FILE *f = fopen(std, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        perror(std);
        return -1;
    }
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    int rc = fi_std_read_path(&t, std, &err) == 0 &&
                     fi_trace_save(&t, path, &err) == 0
                 ? 0
                 : -1;
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", err.path, err.message);
    fi_trace_free(&t);
    unlink(std);
    return rc;
}

int ft_test_pipeline_run(ft_pipeline *pl, const char *path, ft_budget *b,
                         const ft_predict_opts *po)
{
    ft_error err;
    if (ft_pipeline_load_bounded(pl, path, FT_INPUT_FORETELL, b, &err) != 0)
        return -1;
    fi_options fo;
    fi_options_default(&fo);
    if (ft_pipeline_infer(pl, &fo, &err) != 0)
        return -1;
    return ft_pipeline_predict(pl, po, 0, NULL, NULL) < 0 ? -1 : 0;
}

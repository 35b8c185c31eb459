/* SPDX-License-Identifier: MIT */
/* infer_table.c - the paper's table IV columns for stage iii over traces:
 * threads n, events e, regions ia, left after removing proved and
 * non-conflicting ones ra, left after removing observed violations ra',
 * shared variables per region vavg, CA and CMA properties, observed
 * violations, and the time the analysis took.  Foretell traces (.ftr or
 * anything not ending in .std) and RAPID STD files (.std) are accepted.
 *
 *   bench_infer_table [--maxd N] [--no-mat] TRACE...
 */
#include "infer/infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    fi_options o;
    fi_options_default(&o);
    int use_mat = 1, rc = 0;
    printf("%-28s %3s %9s %6s %6s %6s %5s %6s %7s %5s %8s\n", "trace", "n",
           "e", "ia", "ra", "ra'", "vavg", "CA", "CMA", "obs", "seconds");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--maxd") && i + 1 < argc) {
            o.maxd = (uint32_t)atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--no-mat")) {
            use_mat = 0;
            continue;
        }
        const char *path = argv[i];
        size_t len = strlen(path);
        fi_trace t;
        fi_trace_init(&t);
        ft_error err;
        int lr = len > 4 && !strcmp(path + len - 4, ".std")
                     ? fi_std_read_path(&t, path, &err)
                     : fi_trace_load(&t, path, &err);
        if (lr < 0) {
            fprintf(stderr, "%s: offset %llu: %s\n", err.path,
                    (unsigned long long)err.offset, err.message);
            rc = 2;
            fi_trace_free(&t);
            continue;
        }
        double t0 = now();
        fi_analysis a;
        char why[300];
        if (fi_run(&a, &t, &o, use_mat, why, sizeof why) < 0) {
            fprintf(stderr, "%s: out of memory\n", path);
            return 4;
        }
        double dt = now() - t0;
        fi_summary s;
        fi_summarize(&a, &s);
        const char *base = strrchr(path, '/');
        printf("%-28s %3u %9zu %6zu %6zu %6zu %5.2f %6zu %7zu %5zu %8.3f\n",
               base ? base + 1 : path, t.nthreads, t.nev, s.ia, s.ra, s.ra2,
               s.vavg, s.ca, s.cma, s.observed, dt);
        if (why[0])
            printf("  (%s)\n", why);
        fi_analysis_free(&a);
        fi_trace_free(&t);
    }
    return rc;
}

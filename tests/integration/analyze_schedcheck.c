/* SPDX-License-Identifier: MIT */
/* analyze_schedcheck.c - test helper for analyze_examples.sh: parses each
 * schedule file named on the command line with ft_schedule_read (the
 * parser the replay harness uses) and checks what any violation witness
 * must have: at least one step, and a violating access ('!') among them.
 * Prints "FILE: N steps, M marked" per file; exit 1 on the first bad one. */
#include "predict/predict.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: analyze_schedcheck SCHEDULE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        ft_schedule s;
        char err[600];
        int rc = ft_schedule_read(f, argv[i], &s, err, sizeof err);
        fclose(f);
        if (rc < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        uint32_t marked = 0;
        for (uint32_t k = 0; k < s.nsteps; k++)
            marked += s.steps[k].mark;
        uint32_t nsteps = s.nsteps;
        ft_schedule_free(&s);
        printf("%s: %u steps, %u marked\n", argv[i], nsteps, marked);
        if (nsteps == 0 || marked == 0) {
            fprintf(stderr, "%s: a witness needs steps and a marked "
                            "violating access\n", argv[i]);
            return 1;
        }
    }
    return 0;
}

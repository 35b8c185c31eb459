/* analyze_cmd.h - the parts of `foretell analyze` (cmd_analyze.c parses the
 * options and runs predict/'s pipeline; analyze_stats.c prints the stage ii
 * figures; analyze_report.c prints the findings for people and tools). */
#ifndef FORETELL_CLI_ANALYZE_CMD_H
#define FORETELL_CLI_ANALYZE_CMD_H

#include "predict/predict.h"

#include <stdio.h>

/* --stats/--mats/--cxt/--itrans.  Returns the exit code. */
int analyze_stats(const char *path, int json, int table, int mats, int cxt,
                  int itrans, int skip_unreachable);

/* Schedule paths of the violated properties (NULL where not written),
 * indexed like pl->props. */
typedef struct analyze_out {
    const ft_pipeline *pl;
    char **schedule;
} analyze_out;

/* The regions the recorded run already violates, compiler style. */
void analyze_print_observed(FILE *out, const ft_pipeline *pl);
/* Each predicted violation (and each property left unknown) compiler
 * style, then the summary line. */
void analyze_print_text(FILE *out, const analyze_out *ao);
/* Everything as one JSON document. */
void analyze_print_json(FILE *out, const analyze_out *ao);

#endif

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
struct fr_confirmation;
typedef struct analyze_out {
    const ft_pipeline *pl;
    char **schedule;
    struct fr_confirmation *confirm; /* --confirm, indexed like schedule */
} analyze_out;

/* The regions the recorded run already violates, compiler style. */
void analyze_print_observed(FILE *out, const ft_pipeline *pl);
/* Each predicted violation (and each property left unknown) compiler
 * style, then the summary line. */
void analyze_print_text(FILE *out, const analyze_out *ao);
/* Everything as one JSON document. */
void analyze_print_json(FILE *out, const analyze_out *ao);

/* --confirm (analyze_confirm.c): replay every schedule written. */
typedef struct analyze_confirm_opts {
    char *const *prog;        /* PROG and ARGS after -- */
    const char *dir;          /* -o DIR: replayed runs' traces go there */
    double timeout_s;         /* per replayed run */
    unsigned refine;          /* refinement rounds after a divergence */
    unsigned tails;           /* random tails after a non-failing one */
    const fi_options *infer;
    const ft_predict_opts *predict;
    int progress;             /* a progress line on a terminal */
} analyze_confirm_opts;

/* Fills ao->confirm.  Returns the exit code: 0, or 127/2 when the program
 * cannot be run, 4 out of memory. */
int analyze_confirm(analyze_out *ao, const analyze_confirm_opts *co);
/* Violations confirmed (directly or after refinement). */
size_t analyze_confirmed(const analyze_out *ao);
void analyze_print_confirm(FILE *out, const analyze_out *ao);
struct ft_json;
/* The confirmation of violation i as one JSON object. */
void analyze_json_confirm(struct ft_json *j, const analyze_out *ao, size_t i);

#endif

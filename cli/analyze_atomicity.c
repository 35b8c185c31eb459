/* SPDX-License-Identifier: MIT */
/* analyze_atomicity.c - the predicted atomicity violations (CA and CMA) as
 * people read them: one finding per static bug, as for the other kinds
 * (analyze_findings.c), not one per dynamic property.  A loop that runs a
 * racy region ten times gives ten properties and one bug; listing ten
 * interleavings hides the next bug under them.  The static bug is the
 * property kind and the code of its regions (function, file and line
 * range, the pair unordered for CMA); its representative is its surest
 * instance (a replay that made the program fail, then one that reached
 * the violation, then a prediction, then a spurious one), printed with
 * its interleaving and what its replay showed; the others are counted
 * and named by their property and schedule.  Failing bugs come first. */
#include "cli/analyze_cmd.h"
#include "replay/confirm.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OTHERS_NAMED 4

/* How sure an instance is, best first. */
enum { S_FAILS, S_REACHED, S_PREDICTED, S_SPURIOUS };

typedef struct instance {
    size_t prop;   /* index into pl->props */
    int status;
    uint32_t key;  /* its static property (ft_prop.group, groups.c:
                      kind and regions' code) */
    size_t group;  /* index (into the sorted array) of its representative */
} instance;

static int status_of(const analyze_out *ao, size_t i)
{
    if (!ao->confirm || !ao->schedule[i])
        return S_PREDICTED;
    const fr_confirmation *c = &ao->confirm[i];
    if (c->status == FR_NOT_RUN)
        return S_PREDICTED;
    if (c->status == FR_SPURIOUS)
        return S_SPURIOUS;
    return analyze_confirm_fails(ao, i) ? S_FAILS : S_REACHED;
}

/* Sorted by key, then surest first, then property order: each group is a
 * run of equal keys, its representative the run's first element. */
static int by_key(const void *x, const void *y)
{
    const instance *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->status != b->status)
        return a->status - b->status;
    return a->prop < b->prop ? -1 : a->prop > b->prop;
}

typedef struct group {
    size_t first, n; /* a run of the sorted instances */
} group;

static const instance *sorted_inst; /* for by_group */
static int by_group(const void *x, const void *y)
{
    const group *a = x, *b = y;
    const instance *ra = &sorted_inst[a->first], *rb = &sorted_inst[b->first];
    if (ra->status != rb->status)
        return ra->status - rb->status;
    return ra->prop < rb->prop ? -1 : ra->prop > rb->prop;
}

static void print_group(FILE *out, const analyze_out *ao, const instance *in,
                        size_t n)
{
    const ft_pipeline *pl = ao->pl;
    size_t i = in[0].prop;
    const ft_prop *p = &pl->props[i];
    const ft_presult *res = &pl->results[i];
    char head[600], more[64] = "";
    if (n > 1)
        snprintf(more, sizeof more, ", %zu instances", n);
    const char *severity = "warning";
    switch (in[0].status) {
    case S_FAILS: {
        const fr_outcome *o = &ao->confirm[i].outcome;
        severity = "error";
        snprintf(head, sizeof head, "atomicity violation confirmed by "
                 "replay: %s%s%s", fr_failure_name(o->failure),
                 o->site[0] ? " at " : "", o->site);
        break;
    }
    case S_REACHED:
        snprintf(head, sizeof head, "atomicity violation confirmed by "
                 "replay, the program did not fail");
        break;
    case S_SPURIOUS:
        severity = "note";
        snprintf(head, sizeof head, "atomicity violation predicted, its "
                 "replay diverged");
        break;
    default:
        snprintf(head, sizeof head, "atomicity violation predicted");
        break;
    }
    ft_report_text_as(out, pl->ctm, &pl->info, p, res, ao->schedule[i],
                      severity, head, more);
    for (int g = 0; g < (p->kind == FT_PROP_CMA ? 2 : 1); g++) {
        const fi_region *r = analyze_prop_region(pl, p, g);
        if (r)
            fprintf(out, "  region R%u: thread %u, %s, %s:%u-%u\n", r->id,
                    r->tid, r->function ? r->function : "?",
                    r->file ? r->file : "?", r->line_lo, r->line_hi);
    }
    if (ao->confirm && ao->schedule[i])
        analyze_print_confirm_one(out, ao, i);
    if (n < 2)
        return;
    size_t fails = 0;
    for (size_t k = 0; k < n; k++)
        fails += in[k].status == S_FAILS;
    fprintf(out, "  other instances:");
    for (size_t k = 1; k < n && k <= MAX_OTHERS_NAMED; k++)
        fprintf(out, "%s property #%u (%s)", k > 1 ? "," : "",
                pl->props[in[k].prop].id,
                ao->schedule[in[k].prop] ? ao->schedule[in[k].prop]
                                         : "no schedule");
    if (n - 1 > MAX_OTHERS_NAMED)
        fprintf(out, " and %zu more", n - 1 - MAX_OTHERS_NAMED);
    if (ao->confirm)
        fprintf(out, "; %zu of the %zu replays fail the program", fails, n);
    fputc('\n', out);
}

void analyze_print_atomicity(FILE *out, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    size_t n = 0, np = pl->nprops;
    for (size_t i = 0; i < np; i++)
        n += pl->results[i].verdict == FT_VIOLATED;
    instance *in = calloc(n + 1, sizeof *in);
    group *gr = calloc(n + 1, sizeof *gr);
    if (!in || !gr) {
        /* out of memory: each property on its own, as the library says */
        for (size_t i = 0; i < np; i++)
            if (pl->results[i].verdict == FT_VIOLATED)
                ft_report_text(out, pl->ctm, &pl->info, &pl->props[i],
                               &pl->results[i], ao->schedule[i]);
        n = 0;
    }
    size_t k = 0;
    for (size_t i = 0; in && i < np; i++) {
        if (pl->results[i].verdict != FT_VIOLATED)
            continue;
        in[k].prop = i;
        in[k].status = status_of(ao, i);
        in[k].key = pl->props[i].group;
        k++;
    }
    qsort(in, n, sizeof *in, by_key);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || in[i].key != in[i - 1].key)
            gr[ng++] = (group){i, 0};
        gr[ng - 1].n++;
    }
    sorted_inst = in;
    qsort(gr, ng, sizeof *gr, by_group);
    for (size_t g = 0; g < ng; g++)
        print_group(out, ao, &in[gr[g].first], gr[g].n);
    free(in);
    free(gr);
    /* what was not decided, property by property: each needs its own
     * look (a larger --timeout, a window that could not cover it) */
    for (size_t i = 0; i < np; i++) {
        int v = pl->results[i].verdict;
        const ft_presult *r = &pl->results[i];
        if ((v == FT_UNKNOWN && !r->covered && !r->not_solved) ||
            v == FT_ERROR)
            ft_report_text(out, pl->ctm, &pl->info, &pl->props[i],
                           &pl->results[i], ao->schedule[i]);
    }
}

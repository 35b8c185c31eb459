/* SPDX-License-Identifier: MIT */
/* report.c - what a user reads about a property: a compiler-style text
 * diagnostic (the regions with file:line, the interleaving that breaks
 * them, the variables) and the same facts as one JSON object for tools. */
#include "predict/predict.h"

#include <inttypes.h>
#include <string.h>

static const char *verdict_name(int v)
{
    switch (v) {
    case FT_HOLDS:
        return "holds";
    case FT_VIOLATED:
        return "violated";
    case FT_UNKNOWN:
        return "unknown";
    case FT_SUPPRESSED:
        return "suppressed";
    default:
        return "error";
    }
}

static const char *region_site(const ft_ctm *c, const ft_trace_info *ti,
                               const ft_pregion *g, int last, char *buf,
                               size_t len)
{
    uint32_t p = last ? g->last : g->first;
    if (g->thread >= c->nthreads || p >= c->len[g->thread])
        return "?:0";
    return ft_trace_info_site(ti, c, ft_ctm_at(c, g->thread, p), buf, len);
}

void ft_report_text(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                    const ft_prop *p, const ft_presult *res,
                    const char *schedule_path)
{
    ft_report_text_as(out, c, ti, p, res, schedule_path, "warning",
                      "atomicity violation predicted", "");
}

void ft_report_text_as(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                       const ft_prop *p, const ft_presult *res,
                       const char *schedule_path, const char *severity,
                       const char *headline, const char *count)
{
    const char *kind = p->kind == FT_PROP_CMA ? "CMA" : "CA";
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    char a[256], b[256];
    region_site(c, ti, &p->r[0], 0, a, sizeof a);
    const char *why = ft_presult_reason(res);
    if (res->verdict == FT_HOLDS) {
        /* the reason inside the parentheses, on the note's line */
        fprintf(out, "%s: note: %s property #%u holds: no feasible schedule "
                     "violates it%s%s%s\n",
                a, kind, p->id, why[0] ? " (" : "", why, why[0] ? ")" : "");
        return;
    }
    if (res->verdict != FT_VIOLATED) {
        fprintf(out, "%s: warning: %s property #%u: %s: %s\n", a, kind, p->id,
                verdict_name(res->verdict), why);
        return;
    }
    fprintf(out, "%s: %s: %s (%s property #%u%s)\n", a, severity, headline,
            kind, p->id, count);
    for (uint32_t g = 0; g < nreg; g++)
        fprintf(out, "%s: note: region %u of thread %u ends at %s\n",
                region_site(c, ti, &p->r[g], 0, a, sizeof a), g + 1,
                p->r[g].thread, region_site(c, ti, &p->r[g], 1, b, sizeof b));
    if (res->prefix)
        fprintf(out, "  after the first %u transitions of the recorded run, "
                     "in their order,\n", res->prefix);
    fprintf(out, "  interleaving that breaks it (violating accesses marked "
                 "'!'):\n");
    ft_step_iter it;
    ft_steps_begin(&it, res->steps, res->nsteps, res->packed);
    while (it.left > 0) {
        ft_step st = ft_steps_next(&it);
        uint32_t x = st.trans;
        if (!st.mark && !ft_ctm_is_shared(c, x))
            continue;
        fprintf(out, "    %c thread %-3u %-12s %s\n", st.mark ? '!' : ' ',
                c->tid[x], ft_op_name(c->op[x]),
                ft_trace_info_site(ti, c, x, a, sizeof a));
    }
    fprintf(out, "  variables:");
    for (uint32_t i = 0; i < res->nvars; i++) {
        uint64_t addr = c->vars[res->vars[i]].addr;
        if (ti->var_name)
            fprintf(out, " %s", ti->var_name(ti->var_ctx, addr, a, sizeof a));
        else
            fprintf(out, " 0x%" PRIx64, addr);
    }
    fprintf(out, "\n");
    if (schedule_path)
        fprintf(out, "  schedule: %s\n", schedule_path);
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void ft_report_json(FILE *out, const ft_ctm *c, const ft_trace_info *ti,
                    const ft_prop *p, const ft_presult *res,
                    const char *schedule_path)
{
    uint32_t nreg = p->kind == FT_PROP_CMA ? 2 : 1;
    char a[256];
    fprintf(out, "{\"property\":%u,\"kind\":\"%s\",\"verdict\":\"%s\"", p->id,
            p->kind == FT_PROP_CMA ? "CMA" : "CA", verdict_name(res->verdict));
    fprintf(out, ",\"regions\":[");
    for (uint32_t g = 0; g < nreg; g++) {
        fprintf(out, "%s{\"thread\":%u,\"begin\":", g ? "," : "",
                p->r[g].thread);
        json_str(out, region_site(c, ti, &p->r[g], 0, a, sizeof a));
        fprintf(out, ",\"end\":");
        json_str(out, region_site(c, ti, &p->r[g], 1, a, sizeof a));
        fputc('}', out);
    }
    fprintf(out, "],\"variables\":[");
    for (uint32_t i = 0; i < res->nvars; i++)
        fprintf(out, "%s\"0x%" PRIx64 "\"", i ? "," : "",
                c->vars[res->vars[i]].addr);
    fprintf(out, "],\"schedule\":");
    if (schedule_path)
        json_str(out, schedule_path);
    else
        fprintf(out, "null");
    fprintf(out, ",\"steps\":%u,\"iterations\":%u,\"seconds\":%.6f", res->nsteps,
            res->iterations, res->seconds);
    fprintf(out, ",\"slice\":{\"transitions\":%u,\"blocks\":%u,\"cxt\":%u}",
            res->slice_trans, res->slice_blocks, res->slice_cxt);
    /* the part of the run solved: all of it, or a window after a
     * recorded prefix (docs/prediction.md, "windows") */
    fprintf(out, ",\"window\":{\"first\":%u,\"end\":%u,\"whole\":%s,"
                 "\"windows\":%u,\"holds_in_window\":%s,\"prefix\":%u}",
            res->window_first, res->window_end,
            res->window_first == 0 && res->window_end == c->ntrans ? "true"
                                                                   : "false",
            res->windows, res->window_holds ? "true" : "false", res->prefix);
    fprintf(out, ",\"reason\":");
    json_str(out, ft_presult_reason(res));
    fputc('}', out);
}

/* SPDX-License-Identifier: MIT */
/* analyze_report.c - what `foretell analyze` tells about its findings:
 * observed violations (the recorded run itself was not serializable for a
 * region) with the three events that show it, predicted violations with
 * both regions, the interleaving and the schedule file, and a summary;
 * as compiler-style text for people or one JSON document for tools. */
#include "cli/analyze_cmd.h"
#include "cli/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *event_site(const fi_trace *t, uint64_t i, char *buf,
                              size_t len)
{
    const ft_site *s = i < t->nev ? fi_trace_site_get(t, t->ev[i].site)
                                  : NULL;
    if (s)
        snprintf(buf, len, "%s:%u", s->file ? s->file : "?", s->line);
    else
        snprintf(buf, len, "?:0");
    return buf;
}

static const char *var_name(const ft_pipeline *pl, uint64_t key, char *buf,
                            size_t len)
{
    return ft_pipeline_var_name(pl, key, buf, len);
}

static const char *region_lines(const fi_region *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%u-%u", r->file ? r->file : "?", r->line_lo,
             r->line_hi);
    return buf;
}

void analyze_print_observed(FILE *out, const ft_pipeline *pl)
{
    const fi_analysis *a = &pl->infer;
    const fi_trace *t = &pl->trace;
    char s1[256], s2[256], s3[256], buf[256];
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        if (!ft_pipeline_observed(pl, k))
            continue;
        fprintf(out, "%s: warning: atomicity violation observed in the "
                     "recorded run: region R%u of thread %u (%s, %s)\n",
                event_site(t, fi_region_witness(a, r)->out, s1, sizeof s1), r->id, r->tid,
                r->function ? r->function : "?",
                region_lines(r, s2, sizeof s2));
        const fi_witness *w = fi_region_witness(a, r);
        fprintf(out, "  thread %u event %" PRIu64 " at %s\n"
                     "    conflicts with thread %u event %" PRIu64 " at %s\n"
                     "    which conflicts with thread %u event %" PRIu64
                     " at %s\n",
                r->tid, w->out, event_site(t, w->out, s1, sizeof s1),
                w->via < t->nev ? t->ev[w->via].tid : 0, w->via,
                event_site(t, w->via, s2, sizeof s2), r->tid, w->in,
                event_site(t, w->in, s3, sizeof s3));
        fprintf(out, "  variables:");
        for (uint32_t v = 0; v < r->nvars; v++)
            fprintf(out, " %s",
                    var_name(pl, a->vars[r->vars[v]].key, buf, sizeof buf));
        fprintf(out, "\n");
    }
}

/* Event ev's site as the trace's reader has it (its SOURCE and INSN
 * entries), NULL when unknown. */
static const ft_site *event_reader_site(const ft_pipeline *pl, uint64_t ev)
{
    if (!pl->names || ev >= pl->trace.nev)
        return NULL;
    uint32_t id = pl->trace.ev[ev].site;
    return id ? ft_reader_site(pl->names, id) : NULL;
}

const char *analyze_site_insn(const ft_pipeline *pl, uint64_t ev)
{
    const ft_site *s = event_reader_site(pl, ev);
    return s && !s->file ? s->insn : NULL;
}

void analyze_print_source(FILE *out, const ft_pipeline *pl, uint64_t ev)
{
    const ft_site *s = event_reader_site(pl, ev);
    const char *insn = analyze_site_insn(pl, ev);
    uint32_t id = s ? s->id : 0;
    if (s && s->text && s->text[0])
        fprintf(out, "    %5u | %s\n", s->line, s->text);
    else if (insn && id < pl->info.nsites && pl->info.site_where &&
             pl->info.site_where[id]) /* no line: the instruction */
        fprintf(out, "    %s | %s\n", pl->info.site_where[id], insn);
}

/* The function of event i's site, "?" if none. */
static const char *event_function(const fi_trace *t, uint64_t i)
{
    const ft_site *s = i < t->nev ? fi_trace_site_get(t, t->ev[i].site)
                                  : NULL;
    return s && s->function ? s->function : "?";
}

/* API misuse the recorded run shows (predict/misuse.c): an error each,
 * the misusing call and where the holder took the mutex. */
void analyze_print_misuse(FILE *out, const ft_pipeline *pl)
{
    const fi_trace *t = &pl->trace;
    char s1[256], buf[256];
    for (size_t k = 0; k < pl->nmisuse; k++) {
        const ft_misuse *m = &pl->misuse[k];
        const char *name = var_name(pl, m->obj, buf, sizeof buf);
        fprintf(out, "%s: error: %s (%s) in thread %u, observed in the "
                     "recorded run",
                event_site(t, m->event, s1, sizeof s1),
                ft_misuse_title(m->what), name, m->tid);
        if (m->instances > 1)
            fprintf(out, " (%" PRIu64 " times; the first shown)",
                    m->instances);
        fputc('\n', out);
        fprintf(out, "  thread %u event %" PRIu64 " at %s (%s)\n", m->tid,
                m->event, event_site(t, m->event, s1, sizeof s1),
                event_function(t, m->event));
        analyze_print_source(out, pl, m->event);
        if (m->holder >= 0 && m->taken != UINT64_MAX)
            fprintf(out, "  %s held by thread %lld since event %" PRIu64
                         " at %s (%s)\n",
                    name, (long long)m->holder, m->taken,
                    event_site(t, m->taken, s1, sizeof s1),
                    event_function(t, m->taken));
        if (m->holder >= 0 && m->taken != UINT64_MAX)
            analyze_print_source(out, pl, m->taken);
        else if (m->holder >= 0)
            fprintf(out, "  %s held by thread %lld\n", name,
                    (long long)m->holder);
    }
}

static void json_misuse(ft_json *j, const ft_pipeline *pl)
{
    const fi_trace *t = &pl->trace;
    char site[256], buf[256];
    ft_json_begin_array(j);
    for (size_t k = 0; k < pl->nmisuse; k++) {
        const ft_misuse *m = &pl->misuse[k];
        ft_json_begin_object(j);
        ft_json_kstr(j, "what", ft_misuse_title(m->what));
        ft_json_kstr(j, "mutex", var_name(pl, m->obj, buf, sizeof buf));
        ft_json_kuint(j, "thread", m->tid);
        ft_json_kuint(j, "event", m->event);
        ft_json_kuint(j, "instances", m->instances);
        ft_json_kstr(j, "site", event_site(t, m->event, site, sizeof site));
        ft_json_kstr(j, "function", event_function(t, m->event));
        if (m->holder >= 0) {
            ft_json_key(j, "holder");
            ft_json_begin_object(j);
            ft_json_kuint(j, "thread", (uint64_t)m->holder);
            if (m->taken != UINT64_MAX) {
                ft_json_kuint(j, "event", m->taken);
                ft_json_kstr(j, "site",
                             event_site(t, m->taken, site, sizeof site));
                ft_json_kstr(j, "function", event_function(t, m->taken));
            }
            ft_json_end_object(j);
        }
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
}

static const char *kind_name(const ft_prop *p)
{
    return p->kind == FT_PROP_CMA ? "CMA" : "CA";
}

const fi_region *analyze_prop_region(const ft_pipeline *pl, const ft_prop *p,
                                     int g)
{
    const fi_property *fp = &pl->infer.props[p->id];
    return ft_pipeline_region(pl, g ? fp->r2 : fp->r1);
}

static void print_summary(FILE *out, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    size_t st[4] = {0};
    for (size_t k = 0; k < pl->infer.nregions; k++)
        if (pl->infer.regions[k].status < 4)
            st[pl->infer.regions[k].status]++;
    size_t ca = 0;
    for (size_t i = 0; i < pl->nprops; i++)
        ca += pl->props[i].kind == FT_PROP_CA;
    fprintf(out,
            "%s: %zu regions (%zu proved atomic, %zu without conflict, %zu "
            "observed violated, %zu open); %zu properties (%zu CA, %zu CMA): "
            "%zu violated, %zu hold, %zu unknown",
            pl->path, pl->infer.nregions, st[FI_ST_PROVED],
            st[FI_ST_NOCONFLICT], st[FI_ST_OBSERVED], st[FI_ST_OPEN],
            pl->nprops, ca, pl->nprops - ca, pl->nviolated, pl->nholds,
            pl->nunknown + pl->nerror);
    if (pl->decide.holds + pl->decide.violated)
        fprintf(out, " (%llu decided without the solver)",
                (unsigned long long)(pl->decide.holds + pl->decide.violated));
    if (pl->nskipped)
        fprintf(out, " (%zu not solved: %s)", pl->nskipped, pl->skip_why);
    if (pl->ncovered)
        fprintf(out, ", %zu more instances of violated static properties "
                     "not solved (--every-instance)", pl->ncovered);
    if (pl->infer.ncma_dropped)
        fprintf(out, "; %zu CMA properties not generated (limit)",
                pl->infer.ncma_dropped);
    if (pl->stopped)
        fprintf(out, "; --time ran out in %s: regions and properties "
                     "incomplete", pl->stopped);
    if (pl->nmisuse)
        fprintf(out, "; %zu API misuse observed", pl->nmisuse);
    if (pl->nsuppressed)
        fprintf(out, "; %zu suppressed", pl->nsuppressed);
    fprintf(out, "; other kinds: %zu candidates: %zu violated (%zu bugs%s), "
            "%zu hold, %zu unknown",
            pl->nkprops, pl->nkviolated, analyze_kind_bugs(ao),
            ao->kconfirm ? " proved by replay" : ", unconfirmed",
            pl->nkholds, pl->nkunknown);
    /* what --time left undone in the confirmation (exit 5 if nothing
     * was found) */
    size_t unreplayed = analyze_not_replayed(ao),
           unrefined = analyze_unrefined(ao);
    if (unreplayed || unrefined)
        fprintf(out,
                "; undecided by --time: %zu witnesses not replayed, "
                "%zu diverged witnesses not refined",
                unreplayed, unrefined);
    fprintf(out, " [%.2fs inference, %.2fs prediction]\n", pl->infer_seconds,
            pl->predict_seconds + pl->kinds_seconds);
}

void analyze_print_text(FILE *out, const analyze_out *ao)
{
    analyze_print_atomicity(out, ao);
    analyze_print_confirm(out, ao);
    analyze_print_findings(out, ao);
    analyze_print_kind_unknown(out, ao);
    print_summary(out, ao);
}

static void json_region(ft_json *j, const ft_pipeline *pl, const ft_prop *p,
                        int g)
{
    const fi_region *r = analyze_prop_region(pl, p, g);
    const ft_pregion *pr = &p->r[g];
    char site[256];
    ft_json_begin_object(j);
    ft_json_kuint(j, "region", r ? r->id : 0);
    ft_json_kuint(j, "thread", pr->thread);
    ft_json_kstr(j, "function", r ? r->function : NULL);
    ft_json_kstr(j, "file", r ? r->file : NULL);
    ft_json_key(j, "lines");
    ft_json_begin_array(j);
    ft_json_uint(j, r ? r->line_lo : 0);
    ft_json_uint(j, r ? r->line_hi : 0);
    ft_json_end_array(j);
    ft_json_kstr(j, "begin", ft_trace_info_site(&pl->info, pl->ctm,
                                                ft_ctm_at(pl->ctm, pr->thread,
                                                          pr->first),
                                                site, sizeof site));
    ft_json_kstr(j, "end", ft_trace_info_site(&pl->info, pl->ctm,
                                              ft_ctm_at(pl->ctm, pr->thread,
                                                        pr->last),
                                              site, sizeof site));
    ft_json_end_object(j);
}

static void json_prop(ft_json *j, const analyze_out *ao, size_t i)
{
    const ft_pipeline *pl = ao->pl;
    const ft_prop *p = &pl->props[i];
    const ft_presult *res = &pl->results[i];
    char buf[256];
    ft_json_begin_object(j);
    ft_json_kuint(j, "property", p->id);
    ft_json_kstr(j, "kind", kind_name(p));
    ft_json_kstr(j, "verdict", res->verdict == FT_VIOLATED ? "violated"
                               : res->verdict == FT_UNKNOWN ? "unknown"
                                                            : "error");
    ft_json_key(j, "regions");
    ft_json_begin_array(j);
    for (int g = 0; g < (p->kind == FT_PROP_CMA ? 2 : 1); g++)
        json_region(j, pl, p, g);
    ft_json_end_array(j);
    ft_json_key(j, "variables");
    ft_json_begin_array(j);
    for (uint32_t v = 0; v < res->nvars; v++)
        ft_json_str(j, var_name(pl, pl->ctm->vars[res->vars[v]].addr, buf,
                                sizeof buf));
    ft_json_end_array(j);
    ft_json_kstr(j, "schedule", ao->schedule[i]);
    if (ao->confirm && ao->schedule[i]) {
        ft_json_key(j, "confirmation");
        analyze_json_confirm(j, ao, i);
    }
    ft_json_kuint(j, "steps", res->nsteps);
    /* no witness obeys the straight-line bound (docs/prediction.md) */
    ft_json_kbool(j, "relaxed", res->relaxed != 0);
    ft_json_kuint(j, "iterations", res->iterations);
    ft_json_key(j, "seconds");
    ft_json_float(j, res->seconds);
    if (res->verdict != FT_VIOLATED)
        ft_json_kstr(j, "reason", ft_presult_reason(res));
    ft_json_end_object(j);
}

static int by_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* {"n", "median", "p90", "max"} of the seconds each of the n results
 * took, of those looked at (not those --time left, not the instances
 * a violated static property covered): the per-property figures of
 * issue 16, holds included (the lists give only violations and
 * unknowns). */
static void json_seconds(ft_json *j, const char *key, const ft_presult *r,
                         size_t n)
{
    float *s = malloc(sizeof *s * (n + 1));
    size_t m = 0;
    for (size_t i = 0; s && i < n; i++)
        if (!r[i].not_solved && !r[i].covered)
            s[m++] = r[i].seconds;
    ft_json_key(j, key);
    ft_json_begin_object(j);
    ft_json_kuint(j, "n", m);
    if (m) {
        qsort(s, m, sizeof *s, by_float);
        ft_json_key(j, "median");
        ft_json_float(j, s[(m - 1) / 2]);
        ft_json_key(j, "p90");
        ft_json_float(j, s[(m * 9 + 9) / 10 - 1]);
        ft_json_key(j, "max");
        ft_json_float(j, s[m - 1]);
    }
    ft_json_end_object(j);
    free(s);
}

static void json_observed(ft_json *j, const ft_pipeline *pl)
{
    const fi_analysis *a = &pl->infer;
    const fi_trace *t = &pl->trace;
    char site[256], buf[256];
    ft_json_begin_array(j);
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        if (!ft_pipeline_observed(pl, k))
            continue;
        ft_json_begin_object(j);
        ft_json_kuint(j, "region", r->id);
        ft_json_kuint(j, "thread", r->tid);
        ft_json_kstr(j, "function", r->function);
        ft_json_kstr(j, "file", r->file);
        ft_json_key(j, "lines");
        ft_json_begin_array(j);
        ft_json_uint(j, r->line_lo);
        ft_json_uint(j, r->line_hi);
        ft_json_end_array(j);
        ft_json_key(j, "variables");
        ft_json_begin_array(j);
        for (uint32_t v = 0; v < r->nvars; v++)
            ft_json_str(j, var_name(pl, a->vars[r->vars[v]].key, buf,
                                    sizeof buf));
        ft_json_end_array(j);
        const fi_witness *w = fi_region_witness(&pl->infer, r);
        const uint64_t ev[3] = {w->out, w->via, w->in};
        static const char *const role[3] = {"out", "via", "in"};
        for (int e = 0; e < 3; e++) {
            ft_json_key(j, role[e]);
            ft_json_begin_object(j);
            ft_json_kuint(j, "event", ev[e]);
            ft_json_kuint(j, "thread", ev[e] < t->nev ? t->ev[ev[e]].tid : 0);
            ft_json_kstr(j, "site", event_site(t, ev[e], site, sizeof site));
            ft_json_end_object(j);
        }
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
}

void analyze_print_json(FILE *out, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    ft_json j;
    ft_json_init(&j, out);
    ft_json_begin_object(&j);
    ft_json_kstr(&j, "trace", pl->path);
    ft_json_kstr(&j, "format", pl->format == FT_INPUT_STD ? "std"
                                                          : "foretell");
    ft_json_key(&j, "damaged");
    if (pl->damaged)
        ft_json_str(&j, pl->damage.message);
    else
        ft_json_null(&j);
    size_t st[4] = {0}, ca = 0;
    for (size_t k = 0; k < pl->infer.nregions; k++)
        if (pl->infer.regions[k].status < 4)
            st[pl->infer.regions[k].status]++;
    for (size_t i = 0; i < pl->nprops; i++)
        ca += pl->props[i].kind == FT_PROP_CA;
    ft_json_kuint(&j, "regions", pl->infer.nregions);
    ft_json_kuint(&j, "proved", st[FI_ST_PROVED]);
    ft_json_kuint(&j, "no_conflict", st[FI_ST_NOCONFLICT]);
    ft_json_kuint(&j, "observed", st[FI_ST_OBSERVED]);
    ft_json_kuint(&j, "open", st[FI_ST_OPEN]);
    ft_json_kuint(&j, "properties", pl->nprops);
    ft_json_kuint(&j, "ca", ca);
    ft_json_kuint(&j, "cma", pl->nprops - ca);
    ft_json_kuint(&j, "cma_not_generated", pl->infer.ncma_dropped);
    ft_json_kuint(&j, "cma_pairs_beyond_window",
                  pl->infer.ncma_window_skipped);
    ft_json_kuint(&j, "unmapped", pl->nunmapped);
    ft_json_kuint(&j, "violated", pl->nviolated);
    if (ao->confirm)
        ft_json_kuint(&j, "confirmed", analyze_confirmed(ao));
    ft_json_kuint(&j, "holds", pl->nholds);
    ft_json_kuint(&j, "unknown", pl->nunknown + pl->nerror);
    ft_json_kuint(&j, "not_solved", pl->nskipped);
    ft_json_kuint(&j, "static_properties", pl->ngroups);
    ft_json_kuint(&j, "covered", pl->ncovered);
    /* findings a suppression rule covered (all kinds), not listed */
    ft_json_kuint(&j, "suppressed", pl->nsuppressed);
    ft_json_kstr(&j, "stopped_in", pl->stopped);
    ft_json_kuint(&j, "decided_without_solver",
                  pl->decide.holds + pl->decide.violated);
    ft_json_kuint(&j, "relaxed_search", pl->decide.relaxed);
    ft_json_key(&j, "infer_seconds");
    ft_json_double(&j, pl->infer_seconds);
    ft_json_key(&j, "predict_seconds");
    ft_json_double(&j, pl->predict_seconds);
    json_seconds(&j, "property_seconds", pl->results, pl->nprops);
    ft_json_key(&j, "observed_violations");
    json_observed(&j, pl);
    ft_json_key(&j, "misuse");
    json_misuse(&j, pl);
    ft_json_key(&j, "violations");
    ft_json_begin_array(&j);
    for (size_t i = 0; i < pl->nprops; i++)
        if (pl->results[i].verdict == FT_VIOLATED)
            json_prop(&j, ao, i);
    ft_json_end_array(&j);
    ft_json_kuint(&j, "kind_candidates", pl->nkprops);
    ft_json_kuint(&j, "kind_violated", pl->nkviolated);
    ft_json_kuint(&j, "kind_holds", pl->nkholds);
    ft_json_kuint(&j, "kind_unknown", pl->nkunknown);
    ft_json_kuint(&j, "kind_not_solved", pl->nkskipped);
    json_seconds(&j, "kind_seconds", pl->kresults, pl->nkprops);
    ft_json_kuint(&j, "kind_bugs", analyze_kind_bugs(ao));
    ft_json_kstr(&j, "unconfirmed", ao->unconfirmed[0] ? ao->unconfirmed
                                                       : NULL);
    ft_json_key(&j, "findings");
    analyze_json_findings(&j, ao);
    ft_json_key(&j, "unsolved");
    ft_json_begin_array(&j);
    for (size_t i = 0; i < pl->nprops; i++)
        if ((pl->results[i].verdict == FT_UNKNOWN &&
             !pl->results[i].covered && !pl->results[i].not_solved) ||
            pl->results[i].verdict == FT_ERROR)
            json_prop(&j, ao, i);
    ft_json_end_array(&j);
    ft_json_key(&j, "kind_unsolved");
    analyze_json_kind_unknown(&j, ao);
    ft_json_end_object(&j);
    ft_json_line(&j);
}

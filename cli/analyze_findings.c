/* SPDX-License-Identifier: MIT */
/* analyze_findings.c - the findings of the property kinds (predict/
 * kind.h) as people and tools read them: one group per static bug (kind
 * and the sites of its events, the fingerprint batch analysis keys on),
 * with the number of dynamic instances; each event of the group's
 * representative with its thread, site, call stack (rebuilt from the
 * trace's function entries and exits) and the locks its thread held, as
 * ThreadSanitizer reports them; the schedule and what its replay showed.
 * A finding is an error when its replay proved it, a warning when it is
 * predicted and not replayed, a note when the replay did not show it (or
 * reached a reordering the program survived). */
#include "cli/analyze_cmd.h"
#include "cli/json.h"
#include "predict/kind.h"
#include "replay/confirm.h"

#include <stdlib.h>
#include <string.h>

#define MAXFRAMES 8

/* One finding of a kind, described. */
typedef struct finding {
    size_t i;                 /* index into pl->kprops */
    const ft_pkind *k;
    ft_kevent ev[FT_KEVENTS_MAX];
    uint32_t nev;
    char msg[600];
    char fp[17];
    size_t group;             /* index of its group's representative */
    size_t instances;         /* representative: findings in the group */
} finding;

/* A call stack: frame 0 is the event's own site, frame k the call site
 * of the k-th function entry still open (sites of the trace). */
typedef struct stack {
    uint32_t site[MAXFRAMES];
    uint32_t n;
} stack;

/* How sure a finding is, best first: the representative of a group is
 * its surest instance. */
enum { S_BUG, S_REACHED, S_PREDICTED, S_NOT_REPRODUCED, S_SPURIOUS };

static int status_of(const analyze_out *ao, const finding *f)
{
    if (!ao->kconfirm)
        return S_PREDICTED;
    const fr_confirmation *c = &ao->kconfirm[f->i];
    if (c->status == FR_NOT_RUN) /* not replayed: --time ran out */
        return S_PREDICTED;
    if (c->status == FR_SPURIOUS)
        return S_SPURIOUS;
    if (c->status == FR_NOT_REPRODUCED)
        return S_NOT_REPRODUCED;
    if (f->k->expect == FT_EXPECT_FOLLOWED &&
        (c->outcome.failure == FR_OK || c->outcome.failure == FR_UNFINISHED))
        return S_REACHED;
    return S_BUG;
}

/* The violated kind properties, described and grouped; NULL if none. */
static finding *collect(const analyze_out *ao, size_t *nout)
{
    const ft_pipeline *pl = ao->pl;
    *nout = 0;
    finding *f = calloc(pl->nkprops + 1, sizeof *f);
    if (!f)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < pl->nkprops; i++) {
        if (pl->kresults[i].verdict != FT_VIOLATED)
            continue;
        finding *x = &f[n];
        x->i = i;
        x->k = ft_pkind_of(pl->kprops[i].kind);
        if (!x->k)
            continue;
        x->nev = x->k->describe(pl->ctm, &pl->info, &pl->kprops[i],
                                &pl->kresults[i], x->ev, FT_KEVENTS_MAX,
                                x->msg, sizeof x->msg);
        ft_pkind_fingerprint(pl->ctm, &pl->info, x->k->name, x->ev, x->nev,
                             x->fp);
        x->group = n;
        for (size_t j = 0; j < n; j++)
            if (f[j].group == j && f[j].k == x->k && !strcmp(f[j].fp, x->fp)) {
                x->group = j;
                break;
            }
        n++;
    }
    /* each group's representative: its surest instance */
    for (size_t j = 0; j < n; j++) {
        finding *r = &f[f[j].group];
        r->instances++;
        if (f[j].group != j && status_of(ao, &f[j]) < status_of(ao, r)) {
            /* swap the descriptions, keep the group's slot */
            finding tmp = *r;
            size_t g = r->group, inst = r->instances;
            *r = f[j];
            r->group = g;
            r->instances = inst;
            f[j] = tmp;
            f[j].group = g;
        }
    }
    *nout = n;
    return f;
}

/* The stacks of the events of the groups' representatives, in one pass
 * over the trace. */
typedef struct want {
    uint64_t event;
    stack *out;
} want;

static int want_cmp(const void *a, const void *b)
{
    const want *x = a, *y = b;
    return (x->event > y->event) - (x->event < y->event);
}

static stack *stacks(const ft_pipeline *pl, const finding *f, size_t n)
{
    size_t nw = 0;
    for (size_t j = 0; j < n; j++)
        if (f[j].group == j)
            nw += f[j].nev;
    stack *st = calloc(nw * 1 + 1, sizeof *st);
    want *w = calloc(nw + 1, sizeof *w);
    uint32_t nt = pl->trace.nthreads + 1;
    stack *cur = calloc(nt, sizeof *cur); /* call sites, innermost last */
    uint32_t *depth = calloc(nt, sizeof *depth);
    if (!st || !w || !cur || !depth) {
        free(st);
        free(w);
        free(cur);
        free(depth);
        return NULL;
    }
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (f[j].group == j)
            for (uint32_t e = 0; e < f[j].nev; e++, k++)
                w[k] = (want){pl->ctm->event[f[j].ev[e].trans], &st[k]};
    qsort(w, nw, sizeof *w, want_cmp);
    size_t q = 0;
    for (size_t i = 0; i < pl->trace.nev && q < nw; i++) {
        const fi_event *ev = &pl->trace.ev[i];
        uint32_t t = ev->tid < nt ? ev->tid : 0;
        for (; q < nw && w[q].event == i; q++) {
            stack *s = w[q].out;
            s->site[s->n++] = ev->site;
            for (uint32_t d = cur[t].n; d-- > 0 && s->n < MAXFRAMES;)
                s->site[s->n++] = cur[t].site[d];
        }
        if (ev->kind == FT_EV_FUNC_ENTRY) {
            if (depth[t] < MAXFRAMES)
                cur[t].site[cur[t].n++] = (uint32_t)ev->value;
            depth[t]++;
        } else if (ev->kind == FT_EV_FUNC_EXIT && depth[t] > 0) {
            if (depth[t]-- <= MAXFRAMES)
                cur[t].n--;
        }
    }
    free(w);
    free(cur);
    free(depth);
    return st;
}

static const char *site_text(const ft_pipeline *pl, uint32_t site, char *buf,
                             size_t len, const char **func)
{
    const ft_site *s = fi_trace_site_get(&pl->trace, site);
    *func = s && s->function ? s->function : "?";
    if (s && s->file)
        snprintf(buf, len, "%s:%u", s->file, s->line);
    else if (site < pl->info.nsites && pl->info.site_where &&
             pl->info.site_where[site]) /* prog+0xae27 */
        snprintf(buf, len, "%s", pl->info.site_where[site]);
    else
        snprintf(buf, len, "?:0");
    return buf;
}

/* Whether a caller frame's site leaves the program: no file, in another
 * module than the access (the library that started the thread). */
static int outside(const ft_pipeline *pl, uint32_t first, uint32_t site)
{
    const ft_site *s = fi_trace_site_get(&pl->trace, site);
    const ft_site *f = fi_trace_site_get(&pl->trace, first);
    return !s || (!s->file && (!f || f->module != s->module));
}

/* The locks thread tid(x) holds just before x, as names, into buf. */
static const char *locks_held(const ft_pipeline *pl, uint32_t x, char *buf,
                              size_t len)
{
    const ft_reduced *r = pl->reduced;
    uint32_t s = ft_pkind_held_before(r, x);
    size_t off = 0;
    buf[0] = 0;
    for (uint32_t i = 0; s && i < r->ls_len[s] && off + 2 < len; i++) {
        uint32_t en = r->ls_pool[r->ls_first[s] + i];
        char name[200];
        int w = snprintf(buf + off, len - off, "%s%s%s", off ? ", " : "",
                         ft_pkind_var(pl->ctm, &pl->info, en >> 1, name,
                                      sizeof name),
                         en & 1 ? " (read)" : "");
        if (w < 0)
            break;
        off += (size_t)w < len - off ? (size_t)w : len - off - 1;
    }
    return buf;
}

static const char *status_phrase(const analyze_out *ao, const finding *f,
                                 char *buf, size_t len)
{
    int st = status_of(ao, f);
    if (st == S_PREDICTED) {
        snprintf(buf, len, "predicted, unconfirmed%s%s%s",
                 ao->unconfirmed[0] ? " (" : "", ao->unconfirmed,
                 ao->unconfirmed[0] ? ")" : "");
        return buf;
    }
    const fr_confirmation *c = &ao->kconfirm[f->i];
    switch (st) {
    case S_BUG:
        snprintf(buf, len, "confirmed by replay: %s%s%s",
                 fr_failure_name(c->outcome.failure),
                 c->outcome.site[0] ? " at " : "", c->outcome.site);
        break;
    case S_REACHED:
        snprintf(buf, len, "reached on replay; %s",
                 c->outcome.failure == FR_UNFINISHED
                     ? "the run was stopped before it ended (--time ran out)"
                     : "the program did not fail");
        break;
    case S_NOT_REPRODUCED:
        snprintf(buf, len, "not reproduced: the replay followed the schedule "
                 "and ended with %s",
                 c->outcome.failure == FR_OK ? "no failure"
                                             : fr_failure_name(
                                                   c->outcome.failure));
        break;
    default:
        snprintf(buf, len, "not confirmed: %s",
                 c->first.divergence[0] ? c->first.divergence
                                        : "the replay departed from it");
        break;
    }
    return buf;
}

static void print_group(FILE *out, const analyze_out *ao, const finding *f,
                        const stack *st)
{
    const ft_pipeline *pl = ao->pl;
    const ft_ctm *c = pl->ctm;
    char site[300], ph[1200], held[600], obj[200];
    const char *fn;
    int s = status_of(ao, f);
    uint32_t first = f->nev ? f->ev[0].trans : 0;
    fprintf(out, "%s: %s: %s %s: %s\n",
            ft_trace_info_site(&pl->info, c, first, site, sizeof site),
            s == S_BUG ? "error" : s == S_PREDICTED ? "warning" : "note",
            f->k->title, status_phrase(ao, f, ph, sizeof ph), f->msg);
    for (uint32_t e = 0; e < f->nev; e++) {
        uint32_t x = f->ev[e].trans;
        uint32_t v = c->obj[x];
        fprintf(out, "  %s: thread %u %s", f->ev[e].role, c->tid[x],
                ft_op_name(c->op[x]));
        if (v < c->nvars)
            fprintf(out, " %s", ft_pkind_var(c, &pl->info, v, obj,
                                             sizeof obj));
        /* the value read or written, when the trace has its type */
        char val[64];
        if (v < c->nvars && c->vars[v].kind == FT_VAR_MEMORY &&
            ft_pipeline_var_value(pl, c->vars[v].addr,
                                  ft_ctm_writes(c, x) ? ft_ctm_written(c, x)
                                                      : c->value[x],
                                  val, sizeof val))
            fprintf(out, " = %s", val);
        fprintf(out, " at %s", ft_trace_info_site(&pl->info, c, x, site,
                                                  sizeof site));
        locks_held(pl, x, held, sizeof held);
        fprintf(out, "; locks held: %s\n", held[0] ? held : "none");
        if (x < c->ntrans)
            analyze_print_source(out, pl, c->event[x]);
        for (uint32_t d = 0; st && d < st[e].n; d++) {
            site_text(pl, st[e].site[d], site, sizeof site, &fn);
            if (d > 0 && outside(pl, st[e].site[0], st[e].site[d]))
                break; /* into the library that started the thread */
            fprintf(out, "      #%u %s %s\n", d, fn, site);
        }
    }
    if (f->instances > 1)
        fprintf(out, "  %zu dynamic instances of this bug\n", f->instances);
    if (ao->kschedule && ao->kschedule[f->i])
        fprintf(out, "  schedule: %s\n", ao->kschedule[f->i]);
    if (ao->kconfirm && ao->kschedule[f->i]) {
        const fr_confirmation *cf = &ao->kconfirm[f->i];
        if (cf->outcome.failure != FR_OK && cf->outcome.detail[0])
            fprintf(out, "  replay: %s\n", cf->outcome.detail);
        if (cf->tail[0])
            fprintf(out, "  (with tail %s after the schedule)\n", cf->tail);
        if (cf->note[0])
            fprintf(out, "  %s\n", cf->note);
        fprintf(out, "  replayed run: %s\n", cf->trace);
    }
}

void analyze_print_findings(FILE *out, const analyze_out *ao)
{
    size_t n;
    finding *f = collect(ao, &n);
    if (!f)
        return;
    stack *st = stacks(ao->pl, f, n);
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (f[j].group == j) {
            print_group(out, ao, &f[j], st ? &st[k] : NULL);
            k += f[j].nev;
        }
    free(st);
    free(f);
}

static void json_event(ft_json *j, const ft_pipeline *pl, const ft_kevent *e,
                       const stack *st)
{
    const ft_ctm *c = pl->ctm;
    char site[300], obj[200], held[600];
    const char *fn;
    uint32_t x = e->trans;
    ft_json_begin_object(j);
    ft_json_kstr(j, "role", e->role);
    ft_json_kuint(j, "thread", c->tid[x]);
    ft_json_kstr(j, "op", ft_op_name(c->op[x]));
    ft_json_kstr(j, "site", ft_trace_info_site(&pl->info, c, x, site,
                                               sizeof site));
    const char *insn = analyze_site_insn(pl, c->event[x]);
    if (insn) /* no file:line: what the access is */
        ft_json_kstr(j, "instruction", insn);
    ft_json_kuint(j, "event", c->event[x]);
    if (c->obj[x] < c->nvars)
        ft_json_kstr(j, "object", ft_pkind_var(c, &pl->info, c->obj[x], obj,
                                               sizeof obj));
    if (c->obj[x] < c->nvars && c->vars[c->obj[x]].kind == FT_VAR_MEMORY) {
        /* the value the access read, or the one it left: by its type */
        uint64_t v = ft_ctm_writes(c, x) ? ft_ctm_written(c, x)
                                         : c->value[x];
        char val[64];
        ft_json_khex(j, "value", v);
        ft_json_kstr(j, "value_text", ft_pkind_value(c, &pl->info, c->obj[x],
                                                     v, val, sizeof val));
    }
    locks_held(pl, x, held, sizeof held);
    ft_json_kstr(j, "locks_held", held);
    ft_json_key(j, "stack");
    ft_json_begin_array(j);
    for (uint32_t d = 0; st && d < st->n; d++) {
        site_text(pl, st->site[d], site, sizeof site, &fn);
        if (d > 0 && outside(pl, st->site[0], st->site[d]))
            break;
        ft_json_begin_object(j);
        ft_json_kstr(j, "function", fn);
        ft_json_kstr(j, "site", site);
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
    ft_json_end_object(j);
}

static const char *const status_names[] = {"bug", "reached", "predicted",
                                           "not_reproduced", "spurious"};

void analyze_json_findings(ft_json *j, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    size_t n;
    finding *f = collect(ao, &n);
    stack *st = f ? stacks(pl, f, n) : NULL;
    char site[300];
    ft_json_begin_array(j);
    size_t k = 0;
    for (size_t g = 0; f && g < n; g++) {
        if (f[g].group != g)
            continue;
        const finding *x = &f[g];
        ft_json_begin_object(j);
        ft_json_kstr(j, "kind", x->k->name);
        ft_json_kstr(j, "fingerprint", x->fp);
        ft_json_kstr(j, "status", status_names[status_of(ao, x)]);
        ft_json_kbool(j, "bug", status_of(ao, x) == S_BUG);
        ft_json_kstr(j, "message", x->msg);
        ft_json_kuint(j, "instances", x->instances);
        ft_json_key(j, "sites");
        ft_json_begin_array(j);
        for (uint32_t e = 0; e < x->nev; e++)
            ft_json_str(j, ft_trace_info_site(&pl->info, pl->ctm,
                                              x->ev[e].trans, site,
                                              sizeof site));
        ft_json_end_array(j);
        ft_json_key(j, "events");
        ft_json_begin_array(j);
        for (uint32_t e = 0; e < x->nev; e++)
            json_event(j, pl, &x->ev[e], st ? &st[k + e] : NULL);
        ft_json_end_array(j);
        k += x->nev;
        ft_json_kuint(j, "property", pl->kprops[x->i].id);
        ft_json_kstr(j, "schedule", ao->kschedule ? ao->kschedule[x->i]
                                                  : NULL);
        ft_json_kstr(j, "other_order", ao->kalt ? ao->kalt[x->i] : NULL);
        if (ao->kconfirm && ao->kschedule && ao->kschedule[x->i]) {
            ft_json_key(j, "confirmation");
            analyze_json_confirmation(j, &ao->kconfirm[x->i]);
        }
        ft_json_kuint(j, "steps", pl->kresults[x->i].nsteps);
        ft_json_key(j, "seconds");
        ft_json_float(j, pl->kresults[x->i].seconds);
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
    free(st);
    free(f);
}

/* ---- candidates of the kinds left undecided -------------------------- */

/* Whether candidate i was looked at and left undecided (not one the
 * bound left unsolved: those are only counted). */
static int kind_undecided(const ft_pipeline *pl, size_t i)
{
    const ft_presult *r = &pl->kresults[i];
    return (r->verdict == FT_UNKNOWN || r->verdict == FT_ERROR) &&
           !r->not_solved;
}

/* Text lines are bounded: a 10^6-event trace may leave thousands. */
#define KIND_UNKNOWN_LINES 20

void analyze_print_kind_unknown(FILE *out, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    char site[300];
    size_t shown = 0, more = 0;
    for (size_t i = 0; pl->kresults && i < pl->nkprops; i++) {
        if (!kind_undecided(pl, i))
            continue;
        if (shown == KIND_UNKNOWN_LINES) {
            more++;
            continue;
        }
        const ft_prop *p = &pl->kprops[i];
        const ft_pkind *k = ft_pkind_of(p->kind);
        fprintf(out, "%s: warning: %s candidate #%u of thread %u: unknown: "
                     "%s\n",
                ft_trace_info_site(&pl->info, pl->ctm, p->tgt[0], site,
                                   sizeof site),
                k ? k->name : "?", p->id, pl->ctm->tid[p->tgt[0]],
                ft_presult_reason(&pl->kresults[i]));
        shown++;
    }
    if (more)
        fprintf(out, "  ... and %zu more undecided candidates (--json lists "
                     "them all as kind_unsolved)\n", more);
}

void analyze_json_kind_unknown(ft_json *j, const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    char site[300];
    ft_json_begin_array(j);
    for (size_t i = 0; pl->kresults && i < pl->nkprops; i++) {
        if (!kind_undecided(pl, i))
            continue;
        const ft_prop *p = &pl->kprops[i];
        const ft_pkind *k = ft_pkind_of(p->kind);
        ft_json_begin_object(j);
        ft_json_kuint(j, "property", p->id);
        ft_json_kstr(j, "kind", k ? k->name : NULL);
        ft_json_key(j, "sites");
        ft_json_begin_array(j);
        for (uint32_t t = 0; t < p->ntgt; t++)
            ft_json_str(j, ft_trace_info_site(&pl->info, pl->ctm, p->tgt[t],
                                              site, sizeof site));
        ft_json_end_array(j);
        ft_json_key(j, "threads");
        ft_json_begin_array(j);
        for (uint32_t t = 0; t < p->ntgt; t++)
            ft_json_uint(j, pl->ctm->tid[p->tgt[t]]);
        ft_json_end_array(j);
        ft_json_kstr(j, "reason", ft_presult_reason(&pl->kresults[i]));
        ft_json_key(j, "seconds");
        ft_json_float(j, pl->kresults[i].seconds);
        ft_json_end_object(j);
    }
    ft_json_end_array(j);
}

/* SPDX-License-Identifier: MIT */
/* regions.c - where atomic regions come from: the code layout rules of the
 * paper's section V (inferred e-transactions), the user's annotations
 * (REGION_BEGIN/END events, which STD begin/end also become) and functions
 * named in the spec file.  One pass over the trace, state per thread.
 *
 * Inference keeps one candidate per active procedure frame (FUNC_ENTRY and
 * FUNC_EXIT give frames), so a region can span call sites while the
 * callee's own accesses form the callee's regions.  Anchors are shared
 * accesses to non-synchronisation variables; a candidate grows from anchor
 * to anchor while they stay in the same procedure and file, their source
 * lines span at most maxd, and the accesses do not come back to an earlier
 * site after others (that is the next loop iteration: each iteration is
 * its own region; a site repeating back to back, as in z = z + 1 at
 * statement granularity, is one statement, unless a call or a
 * synchronisation event came between).
 * Happens-before transitions close every candidate of the thread; lock,
 * unlock and notify do not, so one region can cover two critical sections
 * of the same lock. */
#include "infer/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct candidate {
    int open;
    uint64_t first, last;
    uint64_t fn, file;
    uint32_t line_lo, line_hi, site;
    uint32_t nanchors;
    int crossed;     /* a call or a synchronisation event of the thread
                        since the last anchor */
    uint32_t *sites; /* max_anchors entries */
} candidate;

typedef struct frame {
    candidate cand;
    int spec_open;        /* this activation is of a spec function */
    uint64_t spec_first;
    uint32_t spec_site;
} frame;

typedef struct thread_walk {
    frame *frames;
    uint32_t depth, cap; /* frames[0..depth] live; frames[0] is the base */
    uint64_t *begins;    /* open REGION_BEGIN events */
    uint32_t nbegins, capbegins;
    uint32_t *begin_sites;
    int run_open;        /* spec fallback without FUNC events */
    uint64_t run_first, run_last;
    uint32_t run_site;
    uint64_t last_event;
} thread_walk;

typedef struct walk {
    fi_analysis *a;
    thread_walk *th;
    uint32_t nthreads;
    uint64_t *fn_of_site, *file_of_site;
    uint64_t *base_of_site; /* the function's name without its C++
                               parameter list (spec files name those) */
    uint8_t *system_site;   /* in a system header: no inferred region */
    uint64_t *spec_ids;
    int has_func_events;
} walk;

static int close_cand(walk *w, uint32_t tid, candidate *c)
{
    if (!c->open)
        return 0;
    c->open = 0;
    /* the layout of a system header's code says what its authors meant
     * as a unit, not the program's: left out unless asked for */
    if (c->site <= w->a->trace->nsites && w->system_site[c->site])
        return 0;
    if (fi_add_region(w->a, tid, c->first, c->last, FI_SRC_INFERRED,
                      c->site) < 0)
        return -1;
    fi_region *r = &w->a->regions[w->a->nregions - 1];
    r->line_lo = c->line_lo;
    r->line_hi = c->line_hi;
    return 0;
}

static int grow_frames(walk *w, thread_walk *tw)
{
    if (tw->depth + 1 < tw->cap)
        return 0;
    uint32_t cap = tw->cap ? 2 * tw->cap : 8;
    frame *n = realloc(tw->frames, cap * sizeof *n);
    if (!n)
        return -1;
    for (uint32_t i = tw->cap; i < cap; i++) {
        memset(&n[i], 0, sizeof n[i]);
        n[i].cand.sites = malloc(w->a->opt.max_anchors * sizeof(uint32_t));
        if (!n[i].cand.sites) {
            tw->frames = n;
            tw->cap = i;
            return -1;
        }
    }
    tw->frames = n;
    tw->cap = cap;
    return 0;
}

/* The id of a demangled C++ name without its parameter list and what
 * follows it ("Account::withdraw(int) const" -> "Account::withdraw");
 * 0 for a name without one. */
static uint64_t base_name_id(const char *fn)
{
    const char *close = fn ? strrchr(fn, ')') : NULL;
    if (!close)
        return 0;
    int depth = 0;
    for (const char *p = close; p >= fn; p--) {
        depth += *p == ')';
        depth -= *p == '(';
        if (depth == 0) {
            size_t n = (size_t)(p - fn);
            while (n && fn[n - 1] == ' ')
                n--;
            if (!n || n >= 4096)
                return 0;
            char buf[4096];
            memcpy(buf, fn, n);
            buf[n] = 0;
            return fi_str_id(buf);
        }
    }
    return 0;
}

static int is_spec(const walk *w, uint32_t site)
{
    int in = site < w->a->trace->nsites + 1;
    uint64_t fn = in ? w->fn_of_site[site] : 0;
    uint64_t base = in ? w->base_of_site[site] : 0;
    if (!fn)
        return 0;
    for (size_t i = 0; i < w->a->opt.nspec; i++)
        if (w->spec_ids[i] == fn || w->spec_ids[i] == base)
            return 1;
    return 0;
}

static int anchor(walk *w, uint32_t tid, candidate *c, const fi_event *e)
{
    const ft_site *s = fi_trace_site_get(w->a->trace, e->site);
    uint64_t ix = fi_ev_index(w->a->trace, e);
    uint32_t line = s ? s->line : 0;
    uint64_t fn = w->fn_of_site[e->site <= w->a->trace->nsites ? e->site : 0];
    uint64_t file =
        w->file_of_site[e->site <= w->a->trace->nsites ? e->site : 0];
    if (c->open) {
        uint32_t lo = line < c->line_lo ? line : c->line_lo;
        uint32_t hi = line > c->line_hi ? line : c->line_hi;
        int fits = fn == c->fn && file == c->file &&
                   hi - lo <= w->a->opt.maxd &&
                   c->nanchors < w->a->opt.max_anchors;
        /* Back to an earlier site after others: the next iteration.
         * So is the last site again after a call or a synchronisation
         * event: a loop whose body has one anchor (sysprog21's tpool
         * summed `*result` once per future, with a lock and a free
         * between, into one region of 64 iterations). */
        uint32_t prev = c->sites[c->nanchors - 1];
        if (prev == e->site && c->crossed)
            fits = 0;
        for (uint32_t k = 0; fits && prev != e->site && k < c->nanchors; k++)
            if (c->sites[k] == e->site && e->site != 0)
                fits = 0;
        if (fits) {
            c->crossed = 0;
            c->last = ix;
            c->line_lo = lo;
            c->line_hi = hi;
            c->sites[c->nanchors++] = e->site;
            return 0;
        }
        if (close_cand(w, tid, c) < 0)
            return -1;
    }
    c->open = 1;
    c->first = c->last = ix;
    c->fn = fn;
    c->file = file;
    c->line_lo = c->line_hi = line;
    c->site = e->site;
    c->nanchors = 1;
    c->crossed = 0;
    c->sites[0] = e->site;
    return 0;
}

static int close_all(walk *w, uint32_t tid, thread_walk *tw)
{
    for (uint32_t d = 0; d <= tw->depth; d++)
        if (close_cand(w, tid, &tw->frames[d].cand) < 0)
            return -1;
    return 0;
}

static int step(walk *w, const fi_event *e)
{
    fi_analysis *a = w->a;
    thread_walk *tw = &w->th[e->tid];
    uint32_t tid = e->tid;
    uint64_t ix = fi_ev_index(a->trace, e); /* e's index in the trace */
    tw->last_event = ix;
    fi_access acc;
    fi_classify(a->trace, e, &acc);
    if (acc.hb && a->opt.infer && close_all(w, tid, tw) < 0)
        return -1;

    if (e->kind == FT_EV_FUNC_ENTRY || (acc.op != FI_OP_NONE && !acc.data))
        tw->frames[tw->depth].cand.crossed = 1;
    if (e->kind == FT_EV_FUNC_ENTRY) {
        if (grow_frames(w, tw) < 0)
            return -1;
        frame *f = &tw->frames[++tw->depth];
        f->cand.open = 0;
        f->spec_open = w->a->opt.nspec && is_spec(w, e->site);
        f->spec_first = ix;
        f->spec_site = e->site;
        return 0;
    }
    if (e->kind == FT_EV_FUNC_EXIT) {
        if (tw->depth == 0)
            return 0; /* exit of a frame entered before recording began */
        frame *f = &tw->frames[tw->depth];
        if (close_cand(w, tid, &f->cand) < 0)
            return -1;
        if (f->spec_open &&
            fi_add_region(a, tid, f->spec_first, ix, FI_SRC_SPEC,
                          f->spec_site) < 0)
            return -1;
        tw->depth--;
        return 0;
    }
    if (e->kind == FT_EV_REGION_BEGIN) {
        if (tw->nbegins == tw->capbegins) {
            uint32_t cap = tw->capbegins ? 2 * tw->capbegins : 4;
            uint64_t *b = realloc(tw->begins, cap * sizeof *b);
            if (!b)
                return -1;
            tw->begins = b;
            uint32_t *s = realloc(tw->begin_sites, cap * sizeof *s);
            if (!s)
                return -1;
            tw->begin_sites = s;
            tw->capbegins = cap;
        }
        tw->begin_sites[tw->nbegins] = e->site;
        tw->begins[tw->nbegins++] = ix;
        return 0;
    }
    if (e->kind == FT_EV_REGION_END) {
        if (tw->nbegins == 0)
            return 0; /* unmatched end: nothing was opened */
        tw->nbegins--;
        return fi_add_region(a, tid, tw->begins[tw->nbegins], ix,
                             FI_SRC_ANNOTATED, tw->begin_sites[tw->nbegins]);
    }
    /* Spec functions without FUNC events: runs of events in the function. */
    if (a->opt.nspec && !w->has_func_events && e->site) {
        int in = is_spec(w, e->site);
        if (in && tw->run_open && w->fn_of_site[e->site] !=
                                      w->fn_of_site[tw->run_site])
            in = 0;
        if (in) {
            if (!tw->run_open) {
                tw->run_open = 1;
                tw->run_first = ix;
                tw->run_site = e->site;
            }
            tw->run_last = ix;
        } else if (tw->run_open) {
            tw->run_open = 0;
            if (fi_add_region(a, tid, tw->run_first, tw->run_last,
                              FI_SRC_SPEC, tw->run_site) < 0)
                return -1;
            if (is_spec(w, e->site)) {
                tw->run_open = 1;
                tw->run_first = tw->run_last = ix;
                tw->run_site = e->site;
            }
        }
    }
    if (!a->opt.infer || !acc.data)
        return 0;
    uint32_t v = a->var_of[ix];
    if (v == UINT32_MAX || !a->vars[v].multi || a->vars[v].sync)
        return 0;
    return anchor(w, tid, &tw->frames[tw->depth].cand, e);
}

static int finish(walk *w)
{
    for (uint32_t t = 0; t < w->nthreads; t++) {
        thread_walk *tw = &w->th[t];
        if (!tw->frames)
            continue;
        if (close_all(w, t, tw) < 0)
            return -1;
        /* Unclosed user regions and spec bodies end with the thread. */
        while (tw->nbegins) {
            tw->nbegins--;
            if (fi_add_region(w->a, t, tw->begins[tw->nbegins],
                              tw->last_event, FI_SRC_ANNOTATED,
                              tw->begin_sites[tw->nbegins]) < 0)
                return -1;
        }
        for (uint32_t d = tw->depth; d >= 1; d--)
            if (tw->frames[d].spec_open &&
                fi_add_region(w->a, t, tw->frames[d].spec_first,
                              tw->last_event, FI_SRC_SPEC,
                              tw->frames[d].spec_site) < 0)
                return -1;
        if (tw->run_open && fi_add_region(w->a, t, tw->run_first,
                                          tw->run_last, FI_SRC_SPEC,
                                          tw->run_site) < 0)
            return -1;
    }
    return 0;
}

int fi_collect_regions(fi_analysis *a)
{
    const fi_trace *t = a->trace;
    walk w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.nthreads = t->nthreads;
    int rc = -1;
    w.th = calloc(t->nthreads ? t->nthreads : 1, sizeof *w.th);
    w.fn_of_site = calloc(t->nsites + 1, sizeof *w.fn_of_site);
    w.file_of_site = calloc(t->nsites + 1, sizeof *w.file_of_site);
    w.base_of_site = calloc(t->nsites + 1, sizeof *w.base_of_site);
    w.system_site = calloc(t->nsites + 1, 1);
    w.spec_ids = calloc(a->opt.nspec + 1, sizeof *w.spec_ids);
    if (!w.th || !w.fn_of_site || !w.file_of_site || !w.base_of_site ||
        !w.system_site || !w.spec_ids)
        goto out;
    for (uint32_t s = 1; s <= t->nsites; s++) {
        w.fn_of_site[s] = fi_str_id(t->sites[s - 1].function);
        w.base_of_site[s] = base_name_id(t->sites[s - 1].function);
        w.system_site[s] = !a->opt.system_regions && t->sites[s - 1].file &&
                           ft_path_is_system(t->sites[s - 1].file);
        w.file_of_site[s] = fi_str_id(t->sites[s - 1].file);
    }
    for (size_t i = 0; i < a->opt.nspec; i++)
        w.spec_ids[i] = fi_str_id(a->opt.spec_functions[i]);
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].kind == FT_EV_FUNC_ENTRY) {
            w.has_func_events = 1;
            break;
        }
    for (size_t i = 0; i < t->nev; i++) {
        const fi_event *e = &t->ev[i];
        thread_walk *tw = &w.th[e->tid];
        if (!tw->frames && grow_frames(&w, tw) < 0)
            goto out;
        if (step(&w, e) < 0)
            goto out;
    }
    rc = finish(&w);
out:
    for (uint32_t i = 0; w.th && i < w.nthreads; i++) {
        for (uint32_t d = 0; d < w.th[i].cap; d++)
            free(w.th[i].frames[d].cand.sites);
        free(w.th[i].frames);
        free(w.th[i].begins);
        free(w.th[i].begin_sites);
    }
    free(w.th);
    free(w.fn_of_site);
    free(w.file_of_site);
    free(w.base_of_site);
    free(w.system_site);
    free(w.spec_ids);
    return rc;
}

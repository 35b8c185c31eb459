/* SPDX-License-Identifier: MIT */
/* kinds.c - what every property kind of kind.h shares: the registry,
 * solving one property (slice for its targets or the whole model, the
 * schedule formula of smt/ without the CXT restriction, the kind's goal,
 * one check, the kind's witness), the pipeline step that makes and solves
 * a trace's candidates, schedules (files, and the text batch stores),
 * the fingerprint and the --kinds list analyze and batch share.  CXT is left
 * out because MAT's pairs preserve the order of conflicting transitions,
 * and a kind may ask about transitions that do not conflict (a free and
 * an access, two threads standing at once). */
#include "predict/kind.h"
#include "predict/window.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const ft_pkind *const ft_pkinds[] = {&ft_pkind_deadlock, &ft_pkind_stuck,
                                     &ft_pkind_uaf, &ft_pkind_null,
                                     &ft_pkind_order, &ft_pkind_race};
const unsigned ft_npkinds = sizeof ft_pkinds / sizeof ft_pkinds[0];

/* Past this many blocks a property's model is not solved (unknown): the
 * slices of a window (window.c) are smaller still. */
#define FT_KIND_MAX_BLOCKS 4000

const ft_pkind *ft_pkind_of(unsigned kind)
{
    for (unsigned i = 0; i < ft_npkinds; i++)
        if (ft_pkinds[i]->kind == kind)
            return ft_pkinds[i];
    return NULL;
}

const ft_pkind *ft_pkind_by_name(const char *name)
{
    for (unsigned i = 0; name && i < ft_npkinds; i++)
        if (!strcmp(ft_pkinds[i]->name, name))
            return ft_pkinds[i];
    return NULL;
}

int64_t ft_pkind_parse_mask(const char *list, char *err, size_t errlen)
{
    int64_t mask = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w;
         w = strtok_r(NULL, ",", &save)) {
        const ft_pkind *k = ft_pkind_by_name(w);
        if (!strcmp(w, "all"))
            mask |= FT_KINDS_ALL;
        else if (!strcmp(w, "atomicity"))
            mask |= 1u << FT_PROP_CA | 1u << FT_PROP_CMA;
        else if (k)
            mask |= 1u << k->kind;
        else {
            size_t off = (size_t)snprintf(err, errlen, "unknown kind '%.100s' "
                                          "(atomicity", w);
            for (unsigned i = 0; i < ft_npkinds && off < errlen; i++)
                off += (size_t)snprintf(err + off, errlen - off, ", %s",
                                        ft_pkinds[i]->name);
            if (off < errlen)
                snprintf(err + off, errlen - off, ", all)");
            return -1;
        }
    }
    return mask;
}

int ft_props_push(ft_props *a, const ft_prop *p)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        ft_prop *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = *p;
    return 0;
}

void ft_props_free(ft_props *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

uint32_t ft_pkind_held_before(const ft_reduced *whole, uint32_t x)
{
    const ft_ctm *c = whole->ctm;
    uint32_t p = c->pos[x];
    return p ? whole->held_after[ft_ctm_at(c, c->tid[x], p - 1)] : 0;
}

int ft_pkind_set_has(const ft_reduced *r, uint32_t s, uint32_t lock,
                    int *read)
{
    for (uint32_t i = 0; s && i < r->ls_len[s]; i++) {
        uint32_t en = r->ls_pool[r->ls_first[s] + i];
        if (en >> 1 == lock) {
            if (read)
                *read = (int)(en & 1);
            return 1;
        }
    }
    return 0;
}

const char *ft_pkind_var(const ft_ctm *c, const ft_trace_info *ti,
                        uint32_t v, char *buf, size_t len)
{
    if (v >= c->nvars) {
        snprintf(buf, len, "?");
        return buf;
    }
    uint64_t addr = c->vars[v].addr;
    if (ti && ti->var_name)
        return ti->var_name(ti->var_ctx, addr, buf, len);
    snprintf(buf, len, "0x%" PRIx64, addr);
    return buf;
}

const char *ft_pkind_value(const ft_ctm *c, const ft_trace_info *ti,
                           uint32_t v, uint64_t value, char *buf,
                           size_t len)
{
    if (v < c->nvars && ti && ti->var_value &&
        ti->var_value(ti->var_ctx, c->vars[v].addr, value, buf, len))
        return buf;
    snprintf(buf, len, "0x%" PRIx64, value);
    return buf;
}

int ft_presult_append(ft_presult *res, uint32_t x, int mark)
{
    ft_step *s = realloc(res->steps, sizeof *s * (res->nsteps + 2));
    if (!s)
        return -1;
    res->steps = s;
    res->steps[res->nsteps++] = (ft_step){x, (uint8_t)(mark != 0), 0, 0};
    return 0;
}

int ft_witness_locals(const ft_ctm *c, const ft_reduced *r,
                      const uint32_t *order, uint32_t n, const uint8_t *which,
                      ft_presult *res)
{
    const ft_ctm *m = r->ctm;
    uint32_t nt = m->nthreads;
    uint32_t *ran = calloc(nt + 1, sizeof *ran);  /* blocks that ran */
    uint32_t *from = calloc(nt + 1, sizeof *from); /* next position */
    uint8_t *begun = calloc(nt + 1, 1);
    int rc = -1;
    if (!ran || !from || !begun)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = order[i];
        for (uint32_t t = 0; t < nt; t++)
            if (b >= r->bfirst[t] && b < r->bfirst[t] + r->bcount[t])
                ran[t]++;
    }
    for (uint32_t j = 0; j < res->nsteps; j++) {
        uint32_t x = res->steps[j].trans;
        if (c->pos[x] + 1 > from[c->tid[x]])
            from[c->tid[x]] = c->pos[x] + 1;
        if (c->op[x] == FT_OP_FORK && c->value[x] < nt)
            begun[c->value[x]] = 1;
    }
    rc = 0;
    for (uint32_t t = 0; t < nt && rc == 0; t++) {
        if ((which && !which[t]) || r->bcount[t] == 0 ||
            (m->fork_trans[t] != FT_CTM_NONE && !begun[t]))
            continue;
        uint32_t b = r->bfirst[t] + (ran[t] < r->bcount[t] ? ran[t]
                                                           : ran[t] - 1);
        uint32_t x = r->bkey[b];
        uint32_t until = ran[t] == r->bcount[t] || x == FT_CTM_NONE
                             ? r->bend[b] + 1
                             : m->pos[x];
        /* positions are the model's; the steps are c's (the same when
         * r is c's own reduction or a slice, a prefix of each thread; a
         * window's model starts each thread off positions later) */
        uint32_t y0 = ft_ctm_at(m, t, 0);
        uint32_t off = r->orig ? c->pos[r->orig[y0]] : 0;
        uint32_t mfrom = from[t] > off ? from[t] - off : 0;
        for (uint32_t q = mfrom > r->bstart[b] ? mfrom : r->bstart[b];
             q < until && rc == 0; q++) {
            uint32_t y = ft_ctm_at(m, t, q);
            rc = ft_presult_append(res, r->orig ? r->orig[y] : y, 0);
        }
    }
out:
    free(ran);
    free(from);
    free(begun);
    return rc;
}

void ft_pkind_fingerprint(const ft_ctm *c, const ft_trace_info *ti,
                         const char *kind, const ft_kevent *ev, uint32_t n,
                         char *buf)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *k = kind; *k; k++)
        h = (h ^ (unsigned char)*k) * 0x100000001b3ull;
    for (uint32_t i = 0; i < n; i++) {
        if (!ft_kevent_is_key(&ev[i]))
            continue;
        uint32_t s = ev[i].trans < c->ntrans ? c->site[ev[i].trans] : 0;
        char site[400];
        /* a site without a file (a stripped module) by where it is in
         * its module: else every such site would be "?:0", one bug */
        const char *file = ti && s < ti->nsites && ti->site_file
                               ? ti->site_file[s] : NULL;
        if (!file && ti && s < ti->nsites && ti->site_where)
            file = ti->site_where[s];
        const char *base = file ? strrchr(file, '/') : NULL;
        snprintf(site, sizeof site, "|%s@%s:%u",
                 ti && s < ti->nsites && ti->site_func && ti->site_func[s]
                     ? ti->site_func[s] : "?",
                 base ? base + 1 : file ? file : "?",
                 ti && s < ti->nsites && ti->site_line ? ti->site_line[s]
                                                       : 0);
        for (const char *k = site; *k; k++)
            h = (h ^ (unsigned char)*k) * 0x100000001b3ull;
    }
    snprintf(buf, 17, "%016" PRIx64, h);
}

int ft_target_keyed(const ft_reduced *r, const ft_prop *p, const uint32_t *tb,
                    uint32_t i)
{
    uint32_t x = tb[i] == FT_CTM_NONE ? FT_CTM_NONE : r->bkey[tb[i]];
    return x != FT_CTM_NONE && (r->orig ? r->orig[x] : x) == p->tgt[i];
}

/* The block of c's transition x in r (r a slice of c, or c's own
 * reduction), FT_CTM_NONE when the slice left it out. */
static uint32_t block_in(const ft_reduced *r, uint32_t x)
{
    if (!r->orig)
        return x < r->ctm->ntrans ? r->block_of[x] : FT_CTM_NONE;
    uint32_t a = 0, b = r->ctm->ntrans; /* orig grows with the id */
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (r->orig[m] < x)
            a = m + 1;
        else
            b = m;
    }
    return a < r->ctm->ntrans && r->orig[a] == x ? r->block_of[a]
                                                 : FT_CTM_NONE;
}

/* Solves p on model r (a slice of c, or c's own reduction) before
 * deadline (0: o's timeout only).  Fills res's verdict and witness (in
 * c's ids). */
static int solve_on(ft_ctm *c, const ft_pkind *k, const ft_reduced *r,
                    const ft_smt_start *start, const ft_prop *p,
                    const ft_predict_opts *o, double deadline, ft_presult *res)
{
    res->verdict = FT_ERROR;
    res->slice_trans = r->ctm->ntrans;
    res->slice_blocks = r->nblocks;
    uint32_t tb[FT_PROP_MAX_TGT];
    for (uint32_t i = 0; i < p->ntgt; i++)
        tb[i] = block_in(r, p->tgt[i]);
    if (r->nblocks > FT_KIND_MAX_BLOCKS) {
        res->verdict = FT_UNKNOWN;
        ft_presult_why(res, "its model (%u blocks) is over the %u a property may have",
                 r->nblocks, FT_KIND_MAX_BLOCKS);
        return res->verdict;
    }
    unsigned ms = o->timeout_ms;
    if (deadline > 0) {
        double left = deadline - ft_predict_now();
        ms = left <= 0.001 ? 1 : (unsigned)(left * 1000);
    }
    ft_smt e;
    uint32_t *order = NULL;
    ft_presult_why(res, "out of memory");
    if (ft_smt_init_at(&e, r, start, NULL, 0, ms, FT_SMT_NO_CXT)) {
        ft_presult_why(res, "%s", e.err);
        goto out;
    }
    Z3_ast goal = k->goal(&e, p, tb);
    if (!goal)
        goto out;
    ft_smt_assert(&e, goal);
    double ts = ft_predict_now();
    res->iterations++;
    Z3_lbool sat = ft_smt_check(&e, deadline);
    res->solve_seconds += ft_predict_now() - ts;
    if (sat == Z3_L_FALSE) {
        res->verdict = FT_HOLDS;
        ft_presult_why(res, NULL);
    } else if (sat == Z3_L_UNDEF) {
        res->verdict = FT_UNKNOWN;
        ft_presult_why_smt(&e, res);
    } else {
        order = malloc(sizeof *order * (e.nb + 1));
        Z3_model m = Z3_solver_get_model(e.z, e.s);
        Z3_model_inc_ref(e.z, m);
        long n = order ? ft_smt_schedule(&e, m, order) : -1;
        Z3_model_dec_ref(e.z, m);
        /* the witness runs after the recorded prefix: its trimming
         * starts in the state the prefix leaves (trim.c) */
        res->prefix = start ? start->at : 0;
        if (n < 0) {
            ft_presult_why(res, "unusable model");
        } else if (k->witness(c, r, p, order, (uint32_t)n, tb, res) == 0) {
            res->verdict = FT_VIOLATED;
            ft_presult_why(res, NULL);
        }
    }
out:
    res->size_blocks = ft_presult_u32(e.st.nblocks);
    res->size_asserts = ft_presult_u32(e.st.nassert);
    ft_smt_free(&e);
    free(order);
    return res->verdict;
}

/* ft_pkind_predict; cheap_only: stops before the solver, returning -2
 * (res says nothing) when the cheap decisions decided nothing. */
static int predict_kind(ft_ctm *c, const ft_reduced *whole,
                        const ft_window_index *w, const ft_prop *p,
                        const ft_predict_opts *o, ft_presult *res,
                        int cheap_only)
{
    const ft_pkind *k = ft_pkind_of(p->kind);
    memset(res, 0, sizeof *res);
    res->verdict = FT_ERROR;
    res->window_end = c->ntrans;
    res->windows = 1;
    double t0 = ft_predict_now();
    double deadline = o->timeout_ms ? t0 + o->timeout_ms / 1000.0 : 0;
    if (o->until > 0 && (deadline == 0 || o->until < deadline))
        deadline = o->until;
    if (deadline > 0 && t0 >= deadline) {
        res->verdict = FT_UNKNOWN;
        res->not_solved = 1;
        ft_presult_why(res, "not solved: the analysis's time was spent");
        return res->verdict;
    }
    if (!k || p->ntgt == 0 || p->ntgt > FT_PROP_MAX_TGT) {
        ft_presult_why(res, "property %u: no kind or no transitions", p->id);
        return res->verdict;
    }
    for (uint32_t i = 0; i < p->ntgt; i++)
        if (p->tgt[i] >= c->ntrans) {
            ft_presult_why(res, "property %u: transition %u is not in the model", p->id,
                     p->tgt[i]);
            return res->verdict;
        }
    ft_window_index *own_w = NULL;
    const ft_value_order *vo = NULL;
    if ((k->vholds || (k->holds && whole)) && !o->no_value_order) {
        if (!w)
            w = own_w = ft_window_index_new(c);
        vo = w ? ft_window_index_vorder(w) : NULL;
    }
    if (k->holds && whole && k->holds(c, whole, vo, p)) {
        ft_window_index_free(own_w);
        res->verdict = FT_HOLDS;
        ft_presult_why(res, "proved without the "
                 "solver");
        res->seconds = ft_predict_now() - t0;
        return res->verdict;
    }
    if (k->vholds && vo) {
        int held = k->vholds(c, vo, p);
        ft_window_index_free(own_w);
        own_w = NULL;
        if (held) {
            ft_presult_value_order(c, res);
            ft_presult_why(res, "the recorded values leave the read no other source "
                     "(value order)");
            res->seconds = ft_predict_now() - t0;
            return res->verdict;
        }
    }
    ft_window_index_free(own_w);
    if (k->search && !o->no_search) {
        int found = k->search(c, whole, p, deadline, res);
        if (found) {
            if (found < 0) {
                res->verdict = FT_ERROR;
                ft_presult_why(res, "out of memory");
            }
            res->seconds = ft_predict_now() - t0;
            return res->verdict;
        }
    }
    if (cheap_only) {
        ft_presult_free(res);
        memset(res, 0, sizeof *res);
        return -2;
    }
    /* A target late in a long trace has a slice of nearly the whole run
     * (C-Thread-Pool's null and order candidates ran Z3 out of memory
     * after 6 s each, mbrossard/threadpool's were over the block limit):
     * a window after the recorded prefix finds a violation there in
     * milliseconds, and holds only once it has grown to the trace. */
    if (!k->whole_model && o->window && !o->no_slice &&
        !ft_window_covers_all(c, p, o->window)) {
        ft_predict_windowed(c, w, p, o, deadline, res);
        res->seconds = ft_predict_now() - t0;
        return res->verdict;
    }
    ft_reduced *own = NULL;
    const ft_reduced *r = whole;
    if (!k->whole_model) {
        /* MAT only on a model the solver will be given (solve_on) */
        r = own = ft_reduce_slice(c, p->tgt, p->ntgt,
                                  o->reduce_flags | FT_REDUCE_NO_COUNT |
                                      FT_REDUCE_NO_MAT);
        if (own && own->nblocks <= FT_KIND_MAX_BLOCKS &&
            ft_reduce_mat(own, o->reduce_flags) != 0) {
            ft_reduced_free(own);
            r = own = NULL;
        }
    }
    if (!r) {
        ft_presult_why(res, "%s",
                 k->whole_model ? "no reduced model given" : "slicing failed");
        return res->verdict;
    }
    solve_on(c, k, r, NULL, p, o, deadline, res);
    ft_reduced_free(own);
    res->seconds = ft_predict_now() - t0;
    return res->verdict;
}

int ft_pkind_predict_model(ft_ctm *c, const ft_reduced *r,
                           const ft_smt_start *start, const ft_prop *p,
                           const ft_predict_opts *o, double deadline,
                           ft_presult *res)
{
    const ft_pkind *k = ft_pkind_of(p->kind);
    if (!k) {
        ft_presult_why(res, "property %u: no kind", p->id);
        return res->verdict = FT_ERROR;
    }
    return solve_on(c, k, r, start, p, o, deadline, res);
}

int ft_pkind_predict(ft_ctm *c, const ft_reduced *whole,
                    const ft_window_index *w, const ft_prop *p,
                    const ft_predict_opts *o, ft_presult *res)
{
    return predict_kind(c, whole, w, p, o, res, 0);
}

/* ---- the pipeline step ----------------------------------------------- */

/* Moves the candidates with last[i] set after the others, properties
 * and results together, each group in its order.  0 ok, -1 OOM. */
static int put_last(ft_pipeline *pl, const uint8_t *last)
{
    size_t n = pl->nkprops, j = 0;
    ft_prop *p2 = malloc(sizeof *p2 * (n + 1));
    ft_presult *r2 = malloc(sizeof *r2 * (n + 1));
    if (!p2 || !r2) {
        free(p2);
        free(r2);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (!last[i] == !pass) {
                p2[j] = pl->kprops[i];
                r2[j++] = pl->kresults[i];
            }
    memcpy(pl->kprops, p2, sizeof *p2 * n);
    memcpy(pl->kresults, r2, sizeof *r2 * n);
    free(p2);
    free(r2);
    return 0;
}

/* The cheap decisions (holds, value order, search) for every candidate,
 * then the decided ones moved first (candidates and results together):
 * the solver then gets only the rest, and a hard candidate early in the
 * list no longer keeps the easy ones after it from being decided within
 * --time (on pool.c's trace the order candidates' solving used the
 * kinds' whole share and left every race undecided).  Returns how many
 * were decided, -1 out of memory. */
static long decide_kinds(ft_pipeline *pl, const ft_window_index *w,
                         const ft_predict_opts *o)
{
    size_t n = pl->nkprops, nd = 0;
    uint8_t *undecided = malloc(n + 1);
    if (!undecided)
        return -1;
    memset(undecided, 1, n + 1);
    for (size_t i = 0; i < n; i++) {
        if (ft_budget_poll(pl->budget, "deciding other kinds", i, n) ||
            (o->until > 0 && ft_predict_now() >= o->until))
            break;
        int v = predict_kind(pl->ctm, pl->reduced, w, &pl->kprops[i], o,
                             &pl->kresults[i], 1);
        undecided[i] = v == -2;
        nd += !undecided[i];
    }
    int rc = put_last(pl, undecided);
    free(undecided);
    return rc < 0 ? -1 : (long)nd;
}


int ft_pipeline_kind_candidates(ft_pipeline *pl, uint32_t mask,
                                uint32_t per_group)
{
    ft_pkind_src src = {pl->ctm, pl->reduced, &pl->info, &pl->trace,
                       per_group ? per_group : 4, 20000};
    ft_props all = {0};
    if (!pl->ctm->hb_vc && ft_ctm_hb_prepare(pl->ctm))
        return -1;
    for (unsigned i = 0; i < ft_npkinds; i++) {
        if (!(mask >> ft_pkinds[i]->kind & 1))
            continue;
        /* progress and the bound per kind: on 10^7 events the race
         * candidates alone take seconds */
        if (!pl->stopped &&
            ft_budget_poll(pl->budget, ft_pkinds[i]->stage, i, ft_npkinds))
            pl->stopped = "candidates";
        if (pl->stopped)
            break; /* the bound: no candidates of the kinds left */
        size_t before = all.n;
        if (ft_pkinds[i]->candidates(&src, &all) < 0) {
            ft_props_free(&all);
            return -1;
        }
        for (size_t j = before; j < all.n; j++)
            all.v[j].kind = ft_pkinds[i]->kind;
    }
    for (size_t j = 0; j < all.n; j++)
        all.v[j].id = (uint32_t)j;
    free(pl->kprops);
    pl->kprops = all.v;
    pl->nkprops = all.n;
    return 0;
}

/* The first pass's timeout per candidate (ft_predict_opts.kind_first_ms
 * 0).  Most kind candidates the solver decides at all take well under it
 * (bench/predict's shapes and data/); pool's lost wake-ups take 1.5-2.7
 * s, and on pigz a candidate Z3 cannot decide reaches its memory bound
 * only after about 4.4 s.  1 s cost pool 2.6 s more than 2.5 s did. */
#define FT_KIND_FIRST_PASS_MS 2500u

unsigned ft_kind_pass_ms(const ft_predict_opts *o, int second)
{
    unsigned first_ms =
        o->kind_first_ms ? o->kind_first_ms : FT_KIND_FIRST_PASS_MS;
    if (o->timeout_ms && o->timeout_ms <= first_ms)
        return second ? 0 : o->timeout_ms; /* one pass */
    if (!second)
        return first_ms;
    /* what --timeout leaves after the first pass: a candidate's two
     * passes together keep it (before, the second had all of it again:
     * 2.5 + 60 s on C-Thread-Pool's hardest order candidates) */
    return o->timeout_ms ? o->timeout_ms - first_ms : 0;
}

/* Solves the undecided candidates kprops[done0..) in two passes: every
 * one with a short timeout first, then the ones that ran into it with
 * the rest of theirs, after the others.  In candidate order with the full
 * timeout, a few hard candidates early on used the kinds' share of
 * --time and left the later ones not reached (docs/prediction.md).
 * A candidate that gave up before the short timeout (out of memory, a
 * theory's incompleteness) is not tried again.  0 ok, -1 OOM. */
static int solve_short_first(ft_pipeline *pl, size_t done0,
                             const ft_predict_opts *o, ft_window_index *w)
{
    size_t n = pl->nkprops;
    const char *stage = "solving other kinds";
    unsigned first_ms = ft_kind_pass_ms(o, 0);
    if ((o->timeout_ms && o->timeout_ms <= first_ms) || n - done0 < 2)
        return ft_pipeline_solve_bounded(pl, pl->kprops, pl->kresults, n, done0,
                                         o, w, ft_window_index_ref(w), 0, stage,
                                         NULL, NULL) < 0
                   ? -1
                   : 0;
    ft_predict_opts first = *o, second = *o;
    first.timeout_ms = first_ms;
    second.timeout_ms = ft_kind_pass_ms(o, 1);
    if (ft_pipeline_solve_bounded(pl, pl->kprops, pl->kresults, n, done0,
                                  &first, w, ft_window_index_ref(w), 0, stage,
                                  NULL, NULL) < 0)
        return -1;
    uint8_t *again = calloc(n + 1, 1);
    if (!again)
        return -1;
    size_t nagain = 0;
    for (size_t i = done0; i < n && !pl->abandoned; i++) {
        const ft_presult *r = &pl->kresults[i];
        again[i] = r->verdict == FT_UNKNOWN && !r->not_solved &&
                   r->seconds >= 0.9 * first_ms / 1000.0;
        nagain += again[i];
    }
    /* the decided first, as ft_pipeline_solve_bounded wants them */
    int rc = put_last(pl, again);
    free(again);
    if (rc < 0)
        return -1;
    if (!nagain)
        return 0;
    /* each candidate's seconds are those of both passes */
    double *first_s = malloc(sizeof *first_s * nagain);
    if (!first_s)
        return -1;
    for (size_t i = n - nagain; i < n; i++) {
        first_s[i - (n - nagain)] = pl->kresults[i].seconds;
        ft_presult_free(&pl->kresults[i]);
        memset(&pl->kresults[i], 0, sizeof pl->kresults[i]);
    }
    long done = ft_pipeline_solve_bounded(
        pl, pl->kprops, pl->kresults, n, n - nagain, &second, w,
        ft_window_index_ref(w), 0, stage, NULL, NULL);
    for (size_t i = n - nagain; done >= 0 && i < n; i++)
        pl->kresults[i].seconds += first_s[i - (n - nagain)];
    free(first_s);
    return done < 0 ? -1 : 0;
}

long ft_pipeline_predict_kinds(ft_pipeline *pl, const ft_predict_opts *o)
{
    double t0 = ft_predict_now();
    pl->kresults = calloc(pl->nkprops + 1, sizeof *pl->kresults);
    if (!pl->kresults)
        return -1;
    ft_predict_opts own = *o;
    /* the command's bound, as for the atomicity properties (whatever
     * they left of it), not a fresh --time of their own */
    own.until = ft_pipeline_solve_until(pl, o, t0);
    /* one value order for every property (order and null use it) */
    /* none when the bound is spent already (the index takes seconds at
     * 10^7 events, and nothing would be decided) */
    int spent = own.until > 0 && ft_predict_now() >= own.until;
    ft_window_index *w = pl->nkprops && !spent
                             ? ft_window_index_new_until(pl->ctm, own.until)
                             : NULL;
    if (pl->nkprops && !spent && !w)
        return -1;
    long nd = pl->nkprops && !spent ? decide_kinds(pl, w, &own) : 0;
    if (nd < 0) {
        ft_window_index_free(w);
        return -1;
    }
    /* asked already: the solver's turn.  The kinds are solved before the
     * atomicity properties (ft_pipeline_predict), within the same bound:
     * when those are still to come, the kinds' solving gets half of what
     * is left, so that one stage's hard properties cannot starve the
     * other; when every candidate was decided cheaply, nothing is taken
     * from atomicity. */
    own.no_value_order = own.no_search = 1;
    if (own.until > 0 && !pl->results && pl->nprops &&
        (size_t)nd < pl->nkprops) {
        double now = ft_predict_now();
        if (own.until > now)
            own.until = now + (own.until - now) / 2;
    }
    /* the solving uses neither the value order nor the search; w's
     * slicing index and cuts serve the windows */
    int rc = solve_short_first(pl, (size_t)nd, &own, w);
    ft_window_index_free(w); /* a job that still reads it holds its own */
    if (rc < 0)
        return -1;
    pl->nkviolated = pl->nkholds = pl->nkunknown = pl->nkskipped = 0;
    for (size_t i = 0; i < pl->nkprops; i++)
        switch (pl->kresults[i].verdict) {
        case FT_VIOLATED: pl->nkviolated++; break;
        case FT_HOLDS: pl->nkholds++; break;
        default:
            pl->nkunknown++;
            /* the time's (a window too big says "not solved" too, but
             * was looked at: listed, as CA/CMA's are) */
            pl->nkskipped += pl->kresults[i].not_solved;
            break;
        }
    pl->kinds_seconds = ft_predict_now() - t0;
    return (long)pl->nkviolated;
}

/* The header of kind candidate i's schedule; with_steps: its steps too. */
static int kind_schedule(const ft_pipeline *pl, size_t i,
                         const ft_presult *res, ft_schedule *s,
                         int with_steps)
{
    const ft_prop *p = &pl->kprops[i];
    const ft_pkind *k = ft_pkind_of(p->kind);
    if (!k ||
        (with_steps ? ft_schedule_from_result(s, pl->ctm, &pl->info, p, res)
                    : ft_schedule_head_from_result(s, pl->ctm, &pl->info, p,
                                                   res)) < 0)
        return -1;
    ft_kevent ev[FT_KEVENTS_MAX];
    char msg[400];
    k->describe(pl->ctm, &pl->info, p, res, ev, FT_KEVENTS_MAX, msg,
                sizeof msg);
    snprintf(s->kind, sizeof s->kind, "%s", k->name);
    snprintf(s->property, sizeof s->property, "#%u %s", p->id, msg);
    return 0;
}

int ft_pipeline_kind_schedule(const ft_pipeline *pl, size_t i,
                              const ft_presult *res, ft_schedule *s)
{
    return kind_schedule(pl, i, res, s, 1);
}

static int write_kind(const ft_pipeline *pl, size_t i, const ft_presult *res,
                      const char *dir, const char *suffix, char *path,
                      size_t pathlen, char *err, size_t errlen)
{
    const ft_prop *p = &pl->kprops[i];
    const ft_pkind *k = ft_pkind_of(p->kind);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create the directory: %s", dir,
                 strerror(errno));
        return -1;
    }
    snprintf(path, pathlen, "%s/%s-%u%s", dir, k->name, p->id, suffix);
    ft_schedule s;
    if (kind_schedule(pl, i, res, &s, 0) < 0) {
        snprintf(err, errlen, "%s: too many steps", path);
        return -1;
    }
    return ft_schedule_save_result(&s, pl->ctm, &pl->info, res, path, err,
                                   errlen);
}

int ft_pipeline_write_kind_schedule(const ft_pipeline *pl, size_t i,
                                    const char *dir, char *path,
                                    size_t pathlen, char *err,
                                    size_t errlen)
{
    return write_kind(pl, i, &pl->kresults[i], dir, ".schedule", path,
                      pathlen, err, errlen);
}

int ft_pipeline_write_kind_alt(const ft_pipeline *pl, size_t i,
                               const char *dir, char *path, size_t pathlen,
                               char *err, size_t errlen)
{
    const ft_presult *r = &pl->kresults[i];
    if (!r->alt_steps)
        return 0;
    ft_presult alt = *r;
    alt.steps = r->alt_steps;
    alt.nsteps = r->nalt_steps;
    return write_kind(pl, i, &alt, dir, ".alt.schedule", path, pathlen, err,
                      errlen) < 0 ? -1 : 1;
}

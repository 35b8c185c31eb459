/* SPDX-License-Identifier: MIT */
/* build_map.c - a recorded run's thread switches, mapped onto the events
 * of another build of the same program.  A schedule names per-thread
 * event indexes, and two builds number their events differently: the
 * plain build recorded under Valgrind has no function entries and reads
 * jump tables, the foretell-cc build records escaped stack slots, and a
 * rebuild moves things about.  `foretell replay --trace` of such a run
 * would diverge at its first step.
 *
 * So each thread's events in the recorded run are paired with the same
 * thread's events in a run of the build at hand (the reference), by kind
 * and source line (FILE:LINE without its directory, so that two build
 * trees agree), greedily with a bounded look-ahead on either side: the
 * builds differ by short insertions (a function's entry and exit, a spill
 * the instrumentation keeps), not by reorderings.  A switch after the
 * recorded event i of thread t becomes a switch after the reference event
 * paired with the last paired event at or before i; what one build does
 * between two paired events and the other does not goes before the
 * switch with the earlier one.  O(events x look-ahead) time, 16 bytes per
 * event of either trace and up to 16 more per recorded one.  docs/replay.md,
 * "Replaying a run of another build". */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How far the pairing looks ahead on either side for the other's event:
 * an inserted run longer than this is taken for a difference of both. */
#define LOOKAHEAD 64
/* A trace longer than this is refused, so that the two stay under 800 MB
 * (and per-thread indexes under 2^32): a run to replay by its switches is
 * a test's, not a service's. */
#define MAX_EVENTS 16000000ULL

typedef struct mev {
    uint64_t tok; /* kind and FILE:LINE, hashed (never 0) */
    uint32_t site;
    uint16_t kind;
} mev;

typedef struct mthread {
    mev *ev;
    uint64_t n, cap;
} mthread;

typedef struct mtrace {
    ft_reader *r;
    mthread th[FT_TRACE_MAX_THREADS];
    uint32_t nthreads;
    uint64_t *site_tok; /* per site id, 0 until computed */
    uint32_t nsite_tok;
    uint64_t events;
    /* where the run switched threads (the recorded run's only): each
     * maximal run's last event, tid << 32 | its per-thread index */
    uint64_t *sw;
    uint64_t nsw, capsw;
} mtrace;

static void set_err(ft_error *err, const char *path, const char *msg)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    snprintf(err->message, sizeof err->message, "%s", msg);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

/* FILE:LINE of a site without the directory (MODULE+0xOFF when it has no
 * line), hashed once per site. */
static int site_token(mtrace *m, uint32_t site, uint64_t *tok)
{
    if (site >= m->nsite_tok) {
        uint32_t n = m->nsite_tok ? m->nsite_tok : 256;
        while (n <= site)
            n *= 2;
        uint64_t *t = realloc(m->site_tok, n * sizeof *t);
        if (!t)
            return -1;
        memset(t + m->nsite_tok, 0, (n - m->nsite_tok) * sizeof *t);
        m->site_tok = t;
        m->nsite_tok = n;
    }
    if (!m->site_tok[site]) {
        char buf[512];
        const char *s = site ? ft_site_format(m->r, site, buf, sizeof buf) : "";
        const char *base = strrchr(s, '/');
        base = base ? base + 1 : s;
        m->site_tok[site] =
            fnv(14695981039346656037ULL, base, strlen(base)) | 1;
    }
    *tok = m->site_tok[site];
    return 0;
}

static void mtrace_free(mtrace *m)
{
    for (uint32_t t = 0; t < m->nthreads; t++)
        free(m->th[t].ev);
    free(m->site_tok);
    free(m->sw);
    if (m->r)
        ft_reader_close(m->r);
    memset(m, 0, sizeof *m);
}

/* Appends a switch after thread tid's event tindex. */
static int add_switch(mtrace *m, uint32_t tid, uint64_t tindex)
{
    if (m->nsw == m->capsw) {
        uint64_t nc = m->capsw ? 2 * m->capsw : 64;
        uint64_t *w = realloc(m->sw, nc * sizeof *w);
        if (!w)
            return -1;
        m->sw = w;
        m->capsw = nc;
    }
    m->sw[m->nsw++] = (uint64_t)tid << 32 | tindex;
    return 0;
}

/* Every event of path, per thread, numbered as fr_schedule_from_trace
 * numbers them (fr_step_event); with switches, also where the run
 * switched threads, as fr_schedule_from_trace finds them. */
static int mtrace_load(mtrace *m, const char *path, int switches, ft_error *err)
{
    memset(m, 0, sizeof *m);
    m->r = ft_reader_open(path, err);
    if (!m->r)
        return -1;
    ft_event ev;
    int got;
    int64_t prev = -1;
    while ((got = ft_reader_next(m->r, &ev)) > 0) {
        if (!fr_step_event(ev.kind) || ev.tid >= FT_TRACE_MAX_THREADS)
            continue;
        if (++m->events > MAX_EVENTS) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "more than %llu events: too long to "
                     "map onto another build",
                     (unsigned long long)MAX_EVENTS);
            set_err(err, path, msg);
            return -1;
        }
        mthread *t = &m->th[ev.tid];
        if (ev.tid >= m->nthreads)
            m->nthreads = ev.tid + 1;
        if (t->n == t->cap) {
            uint64_t nc = t->cap ? 2 * t->cap : 64;
            mev *e = realloc(t->ev, nc * sizeof *e);
            if (!e)
                goto oom;
            t->ev = e;
            t->cap = nc;
        }
        uint64_t site_tok;
        if (site_token(m, ev.site, &site_tok) < 0)
            goto oom;
        if (switches && prev >= 0 && (uint32_t)prev != ev.tid &&
            add_switch(m, (uint32_t)prev, m->th[prev].n - 1) < 0)
            goto oom;
        prev = ev.tid;
        mev *e = &t->ev[t->n++];
        e->kind = ev.kind;
        e->site = ev.site;
        e->tok = fnv(site_tok, &ev.kind, sizeof ev.kind) | 1;
    }
    if (got < 0 || ft_reader_damage(m->r, err)) {
        if (got < 0)
            *err = *ft_reader_error(m->r);
        return -1;
    }
    if (switches && prev >= 0 &&
        add_switch(m, (uint32_t)prev, m->th[prev].n - 1) < 0)
        goto oom;
    return 0;
oom:
    set_err(err, path, "out of memory");
    return -1;
}

/* pair[i]: the reference event paired with the recorded event i, or -1.
 * Greedy: equal events pair; otherwise the side whose next equal event
 * is nearer skips to it, the reference on a tie (the recorded events are
 * the ones switches follow), and both skip one when neither has it in
 * reach. */
static void pair_thread(const mthread *a, const mthread *b, int64_t *pair)
{
    uint64_t i = 0, j = 0;
    for (uint64_t k = 0; k < a->n; k++)
        pair[k] = -1;
    while (i < a->n && j < b->n) {
        if (a->ev[i].tok == b->ev[j].tok) {
            pair[i++] = (int64_t)j++;
            continue;
        }
        uint64_t sb = 0, sa = 0;
        for (uint64_t k = 1; k < LOOKAHEAD && !sb && j + k < b->n; k++)
            if (b->ev[j + k].tok == a->ev[i].tok)
                sb = k;
        for (uint64_t k = 1; k < LOOKAHEAD && !sa && i + k < a->n; k++)
            if (a->ev[i + k].tok == b->ev[j].tok)
                sa = k;
        if (!sa && !sb) {
            i++;
            j++;
        } else if (!sa || (sb && sb <= sa)) {
            j += sb;
        } else {
            i += sa;
        }
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* How many of rec's events with a site have a FILE:LINE that ref's run
 * has anywhere: whatever paths the two runs took, two builds of one
 * program share their lines, two programs do not. */
static int count_known_sites(const mtrace *rec, const mtrace *ref,
                             fr_map_stats *st)
{
    uint64_t *known = malloc((ref->nsite_tok + 1) * sizeof *known);
    if (!known)
        return -1;
    size_t n = 0;
    for (uint32_t i = 1; i < ref->nsite_tok; i++)
        if (ref->site_tok[i])
            known[n++] = ref->site_tok[i];
    qsort(known, n, sizeof *known, cmp_u64);
    for (uint32_t t = 0; t < rec->nthreads; t++)
        for (uint64_t i = 0; i < rec->th[t].n; i++) {
            uint32_t site = rec->th[t].ev[i].site;
            if (!site)
                continue;
            st->sited++;
            st->known += bsearch(&rec->site_tok[site], known, n, sizeof *known,
                                 cmp_u64) != NULL;
        }
    free(known);
    return 0;
}

int fr_schedule_map(const char *from_trace, const char *ref_trace,
                    ft_schedule *out, fr_map_stats *st, ft_error *err)
{
    memset(out, 0, sizeof *out);
    memset(st, 0, sizeof *st);
    mtrace *rec = calloc(1, sizeof *rec), *ref = calloc(1, sizeof *ref);
    int64_t *pair[FT_TRACE_MAX_THREADS] = {0};
    int64_t last[FT_TRACE_MAX_THREADS];
    int rc = -1;
    if (!rec || !ref) {
        set_err(err, from_trace, "out of memory");
        goto done;
    }
    if (mtrace_load(rec, from_trace, 1, err) < 0 ||
        mtrace_load(ref, ref_trace, 0, err) < 0)
        goto done;
    st->steps = (uint32_t)rec->nsw;
    st->events = rec->events;
    if (count_known_sites(rec, ref, st) < 0) {
        set_err(err, from_trace, "out of memory");
        goto done;
    }
    for (uint32_t t = 0; t < rec->nthreads; t++) {
        last[t] = -1;
        if (!rec->th[t].n)
            continue;
        pair[t] = malloc(rec->th[t].n * sizeof *pair[t]);
        if (!pair[t]) {
            set_err(err, from_trace, "out of memory");
            goto done;
        }
        static const mthread none;
        pair_thread(&rec->th[t], t < ref->nthreads ? &ref->th[t] : &none,
                    pair[t]);
        for (uint64_t i = 0; i < rec->th[t].n; i++)
            st->matched += pair[t][i] >= 0;
    }
    const ft_header *h = ft_reader_header(rec->r);
    snprintf(out->trace, sizeof out->trace, "%s", from_trace);
    snprintf(out->program, sizeof out->program, "%s",
             h && h->program ? h->program : "");
    snprintf(out->kind, sizeof out->kind, "CA"); /* as fr_schedule_from_trace */
    snprintf(out->property, sizeof out->property,
             "recorded run %.200s, "
             "mapped onto the build of %.200s",
             from_trace, ref_trace);
    out->steps = calloc(rec->nsw ? rec->nsw : 1, sizeof *out->steps);
    if (!out->steps) {
        set_err(err, from_trace, "out of memory");
        goto done;
    }
    for (uint64_t k = 0; k < rec->nsw; k++) {
        uint32_t t = (uint32_t)(rec->sw[k] >> 32);
        uint64_t at = rec->sw[k] & 0xffffffffu; /* the recorded index */
        /* A thread the reference never ran (its main ended first): the
         * recorded index stands in, a few events off, so that the replay
         * runs the thread and the next round maps it. */
        int absent = t >= ref->nthreads || !ref->th[t].n;
        int64_t j = absent ? (int64_t)at : -1;
        for (uint64_t i = at + 1; !absent && i-- > 0 && j < 0;)
            j = pair[t][i];
        /* nothing paired yet, or no further than this thread's last step:
         * the step adds no switch point here */
        if (j <= last[t])
            continue;
        last[t] = j;
        if (out->nsteps && out->steps[out->nsteps - 1].tid == t)
            out->nsteps--; /* the thread's two runs became one */
        const mtrace *m = absent ? rec : ref;
        const mev *e = &m->th[t].ev[j];
        fr_step_fill(&out->steps[out->nsteps++], m->r, t, e->kind, e->site,
                     (uint64_t)j);
        st->unmapped += absent;
    }
    st->mapped = out->nsteps;
    rc = 0;
done:
    for (uint32_t t = 0; t < FT_TRACE_MAX_THREADS; t++)
        free(pair[t]);
    if (rec)
        mtrace_free(rec);
    if (ref)
        mtrace_free(ref);
    free(rec);
    free(ref);
    if (rc)
        ft_schedule_free(out);
    return rc;
}

int fr_replay_mapped(const fr_run_opts *ro, const char *from_trace,
                     fr_outcome *o, fr_map_run *mr, FILE *progress,
                     ft_error *err)
{
    memset(mr, 0, sizeof *mr);
    char ref[4200], sched[64];
    snprintf(ref, sizeof ref, "%.4000s.mapref", ro->trace_out);
    /* The reference: this build's run under the deterministic policy,
     * whose per-thread events the recorded ones are paired with (a thread
     * it never runs keeps its recorded steps: fr_schedule_map). */
    fr_run_opts r = *ro;
    r.schedule = NULL;
    r.strategy = NULL;
    r.diverge = FR_DIVERGE_STOP;
    r.trace_out = ref;
    int quiet = r.quiet;
    r.quiet = 1;
    if (progress)
        fprintf(progress,
                "foretell replay: a reference run of %s, to map "
                "%s's switches onto its events\n",
                ro->argv[0], from_trace);
    int rc = fr_run(&r, o, err);
    r.quiet = quiet;
    uint64_t prev = 0;
    for (int round = 1; rc == 0 && round <= FR_MAP_ROUNDS; round++) {
        ft_schedule s;
        if (fr_schedule_map(from_trace, ref, &s, &mr->st, err) < 0) {
            rc = -1;
            break;
        }
        /* fewer than half of the run's lines in this build's run: two
         * builds of one program share nearly all (docs/replay.md), two
         * programs none */
        if (round == 1 && mr->st.known * 2 < mr->st.sited) {
            ft_schedule_free(&s);
            rc = 1;
            break;
        }
        /* the last round, or one that maps as the one before did (its
         * replay would go the same way): the run to report, in ro's own
         * divergence mode */
        uint64_t h = 14695981039346656037ULL;
        for (uint32_t k = 0; k < s.nsteps; k++) {
            h = fnv(h, &s.steps[k].tid, sizeof s.steps[k].tid);
            h = fnv(h, &s.steps[k].tindex, sizeof s.steps[k].tindex);
        }
        int last = round == FR_MAP_ROUNDS || (round > 1 && h == prev);
        prev = h;
        rc = fr_schedule_write_temp(&s, sched, sizeof sched, err);
        ft_schedule_free(&s);
        if (rc < 0) {
            rc = -2;
            break;
        }
        r = *ro;
        r.schedule = sched;
        if (!last)
            r.diverge = FR_DIVERGE_CONTINUE;
        mr->rounds = round;
        rc = fr_run(&r, o, err);
        unlink(sched);
        if (rc < 0 || !o->diverged || last)
            break;
        /* Diverged: this run shows what the build does under the mapped
         * switches, past where the reference went another way. */
        if (progress)
            fprintf(progress,
                    "foretell replay: the mapped schedule "
                    "diverged (%s): mapping again onto that run\n",
                    o->divergence);
        if (rename(ro->trace_out, ref) != 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "cannot rename the run's trace: %s",
                     strerror(errno));
            set_err(err, ro->trace_out, msg);
            rc = -2;
        }
    }
    unlink(ref);
    return rc;
}

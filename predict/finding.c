/* SPDX-License-Identifier: MIT */
/* finding.c - findings in a form every consumer shares, whatever their
 * kind: a kind name, a message, the events that make the finding (each
 * with its code site: module, file, function, line and the source line's
 * text) and the witness interleaving as schedule text: BEST's atomicity
 * violations (observed and predicted) and the other kinds' (kind.h).  `foretell batch`
 * stores and reports these; a grouping of analyze's own output can use
 * the same fingerprint.  The fingerprint names the static bug, not the
 * dynamic instance: it hashes the kind and the normalised sites of the
 * finding's key events (docs/batch.md, "Fingerprints"), never addresses,
 * thread ids, values or a line number when the line's text is known. */
#include "predict/kind.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

/* ---- building findings ------------------------------------------------ */

static char *dup0(const char *s)
{
    return strdup(s ? s : "");
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "";
}

/* Site id of fi_trace t as a finding site. */
static int fill_site(const ft_pipeline *pl, ft_source_cache *src,
                     uint32_t id, ft_fsite *out)
{
    const ft_site *s = fi_trace_site_get(&pl->trace, id);
    const ft_header *h = pl->names ? ft_reader_header(pl->names) : NULL;
    const char *module = "";
    if (s && h && s->module < h->nmodules)
        module = base_name(h->modules[s->module].path);
    memset(out, 0, sizeof *out);
    out->module = dup0(module);
    out->file = dup0(s ? s->file : NULL);
    out->function = dup0(s ? s->function : NULL);
    out->line = s ? s->line : 0;
    out->column = s ? s->column : 0;
    out->offset = s ? s->offset : 0;
    /* the line as the symboliser recorded it, else as the file says now
     * (absolute paths only: a relative one would be read against this
     * directory) */
    const ft_site *rs = pl->names ? ft_reader_site(pl->names, id) : NULL;
    char text[4097];
    if (rs && rs->text)
        out->text = strdup(rs->text);
    else if (s && s->file && s->file[0] == '/' &&
             ft_source_line(src, s->file, s->line, text, sizeof text))
        out->text = strdup(text);
    return out->module && out->file && out->function ? 0 : -1;
}

typedef struct builder {
    ft_finding *f;
    uint32_t cap;
} builder;

static int add_event(const ft_pipeline *pl, ft_source_cache *src, builder *b,
                     const char *role, int key, uint64_t ev)
{
    const fi_trace *t = &pl->trace;
    if (ev >= t->nev)
        return 0;
    ft_finding *f = b->f;
    if (f->nevents == b->cap) {
        uint32_t nc = b->cap ? 2 * b->cap : 8;
        ft_fevent *e2 = realloc(f->events, nc * sizeof *e2);
        if (!e2)
            return -1;
        f->events = e2;
        b->cap = nc;
    }
    ft_fevent *e = &f->events[f->nevents];
    memset(e, 0, sizeof *e);
    snprintf(e->role, sizeof e->role, "%s", role);
    snprintf(e->kind, sizeof e->kind, "%s", ft_kind_name(t->ev[ev].kind));
    e->key = (uint8_t)key;
    e->tid = t->ev[ev].tid;
    e->index = ev;
    f->nevents++;
    return fill_site(pl, src, t->ev[ev].site, &e->site);
}

static int add_region(const ft_pipeline *pl, ft_source_cache *src,
                      builder *b, const fi_region *r)
{
    if (add_event(pl, src, b, "region-begin", 1, r->first) < 0)
        return -1;
    return add_event(pl, src, b, "region-end", 1, r->last);
}

/* "f (x.c:10-12)" */
static void region_name(const fi_region *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s:%u-%u)", r->function ? r->function : "?",
             base_name(r->file), r->line_lo, r->line_hi);
}

static void var_list(const ft_pipeline *pl, const uint32_t *vars, uint32_t n,
                     int ctm, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n && k + 1 < len; i++) {
        char name[256];
        uint64_t key = ctm ? pl->ctm->vars[vars[i]].addr
                           : pl->infer.vars[vars[i]].key;
        int w = snprintf(buf + k, len - k, "%s%s", i ? ", " : "",
                         ft_pipeline_var_name(pl, key, name, sizeof name));
        if (w < 0 || (size_t)w >= len - k)
            break;
        k += (size_t)w;
    }
}

/* The text of schedule s, which is freed; NULL out of memory. */
static char *schedule_text(ft_schedule *s)
{
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    int rc = m ? ft_schedule_write(m, s) : -1;
    if (m && fclose(m) != 0)
        rc = -1;
    ft_schedule_free(s);
    if (rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The CTM transition of trace event ev, FT_CTM_NONE if it has none
 * (transition ids follow trace order). */
static uint32_t trans_of(const ft_ctm *c, uint64_t ev)
{
    uint32_t lo = 0, hi = c->ntrans;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->event[mid] < ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->ntrans && c->event[lo] == ev ? lo : FT_CTM_NONE;
}

/* The recorded run from the region's first transition to the one that
 * closes the cycle, the three witness events marked: shows the observed
 * violation, but is not a schedule from the start (not replayable). */
static char *observed_witness(const ft_pipeline *pl, const fi_region *r)
{
    const ft_ctm *c = pl->ctm;
    const fi_witness *w = fi_region_witness(&pl->infer, r);
    uint32_t from = trans_of(c, r->first), to = trans_of(c, w->in);
    if (from == FT_CTM_NONE) {
        from = 0;
        while (from < c->ntrans && c->event[from] < r->first)
            from++;
    }
    if (to == FT_CTM_NONE || to < from)
        return NULL;
    uint32_t mark[3] = {trans_of(c, w->out), trans_of(c, w->via), to};
    ft_prop p = {.id = r->id, .kind = FT_PROP_CA};
    p.r[0].thread = r->tid;
    ft_pregion_from_events(c, r->tid, r->first, r->last, &p.r[0]);
    ft_presult res = {.verdict = FT_VIOLATED};
    res.nsteps = to - from + 1;
    res.steps = calloc(res.nsteps, sizeof *res.steps);
    if (!res.steps)
        return NULL;
    for (uint32_t i = 0; i < res.nsteps; i++) {
        res.steps[i].trans = from + i;
        for (int k = 0; k < 3; k++)
            res.steps[i].mark |= mark[k] == from + i;
    }
    ft_schedule s;
    char *text = NULL;
    if (ft_schedule_from_result(&s, c, &pl->info, &p, &res) == 0)
        text = schedule_text(&s);
    free(res.steps);
    return text;
}

/* A new, empty finding of this kind at the end of out; NULL out of
 * memory. */
static ft_finding *new_finding(ft_finding **out, size_t *n, size_t *cap,
                               const char *kind)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        ft_finding *f2 = realloc(*out, nc * sizeof *f2);
        if (!f2)
            return NULL;
        *out = f2;
        *cap = nc;
    }
    ft_finding *f = &(*out)[(*n)++];
    memset(f, 0, sizeof *f);
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    f->prop = SIZE_MAX;
    f->kprop = SIZE_MAX;
    f->region = SIZE_MAX;
    f->misuse = SIZE_MAX;
    return f;
}

static int observed_findings(const ft_pipeline *pl, ft_source_cache *src,
                             ft_finding **out, size_t *n, size_t *cap)
{
    const fi_analysis *a = &pl->infer;
    const fi_trace *t = &pl->trace;
    for (size_t k = 0; k < a->nregions; k++) {
        const fi_region *r = &a->regions[k];
        if (!ft_pipeline_observed(pl, k))
            continue;
        ft_finding *f = new_finding(out, n, cap, "atomicity");
        if (!f)
            return -1;
        builder b = {f, 0};
        f->observed = 1;
        f->region = k;
        char rn[300], vars[300], msg[900];
        region_name(r, rn, sizeof rn);
        var_list(pl, r->vars, r->nvars, 0, vars, sizeof vars);
        const fi_witness *w = fi_region_witness(&pl->infer, r);
        snprintf(msg, sizeof msg, "atomicity violation observed in the "
                 "recorded run: thread %u interleaved region %s of thread "
                 "%u%s%s%s",
                 w->via < t->nev ? t->ev[w->via].tid : 0, rn, r->tid,
                 vars[0] ? " (variables: " : "", vars, vars[0] ? ")" : "");
        f->message = strdup(msg);
        if (!f->message || add_region(pl, src, &b, r) < 0 ||
            add_event(pl, src, &b, "out", 0, w->out) < 0 ||
            add_event(pl, src, &b, "via", 0, w->via) < 0 ||
            add_event(pl, src, &b, "in", 0, w->in) < 0)
            return -1;
        f->witness = observed_witness(pl, r);
    }
    return 0;
}

/* API misuse the run shows (misuse.c): the misusing call and the
 * holder's lock are its sites (both keys: the same call on a mutex taken
 * elsewhere is another bug). */
static int misuse_findings(const ft_pipeline *pl, ft_source_cache *src,
                           ft_finding **out, size_t *n, size_t *cap)
{
    for (size_t k = 0; k < pl->nmisuse; k++) {
        const ft_misuse *m = &pl->misuse[k];
        ft_finding *f = new_finding(out, n, cap, "misuse");
        if (!f)
            return -1;
        builder b = {f, 0};
        f->observed = 1;
        f->misuse = k;
        char name[256], msg[600];
        ft_pipeline_var_name(pl, m->obj, name, sizeof name);
        if (m->holder >= 0)
            snprintf(msg, sizeof msg, "%s observed in the recorded run: "
                     "thread %u, on %s held by thread %lld",
                     ft_misuse_title(m->what), m->tid, name,
                     (long long)m->holder);
        else
            snprintf(msg, sizeof msg, "%s observed in the recorded run: "
                     "thread %u, on %s", ft_misuse_title(m->what), m->tid,
                     name);
        f->message = strdup(msg);
        if (!f->message || add_event(pl, src, &b, "misuse", 1, m->event) < 0 ||
            (m->taken != UINT64_MAX &&
             add_event(pl, src, &b, "holds", 1, m->taken) < 0))
            return -1;
    }
    return 0;
}

static int predicted_findings(const ft_pipeline *pl, ft_source_cache *src,
                              ft_finding **out, size_t *n, size_t *cap)
{
    const ft_ctm *c = pl->ctm;
    for (size_t i = 0; i < pl->nprops && pl->results; i++) {
        const ft_presult *res = &pl->results[i];
        const ft_prop *p = &pl->props[i];
        if (res->verdict != FT_VIOLATED)
            continue;
        int cma = p->kind == FT_PROP_CMA;
        ft_finding *f = new_finding(out, n, cap, cma ? "atomicity-pair"
                                                     : "atomicity");
        if (!f)
            return -1;
        builder b = {f, 0};
        f->prop = i;
        f->replayable = 1;
        const fi_property *fp = &pl->infer.props[p->id];
        const fi_region *r1 = ft_pipeline_region(pl, fp->r1);
        const fi_region *r2 = ft_pipeline_region(pl, fp->r2);
        char n1[300] = "?", n2[300] = "?", vars[300];
        if (r1)
            region_name(r1, n1, sizeof n1);
        if (r2)
            region_name(r2, n2, sizeof n2);
        var_list(pl, res->vars, res->nvars, 1, vars, sizeof vars);
        char vs[320] = "";
        /* room for both region names, the variables and the text */
        char msg[sizeof n1 + sizeof n2 + sizeof vs + 160];
        if (vars[0])
            snprintf(vs, sizeof vs, " (variables: %s)", vars);
        if (cma)
            snprintf(msg, sizeof msg, "atomicity violation predicted: "
                     "regions %s and %s, run by two threads, can interleave "
                     "so that neither runs as a unit%s", n1, n2, vs);
        else
            snprintf(msg, sizeof msg, "atomicity violation predicted: "
                     "another thread can interleave region %s%s", n1, vs);
        f->message = strdup(msg);
        if (!f->message || (r1 && add_region(pl, src, &b, r1) < 0) ||
            (cma && r2 && add_region(pl, src, &b, r2) < 0))
            return -1;
        ft_step_iter it;
        ft_steps_begin(&it, res->steps, res->nsteps, res->packed);
        while (it.left > 0) {
            ft_step st = ft_steps_next(&it);
            if (st.mark && st.trans < c->ntrans &&
                add_event(pl, src, &b, "access", 0, c->event[st.trans]) < 0)
                return -1;
        }
        ft_schedule sc;
        if (ft_schedule_from_result(&sc, c, &pl->info, p, res) < 0 ||
            !(f->witness = schedule_text(&sc)))
            return -1;
    }
    return 0;
}

/* The violated properties of the other kinds (kind.h): the kind's name,
 * its description and events (keys: the sites that make the bug, all but
 * ft_kevent_is_key's), and the schedule analyze writes for it. */
static int kind_findings(const ft_pipeline *pl, ft_source_cache *src,
                         ft_finding **out, size_t *n, size_t *cap)
{
    const ft_ctm *c = pl->ctm;
    for (size_t i = 0; i < pl->nkprops && pl->kresults; i++) {
        const ft_presult *res = &pl->kresults[i];
        const ft_prop *p = &pl->kprops[i];
        const ft_pkind *k = ft_pkind_of(p->kind);
        if (res->verdict != FT_VIOLATED || !k)
            continue;
        ft_finding *f = new_finding(out, n, cap, k->name);
        if (!f)
            return -1;
        builder b = {f, 0};
        f->kprop = i;
        f->replayable = 1;
        ft_kevent ev[FT_KEVENTS_MAX];
        char msg[400];
        uint32_t nev = k->describe(c, &pl->info, p, res, ev, FT_KEVENTS_MAX,
                                   msg, sizeof msg);
        char full[500];
        snprintf(full, sizeof full, "%s predicted: %s", k->title, msg);
        if (!(f->message = strdup(full)))
            return -1;
        for (uint32_t e = 0; e < nev && e < FT_KEVENTS_MAX; e++)
            if (ev[e].trans < c->ntrans &&
                add_event(pl, src, &b, ev[e].role, ft_kevent_is_key(&ev[e]),
                          c->event[ev[e].trans]) < 0)
                return -1;
        ft_schedule sc;
        if (ft_pipeline_kind_schedule(pl, i, res, &sc) < 0 ||
            !(f->witness = schedule_text(&sc)))
            return -1;
    }
    return 0;
}

int ft_pipeline_findings(const ft_pipeline *pl, ft_finding **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    ft_source_cache *src = ft_source_cache_new();
    if (!src)
        return -1;
    int rc = observed_findings(pl, src, out, n, &cap);
    if (rc == 0)
        rc = misuse_findings(pl, src, out, n, &cap);
    if (rc == 0)
        rc = predicted_findings(pl, src, out, n, &cap);
    if (rc == 0)
        rc = kind_findings(pl, src, out, n, &cap);
    ft_source_cache_free(src);
    if (rc < 0) {
        ft_findings_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void ft_fsite_free(ft_fsite *s)
{
    free(s->module);
    free(s->file);
    free(s->function);
    free(s->text);
    memset(s, 0, sizeof *s);
}

void ft_finding_clear(ft_finding *f)
{
    for (uint32_t e = 0; e < f->nevents; e++)
        ft_fsite_free(&f->events[e].site);
    free(f->events);
    free(f->message);
    free(f->witness);
    memset(f, 0, sizeof *f);
}

void ft_findings_free(ft_finding *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        ft_finding_clear(&f[i]);
    free(f);
}

/* ---- the fingerprint -------------------------------------------------- */

/* Appends s to the key with '|', '\\' and newlines escaped, so that no
 * two different site tuples give the same line. */
static void put_field(FILE *m, const char *s, int strip_space)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (strip_space && (ch == ' ' || ch == '\t' || ch == '\r' ||
                            ch == '\v' || ch == '\f'))
            continue;
        if (ch == '|' || ch == '\\')
            fputc('\\', m);
        if (ch == '\n')
            fputs("\\n", m);
        else
            fputc(ch, m);
    }
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *ft_finding_key(const ft_finding *f)
{
    char **line = calloc(f->nevents + 1, sizeof *line);
    if (!line)
        return NULL;
    uint32_t nl = 0;
    int ok = 1;
    for (uint32_t i = 0; i < f->nevents && ok; i++) {
        const ft_fevent *e = &f->events[i];
        if (!e->key)
            continue;
        const ft_fsite *s = &e->site;
        size_t len = 0;
        FILE *m = open_memstream(&line[nl], &len);
        if (!m) {
            ok = 0;
            break;
        }
        fputs("site ", m);
        put_field(m, s->module, 0);
        fputc('|', m);
        put_field(m, base_name(s->file), 0);
        fputc('|', m);
        put_field(m, s->function, 0);
        fputc('|', m);
        if (s->text)
            put_field(m, s->text, 1);
        else if (s->line || !s->offset)
            fprintf(m, "#%" PRIu32, s->line);
        else /* not symbolised: the module offset is all there is */
            fprintf(m, "+0x%" PRIx64, s->offset);
        if (fclose(m) != 0)
            ok = 0;
        nl++;
    }
    qsort(line, nl, sizeof *line, by_string);
    char *key = NULL;
    size_t klen = 0;
    FILE *m = ok ? open_memstream(&key, &klen) : NULL;
    if (m) {
        fprintf(m, "foretell-fingerprint 1\nkind ");
        put_field(m, f->kind, 0);
        fputc('\n', m);
        for (uint32_t i = 0; i < nl; i++)
            if (i == 0 || strcmp(line[i], line[i - 1]) != 0)
                fprintf(m, "%s\n", line[i]);
        if (fclose(m) != 0) {
            free(key);
            key = NULL;
        }
    }
    for (uint32_t i = 0; i < nl; i++)
        free(line[i]);
    free(line);
    return key;
}

int ft_fingerprint_of_key(const char *key, char out[FT_FINGERPRINT_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(key, strlen(key), md, &mdlen, EVP_sha256(), NULL) ||
        mdlen * 2 < FT_FINGERPRINT_LEN)
        return -1;
    static const char hexd[] = "0123456789abcdef";
    for (int i = 0; i < FT_FINGERPRINT_LEN / 2; i++) {
        out[2 * i] = hexd[md[i] >> 4];
        out[2 * i + 1] = hexd[md[i] & 15];
    }
    out[FT_FINGERPRINT_LEN] = 0;
    return 0;
}

int ft_finding_fingerprint(const ft_finding *f,
                           char out[FT_FINGERPRINT_LEN + 1])
{
    char *key = ft_finding_key(f);
    if (!key)
        return -1;
    int rc = ft_fingerprint_of_key(key, out);
    free(key);
    return rc;
}

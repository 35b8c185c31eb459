/* SPDX-License-Identifier: MIT */
/* suppress.c - suppressions in ThreadSanitizer's spirit: a file of
 * KIND:PATTERN rules, one per line, that keeps known or accepted findings
 * out of analyze's, explore's and batch's reports (docs/user-guide.md,
 * "Suppressions").
 *
 * A rule matches a finding of its kind ('*' any kind) when its pattern
 * matches one frame of it: a frame is an event's site (and, where the
 * caller has them, its call sites), and the pattern matches the frame's
 * function, its file or its module as TSan's do: a substring unless
 * anchored by '^' or '$', '*' any run of characters.  A pattern ending in
 * ":N" or ":N-M" names a piece of code: the frame's file must match what
 * comes before it and its line lie in the range.  Each rule counts its
 * hits, so that a run can say which rules were used (TSan's
 * "used_suppression") and a stale rule shows.
 *
 * Unknown kinds and malformed rules are errors naming the file and line:
 * a typo would otherwise silently suppress nothing. */
#include "predict/predict.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SUPP_MAX_LINE 4096
#define SUPP_MAX_RULES 100000

typedef struct rule {
    char *kind;      /* a kind name, or "*" */
    char *pattern;   /* for function, file, module; or the file part */
    uint32_t lo, hi; /* a line range when ranged */
    int ranged;
    unsigned line;   /* in the file */
    uint64_t hits;
} rule;

struct ft_suppressions {
    rule *r;
    size_t n, cap;
    char *path;
};

/* The kinds a rule may name: analyze's (predict/kind.h, atomicity and
 * misuse), explore's failures (replay/outcome.c), and TSan's names for
 * the same things. */
static const struct {
    const char *name, *means;
} kinds[] = {
    {"*", "*"},
    {"atomicity", "atomicity"},
    {"atomicity-pair", "atomicity-pair"},
    {"data-race", "data-race"},
    {"race", "data-race"},
    {"deadlock", "deadlock"},
    {"order", "order"},
    {"null-deref", "null-deref"},
    {"use-after-free", "use-after-free"},
    {"heap-use-after-free", "use-after-free"},
    {"double-free", "double-free"},
    {"lost-wakeup", "lost-wakeup"},
    {"misuse", "misuse"},
    {"mutex", "misuse"},
    {"abort", "abort"},
    {"crash", "crash"},
    {"hang", "hang"},
    {"exit", "exit"},
    {"heap-corruption", "heap-corruption"},
};

static const char *kind_meaning(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].name, name))
            return kinds[i].means;
    return NULL;
}

static int fail(ft_error *err, const char *path, unsigned long line,
                uint64_t offset, const char *fmt, const char *arg)
{
    if (err) {
        char what[200];
        snprintf(what, sizeof what, fmt, arg);
        snprintf(err->path, sizeof err->path, "%s", path);
        err->offset = offset;
        snprintf(err->message, sizeof err->message, "line %lu: %s", line,
                 what);
    }
    return -1;
}

/* "file.c:12" or "file.c:12-40": the line range, the file part cut off. */
static int split_range(char *p, uint32_t *lo, uint32_t *hi)
{
    char *colon = strrchr(p, ':');
    if (!colon || colon == p || colon[-1] == ':' || !isdigit((unsigned char)colon[1]))
        return 0;
    char *end;
    errno = 0;
    unsigned long a = strtoul(colon + 1, &end, 10), b = a;
    if (*end == '-' && isdigit((unsigned char)end[1]))
        b = strtoul(end + 1, &end, 10);
    if (*end || errno || a > UINT32_MAX || b > UINT32_MAX)
        return 0;
    *lo = (uint32_t)a;
    *hi = (uint32_t)b;
    *colon = 0;
    return 1;
}

static int add_rule(ft_suppressions *s, char *text, unsigned long line,
                    uint64_t offset, ft_error *err)
{
    char *colon = strchr(text, ':');
    if (!colon)
        return fail(err, s->path, line, offset,
                    "expected KIND:PATTERN (e.g. data-race:update_stats), "
                    "found '%s'", text);
    *colon = 0;
    char *kind = text, *pat = colon + 1;
    while (*pat == ' ' || *pat == '\t')
        pat++;
    const char *means = kind_meaning(kind);
    if (!means)
        return fail(err, s->path, line, offset,
                    "unknown kind '%s' (known: atomicity, atomicity-pair, "
                    "data-race, deadlock, order, null-deref, use-after-free, "
                    "double-free, lost-wakeup, misuse, abort, crash, hang, "
                    "exit, heap-corruption, *)", kind);
    if (!*pat)
        return fail(err, s->path, line, offset,
                    "the rule for '%s' has no pattern", kind);
    if (s->n == SUPP_MAX_RULES)
        return fail(err, s->path, line, offset, "more than %s rules",
                    "100000");
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        rule *r = realloc(s->r, nc * sizeof *r);
        if (!r)
            return fail(err, s->path, line, offset, "%s", "out of memory");
        s->r = r;
        s->cap = nc;
    }
    rule *r = &s->r[s->n];
    memset(r, 0, sizeof *r);
    r->ranged = split_range(pat, &r->lo, &r->hi);
    if (r->ranged && r->lo > r->hi)
        return fail(err, s->path, line, offset,
                    "the line range of '%s' ends before it starts", pat);
    r->kind = strdup(means);
    r->pattern = strdup(pat);
    r->line = (unsigned)line;
    if (!r->kind || !r->pattern) {
        free(r->kind);
        free(r->pattern);
        return fail(err, s->path, line, offset, "%s", "out of memory");
    }
    s->n++;
    return 0;
}

int ft_suppressions_read_file(FILE *f, const char *path, ft_suppressions **out,
                              ft_error *err)
{
    *out = NULL;
    ft_suppressions *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return fail(err, path, 0, 0, "%s", "out of memory");
    }
    char buf[SUPP_MAX_LINE + 2];
    size_t len;
    unsigned long lineno = 0;
    uint64_t offset = 0;
    int got, rc = 0;
    while ((got = ft_getline(f, buf, sizeof buf, &len)) != FT_LINE_EOF) {
        lineno++;
        uint64_t start = offset;
        offset += len + 1;
        if (got != FT_LINE_OK || len > SUPP_MAX_LINE) {
            rc = fail(err, path, lineno, start, "%s",
                      got == FT_LINE_NUL     ? "a NUL byte in the line"
                      : got == FT_LINE_ERROR ? strerror(errno)
                                             : "line too long");
            break;
        }
        char *t = ft_line_content(buf);
        if (*t && (rc = add_rule(s, t, lineno, start, err)) < 0)
            break;
    }
    if (rc < 0) {
        ft_suppressions_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int ft_suppressions_read(const char *path, ft_suppressions **out,
                         ft_error *err)
{
    *out = NULL;
    FILE *f = ft_fopen_input(path, err);
    if (!f)
        return -1;
    int rc = ft_suppressions_read_file(f, path, out, err);
    fclose(f);
    return rc;
}

void ft_suppressions_free(ft_suppressions *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->r[i].kind);
        free(s->r[i].pattern);
    }
    free(s->r);
    free(s->path);
    free(s);
}

/* Whether text matches pattern p[0..n) with '*' for any run, anchored at
 * both ends (the caller adds the implicit '*'s).  Greedy with one
 * backtrack point: linear in practice, O(n*m) at worst. */
static int glob(const char *p, size_t n, const char *text)
{
    size_t i = 0, star = SIZE_MAX;
    const char *t = text, *mark = NULL;
    while (*t) {
        if (i < n && p[i] == '*') {
            star = i++;
            mark = t;
        } else if (i < n && p[i] == *t) {
            i++;
            t++;
        } else if (star != SIZE_MAX) {
            i = star + 1;
            t = ++mark;
        } else {
            return 0;
        }
    }
    while (i < n && p[i] == '*')
        i++;
    return i == n;
}

int ft_suppress_pattern_match(const char *pattern, const char *text)
{
    if (!text || !*text)
        return 0;
    size_t n = strlen(pattern);
    int start = n && pattern[0] == '^', end = n > (size_t)start &&
                                              pattern[n - 1] == '$';
    char stack[512];
    size_t need = n + 3;
    char *p = need <= sizeof stack ? stack : malloc(need);
    if (!p)
        return 0;
    size_t k = 0;
    if (!start)
        p[k++] = '*';
    memcpy(p + k, pattern + start, n - start - end);
    k += n - start - end;
    if (!end)
        p[k++] = '*';
    int m = glob(p, k, text);
    if (p != stack)
        free(p);
    return m;
}

static int frame_match(const rule *r, const ft_supp_frame *f)
{
    if (r->ranged)
        return f->line >= r->lo && f->line <= r->hi &&
               ft_suppress_pattern_match(r->pattern, f->file);
    return ft_suppress_pattern_match(r->pattern, f->function) ||
           ft_suppress_pattern_match(r->pattern, f->file) ||
           ft_suppress_pattern_match(r->pattern, f->module);
}

/* "atomicity" rules also cover CMA's pairs ("atomicity-pair"). */
static int kind_match(const char *rule_kind, const char *kind)
{
    return !strcmp(rule_kind, "*") || !strcmp(rule_kind, kind) ||
           (!strcmp(rule_kind, "atomicity") &&
            !strcmp(kind, "atomicity-pair"));
}

int ft_suppressions_match(ft_suppressions *s, const char *kind,
                          const ft_supp_frame *frames, size_t n)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        rule *r = &s->r[i];
        if (!kind_match(r->kind, kind))
            continue;
        for (size_t k = 0; k < n; k++)
            if (frame_match(r, &frames[k])) {
                r->hits++;
                return (int)i;
            }
    }
    return -1;
}

size_t ft_suppressions_count(const ft_suppressions *s)
{
    return s ? s->n : 0;
}

const char *ft_suppressions_rule(const ft_suppressions *s, size_t i,
                                 unsigned *line, uint64_t *hits,
                                 const char **kind)
{
    if (!s || i >= s->n)
        return NULL;
    if (line)
        *line = s->r[i].line;
    if (hits)
        *hits = s->r[i].hits;
    if (kind)
        *kind = s->r[i].kind;
    return s->r[i].pattern;
}

const char *ft_suppressions_path(const ft_suppressions *s)
{
    return s ? s->path : "";
}

void ft_suppressions_print_used(FILE *out, const ft_suppressions *s)
{
    for (size_t i = 0; s && i < s->n; i++) {
        const rule *r = &s->r[i];
        if (!r->hits)
            continue;
        if (r->ranged && r->lo != r->hi)
            fprintf(out, "%s:%u: note: suppressed %llu finding%s: %s:%s:%u-%u\n",
                    s->path, r->line, (unsigned long long)r->hits,
                    r->hits == 1 ? "" : "s", r->kind, r->pattern, r->lo, r->hi);
        else if (r->ranged)
            fprintf(out, "%s:%u: note: suppressed %llu finding%s: %s:%s:%u\n",
                    s->path, r->line, (unsigned long long)r->hits,
                    r->hits == 1 ? "" : "s", r->kind, r->pattern, r->lo);
        else
            fprintf(out, "%s:%u: note: suppressed %llu finding%s: %s:%s\n",
                    s->path, r->line, (unsigned long long)r->hits,
                    r->hits == 1 ? "" : "s", r->kind, r->pattern);
    }
}

uint64_t ft_suppressions_hits(const ft_suppressions *s)
{
    uint64_t h = 0;
    for (size_t i = 0; s && i < s->n; i++)
        h += s->r[i].hits;
    return h;
}

int ft_pipeline_observed(const ft_pipeline *pl, size_t k)
{
    return k < pl->infer.nregions &&
           pl->infer.regions[k].status == FI_ST_OBSERVED &&
           !(pl->region_suppressed && pl->region_suppressed[k]);
}

/* The frames of finding f: each event's site, and where code inlined
 * from a system header entered the program's own code (the same line a
 * report prints for it). */
static size_t frames_of(const ft_pipeline *pl, const ft_finding *f,
                        ft_supp_frame *fr, size_t cap)
{
    size_t n = 0;
    for (uint32_t e = 0; e < f->nevents && n < cap; e++) {
        const ft_fsite *s = &f->events[e].site;
        fr[n++] = (ft_supp_frame){s->function, s->file, s->module, s->line};
        uint64_t ix = f->events[e].index;
        const ft_site *ts = ix < pl->trace.nev
            ? fi_trace_site_get(&pl->trace, pl->trace.ev[ix].site) : NULL;
        if (ts && ts->user_file && n < cap)
            fr[n++] = (ft_supp_frame){NULL, ts->user_file, NULL, ts->user_line};
    }
    return n;
}

long ft_pipeline_suppress(ft_pipeline *pl, ft_suppressions *s)
{
    if (!s || !s->n)
        return 0;
    ft_finding *f = NULL;
    size_t n = 0;
    if (ft_pipeline_findings(pl, &f, &n) < 0)
        return -1;
    uint8_t *drop = calloc(pl->nmisuse + 1, 1);
    if (!pl->region_suppressed)
        pl->region_suppressed = calloc(pl->infer.nregions + 1, 1);
    if (!drop || !pl->region_suppressed) {
        free(drop);
        ft_findings_free(f, n);
        return -1;
    }
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        ft_supp_frame fr[64];
        size_t nf = frames_of(pl, &f[i], fr, sizeof fr / sizeof fr[0]);
        if (ft_suppressions_match(s, f[i].kind, fr, nf) < 0)
            continue;
        count++;
        if (f[i].prop != SIZE_MAX && pl->results &&
            pl->results[f[i].prop].verdict == FT_VIOLATED) {
            pl->results[f[i].prop].verdict = FT_SUPPRESSED;
            pl->nviolated--;
        } else if (f[i].kprop != SIZE_MAX && pl->kresults &&
                   pl->kresults[f[i].kprop].verdict == FT_VIOLATED) {
            pl->kresults[f[i].kprop].verdict = FT_SUPPRESSED;
            pl->nkviolated--;
        } else if (f[i].region != SIZE_MAX) {
            pl->region_suppressed[f[i].region] = 1;
            pl->nobserved--;
        } else if (f[i].misuse != SIZE_MAX) {
            drop[f[i].misuse] = 1;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < pl->nmisuse; i++)
        if (!drop[i])
            pl->misuse[k++] = pl->misuse[i];
    pl->nmisuse = k;
    free(drop);
    ft_findings_free(f, n);
    pl->nsuppressed += (size_t)count;
    return count;
}

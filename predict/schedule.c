/* schedule.c - schedule files (docs/schedule-format.md): the witness of a
 * predicted violation as text the replay harness reads, one step per
 * line, with a strict parser that names the line of any bad input. */
#include "predict/kind.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FT_SCHED_MAGIC "foretell-schedule"
#define FT_SCHED_VERSION 1
#define FT_SCHED_MAX_STEPS 100000000u

int ft_schedule_write(FILE *out, const ft_schedule *s)
{
    fprintf(out, "%s %d\n", FT_SCHED_MAGIC, FT_SCHED_VERSION);
    fprintf(out, "trace: %s\n", s->trace);
    fprintf(out, "program: %s\n", s->program);
    fprintf(out, "kind: %s\n", s->kind);
    fprintf(out, "property: %s\n", s->property);
    fprintf(out, "steps: %u\n", s->nsteps);
    fprintf(out, "# tid thread-event-index kind mark(! = violating) site\n");
    for (uint32_t i = 0; i < s->nsteps; i++) {
        const ft_sched_step *p = &s->steps[i];
        fprintf(out, "%u %" PRIu64 " %s %c %s\n", p->tid, p->tindex, p->kind,
                p->mark ? '!' : '-', p->site);
    }
    fprintf(out, "end\n");
    return ferror(out) ? -1 : 0;
}

void ft_schedule_free(ft_schedule *s)
{
    free(s->steps);
    s->steps = NULL;
    s->nsteps = 0;
}

static int fail(char *err, size_t len, const char *name, unsigned line,
                const char *fmt, ...)
{
    int n = snprintf(err, len, "%s:%u: ", name, line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < len)
        vsnprintf(err + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A header line "key: value" into dst. */
static int header(const char *line, const char *key, char *dst, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) || line[k] != ':')
        return 0;
    const char *v = line + k + 1;
    if (*v == ' ')
        v++;
    snprintf(dst, len, "%s", v);
    return 1;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out, char **end)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno || v > max)
        return -1;
    *out = v;
    return 0;
}

int ft_schedule_read(FILE *in, const char *name, ft_schedule *s, char *err,
                     size_t errlen)
{
    memset(s, 0, sizeof *s);
    char line[4096];
    unsigned ln = 0;
    int have_steps = 0, ended = 0;
    uint64_t declared = 0;
    uint32_t cap = 0;
    char *eol;
    while (fgets(line, sizeof line, in)) {
        ln++;
        eol = strchr(line, '\n');
        if (!eol && !feof(in))
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln, "line longer than %zu bytes",
                        sizeof line - 1);
        if (eol)
            *eol = 0;
        if (ended)
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln, "text after 'end'");
        if (ln == 1) {
            char magic[32];
            int ver;
            if (sscanf(line, "%31s %d", magic, &ver) != 2 ||
                strcmp(magic, FT_SCHED_MAGIC))
                return fail(err, errlen, name, ln,
                            "not a schedule file (expected '%s %d')",
                            FT_SCHED_MAGIC, FT_SCHED_VERSION);
            if (ver != FT_SCHED_VERSION)
                return fail(err, errlen, name, ln,
                            "unsupported version %d (this reader knows %d)",
                            ver, FT_SCHED_VERSION);
            continue;
        }
        if (line[0] == '#' || line[0] == 0)
            continue;
        if (!have_steps) {
            char num[32];
            if (header(line, "trace", s->trace, sizeof s->trace) ||
                header(line, "program", s->program, sizeof s->program) ||
                header(line, "property", s->property, sizeof s->property))
                continue;
            if (header(line, "kind", s->kind, sizeof s->kind)) {
                if (strcmp(s->kind, "CA") && strcmp(s->kind, "CMA") &&
                    !ft_pkind_by_name(s->kind))
                    return ft_schedule_free(s),
                           fail(err, errlen, name, ln,
                                "kind must be CA, CMA or a property kind "
                                "(deadlock, lost-wakeup, ...), not '%s'",
                                s->kind);
                continue;
            }
            if (header(line, "steps", num, sizeof num)) {
                char *end;
                if (parse_u64(num, FT_SCHED_MAX_STEPS, &declared, &end) ||
                    *end)
                    return fail(err, errlen, name, ln,
                                "steps: expected a count up to %u, got '%s'",
                                FT_SCHED_MAX_STEPS, num);
                have_steps = 1;
                continue;
            }
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln,
                        "expected a header line (trace:, program:, kind:, "
                        "property:, steps:), got '%.40s'",
                        line);
        }
        if (!strcmp(line, "end")) {
            uint32_t got = s->nsteps; /* ft_schedule_free clears it */
            if (got != declared)
                return ft_schedule_free(s),
                       fail(err, errlen, name, ln,
                            "'steps: %" PRIu64 "' but %u step lines",
                            declared, got);
            ended = 1;
            continue;
        }
        if (s->nsteps >= declared)
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln,
                        "more step lines than 'steps: %" PRIu64 "'", declared);
        if (s->nsteps == cap) {
            uint32_t nc = cap ? 2 * cap : 64;
            ft_sched_step *n2 = realloc(s->steps, nc * sizeof *n2);
            if (!n2)
                return ft_schedule_free(s),
                       fail(err, errlen, name, ln, "out of memory");
            s->steps = n2;
            cap = nc;
        }
        ft_sched_step *p = &s->steps[s->nsteps];
        memset(p, 0, sizeof *p);
        char *q = line, *end;
        uint64_t v;
        if (parse_u64(q, UINT32_MAX - 1, &v, &end) || *end != ' ')
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln, "step: bad thread id");
        p->tid = (uint32_t)v;
        q = end + 1;
        if (parse_u64(q, UINT64_MAX - 1, &p->tindex, &end) || *end != ' ')
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln, "step: bad thread event index");
        q = end + 1;
        size_t kl = strcspn(q, " ");
        if (kl == 0 || kl >= sizeof p->kind || q[kl] != ' ')
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln, "step: bad event kind");
        memcpy(p->kind, q, kl);
        q += kl + 1;
        if ((q[0] != '!' && q[0] != '-') || q[1] != ' ' || !q[2])
            return ft_schedule_free(s),
                   fail(err, errlen, name, ln,
                        "step: expected mark '!' or '-' then a site");
        p->mark = q[0] == '!';
        snprintf(p->site, sizeof p->site, "%s", q + 2);
        s->nsteps++;
    }
    if (ferror(in))
        return ft_schedule_free(s),
               fail(err, errlen, name, ln, "read error");
    if (!ended)
        return ft_schedule_free(s),
               fail(err, errlen, name, ln + 1,
                    have_steps ? "missing 'end' (truncated file?)"
                               : "missing 'steps:' header");
    if (!s->kind[0])
        return ft_schedule_free(s),
               fail(err, errlen, name, ln, "missing 'kind:' header");
    return 0;
}

static const char *kind_name(const ft_ctm *c, const ft_trace_info *ti,
                             uint32_t x)
{
    if (ti && ti->kind && x < ti->ntrans && ti->kind[x])
        return ft_kind_name(ti->kind[x]);
    return ft_op_name(c->op[x]);
}

int ft_schedule_from_result(ft_schedule *s, const ft_ctm *c,
                            const ft_trace_info *ti, const ft_prop *p,
                            const ft_presult *res)
{
    memset(s, 0, sizeof *s);
    snprintf(s->trace, sizeof s->trace, "%s", ti && ti->path ? ti->path : "");
    snprintf(s->program, sizeof s->program, "%s",
             ti && ti->program ? ti->program : "");
    snprintf(s->kind, sizeof s->kind, "%s",
             p->kind == FT_PROP_CMA ? "CMA" : "CA");
    char a[200], b[200];
    int n = snprintf(s->property, sizeof s->property,
                     "#%u thread %u %s..%s", p->id, p->r[0].thread,
                     ft_trace_info_site(ti, c, ft_ctm_at(c, p->r[0].thread,
                                                         p->r[0].first),
                                        a, sizeof a),
                     ft_trace_info_site(ti, c, ft_ctm_at(c, p->r[0].thread,
                                                         p->r[0].last),
                                        b, sizeof b));
    if (p->kind == FT_PROP_CMA && n > 0 && (size_t)n < sizeof s->property)
        snprintf(s->property + n, sizeof s->property - (size_t)n,
                 " / thread %u %s..%s", p->r[1].thread,
                 ft_trace_info_site(ti, c, ft_ctm_at(c, p->r[1].thread,
                                                     p->r[1].first),
                                    a, sizeof a),
                 ft_trace_info_site(ti, c, ft_ctm_at(c, p->r[1].thread,
                                                     p->r[1].last),
                                    b, sizeof b));
    /* a window's witness: the recorded prefix first, in recorded order */
    uint64_t total = (uint64_t)res->prefix + res->nsteps;
    s->steps = calloc(total + 1, sizeof *s->steps);
    if (!s->steps)
        return -1;
    for (uint64_t i = 0; i < total; i++) {
        int pre = i < res->prefix;
        uint32_t x = pre ? (uint32_t)i : res->steps[i - res->prefix].trans;
        ft_sched_step *q = &s->steps[i];
        q->tid = c->tid[x];
        q->tindex = ti && ti->tindex ? ti->tindex[x] : c->pos[x];
        snprintf(q->kind, sizeof q->kind, "%s", kind_name(c, ti, x));
        for (char *k = q->kind; *k; k++)
            if (*k == ' ')
                *k = '_';
        ft_trace_info_site(ti, c, x, q->site, sizeof q->site);
        q->mark = pre ? 0 : res->steps[i - res->prefix].mark;
    }
    s->nsteps = (uint32_t)total;
    return 0;
}

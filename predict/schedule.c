/* SPDX-License-Identifier: MIT */
/* schedule.c - schedule files (docs/schedule-format.md): the witness of a
 * predicted violation as text the replay harness reads, one step per
 * line, written whole or not at all (ft_schedule_save), for the
 * atomicity properties of a pipeline here and for the kinds in kinds.c.
 * Reading goes through the parser the runtime uses too
 * (recorder/schedule_parse.c), which names the line of any bad input. */
#include "predict/kind.h"
#include "recorder/schedule_parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_head(FILE *out, const ft_schedule *s)
{
    fprintf(out, "%s %d\n", FT_SCHED_MAGIC, FT_SCHED_VERSION);
    fprintf(out, "trace: %s\n", s->trace);
    fprintf(out, "program: %s\n", s->program);
    fprintf(out, "kind: %s\n", s->kind);
    fprintf(out, "property: %s\n", s->property);
    fprintf(out, "steps: %u\n", s->nsteps);
    fprintf(out, "# tid thread-event-index kind mark(! = violating, + = runs "
                 "with the next) site\n");
}

static void write_step(FILE *out, const ft_sched_step *p)
{
    fprintf(out, "%u %" PRIu64 " %s %c %s\n", p->tid, p->tindex, p->kind,
            p->mark ? '!' : p->with_next ? '+' : '-', p->site);
}

int ft_schedule_write(FILE *out, const ft_schedule *s)
{
    write_head(out, s);
    for (uint32_t i = 0; i < s->nsteps; i++)
        write_step(out, &s->steps[i]);
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
                const char *what)
{
    snprintf(err, len, "%s:%u: %s", name, line, what);
    return -1;
}

/* A header value into dst (NUL-terminated, cut to fit). */
static void copy(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = 0;
}

int ft_schedule_read(FILE *in, const char *name, ft_schedule *s, char *err,
                     size_t errlen)
{
    memset(s, 0, sizeof *s);
    struct stat st;
    int fd = fileno(in);
    ft_sched_parse p;
    ft_sched_parse_init(&p, fd >= 0 && fstat(fd, &st) == 0 &&
                                    S_ISREG(st.st_mode)
                                ? (uint64_t)st.st_size
                                : UINT64_MAX);
    char line[FT_SCHED_MAX_LINE + 2], why[200];
    size_t len;
    uint32_t cap = 0;
    int got;
    while ((got = ft_getline(in, line, sizeof line, &len)) != FT_LINE_EOF) {
        if (got == FT_LINE_ERROR)
            break;
        ft_sched_line sl;
        /* a long line is refused by the parser from its length */
        int item = ft_sched_parse_line(&p, line, got == FT_LINE_LONG
                                                    ? FT_SCHED_MAX_LINE + 1
                                                    : len,
                                       &sl, why, sizeof why);
        if (item == FT_SI_ERROR)
            return ft_schedule_free(s), fail(err, errlen, name, p.line, why);
        if (item == FT_SI_HEADER) {
            if (sl.keylen == 5 && !memcmp(sl.key, "trace", 5))
                copy(s->trace, sizeof s->trace, sl.value, sl.valuelen);
            else if (sl.keylen == 7 && !memcmp(sl.key, "program", 7))
                copy(s->program, sizeof s->program, sl.value, sl.valuelen);
            else if (sl.keylen == 4 && !memcmp(sl.key, "kind", 4))
                copy(s->kind, sizeof s->kind, sl.value, sl.valuelen);
            else
                copy(s->property, sizeof s->property, sl.value, sl.valuelen);
        }
        if (item != FT_SI_STEP)
            continue;
        if (s->nsteps == cap) {
            uint32_t nc = cap ? 2 * cap : 64;
            ft_sched_step *n2 = realloc(s->steps, nc * sizeof *n2);
            if (!n2)
                return ft_schedule_free(s),
                       fail(err, errlen, name, p.line, "out of memory");
            s->steps = n2;
            cap = nc;
        }
        ft_sched_step *q = &s->steps[s->nsteps++];
        memset(q, 0, sizeof *q);
        q->tid = sl.tid;
        q->tindex = sl.tindex;
        copy(q->kind, sizeof q->kind, sl.kind, sl.kindlen);
        copy(q->site, sizeof q->site, sl.site, sl.sitelen);
        q->mark = (uint8_t)sl.mark;
        q->with_next = (uint8_t)sl.with_next;
    }
    if (ferror(in))
        return ft_schedule_free(s),
               fail(err, errlen, name, p.line, "read error");
    if (ft_sched_parse_finish(&p, why, sizeof why) < 0)
        return ft_schedule_free(s), fail(err, errlen, name, p.line + 1, why);
    return 0;
}

static const char *kind_name(const ft_ctm *c, const ft_trace_info *ti,
                             uint32_t x)
{
    if (ti && ti->kind && x < ti->ntrans && ti->kind[x])
        return ft_kind_name(ti->kind[x]);
    return ft_op_name(c->op[x]);
}

int ft_schedule_head_from_result(ft_schedule *s, const ft_ctm *c,
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
    if (total >= UINT32_MAX)
        return -1;
    s->nsteps = (uint32_t)total;
    return 0;
}

/* A schedule's step of transition x: the result's step st, or one of
 * the recorded prefix (st NULL). */
static void result_step(const ft_ctm *c, const ft_trace_info *ti,
                        uint32_t x, const ft_step *st, ft_sched_step *q)
{
    q->tid = c->tid[x];
    q->tindex = ti && ti->tindex ? ti->tindex[x] : c->pos[x];
    snprintf(q->kind, sizeof q->kind, "%s", kind_name(c, ti, x));
    for (char *k = q->kind; *k; k++)
        if (*k == ' ')
            *k = '_';
    ft_trace_info_site(ti, c, x, q->site, sizeof q->site);
    q->mark = st ? st->mark : 0;
    q->with_next = st ? st->with_next : 0;
}

/* Steps of a result's schedule in order: the recorded prefix, then the
 * result's own steps (packed or not). */
typedef struct result_steps {
    const ft_presult *res;
    uint32_t i;
    ft_step_iter it;
} result_steps;

static void result_steps_begin(result_steps *r, const ft_presult *res)
{
    r->res = res;
    r->i = 0;
    ft_steps_begin(&r->it, res->steps, res->nsteps, res->packed);
}

static void result_steps_next(result_steps *r, const ft_ctm *c,
                              const ft_trace_info *ti, ft_sched_step *q)
{
    if (r->i < r->res->prefix) {
        result_step(c, ti, r->i++, NULL, q);
        return;
    }
    ft_step st = ft_steps_next(&r->it);
    result_step(c, ti, st.trans, &st, q);
}

int ft_schedule_from_result(ft_schedule *s, const ft_ctm *c,
                            const ft_trace_info *ti, const ft_prop *p,
                            const ft_presult *res)
{
    if (ft_schedule_head_from_result(s, c, ti, p, res) < 0)
        return -1;
    s->steps = calloc((size_t)s->nsteps + 1, sizeof *s->steps);
    if (!s->steps) {
        s->nsteps = 0;
        return -1;
    }
    result_steps r;
    result_steps_begin(&r, res);
    for (uint32_t i = 0; i < s->nsteps; i++)
        result_steps_next(&r, c, ti, &s->steps[i]);
    return 0;
}

/* The first index of the step (its thread's steps run as one: those
 * before marked with_next; unmarked ones after it are taken along,
 * though race witnesses end a step at its access, kind_race.c)
 * that ends at or after index end and holds a mark, going back from end;
 * UINT32_MAX when the steps there are not one. */
static uint32_t step_back(const ft_schedule *s, uint32_t end)
{
    uint32_t tid = s->steps[end].tid, i = end + 1;
    int marked = 0;
    while (i > 0 && s->steps[i - 1].tid == tid && !marked) {
        i--;
        if (s->steps[i].mark)
            marked = 1;
        else if (s->steps[i].with_next)
            return UINT32_MAX; /* a glued step after the mark */
    }
    if (!marked)
        return UINT32_MAX;
    while (i > 0 && s->steps[i - 1].tid == tid && s->steps[i - 1].with_next)
        i--;
    return i;
}

int ft_schedule_other_order(ft_schedule *s)
{
    if (s->nsteps < 2)
        return 0;
    uint32_t b = step_back(s, s->nsteps - 1);
    uint32_t a = b != UINT32_MAX && b > 0 ? step_back(s, b - 1) : UINT32_MAX;
    if (a == UINT32_MAX || s->steps[a].tid == s->steps[b].tid)
        return 0;
    /* [a, b) and [b, n) swapped: rotate through a copy of the first */
    uint32_t na = b - a, n = s->nsteps;
    ft_sched_step *t = malloc(sizeof *t * na);
    if (!t)
        return 0;
    memcpy(t, s->steps + a, sizeof *t * na);
    memmove(s->steps + a, s->steps + b, sizeof *t * (n - b));
    memcpy(s->steps + a + (n - b), t, sizeof *t * na);
    free(t);
    return 1;
}

/* The steps of a schedule being saved: its own, or made from a result as
 * they are written (a window's witness holds the recorded prefix: 10^5
 * steps of 256 bytes each would be held at once). */
typedef struct step_source {
    const ft_ctm *c;
    const ft_trace_info *ti;
    const ft_presult *res; /* NULL: the schedule's own steps */
} step_source;

static int write_from(FILE *f, const ft_schedule *s, const step_source *src)
{
    if (!src->res)
        return ft_schedule_write(f, s);
    write_head(f, s);
    ft_sched_step q;
    result_steps r;
    result_steps_begin(&r, src->res);
    for (uint32_t i = 0; i < s->nsteps && !ferror(f); i++) {
        result_steps_next(&r, src->c, src->ti, &q);
        write_step(f, &q);
    }
    fprintf(f, "end\n");
    return ferror(f) ? -1 : 0;
}

static int save_from(const ft_schedule *s, const step_source *src,
                     const char *path, char *err, size_t errlen)
{
    /* Beside path, then renamed: a failed write leaves no partial (or
     * empty) schedule, and an older one whole. */
    char tmp[4200];
    FILE *f = ft_out_fopen(path, tmp, sizeof tmp);
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    int rc = write_from(f, s, src);
    int e = errno;
    if (rc < 0) {
        fclose(f);
        unlink(tmp);
        snprintf(err, errlen, "%s: write error: %s", path,
                 strerror(e ? e : EIO));
        return -1;
    }
    if (ft_out_fclose(f, tmp, path) < 0) {
        snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int ft_schedule_save(const ft_schedule *s, const char *path, char *err,
                     size_t errlen)
{
    step_source own = {0};
    return save_from(s, &own, path, err, errlen);
}

int ft_schedule_save_result(const ft_schedule *head, const ft_ctm *c,
                            const ft_trace_info *ti, const ft_presult *res,
                            const char *path, char *err, size_t errlen)
{
    step_source src = {c, ti, res};
    return save_from(head, &src, path, err, errlen);
}

int ft_pipeline_write_alt_schedule(const ft_pipeline *pl, size_t i,
                                   const char *dir, char *path, size_t pathlen,
                                   char *err, size_t errlen)
{
    const ft_presult *r = &pl->results[i];
    if (!r->alt_steps)
        return 0;
    const ft_prop *p = &pl->props[i];
    snprintf(path, pathlen, "%s/%s-%u.alt.schedule", dir,
             p->kind == FT_PROP_CMA ? "cma" : "ca", p->id);
    ft_presult alt = *r;
    alt.steps = r->alt_steps;
    alt.nsteps = r->nalt_steps;
    ft_schedule s;
    if (ft_schedule_head_from_result(&s, pl->ctm, &pl->info, p, &alt) < 0) {
        snprintf(err, errlen, "%s: too many steps", path);
        return -1;
    }
    return ft_schedule_save_result(&s, pl->ctm, &pl->info, &alt, path, err,
                                   errlen) < 0 ? -1 : 1;
}

int ft_pipeline_write_schedule(const ft_pipeline *pl, size_t i,
                               const char *dir, char *path, size_t pathlen,
                               char *err, size_t errlen)
{
    const ft_prop *p = &pl->props[i];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create the directory: %s", dir,
                 strerror(errno));
        return -1;
    }
    snprintf(path, pathlen, "%s/%s-%u.schedule", dir,
             p->kind == FT_PROP_CMA ? "cma" : "ca", p->id);
    ft_schedule s;
    if (ft_schedule_head_from_result(&s, pl->ctm, &pl->info, p,
                                     &pl->results[i]) < 0) {
        snprintf(err, errlen, "%s: too many steps", path);
        return -1;
    }
    return ft_schedule_save_result(&s, pl->ctm, &pl->info, &pl->results[i],
                                   path, err, errlen);
}

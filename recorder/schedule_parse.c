/* SPDX-License-Identifier: MIT */
/* schedule_parse.c - the schedule file grammar (docs/schedule-format.md)
 * as a line-at-a-time state machine, shared by the CLI and the runtime
 * (schedule_parse.h says why).  Every count and id taken from the file is
 * bounded here: thread ids by FT_TRACE_MAX_THREADS (what the runtime can
 * run), the room made for the declared steps by what the rest of the
 * file can hold. */
#include "recorder/schedule_parse.h"
#include "recorder/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const ft_sched_kinds[] = {
    "CA", "CMA", "deadlock", "lost-wakeup", "order", "null-deref",
    "use-after-free", "data-race", NULL,
};

enum { S_MAGIC, S_HEADER, S_STEPS, S_ENDED };

void ft_sched_parse_init(ft_sched_parse *p, uint64_t size)
{
    memset(p, 0, sizeof *p);
    p->state = S_MAGIC;
    p->size = size;
}

static int bad(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return FT_SI_ERROR;
}

/* A decimal number at *q (before end), at most max. */
static int number(const char **q, const char *end, uint64_t max,
                  uint64_t *out)
{
    const char *s = *q;
    uint64_t v = 0;
    if (s >= end || *s < '0' || *s > '9')
        return -1;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *q = s;
    *out = v;
    return 0;
}

/* How much of [s, end) a message quotes: lines are not NUL-terminated. */
static int clip(const char *s, const char *end)
{
    return end - s > 40 ? 40 : (int)(end - s);
}

static int is(const char *s, size_t n, const char *word)
{
    return n == strlen(word) && !memcmp(s, word, n);
}

static int magic(ft_sched_parse *p, const char *s, const char *end,
                 char *err, size_t errlen)
{
    size_t m = sizeof FT_SCHED_MAGIC - 1;
    uint64_t ver;
    const char *q = s + m + 1;
    if ((size_t)(end - s) <= m + 1 || memcmp(s, FT_SCHED_MAGIC " ", m + 1) ||
        number(&q, end, 1000000, &ver) || q != end)
        return bad(err, errlen, "not a schedule file (expected '%s %d')",
                   FT_SCHED_MAGIC, FT_SCHED_VERSION);
    if (ver != FT_SCHED_VERSION)
        return bad(err, errlen,
                   "unsupported version %llu (this reader knows %d)",
                   (unsigned long long)ver, FT_SCHED_VERSION);
    p->state = S_HEADER;
    return FT_SI_NONE;
}

static int header(ft_sched_parse *p, const char *s, const char *end,
                  ft_sched_line *out, char *err, size_t errlen)
{
    const char *colon = memchr(s, ':', (size_t)(end - s));
    size_t klen = colon ? (size_t)(colon - s) : 0;
    if (!colon || !(is(s, klen, "trace") || is(s, klen, "program") ||
                    is(s, klen, "kind") || is(s, klen, "property") ||
                    is(s, klen, "steps")))
        return bad(err, errlen,
                   "expected a header line (trace:, program:, kind:, "
                   "property:, steps:), got '%.*s'", clip(s, end), s);
    const char *v = colon + 1;
    if (v < end && *v == ' ')
        v++;
    if (is(s, klen, "steps")) {
        const char *q = v;
        uint64_t n;
        if (number(&q, end, FT_SCHED_MAX_STEPS, &n) || q != end)
            return bad(err, errlen,
                       "steps: expected a count up to %u, got '%.*s'",
                       FT_SCHED_MAX_STEPS, clip(v, end), v);
        /* A truncated or lying count is reported where the lines stop
         * (missing 'end', a count mismatch); what is allocated for the
         * steps is bounded now by what the rest of the file can hold. */
        uint64_t left = p->size == UINT64_MAX ? UINT64_MAX
                        : p->size < p->consumed /* no '\n' at the end */
                            ? 0
                            : p->size - p->consumed;
        uint64_t fit = left == UINT64_MAX ? n : left / FT_SCHED_MIN_STEP_LINE;
        p->declared = n;
        p->room = n < fit ? n : fit;
        p->state = S_STEPS;
        return FT_SI_STEPS;
    }
    if (is(s, klen, "kind")) {
        /* both parsers refuse an unknown kind here, at this line (the
         * CLI once checked names after the runtime had accepted them:
         * the fuzzer found the two disagreeing) */
        size_t vl = (size_t)(end - v);
        int known = 0;
        for (unsigned i = 0; !known && ft_sched_kinds[i]; i++)
            known = is(v, vl, ft_sched_kinds[i]);
        if (!known)
            return bad(err, errlen, "kind must be CA, CMA or a property "
                       "kind (deadlock, lost-wakeup, ...), not '%.*s'",
                       clip(v, end), v);
        p->have_kind = 1;
    }
    out->key = s;
    out->keylen = klen;
    out->value = v;
    out->valuelen = (size_t)(end - v);
    return FT_SI_HEADER;
}

static int step(ft_sched_parse *p, const char *s, const char *end,
                ft_sched_line *out, char *err, size_t errlen)
{
    if (is(s, (size_t)(end - s), "end")) {
        if (p->nsteps != p->declared)
            return bad(err, errlen, "'steps: %llu' but %llu step lines",
                       (unsigned long long)p->declared,
                       (unsigned long long)p->nsteps);
        p->state = S_ENDED;
        return FT_SI_END;
    }
    if (p->nsteps >= p->declared)
        return bad(err, errlen, "more step lines than 'steps: %llu'",
                   (unsigned long long)p->declared);
    if (p->nsteps >= p->room) /* cannot happen: each takes 10 bytes */
        return bad(err, errlen, "more step lines than the file can hold");
    const char *q = s;
    uint64_t v;
    if (number(&q, end, UINT64_MAX, &v) || q >= end || *q != ' ')
        return bad(err, errlen, "step: bad thread id");
    if (v >= FT_TRACE_MAX_THREADS)
        return bad(err, errlen,
                   "step: thread id %llu beyond the limit of %d threads",
                   (unsigned long long)v, FT_TRACE_MAX_THREADS);
    out->tid = (uint32_t)v;
    q++;
    if (number(&q, end, UINT64_MAX - 1, &out->tindex) || q >= end ||
        *q != ' ')
        return bad(err, errlen, "step: bad thread event index");
    const char *k = ++q;
    while (q < end && *q != ' ')
        q++;
    if (q == k || q - k > FT_SCHED_KIND_MAX || q >= end)
        return bad(err, errlen, "step: bad event kind");
    out->kind = k;
    out->kindlen = (size_t)(q - k);
    q++;
    if (end - q < 3 || (q[0] != '!' && q[0] != '-' && q[0] != '+') ||
        q[1] != ' ')
        return bad(err, errlen,
                   "step: expected mark '!', '+' or '-' then a site");
    out->mark = q[0] == '!';
    out->with_next = q[0] == '+';
    out->site = q + 2;
    out->sitelen = (size_t)(end - q - 2);
    p->nsteps++;
    return FT_SI_STEP;
}

int ft_sched_parse_line(ft_sched_parse *p, const char *line, size_t len,
                        ft_sched_line *out, char *err, size_t errlen)
{
    p->line++;
    p->consumed += len + 1;
    memset(out, 0, sizeof *out);
    if (len > FT_SCHED_MAX_LINE)
        return bad(err, errlen, "line longer than %u bytes",
                   FT_SCHED_MAX_LINE);
    if (memchr(line, 0, len))
        return bad(err, errlen, "a NUL byte in the line");
    const char *end = line + len;
    if (p->state == S_MAGIC)
        return magic(p, line, end, err, errlen);
    if (p->state == S_ENDED)
        return bad(err, errlen, "text after 'end'");
    if (len == 0 || line[0] == '#')
        return FT_SI_NONE;
    if (p->state == S_HEADER)
        return header(p, line, end, out, err, errlen);
    return step(p, line, end, out, err, errlen);
}

int ft_sched_parse_finish(ft_sched_parse *p, char *err, size_t errlen)
{
    if (p->state == S_MAGIC)
        return bad(err, errlen, "empty file: not a schedule file (expected "
                                "'%s %d')", FT_SCHED_MAGIC, FT_SCHED_VERSION);
    if (p->state != S_ENDED)
        return bad(err, errlen, p->state == S_STEPS
                                    ? "missing 'end' (truncated file?)"
                                    : "missing 'steps:' header");
    if (!p->have_kind)
        return bad(err, errlen, "missing 'kind:' header");
    return 0;
}

int ft_sched_parse_text(const char *text, size_t len, ft_sched_item_fn fn,
                        void *ctx, unsigned *line, char *err, size_t errlen)
{
    ft_sched_parse p;
    ft_sched_parse_init(&p, len);
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        ft_sched_line sl;
        int item = ft_sched_parse_line(&p, s, (size_t)(le - s), &sl, err,
                                       errlen);
        *line = p.line;
        if (item == FT_SI_ERROR ||
            (item != FT_SI_NONE && fn(ctx, item, &p, &sl, err, errlen)))
            return -1;
        s = nl ? nl + 1 : end;
    }
    *line = p.line + 1;
    return ft_sched_parse_finish(&p, err, errlen) < 0 ? -1 : 0;
}

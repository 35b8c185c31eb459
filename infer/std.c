/* SPDX-License-Identifier: MIT */
/* std.c - RAPID's "STD" text trace format, in and out, so that traces from
 * other recorders can be analyzed here and ours compared with RAPID's
 * checkers.  A line is "thread|op(decor)|loc", op one of r w acq rel fork
 * join begin end; we accept an optional fourth field "|value" on r and w
 * (our extension: the value read or written).  Names in decors become
 * objects: variables and locks get dense synthetic addresses, threads get
 * tids in order of first mention; the names are kept in the fi_trace so the
 * exporter writes them back.  A loc "file:line" becomes a site with that
 * file and line, a plain number a site with only a line.  Every error names
 * the file and line. */
#include "infer/internal.h"
#include "infer/u64map.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STD_MAX_LINE 65536
#define STD_VAR_BASE 0x100000000000ull
#define STD_LOCK_BASE 0x200000000000ull

typedef struct namespace_map {
    fi_u64map map; /* fi_str_id(name) -> dense id */
    char ns;
} namespace_map;

typedef struct importer {
    fi_trace *t;
    namespace_map vars, locks, threads;
    uint32_t nvars, nlocks, nthreads;
    uint8_t *started; /* per tid: THREAD_START emitted */
    uint32_t *parent;
    size_t capthreads;
} importer;

static int fail(ft_error *err, const char *name, uint64_t line,
                const char *fmt, const char *detail)
{
    if (err) {
        snprintf(err->path, sizeof err->path, "%s", name);
        err->offset = 0; /* the caller sets the line's byte offset */
        char msg[200];
        snprintf(msg, sizeof msg, fmt, detail ? detail : "");
        if (line)
            snprintf(err->message, sizeof err->message,
                     "line %" PRIu64 ": %s", line, msg);
        else
            snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return -1;
}

/* Dense id of name in ns; new names are recorded in the trace. */
static int64_t lookup(importer *im, namespace_map *m, uint32_t *count,
                      const char *name, uint64_t base)
{
    int added;
    uint32_t id = fi_u64map_intern(&m->map, fi_str_id(name), *count, &added);
    if (id == UINT32_MAX)
        return -1;
    if (added) {
        (*count)++;
        uint64_t key = m->ns == 'T' ? id : base + 8ull * id;
        if (fi_trace_name(im->t, m->ns, key, name) < 0)
            return -1;
    }
    return id;
}

static int thread_slot(importer *im, uint32_t tid)
{
    if (tid < im->capthreads)
        return 0;
    size_t cap = im->capthreads ? 2 * im->capthreads : 16;
    while (cap <= tid)
        cap *= 2;
    uint8_t *s = realloc(im->started, cap);
    if (!s)
        return -1;
    im->started = s;
    uint32_t *p = realloc(im->parent, cap * sizeof *p);
    if (!p)
        return -1;
    im->parent = p;
    for (size_t i = im->capthreads; i < cap; i++) {
        im->started[i] = 0;
        im->parent[i] = (uint32_t)i;
    }
    im->capthreads = cap;
    return 0;
}

/* The tid of a thread name, -1 out of memory, -2 one thread too many. */
static int64_t thread_of(importer *im, const char *name)
{
    if (im->nthreads == FT_TRACE_MAX_THREADS &&
        fi_u64map_get(&im->threads.map, fi_str_id(name)) == UINT32_MAX)
        return -2;
    int64_t tid = lookup(im, &im->threads, &im->nthreads, name, 0);
    if (tid < 0 || thread_slot(im, (uint32_t)tid) < 0)
        return -1;
    return tid;
}

static uint32_t site_of(fi_trace *t, const char *loc)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(loc, &end, 10);
    if (*loc && isdigit((unsigned char)*loc) && !*end && !errno &&
        v <= UINT32_MAX)
        return fi_trace_site(t, NULL, NULL, (uint32_t)v);
    const char *colon = strrchr(loc, ':');
    if (colon && colon[1]) {
        errno = 0;
        v = strtoul(colon + 1, &end, 10);
        if (!*end && !errno && v <= UINT32_MAX &&
            isdigit((unsigned char)colon[1])) {
            char file[STD_MAX_LINE];
            size_t n = (size_t)(colon - loc);
            memcpy(file, loc, n);
            file[n] = 0;
            return fi_trace_site(t, NULL, file, (uint32_t)v);
        }
    }
    return fi_trace_site(t, NULL, loc, 0);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static int parse_line(importer *im, char *line, const char *name,
                      uint64_t lineno, ft_error *err)
{
    char *field[5];
    int nf = 0;
    for (char *p = line;; p++) {
        if (nf == 5)
            return fail(err, name, lineno, "too many '|' fields%s", NULL);
        field[nf++] = p;
        p = strchr(p, '|');
        if (!p)
            break;
        *p = 0;
    }
    if (nf < 3)
        return fail(err, name, lineno,
                    "expected thread|op(decor)|loc, got \"%s\"", line);
    for (int i = 0; i < nf; i++)
        field[i] = trim(field[i]);
    if (!*field[0])
        return fail(err, name, lineno, "empty thread name%s", NULL);
    char *op = field[1], *decor = NULL;
    char *paren = strchr(op, '(');
    if (paren) {
        size_t n = strlen(paren);
        if (paren[n - 1] != ')')
            return fail(err, name, lineno, "unclosed '(' in \"%s\"", op);
        paren[n - 1] = 0;
        *paren = 0;
        decor = trim(paren + 1);
    }
    ft_event ev;
    memset(&ev, 0, sizeof ev);
    int needs_decor = 1, has_value = 0;
    if (!strcmp(op, "r"))
        ev.kind = FT_EV_READ, has_value = 1;
    else if (!strcmp(op, "w"))
        ev.kind = FT_EV_WRITE, has_value = 1;
    else if (!strcmp(op, "acq"))
        ev.kind = FT_EV_MUTEX_LOCK;
    else if (!strcmp(op, "rel"))
        ev.kind = FT_EV_MUTEX_UNLOCK;
    else if (!strcmp(op, "fork"))
        ev.kind = FT_EV_THREAD_CREATE;
    else if (!strcmp(op, "join"))
        ev.kind = FT_EV_THREAD_JOIN;
    else if (!strcmp(op, "begin"))
        ev.kind = FT_EV_REGION_BEGIN, needs_decor = 0;
    else if (!strcmp(op, "end"))
        ev.kind = FT_EV_REGION_END, needs_decor = 0;
    else
        return fail(err, name, lineno,
                    "unknown operation \"%s\" (expected r, w, acq, rel, "
                    "fork, join, begin or end)",
                    op);
    if (needs_decor && (!decor || !*decor))
        return fail(err, name, lineno, "operation \"%s\" needs a (decor)",
                    op);
    if (nf == 4 && !has_value)
        return fail(err, name, lineno,
                    "a value field is only allowed on r and w%s", NULL);
    if (nf == 4) {
        char *end;
        errno = 0;
        const char *v = field[3];
        if (*v == '-')
            ev.value = (uint64_t)strtoll(v, &end, 0);
        else
            ev.value = strtoull(v, &end, 0);
        if (!*v || *end || errno)
            return fail(err, name, lineno, "bad value \"%s\"", field[3]);
    }
    int64_t tid = thread_of(im, field[0]);
    if (tid == -2)
        return fail(err, name, lineno, "more than %s threads", FT_TID_LIMIT_TEXT);
    if (tid < 0)
        return fail(err, name, lineno, "out of memory%s", NULL);
    ev.tid = (uint32_t)tid;
    ev.site = site_of(im->t, field[2]);
    if (!ev.site)
        return fail(err, name, lineno, "out of memory%s", NULL);
    int64_t id;
    switch (ev.kind) {
    case FT_EV_READ:
    case FT_EV_WRITE:
        id = lookup(im, &im->vars, &im->nvars, decor, STD_VAR_BASE);
        ev.addr = STD_VAR_BASE + 8ull * (uint64_t)id;
        ev.size = 8;
        break;
    case FT_EV_MUTEX_LOCK:
    case FT_EV_MUTEX_UNLOCK:
        id = lookup(im, &im->locks, &im->nlocks, decor, STD_LOCK_BASE);
        ev.addr = STD_LOCK_BASE + 8ull * (uint64_t)id;
        break;
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN:
        id = thread_of(im, decor);
        if (id == -2)
            return fail(err, name, lineno, "more than %s threads", FT_TID_LIMIT_TEXT);
        if (id == tid)
            return fail(err, name, lineno, "thread %s forks or joins itself",
                        decor);
        ev.value = (uint64_t)id;
        if (id >= 0 && ev.kind == FT_EV_THREAD_CREATE &&
            !im->started[id])
            im->parent[id] = (uint32_t)tid;
        break;
    default:
        id = 0;
        break;
    }
    if (id < 0)
        return fail(err, name, lineno, "out of memory%s", NULL);
    if (!im->started[tid]) {
        /* Our format opens every thread with THREAD_START. */
        im->started[tid] = 1;
        ft_event st;
        memset(&st, 0, sizeof st);
        st.kind = FT_EV_THREAD_START;
        st.tid = ev.tid;
        st.value = im->parent[tid];
        if (fi_trace_add(im->t, &st) < 0)
            return fail(err, name, lineno, "out of memory%s", NULL);
    }
    if (fi_trace_add(im->t, &ev) < 0)
        return fail(err, name, lineno, "out of memory%s", NULL);
    return 0;
}

int fi_std_read(fi_trace *t, FILE *in, const char *name, ft_error *err)
{
    importer im;
    memset(&im, 0, sizeof im);
    im.t = t;
    im.vars.ns = 'V';
    im.locks.ns = 'L';
    im.threads.ns = 'T';
    char *buf = malloc(STD_MAX_LINE + 2);
    int rc = 0;
    if (!buf)
        return fail(err, name, 0, "out of memory%s", NULL);
    uint64_t lineno = 0, offset = 0, nevents = t->nev;
    size_t n;
    int got;
    while ((got = ft_getline(in, buf, STD_MAX_LINE + 2, &n)) != FT_LINE_EOF) {
        lineno++;
        uint64_t line_start = offset;
        offset += n + 1;
        if (got != FT_LINE_OK) {
            rc = fail(err, name, lineno,
                      got == FT_LINE_LONG  ? "line longer than %s bytes"
                      : got == FT_LINE_NUL ? "a NUL byte in the line%s"
                                           : "read error: %s",
                      got == FT_LINE_LONG  ? "65536"
                      : got == FT_LINE_NUL ? ""
                                           : strerror(errno));
            if (err)
                err->offset = line_start;
            break;
        }
        char *line = trim(buf);
        if (!*line || *line == '#')
            continue;
        if (parse_line(&im, line, name, lineno, err) < 0) {
            if (err)
                err->offset = line_start;
            rc = -1;
            break;
        }
    }
    /* An empty input is an error, as an empty binary trace is. */
    if (rc == 0 && t->nev == nevents)
        rc = fail(err, name, lineno,
                  "no events: an STD trace needs at least one "
                  "thread|op(decor)|loc line%s", NULL);
    free(buf);
    fi_u64map_free(&im.vars.map);
    fi_u64map_free(&im.locks.map);
    fi_u64map_free(&im.threads.map);
    free(im.started);
    free(im.parent);
    return rc;
}

int fi_std_read_path(fi_trace *t, const char *path, ft_error *err)
{
    FILE *f = ft_fopen_input(path, err);
    if (!f)
        return -1;
    int rc = fi_std_read(t, f, path, err);
    fclose(f);
    return rc;
}

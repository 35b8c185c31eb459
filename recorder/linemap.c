/* SPDX-License-Identifier: MIT */
/* linemap.c - the real source of a line whose file does not exist.  A
 * source with `#line N "file"` directives (generated code, or a program
 * whose text was rewritten before it was compiled) makes the line table
 * name that file and its lines; when the file is not there, a report that
 * names it points nowhere.  The compiler's real input is the compile
 * unit's own file: its directives are read back and the line is mapped to
 * the physical line that carries it.  Used by the symboliser (symbolize.c)
 * for every site, so all reports agree. */
#define _GNU_SOURCE
#include "recorder/reader_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One region of a source: from physical line `phys` on, lines are
 * presumed to be `decl`, `decl + 1`, ... of `file` (NULL: the source
 * itself), until the next region. */
typedef struct region {
    long phys, decl;
    char *file;
} region;

typedef struct ft_linedirs {
    char *path;
    region *r;
    size_t n;
} ft_linedirs;

/* `#line N "file"`, `#line N`, or the preprocessor's `# N "file" flags`:
 * 1 with *decl and file (malloc'd, or NULL when the directive names none). */
static int directive(const char *s, long *decl, char **file)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s++ != '#')
        return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "line", 4) == 0 && (s[4] == ' ' || s[4] == '\t'))
        s += 4;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    char *end;
    *decl = strtol(s, &end, 10);
    s = end;
    while (*s == ' ' || *s == '\t')
        s++;
    *file = NULL;
    if (*s == '"') {
        const char *q = strchr(s + 1, '"');
        if (!q)
            return 0;
        *file = strndup(s + 1, (size_t)(q - s - 1));
    }
    return 1;
}

static ft_linedirs *parse(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    ft_linedirs *d = calloc(1, sizeof *d);
    size_t cap = 0;
    char *line = NULL;
    size_t len = 0;
    long phys = 0;
    while (d && getline(&line, &len, f) > 0) {
        phys++;
        long decl;
        char *file;
        if (!directive(line, &decl, &file))
            continue;
        if (d->n == cap) {
            cap = cap ? 2 * cap : 16;
            region *r2 = realloc(d->r, cap * sizeof *r2);
            if (!r2) {
                free(file);
                break;
            }
            d->r = r2;
        }
        d->r[d->n++] = (region){phys + 1, decl, file};
    }
    free(line);
    fclose(f);
    if (d)
        d->path = strdup(path);
    return d;
}

static void dirs_free(ft_linedirs *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->r[i].file);
    free(d->r);
    free(d->path);
    free(d);
}

void ft_sources_free(ft_sources *srcs)
{
    for (size_t i = 0; i < FT_SOURCES_CACHED; i++) {
        dirs_free(srcs->cache[i]);
        srcs->cache[i] = NULL;
    }
}

static ft_linedirs *dirs_of(const char *path, ft_sources *srcs)
{
    for (size_t i = 0; i < FT_SOURCES_CACHED; i++)
        if (srcs->cache[i] && strcmp(srcs->cache[i]->path, path) == 0)
            return srcs->cache[i];
    ft_linedirs *d = parse(path);
    if (!d)
        return NULL;
    dirs_free(srcs->cache[FT_SOURCES_CACHED - 1]);
    memmove(&srcs->cache[1], &srcs->cache[0],
            (FT_SOURCES_CACHED - 1) * sizeof srcs->cache[0]);
    srcs->cache[0] = d;
    return d;
}

/* The same file: equal, or one is the other with more leading dirs. */
static int same_file(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la < lb) {
        const char *t = a;
        a = b, b = t;
        size_t tl = la;
        la = lb, lb = tl;
    }
    return strcmp(a + la - lb, b) == 0 && (la == lb || a[la - lb - 1] == '/');
}

static int exists(const char *file, const char *cu)
{
    if (access(file, F_OK) == 0)
        return 1;
    if (file[0] == '/' || !cu)
        return 0;
    const char *slash = strrchr(cu, '/');
    char path[4096];
    if (!slash || (size_t)snprintf(path, sizeof path, "%.*s/%s",
                                   (int)(slash - cu), cu, file) >= sizeof path)
        return 0;
    return access(path, F_OK) == 0;
}

const char *ft_real_source(const char *cu, const char *file, int *line,
                           char *buf, size_t len, ft_sources *srcs)
{
    if (!file || !cu || *line <= 0 || exists(file, cu) ||
        access(cu, R_OK) != 0)
        return file;
    ft_linedirs *d = dirs_of(cu, srcs);
    if (!d)
        return file;
    /* Walk the regions, keeping the presumed file (a directive without a
     * name keeps the one before). */
    const char *presumed = cu;
    for (size_t i = 0; i < d->n; i++) {
        if (d->r[i].file)
            presumed = d->r[i].file;
        long end = i + 1 < d->n ? d->r[i + 1].phys - 1 : -1;
        long phys = d->r[i].phys + (*line - d->r[i].decl);
        if (same_file(presumed, file) && *line >= d->r[i].decl &&
            (end < 0 || phys < end)) {
            snprintf(buf, len, "%s", cu);
            *line = (int)phys;
            return buf;
        }
    }
    return file;
}

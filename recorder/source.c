/* SPDX-License-Identifier: MIT */
/* source.c - source lines by file and line number, for the symboliser
 * (which records the line of every site in the trace's SOURCE chunk
 * while the sources are at hand) and for findings of traces that lack
 * them.  A few files are kept in memory, each read once. */
#include "recorder/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Source files read for their lines, a few at a time: findings name few
 * files, and a file is read once for all of them. */
#define SRC_FILES 16
#define SRC_MAX_BYTES (64u << 20)
#define SRC_MAX_LINE 4096

typedef struct src_file {
    char *path;
    char *text;       /* NULL: not readable */
    uint32_t *line;   /* offsets of line starts, line[0] = line 1 */
    uint32_t nlines;
    unsigned used;    /* clock for eviction */
} src_file;

struct ft_source_cache {
    src_file f[SRC_FILES];
    unsigned clock;
};

ft_source_cache *ft_source_cache_new(void)
{
    return calloc(1, sizeof(ft_source_cache));
}

static void src_clear(src_file *f)
{
    free(f->path);
    free(f->text);
    free(f->line);
    memset(f, 0, sizeof *f);
}

void ft_source_cache_free(ft_source_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < SRC_FILES; i++)
        src_clear(&c->f[i]);
    free(c);
}

static void src_load(src_file *f)
{
    FILE *in = fopen(f->path, "rb");
    struct stat st;
    if (!in)
        return;
    if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size > (off_t)SRC_MAX_BYTES) {
        fclose(in);
        return;
    }
    size_t n = (size_t)st.st_size;
    char *text = malloc(n + 1);
    size_t got = text ? fread(text, 1, n, in) : 0;
    fclose(in);
    if (!text || got != n) {
        free(text);
        return;
    }
    text[n] = 0;
    uint32_t cap = 64, nl = 0;
    uint32_t *line = malloc(cap * sizeof *line);
    for (size_t i = 0; line && i <= n; i++) {
        if (i != 0 && text[i - 1] != '\n')
            continue;
        if (i == n)
            break;
        if (nl == cap) {
            uint32_t *l2 = realloc(line, 2 * cap * sizeof *line);
            if (!l2) {
                free(line);
                line = NULL;
                break;
            }
            line = l2;
            cap *= 2;
        }
        line[nl++] = (uint32_t)i;
    }
    if (!line) {
        free(text);
        return;
    }
    f->text = text;
    f->line = line;
    f->nlines = nl;
}

int ft_source_line(ft_source_cache *c, const char *path, uint32_t line,
                   char *buf, size_t len)
{
    if (!c || !path || !path[0] || line == 0 || len == 0)
        return 0;
    src_file *f = NULL, *victim = &c->f[0];
    for (int i = 0; i < SRC_FILES; i++) {
        if (c->f[i].path && strcmp(c->f[i].path, path) == 0) {
            f = &c->f[i];
            break;
        }
        if (!c->f[i].path || c->f[i].used < victim->used)
            victim = &c->f[i];
    }
    if (!f) {
        src_clear(victim);
        victim->path = strdup(path);
        if (!victim->path)
            return 0;
        src_load(victim);
        f = victim;
    }
    f->used = ++c->clock;
    if (!f->text || line > f->nlines)
        return 0;
    const char *s = f->text + f->line[line - 1];
    size_t n = strcspn(s, "\r\n");
    if (n > SRC_MAX_LINE)
        n = SRC_MAX_LINE;
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return 1;
}

/* SPDX-License-Identifier: MIT */
/* spec.c - the spec file naming functions whose bodies the user states are
 * atomic: one function name per line, '#' starts a comment, surrounding
 * blanks and blank lines are ignored.  Names must be C identifiers (with
 * "::" and '.' allowed for C++ and Java symbol names); anything else is an
 * error naming the line, because a typo would silently state nothing. */
#include "infer/infer.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_MAX_LINE 4096
#define SPEC_MAX_NAMES 100000

static int spec_fail(ft_error *err, const char *path, unsigned long line,
                     uint64_t offset, const char *what)
{
    if (err) {
        snprintf(err->path, sizeof err->path, "%s", path);
        err->offset = offset;
        snprintf(err->message, sizeof err->message, "line %lu: %s", line,
                 what);
    }
    return -1;
}

void fi_spec_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int fi_spec_read_file(FILE *f, const char *path, char ***names_out,
                      size_t *n_out, ft_error *err)
{
    *names_out = NULL;
    *n_out = 0;
    char buf[SPEC_MAX_LINE + 2];
    char **names = NULL;
    size_t n = 0, cap = 0, len;
    unsigned long lineno = 0;
    uint64_t offset = 0;
    int rc = 0, got;
    while ((got = ft_getline(f, buf, sizeof buf, &len)) != FT_LINE_EOF) {
        lineno++;
        uint64_t start = offset;
        offset += len + 1;
        if (got != FT_LINE_OK) {
            rc = spec_fail(err, path, lineno, start,
                           got == FT_LINE_LONG  ? "line too long"
                           : got == FT_LINE_NUL ? "a NUL byte in the line"
                                                : strerror(errno));
            break;
        }
        if (len > SPEC_MAX_LINE) {
            rc = spec_fail(err, path, lineno, start, "line too long");
            break;
        }
        char *s = ft_line_content(buf);
        if (!*s)
            continue;
        int ok = isalpha((unsigned char)*s) || *s == '_';
        for (char *p = s; ok && *p; p++)
            ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.' ||
                 *p == ':' || *p == '$';
        if (!ok) {
            rc = spec_fail(err, path, lineno, start,
                           "expected one function name per line");
            break;
        }
        if (n == SPEC_MAX_NAMES) {
            rc = spec_fail(err, path, lineno, start, "too many names");
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = spec_fail(err, path, lineno, start, "out of memory");
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(s))) {
            rc = spec_fail(err, path, lineno, start, "out of memory");
            break;
        }
        n++;
    }
    if (rc < 0) {
        fi_spec_free(names, n);
        return -1;
    }
    *names_out = names;
    *n_out = n;
    return 0;
}

int fi_spec_read(const char *path, char ***names_out, size_t *n_out,
                 ft_error *err)
{
    *names_out = NULL;
    *n_out = 0;
    FILE *f = ft_fopen_input(path, err);
    if (!f)
        return -1;
    int rc = fi_spec_read_file(f, path, names_out, n_out, err);
    fclose(f);
    return rc;
}

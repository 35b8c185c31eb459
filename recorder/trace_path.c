/* SPDX-License-Identifier: MIT */
/* trace_path.c - FORETELL_TRACE patterns, so that a whole test suite run
 * under the runtime writes one trace per process instead of every
 * process overwriting one file: %p the process id, %e the program's
 * basename, %n a number that makes the path new (the runtime tries 0, 1,
 * ... and claims the first path that does not exist, atomically), %% a
 * '%'.  Compiled into the runtime too (no allocation), and used by the
 * commands that set FORETELL_TRACE to a path of their own, which must
 * escape it. */
#include "recorder/trace.h"

#include <stdio.h>
#include <string.h>

int ft_trace_path_expand(const char *pattern, unsigned long pid,
                         const char *exe, unsigned long n, char *out,
                         size_t len, int *uses_n)
{
    size_t k = 0;
    int bad = 0;
    if (uses_n)
        *uses_n = 0;
    if (len == 0)
        return -1;
    for (const char *p = pattern; *p; p++) {
        char num[24];
        const char *put = NULL;
        size_t plen = 1;
        if (*p != '%' || !p[1] || !strchr("pen%", p[1])) {
            bad |= *p == '%';
            put = p; /* literally, an unknown %x included */
        } else {
            p++;
            if (*p == 'p')
                snprintf(num, sizeof num, "%lu", pid), put = num;
            else if (*p == 'n') {
                snprintf(num, sizeof num, "%lu", n), put = num;
                if (uses_n)
                    *uses_n = 1;
            } else if (*p == 'e')
                put = exe && *exe ? exe : "prog";
            else
                put = "%";
            plen = put == p ? 1 : strlen(put);
        }
        if (k + plen >= len)
            return -1;
        memcpy(out + k, put, plen);
        k += plen;
    }
    out[k] = 0;
    return bad;
}

int ft_trace_path_escape(const char *path, char *out, size_t len)
{
    size_t k = 0;
    for (const char *p = path; *p; p++) {
        size_t need = *p == '%' ? 2 : 1;
        if (k + need >= len)
            return -1;
        out[k++] = *p;
        if (*p == '%')
            out[k++] = '%';
    }
    if (k >= len)
        return -1;
    out[k] = 0;
    return 0;
}

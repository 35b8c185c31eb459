/* SPDX-License-Identifier: MIT */
/* replay_same.c - test helper: do two traces hold the same run?  Walks
 * both event streams in step and compares thread, kind, site (file:line,
 * not the id) and, where both events touch the same address, every value
 * field.  Stack addresses may differ between a recording and its replay
 * (the environment differs in size), so a differing address skips the
 * value comparison of that event only, and a value that is itself an
 * address on the main thread's stack (ASLR off: just below 2^47) is not
 * compared either.  Thread stacks and the heap are mmap'd identically.  Prints the first difference;
 * exit 0 same, 1 different, 2 unreadable. */
#include "recorder/trace.h"

#include <stdio.h>
#include <string.h>

static int main_stack(uint64_t v)
{
    return v >= 0x7ffffff00000ull && v < 0x800000000000ull;
}

static int same_value(uint64_t a, uint64_t b)
{
    return a == b || (main_stack(a) && main_stack(b));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: replay_same TRACE_A TRACE_B\n");
        return 2;
    }
    ft_error err;
    ft_reader *a = ft_reader_open(argv[1], &err);
    if (!a) {
        fprintf(stderr, "%s: %s\n", err.path, err.message);
        return 2;
    }
    ft_reader *b = ft_reader_open(argv[2], &err);
    if (!b) {
        fprintf(stderr, "%s: %s\n", err.path, err.message);
        return 2;
    }
    ft_event x, y;
    uint64_t n = 0, compared_values = 0;
    int rc = 0;
    for (;; n++) {
        int ga = ft_reader_next(a, &x), gb = ft_reader_next(b, &y);
        if (ga <= 0 || gb <= 0) {
            if (ga != gb) {
                printf("event %llu: %s ends here, %s goes on\n",
                       (unsigned long long)n, ga <= 0 ? argv[1] : argv[2],
                       ga <= 0 ? argv[2] : argv[1]);
                rc = 1;
            }
            break;
        }
        char sa[256], sb[256];
        ft_site_format(a, x.site, sa, sizeof sa);
        ft_site_format(b, y.site, sb, sizeof sb);
        /* A deadlock report belongs to the process, not to the thread
         * that happened to block last. */
        int report = x.kind == FT_EV_DEADLOCK || x.kind == FT_EV_BLOCKED;
        int same = (x.tid == y.tid || report) && x.kind == y.kind &&
                   !strcmp(sa, sb);
        if (same && x.addr == y.addr) {
            same = same_value(x.value, y.value) &&
                   same_value(x.value2, y.value2) &&
                   same_value(x.value3, y.value3) && x.arg == y.arg &&
                   x.rc == y.rc &&
                   x.size == y.size;
            compared_values++;
        }
        if (!same) {
            printf("event %llu differs:\n  %s: t%u %s %s value=%#llx\n"
                   "  %s: t%u %s %s value=%#llx\n",
                   (unsigned long long)n, argv[1], x.tid, ft_kind_name(x.kind),
                   sa, (unsigned long long)x.value, argv[2], y.tid,
                   ft_kind_name(y.kind), sb, (unsigned long long)y.value);
            rc = 1;
            break;
        }
    }
    if (rc == 0)
        printf("same: %llu events (%llu with values compared)\n",
               (unsigned long long)n, (unsigned long long)compared_values);
    ft_reader_close(a);
    ft_reader_close(b);
    return rc;
}

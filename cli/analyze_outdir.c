/* SPDX-License-Identifier: MIT */
/* analyze_outdir.c - `analyze -o DIR`: the directory is checked before
 * the trace is loaded (seconds on a long one: a missing parent said so
 * only after them) and made, or found writable, before the first
 * schedule is written.  Moved out of cmd_analyze.c, which parses the
 * options and runs the stages. */
#include "cli/analyze_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The output directory must exist (or be creatable) and be writable
 * before minutes of solving, not after. */
int analyze_out_dir_make(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr,
                "%s: error: cannot create the output directory: "
                "%s\n",
                dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: the output path is not a directory\n", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr,
                "%s: error: the output directory is not writable: "
                "%s\n",
                dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Before loading (seconds on a long trace): where the output directory
 * will be made must exist and be writable, or the directory is there
 * and writable; nothing is created yet, so a trace that fails to load
 * leaves no empty directory behind.  analyze_out_dir_make makes it
 * later. */
int analyze_out_dir_check(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return analyze_out_dir_make(dir); /* there: it says what is wrong */
    char parent[4096];
    size_t n = strlen(dir);
    if (n >= sizeof parent)
        n = sizeof parent - 1;
    memcpy(parent, dir, n);
    parent[n] = 0;
    while (n > 1 && parent[n - 1] == '/')
        parent[--n] = 0; /* "out/" names out */
    char *slash = strrchr(parent, '/');
    const char *up = !slash ? "." : slash == parent ? "/" : parent;
    if (slash && slash != parent)
        *slash = 0;
    if (stat(up, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "%s: error: cannot create the output directory: "
                "%s is not a directory that exists\n",
                dir, up);
        return -1;
    }
    if (access(up, W_OK | X_OK) != 0) {
        fprintf(stderr,
                "%s: error: cannot create the output directory: "
                "%s is not writable: %s\n",
                dir, up, strerror(errno));
        return -1;
    }
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* child_env.c - the environment of a program the replay harness runs,
 * built before the fork, and the fork itself: the child then makes only
 * system calls until its exec.  fork() runs the process's atfork
 * handlers first, and Z3's (its scoped_timer's finalize) waits for every
 * solver check with a timeout in the other threads to end: with a
 * solving thread still checking past --time (solve_job.c abandons it),
 * `analyze --confirm` sat in fork() for minutes, printing nothing
 * (SV-COMP 42_FreeBSD_rdma_addr_sliced: killed at 180 s of --time 60 in
 * 2 of 15 runs).  So the harness forks with _Fork, which runs no
 * handlers; its child may not call malloc (setenv did), hence this. */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int fr_child_env_init(fr_child_env *e)
{
    memset(e, 0, sizeof *e);
    size_t n = 0;
    while (environ && environ[n])
        n++;
    e->cap = n + 16;
    e->envp = calloc(e->cap + 1, sizeof *e->envp);
    e->owned = calloc(e->cap + 1, 1);
    if (!e->envp || !e->owned) {
        fr_child_env_free(e);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        e->envp[i] = environ[i]; /* the child's copy of memory has them */
    e->n = n;
    return 0;
}

/* The slot of the name name[0..len) in e, or e->n. */
static size_t slot(const fr_child_env *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->envp[i], name, len) && e->envp[i][len] == '=')
            return i;
    return e->n;
}

/* entry ("NAME=value", its name entry[0..len)) in NAME's place. */
static int put(fr_child_env *e, char *entry, size_t len, int owned)
{
    size_t i = slot(e, entry, len);
    if (i == e->n) {
        if (e->n == e->cap) {
            size_t cap = e->cap * 2 + 8;
            char **p = realloc(e->envp, (cap + 1) * sizeof *p);
            if (!p)
                return -1;
            e->envp = p;
            unsigned char *o = realloc(e->owned, cap + 1);
            if (!o)
                return -1;
            e->owned = o;
            e->cap = cap;
        }
        e->n++;
    } else if (e->owned[i]) {
        free(e->envp[i]);
    }
    e->envp[i] = entry;
    e->owned[i] = (unsigned char)owned;
    e->envp[e->n] = NULL;
    return 0;
}

int fr_child_env_set(fr_child_env *e, const char *name, const char *value)
{
    size_t len = strlen(name) + 1 + strlen(value) + 1;
    char *entry = malloc(len);
    if (!entry)
        return -1;
    snprintf(entry, len, "%s=%s", name, value);
    if (put(e, entry, strlen(name), 1) < 0) {
        free(entry);
        return -1;
    }
    return 0;
}

int fr_child_env_put(fr_child_env *e, char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? put(e, entry, (size_t)(eq - entry), 0) : -1;
}

void fr_child_env_unset(fr_child_env *e, const char *name)
{
    size_t i = slot(e, name, strlen(name));
    if (i == e->n)
        return;
    if (e->owned[i])
        free(e->envp[i]);
    memmove(e->envp + i, e->envp + i + 1, (e->n - i) * sizeof *e->envp);
    memmove(e->owned + i, e->owned + i + 1, e->n - i);
    e->n--;
    e->envp[e->n] = NULL;
}

void fr_child_env_free(fr_child_env *e)
{
    for (size_t i = 0; e->envp && e->owned && i < e->n; i++)
        if (e->owned[i])
            free(e->envp[i]);
    free(e->envp);
    free(e->owned);
    memset(e, 0, sizeof *e);
}

pid_t fr_fork_quiet(void)
{
#if defined(__GLIBC__) &&                                                      \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return _Fork();
#else
    return fork();
#endif
}

/* SPDX-License-Identifier: MIT */
/* kill_at.c - fault injection for the store's crash test: preloaded
 * into `foretell batch analyze`, it counts SQLite's writes and syncs
 * (pwrite64, fdatasync, fsync) and kills the process with SIGKILL at the
 * Nth one (FT_KILL_AT=N): before it when N is even, just after it when
 * N is odd, so that kills land at every point of a transaction, journal
 * and database writes included.  The batch's children never write to
 * the store, so the count is the parent's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static long count, at = -1;

static void tick(int after)
{
    if (at < 0) {
        const char *s = getenv("FT_KILL_AT");
        at = s ? atol(s) : 0;
    }
    if (at > 0 && count == at && (at % 2 == 1) == after)
        kill(getpid(), SIGKILL);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(
            RTLD_NEXT, "pwrite64");
    count++;
    tick(0);
    ssize_t r = real(fd, buf, n, off);
    tick(1);
    return r;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    count++;
    tick(0);
    int r = real(fd);
    tick(1);
    return r;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    count++;
    tick(0);
    int r = real(fd);
    tick(1);
    return r;
}

/* SPDX-License-Identifier: MIT */
/* input_file.c - opening a file foretell reads (trace, STD text, spec,
 * schedule) without ever blocking on it.  open(2) of a FIFO for reading
 * waits for a writer, and reading a character device may never end, so a
 * schedule or trace received from someone else could hang `replay` or
 * `analyze` forever.  The file is opened with O_NONBLOCK (which returns at
 * once for a FIFO), checked with fstat to be a regular file, and only then
 * switched back to blocking reads.  Compiled into the runtime too
 * (recorder/rt reads FORETELL_SCHEDULE with it): no allocation here. */
#define _GNU_SOURCE
#include "recorder/trace.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *not_regular(mode_t m)
{
    if (S_ISDIR(m))
        return "is a directory";
    if (S_ISFIFO(m))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISSOCK(m))
        return "is a socket, not a regular file";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "is a device, not a regular file";
    return "is not a regular file";
}

static int fail(int fd, const char *what, int e, char *why, size_t len)
{
    if (why && len)
        snprintf(why, len, "%s", what);
    if (fd >= 0)
        close(fd);
    errno = e;
    return -1;
}

int ft_open_regular(const char *path, uint64_t *size, char *why, size_t len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(-1, strerror(errno), errno, why, len);
    struct stat st;
    if (fstat(fd, &st) < 0)
        return fail(fd, strerror(errno), errno, why, len);
    if (!S_ISREG(st.st_mode))
        return fail(fd, not_regular(st.st_mode),
                    S_ISDIR(st.st_mode) ? EISDIR : EINVAL, why, len);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
        return fail(fd, strerror(errno), errno, why, len);
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
}

FILE *ft_fopen_input(const char *path, ft_error *err)
{
    char why[128];
    FILE *f = ft_fopen_regular(path, why, sizeof why);
    if (!f && err) {
        snprintf(err->path, sizeof err->path, "%s", path);
        err->offset = 0;
        snprintf(err->message, sizeof err->message, "cannot open: %s", why);
    }
    return f;
}

FILE *ft_fopen_regular(const char *path, char *why, size_t len)
{
    int fd = ft_open_regular(path, NULL, why, len);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int e = errno;
        close(fd);
        if (why && len)
            snprintf(why, len, "%s", strerror(e));
        errno = e;
    }
    return f;
}

int ft_getline(FILE *f, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    int c, nul = 0;
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n + 1 >= cap) {
            *len = n;
            buf[n] = 0;
            return FT_LINE_LONG;
        }
        nul |= c == 0;
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    *len = n;
    if (c == EOF && n == 0)
        return ferror(f) ? FT_LINE_ERROR : FT_LINE_EOF;
    return nul ? FT_LINE_NUL : FT_LINE_OK;
}

char *ft_line_content(char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    while (isspace((unsigned char)*line))
        line++;
    char *e = line + strlen(line);
    while (e > line && isspace((unsigned char)e[-1]))
        *--e = 0;
    return line;
}

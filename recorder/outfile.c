/* SPDX-License-Identifier: MIT */
/* outfile.c - files the user names as outputs (a trace, a schedule, a
 * directory of saved bugs).  What was at the path stays there, whole,
 * until the new content is complete: it is written to a temporary file
 * beside the path (same directory, so the same file system) and renamed
 * into place at the end; on any failure the temporary file is removed and
 * the old file is untouched.  Paths that are not regular files (/dev/null,
 * a FIFO, a directory) are refused before any work, with a message, and
 * an existing file that is not a foretell trace is never replaced by one
 * (`record -o prog -- prog` must not turn the program into a trace).
 * ft_file_move copies when rename(2) cannot cross file systems. */
#define _GNU_SOURCE
#include "recorder/encode.h"
#include "recorder/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *type_name(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* The directory part of path ("." for a bare name), into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* A foretell trace starts with its HEADER chunk's frame: fixarray(4),
 * kind 1, then the uint64 marker of the sequence number. */
static int looks_like_trace(const char *path)
{
    unsigned char b[3];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, b, sizeof b);
    close(fd);
    return n == 3 && b[0] == 0x94 && b[1] == FT_CHUNK_HEADER && b[2] == 0xcf;
}

int ft_out_check(const char *path, unsigned flags, char *real, size_t reallen,
                 char *msg, size_t msglen)
{
    struct stat st;
    if (snprintf(real, reallen, "%s", path) >= (int)reallen) {
        snprintf(msg, msglen, "%s: the path is too long", path);
        return -1;
    }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* Replace the file the link names, not the link. */
        char *r = realpath(path, NULL);
        if (r && strlen(r) < reallen)
            snprintf(real, reallen, "%s", r);
        free(r);
    }
    if (stat(real, &st) == 0) {
        if ((flags & FT_OUT_DIR) && S_ISDIR(st.st_mode)) {
            if (access(real, W_OK | X_OK) != 0) {
                snprintf(msg, msglen, "%s: cannot write in this directory: "
                         "%s", path, strerror(errno));
                return -1;
            }
            return 0;
        }
        if (flags & FT_OUT_DIR) {
            snprintf(msg, msglen, "%s: is %s, not a directory", path,
                     S_ISREG(st.st_mode) ? "a file" : type_name(st.st_mode));
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(msg, msglen, "%s: is %s: foretell writes its outputs to "
                     "regular files only (it reads them back, and replaces "
                     "them only once they are complete)", path,
                     type_name(st.st_mode));
            return -1;
        }
        if ((flags & FT_OUT_TRACE) && st.st_size > 0 &&
            !looks_like_trace(real)) {
            snprintf(msg, msglen, "%s: exists and is not a foretell trace; "
                     "not replacing it (remove it or choose another output)",
                     path);
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* The new file is created beside the path: its directory must take
     * it (for a directory output, it is created there). */
    char dir[4096];
    dir_of(real, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, msglen, "%s: cannot write: %s", path,
                 stat(dir, &st) != 0 ? "no such directory" : "not a directory");
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(msg, msglen, "%s: cannot write in %s: %s", path, dir,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int ft_out_temp(const char *path, char *tmp, size_t len)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    /* Not mkstemp: its 0600 would need umask(2), which is process-wide,
     * to become what creat(2) gives (0666 less the umask). */
    static unsigned counter;
    struct stat st;
    int had = stat(path, &st) == 0;
    for (int tries = 0; tries < 100; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long r = ((unsigned long)ts.tv_nsec * 2654435761u) ^
                          ((unsigned long)getpid() << 16) ^ counter++;
        if (snprintf(tmp, len, "%s/.%.200s.%06lx", dir, base,
                     r & 0xffffff) >= (int)len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            if (had) /* the replaced file's mode */
                (void)!fchmod(fd, st.st_mode & 07777);
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int ft_out_commit(const char *tmp, const char *path)
{
    if (rename(tmp, path) == 0)
        return 0;
    int e = errno;
    unlink(tmp);
    errno = e;
    return -1;
}

FILE *ft_out_fopen(const char *path, char *tmp, size_t len)
{
    int fd = ft_out_temp(path, tmp, len);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
    }
    return f;
}

int ft_out_fclose(FILE *f, const char *tmp, const char *path)
{
    int e = 0;
    if (fflush(f) != 0 || ferror(f))
        e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (e) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    return ft_out_commit(tmp, path);
}

/* Copies from into a new file beside to, then renames it into place. */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    char tmp[4200];
    int out = ft_out_temp(to, tmp, sizeof tmp);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return -1;
    }
    static char buf[1 << 16];
    ssize_t n;
    int e = 0;
    while ((n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        int w = ft_write_all(out, buf, (size_t)n);
        if (w < 0) {
            e = -w;
            break;
        }
    }
    close(in);
    if (close(out) != 0 && !e)
        e = errno;
    if (e) {
        unlink(tmp);
        errno = e;
        return -1;
    }
    return ft_out_commit(tmp, to);
}

int ft_file_move(const char *from, const char *to)
{
    if (rename(from, to) == 0)
        return 0;
    if (errno != EXDEV)
        return -1;
    if (copy_file(from, to) < 0)
        return -1;
    unlink(from);
    return 0;
}

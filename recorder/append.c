/* SPDX-License-Identifier: MIT */
/* append.c - adding chunks to a finished trace: `foretell record` appends
 * END with the status it observed, `foretell symbolize` appends SYMBOLS.
 * Bytes already written are never rewritten (a trace is evidence), and a
 * trace whose tail is damaged is refused: a chunk after garbage would be
 * unreachable for every reader.  When a write fails (a full disk) the
 * file is cut back to its length at open: an append happens whole or not
 * at all, and the trace stays as it was. */
#include "recorder/reader_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(ft_error *err, const char *path, uint64_t off, const char *msg)
{
    if (err) {
        snprintf(err->path, sizeof err->path, "%s", path);
        err->offset = off;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return -1;
}

/* The OS refused a write: -2. */
static int fail_io(ft_error *err, const char *path, uint64_t off, int e)
{
    char msg[200];
    snprintf(msg, sizeof msg, "cannot append: %s", strerror(e));
    fail(err, path, off, msg);
    return -2;
}

int ft_appender_open(ft_appender *a, const char *path, ft_error *err)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    ft_reader *r = ft_reader_open(path, err);
    if (!r)
        return -1;
    int rc = ft_appender_open_reader(a, r, path, err);
    ft_reader_close(r);
    return rc;
}

int ft_appender_open_reader(ft_appender *a, const ft_reader *r,
                            const char *path, ft_error *err)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    uint64_t valid_end = r->valid_end, size = r->size;
    a->seq = r->next_seq;
    if (valid_end != size) {
        char msg[200];
        snprintf(msg, sizeof msg, "cannot append to a trace with a damaged "
                 "tail (intact chunks end at byte %llu of %llu)",
                 (unsigned long long)valid_end, (unsigned long long)size);
        return fail(err, path, valid_end, msg);
    }
    a->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (a->fd < 0)
        return fail_io(err, path, size, errno);
    struct stat st;
    if (fstat(a->fd, &st) < 0 || (uint64_t)st.st_size != size) {
        close(a->fd);
        a->fd = -1;
        return fail(err, path, size, "cannot append: the file changed "
                    "meanwhile");
    }
    a->start = size;
    a->buf = malloc(FT_APPEND_CHUNK);
    if (!a->buf) {
        close(a->fd);
        a->fd = -1;
        return fail(err, path, 0, "out of memory");
    }
    ft_chunk_open(&a->chunk, a->buf, FT_APPEND_CHUNK);
    return 0;
}

static void flush(ft_appender *a)
{
    if (!a->kind || a->chunk.pos == a->buf + FT_CHUNK_HEAD)
        return;
    size_t n = ft_chunk_seal(&a->chunk, a->kind, a->seq++);
    int rc = a->failed ? 0 : ft_write_all(a->fd, a->buf, n);
    if (rc < 0) {
        a->failed = -rc;
        /* A chunk cut short would hide every later one; the chunks
         * before it go too: an append happens whole or not at all. */
        (void)!ftruncate(a->fd, (off_t)a->start);
    }
    ft_chunk_open(&a->chunk, a->buf, FT_APPEND_CHUNK);
}

uint8_t *ft_appender_reserve(ft_appender *a, unsigned kind, size_t need)
{
    if (need > FT_APPEND_CHUNK - FT_CHUNK_HEAD - FT_CHUNK_TAIL)
        return NULL;
    if (kind != a->kind || (size_t)(a->chunk.limit - a->chunk.pos) < need) {
        flush(a);
        a->kind = kind;
    }
    return a->chunk.pos;
}

void ft_appender_commit(ft_appender *a, uint8_t *end)
{
    a->chunk.pos = end;
}

int ft_appender_close(ft_appender *a, const char *path, ft_error *err)
{
    int rc = 0;
    if (a->fd >= 0) {
        /* No fsync: the runtime's chunks are not synced either, and a
         * sync here wrote back the whole trace (90 ms for 200 MB). */
        flush(a);
        if (close(a->fd) < 0 && !a->failed) {
            a->failed = errno;
            (void)!truncate(path, (off_t)a->start);
        }
        if (a->failed)
            rc = fail_io(err, path, a->start, a->failed);
    }
    free(a->buf);
    a->buf = NULL;
    a->fd = -1;
    return rc;
}

static uint8_t *put_cstr(uint8_t *p, const char *s)
{
    return ft_put_str(p, s, (uint32_t)strlen(s));
}

void ft_appender_put_end(ft_appender *a, const ft_end *end, uint64_t threads)
{
    const char *reason = end->reason ? end->reason : "exit";
    if (strlen(reason) > 200)
        reason = "?";
    uint8_t *p = ft_appender_reserve(a, FT_CHUNK_END, 300);
    p = ft_put_map(p, 4);
    p = put_cstr(p, "events");
    p = ft_put_uint(p, end->events);
    p = put_cstr(p, "reason");
    p = put_cstr(p, reason);
    p = put_cstr(p, "exit_status");
    p = ft_put_int(p, end->exit_status);
    p = put_cstr(p, "threads");
    p = ft_put_uint(p, threads);
    ft_appender_commit(a, p);
}

int ft_trace_append_end(const char *path, const ft_end *end, uint64_t threads,
                        ft_error *err)
{
    ft_appender a;
    int rc = ft_appender_open(&a, path, err);
    if (rc < 0)
        return rc;
    ft_appender_put_end(&a, end, threads);
    return ft_appender_close(&a, path, err);
}

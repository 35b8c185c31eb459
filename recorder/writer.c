/* SPDX-License-Identifier: MIT */
/* writer.c - writes a trace from decoded events: used by generators,
 * importers and tests.  (The runtime encodes straight into its buffer with
 * encode.h; both produce the format of docs/trace-format.md.) */
#include "recorder/encode.h"
#include "recorder/trace.h"
#include "recorder/zchunk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define WRITER_CHUNK (1u << 20)

typedef struct sym_entry {
    uint32_t site;
    char *function, *file, *text, *insn;
    uint32_t line, column;
} sym_entry;

struct ft_writer {
    int fd;
    char path[256];
    uint64_t seq;
    uint8_t *buf;    /* events chunk under construction */
    ft_chunk chunk;
    ft_addr_regs addr_regs;
    uint64_t nevents, chunk_first;
    uint32_t tid, chunk_tid;
    int have_events;
    uint8_t *sitebuf; /* pending SITES chunk */
    ft_chunk sites;
    sym_entry *syms;
    size_t nsyms, capsyms;
    int failed;
    ZSTD_CCtx *zctx; /* NULL: chunks are written plain */
    uint8_t *zbuf;   /* a compressed chunk, FT_ZCHUNK_BOUND(WRITER_CHUNK) */
};

static void set_err(ft_error *err, const char *path, const char *msg, int e)
{
    if (!err)
        return;
    snprintf(err->path, sizeof err->path, "%s", path);
    err->offset = 0;
    snprintf(err->message, sizeof err->message, "%s: %s", msg, strerror(e));
}

static int emit(ft_writer *w, ft_chunk *c, unsigned kind)
{
    size_t n = 0;
    const uint8_t *out = w->zbuf;
    if (w->zctx && kind != FT_CHUNK_HEADER)
        n = ft_zchunk_seal(c, kind, w->seq, w->zctx, w->zbuf,
                           FT_ZCHUNK_BOUND(WRITER_CHUNK));
    if (n == 0) {
        n = ft_chunk_seal(c, kind, w->seq);
        out = c->buf;
    }
    w->seq++;
    if (ft_write_all(w->fd, out, n) < 0)
        w->failed = 1;
    return w->failed ? -1 : 0;
}

static uint8_t *put_cstr(uint8_t *p, const char *s)
{
    return s ? ft_put_str(p, s, (uint32_t)strlen(s)) : ft_put_nil(p);
}

static int flush_sites(ft_writer *w)
{
    if (w->sites.pos == w->sitebuf + FT_CHUNK_HEAD)
        return 0;
    int rc = emit(w, &w->sites, FT_CHUNK_SITES);
    ft_chunk_open(&w->sites, w->sitebuf, WRITER_CHUNK);
    return rc;
}

static void start_events(ft_writer *w)
{
    ft_chunk_open(&w->chunk, w->buf, WRITER_CHUNK);
    w->addr_regs = ft_addr_regs_for(FT_FORMAT_VERSION);
    w->chunk_first = w->nevents;
    w->chunk_tid = w->tid;
    w->chunk.pos = ft_put_uint(w->chunk.pos, w->nevents);
    w->chunk.pos = ft_put_uint(w->chunk.pos, w->tid);
    w->have_events = 0;
}

static int flush_events(ft_writer *w)
{
    if (flush_sites(w) < 0)
        return -1;
    if (!w->have_events)
        return 0;
    int rc = emit(w, &w->chunk, FT_CHUNK_EVENTS);
    start_events(w);
    return rc;
}

static void writer_free(ft_writer *w)
{
    ZSTD_freeCCtx(w->zctx);
    free(w->zbuf);
    free(w->buf);
    free(w->sitebuf);
    free(w);
}

ft_writer *ft_writer_open(const char *path, const ft_header *h, ft_error *err)
{
    return ft_writer_open_level(path, h, 0, err);
}

ft_writer *ft_writer_open_level(const char *path, const ft_header *h,
                                int zstd_level, ft_error *err)
{
    ft_writer *w = calloc(1, sizeof *w);
    if (!w) {
        set_err(err, path, "out of memory", ENOMEM);
        return NULL;
    }
    w->buf = malloc(WRITER_CHUNK);
    w->sitebuf = malloc(WRITER_CHUNK);
    if (zstd_level != 0) {
        w->zctx = ZSTD_createCCtx();
        w->zbuf = malloc(FT_ZCHUNK_BOUND(WRITER_CHUNK));
        if (!w->zctx || !w->zbuf ||
            ft_zchunk_cctx_setup(w->zctx, zstd_level) < 0) {
            set_err(err, path, "cannot set up zstd compression", ENOMEM);
            writer_free(w);
            return NULL;
        }
    }
    errno = 0;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (!w->buf || !w->sitebuf || w->fd < 0) {
        set_err(err, path, "cannot create trace", errno ? errno : ENOMEM);
        if (w->fd >= 0)
            close(w->fd);
        writer_free(w);
        return NULL;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    ft_chunk_open(&w->sites, w->sitebuf, WRITER_CHUNK);

    ft_chunk hc;
    ft_chunk_open(&hc, w->buf, WRITER_CHUNK);
    uint8_t *p = hc.pos;
    p = ft_put_map(p, 7);
    p = put_cstr(p, "format");
    p = put_cstr(p, FT_FORMAT_NAME);
    p = put_cstr(p, "version");
    p = ft_put_uint(p, w->zctx ? FT_FORMAT_VERSION
                                : FT_FORMAT_VERSION_PLAIN);
    p = put_cstr(p, "program");
    p = put_cstr(p, h && h->program ? h->program : "");
    p = put_cstr(p, "argv");
    uint32_t argc = h ? h->argc : 0;
    p = ft_put_array(p, argc);
    for (uint32_t i = 0; i < argc; i++) {
        size_t n = strlen(h->argv[i]);
        if ((size_t)(hc.limit - p) < n + 64)
            break; /* absurd argv: keep the header within one chunk */
        p = put_cstr(p, h->argv[i]);
    }
    p = put_cstr(p, "pid");
    p = ft_put_uint(p, h ? h->pid : 0);
    p = put_cstr(p, "start_time_ns");
    p = ft_put_uint(p, h ? h->start_time_ns : 0);
    p = put_cstr(p, "modules");
    uint32_t nm = h ? h->nmodules : 0;
    p = ft_put_array(p, nm);
    for (uint32_t i = 0; i < nm; i++) {
        const ft_module *m = &h->modules[i];
        p = ft_put_array(p, 4);
        p = put_cstr(p, m->path ? m->path : "");
        p = ft_put_uint(p, m->base);
        p = ft_put_uint(p, m->size);
        p = put_cstr(p, m->build_id ? m->build_id : "");
    }
    hc.pos = p;
    emit(w, &hc, FT_CHUNK_HEADER);
    start_events(w);
    if (w->failed) {
        set_err(err, path, "cannot write trace header", errno);
        close(w->fd);
        writer_free(w);
        return NULL;
    }
    return w;
}

int ft_writer_site(ft_writer *w, const ft_site *s)
{
    if ((size_t)(w->sites.limit - w->sites.pos) < 64 && flush_sites(w) < 0)
        return -1;
    uint8_t *p = ft_put_array(w->sites.pos, 3);
    p = ft_put_uint(p, s->id);
    p = ft_put_uint(p, s->module);
    w->sites.pos = ft_put_uint(p, s->offset);
    if (s->function || s->file || s->text || s->insn) {
        if (w->nsyms == w->capsyms) {
            size_t cap = w->capsyms ? 2 * w->capsyms : 64;
            sym_entry *n = realloc(w->syms, cap * sizeof *n);
            if (!n)
                return -1;
            w->syms = n;
            w->capsyms = cap;
        }
        sym_entry *e = &w->syms[w->nsyms++];
        e->site = s->id;
        e->function = s->function ? strdup(s->function) : NULL;
        e->file = s->file ? strdup(s->file) : NULL;
        e->text = s->text ? strdup(s->text) : NULL;
        e->insn = s->insn ? strdup(s->insn) : NULL;
        e->line = s->line;
        e->column = s->column;
    }
    return 0;
}

int ft_writer_event(ft_writer *w, const ft_event *ev)
{
    size_t need = FT_EVENT_MAX_FIXED + 16 + (ev->bytes ? ev->nbytes : 0);
    if (need > WRITER_CHUNK / 2)
        return -1;
    if ((size_t)(w->chunk.limit - w->chunk.pos) < need &&
        flush_events(w) < 0)
        return -1;
    if (ev->tid != w->tid) {
        w->tid = ev->tid;
        if (!w->have_events && w->chunk_first == w->nevents) {
            start_events(w); /* restate the chunk's start thread */
        } else {
            *w->chunk.pos++ = FT_EV_SWITCH;
            w->chunk.pos = ft_put_uint(w->chunk.pos, ev->tid);
        }
    }
    uint8_t *p = ft_encode_event(w->chunk.pos, ev, &w->addr_regs);
    if (!p)
        return -1;
    w->chunk.pos = p;
    w->have_events = 1;
    w->nevents++;
    return w->failed ? -1 : 0;
}

/* The [site, text] chunks of one kind, from the sites' field at off (a
 * char *, freed here); -1 when one could not be written. */
static int text_chunks(ft_writer *w, unsigned kind, size_t off)
{
    int rc = 0;
    ft_chunk c;
    ft_chunk_open(&c, w->buf, WRITER_CHUNK);
    for (size_t i = 0; i < w->nsyms; i++) {
        char **field = (char **)((char *)&w->syms[i] + off);
        size_t need = 32 + (*field ? strlen(*field) : 0);
        if (*field && (size_t)(c.limit - c.pos) < need) {
            if (emit(w, &c, kind) < 0)
                rc = -1;
            ft_chunk_open(&c, w->buf, WRITER_CHUNK);
        }
        if (*field && (size_t)(c.limit - c.pos) >= need) {
            uint8_t *p = ft_put_array(c.pos, 2);
            p = ft_put_uint(p, w->syms[i].site);
            c.pos = put_cstr(p, *field);
        }
        free(*field);
        *field = NULL;
    }
    if (c.pos != w->buf + FT_CHUNK_HEAD && emit(w, &c, kind) < 0)
        rc = -1;
    return rc;
}

int ft_writer_close(ft_writer *w, const ft_end *end)
{
    int rc = flush_events(w);
    ft_chunk c;
    ft_chunk_open(&c, w->buf, WRITER_CHUNK);
    for (size_t i = 0; i < w->nsyms; i++) {
        sym_entry *e = &w->syms[i];
        size_t need = 64 + (e->function ? strlen(e->function) : 0) +
                      (e->file ? strlen(e->file) : 0);
        if ((size_t)(c.limit - c.pos) < need) {
            if (emit(w, &c, FT_CHUNK_SYMBOLS) < 0)
                rc = -1;
            ft_chunk_open(&c, w->buf, WRITER_CHUNK);
        }
        if ((e->function || e->file) && (size_t)(c.limit - c.pos) >= need) {
            uint8_t *p = ft_put_array(c.pos, 5);
            p = ft_put_uint(p, e->site);
            p = put_cstr(p, e->function);
            p = put_cstr(p, e->file);
            p = ft_put_uint(p, e->line);
            c.pos = ft_put_uint(p, e->column);
        }
        free(e->function);
        free(e->file);
    }
    if (c.pos != w->buf + FT_CHUNK_HEAD && emit(w, &c, FT_CHUNK_SYMBOLS) < 0)
        rc = -1;
    /* source lines; instructions (an importer that knows where each one
     * starts) */
    if (text_chunks(w, FT_CHUNK_SOURCE, offsetof(sym_entry, text)) < 0)
        rc = -1;
    if (text_chunks(w, FT_CHUNK_INSN, offsetof(sym_entry, insn)) < 0)
        rc = -1;
    if (end && end->present) {
        ft_chunk_open(&c, w->buf, WRITER_CHUNK);
        /* threads when known: `record` then need not decode the trace
         * again to count them */
        uint8_t *p = ft_put_map(c.pos, end->threads ? 4 : 3);
        p = put_cstr(p, "events");
        p = ft_put_uint(p, w->nevents);
        p = put_cstr(p, "reason");
        p = put_cstr(p, end->reason ? end->reason : "exit");
        p = put_cstr(p, "exit_status");
        p = ft_put_int(p, end->exit_status);
        if (end->threads) {
            p = put_cstr(p, "threads");
            p = ft_put_uint(p, end->threads);
        }
        c.pos = p;
        if (emit(w, &c, FT_CHUNK_END) < 0)
            rc = -1;
    }
    if (close(w->fd) < 0 || w->failed)
        rc = -1;
    free(w->syms);
    writer_free(w);
    return rc;
}

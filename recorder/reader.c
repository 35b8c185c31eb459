/* SPDX-License-Identifier: MIT */
/* reader.c - opening a trace and streaming its events.  Open reads the
 * HEADER, then walks every chunk frame (16-byte head, 5-byte tail), seeking
 * over EVENTS bodies and decoding metadata chunks, and notes where the
 * first damaged or truncated chunk starts.  Streaming then loads one EVENTS
 * body at a time (bounded by FT_CHUNK_MAX_BODY), checks its CRC-32C and
 * checks every event decodes before delivering any of them, so a reader
 * never hands out half a chunk.  A compressed body (format 4, zchunk.h)
 * has its declared size checked during the walk and is decompressed,
 * after its CRC, into exactly that much room. */
#include "recorder/encode.h"
#include "recorder/reader_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ft_reader_pread(ft_reader *r, void *buf, size_t len, uint64_t offset)
{
    if (offset > r->size || len > r->size - offset)
        return -1;
    if (len == 0)
        return 0;
    if (r->mem) {
        memcpy(buf, r->mem + offset, len);
        return 0;
    }
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(r->fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

int ft_reader_fail(ft_reader *r, uint64_t offset, const char *fmt, ...)
{
    snprintf(r->error.path, sizeof r->error.path, "%s", r->name);
    r->error.offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error.message, sizeof r->error.message, fmt, ap);
    va_end(ap);
    return -1;
}

void ft_reader_mark_damage(ft_reader *r, uint64_t offset, const char *fmt, ...)
{
    if (r->damaged)
        return;
    r->damaged = 1;
    r->damage_offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->damage_why, sizeof r->damage_why, fmt, ap);
    va_end(ap);
}

const char *ft_reader_strdup(ft_reader *r, const char *s, size_t n)
{
    ft_strblock *b = r->strings;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > 16384 ? n + 1 : 16384;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = r->strings;
        r->strings = b;
    }
    char *d = b->data + b->used;
    memcpy(d, s, n);
    d[n] = 0;
    b->used += n + 1;
    return d;
}

/* Chunk frame: 0x94, kind fixint, 0xcf seq(8), 0xc6 len(4).  *kind
 * keeps FT_CHUNK_ZSTD when the body is compressed. */
static const char *parse_head(const uint8_t h[FT_CHUNK_HEAD], unsigned *kind,
                              uint64_t *seq, uint32_t *len, int *bad)
{
    *bad = 0;
    if (h[0] != 0x94)
        return "expected a chunk (fixarray of 4, byte 0x94)";
    *bad = 1;
    if (h[1] >= 0x80)
        return "expected a chunk kind (positive fixint)";
    *bad = 2;
    if (h[2] != 0xcf)
        return "expected the chunk sequence number (uint64, byte 0xcf)";
    *bad = 11;
    if (h[11] != 0xc6)
        return "expected the chunk body (bin32, byte 0xc6)";
    *kind = h[1];
    *seq = 0;
    for (int i = 3; i < 11; i++)
        *seq = (*seq << 8) | h[i];
    *len = (uint32_t)h[12] << 24 | (uint32_t)h[13] << 16 |
           (uint32_t)h[14] << 8 | h[15];
    return NULL;
}

static uint32_t tail_crc(const uint8_t t[FT_CHUNK_TAIL])
{
    return (uint32_t)t[1] << 24 | (uint32_t)t[2] << 16 |
           (uint32_t)t[3] << 8 | t[4];
}

static int read_body(ft_reader *r, uint64_t off, uint32_t len)
{
    if (len > r->body_cap || !r->body) {
        uint8_t *b = realloc(r->body, len ? len : 1);
        if (!b)
            return -1;
        r->body = b;
        r->body_cap = len;
    }
    return ft_reader_pread(r, r->body, len, off);
}

static int add_chunk(ft_reader *r, uint64_t off, uint32_t len, uint32_t crc)
{
    if (r->nchunks == r->capchunks) {
        size_t cap = r->capchunks ? 2 * r->capchunks : 64;
        ft_chunk_ref *c = realloc(r->chunks, cap * sizeof *c);
        if (!c)
            return -1;
        r->chunks = c;
        r->capchunks = cap;
    }
    r->chunks[r->nchunks++] = (ft_chunk_ref){off, len, crc, len, 0};
    return 0;
}

void ft_unz_free(ft_unz *z)
{
    free(z->buf);
    ZSTD_freeDCtx(z->dctx);
    memset(z, 0, sizeof *z);
}

/* The size a compressed body at body_off (len stored bytes) declares,
 * from its frame header; -1 with damage marked at the chunk. */
static int declared_size(ft_reader *r, uint64_t off, uint64_t body_off,
                         uint32_t len, uint32_t *raw)
{
    uint8_t fh[FT_ZSTD_FRAME_HEAD_MAX];
    size_t n = len < sizeof fh ? len : sizeof fh;
    char why[160];
    if (ft_reader_pread(r, fh, n, body_off) < 0)
        return ft_reader_fail(r, off, "read error: %s", strerror(errno));
    if (ft_zchunk_declared(fh, n, raw, why, sizeof why) < 0) {
        ft_reader_mark_damage(r, off, "chunk at byte %llu: %s",
                              (unsigned long long)off, why);
        return -1;
    }
    return 0;
}

/* Decompresses the compressed metadata body in r->body (len stored bytes)
 * into r->meta_raw; -1 with damage marked at the chunk. */
static int inflate_meta(ft_reader *r, uint64_t off, uint32_t len,
                        uint32_t *raw)
{
    char why[160];
    if (ft_zchunk_declared(r->body, len, raw, why, sizeof why) < 0)
        goto bad;
    if (*raw > r->meta_raw_cap || !r->meta_raw) {
        uint8_t *b = realloc(r->meta_raw, *raw ? *raw : 1);
        if (!b) {
            snprintf(why, sizeof why, "out of memory");
            goto bad;
        }
        r->meta_raw = b;
        r->meta_raw_cap = *raw;
    }
    if (!r->unz.dctx && !(r->unz.dctx = ZSTD_createDCtx())) {
        snprintf(why, sizeof why, "out of memory");
        goto bad;
    }
    if (ft_zchunk_inflate(r->unz.dctx, r->meta_raw, *raw, r->body, len, why,
                          sizeof why) == 0)
        return 0;
bad:
    ft_reader_mark_damage(r, off, "chunk at byte %llu: %s",
                          (unsigned long long)off, why);
    return -1;
}

static int decode_meta(ft_reader *r, unsigned kind, const uint8_t *b,
                       uint64_t body_off, uint32_t len)
{
    switch (kind) {
    case FT_CHUNK_SITES: return ft_meta_sites(r, b, len, body_off);
    case FT_CHUNK_MODULES: return ft_meta_modules(r, b, len, body_off);
    case FT_CHUNK_SYMBOLS: return ft_meta_symbols(r, b, len, body_off);
    case FT_CHUNK_DATA: return ft_meta_data(r, b, len, body_off);
    case FT_CHUNK_SOURCE: return ft_meta_source(r, b, len, body_off);
    case FT_CHUNK_INLINED: return ft_meta_inlined(r, b, len, body_off);
    case FT_CHUNK_STRAIGHT: return ft_meta_straight(r, b, len, body_off);
    case FT_CHUNK_INSN: return ft_meta_insn(r, b, len, body_off);
    case FT_CHUNK_TYPES: return ft_meta_types(r, b, len, body_off);
    case FT_CHUNK_END: return ft_meta_end(r, b, len, body_off);
    default: return 0; /* unknown kinds are skipped */
    }
}

/* Walks the frames after the header; stops at the first bad one. */
static int walk_chunks(ft_reader *r, uint64_t off)
{
    uint8_t h[FT_CHUNK_HEAD], t[FT_CHUNK_TAIL];
    while (off < r->size) {
        unsigned kind;
        uint64_t seq;
        uint32_t len;
        const char *why;
        if (r->size - off < FT_CHUNK_HEAD) {
            ft_reader_mark_damage(r, off, "truncated chunk head (%llu of %u "
                                  "bytes)", (unsigned long long)(r->size - off),
                                  FT_CHUNK_HEAD);
            break;
        }
        if (ft_reader_pread(r, h, sizeof h, off) < 0)
            return ft_reader_fail(r, off, "read error: %s", strerror(errno));
        int bad;
        if ((why = parse_head(h, &kind, &seq, &len, &bad))) {
            ft_reader_mark_damage(r, off + (uint64_t)bad, "%s, found 0x%02x",
                                  why, h[bad]);
            break;
        }
        if (seq != r->next_seq) {
            ft_reader_mark_damage(r, off, "expected chunk sequence number "
                                  "%llu, found %llu",
                                  (unsigned long long)r->next_seq,
                                  (unsigned long long)seq);
            break;
        }
        if (len > FT_CHUNK_MAX_BODY) {
            ft_reader_mark_damage(r, off, "chunk body length %u exceeds the "
                                  "limit of %u bytes", len, FT_CHUNK_MAX_BODY);
            break;
        }
        uint64_t body_off = off + FT_CHUNK_HEAD;
        if (r->size - body_off < (uint64_t)len + FT_CHUNK_TAIL) {
            ft_reader_mark_damage(r, off, "truncated chunk (body of %u bytes "
                                  "and tail need %llu more bytes than the "
                                  "file has)", len,
                                  (unsigned long long)((uint64_t)len +
                                   FT_CHUNK_TAIL - (r->size - body_off)));
            break;
        }
        if (ft_reader_pread(r, t, sizeof t, body_off + len) < 0)
            return ft_reader_fail(r, off, "read error: %s", strerror(errno));
        if (t[0] != 0xce) {
            ft_reader_mark_damage(r, body_off + len, "expected the chunk CRC "
                                  "(uint32, byte 0xce), found 0x%02x", t[0]);
            break;
        }
        uint32_t crc = tail_crc(t);
        int zstd = (kind & FT_CHUNK_ZSTD) != 0;
        kind &= FT_CHUNK_KIND_MASK;
        if (kind == FT_CHUNK_EVENTS) {
            /* the declared size sizes the body when it is streamed: it
             * is checked here, so that the chunks before it are kept */
            uint32_t raw = len;
            if (zstd && declared_size(r, off, body_off, len, &raw) < 0) {
                if (!r->damaged)
                    return -1;
                break;
            }
            if (add_chunk(r, off, len, crc) < 0)
                return ft_reader_fail(r, off, "out of memory");
            r->chunks[r->nchunks - 1].raw_len = raw;
            r->chunks[r->nchunks - 1].zstd = zstd;
        } else {
            if (read_body(r, body_off, len) < 0)
                return ft_reader_fail(r, off, "cannot read chunk body");
            uint32_t got = ft_crc32c(0, r->body, len);
            if (got != crc) {
                ft_reader_mark_damage(r, off, "CRC mismatch in chunk %llu "
                                      "(stored 0x%08x, computed 0x%08x)",
                                      (unsigned long long)seq, crc, got);
                break;
            }
            if (kind == FT_CHUNK_HEADER) {
                ft_reader_mark_damage(r, off, "a second HEADER chunk");
                break;
            }
            const uint8_t *b = r->body;
            uint32_t blen = len;
            if (zstd) {
                if (inflate_meta(r, off, len, &blen) < 0)
                    break;
                b = r->meta_raw;
            }
            /* offsets inside a compressed body count decoded bytes from
             * the body's start (docs/trace-format.md) */
            if (decode_meta(r, kind, b, body_off, blen) < 0) {
                ft_reader_mark_damage(r, r->error.offset, "%s",
                                      r->error.message);
                break;
            }
        }
        off = body_off + len + FT_CHUNK_TAIL;
        r->valid_end = off;
        r->next_seq++;
    }
    return 0;
}

static int read_header(ft_reader *r)
{
    uint8_t h[FT_CHUNK_HEAD], t[FT_CHUNK_TAIL];
    unsigned kind;
    uint64_t seq;
    uint32_t len;
    if (r->size == 0)
        return ft_reader_fail(r, 0, "empty file: expected a foretell trace "
                              "HEADER chunk");
    if (r->size < FT_CHUNK_HEAD || ft_reader_pread(r, h, sizeof h, 0) < 0)
        return ft_reader_fail(r, 0, "not a foretell trace: file of %llu "
                              "bytes is too short for a HEADER chunk",
                              (unsigned long long)r->size);
    int bad;
    const char *why = parse_head(h, &kind, &seq, &len, &bad);
    if (why)
        return ft_reader_fail(r, (uint64_t)bad, "not a foretell trace: %s, "
                              "found 0x%02x", why, h[bad]);
    if (kind != FT_CHUNK_HEADER || seq != 0)
        return ft_reader_fail(r, 0, "not a foretell trace: expected chunk 0 "
                              "of kind HEADER (1), found chunk %llu of kind %u",
                              (unsigned long long)seq, kind);
    /* (a compressed HEADER has kind 0x41 and is refused above: readers
     * learn the version from a HEADER they can read without zstd) */
    if (len > FT_HEADER_MAX_BODY)
        return ft_reader_fail(r, 12, "HEADER body length %u exceeds the "
                              "limit of %u bytes", len, FT_HEADER_MAX_BODY);
    if (r->size - FT_CHUNK_HEAD < (uint64_t)len + FT_CHUNK_TAIL)
        return ft_reader_fail(r, FT_CHUNK_HEAD, "truncated HEADER chunk: "
                              "expected %u body bytes and a CRC, file has "
                              "%llu bytes", len, (unsigned long long)r->size);
    if (read_body(r, FT_CHUNK_HEAD, len) < 0 ||
        ft_reader_pread(r, t, sizeof t, FT_CHUNK_HEAD + len) < 0)
        return ft_reader_fail(r, FT_CHUNK_HEAD, "cannot read HEADER chunk");
    if (t[0] != 0xce)
        return ft_reader_fail(r, FT_CHUNK_HEAD + len, "expected the HEADER "
                              "CRC (uint32, byte 0xce), found 0x%02x", t[0]);
    uint32_t got = ft_crc32c(0, r->body, len);
    if (got != tail_crc(t))
        return ft_reader_fail(r, 0, "CRC mismatch in HEADER chunk (stored "
                              "0x%08x, computed 0x%08x)", tail_crc(t), got);
    if (ft_meta_header(r, r->body, len, FT_CHUNK_HEAD) < 0)
        return -1;
    r->next_seq = 1;
    r->valid_end = FT_CHUNK_HEAD + len + FT_CHUNK_TAIL;
    return 0;
}

static ft_reader *finish_open(ft_reader *r, ft_error *err)
{
    r->end.exit_status = -1;
    if (read_header(r) < 0 || walk_chunks(r, r->valid_end) < 0 ||
        ft_meta_finish_sites(r) < 0) {
        if (err)
            *err = r->error;
        ft_reader_close(r);
        return NULL;
    }
    ft_meta_finish_data(r);
    r->header.modules = r->modules;
    r->header.nmodules = r->nmodules;
    ft_reader_rewind(r);
    return r;
}

ft_reader *ft_reader_open(const char *path, ft_error *err)
{
    ft_reader *r = calloc(1, sizeof *r);
    if (!r) {
        if (err) {
            snprintf(err->path, sizeof err->path, "%s", path);
            err->offset = 0;
            snprintf(err->message, sizeof err->message, "out of memory");
        }
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "%s", path);
    char why[128];
    r->fd = ft_open_regular(path, &r->size, why, sizeof why);
    if (r->fd < 0) {
        ft_reader_fail(r, 0, "cannot open trace: %s", why);
        if (err)
            *err = r->error;
        ft_reader_close(r);
        return NULL;
    }
    return finish_open(r, err);
}

ft_reader *ft_reader_open_mem(const void *data, size_t len, const char *name,
                              ft_error *err)
{
    ft_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->name, sizeof r->name, "%s", name ? name : "<memory>");
    r->fd = -1;
    r->mem = data ? data : (const uint8_t *)"";
    r->size = len;
    return finish_open(r, err);
}

void ft_reader_close(ft_reader *r)
{
    if (!r)
        return;
    ft_pipe_stop(r); /* before the file and chunk list it reads go */
    free(r->seq_batch);
    if (r->fd >= 0)
        close(r->fd);
    while (r->strings) {
        ft_strblock *n = r->strings->next;
        free(r->strings);
        r->strings = n;
    }
    free(r->modules);
    free(r->argv);
    free(r->sites);
    free(r->site_at);
    free(r->data);
    ft_typetab_free(&r->types);
    free(r->vartypes);
    free(r->chunks);
    free(r->body);
    free(r->meta_raw);
    ft_unz_free(&r->unz);
    free(r);
}

const ft_header *ft_reader_header(const ft_reader *r) { return &r->header; }
const ft_end *ft_reader_end(const ft_reader *r) { return &r->end; }
const ft_error *ft_reader_error(const ft_reader *r) { return &r->error; }

int ft_reader_rewind(ft_reader *r)
{
    ft_pipe_stop(r);
    r->cur_chunk = 0;
    r->pos = r->body_end = NULL;
    r->delivered = 0;
    r->stream_done = 0;
    return 0;
}

/* Reads chunk c's stored bytes into z->buf and decompresses them into
 * body (room for c->raw_len).  0 or -1 with why. */
static int load_compressed(const ft_reader *r, const ft_chunk_ref *c,
                           uint8_t *body, ft_unz *z, char *why, size_t whylen)
{
    if (c->body_len > z->cap || !z->buf) {
        uint8_t *b = realloc(z->buf, c->body_len ? c->body_len : 1);
        if (!b) {
            snprintf(why, whylen, "cannot read chunk body");
            return -1;
        }
        z->buf = b;
        z->cap = c->body_len;
    }
    if (!z->dctx && !(z->dctx = ZSTD_createDCtx())) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (ft_reader_pread((ft_reader *)r, z->buf, c->body_len,
                        c->offset + FT_CHUNK_HEAD) < 0) {
        snprintf(why, whylen, "cannot read chunk body");
        return -1;
    }
    uint32_t got = ft_crc32c(0, z->buf, c->body_len);
    if (got != c->crc) {
        snprintf(why, whylen, "CRC mismatch in compressed EVENTS chunk at "
                 "byte %llu (stored 0x%08x, computed 0x%08x)",
                 (unsigned long long)c->offset, c->crc, got);
        return -1;
    }
    char zwhy[160];
    if (ft_zchunk_inflate(z->dctx, body, c->raw_len, z->buf, c->body_len,
                          zwhy, sizeof zwhy) < 0) {
        snprintf(why, whylen, "EVENTS chunk at byte %llu: %s",
                 (unsigned long long)c->offset, zwhy);
        return -1;
    }
    return 0;
}

int ft_chunk_check(const ft_reader *r, size_t k, uint8_t *body, ft_unz *z,
                   uint64_t expect_first, const uint8_t **first_event,
                   uint32_t *tid, uint64_t *damage_offset, char *why,
                   size_t whylen)
{
    const ft_chunk_ref *c = &r->chunks[k];
    uint64_t body_off = c->offset + FT_CHUNK_HEAD;
    if (c->zstd) {
        if (load_compressed(r, c, body, z, why, whylen) < 0) {
            *damage_offset = c->offset;
            return -1;
        }
    } else {
        if (ft_reader_pread((ft_reader *)r, body, c->body_len, body_off) < 0) {
            *damage_offset = c->offset;
            snprintf(why, whylen, "cannot read chunk body");
            return -1;
        }
        uint32_t got = ft_crc32c(0, body, c->body_len);
        if (got != c->crc) {
            *damage_offset = c->offset;
            snprintf(why, whylen, "CRC mismatch in EVENTS chunk at byte %llu "
                     "(stored 0x%08x, computed 0x%08x)",
                     (unsigned long long)c->offset, c->crc, got);
            return -1;
        }
    }
    const uint8_t *p = body, *end = body + c->raw_len;
    const char *what = NULL;
    uint64_t first;
    if (ft_decode_prologue(&p, end, &first, tid, &what) < 0) {
        *damage_offset = ft_event_offset(c, (size_t)(p - body));
        snprintf(why, whylen, "EVENTS chunk prologue: %s", what);
        return -1;
    }
    if (first != expect_first) {
        *damage_offset = c->zstd ? c->offset : body_off;
        snprintf(why, whylen, "expected an EVENTS chunk starting at event "
                 "%llu, found one starting at %llu",
                 (unsigned long long)expect_first,
                 (unsigned long long)first);
        return -1;
    }
    *first_event = p;
    return 0;
}

/* Loads the next EVENTS chunk, checks its CRC and prologue.  1 loaded, 0 no
 * more chunks, -1 damage (recorded). */
static int load_chunk(ft_reader *r)
{
    if (r->cur_chunk >= r->nchunks)
        return 0;
    const ft_chunk_ref *c = &r->chunks[r->cur_chunk];
    if (c->raw_len > r->body_cap || !r->body) {
        uint8_t *b = realloc(r->body, c->raw_len ? c->raw_len : 1);
        if (!b) {
            ft_reader_mark_damage(r, c->offset, "cannot read chunk body");
            return -1;
        }
        r->body = b;
        r->body_cap = c->raw_len;
    }
    const uint8_t *p;
    uint32_t tid;
    uint64_t off;
    char why[sizeof r->damage_why];
    if (ft_chunk_check(r, r->cur_chunk, r->body, &r->unz, r->delivered, &p,
                       &tid, &off, why, sizeof why) < 0) {
        ft_reader_mark_damage(r, off, "%s", why);
        return -1;
    }
    /* The events are decoded once, while they are delivered: the CRC
     * already says the chunk is what the writer wrote, so a malformed
     * event only comes from a hostile or broken writer, and then the
     * events before it are delivered and reading stops there. */
    r->pos = p;
    r->body_end = r->body + c->raw_len;
    r->body_offset = c->offset + FT_CHUNK_HEAD;
    r->addr_regs = ft_addr_regs_for(r->header.version);
    r->tid = tid;
    r->cur_chunk++;
    return 1;
}

int ft_reader_next(ft_reader *r, ft_event *ev)
{
    if (r->pipe)
        return ft_pipe_next(r, ev);
    for (;;) {
        if (r->pos) {
            const char *why;
            int rc = ft_decode_event(&r->pos, r->body_end, &r->addr_regs,
                                     &r->tid, ev, &why);
            if (rc == 1) {
                ev->index = r->delivered++;
                return 1;
            }
            if (rc < 0) {
                const struct ft_chunk_ref *c = &r->chunks[r->cur_chunk - 1];
                ft_reader_mark_damage(r, ft_event_offset(c, (size_t)(r->pos -
                                                             r->body)),
                                      FT_MALFORMED_EVENT,
                                      (unsigned long long)c->offset, why);
                r->pos = NULL;
                r->stream_done = 1;
                ft_reader_damage(r, &r->error);
                return -1;
            }
            r->pos = NULL;
        }
        if (r->stream_done)
            return r->damaged ? -1 : 0;
        int lc = load_chunk(r);
        if (lc <= 0) {
            r->stream_done = 1;
            if (lc == 0 && !r->damaged)
                return 0;
            ft_reader_damage(r, &r->error);
            return -1;
        }
    }
}

int ft_reader_damage(const ft_reader *r, ft_error *err)
{
    if (!r->damaged)
        return 0;
    if (err) {
        snprintf(err->path, sizeof err->path, "%s", r->name);
        err->offset = r->damage_offset;
        snprintf(err->message, sizeof err->message,
                 "recovered %llu events; stopped at byte %llu: %s",
                 (unsigned long long)r->delivered,
                 (unsigned long long)r->damage_offset, r->damage_why);
    }
    return 1;
}

uint64_t ft_reader_delivered(const ft_reader *r) { return r->delivered; }

uint64_t ft_reader_event_bytes(const ft_reader *r)
{
    uint64_t n = 0;
    for (size_t k = 0; k < r->nchunks; k++) {
        const ft_chunk_ref *c = &r->chunks[k];
        uint64_t bound = (uint64_t)c->body_len * FT_ZSTD_RATIO_BOUND;
        n += !c->zstd ? c->body_len : c->raw_len < bound ? c->raw_len : bound;
    }
    return n;
}

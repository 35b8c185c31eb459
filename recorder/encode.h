/* SPDX-License-Identifier: MIT */
/* encode.h - the msgpack encoder on the recorder's hot path, and chunk
 * framing.  Hand-inlined because msgpack-c's packer costs 33-44 ns an event
 * and this costs 7-10 (../shared/notes/runtime-findings.md); the bytes are
 * ordinary msgpack, and the tests decode them with msgpack-c.
 *
 * Callers reserve space first: an event never needs more than
 * FT_EVENT_MAX_FIXED bytes besides the payload of a bin field.
 */
#ifndef FORETELL_ENCODE_H
#define FORETELL_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Largest fixed-field event: opcode + 8 fields of 9 bytes. */
#define FT_EVENT_MAX_FIXED 80
/* Chunk frame: fixarray(4), kind fixint, uint64 seq, bin32 header. */
#define FT_CHUNK_HEAD 16
/* Chunk trailer: uint32 crc32c of the body. */
#define FT_CHUNK_TAIL 5
/* Largest chunk body a reader accepts (bounds allocations); for a
 * compressed chunk, also the largest decompressed size it may declare. */
#define FT_CHUNK_MAX_BODY (64u << 20)
/* In the kind byte: the body is one zstd frame (zchunk.h, format version
 * 4); the kind itself is the low bits. */
#define FT_CHUNK_ZSTD 0x40u
#define FT_CHUNK_KIND_MASK 0x3fu

static inline uint8_t *ft_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static inline uint8_t *ft_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

static inline uint8_t *ft_put_be64(uint8_t *p, uint64_t v)
{
    p = ft_put_be32(p, (uint32_t)(v >> 32));
    return ft_put_be32(p, (uint32_t)v);
}

/* Smallest msgpack encoding of an unsigned integer. */
static inline uint8_t *ft_put_uint(uint8_t *p, uint64_t v)
{
    if (v < 128) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 256) {
        p[0] = 0xcc;
        p[1] = (uint8_t)v;
        return p + 2;
    }
    if (v < 65536) {
        *p = 0xcd;
        return ft_put_be16(p + 1, (uint16_t)v);
    }
    if (v <= 0xffffffffu) {
        *p = 0xce;
        return ft_put_be32(p + 1, (uint32_t)v);
    }
    *p = 0xcf;
    return ft_put_be64(p + 1, v);
}

/* Smallest msgpack encoding of a signed integer. */
static inline uint8_t *ft_put_int(uint8_t *p, int64_t v)
{
    if (v >= 0)
        return ft_put_uint(p, (uint64_t)v);
    if (v >= -32) {
        *p = (uint8_t)(0xe0 | (v & 0x1f));
        return p + 1;
    }
    if (v >= -128) {
        p[0] = 0xd0;
        p[1] = (uint8_t)v;
        return p + 2;
    }
    if (v >= -32768) {
        *p = 0xd1;
        return ft_put_be16(p + 1, (uint16_t)v);
    }
    if (v >= INT32_MIN) {
        *p = 0xd2;
        return ft_put_be32(p + 1, (uint32_t)v);
    }
    *p = 0xd3;
    return ft_put_be64(p + 1, (uint64_t)v);
}

/* A READ or WRITE event of at most 8 bytes (trace.h): opcode, site,
 * address as a delta against *reg (then set to addr), size, value.  The
 * runtime's hot path (recorder/rt/rt_emit.h) inlines it. */
static inline __attribute__((always_inline)) uint8_t *
ft_put_access(uint8_t *p, int kind, uint32_t site, uint64_t *reg,
              uint64_t addr, uint32_t size, uint64_t value)
{
    *p++ = (uint8_t)kind;
    p = ft_put_uint(p, site);
    p = ft_put_int(p, (int64_t)(addr - *reg));
    *reg = addr;
    *p++ = (uint8_t)size;
    return ft_put_uint(p, value);
}

static inline uint8_t *ft_put_nil(uint8_t *p)
{
    *p = 0xc0;
    return p + 1;
}

static inline uint8_t *ft_put_bin_head(uint8_t *p, uint32_t n)
{
    if (n < 256) {
        p[0] = 0xc4;
        p[1] = (uint8_t)n;
        return p + 2;
    }
    if (n < 65536) {
        *p = 0xc5;
        return ft_put_be16(p + 1, (uint16_t)n);
    }
    *p = 0xc6;
    return ft_put_be32(p + 1, n);
}

static inline uint8_t *ft_put_bin(uint8_t *p, const void *src, uint32_t n)
{
    p = ft_put_bin_head(p, n);
    memcpy(p, src, n);
    return p + n;
}

static inline uint8_t *ft_put_str(uint8_t *p, const char *s, uint32_t n)
{
    if (n < 32) {
        *p++ = (uint8_t)(0xa0 | n);
    } else if (n < 256) {
        *p++ = 0xd9;
        *p++ = (uint8_t)n;
    } else if (n < 65536) {
        *p = 0xda;
        p = ft_put_be16(p + 1, (uint16_t)n);
    } else {
        *p = 0xdb;
        p = ft_put_be32(p + 1, n);
    }
    memcpy(p, s, n);
    return p + n;
}

static inline uint8_t *ft_put_array(uint8_t *p, uint32_t n)
{
    if (n < 16) {
        *p = (uint8_t)(0x90 | n);
        return p + 1;
    }
    if (n < 65536) {
        *p = 0xdc;
        return ft_put_be16(p + 1, (uint16_t)n);
    }
    *p = 0xdd;
    return ft_put_be32(p + 1, n);
}

static inline uint8_t *ft_put_map(uint8_t *p, uint32_t n)
{
    if (n < 16) {
        *p = (uint8_t)(0x80 | n);
        return p + 1;
    }
    if (n < 65536) {
        *p = 0xde;
        return ft_put_be16(p + 1, (uint16_t)n);
    }
    *p = 0xdf;
    return ft_put_be32(p + 1, n);
}

/* CRC-32C (Castagnoli) of a chunk body; hardware-assisted where the CPU
 * has SSE4.2.  Async-signal-safe. */
uint32_t ft_crc32c(uint32_t crc, const void *data, size_t len);

/* A chunk being built in a caller-owned buffer.  The body starts at
 * buf + FT_CHUNK_HEAD; ft_chunk_seal writes the frame around it. */
typedef struct ft_chunk {
    uint8_t *buf;   /* start of the frame */
    uint8_t *pos;   /* next byte of the body */
    uint8_t *limit; /* end of usable space, FT_CHUNK_TAIL before the end */
} ft_chunk;

static inline void ft_chunk_open(ft_chunk *c, uint8_t *buf, size_t cap)
{
    c->buf = buf;
    c->pos = buf + FT_CHUNK_HEAD;
    c->limit = buf + cap - FT_CHUNK_TAIL;
}

/* Frames the chunk; returns its total length in bytes. */
size_t ft_chunk_seal(ft_chunk *c, unsigned kind, uint64_t seq);

/* write(2) all of buf, retrying on EINTR and short writes.  0 or -errno.
 * Async-signal-safe. */
int ft_write_all(int fd, const void *buf, size_t len);

#endif

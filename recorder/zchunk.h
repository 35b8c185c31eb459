/* SPDX-License-Identifier: MIT */
/* zchunk.h - zstd-compressed chunk bodies (trace format version 4,
 * docs/trace-format.md "Compressed chunks").  A compressed chunk has the
 * frame of any other, with FT_CHUNK_ZSTD set in its kind byte and one zstd
 * frame as its body; the CRC covers the stored (compressed) bytes, so
 * damage is still found per chunk before anything is decompressed.  The
 * writer side is free of allocation (the runtime seals chunks with a static
 * context); the reader side bounds what a hostile frame can make it
 * allocate by the size the frame declares, itself bounded like a body. */
#ifndef FORETELL_ZCHUNK_H
#define FORETELL_ZCHUNK_H

#include "recorder/encode.h"

#include <zstd.h>

/* Room for a compressed chunk of a body of n bytes: frame and zstd's bound. */
#define FT_ZCHUNK_BOUND(n) \
    (FT_CHUNK_HEAD + ZSTD_COMPRESSBOUND(n) + FT_CHUNK_TAIL)

/* Bytes of a zstd frame header at most (ZSTD_FRAMEHEADERSIZE_MAX, which
 * zstd.h declares only for static linking). */
#define FT_ZSTD_FRAME_HEAD_MAX 18

/* Level when nothing says otherwise: the fastest positive level; the
 * writer thread keeps up with the densest benchmark at it
 * (docs/benchmarks.md, "Trace compression"). */
#define FT_ZSTD_DEFAULT_LEVEL 1

/* Sets cctx up for chunks: level, the decompressed size in the frame
 * (readers refuse frames without it), no zstd checksum (the chunk's CRC
 * covers the stored bytes).  0 or -1. */
int ft_zchunk_cctx_setup(ZSTD_CCtx *cctx, int level);

/* Frames c's body, compressed, in out (cap bytes, FT_ZCHUNK_BOUND of the
 * body is always enough) as chunk seq of kind (| FT_CHUNK_ZSTD).  Returns
 * the frame's length, or 0 when compression failed or would not make the
 * chunk smaller: then nothing is written and the caller seals c plainly. */
size_t ft_zchunk_seal(const ft_chunk *c, unsigned kind, uint64_t seq,
                      ZSTD_CCtx *cctx, uint8_t *out, size_t cap);

/* The decompressed size a compressed body declares, from its first n
 * bytes (at most ZSTD_FRAMEHEADERSIZE_MAX are looked at).  0 with *raw
 * set, or -1 with *why: no size declared, a size beyond
 * FT_CHUNK_MAX_BODY, not a zstd frame. */
int ft_zchunk_declared(const uint8_t *body, size_t n, uint32_t *raw,
                       char *why, size_t whylen);

/* Decompresses the body src[0..n) into dst, which has room for exactly
 * the raw bytes it declared.  0, or -1 with *why: the body is not exactly
 * one frame, zstd refuses it, or it decompresses to another size than
 * declared (zstd never writes past raw bytes, so a lying size costs no
 * more memory than an honest one). */
int ft_zchunk_inflate(ZSTD_DCtx *dctx, uint8_t *dst, uint32_t raw,
                      const uint8_t *src, size_t n, char *why, size_t whylen);

#endif

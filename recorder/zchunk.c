/* SPDX-License-Identifier: MIT */
/* zchunk.c - compressing and decompressing chunk bodies with zstd
 * (zchunk.h).  Linked into the runtime too: nothing here allocates (the
 * caller owns the contexts and buffers), so the writer thread may seal
 * chunks with a context made once in static memory. */
#include "recorder/zchunk.h"

#include <stdio.h>

int ft_zchunk_cctx_setup(ZSTD_CCtx *cctx, int level)
{
    if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel,
                                            level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0)))
        return -1;
    return 0;
}

size_t ft_zchunk_seal(const ft_chunk *c, unsigned kind, uint64_t seq,
                      ZSTD_CCtx *cctx, uint8_t *out, size_t cap)
{
    const uint8_t *body = c->buf + FT_CHUNK_HEAD;
    size_t n = (size_t)(c->pos - body);
    if (n == 0 || cap < FT_CHUNK_HEAD + FT_CHUNK_TAIL + 1)
        return 0;
    size_t room = cap - FT_CHUNK_HEAD - FT_CHUNK_TAIL;
    /* not smaller than the plain body: not worth a second format */
    if (room > n - 1)
        room = n - 1;
    if (room == 0)
        return 0;
    size_t z = ZSTD_compress2(cctx, out + FT_CHUNK_HEAD, room, body, n);
    if (ZSTD_isError(z) || z >= n)
        return 0;
    ft_chunk zc = {out, out + FT_CHUNK_HEAD + z, out + cap - FT_CHUNK_TAIL};
    return ft_chunk_seal(&zc, (kind & FT_CHUNK_KIND_MASK) | FT_CHUNK_ZSTD,
                         seq);
}

int ft_zchunk_declared(const uint8_t *body, size_t n, uint32_t *raw,
                       char *why, size_t whylen)
{
    unsigned long long s = ZSTD_getFrameContentSize(body, n);
    if (s == ZSTD_CONTENTSIZE_ERROR) {
        snprintf(why, whylen, "compressed chunk body is not a zstd frame");
        return -1;
    }
    if (s == ZSTD_CONTENTSIZE_UNKNOWN) {
        snprintf(why, whylen, "compressed chunk body does not declare its "
                 "decompressed size");
        return -1;
    }
    if (s > FT_CHUNK_MAX_BODY) {
        snprintf(why, whylen, "compressed chunk body declares %llu "
                 "decompressed bytes, beyond the limit of %u", s,
                 FT_CHUNK_MAX_BODY);
        return -1;
    }
    *raw = (uint32_t)s;
    return 0;
}

int ft_zchunk_inflate(ZSTD_DCtx *dctx, uint8_t *dst, uint32_t raw,
                      const uint8_t *src, size_t n, char *why, size_t whylen)
{
    size_t fz = ZSTD_findFrameCompressedSize(src, n);
    if (ZSTD_isError(fz) || fz != n) {
        snprintf(why, whylen, "compressed chunk body is not exactly one zstd "
                 "frame");
        return -1;
    }
    size_t got = ZSTD_decompressDCtx(dctx, dst, raw, src, n);
    if (ZSTD_isError(got)) {
        snprintf(why, whylen, "compressed chunk body does not decompress to "
                 "the %u bytes it declares: %s", raw, ZSTD_getErrorName(got));
        return -1;
    }
    if (got != raw) {
        snprintf(why, whylen, "compressed chunk body decompresses to %zu "
                 "bytes, not the %u it declares", got, raw);
        return -1;
    }
    return 0;
}

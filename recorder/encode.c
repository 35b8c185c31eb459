/* SPDX-License-Identifier: MIT */
/* encode.c - chunk framing and CRC-32C for trace writers (the runtime and
 * the tools that produce traces).  Kept free of libc allocation and stdio
 * so that the runtime can call it from a crash handler. */
#include "encode.h"

#include <errno.h>
#include <unistd.h>

static uint32_t crc_table[256];
static int crc_table_ready;

static void crc_init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc_table[i] = c;
    }
    __atomic_store_n(&crc_table_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!__atomic_load_n(&crc_table_ready, __ATOMIC_ACQUIRE))
        crc_init_table();
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc,
                                                         const uint8_t *p,
                                                         size_t n)
{
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

uint32_t ft_crc32c(uint32_t crc, const void *data, size_t len)
{
    crc = ~crc;
#if defined(__x86_64__)
    static int hw = -1;
    if (hw < 0) {
        __builtin_cpu_init();
        hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    if (hw)
        return ~crc_hw(crc, data, len);
#endif
    return ~crc_soft(crc, data, len);
}

size_t ft_chunk_seal(ft_chunk *c, unsigned kind, uint64_t seq)
{
    uint8_t *body = c->buf + FT_CHUNK_HEAD;
    uint32_t n = (uint32_t)(c->pos - body);
    uint8_t *h = c->buf;
    *h++ = 0x94;
    *h++ = (uint8_t)(kind & 0x7f);
    *h++ = 0xcf;
    h = ft_put_be64(h, seq);
    *h++ = 0xc6;
    ft_put_be32(h, n);
    uint8_t *t = c->pos;
    *t++ = 0xce;
    ft_put_be32(t, ft_crc32c(0, body, n));
    return FT_CHUNK_HEAD + n + FT_CHUNK_TAIL;
}

int ft_write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

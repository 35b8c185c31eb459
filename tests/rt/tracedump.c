/* SPDX-License-Identifier: MIT */
/* tracedump.c - an independent decoder for the runtime's tests: reads a
 * trace with msgpack-c (not the project's reader), checks every chunk's
 * frame and CRC, prints one line per event ("tid KIND field..."; addresses
 * absolute, in hex; paired reads as READ_PAIRED and READ_WIDE_PAIRED,
 * their opcodes) plus HEADER/SITES/END summaries, and with --check
 * verifies that every read returns the last recorded write to each byte.
 * Exit status: 0 ok, 1 consistency violations, 2 malformed trace. */
#include <inttypes.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "recorder/encode.h"
#include "recorder/trace.h"

static const char *const names[128] = {
    [1] = "SWITCH", [2] = "THREAD_START", [3] = "THREAD_CREATE",
    [4] = "THREAD_EXIT", [5] = "THREAD_JOIN", [6] = "THREAD_DETACH",
    [7] = "THREAD_CANCEL", [8] = "THREAD_CANCELED",
    [10] = "READ", [11] = "WRITE", [12] = "READ_WIDE", [13] = "WRITE_WIDE",
    [14] = "READ_PAIRED", [15] = "READ_WIDE_PAIRED",
    [20] = "ATOMIC_LOAD", [21] = "ATOMIC_STORE", [22] = "ATOMIC_RMW",
    [23] = "ATOMIC_CAS", [24] = "FENCE", [30] = "MUTEX_INIT",
    [31] = "MUTEX_LOCK", [32] = "MUTEX_UNLOCK", [33] = "RW_RDLOCK",
    [34] = "RW_WRLOCK", [35] = "RW_UNLOCK", [36] = "MUTEX_DESTROY",
    [37] = "RW_DESTROY", [40] = "COND_WAIT",
    [41] = "COND_WAKE", [42] = "COND_SIGNAL", [43] = "COND_BROADCAST",
    [50] = "SEM_INIT", [51] = "SEM_POST", [52] = "SEM_WAIT",
    [53] = "BARRIER_INIT", [54] = "BARRIER_ARRIVE", [55] = "BARRIER_LEAVE",
    [56] = "ONCE_ENTER", [57] = "ONCE_DONE", [60] = "MALLOC", [61] = "FREE",
    [62] = "REALLOC", [70] = "FUNC_ENTRY", [71] = "FUNC_EXIT", [72] = "SLEEP",
    [73] = "YIELD", [74] = "REGION_BEGIN", [75] = "REGION_END", [80] = "STEAL",
    [81] = "DEADLOCK", [82] = "SIGNAL", [83] = "DIVERGE",
    [84] = "HEAP_ERROR", [85] = "BLOCKED", [86] = "ABORT", [87] = "MISUSE",
};
static const int nfields[128] = {
    [1] = 1, [2] = 1, [3] = 2, [4] = 0, [5] = 2, [6] = 2, [7] = 2, [8] = 1, [10] = 4, [11] = 4,
    [12] = 4, [13] = 4, [14] = 4, [15] = 4, [20] = 5, [21] = 5, [22] = 7,
    [23] = 8, [24] = 2,
    [30] = 3, [31] = 4, [32] = 3, [33] = 4, [34] = 4, [35] = 3, [36] = 2, [37] = 2, [40] = 3,
    [41] = 4, [42] = 3, [43] = 3, [50] = 3, [51] = 2, [52] = 4, [53] = 3,
    [54] = 2, [55] = 3, [56] = 3, [57] = 2, [60] = 4, [61] = 2, [62] = 5,
    [70] = 2, [71] = 0, [72] = 2, [73] = 1, [74] = 1, [75] = 1, [80] = 1,
    [81] = 0, [82] = 1, [83] = 4, [84] = 4, [85] = 4, [86] = 1, [87] = 4,
};

static int is_addr(int kind, int i)
{
    if (kind >= 10 && kind <= 62 && kind != 24 && i == 1)
        return 1;
    if ((kind == 84 || kind == 87) && i == 1) /* HEAP_ERROR, MISUSE addr */
        return 1;
    return i == 2 && (kind == 40 || kind == 41 || kind == 62 || kind == 85);
}

/* Byte memory for --check: open addressing, value -1 = unknown. */
static uint64_t *mkeys;
static int16_t *mvals;
static size_t mcap = 1 << 20, mcount;

static int16_t *mslot(uint64_t a, int create)
{
    if (create && mcount * 2 > mcap) {
        uint64_t *ok = mkeys;
        int16_t *ov = mvals;
        size_t oc = mcap;
        mcap *= 2;
        mkeys = calloc(mcap, 8);
        mvals = calloc(mcap, 2);
        mcount = 0;
        for (size_t i = 0; i < oc; i++)
            if (ok[i])
                *mslot(ok[i], 1) = ov[i];
        free(ok);
        free(ov);
    }
    size_t h = (a * 0x9e3779b97f4a7c15ull) >> 20 & (mcap - 1);
    while (mkeys[h] && mkeys[h] != a + 1)
        h = (h + 1) & (mcap - 1);
    if (!mkeys[h]) {
        if (!create)
            return NULL;
        mkeys[h] = a + 1;
        mvals[h] = -1;
        mcount++;
    }
    return &mvals[h];
}

static uint64_t violations, checked;
static int verbose_check;

static void mem_check(uint64_t a, const uint8_t *b, uint64_t n, uint64_t idx)
{
    for (uint64_t i = 0; i < n; i++) {
        int16_t *s = mslot(a + i, 0);
        if (!s || *s < 0)
            continue;
        checked++;
        if (*s != b[i]) {
            if (violations++ < 10 || verbose_check)
                fprintf(stderr, "violation: event %" PRIu64 " reads 0x%02x at %#" PRIx64
                        ", last write stored 0x%02x\n", idx, b[i], a + i, *s);
        }
    }
}

static void mem_set(uint64_t a, const uint8_t *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        *mslot(a + i, 1) = b ? b[i] : -1;
}

static void mem_forget(uint64_t a, uint64_t n)
{
    if (n > (1u << 24))
        n = 1u << 24;
    for (uint64_t i = 0; i < n; i++) {
        int16_t *s = mslot(a + i, 0);
        if (s)
            *s = -1;
    }
}

static void le(uint64_t v, uint8_t *b)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static int quiet, check;
static int split_reads; /* version 3: READ/READ_WIDE own address register */

/* The header's "version". */
static uint64_t header_version(const char *body, size_t len)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    uint64_t v = 0;
    if (msgpack_unpack_next(&u, body, len, &off) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            msgpack_object_kv *kv = &u.data.via.map.ptr[i];
            if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == 7 &&
                !memcmp(kv->key.via.str.ptr, "version", 7) &&
                kv->val.type == MSGPACK_OBJECT_POSITIVE_INTEGER)
                v = kv->val.via.u64;
        }
    msgpack_unpacked_destroy(&u);
    return v;
}
static char *buf;
static char *zraw; /* the current compressed chunk, decompressed */
static unsigned nevchunks, nzstd; /* EVENTS chunks, compressed ones */

static int events_chunk(const char *body, size_t len)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    uint64_t head[2];
    for (int i = 0; i < 2; i++) {
        if (msgpack_unpack_next(&u, body, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            u.data.type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            goto bad;
        head[i] = u.data.via.u64;
    }
    uint64_t idx = head[0], tid = head[1], any = 0, read = 0;
    while (off < len) {
        if (msgpack_unpack_next(&u, body, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            u.data.type != MSGPACK_OBJECT_POSITIVE_INTEGER || u.data.via.u64 > 127 ||
            !names[u.data.via.u64])
            goto bad;
        int kind = (int)u.data.via.u64;
        uint64_t f[8] = {0};
        const uint8_t *bin = NULL;
        uint32_t binlen = 0;
        int isnil = 0;
        char line[512];
        int n = snprintf(line, sizeof line, "%" PRIu64 " %s", tid, names[kind]);
        for (int i = 0; i < nfields[kind]; i++) {
            if (msgpack_unpack_next(&u, body, len, &off) != MSGPACK_UNPACK_SUCCESS)
                goto bad;
            msgpack_object *o = &u.data;
            if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
                f[i] = o->via.u64;
            else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
                f[i] = (uint64_t)o->via.i64;
            else if (o->type == MSGPACK_OBJECT_BIN) {
                static uint8_t copy[1 << 16];
                binlen = o->via.bin.size;
                memcpy(copy, o->via.bin.ptr, binlen < sizeof copy ? binlen : sizeof copy);
                bin = copy;
            } else if (o->type == MSGPACK_OBJECT_NIL)
                isnil = 1;
            else
                goto bad;
            if (is_addr(kind, i)) {
                uint64_t *reg = split_reads && (kind == 10 || kind == 12 ||
                                                kind == 14 || kind == 15)
                                    ? &read
                                    : &any;
                *reg += f[i];
                f[i] = *reg;
                n += snprintf(line + n, sizeof line - (size_t)n, " %#" PRIx64, f[i]);
            } else if (o->type == MSGPACK_OBJECT_BIN) {
                n += snprintf(line + n, sizeof line - (size_t)n, " bin:%u", binlen);
            } else if (o->type == MSGPACK_OBJECT_NIL) {
                n += snprintf(line + n, sizeof line - (size_t)n, " nil");
            } else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
                n += snprintf(line + n, sizeof line - (size_t)n, " %" PRId64, o->via.i64);
            } else {
                n += snprintf(line + n, sizeof line - (size_t)n, " %" PRIu64, f[i]);
            }
        }
        if (kind == 1) {
            tid = f[0];
        } else {
            if (!quiet)
                printf("%s\n", line);
            if (check) {
                uint8_t b[8];
                switch (kind) {
                case 10: case 14: case 20:
                    le(f[kind == 20 ? 4 : 3], b);
                    mem_check(f[1], b, f[2], idx);
                    break;
                case 11: case 21: le(f[kind == 11 ? 3 : 4], b); mem_set(f[1], b, f[2]); break;
                case 12: case 15:
                    if (bin) mem_check(f[1], bin, binlen, idx);
                    break;
                case 13: if (bin) mem_set(f[1], bin, binlen); else mem_forget(f[1], f[2]); (void)isnil; break;
                case 22: le(f[5], b); mem_check(f[1], b, f[2], idx); le(f[6], b); mem_set(f[1], b, f[2]); break;
                case 23: le(f[6], b); mem_check(f[1], b, f[2], idx);
                         if (f[7]) { le(f[5], b); mem_set(f[1], b, f[2]); } break;
                case 60: mem_forget(f[1], f[2]); break;
                case 62: mem_forget(f[1], f[3]); break;
                }
            }
            idx++;
        }
    }
    msgpack_unpacked_destroy(&u);
    return 0;
bad:
    msgpack_unpacked_destroy(&u);
    return -1;
}

static void print_obj_str(const char *key, msgpack_object *v)
{
    if (v->type == MSGPACK_OBJECT_STR)
        printf("# %s %.*s\n", key, (int)v->via.str.size, v->via.str.ptr);
    else if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        printf("# %s %" PRIu64 "\n", key, v->via.u64);
    else if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        printf("# %s %" PRId64 "\n", key, v->via.i64);
    else if (v->type == MSGPACK_OBJECT_ARRAY)
        printf("# %s [%u]\n", key, v->via.array.size);
}

static void map_chunk(const char *what, const char *body, size_t len)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, body, len, &off) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP) {
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            msgpack_object_kv *kv = &u.data.via.map.ptr[i];
            char key[80];
            snprintf(key, sizeof key, "%s.%.*s", what, (int)kv->key.via.str.size,
                     kv->key.via.str.ptr);
            print_obj_str(key, &kv->val);
        }
    }
    msgpack_unpacked_destroy(&u);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: tracedump [--check] [--quiet] TRACE\n");
        return 2;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 2;
    }
    if (fseek(fp, 0, SEEK_END) != 0) {
        perror(path);
        return 2;
    }
    long size = ftell(fp);
    rewind(fp);
    buf = malloc(size > 0 ? (size_t)size : 1); /* global: reachable on every exit */
    size_t len = buf ? fread(buf, 1, (size_t)size, fp) : 0;
    fclose(fp);
    mkeys = calloc(mcap, 8);
    mvals = calloc(mcap, 2);
    size_t off = 0;
    uint64_t seq = 0;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    while (off < len) {
        size_t start = off;
        if (msgpack_unpack_next(&u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            u.data.type != MSGPACK_OBJECT_ARRAY || u.data.via.array.size != 4) {
            printf("# damaged at byte %zu\n", start);
            return 2;
        }
        msgpack_object *a = u.data.via.array.ptr;
        uint64_t kind = a[0].via.u64;
        const char *body = a[2].via.bin.ptr;
        size_t blen = a[2].via.bin.size;
        if (a[1].via.u64 != seq++ ||
            ft_crc32c(0, body, blen) != (uint32_t)a[3].via.u64) {
            printf("# bad seq or crc in chunk at byte %zu\n", start);
            return 2;
        }
        if (kind & FT_CHUNK_ZSTD) { /* format 4: the CRC is of these bytes */
            kind &= FT_CHUNK_KIND_MASK;
            nzstd += kind == FT_CHUNK_EVENTS;
            unsigned long long raw = ZSTD_getFrameContentSize(body, blen);
            free(zraw);
            zraw = raw <= FT_CHUNK_MAX_BODY ? malloc(raw ? raw : 1) : NULL;
            if (!zraw || ZSTD_decompress(zraw, raw, body, blen) != raw) {
                printf("# bad compressed chunk at byte %zu\n", start);
                return 2;
            }
            body = zraw;
            blen = raw;
        }
        if (kind == FT_CHUNK_HEADER) {
            map_chunk("header", body, blen);
            split_reads = header_version(body, blen) >= 3;
        } else if (kind == FT_CHUNK_END) {
            map_chunk("end", body, blen);
        } else if (kind == FT_CHUNK_SITES || kind == FT_CHUNK_MODULES) {
            msgpack_unpacked s;
            msgpack_unpacked_init(&s);
            size_t so = 0;
            unsigned n = 0;
            while (so < blen && msgpack_unpack_next(&s, body, blen, &so) == MSGPACK_UNPACK_SUCCESS)
                n++;
            msgpack_unpacked_destroy(&s);
            printf("# %s %u\n", kind == FT_CHUNK_SITES ? "sites" : "modules", n);
        } else if (kind == FT_CHUNK_EVENTS) {
            nevchunks++;
            if (events_chunk(body, blen) < 0) {
                printf("# bad events chunk at byte %zu\n", start);
                return 2;
            }
        }
    }
    msgpack_unpacked_destroy(&u);
    free(buf);
    free(zraw);
    printf("# chunks %" PRIu64 " events %u compressed %u\n", seq, nevchunks,
           nzstd);
    if (check)
        printf("# check %" PRIu64 " bytes checked, %" PRIu64 " violations\n",
               checked, violations);
    return violations ? 1 : 0;
}

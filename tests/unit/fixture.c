/* SPDX-License-Identifier: MIT */
/* fixture.c - helpers shared by the trace tests (see fixture.h). */
#include "fixture.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t rng_next(rng *r)
{
    /* splitmix64: tiny, seedable, good enough for test data */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rng_below(rng *r, uint64_t n)
{
    return n ? rng_next(r) % n : 0;
}

uint64_t rng_edge(rng *r)
{
    static const uint64_t edges[] = {
        0, 1, 31, 32, 127, 128, 255, 256, 65535, 65536, 0x7fffffff,
        0x80000000u, 0xffffffffu, 0x100000000ull, 0x7fffffffffffffffull,
        0x8000000000000000ull, 0xffffffffffffffffull, 0xfffffffffffffffeull,
    };
    size_t n = sizeof edges / sizeof edges[0];
    uint64_t k = rng_below(r, n + 3);
    if (k < n)
        return edges[k];
    if (k == n)
        return rng_next(r) >> rng_below(r, 64);
    return rng_next(r);
}

const unsigned fx_kinds[] = {
    FT_EV_THREAD_START, FT_EV_THREAD_CREATE, FT_EV_THREAD_EXIT,
    FT_EV_THREAD_JOIN, FT_EV_THREAD_DETACH, FT_EV_READ, FT_EV_WRITE,
    FT_EV_READ_WIDE, FT_EV_WRITE_WIDE, FT_EV_ATOMIC_LOAD, FT_EV_ATOMIC_STORE,
    FT_EV_ATOMIC_RMW, FT_EV_ATOMIC_CAS, FT_EV_FENCE, FT_EV_MUTEX_INIT,
    FT_EV_MUTEX_LOCK, FT_EV_MUTEX_UNLOCK, FT_EV_RW_RDLOCK, FT_EV_RW_WRLOCK,
    FT_EV_RW_UNLOCK, FT_EV_MUTEX_DESTROY, FT_EV_RW_DESTROY, FT_EV_COND_WAIT,
    FT_EV_COND_WAKE, FT_EV_COND_SIGNAL,
    FT_EV_COND_BROADCAST, FT_EV_SEM_INIT, FT_EV_SEM_POST, FT_EV_SEM_WAIT,
    FT_EV_BARRIER_INIT, FT_EV_BARRIER_ARRIVE, FT_EV_BARRIER_LEAVE,
    FT_EV_ONCE_ENTER, FT_EV_ONCE_DONE, FT_EV_MALLOC, FT_EV_FREE,
    FT_EV_REALLOC, FT_EV_FUNC_ENTRY, FT_EV_FUNC_EXIT, FT_EV_SLEEP,
    FT_EV_YIELD, FT_EV_REGION_BEGIN, FT_EV_REGION_END, FT_EV_STEAL,
    FT_EV_DEADLOCK, FT_EV_SIGNAL, FT_EV_ABORT, FT_EV_THREAD_CANCEL,
    FT_EV_THREAD_CANCELED, FT_EV_MISUSE,
};
const size_t fx_nkinds = sizeof fx_kinds / sizeof fx_kinds[0];

static uint32_t e32(rng *r) { return (uint32_t)rng_edge(r); }

uint32_t rng_tid(rng *r)
{
    static const uint32_t edges[] = {0, 1, 2, 127, 128,
                                     FT_TRACE_MAX_THREADS - 1};
    uint64_t k = rng_below(r, 8);
    return k < 6 ? edges[k] : (uint32_t)rng_below(r, FT_TRACE_MAX_THREADS);
}

void fx_random_event(rng *r, unsigned kind, ft_event *ev, uint8_t *buf)
{
    static const uint16_t sizes[] = {1, 2, 4, 8};
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint16_t)kind;
    switch (kind) {
    case FT_EV_THREAD_START:
        ev->value = rng_tid(r);
        break;
    case FT_EV_STEAL:
    case FT_EV_SIGNAL:
        ev->value = e32(r);
        break;
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN:
    case FT_EV_THREAD_DETACH:
    case FT_EV_THREAD_CANCEL:
        ev->site = e32(r);
        ev->value = rng_tid(r);
        break;
    case FT_EV_THREAD_EXIT:
    case FT_EV_FUNC_EXIT:
    case FT_EV_DEADLOCK:
        break;
    case FT_EV_READ:
    case FT_EV_WRITE:
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
    case FT_EV_ATOMIC_RMW:
    case FT_EV_ATOMIC_CAS:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->size = sizes[rng_below(r, 4)];
        ev->value = rng_edge(r);
        if (kind != FT_EV_READ && kind != FT_EV_WRITE)
            ev->mo = (uint8_t)rng_below(r, 256);
        if (kind == FT_EV_READ) /* one in four paired (opcode 14) */
            ev->arg = rng_below(r, 4) ? 0 : FT_READ_PAIRED;
        if (kind == FT_EV_ATOMIC_RMW) {
            ev->arg = e32(r);
            ev->value2 = rng_edge(r);
        } else if (kind == FT_EV_ATOMIC_CAS) {
            ev->value2 = rng_edge(r);
            ev->value3 = rng_edge(r);
            ev->arg = e32(r);
        }
        break;
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        if (rng_below(r, 4) == 0) { /* elided */
            ev->size = (uint16_t)rng_edge(r);
            ev->value = ev->size;
        } else {
            ev->size = (uint16_t)(rng_below(r, 4) ? rng_below(r, 64)
                                                  : rng_below(r, 4097));
            ev->value = ev->size;
            for (unsigned i = 0; i < ev->size; i++)
                buf[i] = (uint8_t)rng_next(r);
            ev->bytes = buf;
            ev->nbytes = ev->size;
        }
        if (kind == FT_EV_READ_WIDE) /* one in four paired (opcode 15) */
            ev->arg = rng_below(r, 4) ? 0 : FT_READ_PAIRED;
        break;
    case FT_EV_FENCE:
        ev->site = e32(r);
        ev->mo = (uint8_t)rng_below(r, 256);
        break;
    case FT_EV_MUTEX_INIT:
    case FT_EV_BARRIER_LEAVE:
    case FT_EV_ONCE_ENTER:
    case FT_EV_COND_BROADCAST:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->arg = e32(r);
        break;
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT:
        ev->arg = e32(r);
        /* fall through */
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->rc = (int32_t)e32(r);
        break;
    case FT_EV_COND_WAKE:
        ev->arg = e32(r);
        /* fall through */
    case FT_EV_COND_WAIT:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->obj2 = rng_edge(r);
        break;
    case FT_EV_COND_SIGNAL:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->arg = (uint32_t)rng_below(r, 2);
        ev->value = ev->arg ? e32(r) : 0;
        break;
    case FT_EV_SEM_INIT:
    case FT_EV_BARRIER_INIT:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->value = rng_edge(r);
        break;
    case FT_EV_SEM_POST:
    case FT_EV_MUTEX_DESTROY:
    case FT_EV_RW_DESTROY:
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_ONCE_DONE:
    case FT_EV_FREE:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        break;
    case FT_EV_REALLOC:
        ev->obj2 = rng_edge(r);
        /* fall through */
    case FT_EV_MALLOC:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->value = rng_edge(r);
        ev->value2 = rng_edge(r);
        break;
    case FT_EV_FUNC_ENTRY:
    case FT_EV_SLEEP:
        ev->site = e32(r);
        ev->value = rng_edge(r);
        break;
    case FT_EV_YIELD:
    case FT_EV_REGION_BEGIN:
    case FT_EV_REGION_END:
    case FT_EV_ABORT:
    case FT_EV_THREAD_CANCELED:
        ev->site = e32(r);
        break;
    case FT_EV_MISUSE:
        ev->site = e32(r);
        ev->addr = rng_edge(r);
        ev->arg = e32(r);
        ev->value = e32(r);
        break;
    default:
        fail_msg("fixture does not know kind %u", kind);
    }
}

int fx_write_trace(const char *path, const ft_event *evs, size_t n,
                   uint32_t nsites, const char *end_reason)
{
    return fx_write_trace_level(path, evs, n, nsites, end_reason, 0);
}

int fx_write_trace_level(const char *path, const ft_event *evs, size_t n,
                         uint32_t nsites, const char *end_reason, int level)
{
    static const char *argv[] = {"prog", "--flag", "arg"};
    ft_module mods[2] = {{"/usr/bin/prog", 0x400000, 0x10000, "00ff"},
                         {"/lib/libc.so.6", 0x7f0000000000, 0x200000, ""}};
    ft_header h = {.version = 1, .program = "/usr/bin/prog", .argc = 3,
                   .argv = argv, .pid = 1234, .start_time_ns = 42,
                   .nmodules = 2, .modules = mods};
    ft_error err;
    ft_writer *w = ft_writer_open_level(path, &h, level, &err);
    if (!w)
        return -1;
    for (uint32_t s = 1; s <= nsites; s++) {
        char fn[32], file[32];
        snprintf(fn, sizeof fn, "func%u", s);
        snprintf(file, sizeof file, "src/file%u.c", s % 7);
        ft_site site = {.id = s, .module = s % 2, .offset = 0x1000 + 16 * s,
                        .function = fn, .file = file, .line = s * 3,
                        .column = s % 5};
        if (ft_writer_site(w, &site) < 0)
            return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (ft_writer_event(w, &evs[i]) < 0)
            return -1;
    ft_end end = {.present = end_reason != NULL, .exit_status = 0,
                  .reason = end_reason};
    return ft_writer_close(w, &end);
}

void fx_temp_path(char *buf, size_t len, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/ft-%s-XXXXXX", dir ? dir : "/tmp", tag);
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

uint8_t *fx_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

int fx_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

void fx_assert_event_eq(const ft_event *a, const ft_event *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->tid, b->tid);
    assert_int_equal(a->size, b->size);
    assert_int_equal(a->site, b->site);
    assert_int_equal(a->arg, b->arg);
    assert_int_equal(a->addr, b->addr);
    assert_int_equal(a->obj2, b->obj2);
    assert_int_equal(a->value, b->value);
    assert_int_equal(a->value2, b->value2);
    assert_int_equal(a->value3, b->value3);
    assert_int_equal(a->rc, b->rc);
    assert_int_equal(a->mo, b->mo);
    assert_int_equal(a->nbytes, b->nbytes);
    assert_int_equal(a->bytes == NULL, b->bytes == NULL);
    if (a->bytes)
        assert_memory_equal(a->bytes, b->bytes, a->nbytes);
}

size_t fx_chunks(const uint8_t *d, size_t len, uint64_t *ends,
                 unsigned *kinds, size_t max)
{
    size_t n = 0, off = 0;
    while (off + 16 <= len && n < max) {
        uint32_t blen = (uint32_t)d[off + 12] << 24 |
                        (uint32_t)d[off + 13] << 16 |
                        (uint32_t)d[off + 14] << 8 | d[off + 15];
        kinds[n] = d[off + 1];
        off += 16 + blen + 5;
        ends[n++] = off;
    }
    return n;
}

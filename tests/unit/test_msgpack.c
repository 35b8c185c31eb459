/* SPDX-License-Identifier: MIT */
/* test_msgpack.c - the bytes foretell writes are ordinary msgpack, and the
 * hand-written event decoder agrees with msgpack-c.  msgpack-c walks whole
 * files (every chunk is a 4-array [kind, seq, bin body, crc]; every body is
 * a valid msgpack stream), then an independent decoding of each EVENTS body
 * built from msgpack-c objects and the field table of
 * docs/trace-format.md is compared, event by event, with what ft_reader
 * delivers. */
#include "fixture.h"
#include "recorder/encode.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Wire fields per kind, transcribed from docs/trace-format.md:
 * s site, a addr/obj delta, o second object delta (obj2), z size,
 * m mo, v value, w value2, x value3, g arg, r rc (signed),
 * b bytes-or-nil, k cond_signal woken (signed, -1 none). */
static const char *wire_fields(unsigned kind)
{
    switch (kind) {
    case FT_EV_THREAD_START: return "v";
    case FT_EV_THREAD_CREATE: case FT_EV_THREAD_JOIN:
    case FT_EV_THREAD_DETACH: case FT_EV_THREAD_CANCEL: return "sv";
    case FT_EV_THREAD_EXIT: case FT_EV_FUNC_EXIT: case FT_EV_DEADLOCK:
        return "";
    case FT_EV_READ: case FT_EV_WRITE: case FT_OP_READ_PAIRED:
        return "sazv";
    case FT_EV_READ_WIDE: case FT_EV_WRITE_WIDE: case FT_OP_READ_WIDE_PAIRED:
        return "sazb";
    case FT_EV_ATOMIC_LOAD: case FT_EV_ATOMIC_STORE: return "sazmv";
    case FT_EV_ATOMIC_RMW: return "sazmgvw";
    case FT_EV_ATOMIC_CAS: return "sazmvwxg";
    case FT_EV_FENCE: return "sm";
    case FT_EV_MUTEX_INIT: case FT_EV_BARRIER_LEAVE: case FT_EV_ONCE_ENTER:
    case FT_EV_COND_BROADCAST: return "sag";
    case FT_EV_MUTEX_LOCK: case FT_EV_RW_RDLOCK: case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT: return "sagr";
    case FT_EV_MUTEX_UNLOCK: case FT_EV_RW_UNLOCK: return "sar";
    case FT_EV_COND_WAIT: return "sao";
    case FT_EV_COND_WAKE: return "saog";
    case FT_EV_COND_SIGNAL: return "sak";
    case FT_EV_SEM_INIT: case FT_EV_BARRIER_INIT: return "sav";
    case FT_EV_SEM_POST: case FT_EV_BARRIER_ARRIVE: case FT_EV_ONCE_DONE:
    case FT_EV_MUTEX_DESTROY: case FT_EV_RW_DESTROY:
    case FT_EV_FREE: return "sa";
    case FT_EV_MALLOC: return "savw";
    case FT_EV_REALLOC: return "soavw";
    case FT_EV_FUNC_ENTRY: case FT_EV_SLEEP: return "sv";
    case FT_EV_YIELD: case FT_EV_REGION_BEGIN: case FT_EV_REGION_END:
    case FT_EV_ABORT: case FT_EV_THREAD_CANCELED:
        return "s";
    case FT_EV_STEAL: case FT_EV_SIGNAL: return "v";
    case FT_EV_MISUSE: return "sagv";
    default: return NULL;
    }
}

static uint64_t as_u64(const msgpack_object *o)
{
    assert_true(o->type == MSGPACK_OBJECT_POSITIVE_INTEGER);
    return o->via.u64;
}

static int64_t as_i64(const msgpack_object *o)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return o->via.i64;
    assert_true(o->type == MSGPACK_OBJECT_POSITIVE_INTEGER);
    return (int64_t)o->via.u64;
}

/* Paired reads (opcodes 14, 15) met so far: the random traces must have
 * some, or the cross-check would not cover them. */
static uint64_t paired_seen;

typedef struct body_walk {
    msgpack_unpacker u;
    msgpack_unpacked obj;
} body_walk;

static int next_obj(body_walk *b)
{
    msgpack_unpack_return rc = msgpack_unpacker_next(&b->u, &b->obj);
    assert_true(rc == MSGPACK_UNPACK_SUCCESS || rc == MSGPACK_UNPACK_CONTINUE);
    return rc == MSGPACK_UNPACK_SUCCESS;
}

/* Decodes an EVENTS body with msgpack-c and compares each event with the
 * reader's.  Returns the number of events. */
static uint64_t check_events_body(const uint8_t *body, size_t n, ft_reader *r)
{
    body_walk b;
    assert_true(msgpack_unpacker_init(&b.u, n + 16));
    msgpack_unpacked_init(&b.obj);
    memcpy(msgpack_unpacker_buffer(&b.u), body, n);
    msgpack_unpacker_buffer_consumed(&b.u, n);
    assert_true(next_obj(&b));
    uint64_t first = as_u64(&b.obj.data);
    assert_true(next_obj(&b));
    uint32_t tid = (uint32_t)as_u64(&b.obj.data);
    /* version 3: READ and READ_WIDE addresses have their own register */
    int split = ft_reader_header(r)->version >= 3;
    uint64_t any = 0, read = 0, count = 0;
    while (next_obj(&b)) {
        unsigned op = (unsigned)as_u64(&b.obj.data);
        if (op == FT_EV_SWITCH) {
            assert_true(next_obj(&b));
            tid = (uint32_t)as_u64(&b.obj.data);
            continue;
        }
        const char *f = wire_fields(op);
        assert_non_null(f);
        /* paired reads (14, 15) are delivered as reads with the mark */
        unsigned kind = op == FT_OP_READ_PAIRED        ? FT_EV_READ
                        : op == FT_OP_READ_WIDE_PAIRED ? FT_EV_READ_WIDE
                                                       : op;
        ft_event want = {.kind = (uint16_t)kind, .tid = tid,
                         .index = first + count,
                         .arg = kind != op ? FT_READ_PAIRED : 0};
        paired_seen += kind != op;
        uint64_t *reg = split && (kind == FT_EV_READ ||
                                  kind == FT_EV_READ_WIDE)
                            ? &read
                            : &any;
        for (; *f; f++) {
            assert_true(next_obj(&b));
            const msgpack_object *o = &b.obj.data;
            switch (*f) {
            case 's': want.site = (uint32_t)as_u64(o); break;
            case 'a': *reg += (uint64_t)as_i64(o); want.addr = *reg; break;
            case 'o': *reg += (uint64_t)as_i64(o); want.obj2 = *reg; break;
            case 'z':
                want.size = (uint16_t)as_u64(o);
                if (kind == FT_EV_READ_WIDE || kind == FT_EV_WRITE_WIDE)
                    want.value = as_u64(o);
                break;
            case 'm': want.mo = (uint8_t)as_u64(o); break;
            case 'v': want.value = as_u64(o); break;
            case 'w': want.value2 = as_u64(o); break;
            case 'x': want.value3 = as_u64(o); break;
            case 'g': want.arg = (uint32_t)as_u64(o); break;
            case 'r': want.rc = (int32_t)as_i64(o); break;
            case 'k': {
                int64_t w = as_i64(o);
                want.arg = w >= 0;
                want.value = w >= 0 ? (uint64_t)w : 0;
                break;
            }
            case 'b':
                if (o->type == MSGPACK_OBJECT_NIL)
                    break;
                assert_true(o->type == MSGPACK_OBJECT_BIN);
                want.bytes = (const uint8_t *)o->via.bin.ptr;
                want.nbytes = o->via.bin.size;
                break;
            }
        }
        ft_event got;
        assert_int_equal(ft_reader_next(r, &got), 1);
        assert_int_equal(got.index, want.index);
        fx_assert_event_eq(&want, &got);
        count++;
    }
    msgpack_unpacked_destroy(&b.obj);
    msgpack_unpacker_destroy(&b.u);
    return count;
}

/* Walks a whole trace file with msgpack_unpacker. */
static void walk_file(const uint8_t *data, size_t len, ft_reader *r,
                      uint64_t expect_events)
{
    msgpack_unpacker u;
    assert_true(msgpack_unpacker_init(&u, 1 << 16));
    msgpack_unpacked obj;
    msgpack_unpacked_init(&obj);
    size_t fed = 0;
    uint64_t seq = 0, events = 0;
    for (;;) {
        msgpack_unpack_return rc = msgpack_unpacker_next(&u, &obj);
        assert_true(rc >= 0);
        if (rc == MSGPACK_UNPACK_CONTINUE) {
            if (fed == len)
                break;
            size_t n = len - fed < 4096 ? len - fed : 4096;
            assert_true(msgpack_unpacker_reserve_buffer(&u, n));
            memcpy(msgpack_unpacker_buffer(&u), data + fed, n);
            msgpack_unpacker_buffer_consumed(&u, n);
            fed += n;
            continue;
        }
        const msgpack_object *c = &obj.data;
        assert_int_equal(c->type, MSGPACK_OBJECT_ARRAY);
        assert_int_equal(c->via.array.size, 4);
        const msgpack_object *a = c->via.array.ptr;
        unsigned kind = (unsigned)as_u64(&a[0]);
        assert_int_equal(as_u64(&a[1]), seq++);
        assert_int_equal(a[2].type, MSGPACK_OBJECT_BIN);
        const uint8_t *body = (const uint8_t *)a[2].via.bin.ptr;
        uint32_t blen = a[2].via.bin.size;
        assert_int_equal(as_u64(&a[3]), ft_crc32c(0, body, blen));
        if (seq == 1)
            assert_int_equal(kind, FT_CHUNK_HEADER);
        if (kind == FT_CHUNK_EVENTS) {
            events += check_events_body(body, blen, r);
        } else {
            /* every other body is a valid msgpack stream too */
            size_t off = 0;
            msgpack_unpacked v;
            msgpack_unpacked_init(&v);
            while (off < blen)
                assert_int_equal(msgpack_unpack_next(&v, (const char *)body,
                                                     blen, &off),
                                 MSGPACK_UNPACK_SUCCESS);
            if (kind == FT_CHUNK_HEADER || kind == FT_CHUNK_END)
                assert_int_equal(v.data.type, MSGPACK_OBJECT_MAP);
            if (kind == FT_CHUNK_SITES) {
                assert_int_equal(v.data.type, MSGPACK_OBJECT_ARRAY);
                assert_int_equal(v.data.via.array.size, 3);
            }
            msgpack_unpacked_destroy(&v);
        }
    }
    assert_int_equal(events, expect_events);
    ft_event ev;
    assert_int_equal(ft_reader_next(r, &ev), 0);
    msgpack_unpacked_destroy(&obj);
    msgpack_unpacker_destroy(&u);
}

static void run_case(uint64_t seed, size_t n)
{
    rng g = {seed};
    ft_event *evs = calloc(n, sizeof *evs);
    uint8_t *bufs = malloc(n * 4096);
    assert_non_null(evs);
    assert_non_null(bufs);
    for (size_t i = 0; i < n; i++) {
        fx_random_event(&g, fx_kinds[rng_below(&g, fx_nkinds)], &evs[i],
                        bufs + i * 4096);
        evs[i].tid = rng_below(&g, 3) ? (uint32_t)rng_below(&g, 3)
                                      : rng_tid(&g);
    }
    char path[256];
    fx_temp_path(path, sizeof path, "mp");
    assert_int_equal(fx_write_trace(path, evs, n, 30, "exit"), 0);
    size_t len;
    uint8_t *data = fx_read_file(path, &len);
    ft_error err;
    ft_reader *r = ft_reader_open_mem(data, len, path, &err);
    assert_non_null(r);
    walk_file(data, len, r, n);
    ft_reader_close(r);
    free(data);
    free(evs);
    free(bufs);
    unlink(path);
}

static void test_msgpack_c_agrees_small(void **state)
{
    (void)state;
    paired_seen = 0;
    for (uint64_t seed = 1; seed <= 200; seed++)
        run_case(seed, 1 + seed % 50);
    assert_true(paired_seen > 0);
}

static void test_msgpack_c_agrees_multichunk(void **state)
{
    (void)state;
    run_case(12345, 3000); /* wide contents push this over 1 MB chunks */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msgpack_c_agrees_small),
        cmocka_unit_test(test_msgpack_c_agrees_multichunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

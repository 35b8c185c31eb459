/* SPDX-License-Identifier: MIT */
/* reader_decode.c - the event decoder: the reader's hot path.  A bounded,
 * hand-written msgpack decoder for EVENTS bodies, because going through
 * msgpack-c objects costs several times more per event and loading must
 * reach ~10 M events/s.  The field table mirrors event_encode.c (one case
 * per wire layout); tests/unit/test_decode_msgpack.c cross-checks it
 * against msgpack-c on the same bytes.
 *
 * Every read is bounds-checked against the body end; integers accept any
 * msgpack integer encoding (not only the smallest one the writer emits) as
 * long as the value fits the field. */
#include "recorder/reader_internal.h"

#include <string.h>

typedef struct dec {
    const uint8_t *p, *end;
    const char *why;
} dec;

static inline uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Reads any msgpack integer.  *neg is set when the value is negative (then
 * the returned bits are the two's complement int64). */
static inline int get_int(dec *d, uint64_t *out, int *neg)
{
    if (d->p >= d->end) {
        d->why = "expected an integer field, found the end of the chunk";
        return -1;
    }
    uint8_t b = *d->p;
    *neg = 0;
    if (b < 0x80) {
        *out = b;
        d->p++;
        return 0;
    }
    if (b >= 0xe0) {
        *out = (uint64_t)(int64_t)(int8_t)b;
        *neg = 1;
        d->p++;
        return 0;
    }
    int n;
    int is_signed = 0;
    switch (b) {
    case 0xcc: n = 1; break;
    case 0xcd: n = 2; break;
    case 0xce: n = 4; break;
    case 0xcf: n = 8; break;
    case 0xd0: n = 1; is_signed = 1; break;
    case 0xd1: n = 2; is_signed = 1; break;
    case 0xd2: n = 4; is_signed = 1; break;
    case 0xd3: n = 8; is_signed = 1; break;
    default:
        d->why = "expected an integer field, found another msgpack type";
        return -1;
    }
    if (d->end - d->p < n + 1) {
        d->why = "integer field runs past the end of the chunk";
        return -1;
    }
    uint64_t v = be(d->p + 1, n);
    if (is_signed && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    *neg = is_signed && (int64_t)v < 0;
    *out = v;
    d->p += n + 1;
    return 0;
}

static int get_uint_any(dec *d, uint64_t *out, uint64_t max);

/* The hot path: most fields are positive fixints (one byte below 0x80);
 * everything else goes through the general decoder. */
static inline __attribute__((always_inline)) int get_uint(dec *d,
                                                          uint64_t *out,
                                                          uint64_t max)
{
    if (__builtin_expect(d->p < d->end && *d->p < 0x80 && *d->p <= max, 1)) {
        *out = *d->p++;
        return 0;
    }
    return get_uint_any(d, out, max);
}

static int get_uint_any(dec *d, uint64_t *out, uint64_t max)
{
    int neg;
    const uint8_t *at = d->p;
    if (get_int(d, out, &neg) < 0)
        return -1;
    if (neg || *out > max) {
        d->p = at;
        d->why = neg ? "expected an unsigned field, found a negative integer"
                     : "integer field is out of range for its kind";
        return -1;
    }
    return 0;
}

static inline int get_sint(dec *d, int64_t *out, int64_t min, int64_t max)
{
    int neg;
    uint64_t v;
    const uint8_t *at = d->p;
    if (get_int(d, &v, &neg) < 0)
        return -1;
    if ((!neg && v > (uint64_t)INT64_MAX) || (int64_t)v < min ||
        (int64_t)v > max) {
        d->p = at;
        d->why = "signed field is out of range for its kind";
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

#define U32 UINT32_MAX
#define GET_U(dst, max)                                                       \
    do {                                                                      \
        uint64_t v_;                                                          \
        if (get_uint(d, &v_, (max)) < 0)                                      \
            return -1;                                                        \
        (dst) = v_;                                                           \
    } while (0)

/* A thread id: below FT_TRACE_MAX_THREADS, so that no reader sizes a
 * per-thread table by a hostile id. */
static int get_tid(dec *d, uint64_t *out)
{
    if (get_uint(d, out, UINT64_MAX) < 0)
        return -1;
    if (*out >= FT_TRACE_MAX_THREADS) {
        d->why = "thread id beyond the format's limit of "
                 FT_TID_LIMIT_TEXT " threads";
        return -1;
    }
    return 0;
}
#define GET_TID(dst)                                                          \
    do {                                                                      \
        uint64_t v_;                                                          \
        if (get_tid(d, &v_) < 0)                                              \
            return -1;                                                        \
        (dst) = (uint32_t)v_;                                                 \
    } while (0)

static inline __attribute__((always_inline)) int get_addr(dec *d,
                                                          uint64_t *out,
                                                          uint64_t *reg)
{
    int neg;
    uint64_t v;
    const uint8_t *at = d->p;
    if (__builtin_expect(d->p < d->end && (*d->p < 0x80 || *d->p >= 0xe0), 1)) {
        /* a small delta: positive or negative fixint */
        *reg += (uint64_t)(int64_t)(int8_t)*d->p;
        d->p++;
        *out = *reg;
        return 0;
    }
    if (get_int(d, &v, &neg) < 0)
        return -1;
    if (!neg && v > (uint64_t)INT64_MAX) {
        d->p = at;
        d->why = "address delta does not fit a signed 64-bit integer";
        return -1;
    }
    *reg += v; /* two's complement: adds the signed delta modulo 2^64 */
    *out = *reg;
    return 0;
}

static inline __attribute__((always_inline)) int get_access_size(dec *d, ft_event *ev, int wide)
{
    uint64_t size;
    GET_U(size, wide ? U32 : 8);
    if (!wide && size != 1 && size != 2 && size != 4 && size != 8) {
        d->why = "access size must be 1, 2, 4 or 8";
        return -1;
    }
    /* ft_event.size is 16 bits; a wide range keeps its full length in
     * value (docs/reader.md). */
    ev->size = (uint16_t)(size > 0xffff ? 0xffff : size);
    if (wide)
        ev->value = size;
    return 0;
}

static int get_wide_bytes(dec *d, ft_event *ev)
{
    if (d->p >= d->end) {
        d->why = "expected bin or nil content, found the end of the chunk";
        return -1;
    }
    uint8_t b = *d->p;
    if (b == 0xc0) {
        d->p++;
        ev->bytes = NULL;
        ev->nbytes = 0;
        return 0;
    }
    int n = b == 0xc4 ? 1 : b == 0xc5 ? 2 : b == 0xc6 ? 4 : 0;
    if (!n) {
        d->why = "expected bin or nil content, found another msgpack type";
        return -1;
    }
    if (d->end - d->p < n + 1) {
        d->why = "bin length runs past the end of the chunk";
        return -1;
    }
    uint64_t len = be(d->p + 1, n);
    if (len > (uint64_t)(d->end - d->p - 1 - n)) {
        d->why = "bin content is longer than the rest of the chunk";
        return -1;
    }
    if (len != ev->value) {
        d->why = "wide content length differs from the access size";
        return -1;
    }
    ev->bytes = d->p + 1 + n;
    ev->nbytes = (uint32_t)len;
    d->p += 1 + n + len;
    return 0;
}

/* The fields after the opcode, per kind (cf. ft_encode_event). */
static int decode_fields(dec *d, ft_event *ev, ft_addr_regs *regs)
{
    uint64_t *reg = ft_addr_reg_of(regs, ev->kind);
    int64_t s;
    switch (ev->kind) {
    case FT_EV_THREAD_START:
        GET_TID(ev->value);
        return 0;
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN:
    case FT_EV_THREAD_DETACH:
    case FT_EV_THREAD_CANCEL:
        GET_U(ev->site, U32);
        GET_TID(ev->value);
        return 0;
    case FT_EV_THREAD_EXIT:
    case FT_EV_FUNC_EXIT:
    case FT_EV_DEADLOCK:
        return 0;
    case FT_EV_READ:
    case FT_EV_WRITE:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_access_size(d, ev, 0) < 0)
            return -1;
        GET_U(ev->value, UINT64_MAX);
        return 0;
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_access_size(d, ev, 1) < 0)
            return -1;
        return get_wide_bytes(d, ev);
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_access_size(d, ev, 0) < 0)
            return -1;
        GET_U(ev->mo, 0xff);
        GET_U(ev->value, UINT64_MAX);
        return 0;
    case FT_EV_ATOMIC_RMW:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_access_size(d, ev, 0) < 0)
            return -1;
        GET_U(ev->mo, 0xff);
        GET_U(ev->arg, U32);
        GET_U(ev->value, UINT64_MAX);
        GET_U(ev->value2, UINT64_MAX);
        return 0;
    case FT_EV_ATOMIC_CAS:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_access_size(d, ev, 0) < 0)
            return -1;
        GET_U(ev->mo, 0xff);
        GET_U(ev->value, UINT64_MAX);
        GET_U(ev->value2, UINT64_MAX);
        GET_U(ev->value3, UINT64_MAX);
        GET_U(ev->arg, U32);
        return 0;
    case FT_EV_FENCE:
        GET_U(ev->site, U32);
        GET_U(ev->mo, 0xff);
        return 0;
    case FT_EV_MUTEX_INIT:
    case FT_EV_BARRIER_LEAVE:
    case FT_EV_ONCE_ENTER:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->arg, U32);
        return 0;
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->arg, U32);
        if (get_sint(d, &s, INT32_MIN, INT32_MAX) < 0)
            return -1;
        ev->rc = (int32_t)s;
        return 0;
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 ||
            get_sint(d, &s, INT32_MIN, INT32_MAX) < 0)
            return -1;
        ev->rc = (int32_t)s;
        return 0;
    case FT_EV_COND_WAIT:
    case FT_EV_COND_WAKE:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 || get_addr(d, &ev->obj2, reg) < 0)
            return -1;
        if (ev->kind == FT_EV_COND_WAKE)
            GET_U(ev->arg, U32);
        return 0;
    case FT_EV_COND_SIGNAL:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0 ||
            get_sint(d, &s, -1, UINT32_MAX) < 0)
            return -1;
        ev->arg = s >= 0;
        ev->value = s >= 0 ? (uint64_t)s : 0;
        return 0;
    case FT_EV_COND_BROADCAST:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->arg, U32);
        return 0;
    case FT_EV_SEM_INIT:
    case FT_EV_BARRIER_INIT:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->value, UINT64_MAX);
        return 0;
    case FT_EV_SEM_POST:
    case FT_EV_MUTEX_DESTROY:
    case FT_EV_RW_DESTROY:
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_ONCE_DONE:
    case FT_EV_FREE:
        GET_U(ev->site, U32);
        return get_addr(d, &ev->addr, reg);
    case FT_EV_MALLOC:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->value, UINT64_MAX);
        GET_U(ev->value2, UINT64_MAX);
        return 0;
    case FT_EV_REALLOC:
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->obj2, reg) < 0 || get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->value, UINT64_MAX);
        GET_U(ev->value2, UINT64_MAX);
        return 0;
    case FT_EV_FUNC_ENTRY:
    case FT_EV_SLEEP:
        GET_U(ev->site, U32);
        GET_U(ev->value, UINT64_MAX);
        return 0;
    case FT_EV_YIELD:
    case FT_EV_REGION_BEGIN:
    case FT_EV_REGION_END:
    case FT_EV_ABORT:
    case FT_EV_THREAD_CANCELED:
        GET_U(ev->site, U32);
        return 0;
    case FT_EV_STEAL:
    case FT_EV_SIGNAL:
        GET_U(ev->value, U32);
        return 0;
    case FT_EV_DIVERGE:
        GET_U(ev->value, UINT64_MAX);
        GET_U(ev->value2, U32);
        GET_U(ev->value3, UINT64_MAX);
        GET_U(ev->arg, U32);
        return 0;
    case FT_EV_HEAP_ERROR:
    case FT_EV_MISUSE: /* the same fields */
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->arg, U32);
        GET_U(ev->value, U32);
        return 0;
    case FT_EV_BLOCKED:
        GET_U(ev->value, U32);
        GET_U(ev->site, U32);
        if (get_addr(d, &ev->addr, reg) < 0)
            return -1;
        GET_U(ev->arg, U32);
        return 0;
    case FT_OP_READ_PAIRED:
    case FT_OP_READ_WIDE_PAIRED:
        /* delivered as the read it is, marked (trace.h) */
        ev->kind = ev->kind == FT_OP_READ_PAIRED ? FT_EV_READ
                                                 : FT_EV_READ_WIDE;
        ev->arg = FT_READ_PAIRED;
        return decode_fields(d, ev, regs);
    default:
        d->p--; /* point at the opcode itself */
        d->why = "unknown event opcode";
        return -1;
    }
}

static inline __attribute__((always_inline)) int
decode_one(const uint8_t **pp, const uint8_t *end, ft_addr_regs *reg,
           uint32_t *tid, ft_event *ev, const char **why)
{
    dec dd = {*pp, end, NULL};
    dec *d = &dd;
    for (;;) {
        if (d->p >= d->end) {
            *pp = d->p;
            return 0;
        }
        uint8_t op = *d->p;
        if (op == 0 || op >= 0x80) {
            *why = "expected an event opcode (positive fixint), found "
                   "another msgpack type";
            return -1;
        }
        d->p++;
        if (op == FT_EV_SWITCH) {
            uint64_t t;
            if (get_tid(d, &t) < 0) {
                *why = d->why;
                *pp = d->p;
                return -1;
            }
            *tid = (uint32_t)t;
            continue;
        }
        memset(ev, 0, sizeof *ev);
        ev->kind = op;
        ev->tid = *tid;
        if (decode_fields(d, ev, reg) < 0) {
            *why = d->why;
            *pp = d->p;
            return -1;
        }
        *pp = d->p;
        return 1;
    }
}

int ft_decode_event(const uint8_t **pp, const uint8_t *end, ft_addr_regs *reg,
                    uint32_t *tid, ft_event *ev, const char **why)
{
    return decode_one(pp, end, reg, tid, ev, why);
}

int ft_decode_batch(const uint8_t **pp, const uint8_t *end, ft_addr_regs *reg,
                    uint32_t *tid, ft_event *ev, uint32_t max,
                    uint64_t first_index, uint32_t *n, const char **why)
{
    uint32_t k = 0;
    int rc = 1;
    while (k < max && (rc = decode_one(pp, end, reg, tid, &ev[k], why)) == 1) {
        ev[k].index = first_index + k;
        k++;
    }
    *n = k;
    return rc;
}

int ft_decode_prologue(const uint8_t **pp, const uint8_t *end,
                       uint64_t *first, uint32_t *tid, const char **why)
{
    dec dd = {*pp, end, NULL};
    uint64_t t;
    if (get_uint(&dd, first, UINT64_MAX) < 0 || get_tid(&dd, &t) < 0) {
        *why = dd.why;
        *pp = dd.p;
        return -1;
    }
    *tid = (uint32_t)t;
    *pp = dd.p;
    return 0;
}

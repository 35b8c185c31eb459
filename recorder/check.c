/* SPDX-License-Identifier: MIT */
/* check.c - the consistency checker: replays a trace against a shadow of
 * memory and verifies that every read returns the last value written to
 * each byte.  A recorded trace must be sequentially consistent (execution
 * is serialised while recording), so a violation means a lost event or a
 * runtime bug - or, in a generated trace, a bad generator.
 *
 * The shadow is byte-granular (accesses may overlap partially), keyed by
 * address in an open-addressing table.  Memory from MALLOC/REALLOC and
 * after FREE is "fresh": its first read defines its initial value.  Wide
 * writes whose content was elided make their bytes unknown again. */
#include "recorder/reader_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { B_EMPTY = 0, B_KNOWN = 1, B_FRESH = 2 };

typedef struct shadow_byte {
    uint64_t addr;
    uint64_t writer;  /* event index that gave the value */
    uint8_t state;
    uint8_t value;
    uint8_t by_read;  /* the value is an initial value seen by a read */
} shadow_byte;

typedef struct shadow {
    shadow_byte *slots;
    size_t cap, used; /* cap is a power of two */
} shadow;

typedef struct block {
    uint64_t addr, size;
} block;

typedef struct checker {
    shadow mem;
    block *blocks; /* live heap blocks, open addressing by addr */
    size_t bcap, bused;
    ft_reader *r;
    FILE *out;
    unsigned max_report;
    uint64_t violations;
    int oom;
} checker;

static inline size_t hash(uint64_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    return (size_t)a;
}

static shadow_byte *lookup(shadow *s, uint64_t addr)
{
    if (!s->cap)
        return NULL;
    for (size_t i = hash(addr) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i].state == B_EMPTY)
            return NULL;
        if (s->slots[i].addr == addr)
            return &s->slots[i];
    }
}

static int grow(shadow *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    shadow_byte *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i].state == B_EMPTY)
            continue;
        size_t j = hash(s->slots[i].addr) & (cap - 1);
        while (n[j].state != B_EMPTY)
            j = (j + 1) & (cap - 1);
        n[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = n;
    s->cap = cap;
    return 0;
}

static shadow_byte *insert(shadow *s, uint64_t addr)
{
    shadow_byte *b = lookup(s, addr);
    if (b)
        return b;
    if ((s->used + 1) * 4 > s->cap * 3 && grow(s) < 0)
        return NULL;
    size_t i = hash(addr) & (s->cap - 1);
    while (s->slots[i].state != B_EMPTY)
        i = (i + 1) & (s->cap - 1);
    s->slots[i] = (shadow_byte){.addr = addr, .state = B_FRESH};
    s->used++;
    return &s->slots[i];
}

/* Makes [addr, addr+size) fresh, visiting whichever is smaller: the range
 * or the table (a huge allocation must not cost its size). */
static void forget(shadow *s, uint64_t addr, uint64_t size)
{
    if (size == 0 || !s->cap)
        return;
    if (size <= s->used) {
        for (uint64_t i = 0; i < size; i++) {
            shadow_byte *b = lookup(s, addr + i);
            if (b)
                b->state = B_FRESH;
        }
        return;
    }
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].state == B_KNOWN && s->slots[i].addr - addr < size)
            s->slots[i].state = B_FRESH;
}

static void write_bytes(checker *c, uint64_t addr, const uint8_t *v,
                        uint32_t n, uint64_t index)
{
    for (uint32_t i = 0; i < n; i++) {
        shadow_byte *b = insert(&c->mem, addr + i);
        if (!b) {
            c->oom = 1;
            return;
        }
        b->state = B_KNOWN;
        b->value = v[i];
        b->writer = index;
        b->by_read = 0;
    }
}

static void report(checker *c, const ft_event *ev, uint32_t n,
                   const uint8_t *got, const uint8_t *want, uint64_t writer,
                   int by_read)
{
    c->violations++;
    if (!c->out || c->violations > c->max_report)
        return;
    char where[512];
    ft_site_format(c->r, ev->site, where, sizeof where);
    const ft_site *s = ft_reader_site(c->r, ev->site);
    /* the variable and, by its type (TYPES), the two values */
    char name[256], gv[64], wv[64];
    uint32_t type = 0;
    uint64_t g = 0, w = 0;
    for (uint32_t i = n; n <= 8 && i-- > 0;) {
        g = g << 8 | got[i];
        w = w << 8 | want[i];
    }
    int named = ft_reader_mem_name(c->r, ev->addr, n, name, sizeof name,
                                   &type) != NULL;
    int typed = n <= 8 && type &&
                ft_reader_value_text(c->r, type, g, n, gv, sizeof gv) &&
                ft_reader_value_text(c->r, type, w, n, wv, sizeof wv);
    fprintf(c->out, "%s: error: event %" PRIu64 " (thread %u, %s) read %u "
            "byte%s at 0x%" PRIx64 "%s%s%s = 0x", where, ev->index, ev->tid,
            ft_kind_name(ev->kind), n, n == 1 ? "" : "s", ev->addr,
            named ? " (" : "", named ? name : "", named ? ")" : "");
    for (uint32_t i = n; i-- > 0;)
        fprintf(c->out, "%02x", got[i]);
    if (typed)
        fprintf(c->out, " (%s)", gv);
    fprintf(c->out, ", expected 0x");
    for (uint32_t i = n; i-- > 0;)
        fprintf(c->out, "%02x", want[i]);
    if (typed)
        fprintf(c->out, " (%s)", wv);
    fprintf(c->out, " %s event %" PRIu64 "%s%s\n",
            by_read ? "first read by" : "written by", writer,
            s && s->function ? " in " : "", s && s->function ? s->function : "");
}

/* Checks a read of n bytes; unknown bytes take the value read. */
static void read_bytes(checker *c, const ft_event *ev, uint64_t addr,
                       const uint8_t *got, uint32_t n)
{
    uint8_t want[8];
    uint64_t writer = 0;
    int bad = 0, by_read = 0;
    /* reports of wide reads show at most their first 8 bytes */
    for (uint32_t i = 0; i < n; i++) {
        shadow_byte *b = insert(&c->mem, addr + i);
        if (!b) {
            c->oom = 1;
            return;
        }
        uint8_t expect = b->state == B_KNOWN ? b->value : got[i];
        if (i < 8)
            want[i] = expect;
        if (expect != got[i]) {
            if (!bad || b->writer > writer) {
                writer = b->writer;
                by_read = b->by_read;
            }
            bad = 1;
        }
        if (b->state != B_KNOWN || expect != got[i]) {
            /* adopt what was read so that one lost write is one report */
            b->state = B_KNOWN;
            b->value = got[i];
            b->writer = ev->index;
            b->by_read = 1;
        }
    }
    if (bad)
        report(c, ev, n < 8 ? n : 8, got, want, writer, by_read);
}

static void le_bytes(uint64_t v, uint8_t out[8])
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static block *block_slot(checker *c, uint64_t addr, int create)
{
    if (create && (c->bused + 1) * 2 > c->bcap) {
        size_t cap = c->bcap ? 2 * c->bcap : 256;
        block *n = calloc(cap, sizeof *n);
        if (!n) {
            c->oom = 1;
            return NULL;
        }
        for (size_t i = 0; i < c->bcap; i++) {
            if (!c->blocks[i].addr)
                continue;
            size_t j = hash(c->blocks[i].addr) & (cap - 1);
            while (n[j].addr)
                j = (j + 1) & (cap - 1);
            n[j] = c->blocks[i];
        }
        free(c->blocks);
        c->blocks = n;
        c->bcap = cap;
    }
    if (!c->bcap || !addr)
        return NULL;
    for (size_t i = hash(addr) & (c->bcap - 1);; i = (i + 1) & (c->bcap - 1)) {
        if (c->blocks[i].addr == addr)
            return &c->blocks[i];
        if (!c->blocks[i].addr) {
            if (!create)
                return NULL;
            c->blocks[i].addr = addr;
            c->bused++;
            return &c->blocks[i];
        }
    }
}

/* Freed blocks keep their slot with size 0 (a tombstone that still
 * answers lookups), so probing chains stay intact. */
static void heap_free(checker *c, uint64_t addr)
{
    block *b = block_slot(c, addr, 0);
    if (b && b->size) {
        forget(&c->mem, addr, b->size);
        b->size = 0;
    }
}

static void heap_alloc(checker *c, uint64_t addr, uint64_t size)
{
    forget(&c->mem, addr, size);
    block *b = block_slot(c, addr, 1);
    if (b)
        b->size = size;
}

static void step(checker *c, const ft_event *ev)
{
    uint8_t v[8];
    switch (ev->kind) {
    case FT_EV_READ:
    case FT_EV_ATOMIC_LOAD:
        le_bytes(ev->value, v);
        read_bytes(c, ev, ev->addr, v, ev->size);
        break;
    case FT_EV_WRITE:
    case FT_EV_ATOMIC_STORE:
        le_bytes(ev->value, v);
        write_bytes(c, ev->addr, v, ev->size, ev->index);
        break;
    case FT_EV_ATOMIC_RMW:
        le_bytes(ev->value, v);
        read_bytes(c, ev, ev->addr, v, ev->size);
        le_bytes(ev->value2, v);
        write_bytes(c, ev->addr, v, ev->size, ev->index);
        break;
    case FT_EV_ATOMIC_CAS:
        le_bytes(ev->value3, v);
        read_bytes(c, ev, ev->addr, v, ev->size);
        if (ev->arg) {
            le_bytes(ev->value2, v);
            write_bytes(c, ev->addr, v, ev->size, ev->index);
        }
        break;
    case FT_EV_READ_WIDE:
        if (ev->bytes)
            read_bytes(c, ev, ev->addr, ev->bytes, ev->nbytes);
        break;
    case FT_EV_WRITE_WIDE:
        if (ev->bytes)
            write_bytes(c, ev->addr, ev->bytes, ev->nbytes, ev->index);
        else
            forget(&c->mem, ev->addr, ev->value);
        break;
    case FT_EV_MALLOC:
        heap_alloc(c, ev->addr, ev->value);
        break;
    case FT_EV_FREE:
        heap_free(c, ev->addr);
        break;
    case FT_EV_REALLOC:
        heap_free(c, ev->obj2);
        heap_alloc(c, ev->addr, ev->value);
        break;
    default:
        break;
    }
}

uint64_t ft_check_consistency(ft_reader *r, FILE *out, unsigned max_report)
{
    checker c = {.r = r, .out = out, .max_report = max_report};
    ft_event ev;
    ft_reader_rewind(r);
    while (!c.oom && ft_reader_next(r, &ev) == 1)
        step(&c, &ev);
    if (c.oom && out)
        fprintf(out, "%s: error: out of memory while checking consistency\n",
                r->name);
    if (out && c.violations > max_report)
        fprintf(out, "%s: note: %" PRIu64 " more violations not shown\n",
                r->name, c.violations - max_report);
    free(c.mem.slots);
    free(c.blocks);
    return c.violations;
}

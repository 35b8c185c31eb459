/* SPDX-License-Identifier: MIT */
/* heap_bounds.c - heap corruption found at the write that causes it (the
 * heap oracle, ft_rt.heap_check).  A program that writes before its block
 * overwrites the malloc chunk header; one that writes past its end, the
 * slack and then the next chunk's header.  glibc notices much later, in
 * some free, and the report then names the wrong line (or the oracle's
 * own bookkeeping crashes on the damaged header).  Here every live block
 * the program allocated is known (address, requested and usable size,
 * allocation site), and the bytes around it that no block owns are
 * guarded: the chunk's size field [mem-8, mem) and [mem+size,
 * mem+usable+8) (the slack, then the next chunk's size field: glibc's
 * layout, which malloc_usable_size describes).  A write the hooks report
 * touching a guarded byte is a HEAP_ERROR before or after the block,
 * raised before the write lands.  Writes we cannot see (uninstrumented
 * code) are caught at free, where the chunk's size field is compared with
 * the one it had at malloc.
 *
 * Tables are mmap'd, never malloc'd: live blocks by address, guard
 * granules (16 bytes) by granule, both linear probing with backward-shift
 * deletion; a counter per hashed granule makes the common miss one load.
 * Only the baton holder touches them.  When full, new blocks are simply
 * not guarded. */
#define _GNU_SOURCE
#include "rt.h"

#include <malloc.h>
#include <sys/mman.h>

#define LIVE_BITS 20
#define GUARD_BITS 22
#define FILTER_BITS 20
#define MAX_GUARD_GRANULES 16 /* slack beyond this is not guarded */

typedef struct live_block {
    uintptr_t mem;     /* 0: empty slot */
    uint64_t size, usable;
    uint64_t hdr;      /* the chunk's size field at malloc */
    uint32_t site;
} live_block;

typedef struct guard_entry {
    uintptr_t granule; /* address >> 4, of a guarded granule */
    uintptr_t mem;     /* the block it guards, 0: empty slot */
} guard_entry;

static live_block *live;
static guard_entry *guard;
static uint16_t *filter;
static uint64_t nlive, nguard;
static int broken; /* the tables could not be mapped */

static void *map(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static int ready(void)
{
    if (live)
        return 1;
    if (broken)
        return 0;
    live = map(sizeof *live << LIVE_BITS);
    guard = map(sizeof *guard << GUARD_BITS);
    filter = map(sizeof *filter << FILTER_BITS);
    broken = !live || !guard || !filter;
    return !broken;
}

static inline uint64_t hash(uintptr_t k, unsigned bits)
{
    return (uint64_t)(k * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

/* ---- live blocks ---- */

static live_block *live_find(uintptr_t mem)
{
    uint64_t mask = ((uint64_t)1 << LIVE_BITS) - 1;
    for (uint64_t i = hash(mem, LIVE_BITS);; i = (i + 1) & mask) {
        if (live[i].mem == mem)
            return &live[i];
        if (live[i].mem == 0)
            return NULL;
    }
}

static void live_remove(live_block *b)
{
    uint64_t mask = ((uint64_t)1 << LIVE_BITS) - 1;
    uint64_t i = (uint64_t)(b - live);
    for (uint64_t j = (i + 1) & mask; live[j].mem; j = (j + 1) & mask) {
        uint64_t home = hash(live[j].mem, LIVE_BITS);
        /* live[j] may move to the hole at i unless its home lies in
         * (i, j] (cyclically) */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            live[i] = live[j];
            i = j;
        }
    }
    live[i].mem = 0;
    nlive--;
}

/* ---- guard granules ---- */

static void guard_add(uintptr_t granule, uintptr_t mem)
{
    uint64_t mask = ((uint64_t)1 << GUARD_BITS) - 1;
    uint64_t i = hash(granule, GUARD_BITS);
    while (guard[i].mem)
        i = (i + 1) & mask;
    guard[i].granule = granule;
    guard[i].mem = mem;
    filter[hash(granule, FILTER_BITS)]++;
    nguard++;
}

static void guard_remove(uintptr_t granule, uintptr_t mem)
{
    uint64_t mask = ((uint64_t)1 << GUARD_BITS) - 1;
    uint64_t i = hash(granule, GUARD_BITS);
    while (guard[i].mem && !(guard[i].granule == granule && guard[i].mem == mem))
        i = (i + 1) & mask;
    if (!guard[i].mem)
        return;
    for (uint64_t j = (i + 1) & mask; guard[j].mem; j = (j + 1) & mask) {
        uint64_t home = hash(guard[j].granule, GUARD_BITS);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            guard[i] = guard[j];
            i = j;
        }
    }
    guard[i].mem = 0;
    filter[hash(granule, FILTER_BITS)]--;
    nguard--;
}

/* The guarded granules of b: its size field's, then those of the slack
 * and of the next chunk's size field.  Returns how many. */
static int guard_granules(const live_block *b, uintptr_t *out)
{
    int n = 0;
    out[n++] = (b->mem - 8) >> 4;
    uintptr_t last = (b->mem + b->usable + 7) >> 4;
    for (uintptr_t g = (b->mem + b->size) >> 4;
         g <= last && n < 1 + MAX_GUARD_GRANULES; g++)
        out[n++] = g;
    return n;
}

static void untrack(live_block *b)
{
    uintptr_t g[1 + MAX_GUARD_GRANULES];
    int n = guard_granules(b, g);
    for (int i = 0; i < n; i++)
        guard_remove(g[i], b->mem);
    live_remove(b);
}

/* The chunk's size field, less its PREV_INUSE bit (bit 0).  That bit is
 * the previous chunk's: glibc clears it when the block before this one
 * in memory goes back to a bin (freed by uninstrumented code, or let go
 * by the quarantine), and no write of the program's is involved.  Kept,
 * it made every explored run of pigz a heap corruption at free_pool
 * (tests/explore/progs/neighbour_free.c). */
static uint64_t size_field(uintptr_t mem)
{
    return *(const uint64_t *)(mem - 8) & ~(uint64_t)1;
}

void ft_heap_track(uintptr_t mem, size_t size, uint32_t site)
{
    if (!mem || !ready() || (mem & 15))
        return;
    uint64_t mask = ((uint64_t)1 << LIVE_BITS) - 1;
    live_block *old = live_find(mem);
    if (old) /* freed behind our back (uninstrumented code): forget it */
        untrack(old);
    if (nlive * 4 >= (mask + 1) * 3 ||
        nguard * 4 >= ((uint64_t)3 << GUARD_BITS) - 4 * (2 + MAX_GUARD_GRANULES))
        return; /* full: this block is not guarded */
    uint64_t i = hash(mem, LIVE_BITS);
    while (live[i].mem)
        i = (i + 1) & mask;
    live_block *b = &live[i];
    b->mem = mem;
    b->size = size;
    b->usable = malloc_usable_size((void *)mem);
    b->hdr = size_field(mem);
    b->site = site;
    nlive++;
    uintptr_t g[1 + MAX_GUARD_GRANULES];
    int n = guard_granules(b, g);
    for (int k = 0; k < n; k++)
        guard_add(g[k], mem);
}

int ft_heap_untrack(uintptr_t mem, uint32_t site)
{
    if (!mem || !live)
        return 0;
    live_block *b = live_find(mem);
    if (!b)
        return 0;
    if (size_field(mem) != b->hdr) {
        /* Overwritten by code the hooks do not see: found only now. */
        ft_heap_report(FT_HEAP_HEADER_OVERWRITTEN, site, mem, b->site);
        return 1;
    }
    untrack(b);
    return 0;
}

/* Whether [a, a+n) touches a byte b guards. */
static int touches(const live_block *b, uintptr_t a, size_t n, int *before)
{
    uintptr_t end = a + (n ? n : 1);
    if (a < b->mem && end > b->mem - 8) {
        *before = 1;
        return 1;
    }
    uintptr_t lo = b->mem + b->size, hi = b->mem + b->usable + 8;
    if (a < hi && end > lo) {
        *before = 0;
        return 1;
    }
    return 0;
}

static const live_block *hit(uintptr_t granule, uintptr_t a, size_t n,
                             int *before)
{
    if (!filter[hash(granule, FILTER_BITS)])
        return NULL;
    uint64_t mask = ((uint64_t)1 << GUARD_BITS) - 1;
    for (uint64_t i = hash(granule, GUARD_BITS); guard[i].mem;
         i = (i + 1) & mask) {
        if (guard[i].granule != granule)
            continue;
        const live_block *b = live_find(guard[i].mem);
        /* A block freed behind our back (by uninstrumented code) whose
         * chunk now holds something else has another size field. */
        if (b && touches(b, a, n, before) && size_field(b->mem) == b->hdr)
            return b;
    }
    return NULL;
}

int ft_heap_bad_write(uintptr_t a, size_t n, uint32_t *alloc_site,
                      uintptr_t *bad_byte)
{
    if (!live || !nguard)
        return 0;
    uintptr_t first = a >> 4, last = (a + (n ? n - 1 : 0)) >> 4;
    int before = 0;
    const live_block *b = hit(first, a, n, &before);
    /* A wide write is checked at its two ends, where it leaves a block. */
    if (!b && last != first)
        b = hit(last, a, n, &before);
    if (!b)
        return 0;
    *alloc_site = b->site;
    uintptr_t from = before ? b->mem - 8 : b->mem + b->size;
    *bad_byte = a > from ? a : from;
    return before ? FT_HEAP_WRITE_BEFORE : FT_HEAP_WRITE_AFTER;
}

/* SPDX-License-Identifier: MIT */
/* tracebuf.c - the trace writer of the runtime: one global EVENTS chunk
 * built in place (only the baton holder appends), the site table mapping
 * return addresses to dense ids, SITES chunks ahead of the events naming
 * them, and the END chunk.  Full chunks go to the writer thread (tbio.c).
 * No malloc: static buffers and mmap. */
#define _GNU_SOURCE
#include "rt_emit.h"
#include "rt_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    int fd;
    uint64_t seq;
    uint8_t *ev_first; /* first byte after the chunk's index and tid */
    int cur_tid;
    ft_chunk sites;
    int nsites_pending;
} tb = {.fd = -1};

/* The hot part of the state (rt_emit.h): the open EVENTS chunk, the
 * address register, the event count and the site table. */
struct ft_tb_hot ft_tbh;

/* A chunk other than EVENTS/SITES: written at once, after the queued
 * slots, so chunks reach the file in the order they were made. */
void ft_tb_write_chunk(ft_chunk *c, unsigned kind)
{
    ft_io_drain();
    size_t len = ft_chunk_seal(c, kind, tb.seq++);
    ft_io_write(tb.fd, c->buf, len);
}

static void open_slot(uint8_t *ev, uint8_t *sites)
{
    ft_chunk_open(&tb.sites, sites, FT_SITES_CAP);
    ft_chunk_open(&ft_tbh.ev, ev, FT_EV_CAP);
    ft_tbh.ev.pos = ft_put_uint(ft_tbh.ev.pos, ft_tbh.nevents);
    ft_tbh.ev.pos = ft_put_uint(ft_tbh.ev.pos, (uint64_t)tb.cur_tid);
    tb.ev_first = ft_tbh.ev.pos;
    ft_tbh.regs = ft_addr_regs_for(FT_FORMAT_VERSION);
}

/* CLOCK_MONOTONIC of the last hand-over (ft_trace_flush_due). */
static int64_t last_out_ns;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Hands the slot (new sites, then events) to the writer and opens the
 * next one. */
static void rotate(void)
{
    int has_sites = tb.nsites_pending != 0;
    int has_ev = ft_tbh.ev.pos != tb.ev_first;
    if (has_sites || has_ev) {
        /* Wait for the next slot first: a signal handler that runs during
         * the wait then finds the open chunk still ours and consistent. */
        uint8_t *ev, *sites;
        ft_io_buffers(1, &ev, &sites);
        uint64_t sseq = has_sites ? tb.seq++ : 0;
        uint64_t eseq = has_ev ? tb.seq++ : 0;
        ft_io_submit(&tb.sites, sseq, has_sites, &ft_tbh.ev, eseq, has_ev);
        tb.nsites_pending = 0;
        open_slot(ev, sites);
        last_out_ns = mono_ns();
    }
}

void ft_tb_rotate(void)
{
    rotate();
}

int ft_trace_flush_due(int64_t interval_ns)
{
    if (tb.fd < 0 || ft_rt.finished)
        return 0;
    /* Read without the holder's cooperation: only a hint (the flush
     * itself waits until the holder is outside the runtime). */
    int has = __atomic_load_n(&ft_tbh.ev.pos, __ATOMIC_RELAXED) !=
                  __atomic_load_n(&tb.ev_first, __ATOMIC_RELAXED) ||
              __atomic_load_n(&tb.nsites_pending, __ATOMIC_RELAXED);
    return has && mono_ns() - __atomic_load_n(&last_out_ns,
                                              __ATOMIC_RELAXED) >=
                      interval_ns;
}

/* Everything recorded so far is in the file when this returns. */
void ft_trace_flush(void)
{
    rotate();
    ft_io_drain();
}

static int site_table_init(unsigned bits)
{
    size_t bytes = sizeof(struct ft_site_entry) << bits;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    struct ft_site_entry *old = ft_tbh.sites;
    unsigned oldbits = ft_tbh.site_bits;
    ft_tbh.sites = m;
    ft_tbh.site_bits = bits;
    if (old) {
        size_t mask = ((size_t)1 << bits) - 1;
        for (size_t i = 0; i < ((size_t)1 << oldbits); i++) {
            if (!old[i].pc)
                continue;
            size_t h = (old[i].pc * 0x9e3779b97f4a7c15ull) >> (64 - bits);
            while (ft_tbh.sites[h].pc)
                h = (h + 1) & mask;
            ft_tbh.sites[h] = old[i];
        }
        munmap(old, sizeof(struct ft_site_entry) << oldbits);
    }
    return 0;
}

int ft_trace_open(const char *path, int use_writer)
{
    tb.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (tb.fd < 0)
        return -1;
    if (site_table_init(16) < 0)
        return -1;
    ft_modules_scan();
    ft_header_write(ft_now_ns());
    if (ft_io_failed()) {
        errno = ft_io_failed();
        return -1;
    }
    ft_io_init(tb.fd, use_writer, ft_rt.zstd_level);
    uint8_t *ev, *sites;
    ft_io_buffers(0, &ev, &sites);
    open_slot(ev, sites);
    last_out_ns = mono_ns();
    return 0;
}

static struct ft_site_entry *site_new(struct ft_site_entry *e, uintptr_t pc)
{
    if (tb.sites.limit - tb.sites.pos < 32)
        rotate(); /* sites must precede the events naming them */
    uintptr_t off;
    int mod = ft_module_lookup(pc, &off);
    e->pc = pc;
    e->id = ++ft_tbh.nsites;
    uint8_t *p = ft_put_array(tb.sites.pos, 3);
    p = ft_put_uint(p, e->id);
    p = ft_put_uint(p, (uint64_t)mod);
    tb.sites.pos = ft_put_uint(p, off);
    tb.nsites_pending++;
    if ((uint64_t)ft_tbh.nsites * 2 > ((uint64_t)1 << ft_tbh.site_bits)) {
        uint32_t id = e->id;
        if (site_table_init(ft_tbh.site_bits + 1) == 0) {
            size_t mask = ((size_t)1 << ft_tbh.site_bits) - 1;
            size_t h = (pc * 0x9e3779b97f4a7c15ull) >> (64 - ft_tbh.site_bits);
            while (ft_tbh.sites[h].id != id)
                h = (h + 1) & mask;
            e = &ft_tbh.sites[h];
        }
    }
    return e;
}

static inline struct ft_site_entry *site_lookup(uintptr_t pc)
{
    if (FT_UNLIKELY(!ft_tbh.sites))
        return NULL;
    size_t mask = ((size_t)1 << ft_tbh.site_bits) - 1;
    size_t h = (pc * 0x9e3779b97f4a7c15ull) >> (64 - ft_tbh.site_bits);
    for (;;) {
        struct ft_site_entry *e = &ft_tbh.sites[h];
        if (FT_LIKELY(e->pc == pc))
            return e;
        if (!e->pc)
            return site_new(e, pc);
        h = (h + 1) & mask;
    }
}

uint32_t ft_site_id(uintptr_t pc)
{
    struct ft_site_entry *e = site_lookup(pc);
    return e ? e->id : 0;
}

uint32_t ft_site_alloc(uintptr_t pc, uint64_t *count)
{
    struct ft_site_entry *e = site_lookup(pc);
    if (!e) {
        *count = 0;
        return 0;
    }
    *count = ++e->count;
    return e->id;
}

int ft_trace_cur_tid(void)
{
    return tb.cur_tid;
}

static inline uint8_t *reserve(size_t n)
{
    if (FT_UNLIKELY((size_t)(ft_tbh.ev.limit - ft_tbh.ev.pos) < n))
        rotate();
    return ft_tbh.ev.pos;
}

static inline uint8_t *put_addr(uint8_t *p, uint64_t a, int kind)
{
    uint64_t *reg = ft_addr_reg_of(&ft_tbh.regs, (unsigned)kind);
    p = ft_put_int(p, (int64_t)(a - *reg));
    *reg = a;
    return p;
}

void ft_emit(const ft_event *ev)
{
    uint8_t *p = reserve(FT_EVENT_MAX_FIXED + ev->nbytes + 8);
    uint8_t *end = ft_encode_event(p, ev, &ft_tbh.regs);
    if (end) {
        ft_tbh.ev.pos = end;
        ft_tbh.nevents++;
    }
}

void ft_emit_access(int kind, uint32_t site, uintptr_t addr, uint32_t size,
                    uint64_t value)
{
    ft_emit_access_fast(kind, site, addr, size, value);
}

void ft_emit_wide(int kind, uint32_t site, uintptr_t addr, size_t size,
                  const void *content)
{
    int with = size <= FT_WIDE_MAX;
    uint8_t *p = reserve(FT_EVENT_MAX_FIXED + (with ? size : 0));
    *p++ = (uint8_t)kind;
    p = ft_put_uint(p, site);
    p = put_addr(p, addr, kind);
    p = ft_put_uint(p, size);
    if (with) {
        p = ft_put_bin_head(p, (uint32_t)size);
        __real_memcpy(p, content ? content : (const void *)addr, size);
        p += size;
    } else {
        p = ft_put_nil(p);
    }
    ft_tbh.ev.pos = p;
    ft_tbh.nevents++;
}

void ft_emit_func_entry(uint32_t site, uint32_t call_site)
{
    uint8_t *p = reserve(16);
    *p++ = FT_EV_FUNC_ENTRY;
    p = ft_put_uint(p, site);
    ft_tbh.ev.pos = ft_put_uint(p, call_site);
    ft_tbh.nevents++;
}

void ft_emit_func_exit(void)
{
    uint8_t *p = reserve(1);
    *p = FT_EV_FUNC_EXIT;
    ft_tbh.ev.pos = p + 1;
    ft_tbh.nevents++;
}

/* Per-thread event counts as a reader attributes them (by SWITCH), kept
 * at switches only, for the replay policy's per-thread indexes. */
static uint64_t tid_events[FT_MAX_THREADS];
static uint64_t tid_mark;

uint64_t ft_trace_tid_events(int tid)
{
    if (tid < 0 || tid >= FT_MAX_THREADS)
        return 0;
    return tid_events[tid] + (tid == tb.cur_tid ? ft_tbh.nevents - tid_mark : 0);
}

void ft_emit_switch(int tid)
{
    if (tb.cur_tid >= 0 && tb.cur_tid < FT_MAX_THREADS)
        tid_events[tb.cur_tid] += ft_tbh.nevents - tid_mark;
    tid_mark = ft_tbh.nevents;
    uint8_t *p = reserve(8);
    *p++ = FT_EV_SWITCH;
    ft_tbh.ev.pos = ft_put_uint(p, (uint64_t)tid);
    tb.cur_tid = tid;
}

static void write_end(const char *reason, int64_t status)
{
    static uint8_t buf[256];
    ft_chunk c;
    ft_chunk_open(&c, buf, sizeof buf);
    uint8_t *p = ft_put_map(c.pos, 4);
    p = ft_put_str(p, "events", 6);
    p = ft_put_uint(p, ft_tbh.nevents);
    p = ft_put_str(p, "reason", 6);
    p = ft_put_str(p, reason, (uint32_t)strlen(reason));
    p = ft_put_str(p, "exit_status", 11);
    p = ft_put_int(p, status);
    p = ft_put_str(p, "threads", 7);
    c.pos = ft_put_uint(p, (uint64_t)ft_rt.nthreads);
    ft_tb_write_chunk(&c, FT_CHUNK_END);
}

void ft_trace_end(const char *reason, int64_t status)
{
    if (ft_rt.finished || tb.fd < 0)
        return;
    ft_trace_flush();
    write_end(reason, status);
    ft_rt.finished = 1;
    /* A hook checks `finished` only on its slow path (rt.h): send every
     * thread there. */
    for (int i = 0; i < ft_rt.nthreads && i < FT_MAX_THREADS; i++)
        __atomic_store_n(&ft_threads[i].has_baton, 0, __ATOMIC_SEQ_CST);
}

void ft_trace_exec(void)
{
    if (ft_rt.finished || tb.fd < 0)
        return;
    ft_trace_flush();
    write_end("exec", -1);
}

int ft_trace_is_ours(const char *path)
{
    struct stat a, b;
    return tb.fd >= 0 && stat(path, &a) == 0 && fstat(tb.fd, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void ft_trace_signal(int signo, uintptr_t pc)
{
    if (ft_rt.finished || tb.fd < 0)
        return;
    if (pc) {
        ft_event at = {.kind = FT_EV_ABORT, .site = ft_site_id(pc)};
        ft_emit(&at);
    }
    ft_event ev = {.kind = FT_EV_SIGNAL, .value = (uint64_t)signo};
    ft_emit(&ev);
    ft_trace_end("signal", -1);
}

/* A fork child must not write into the parent's trace. */
void ft_trace_forget(void)
{
    ft_io_forget();
    if (tb.fd >= 0)
        close(tb.fd);
    tb.fd = -1;
}

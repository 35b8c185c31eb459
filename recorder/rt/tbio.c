/* SPDX-License-Identifier: MIT */
/* tbio.c - writes the trace's EVENTS chunks (each with the SITES chunk
 * that must precede it) from a writer thread.  The recorded program runs
 * one thread at a time (the baton), so on a machine with two cores the
 * second core is otherwise idle: sealing a chunk (CRC-32C of 1 MiB) and
 * copying it into the page cache (write(2)) took ~40% of the dense
 * kernel's time when the baton holder did them itself.
 *
 * A ring of FT_IO_SLOTS slots, each an EVENTS buffer and a SITES buffer.
 * The baton holder fills the slot `submitted % FT_IO_SLOTS`, hands it over
 * (ft_io_submit) and moves on to the next one, waiting only when every
 * slot is still queued.  The writer seals and writes slots in order.  Any
 * other chunk (HEADER, MODULES, END) is written by its caller after
 * ft_io_drain(), so the file keeps the order in which chunks were made.
 * Without the writer thread (FORETELL_RT_WRITER=0, a failed thread
 * creation, a fork child) the caller writes each slot itself.
 *
 * The writer thread also compresses them (zstd, FORETELL_COMPRESS,
 * default level 1), on that otherwise idle core, while it keeps up: a
 * slot sealed when FT_IO_BEHIND or more slots wait behind it is written
 * plain (version 4 allows both), so that the baton holder never waits for
 * compression, only, as before, for the disk.  Compressing costs the
 * writer thread more than the CRC and write of the plain chunk did (the
 * dense kernel: some 0.24 s more CPU for its 161 MB of events, 15 ns an
 * event), and on a machine whose cores are all busy that CPU is taken
 * from the program: docs/benchmarks.md, "Trace compression".  Without the writer thread (FORETELL_RT_WRITER=0, for
 * debugging and tests) every chunk is compressed, on the program's time:
 * what is compressed then does not depend on timing.  The context lives
 * in memory mapped once, so sealing still allocates nothing; a chunk
 * sealed while it is in use (a fatal signal's END arriving in the middle
 * of an inline seal) is written plain.
 *
 * Every write of the trace goes through ft_io_write.  The first one that
 * fails (a full disk, EIO) is reported, once: on the pipe the launcher
 * named in FORETELL_STATUS_FD ("write-error ERRNO OFFSET\n", read by
 * `foretell record` and the replay harness), else on stderr.  Nothing is
 * written after it: a chunk after a hole would pass for a whole trace. */
#define _GNU_SOURCE
/* ZSTD_estimateCCtxSize and ZSTD_initStaticCCtx: a context in memory the
 * runtime maps itself.  zstd files them under "static linking only", but
 * the shared libzstd exports them and their signatures (a level; a
 * pointer and a size) have not changed since zstd 1.3. */
#define ZSTD_STATIC_LINKING_ONLY
#include "rt_trace.h"
#include "recorder/zchunk.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct job {
    ft_chunk sites, ev;
    uint64_t sites_seq, ev_seq;
    int has_sites, has_ev;
};

static uint8_t ev_bufs[FT_IO_SLOTS][FT_EV_CAP] __attribute__((aligned(4096)));
static uint8_t sites_bufs[FT_IO_SLOTS][FT_SITES_CAP];
static struct job jobs[FT_IO_SLOTS];

static int io_fd = -1;
static int threaded;        /* the writer thread runs */
/* Futex words.  submitted: slots handed over; written: slots the writer
 * finished.  Both only grow (mod 2^32: compared by difference). */
static uint32_t submitted, written;

/* Compression (zchunk.h): NULL when off or when the context could not be
 * made.  zout holds one compressed chunk; zbusy guards both. */
static ZSTD_CCtx *zctx;
static uint8_t zout[FT_ZCHUNK_BOUND(FT_EV_CAP)];
static int zbusy;
/* Slots waiting behind the one being sealed from which it goes plain. */
#define FT_IO_BEHIND (FT_IO_SLOTS / 2)

static int report_fd = -1;
static char trace_path[512];
static int io_errno; /* the first failed write's errno, 0 none */

void ft_io_set_report(int fd, const char *path)
{
    report_fd = fd;
    size_t n = strlen(path);
    if (n >= sizeof trace_path)
        n = sizeof trace_path - 1;
    __real_memcpy(trace_path, path, n);
    trace_path[n] = 0;
}

static char *put_dec(char *p, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = d[--n];
    return p;
}

static char *put_s(char *p, const char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

/* Async-signal-safe: END is written from the fatal-signal handler. */
void ft_io_fail(int err, int fd)
{
    int none = 0;
    if (!__atomic_compare_exchange_n(&io_errno, &none, err, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    off_t off = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : 0;
    uint64_t at = off > 0 ? (uint64_t)off : 0;
    char buf[800], *p = buf, *end = buf + sizeof buf - 2;
    if (report_fd >= 0) {
        p = put_s(p, end, "write-error ");
        p = put_dec(p, (uint64_t)err);
        p = put_s(p, end, " ");
        p = put_dec(p, at);
        *p++ = '\n';
        (void)!write(report_fd, buf, (size_t)(p - buf));
        return;
    }
    const char *why = strerrordesc_np(err);
    p = put_s(p, end, "foretell: cannot write trace ");
    p = put_s(p, end, trace_path);
    p = put_s(p, end, ": ");
    p = put_s(p, end, why ? why : "I/O error");
    p = put_s(p, end, "; recording stops (the trace ends at byte ");
    p = put_dec(p, at);
    p = put_s(p, end, ")");
    *p++ = '\n';
    (void)!write(2, buf, (size_t)(p - buf));
}

int ft_io_failed(void)
{
    return __atomic_load_n(&io_errno, __ATOMIC_SEQ_CST);
}

void ft_io_write(int fd, const void *buf, size_t len)
{
    if (fd < 0 || ft_io_failed())
        return;
    int rc = ft_write_all(fd, buf, len);
    if (rc < 0)
        ft_io_fail(-rc, fd);
}

/* Seals and writes one chunk, compressed when compress says so, the
 * context is free (zbusy) and it makes the chunk smaller. */
static void write_chunk(ft_chunk *c, unsigned kind, uint64_t seq,
                        int compress)
{
    if (io_fd < 0 || ft_io_failed())
        return; /* a fork child, or a failed write: nothing to compress */
    if (compress && zctx && !__atomic_exchange_n(&zbusy, 1, __ATOMIC_ACQUIRE)) {
        size_t len = ft_zchunk_seal(c, kind, seq, zctx, zout, sizeof zout);
        if (len)
            ft_io_write(io_fd, zout, len);
        __atomic_store_n(&zbusy, 0, __ATOMIC_RELEASE);
        if (len)
            return;
    }
    size_t len = ft_chunk_seal(c, kind, seq);
    ft_io_write(io_fd, c->buf, len);
}

static void write_job(struct job *j, int compress)
{
    if (j->has_sites)
        write_chunk(&j->sites, FT_CHUNK_SITES, j->sites_seq, compress);
    if (j->has_ev)
        write_chunk(&j->ev, FT_CHUNK_EVENTS, j->ev_seq, compress);
}

/* A compression context in memory of its own (no malloc in the
 * runtime); NULL if it cannot be had (the trace is then written plain). */
static ZSTD_CCtx *make_cctx(int level)
{
    size_t need = ZSTD_estimateCCtxSize(level);
    void *ws = mmap(NULL, need, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ws == MAP_FAILED)
        return NULL;
    ZSTD_CCtx *c = ZSTD_initStaticCCtx(ws, need);
    if (!c || ft_zchunk_cctx_setup(c, level) < 0) {
        munmap(ws, need);
        return NULL;
    }
    return c;
}

static void futex_wait32(uint32_t *w, uint32_t val)
{
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake32(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Waits until `written` reaches at least want (mod 2^32).  Spins a little
 * first: the writer finishes a slot in about a millisecond. */
static void wait_written(uint32_t want)
{
    for (int i = 0;; i++) {
        uint32_t w = __atomic_load_n(&written, __ATOMIC_ACQUIRE);
        if ((int32_t)(w - want) >= 0)
            return;
        if (i < 200)
            __builtin_ia32_pause();
        else
            futex_wait32(&written, w);
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    /* Not a program thread: a permanent in_hook makes any wrapper this
     * thread might reach pass through (as for the watchdog). */
    static ft_thread self = {.in_hook = 1, .state = FT_T_EXITED};
    ft_self = &self;
    uint32_t done = 0;
    for (;;) {
        uint32_t s = __atomic_load_n(&submitted, __ATOMIC_ACQUIRE);
        if (s == done) {
            futex_wait32(&submitted, s);
            continue;
        }
        /* behind it: the slots handed over since */
        uint32_t behind = __atomic_load_n(&submitted, __ATOMIC_ACQUIRE) -
                          done - 1;
        write_job(&jobs[done % FT_IO_SLOTS], behind < FT_IO_BEHIND);
        done++;
        /* A second full slot: a long run.  Map the rest of the ring now,
         * on this core: first touches by the baton holder were 3% of the
         * dense kernel's samples (a fault costs a few us in a VM), but
         * for the short runs of an exploration the 8 MiB cost more than
         * they save.  POPULATE_WRITE keeps the contents (the baton holder
         * is filling a slot meanwhile); before Linux 5.14 it fails and
         * the pages fault in as before. */
        if (done == 2)
            madvise(ev_bufs, sizeof ev_bufs, MADV_POPULATE_WRITE);
        __atomic_store_n(&written, done, __ATOMIC_RELEASE);
        futex_wake32(&written);
    }
    return NULL;
}

void ft_io_init(int fd, int use_thread, int zstd_level)
{
    io_fd = fd;
    if (zstd_level)
        zctx = make_cctx(zstd_level);
    if (!use_thread)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* program signals go to
                                                 program threads */
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    threaded = __real_pthread_create(&th, &attr, writer_main, NULL) == 0;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ft_io_buffers(unsigned ahead, uint8_t **ev, uint8_t **sites)
{
    uint32_t s = submitted + ahead;
    unsigned k = s % FT_IO_SLOTS;
    /* The slot is free once the writer is done with the submission that
     * used it FT_IO_SLOTS submissions ago. */
    if (threaded)
        wait_written(s - FT_IO_SLOTS + 1);
    *ev = ev_bufs[k];
    *sites = sites_bufs[k];
}

void ft_io_submit(const ft_chunk *sites, uint64_t sites_seq, int has_sites,
                  const ft_chunk *ev, uint64_t ev_seq, int has_ev)
{
    struct job *j = &jobs[submitted % FT_IO_SLOTS];
    j->sites = *sites;
    j->sites_seq = sites_seq;
    j->has_sites = has_sites;
    j->ev = *ev;
    j->ev_seq = ev_seq;
    j->has_ev = has_ev;
    if (!threaded) {
        write_job(j, 1);
        submitted++;
        written = submitted;
        return;
    }
    __atomic_store_n(&submitted, submitted + 1, __ATOMIC_RELEASE);
    futex_wake32(&submitted);
}

void ft_io_drain(void)
{
    if (threaded)
        wait_written(submitted);
}

/* Fork child: there is no writer thread here; the parent's descriptor is
 * closed by the caller.  Nothing more is written. */
void ft_io_forget(void)
{
    threaded = 0;
    io_fd = -1;
}

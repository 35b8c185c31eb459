/* SPDX-License-Identifier: MIT */
/* trace.h - the public face of foretell's trace format: event kinds, the
 * decoded event record, and the streaming reader every later stage uses.
 *
 * A trace is a stream of msgpack chunks (docs/trace-format.md).  The reader
 * never trusts the file: every length is bounded before it is allocated, and
 * a damaged or truncated file yields the events of every complete chunk plus
 * an error that names the file, the byte offset and what was expected.
 */
#ifndef FORETELL_TRACE_H
#define FORETELL_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define FT_FORMAT_NAME "foretell-trace"
/* Readers read versions 1 to 4.  Writers write 4 when chunks may be
 * zstd-compressed (zchunk.h: a reader that predates compression must
 * refuse such a trace, not skip its EVENTS chunks as unknown kinds), else
 * FT_FORMAT_VERSION_PLAIN; the events are the same in both. */
#define FT_FORMAT_VERSION 4
#define FT_FORMAT_VERSION_PLAIN 3
/* Thread ids are below this, in traces and schedules alike: the runtime
 * runs at most this many threads, and the analyses keep per-thread-pair
 * tables (vector clocks), so a hostile id must not size them. */
#define FT_TRACE_MAX_THREADS 1024
#define FT_STR_(x) #x
#define FT_STR(x) FT_STR_(x)
#define FT_TID_LIMIT_TEXT FT_STR(FT_TRACE_MAX_THREADS) /* "1024" */

/* Chunk kinds: the first element of every top-level msgpack array. */
enum ft_chunk_kind {
    FT_CHUNK_HEADER = 1,  /* body: msgpack map, see docs/trace-format.md */
    FT_CHUNK_EVENTS = 2,  /* body: first index, start tid, then events */
    FT_CHUNK_SITES = 3,   /* body: [site, module, offset] triples */
    FT_CHUNK_MODULES = 4, /* body: modules mapped after the header */
    FT_CHUNK_SYMBOLS = 5, /* body: [site, function, file, line, column] */
    FT_CHUNK_END = 6,     /* body: msgpack map written at a clean end */
    FT_CHUNK_DATA = 7,    /* body: [module, offset, size, name] data symbols */
    FT_CHUNK_SOURCE = 8,  /* body: [site, text] source lines */
    FT_CHUNK_INLINED = 9, /* body: [site, file, line]: where code inlined
                             from a system header entered the program */
    FT_CHUNK_STRAIGHT = 10, /* body: [site, span]: bytes of code from the
                               site up to its first jump, plus 1 */
    FT_CHUNK_TYPES = 11,  /* body: type descriptions of the globals the run
                             touched, and heap dereferences by site
                             (recorder/typetab.h) */
    FT_CHUNK_INSN = 12,   /* body: [site, text]: the machine instruction at
                             a site without line information */
};

/* Event opcodes.  Each is a positive msgpack fixint followed by the fields
 * listed here, in order (docs/trace-format.md is the normative table).
 * "addr" fields are signed deltas from the previous address in the chunk. */
enum ft_kind {
    FT_EV_SWITCH = 1,         /* tid: following events belong to tid */
    FT_EV_THREAD_START = 2,   /* parent_tid */
    FT_EV_THREAD_CREATE = 3,  /* site child_tid */
    FT_EV_THREAD_EXIT = 4,    /* - */
    FT_EV_THREAD_JOIN = 5,    /* site child_tid */
    FT_EV_THREAD_DETACH = 6,  /* site child_tid */
    FT_EV_THREAD_CANCEL = 7,  /* site tid: pthread_cancel(tid) */
    FT_EV_THREAD_CANCELED = 8, /* site: the thread acts on a cancellation
                                 request at this cancellation point; its
                                 cleanup handlers, then THREAD_EXIT,
                                 follow */

    FT_EV_READ = 10,          /* site addr size value  (size 1,2,4,8) */
    FT_EV_WRITE = 11,         /* site addr size value */
    FT_EV_READ_WIDE = 12,     /* site addr size bytes  (size 16 or range) */
    FT_EV_WRITE_WIDE = 13,    /* site addr size bytes|nil (nil: elided) */
    /* opcodes 14 and 15 are paired reads, delivered as READ and
     * READ_WIDE: enum ft_read_op below */

    FT_EV_ATOMIC_LOAD = 20,   /* site addr size mo value */
    FT_EV_ATOMIC_STORE = 21,  /* site addr size mo value */
    FT_EV_ATOMIC_RMW = 22,    /* site addr size mo op old new */
    FT_EV_ATOMIC_CAS = 23,    /* site addr size mo expected desired old ok */
    FT_EV_FENCE = 24,         /* site mo */

    FT_EV_MUTEX_INIT = 30,    /* site obj type */
    FT_EV_MUTEX_LOCK = 31,    /* site obj how rc   (how: ft_lock_how) */
    FT_EV_MUTEX_UNLOCK = 32,  /* site obj rc */
    FT_EV_RW_RDLOCK = 33,     /* site obj how rc */
    FT_EV_RW_WRLOCK = 34,     /* site obj how rc */
    FT_EV_RW_UNLOCK = 35,     /* site obj rc */
    FT_EV_MUTEX_DESTROY = 36, /* site obj: pthread_mutex_destroy or
                                 pthread_spin_destroy (from 2026-11-26) */
    FT_EV_RW_DESTROY = 37,    /* site obj: pthread_rwlock_destroy (idem) */

    FT_EV_COND_WAIT = 40,     /* site cond mutex   (wait_pre: releases) */
    FT_EV_COND_WAKE = 41,     /* site cond mutex timedout (wait_post) */
    FT_EV_COND_SIGNAL = 42,   /* site cond woken (int: tid, -1 none) */
    FT_EV_COND_BROADCAST = 43,/* site cond nwoken */

    FT_EV_SEM_INIT = 50,      /* site sem value */
    FT_EV_SEM_POST = 51,      /* site sem */
    FT_EV_SEM_WAIT = 52,      /* site sem how rc */
    FT_EV_BARRIER_INIT = 53,  /* site obj count */
    FT_EV_BARRIER_ARRIVE = 54,/* site obj */
    FT_EV_BARRIER_LEAVE = 55, /* site obj serial (1 for the serial thread) */
    FT_EV_ONCE_ENTER = 56,    /* site obj runs (1: this thread runs init) */
    FT_EV_ONCE_DONE = 57,     /* site obj */

    FT_EV_MALLOC = 60,        /* site addr size count  (count: per site) */
    FT_EV_FREE = 61,          /* site addr */
    FT_EV_REALLOC = 62,       /* site old_addr addr size count */

    FT_EV_FUNC_ENTRY = 70,    /* site call_site */
    FT_EV_FUNC_EXIT = 71,     /* - */
    FT_EV_SLEEP = 72,         /* site nanoseconds */
    FT_EV_YIELD = 73,         /* site */
    FT_EV_REGION_BEGIN = 74,  /* site: foretell_atomic_begin() */
    FT_EV_REGION_END = 75,    /* site: foretell_atomic_end() */

    FT_EV_STEAL = 80,         /* tid: watchdog took the baton from tid */
    FT_EV_DEADLOCK = 81,      /* - : no thread could run */
    FT_EV_SIGNAL = 82,        /* signo: fatal signal delivered */
    FT_EV_DIVERGE = 83,       /* step tid index why: replay left the schedule */
    FT_EV_HEAP_ERROR = 84,    /* site addr what free_site: heap oracle */
    FT_EV_BLOCKED = 85,       /* tid site obj wait: before DEADLOCK, each
                                 blocked thread */
    FT_EV_ABORT = 86,         /* site: the assert or abort() call, just
                                 before its SIGNAL (version 2) */
    FT_EV_MISUSE = 87,        /* site obj what holder: the pthread API
                                 misused (enum ft_misuse_what; holder: the
                                 thread holding obj, 0 when none does) */
    FT_EV_KIND_MAX = 127
};

/* FT_EV_READ and FT_EV_READ_WIDE arg: the read was recorded while the
 * thread's previous write was pending (docs/recorder.md), so this read
 * and the thread's next event ran with no other thread between them. */
#define FT_READ_PAIRED 1u

/* The wire opcodes of paired reads: fields exactly as READ and READ_WIDE,
 * address in the read register.  Not kinds: the reader delivers them as
 * FT_EV_READ / FT_EV_READ_WIDE with arg = FT_READ_PAIRED, and
 * ft_encode_event writes them for such events (written by runtimes from
 * 2026-11-26 on, in version 3 traces). */
enum ft_read_op {
    FT_OP_READ_PAIRED = 14,
    FT_OP_READ_WIDE_PAIRED = 15,
};

/* Why a replay left its schedule (FT_EV_DIVERGE arg). */
enum ft_diverge_why {
    FT_DIV_BLOCKED = 1,  /* the step's thread is blocked */
    FT_DIV_EXITED = 2,   /* the step's thread has exited */
    FT_DIV_ABSENT = 3,   /* the step's thread was never created */
    FT_DIV_MISMATCH = 4, /* its event at the index has another kind/site */
    FT_DIV_UNFINISHED = 5, /* the program ended before the last step */
};

/* What the heap oracle found (FT_EV_HEAP_ERROR arg). */
enum ft_heap_what {
    FT_HEAP_USE_AFTER_FREE = 1,
    FT_HEAP_DOUBLE_FREE = 2,
    FT_HEAP_NULL_DEREF = 3,
    FT_HEAP_WRITE_BEFORE = 4, /* heap corruption: a write before a block
                                 (its chunk header); value: alloc site */
    FT_HEAP_WRITE_AFTER = 5,  /* a write past a block's end; value: alloc
                                 site */
    FT_HEAP_HEADER_OVERWRITTEN = 6, /* found at free (site): the block's
                                 header was overwritten by a write the
                                 hooks did not see; value: alloc site */
};

/* What was misused (FT_EV_MISUSE arg), as ThreadSanitizer names them. */
enum ft_misuse_what {
    FT_MISUSE_DESTROY_LOCKED = 1,  /* pthread_mutex_destroy of a mutex a
                                      thread holds (or _rwlock_destroy of
                                      an rwlock: holder its writer, else
                                      its last reader) */
    FT_MISUSE_UNLOCK_OTHER = 2,    /* unlock of a mutex another thread
                                      holds (an rwlock it holds for
                                      writing) */
    FT_MISUSE_UNLOCK_UNLOCKED = 3, /* unlock of a mutex (rwlock) nobody
                                      holds */
};

/* How a lock-like operation was attempted (the "how" field). */
enum ft_lock_how {
    FT_HOW_BLOCK = 0, /* pthread_mutex_lock, sem_wait, ... */
    FT_HOW_TRY = 1,   /* *_trylock, sem_trywait */
    FT_HOW_TIMED = 2, /* *_timedlock, sem_timedwait */
    FT_HOW_SPIN = 3,  /* pthread_spin_lock (mutex events only) */
    FT_HOW_SPINTRY = 4,
};

/* Mutex types as recorded by FT_EV_MUTEX_INIT. */
enum ft_mutex_type {
    FT_MUTEX_NORMAL = 0,
    FT_MUTEX_RECURSIVE = 1,
    FT_MUTEX_ERRORCHECK = 2,
    FT_MUTEX_SPIN = 3,
};

/* Atomic read-modify-write operators (FT_EV_ATOMIC_RMW "op"). */
enum ft_rmw_op {
    FT_RMW_XCHG = 0, FT_RMW_ADD = 1, FT_RMW_SUB = 2, FT_RMW_AND = 3,
    FT_RMW_OR = 4, FT_RMW_XOR = 5, FT_RMW_NAND = 6,
};

/* One decoded event.  Fields a kind does not use are zero.  Where each
 * wire field lands (docs/trace-format.md has the wire order):
 *   THREAD_START          value = parent tid
 *   THREAD_CREATE/JOIN/DETACH  site, value = child tid
 *   READ, WRITE           site, addr, size, value
 *   READ_WIDE, WRITE_WIDE site, addr, size, bytes/nbytes (bytes NULL: elided)
 *   READ, READ_WIDE       arg = FT_READ_PAIRED when the read was recorded
 *                         while the thread's previous write was pending
 *                         (opcodes 14, 15): this read and the thread's
 *                         next event ran with no other thread between
 *                         them (the next event is that write, or another
 *                         paired read; none when the trace ends first).
 *                         Otherwise arg = 0 (older traces: always 0)
 *   ATOMIC_LOAD/STORE     site, addr, size, mo, value
 *   ATOMIC_RMW            site, addr, size, mo, arg = op, value = old,
 *                         value2 = new
 *   ATOMIC_CAS            site, addr, size, mo, value = expected,
 *                         value2 = desired, value3 = old, arg = ok
 *   FENCE                 site, mo
 *   MUTEX_INIT            site, addr, arg = type
 *   MUTEX_LOCK, RW_RDLOCK, RW_WRLOCK, SEM_WAIT  site, addr, arg = how, rc
 *   MUTEX_UNLOCK, RW_UNLOCK  site, addr, rc
 *   COND_WAIT             site, addr = cond, obj2 = mutex
 *   COND_WAKE             site, addr = cond, obj2 = mutex, arg = timedout
 *   COND_SIGNAL           site, addr, arg = 1 if a waiter was woken,
 *                         value = its tid
 *   COND_BROADCAST        site, addr, arg = number woken
 *   SEM_INIT, BARRIER_INIT  site, addr, value = initial value / count
 *   SEM_POST, BARRIER_ARRIVE, ONCE_DONE, FREE  site, addr
 *   MUTEX_DESTROY, RW_DESTROY  site, addr
 *   BARRIER_LEAVE         site, addr, arg = serial
 *   ONCE_ENTER            site, addr, arg = runs
 *   MALLOC                site, addr, value = size, value2 = count
 *   REALLOC               site, obj2 = old addr, addr, value = size,
 *                         value2 = count
 *   FUNC_ENTRY            site, value = call site
 *   SLEEP                 site, value = nanoseconds
 *   YIELD, REGION_BEGIN, REGION_END  site
 *   STEAL, SIGNAL         value = tid / signal number
 *   DIVERGE               value = schedule step, value2 = expected tid,
 *                         value3 = its expected event index, arg = why
 *                         (enum ft_diverge_why)
 *   HEAP_ERROR            site (0: the thread's next event is the access),
 *                         addr, arg = what (enum ft_heap_what),
 *                         value = site of the free (0 unknown)
 *   BLOCKED               site (where it waits), addr = object,
 *                         arg = what it waits for (1 mutex, 2 rdlock,
 *                         3 wrlock, 4 condvar, 5 semaphore, 6 barrier,
 *                         7 once, 8 join: addr = tid), value = tid
 * SWITCH is consumed by the reader (it sets tid) and never delivered. */
typedef struct ft_event {
    uint64_t index;     /* position among delivered events, from 0 */
    uint32_t tid;       /* thread, numbered in creation order from 0 */
    uint16_t kind;      /* enum ft_kind */
    uint16_t size;      /* access size in bytes */
    uint32_t site;      /* code site id, 0 when unknown */
    uint32_t arg;       /* small per-kind field (see above) */
    uint64_t addr;      /* accessed address or sync object */
    uint64_t obj2;      /* second object (see above) */
    uint64_t value, value2, value3;
    int32_t rc;         /* return code of the pthread call */
    uint8_t mo;         /* C11 memory order of atomics */
    uint8_t uniform;    /* wide: bytes[0] stands for every byte of the
                           range (nbytes 1; set by fi_trace_get, which
                           keeps a memset's contents as one byte) */
    const uint8_t *bytes; /* wide content; valid until the next read call */
    uint32_t nbytes;
} ft_event;

/* A code site, resolved from the SITES and SYMBOLS chunks. */
typedef struct ft_site {
    uint32_t id;
    uint32_t module;    /* index into the header's module table */
    uint64_t offset;    /* module-relative address */
    const char *function; /* NULL until symbolised */
    const char *file;
    uint32_t line, column;
    /* For a site in code inlined from a system header (std::vector::at
     * inlined into main): the innermost place in the program's own code
     * it was inlined into (INLINED chunk), else NULL and 0. */
    const char *user_file;
    uint32_t user_line;
    const char *text;     /* the source line at file:line when the trace
                             was symbolised (SOURCE), NULL unknown */
    uint32_t straight;    /* bytes of machine code from the site's address
                             up to the first jump, branch or return, plus
                             1 (STRAIGHT); 0 unknown */
    const char *insn;     /* the instruction at a site without file:line
                             (INSN: "mov eax, dword ptr [rip + 0x2d1f]"),
                             NULL unknown */
} ft_site;

typedef struct ft_module {
    const char *path;
    uint64_t base, size;
    const char *build_id; /* lowercase hex, "" if none */
} ft_module;

typedef struct ft_header {
    uint32_t version;
    const char *program;
    uint32_t argc;
    const char *const *argv;
    uint64_t pid;
    uint64_t start_time_ns; /* CLOCK_REALTIME at start */
    uint32_t nmodules;
    const ft_module *modules;
} ft_header;

/* What an FT_CHUNK_END said, when the trace has one. */
typedef struct ft_end {
    int present;
    uint64_t events;
    int64_t exit_status; /* as from waitpid: -1 unknown */
    const char *reason;  /* "exit", "signal", "deadlock", "timeout", ... */
    uint64_t threads;    /* thread ids handed out, 0 unknown */
} ft_end;

/* An error: which file, where, and what was wrong. */
typedef struct ft_error {
    char path[256];
    uint64_t offset;   /* byte offset into the file */
    char message[256]; /* what was expected and what was found */
} ft_error;

/* A bound on a long computation and where it says what it is doing
 * (`analyze --time`, docs/user-guide.md): the stages poll it every few
 * thousand steps and stop, keeping what they have, once until has
 * passed.  until: CLOCK_MONOTONIC seconds, 0 none; progress may be NULL. */
typedef struct ft_budget {
    double until;
    double seconds; /* the bound as given (for messages) */
    void (*progress)(void *arg, const char *stage, uint64_t done,
                     uint64_t total);
    void *arg;
    int spent; /* until has passed (stays set) */
} ft_budget;

/* CLOCK_MONOTONIC now, in seconds. */
double ft_now(void);
/* Reports (stage, done of total: 0 unknown) and returns 1 once the
 * budget is spent.  b may be NULL (never spent). */
int ft_budget_poll(ft_budget *b, const char *stage, uint64_t done,
                   uint64_t total);

typedef struct ft_reader ft_reader;

/* Opens and validates the frame of every chunk (seeking over event
 * payloads), loads header, sites and symbols.  Returns NULL with *err set
 * if the file cannot be used at all (missing, not a trace, bad header).  A
 * damaged tail is not fatal here: see ft_reader_damage. */
ft_reader *ft_reader_open(const char *path, ft_error *err);
/* The same over a caller's buffer (fuzzing, tests); name is used in
 * errors.  data must outlive the reader. */
ft_reader *ft_reader_open_mem(const void *data, size_t len, const char *name,
                              ft_error *err);
void ft_reader_close(ft_reader *r);

const ft_header *ft_reader_header(const ft_reader *r);
const ft_end *ft_reader_end(const ft_reader *r);

/* Next event in trace order: 1 = *ev filled, 0 = no more events, -1 =
 * error (ft_reader_error says what; events before it were all valid). */
int ft_reader_next(ft_reader *r, ft_event *ev);

/* The next events in trace order, by batches: n > 0 with evs[0..n)
 * (valid, wide contents included, until the next read call on r), 0 at
 * the end, -1 on error, exactly the events, indices and errors of
 * ft_reader_next.  Called first after open or a rewind, it decodes ahead
 * on a second thread (bounded: two chunk bodies and a few batches), so a
 * consumer doing real work per event overlaps with decoding; close or
 * rewind stop that thread wherever the consumer is. */
long ft_reader_next_batch(ft_reader *r, const ft_event **evs);

/* Restart streaming from the first event. */
int ft_reader_rewind(ft_reader *r);

/* The name of the global or static variable holding addr ("counter",
 * "table+16"), from the DATA chunks the symboliser appended; NULL when
 * no data symbol covers addr.  buf receives the name. */
const char *ft_reader_data_name(const ft_reader *r, uint64_t addr, char *buf,
                                size_t len);
/* The same for an access of size bytes (0 unknown): with the TYPES chunk
 * the path inside the variable as the program spells it ("balance[1]",
 * "g.inner.count", "table[2].key+4" for a part of a member); *type (may
 * be NULL) receives the type the access reads whole, 0 when none, for
 * ft_reader_value_text.  Without TYPES, "balance+8" as before.  An address
 * inside a module of known extent that no symbol covers (a stripped
 * binary's .bss): "prog+0x46004". */
const char *ft_reader_mem_name(const ft_reader *r, uint64_t addr,
                               uint64_t size, char *buf, size_t len,
                               uint32_t *type);
/* A heap access's name from the source line at site ("pool->completed"):
 * the line dereferences `base->field` with base's pointee type recorded
 * (TYPES), the access at addr (size bytes) lies in the object allocated
 * at obj (obj_size bytes) at that member's offset (modulo the type's
 * size when the object holds several), and no other dereference of the
 * line fits another name.  NULL otherwise; *type as ft_reader_mem_name. */
const char *ft_reader_heap_name(const ft_reader *r, uint32_t site,
                                uint64_t obj, uint64_t obj_size,
                                uint64_t addr, uint64_t size, char *buf,
                                size_t len, uint32_t *type);
/* value (size bytes, 0: the type's) printed as a value of type (from
 * ft_reader_mem_name or ft_reader_heap_name): "-5", "true", "'A'",
 * "2.5", "RED", "NULL"; NULL when type is 0 or not a scalar of that
 * size (print hex then). */
const char *ft_reader_value_text(const ft_reader *r, uint32_t type,
                                 uint64_t value, uint64_t size, char *buf,
                                 size_t len);

/* Site lookup; NULL for id 0 or unknown ids. */
const ft_site *ft_reader_site(const ft_reader *r, uint32_t id);
uint32_t ft_reader_nsites(const ft_reader *r);
const ft_site *ft_reader_site_at(const ft_reader *r, uint32_t i);

/* Nonzero when the file ends in a damaged or incomplete chunk.  The
 * message says how many events were recovered and where reading stopped. */
int ft_reader_damage(const ft_reader *r, ft_error *err);
const ft_error *ft_reader_error(const ft_reader *r);
/* Events delivered since open or the last rewind. */
uint64_t ft_reader_delivered(const ft_reader *r);
/* Bytes of the EVENTS chunk bodies: a bound on the number of events (each
 * takes at least one byte) by which to size a table before streaming, as
 * an END chunk's count is only the writer's word. */
uint64_t ft_reader_event_bytes(const ft_reader *r);

/* Names for printing. */
const char *ft_kind_name(unsigned kind);
int ft_kind_from_name(const char *name);

/* "file:line" (or "module+0xoff", or "?") for a site, into buf. */
const char *ft_site_format(const ft_reader *r, uint32_t site, char *buf,
                           size_t len);
/* Whether a source path is a system header or library source rather than
 * the program's own (/usr/include, /usr/lib, ...; NULL and "" too). */
int ft_path_is_system(const char *file);
/* As ft_site_format, but a site in code inlined from a system header is
 * named by where that code entered the program (ft_site.user_file);
 * returns NULL (buf untouched) when the site is a system one without
 * such a place, so that the caller may look further out. */
const char *ft_site_format_user(const ft_reader *r, uint32_t site, char *buf,
                                size_t len);

/* Writer: produces traces from decoded events (generators, importers,
 * tests).  The runtime uses encode.h directly.  Sites are defined with
 * ft_writer_site before the first event that names them; a site with a
 * function or file also gets a SYMBOLS entry.  Returns NULL / -1 with *err
 * set on I/O failure. */
typedef struct ft_writer ft_writer;
ft_writer *ft_writer_open(const char *path, const ft_header *h, ft_error *err);
/* The same, compressing every chunk but the HEADER with zstd at
 * zstd_level (0: none, as ft_writer_open; the trace is then version 4). */
ft_writer *ft_writer_open_level(const char *path, const ft_header *h,
                                int zstd_level, ft_error *err);
int ft_writer_site(ft_writer *w, const ft_site *s);
int ft_writer_event(ft_writer *w, const ft_event *ev);
/* Flushes, writes SYMBOLS and END (end may be NULL), closes. */
int ft_writer_close(ft_writer *w, const ft_end *end);

/* The address-delta registers of an EVENTS chunk, zero at its start.
 * Each address is written as its difference from the register it belongs
 * to.  From version 3 on, READ and READ_WIDE have a register of their own
 * (split): a loop that reads one array and writes another then has 1-byte
 * deltas on both streams (12.4 to 8.x bytes per event on the dense
 * kernel).  Versions 1 and 2 have one register for every address. */
typedef struct ft_addr_regs {
    uint64_t any;  /* every address field but a split READ's */
    uint64_t read; /* READ and READ_WIDE addresses when split */
    int split;     /* version >= 3 */
} ft_addr_regs;

static inline ft_addr_regs ft_addr_regs_for(uint64_t version)
{
    ft_addr_regs r = {0, 0, version >= 3};
    return r;
}

/* The register an address field of an event of kind, or of a paired
 * read's opcode, belongs to. */
static inline uint64_t *ft_addr_reg_of(ft_addr_regs *r, unsigned kind)
{
    return r->split && (kind == FT_EV_READ || kind == FT_EV_READ_WIDE ||
                        kind == FT_OP_READ_PAIRED ||
                        kind == FT_OP_READ_WIDE_PAIRED)
               ? &r->read
               : &r->any;
}

/* The opcode an event is written with: its kind, or for a READ or
 * READ_WIDE with arg FT_READ_PAIRED its paired opcode (14, 15). */
static inline unsigned ft_event_opcode(const ft_event *ev)
{
    if (ev->arg == FT_READ_PAIRED) {
        if (ev->kind == FT_EV_READ)
            return FT_OP_READ_PAIRED;
        if (ev->kind == FT_EV_READ_WIDE)
            return FT_OP_READ_WIDE_PAIRED;
    }
    return ev->kind;
}

/* Encodes one event's opcode and fields at p (not SWITCH) against the
 * chunk's registers.  Returns the end, or NULL for a kind it does not
 * know.  Needs FT_EVENT_MAX_FIXED + nbytes + 5 bytes. */
uint8_t *ft_encode_event(uint8_t *p, const ft_event *ev, ft_addr_regs *regs);

/* Checks that [p, end) starts with one well-formed msgpack value whose
 * containers claim no more elements than bytes remain and nest at most
 * 32 deep; returns the value's end, or NULL (recorder/reader_meta.c).
 * Run before handing untrusted bytes to msgpack-c, so that a hostile
 * count cannot make it allocate gigabytes. */
const uint8_t *ft_mp_validate(const uint8_t *p, const uint8_t *end);

/* Consistency: every read returns the last write to that address (since
 * its allocation), atomics included.  Returns the number of violations,
 * reporting up to max_report of them on out (may be NULL). */
uint64_t ft_check_consistency(ft_reader *r, FILE *out, unsigned max_report);

/* Appending to a finished trace (recorder/append.c, symbolize.c).  Both
 * only ever add chunks after the last intact one and refuse a trace whose
 * tail is damaged (appending there would hide the new chunk). */

/* Appends an END chunk (the last END in a file wins).  0, -1 (a damaged
 * trace) or -2 (writing failed; the trace is left as it was). */
int ft_trace_append_end(const char *path, const ft_end *end, uint64_t threads,
                        ft_error *err);

/* Turns the records foretell's Valgrind tool wrote while PROGRAM ran
 * (recorder/valgrind/ftvg_raw.h, at raw) into a trace at trace, not yet
 * symbolised (recorder/vgimport.c).  signo > 0: the run ended by that
 * signal, which becomes the trace's last event.  deadlock: the caller
 * killed the run because it stopped at the tool's ALLBLOCKED record;
 * the trace then ends with BLOCKED events and DEADLOCK, as the runtime's
 * does.  Returns 0; 1 when the tool did not end cleanly (a killed run:
 * every record it wrote is in the trace); 2 when the trace ends in a
 * deadlock; -1 with *err set. */
int ft_vg_import(const char *raw, const char *trace, const char *program,
                 int argc, char *const *argv, int signo, int deadlock,
                 ft_error *err);

/* Resolves every site without symbols to function, file, line, column
 * with libdw, reading each module's ELF (build ids must match; modules
 * that are missing or differ are skipped with a warning on warn, which may
 * be NULL), and appends a SYMBOLS chunk.  Returns the number of sites it
 * symbolised, or -1 with *err set, or -2 when writing the trace failed
 * (err names the OS error; the trace is left as it was: exit 4). */
int ft_symbolize(const char *path, FILE *warn, ft_error *err);

/* The GNU build id of the ELF file at path, as lowercase hex (as the
 * module table records it), into out: 1 found, 0 the file has none
 * (out ""), -1 it cannot be read as ELF. */
int ft_file_build_id(const char *path, char *out, size_t len);

/* ft_symbolize with flags: FT_SYM_DEBUGINFO also searches separate
 * debuginfo files (build-id and debug-link, /usr/lib/debug), for modules
 * stripped of their DWARF; without it each module's own file is read. */
#define FT_SYM_DEBUGINFO 1u
int ft_symbolize_with(const char *path, unsigned flags, FILE *warn,
                      ft_error *err);

/* ft_symbolize_with on a trace already open as r (opened on path), then,
 * when end is not NULL, an END chunk: what `foretell record` and replay
 * runs do after the program exits, with one walk of the chunk list
 * instead of one per step (each walk cost ~3 ms on a 200 MB trace).
 * END is appended whenever the trace could be appended to, even if
 * symbolisation failed.  r stays open. */
int ft_symbolize_reader(ft_reader *r, const char *path, unsigned flags,
                        const ft_end *end, uint64_t threads, FILE *warn,
                        ft_error *err);

/* Opens a file foretell reads (recorder/input_file.c) without blocking
 * on it: a FIFO, socket, device or directory is refused with why saying
 * which ("is a directory", "is a FIFO (named pipe), not a regular file")
 * and errno EISDIR or EINVAL; a missing file gives strerror.  Returns a
 * blocking read-only fd (close-on-exec) and the size, or -1. */
int ft_open_regular(const char *path, uint64_t *size, char *why, size_t len);
/* The same as a stdio stream; NULL with why set. */
FILE *ft_fopen_regular(const char *path, char *why, size_t len);
/* The same with err set (path, offset 0, "cannot open: why"). */
FILE *ft_fopen_input(const char *path, ft_error *err);

/* One line of a text input (STD, spec, schedule) into buf, without its
 * '\n' and NUL-terminated, *len its length.  Text formats refuse a NUL
 * byte (C string functions would silently stop the line there) and bound
 * the line length (cap - 1 bytes), so: */
enum ft_line_rc {
    FT_LINE_OK = 1,    /* a line (the last may lack its '\n') */
    FT_LINE_EOF = 0,   /* end of file */
    FT_LINE_ERROR = -1,/* read error (errno) */
    FT_LINE_LONG = -2, /* longer than cap - 1 bytes: the rest is unread */
    FT_LINE_NUL = -3,  /* the line holds a NUL byte */
};
int ft_getline(FILE *f, char *buf, size_t cap, size_t *len);
/* A line of a file with '#' comments (spec, suppressions): the text
 * before the '#', without surrounding blanks, cut in place; "" when
 * nothing is left. */
char *ft_line_content(char *line);

/* FORETELL_TRACE patterns (recorder/trace_path.c): pattern with %p the
 * pid, %e exe (the program's basename), %n the number n, %% a '%'.
 * Returns 0, 1 when the pattern has a '%' that is none of these (kept
 * literally), -1 when out is too small.  *uses_n (may be NULL): %n was
 * there, so another n gives another path. */
int ft_trace_path_expand(const char *pattern, unsigned long pid,
                         const char *exe, unsigned long n, char *out,
                         size_t len, int *uses_n);
/* A path as a FORETELL_TRACE value that means exactly that path ('%'
 * doubled).  0, -1 when out is too small. */
int ft_trace_path_escape(const char *path, char *out, size_t len);

/* Source lines by file and line number (recorder/source.c), each file
 * read once and kept (a few at a time): the symboliser records the line
 * of every site where the sources are, and findings are keyed by it.
 * ft_source_line: 1 with the line (no newline, truncated to len) in buf,
 * 0 when the file or the line is not there. */
typedef struct ft_source_cache ft_source_cache;
ft_source_cache *ft_source_cache_new(void);
void ft_source_cache_free(ft_source_cache *c);
int ft_source_line(ft_source_cache *c, const char *path, uint32_t line,
                   char *buf, size_t len);

/* Output files the user names (recorder/outfile.c).  An output is written
 * to a temporary file beside it and renamed into place once complete, so
 * what was there survives any failure. */
#define FT_OUT_TRACE 1u /* an existing non-empty file must be a trace */
#define FT_OUT_DIR 2u   /* the output is a directory (existing or not) */
/* Whether path may be written as an output, before any work: absent (its
 * directory writable), or a regular file (with FT_OUT_TRACE: empty or a
 * foretell trace), or with FT_OUT_DIR a writable directory.  A symbolic
 * link is followed: real gets the path to replace.  0, or -1 with a
 * message naming the path in msg. */
int ft_out_check(const char *path, unsigned flags, char *real, size_t reallen,
                 char *msg, size_t msglen);
/* A new empty file beside path (its name in tmp), with the mode the old
 * file had or 0666 & ~umask: a descriptor, or -1 (errno). */
int ft_out_temp(const char *path, char *tmp, size_t len);
/* Renames tmp onto path; on failure removes tmp.  0 or -1 (errno). */
int ft_out_commit(const char *tmp, const char *path);
/* ft_out_temp as a stdio stream, and its end: on any write error the
 * temporary file is removed and -1 returned (errno), else it replaces
 * path. */
FILE *ft_out_fopen(const char *path, char *tmp, size_t len);
int ft_out_fclose(FILE *f, const char *tmp, const char *path);
/* rename(2), or a copy (then the source removed) when from and to are on
 * different file systems.  0 or -1 (errno); to is replaced only whole. */
int ft_file_move(const char *from, const char *to);

/* Waits for the child pid (recorder/child_wait.c).  timeout_s > 0 bounds
 * the wait: SIGTERM then, SIGKILL grace_s later, and *timed_out set.
 * 0 with *status filled, or -1 (errno) when waitpid fails. */
int ft_child_wait(pid_t pid, double timeout_s, double grace_s, int *status,
                  int *timed_out);
/* Waits for the child pid as ft_child_wait does, asking stop(arg, now)
 * (CLOCK_MONOTONIC seconds) at least every look_s seconds whether to stop
 * it: a non-zero answer sends SIGTERM, SIGKILL grace_s later, and lands in
 * *stopped (0 when it ended on its own).  stop NULL: no bound. */
int ft_child_watch(pid_t pid, double grace_s, double look_s,
                   int (*stop)(void *arg, double now), void *arg, int *status,
                   int *stopped);

/* How a run ended, for people: "exit 3", "signal 11 (SIGSEGV)", with the
 * END reason in front when it says more ("deadlock: exit 86", "timeout:
 * signal 15 (SIGTERM)"); status is a raw waitpid status, or -1 when
 * unknown (then the reason alone).  Into buf, which is returned. */
const char *ft_status_text(const char *reason, int64_t status, char *buf,
                           size_t len);
/* "SIGSEGV" for 11, into buf. */
const char *ft_signal_name(int signo, char *buf, size_t len);

/* The runtime's report channel (the status channel, docs/replay.md): a
 * pipe whose write end the program inherits, named by FORETELL_STATUS_FD.
 * One line per report.  When the runtime cannot write the trace it writes
 * "write-error ERRNO OFFSET" there (once) and records nothing more
 * (docs/recorder.md); when it refuses to run the program (a schedule or
 * strategy it cannot follow) "refuse STATUS MESSAGE", then exits STATUS:
 * a program exiting with the same status cannot imitate that. */
/* The statuses the runtime exits with.  The trace says the same for the
 * first three (END reason, DEADLOCK/DIVERGE events); a refusal (the runtime
 * will not run the program at all, so there is no trace) is believed only
 * with its "refuse" line, since the program may exit with any of these
 * numbers too. */
#define FT_DEADLOCK_STATUS 86     /* a deadlocked run */
#define FT_DIVERGED_STATUS 83     /* replay left its schedule (stop) */
#define FT_MAX_STEPS_STATUS 82    /* FORETELL_MAX_STEPS key points reached */
#define FT_OPEN_FAIL_STATUS 85    /* the trace cannot be written ("write-error") */
#define FT_BAD_STRATEGY_STATUS 84 /* refused: FORETELL_STRATEGY malformed */
#define FT_BAD_SCHEDULE_STATUS 81 /* refused: FORETELL_SCHEDULE unreadable
                                     or malformed */
typedef struct ft_rt_report {
    int write_errno; /* 0: nothing reported */
    uint64_t offset; /* bytes in the trace when writing failed */
    int refused_status;  /* with refusal[0]: the status it exited with */
    char refusal[900];   /* "": no refusal */
    int misuse;          /* a MISUSE event is in the trace: its what (the
                            first one's) */
} ft_rt_report;
/* The pipe, both ends close-on-exec and non-blocking.  0 or -1 (errno). */
int ft_report_open(int fds[2]);
/* In a launcher's child, after fork and before exec: dies with parent
 * (PR_SET_PDEATHSIG SIGKILL; exits at once if parent is already gone),
 * and, if report_wfd >= 0, passes it on (FORETELL_STATUS_FD). */
void ft_child_setup(int report_wfd, pid_t parent);
/* The same with system calls only (a child of _Fork, replay/run.c):
 * 0 when report_wfd is passed on, and the caller's environment for the
 * exec must then say FORETELL_STATUS_FD=report_wfd. */
int ft_child_setup_fds(int report_wfd, pid_t parent);
/* After the child ended: what the runtime reported; never blocks (a
 * grandchild may hold the pipe open).  Closes rfd. */
void ft_report_read(int rfd, ft_rt_report *r);

#endif

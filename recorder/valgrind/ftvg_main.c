/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ftvg_main.c - foretell's Valgrind tool: records a program that was not
 * built with foretell-cc, every shared access with its value, for
 * `foretell record --backend valgrind` (docs/recorder.md).
 *
 * Valgrind runs one guest thread at a time, which is the recording model
 * of our own runtime, so the order in which this tool sees things is an
 * interleaving of the run.  ftvg_instrument.c adds calls of the helpers
 * here to the program's loads, stores and locked read-modify-writes
 * (VEX's CAS statements: `lock cmpxchg`, `lock add`, `xchg`), function
 * entries and returns; accesses to the running thread's own stack are
 * left out when they run (between the stack pointer and the stack's
 * top).  The synchronisation, thread and heap calls reach it as client
 * requests from ftvg_intercepts.c.  It writes fixed records
 * (ftvg_raw.h) to the file given by --foretell-raw; `foretell record`
 * turns them into a trace once the program has ended
 * (recorder/vgimport.c).
 *
 * Linked with libcoregrind and libvex, so GPL-2.0-or-later (LICENSE in
 * this folder), and a program of its own: nothing of foretell's library
 * links it, and it links nothing of foretell's. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "valgrind.h"

#include "ftvg_raw.h"
#include "ftvg_tool.h"

#define MAX_DENSE 1024 /* FT_TRACE_MAX_THREADS */
#define OUT_BYTES (1 << 20)
#define MAX_MODULES 512
#define MAX_VG 4096   /* Valgrind thread ids (--max-threads is 500) */

static const HChar *raw_path;
static Int raw_fd = -1;
static UChar out[OUT_BYTES];
static UInt out_len;
static ULong records;
static Bool write_failed, too_many_threads;

/* Per Valgrind thread id (reused after a thread ends): its dense id,
 * whether its THREAD_START is still to be written, its creator, and
 * pthread_create's site while it creates. */
static Int dense_of[MAX_VG];
static Bool start_pending[MAX_VG];
static Int parent_of[MAX_VG];
static Addr create_pc[MAX_VG];
static Int last_child[MAX_VG];
static Int next_dense;
static ULong pthread_of_dense[MAX_DENSE]; /* what pthread_create stored */

/* Deadlock: each live thread's wait, if it is in one (a blocking lock,
 * semaphore, barrier, condition variable or join it entered and has not
 * returned from).  When the last live thread enters one, the waits go out
 * with an ALLBLOCKED record, flushed, and the next record is flushed at
 * once too: `foretell record` sees the file stop at ALLBLOCKED while the
 * program sleeps, and calls it a deadlock (a lock that was free returns
 * at once and writes its LOCK record). */
static UInt block_what[MAX_VG];
static Addr block_pc[MAX_VG], block_obj[MAX_VG];
static Int nlive, nblocked;
static Bool flush_next;

static const DebugInfo *announced[MAX_MODULES];
static UInt nannounced;

static void flush_out(void)
{
    UInt done = 0;
    while (done < out_len && !write_failed) {
        Int n = VG_(write)(raw_fd, out + done, (Int)(out_len - done));
        if (n <= 0) {
            write_failed = True;
            VG_(umsg)("foretell: cannot write %s (the disk may be full); "
                      "recording stops\n", raw_path);
            break;
        }
        done += (UInt)n;
    }
    out_len = 0;
}

static void put(const void *p, UInt n)
{
    if (raw_fd < 0 || write_failed)
        return;
    if (out_len + n > OUT_BYTES)
        flush_out();
    VG_(memcpy)(out + out_len, p, n);
    out_len += n;
}

/* Which mutexes are held (LOCK and UNLOCK records), so that entering the
 * lock of a free one is not taken for a wait: open addressing, a slot
 * per mutex ever locked; when full, every other mutex counts as held. */
#define HELD_SLOTS 8192
static Addr held_addr[HELD_SLOTS];
static UInt held_count[HELD_SLOTS];

static UInt *held_slot(Addr m)
{
    UWord h = (UWord)((m >> 3) * 0x9e3779b97f4a7c15ULL) & (HELD_SLOTS - 1);
    for (UInt i = 0; i < HELD_SLOTS; i++, h = (h + 1) & (HELD_SLOTS - 1)) {
        if (held_addr[h] == m)
            return &held_count[h];
        if (!held_addr[h]) {
            held_addr[h] = m;
            return &held_count[h];
        }
    }
    return NULL;
}

static void unblock(ThreadId tid)
{
    if (block_what[tid]) {
        block_what[tid] = 0;
        nblocked--;
    }
}

static UInt rec_len; /* the next record's instruction length (accesses) */

static void put_rec(UInt op, Int dense, Addr pc, Addr addr, UInt size,
                    ULong a, ULong b, ULong c)
{
    struct ftvg_rec r;
    VG_(memset)(&r, 0, sizeof r);
    r.op = (unsigned char)op;
    r.len = (unsigned char)rec_len;
    rec_len = 0;
    r.size = (unsigned short)size;
    r.tid = (unsigned int)dense;
    r.pc = pc;
    r.addr = addr;
    r.a = a;
    r.b = b;
    r.c = c;
    put(&r, sizeof r);
    records++;
}

/* The module holding pc goes out once, before or after the records that
 * name it: the importer reads every MODULE first. */
void ftvg_announce(Addr pc)
{
    if (!pc)
        return;
    const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
    if (!di)
        return;
    for (UInt i = 0; i < nannounced; i++)
        if (announced[i] == di)
            return;
    if (nannounced == MAX_MODULES)
        return;
    announced[nannounced++] = di;
    const HChar *path = VG_(DebugInfo_get_filename)(di);
    UInt len = path ? (UInt)VG_(strlen)(path) : 0;
    /* where its image ends: data symbols are named by module too */
    Addr text = VG_(DebugInfo_get_text_avma)(di);
    Addr end = text + VG_(DebugInfo_get_text_size)(di);
    Addr ends[4] = {
        VG_(DebugInfo_get_bss_avma)(di) + VG_(DebugInfo_get_bss_size)(di),
        VG_(DebugInfo_get_got_avma)(di) + VG_(DebugInfo_get_got_size)(di),
        VG_(DebugInfo_get_gotplt_avma)(di) +
            VG_(DebugInfo_get_gotplt_size)(di),
        VG_(DebugInfo_get_plt_avma)(di) + VG_(DebugInfo_get_plt_size)(di)};
    for (Int i = 0; i < 4; i++)
        if (ends[i] > end)
            end = ends[i];
    put_rec(FTVG_MODULE, 0, text, (Addr)VG_(DebugInfo_get_text_bias)(di),
            0, VG_(DebugInfo_get_text_size)(di), len, end);
    static const UChar zeros[8];
    if (len) {
        put(path, len);
        if (len % 8)
            put(zeros, 8 - len % 8);
    }
}

/* Writes a record for Valgrind thread tid, after its THREAD_START. */
static void emit(ThreadId tid, UInt op, Addr pc, Addr addr, UInt size,
                 ULong a, ULong b, ULong c)
{
    if (tid == VG_INVALID_THREADID || tid >= MAX_VG ||
        dense_of[tid] < 0) {
        rec_len = 0;
        return;
    }
    if (start_pending[tid]) {
        UInt len = rec_len; /* the access's, not the start's */
        rec_len = 0;
        start_pending[tid] = False;
        put_rec(FTVG_THREAD_START, dense_of[tid], 0, 0, 0,
                (ULong)parent_of[tid], 0, 0);
        rec_len = len;
    }
    unblock(tid);
    put_rec(op, dense_of[tid], pc, addr, size, a, b, c);
    if (flush_next) {
        flush_out();
        flush_next = False;
    }
}

/* Every live thread waits: their waits, then ALLBLOCKED (filed under
 * by, a waiting thread, as the runtime files them), flushed. */
static void all_blocked(Int by)
{
    for (ThreadId t = 1; t < MAX_VG; t++)
        if (dense_of[t] >= 0 && block_what[t])
            put_rec(FTVG_BLOCKED, dense_of[t], block_pc[t], block_obj[t], 0,
                    block_what[t], 0, 0);
    put_rec(FTVG_ALLBLOCKED, by, 0, 0, 0, (ULong)nlive, 0, 0);
    flush_out();
    flush_next = True;
}

/* Thread tid enters a wait; the last live one to do so writes them all
 * (or the last thread to exit while the others wait: thread_exiting). */
static void block(ThreadId tid, UInt what, Addr pc, Addr obj)
{
    if (tid >= MAX_VG || dense_of[tid] < 0)
        return;
    UInt *held = what == 1 ? held_slot(obj) : NULL;
    if (held && *held == 0)
        return; /* a free mutex: it is about to take it */
    if (!block_what[tid])
        nblocked++;
    block_what[tid] = what;
    block_pc[tid] = pc;
    block_obj[tid] = obj;
    if (nblocked == nlive)
        all_blocked(dense_of[tid]);
}

/* ---- called from the instrumented code ---------------------------- */

/* Whether addr is on the running thread's own stack: from its stack
 * pointer, less the 128-byte red zone leaf functions use, to the stack's
 * top.  Its locals, spills and saved registers: what a foretell-cc build
 * does not record either (TSan leaves out locals whose address does not
 * escape), and at -O0, where every local is an access off the frame
 * pointer, most of the program's accesses.  What a thread shares from its
 * stack is still recorded where other threads touch it; its own accesses
 * to it are not (docs/recorder.md). */
static Bool own_stack(ThreadId tid, Addr sp, Addr addr)
{
    return addr + 128 >= sp && addr < VG_(thread_get_stack_max)(tid);
}

/* op_size: the instruction's length << 32 | op << 16 | size; sp: the
 * guest stack pointer at the access */
VG_REGPARM(0) void ftvg_h_access(UWord op_size, Addr pc, Addr addr,
                                   ULong value, Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    if (own_stack(tid, sp, addr))
        return;
    rec_len = (UInt)(op_size >> 32) & 0xff;
    emit(tid, (UInt)(op_size >> 16) & 0xffff, pc, addr,
         (UInt)(op_size & 0xffff), value, 0, 0);
}

VG_REGPARM(0) void ftvg_h_cas(UWord len_size, Addr pc, Addr addr,
                                ULong expd, ULong desired, ULong old)
{
    ThreadId tid = VG_(get_running_tid)();
    rec_len = (UInt)(len_size >> 32) & 0xff;
    emit(tid, FTVG_CAS, pc, addr, (UInt)(len_size & 0xffff), expd, desired,
         old);
}

/* Function entries and exits of the program's own code, as a foretell-cc
 * build records them (the region inference keeps a candidate per frame,
 * and reports show the calls): per thread, the stack pointer at each
 * entry; a return pops every frame at or below the stack pointer it
 * leaves, so a longjmp's skipped frames end at the next return. */
#define MAX_FRAMES 4096
static Addr *frame_sp[MAX_VG];
static UInt nframes[MAX_VG];

/* fn entered with sp (its return address at sp) */
VG_REGPARM(0) void ftvg_h_entry(Addr fn, Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    if (tid >= MAX_VG || dense_of[tid] < 0)
        return;
    if (!frame_sp[tid])
        frame_sp[tid] = VG_(malloc)("ftvg.frames", MAX_FRAMES * sizeof(Addr));
    if (nframes[tid] == MAX_FRAMES)
        return; /* deeper recursion: neither its entries nor its exits */
    frame_sp[tid][nframes[tid]++] = sp;
    Addr ret = *(const Addr *)sp;
    /* fn's module went out when its code was instrumented; the caller's
     * (libc for main and thread functions) at most once per module */
    static Addr caller_lo = 1, caller_hi = 0;
    if (ret < caller_lo || ret >= caller_hi) {
        const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ret);
        if (di) {
            caller_lo = VG_(DebugInfo_get_text_avma)(di);
            caller_hi = caller_lo + VG_(DebugInfo_get_text_size)(di);
        }
        ftvg_announce(ret);
    }
    rec_len = 0;
    /* the site as the runtime's: inside the function, at its first line */
    emit(tid, FTVG_FUNC_ENTRY, fn + 1, 0, 0, ret, 0, 0);
}

/* a return of the program's code: sp is past its return address */
VG_REGPARM(0) void ftvg_h_return(Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    if (tid >= MAX_VG || dense_of[tid] < 0)
        return;
    while (nframes[tid] && frame_sp[tid][nframes[tid] - 1] < sp) {
        nframes[tid]--;
        rec_len = 0;
        emit(tid, FTVG_FUNC_EXIT, 0, 0, 0, 0, 0, 0);
    }
}

/* Whether pc is in ld.so or libc: their own pthread and heap calls (the
 * loader's TLS allocation, stdio's buffers) are not the program's. */
static Bool core_lib(Addr pc)
{
    const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
    const HChar *p = di ? VG_(DebugInfo_get_filename)(di) : NULL;
    return p && (VG_(strstr)(p, "/ld-linux") || VG_(strstr)(p, "/libc.so"));
}

/* ---- threads ------------------------------------------------------ */

static void thread_created(ThreadId parent, ThreadId child)
{
    if (child >= MAX_VG)
        return;
    if (next_dense >= MAX_DENSE) {
        if (!too_many_threads)
            VG_(umsg)("foretell: more than %d threads; the rest are not "
                      "recorded\n", MAX_DENSE);
        too_many_threads = True;
        dense_of[child] = -1;
        return;
    }
    Int d = next_dense++;
    dense_of[child] = d;
    nframes[child] = 0; /* a reused Valgrind thread id: a fresh stack */
    nlive++;
    if (block_what[child]) { /* a reused Valgrind thread id */
        block_what[child] = 0;
        nblocked--;
    }
    start_pending[child] = True;
    Bool has_parent = parent != VG_INVALID_THREADID && parent < MAX_VG
                      && dense_of[parent] >= 0;
    parent_of[child] = has_parent ? dense_of[parent] : d;
    if (has_parent) {
        ftvg_announce(create_pc[parent]);
        emit(parent, FTVG_THREAD_CREATE, create_pc[parent], 0, 0,
             (ULong)d, 0, 0);
        last_child[parent] = d;
        create_pc[parent] = 0;
    }
}

static void thread_exiting(ThreadId tid)
{
    if (tid >= MAX_VG || dense_of[tid] < 0)
        return;
    emit(tid, FTVG_THREAD_EXIT, 0, 0, 0, 0, 0, 0);
    dense_of[tid] = -1;
    nlive--;
    /* the others may all be waiting already: a producer that signalled
     * before its consumer waited, then ended while main joins that
     * consumer */
    if (nlive > 0 && nblocked == nlive)
        for (ThreadId t = 1; t < MAX_VG; t++)
            if (dense_of[t] >= 0 && block_what[t]) {
                all_blocked(dense_of[t]);
                break;
            }
}

/* ---- client requests from ftvg_intercepts.c ----------------------- */

static Bool ft_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    if (!VG_IS_TOOL_USERREQ('F', 'T', args[0]))
        return False;
    *ret = 0;
    switch (args[0]) {
    case FTVG_REQ_EVENT:
        if (args[1] == 0 || args[1] >= FTVG_OP_MAX || core_lib(args[2]))
            return True;
        ftvg_announce(args[2]);
        emit(tid, (UInt)args[1], args[2], args[3], 0, args[4], args[5], 0);
        if (args[1] == FTVG_MUTEX_LOCK && args[5] == 0) {
            UInt *held = held_slot(args[3]);
            if (held)
                (*held)++;
        } else if (args[1] == FTVG_MUTEX_UNLOCK) {
            UInt *held = held_slot(args[3]);
            if (held && *held)
                (*held)--;
        }
        /* a condition wait, and a barrier's arrival, are waits too */
        if (args[1] == FTVG_COND_WAIT && !args[5])
            block(tid, 4, args[2], args[3]);
        else if (args[1] == FTVG_BARRIER_WAIT && !args[5])
            block(tid, 6, args[2], args[3]);
        return True;
    case FTVG_REQ_BLOCK:
        if (args[1] == 8) { /* join: the joined thread's dense id */
            for (Int d = next_dense - 1; d >= 0; d--)
                if (pthread_of_dense[d] == args[3]) {
                    block(tid, 8, args[2], (Addr)d);
                    break;
                }
        } else
            block(tid, (UInt)args[1], args[2], args[3]);
        return True;
    case FTVG_REQ_CREATE_PRE:
        if (tid < MAX_VG)
            create_pc[tid] = args[1];
        return True;
    case FTVG_REQ_CREATED:
        if (tid < MAX_VG && last_child[tid] >= 0)
            pthread_of_dense[last_child[tid]] = args[1];
        return True;
    case FTVG_REQ_JOINED:
        /* the latest thread created with that pthread_t: ids are reused */
        for (Int d = next_dense - 1; d >= 0; d--)
            if (pthread_of_dense[d] == args[2]) {
                ftvg_announce(args[1]);
                emit(tid, FTVG_THREAD_JOIN, args[1], 0, 0, (ULong)d, 0, 0);
                break;
            }
        return True;
    }
    return True;
}

/* ---- options, start, end ------------------------------------------ */

static Bool ft_process_cmd_line_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--foretell-raw", raw_path) {
    } else
        return False;
    return True;
}

static void ft_print_usage(void)
{
    VG_(printf)("    --foretell-raw=PATH   write the records here "
                "(foretell record passes it)\n");
}

static void ft_print_debug_usage(void)
{
}

/* A fork's child runs on under the tool (only an exec leaves it), with
 * the parent's file and buffer: it writes nothing, as the runtime's fork
 * children write nothing. */
static void forked_child(ThreadId tid)
{
    (void)tid;
    out_len = 0;
    raw_fd = -1;
}

static void ft_post_clo_init(void)
{
    if (!raw_path) {
        VG_(umsg)("foretell: --foretell-raw=PATH is missing; run this "
                  "tool through `foretell record --backend valgrind`\n");
        VG_(exit)(2);
    }
    SysRes r = VG_(open)(raw_path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC,
                         0600);
    if (sr_isError(r)) {
        VG_(umsg)("foretell: cannot create %s\n", raw_path);
        VG_(exit)(2);
    }
    raw_fd = (Int)sr_Res(r);
    VG_(atfork)(NULL, NULL, forked_child);
    /* the tool's file is not the program's: it must survive an exec and
     * stay out of a dup2 onto a low number */
    put_rec(FTVG_HEAD, 0, 0, 0, 0, FTVG_MAGIC, (ULong)VG_(getpid)(), 0);
}

static void ft_fini(Int exitcode)
{
    (void)exitcode;
    if (raw_fd < 0)
        return;
    ULong n = records;
    put_rec(FTVG_TAIL, 0, 0, 0, 0, n, 0, 0);
    flush_out();
    VG_(close)(raw_fd);
    raw_fd = -1;
}

static void ft_pre_clo_init(void)
{
    VG_(details_name)("foretell");
    VG_(details_version)(NULL);
    VG_(details_description)("records a run for foretell");
    VG_(details_copyright_author)("foretell authors; GPL-2.0-or-later");
    VG_(details_bug_reports_to)("the foretell issue tracker");
    VG_(basic_tool_funcs)(ft_post_clo_init, ftvg_instrument, ft_fini);
    VG_(needs_command_line_options)(ft_process_cmd_line_option,
                                    ft_print_usage, ft_print_debug_usage);
    VG_(needs_client_requests)(ft_client_request);
    VG_(track_pre_thread_ll_create)(thread_created);
    VG_(track_pre_thread_ll_exit)(thread_exiting);
    for (Int i = 0; i < MAX_VG; i++) {
        dense_of[i] = -1;
        last_child[i] = -1;
    }
}

VG_DETERMINE_INTERFACE_VERSION(ft_pre_clo_init)

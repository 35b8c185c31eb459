/* SPDX-License-Identifier: MIT */
/* ftvg_raw.h - the records the Valgrind tool (ftvg_main.c) writes while
 * the program runs, and that `foretell record` turns into a trace
 * (recorder/vgimport.c) once it has ended.  Shared by both sides, so it
 * uses no header at all: the tool is built without libc.
 *
 * Why a file of our own and not the trace format: the tool cannot link
 * msgpack-c, zstd or our writer (Valgrind tools run without libc), and
 * what the trace needs that the run does not (a site table, allocation
 * counts, which thread a signal woke) is easier found afterwards.  The
 * records are fixed 48-byte structs in the order the program ran them
 * (Valgrind runs one thread at a time); a MODULE record is followed by
 * its path, padded to 8 bytes.  Native byte order: the file never leaves
 * the machine, it is removed once imported. */
#ifndef FTVG_RAW_H
#define FTVG_RAW_H

#define FTVG_MAGIC 0x31525647544656ULL /* "VFTGVR1" */

enum ftvg_op {
    FTVG_HEAD = 1,     /* a = FTVG_MAGIC, b = pid */
    FTVG_MODULE,       /* pc = text start, addr = bias, a = text size,
                          b = path length (the path follows), c = where
                          its image ends (text, data, bss) */
    FTVG_READ,         /* pc, addr, size, a = value */
    FTVG_WRITE,        /* pc, addr, size, a = value */
    FTVG_READ_WIDE,    /* pc, addr, size (no value) */
    FTVG_WRITE_WIDE,   /* pc, addr, size (no value) */
    FTVG_CAS,          /* pc, addr, size, a = expected, b = desired,
                          c = old (a locked read-modify-write) */
    FTVG_THREAD_START, /* tid = child, a = parent */
    FTVG_THREAD_CREATE,/* pc, a = child */
    FTVG_THREAD_EXIT,
    FTVG_THREAD_JOIN,  /* pc, a = child */
    FTVG_MUTEX_LOCK,   /* pc, addr, a = how, b = rc */
    FTVG_MUTEX_UNLOCK, /* pc, addr */
    FTVG_RW_RDLOCK,    /* pc, addr, a = how, b = rc */
    FTVG_RW_WRLOCK,    /* pc, addr, a = how, b = rc */
    FTVG_RW_UNLOCK,    /* pc, addr */
    FTVG_COND_WAIT,    /* pc, addr = cond, a = mutex */
    FTVG_COND_WAKE,    /* pc, addr = cond, a = mutex, b = timed out */
    FTVG_COND_SIGNAL,  /* pc, addr = cond */
    FTVG_COND_BROADCAST, /* pc, addr = cond */
    FTVG_SEM_INIT,     /* pc, addr, a = value */
    FTVG_SEM_POST,     /* pc, addr */
    FTVG_SEM_WAIT,     /* pc, addr, a = how, b = rc */
    FTVG_MALLOC,       /* pc, addr, a = size */
    FTVG_FREE,         /* pc, addr */
    FTVG_ABORT,        /* pc: assert or abort() */
    FTVG_BARRIER_INIT, /* pc, addr, a = count */
    FTVG_BARRIER_WAIT, /* pc, addr, a = serial, b = 0 arriving, 1 leaving */
    FTVG_REALLOC,      /* pc, addr = new block, a = size, b = old block */
    FTVG_TAIL,         /* a = records before it: the run ended cleanly */
    FTVG_BLOCKED,      /* tid waits: pc = where, addr = object, a = what
                          (as the trace's BLOCKED: 1 mutex, 2 rdlock,
                          3 wrlock, 4 condvar, 5 semaphore, 6 barrier,
                          8 join with addr = the joined thread) */
    FTVG_ALLBLOCKED,   /* a = threads: every live thread is in one of the
                          waits just listed; written last and flushed.
                          If nothing follows it while the program sleeps,
                          the run is deadlocked (cli/cmd_record.c) */
    FTVG_FUNC_ENTRY,   /* pc = the function's entry + 1, a = the return
                          address (the call site) */
    FTVG_FUNC_EXIT,
    FTVG_OP_MAX
};

struct ftvg_rec {
    unsigned char op;
    unsigned char len;  /* accesses: the instruction's length (pc is the
                           address after it) */
    unsigned short size;
    unsigned int tid;  /* dense, in creation order, main 0 */
    unsigned long long pc, addr, a, b, c;
};

/* Client requests from the intercepts (ftvg_intercepts.c) to the tool:
 * VG_USERREQ_TOOL_BASE('F','T') + n.  Arguments: the op above, the call
 * site, the object, two more words. */
#define FTVG_REQ_BASE (((unsigned)'F' & 0xff) << 24 | ((unsigned)'T' & 0xff) << 16)
enum {
    FTVG_REQ_EVENT = FTVG_REQ_BASE + 1, /* op, pc, addr, a, b */
    FTVG_REQ_CREATE_PRE,                /* pc of pthread_create */
    FTVG_REQ_CREATED,                   /* the pthread_t it stored */
    FTVG_REQ_JOINED,                    /* pc, the pthread_t joined */
    FTVG_REQ_BLOCK                      /* what, pc, object: about to wait
                                           (a lock, a semaphore, a join) */
};

#endif

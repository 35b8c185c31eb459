/* SPDX-License-Identifier: MIT */
/* event_format.c - the per-kind field list behind every event printer
 * (see event_format.h).  The field names are the ones the format spec
 * uses, so a dump reads like docs/trace-format.md. */
#include "recorder/event_format.h"

const char *ft_mo_name(unsigned mo)
{
    static const char *const names[] = {"relaxed", "consume", "acquire",
                                        "release", "acq_rel", "seq_cst"};
    return mo < 6 ? names[mo] : "?";
}

const char *ft_rmw_name(unsigned op)
{
    static const char *const names[] = {"xchg", "add", "sub", "and",
                                        "or",   "xor", "nand"};
    return op < 7 ? names[op] : "?";
}

const char *ft_how_name(unsigned how)
{
    static const char *const names[] = {"block", "try", "timed", "spin",
                                        "spintry"};
    return how < 5 ? names[how] : "?";
}

static const char *mutex_type_name(unsigned t)
{
    static const char *const names[] = {"normal", "recursive", "errorcheck",
                                        "spin"};
    return t < 4 ? names[t] : "?";
}

typedef struct fields {
    ft_field *f;
    unsigned n;
} fields;

static void add(fields *fs, const char *name, enum ft_field_type t,
                uint64_t u)
{
    fs->f[fs->n++] = (ft_field){.name = name, .type = t, .u = u};
}

static void add_int(fields *fs, const char *name, int64_t i)
{
    fs->f[fs->n++] = (ft_field){.name = name, .type = FT_F_INT, .i = i};
}

static void add_name(fields *fs, const char *name, const char *s)
{
    fs->f[fs->n++] = (ft_field){.name = name, .type = FT_F_NAME, .str = s};
}

static void access(fields *fs, const ft_event *ev)
{
    add(fs, "addr", FT_F_ADDR, ev->addr);
    add(fs, "size", FT_F_UINT, ev->size);
}

/* A paired read (trace.h: opcodes 14, 15) says so, last: "paired=1";
 * other reads show no such field, as before. */
static void paired(fields *fs, const ft_event *ev)
{
    if ((ev->kind == FT_EV_READ || ev->kind == FT_EV_READ_WIDE) &&
        ev->arg == FT_READ_PAIRED)
        add(fs, "paired", FT_F_UINT, 1);
}

unsigned ft_event_fields(const ft_event *ev, ft_field out[FT_MAX_FIELDS])
{
    fields fs = {out, 0};
    fields *f = &fs;
    switch (ev->kind) {
    case FT_EV_THREAD_START:
        add(f, "parent", FT_F_UINT, ev->value);
        break;
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN:
    case FT_EV_THREAD_DETACH:
        add(f, "child", FT_F_UINT, ev->value);
        break;
    case FT_EV_THREAD_CANCEL:
        add(f, "thread", FT_F_UINT, ev->value);
        break;
    case FT_EV_READ:
    case FT_EV_WRITE:
        access(f, ev);
        add(f, "value", FT_F_HEX, ev->value);
        paired(f, ev);
        break;
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE:
        add(f, "addr", FT_F_ADDR, ev->addr);
        add(f, "size", FT_F_UINT, ev->value); /* full length: see reader.md */
        f->f[f->n++] = (ft_field){.name = "bytes", .type = FT_F_BYTES,
                                  .bytes = ev->bytes, .nbytes = ev->nbytes};
        paired(f, ev);
        break;
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
        access(f, ev);
        add_name(f, "mo", ft_mo_name(ev->mo));
        add(f, "value", FT_F_HEX, ev->value);
        break;
    case FT_EV_ATOMIC_RMW:
        access(f, ev);
        add_name(f, "mo", ft_mo_name(ev->mo));
        add_name(f, "op", ft_rmw_name(ev->arg));
        add(f, "old", FT_F_HEX, ev->value);
        add(f, "new", FT_F_HEX, ev->value2);
        break;
    case FT_EV_ATOMIC_CAS:
        access(f, ev);
        add_name(f, "mo", ft_mo_name(ev->mo));
        add(f, "expected", FT_F_HEX, ev->value);
        add(f, "desired", FT_F_HEX, ev->value2);
        add(f, "old", FT_F_HEX, ev->value3);
        add(f, "ok", FT_F_UINT, ev->arg);
        break;
    case FT_EV_FENCE:
        add_name(f, "mo", ft_mo_name(ev->mo));
        break;
    case FT_EV_MUTEX_INIT:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add_name(f, "type", mutex_type_name(ev->arg));
        break;
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT:
        add(f, ev->kind == FT_EV_SEM_WAIT ? "sem" : "obj", FT_F_ADDR,
            ev->addr);
        add_name(f, "how", ft_how_name(ev->arg));
        add_int(f, "rc", ev->rc);
        break;
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add_int(f, "rc", ev->rc);
        break;
    case FT_EV_COND_WAIT:
    case FT_EV_COND_WAKE:
        add(f, "cond", FT_F_ADDR, ev->addr);
        add(f, "mutex", FT_F_ADDR, ev->obj2);
        if (ev->kind == FT_EV_COND_WAKE)
            add(f, "timedout", FT_F_UINT, ev->arg);
        break;
    case FT_EV_COND_SIGNAL:
        add(f, "cond", FT_F_ADDR, ev->addr);
        add_int(f, "woken", ev->arg ? (int64_t)ev->value : -1);
        break;
    case FT_EV_COND_BROADCAST:
        add(f, "cond", FT_F_ADDR, ev->addr);
        add(f, "nwoken", FT_F_UINT, ev->arg);
        break;
    case FT_EV_SEM_INIT:
        add(f, "sem", FT_F_ADDR, ev->addr);
        add(f, "value", FT_F_UINT, ev->value);
        break;
    case FT_EV_BARRIER_INIT:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add(f, "count", FT_F_UINT, ev->value);
        break;
    case FT_EV_SEM_POST:
        add(f, "sem", FT_F_ADDR, ev->addr);
        break;
    case FT_EV_MUTEX_DESTROY:
    case FT_EV_RW_DESTROY:
        add(f, "obj", FT_F_ADDR, ev->addr);
        break;
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_ONCE_DONE:
        add(f, "obj", FT_F_ADDR, ev->addr);
        break;
    case FT_EV_FREE:
        add(f, "addr", FT_F_ADDR, ev->addr);
        break;
    case FT_EV_BARRIER_LEAVE:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add(f, "serial", FT_F_UINT, ev->arg);
        break;
    case FT_EV_ONCE_ENTER:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add(f, "runs", FT_F_UINT, ev->arg);
        break;
    case FT_EV_MALLOC:
        add(f, "addr", FT_F_ADDR, ev->addr);
        add(f, "size", FT_F_UINT, ev->value);
        add(f, "count", FT_F_UINT, ev->value2);
        break;
    case FT_EV_REALLOC:
        add(f, "old_addr", FT_F_HEX, ev->obj2);
        add(f, "addr", FT_F_ADDR, ev->addr);
        add(f, "size", FT_F_UINT, ev->value);
        add(f, "count", FT_F_UINT, ev->value2);
        break;
    case FT_EV_FUNC_ENTRY:
        add(f, "call_site", FT_F_SITE, ev->value);
        break;
    case FT_EV_SLEEP:
        add(f, "ns", FT_F_UINT, ev->value);
        break;
    case FT_EV_STEAL:
        add(f, "from", FT_F_UINT, ev->value);
        break;
    case FT_EV_SIGNAL:
        add(f, "signo", FT_F_UINT, ev->value);
        break;
    case FT_EV_DIVERGE:
        add(f, "step", FT_F_UINT, ev->value);
        add(f, "tid", FT_F_UINT, ev->value2);
        add(f, "index", FT_F_UINT, ev->value3);
        add(f, "why", FT_F_UINT, ev->arg);
        break;
    case FT_EV_HEAP_ERROR:
        add(f, "addr", FT_F_ADDR, ev->addr);
        add(f, "what", FT_F_UINT, ev->arg);
        add(f, "free_site", FT_F_SITE, ev->value);
        break;
    case FT_EV_MISUSE:
        add(f, "obj", FT_F_ADDR, ev->addr);
        add(f, "what", FT_F_UINT, ev->arg);
        add(f, "holder", FT_F_UINT, ev->value);
        break;
    case FT_EV_BLOCKED:
        add(f, "tid", FT_F_UINT, ev->value);
        add(f, "obj", FT_F_ADDR, ev->addr);
        add(f, "wait", FT_F_UINT, ev->arg);
        break;
    default:
        break;
    }
    return f->n;
}

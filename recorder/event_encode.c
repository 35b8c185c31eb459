/* SPDX-License-Identifier: MIT */
/* event_encode.c - the one table of which wire fields each event kind has,
 * on the encoding side (a paired read, arg FT_READ_PAIRED, has an opcode
 * of its own and READ's fields).  The reader's decoder (reader_decode.c)
 * mirrors it; docs/trace-format.md is the normative description of both. */
#include "recorder/encode.h"
#include "recorder/trace.h"

static uint8_t *put_addr(uint8_t *p, uint64_t a, uint64_t *reg)
{
    p = ft_put_int(p, (int64_t)(a - *reg));
    *reg = a;
    return p;
}

uint8_t *ft_encode_event(uint8_t *p, const ft_event *ev, ft_addr_regs *regs)
{
    uint64_t *reg = ft_addr_reg_of(regs, ev->kind);
    *p++ = (uint8_t)ft_event_opcode(ev); /* a paired read: 14, 15 */
    switch (ev->kind) {
    case FT_EV_THREAD_START:
        return ft_put_uint(p, ev->value);
    case FT_EV_THREAD_CREATE:
    case FT_EV_THREAD_JOIN:
    case FT_EV_THREAD_DETACH:
    case FT_EV_THREAD_CANCEL:
        p = ft_put_uint(p, ev->site);
        return ft_put_uint(p, ev->value);
    case FT_EV_THREAD_EXIT:
    case FT_EV_FUNC_EXIT:
    case FT_EV_DEADLOCK:
        return p;
    case FT_EV_READ:
    case FT_EV_WRITE:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->size);
        return ft_put_uint(p, ev->value);
    case FT_EV_READ_WIDE:
    case FT_EV_WRITE_WIDE:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->size);
        return ev->bytes ? ft_put_bin(p, ev->bytes, ev->nbytes) : ft_put_nil(p);
    case FT_EV_ATOMIC_LOAD:
    case FT_EV_ATOMIC_STORE:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->size);
        p = ft_put_uint(p, ev->mo);
        return ft_put_uint(p, ev->value);
    case FT_EV_ATOMIC_RMW:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->size);
        p = ft_put_uint(p, ev->mo);
        p = ft_put_uint(p, ev->arg);
        p = ft_put_uint(p, ev->value);
        return ft_put_uint(p, ev->value2);
    case FT_EV_ATOMIC_CAS:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->size);
        p = ft_put_uint(p, ev->mo);
        p = ft_put_uint(p, ev->value);
        p = ft_put_uint(p, ev->value2);
        p = ft_put_uint(p, ev->value3);
        return ft_put_uint(p, ev->arg);
    case FT_EV_FENCE:
        p = ft_put_uint(p, ev->site);
        return ft_put_uint(p, ev->mo);
    case FT_EV_MUTEX_INIT:
    case FT_EV_BARRIER_LEAVE:
    case FT_EV_ONCE_ENTER:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_uint(p, ev->arg);
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
    case FT_EV_SEM_WAIT:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->arg);
        return ft_put_int(p, ev->rc);
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_int(p, ev->rc);
    case FT_EV_COND_WAIT:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return put_addr(p, ev->obj2, reg);
    case FT_EV_COND_WAKE:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = put_addr(p, ev->obj2, reg);
        return ft_put_uint(p, ev->arg);
    case FT_EV_COND_SIGNAL:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_int(p, ev->arg ? (int64_t)ev->value : -1);
    case FT_EV_COND_BROADCAST:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_uint(p, ev->arg);
    case FT_EV_SEM_INIT:
    case FT_EV_BARRIER_INIT:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_uint(p, ev->value);
    case FT_EV_SEM_POST:
    case FT_EV_MUTEX_DESTROY:
    case FT_EV_RW_DESTROY:
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_ONCE_DONE:
    case FT_EV_FREE:
        p = ft_put_uint(p, ev->site);
        return put_addr(p, ev->addr, reg);
    case FT_EV_MALLOC:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->value);
        return ft_put_uint(p, ev->value2);
    case FT_EV_REALLOC:
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->obj2, reg);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->value);
        return ft_put_uint(p, ev->value2);
    case FT_EV_FUNC_ENTRY:
    case FT_EV_SLEEP:
        p = ft_put_uint(p, ev->site);
        return ft_put_uint(p, ev->value);
    case FT_EV_YIELD:
    case FT_EV_REGION_BEGIN:
    case FT_EV_REGION_END:
    case FT_EV_ABORT:
    case FT_EV_THREAD_CANCELED:
        return ft_put_uint(p, ev->site);
    case FT_EV_STEAL:
    case FT_EV_SIGNAL:
        return ft_put_uint(p, ev->value);
    case FT_EV_DIVERGE:
        p = ft_put_uint(p, ev->value);
        p = ft_put_uint(p, ev->value2);
        p = ft_put_uint(p, ev->value3);
        return ft_put_uint(p, ev->arg);
    case FT_EV_HEAP_ERROR:
    case FT_EV_MISUSE: /* the same fields */
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        p = ft_put_uint(p, ev->arg);
        return ft_put_uint(p, ev->value);
    case FT_EV_BLOCKED:
        p = ft_put_uint(p, ev->value);
        p = ft_put_uint(p, ev->site);
        p = put_addr(p, ev->addr, reg);
        return ft_put_uint(p, ev->arg);
    default:
        return NULL;
    }
}

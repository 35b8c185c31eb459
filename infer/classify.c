/* SPDX-License-Identifier: MIT */
/* classify.c - the one place that says what each trace event kind means to
 * stage iii: which object it reads or writes (for conflicts and observed
 * serializability), whether that object is data or synchronisation, and
 * which events are happens-before transitions that an inferred atomic
 * region may not contain (paper section V: creation, join, wait; notify is
 * allowed).  Lock operations are modelled as writes of the lock object, so
 * all operations on one lock conflict, as in the paper's CTM. */
#include "infer/internal.h"

#include <string.h>

void fi_classify(const fi_trace *t, const fi_event *e, fi_access *a)
{
    memset(a, 0, sizeof *a);
    a->key = e->addr;
    switch (e->kind) {
    case FT_EV_READ:
    case FT_EV_READ_WIDE:
        a->op = FI_OP_READ;
        a->data = 1;
        break;
    case FT_EV_WRITE:
    case FT_EV_WRITE_WIDE:
        a->op = FI_OP_WRITE;
        a->data = 1;
        break;
    case FT_EV_ATOMIC_LOAD:
        a->op = FI_OP_READ;
        break;
    case FT_EV_ATOMIC_CAS:
        a->op = e->arg ? FI_OP_WRITE : FI_OP_READ;
        break;
    case FT_EV_ATOMIC_STORE:
    case FT_EV_ATOMIC_RMW:
    case FT_EV_MUTEX_UNLOCK:
    case FT_EV_RW_UNLOCK:
    case FT_EV_COND_SIGNAL:
    case FT_EV_COND_BROADCAST:
    case FT_EV_SEM_POST:
    case FT_EV_SEM_INIT: /* sets the count a concurrent trywait sees */
        a->op = FI_OP_WRITE;
        break;
    case FT_EV_MUTEX_LOCK:
    case FT_EV_RW_RDLOCK:
    case FT_EV_RW_WRLOCK:
        /* A failed try still observed the lock held. */
        a->op = e->rc == 0 ? FI_OP_WRITE : FI_OP_READ;
        break;
    case FT_EV_SEM_WAIT:
        a->op = e->rc == 0 ? FI_OP_WRITE : FI_OP_READ;
        a->hb = 1;
        break;
    case FT_EV_COND_WAIT: /* wait_pre: releases the mutex */
        a->op = FI_OP_WRITE;
        a->key = fi_ev_obj2(t, e);
        a->hb = 1;
        break;
    case FT_EV_COND_WAKE: /* wait_post: ordered after the notify */
        a->op = FI_OP_WRITE;
        a->hb = 1;
        break;
    case FT_EV_BARRIER_ARRIVE:
    case FT_EV_BARRIER_LEAVE:
    case FT_EV_ONCE_ENTER:
        a->op = FI_OP_WRITE;
        a->hb = 1;
        break;
    case FT_EV_ONCE_DONE:
        a->op = FI_OP_WRITE;
        break;
    case FT_EV_THREAD_CREATE:
        a->op = FI_OP_FORK;
        a->key = e->value;
        a->hb = 1;
        break;
    case FT_EV_THREAD_JOIN:
        a->op = FI_OP_JOIN;
        a->key = e->value;
        a->hb = 1;
        break;
    case FT_EV_THREAD_START:
    case FT_EV_THREAD_EXIT:
        a->hb = 1;
        break;
    default:
        break;
    }
}

uint64_t fi_str_id(const char *s)
{
    if (!s)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h | 1; /* never 0: 0 means "no name" */
}

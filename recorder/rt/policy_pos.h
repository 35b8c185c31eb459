/* SPDX-License-Identifier: MIT */
/* policy_pos.h - pending-event bookkeeping shared by the POS and SURW
 * policies (policy_pos.c, policy_surw.c). */
#ifndef FORETELL_POLICY_POS_H
#define FORETELL_POLICY_POS_H

#include "policy_sample.h"
#include "rt.h"

/* What t's pending key point touches (ft_pend.obj: a memory word, even,
 * or a lock, odd; 0 for anything else) and whether it writes. */
void ft_pos_event_of(const ft_thread *t, uint64_t *obj, int *write);
/* Brings p[tid] up to date: when the thread passed a key point since the
 * last look (seen[tid]), its old pending event ran (with reassign, POS's
 * rule: racing pending events get fresh priorities) and the new one gets
 * a fresh priority.  1 when the thread has a new pending event. */
int ft_pos_sync(ft_rng *r, ft_pend *p, uint64_t *seen, int tid, int reassign);

/* Both policies see every key point (budget 1), and timed waits expire
 * only when nothing else can run (sched.c does that on its own): real
 * time must not decide an explored schedule. */
int64_t ft_pos_budget(int tid);
int ft_pos_expire(int tid, int64_t deadline_ns, int64_t now_ns);

#endif

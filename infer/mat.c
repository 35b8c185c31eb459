/* SPDX-License-Identifier: MIT */
/* mat.c - the bridge from stage ii to stage iii: turns the i-transactions
 * of reduce/'s MAT analysis (thread, transition positions) into trace event
 * ranges and proves the regions that lie inside one of them (paper section
 * VIII, "proving atomicity").  Kept in its own file so the rest of ft_infer
 * does not depend on the CTM. */
#include "infer/internal.h"
#include "reduce/reduce.h"


/* The event of thread t's transition at position pos, UINT64_MAX when
 * pos is not one. */
static uint64_t event_at(const ft_ctm *c, uint32_t t, uint32_t pos)
{
    if (t >= c->nthreads || pos >= c->len[t])
        return UINT64_MAX;
    return c->event[ft_ctm_at(c, t, pos)];
}

/* fi_itx_find over the reduction's own i-transactions: a thread's are
 * it_first[t] .. it_first[t + 1], in position (so trace) order.  Before,
 * they were copied into an fi_itx array and indexed: 28 MB at the
 * analysis's peak on 10^6 events (issue 16). */
static int find_in_reduced(const void *arg, uint32_t tid, uint64_t first,
                           uint64_t *last)
{
    const ft_reduced *r = arg;
    const ft_ctm *c = r->ctm;
    if (!r->it_first || tid >= c->nthreads)
        return 0;
    uint32_t lo = r->it_first[tid], hi = r->it_first[tid + 1], end = hi;
    uint32_t base = lo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const ft_itrans *m = &r->itrans[mid];
        uint64_t at = event_at(c, tid, m->first_pos);
        if (at != UINT64_MAX && at <= first)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == base || lo > end)
        return 0;
    const ft_itrans *it = &r->itrans[lo - 1];
    if (it->thread != tid || it->last_pos < it->first_pos)
        return 0; /* not a range of this model: proves nothing */
    uint64_t l = event_at(c, tid, it->last_pos);
    if (l == UINT64_MAX)
        return 0;
    *last = l;
    return 1;
}

long fi_prove_by_reduce(fi_analysis *a, const struct ft_reduced *r)
{
    return fi_prove_by_find(a, find_in_reduced, r);
}

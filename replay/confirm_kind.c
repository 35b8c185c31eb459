/* SPDX-License-Identifier: MIT */
/* confirm_kind.c - fr_confirm_kind: replays the witness of a property
 * kind's finding (predict/kind.h) and checks that the run shows what the
 * kind predicts: a deadlock for a lock cycle (the runtime's deadlock
 * oracle), a deadlock, a hang or the failure a timed wait's expiry leads
 * to for a wait left for good, the heap oracle's report for a heap
 * error, a crash for a null dereference (until 2026-11-27 any failure
 * counted: a pool whose worker checked the null and whose run then
 * failed on another bug's exit status reported a null dereference
 * "confirmed by replay"), and for a reordering (a read from another
 * write, a race) the schedule followed to its end, after which the
 * program's own checks decide: when the run does not fail, random tails
 * and the kind's second schedule (a race's other order) are tried, as
 * fr_confirm does for atomicity violations.  A run that departs from
 * the schedule makes the finding spurious; no refinement is tried for
 * these kinds. */
#include "predict/kind.h"
#include "replay/confirm.h"

#include <string.h>

static int shows(int expect, int failure)
{
    switch (expect) {
    case FT_EXPECT_DEADLOCK:
        return failure == FR_DEADLOCK;
    case FT_EXPECT_BLOCKED:
        return failure != FR_OK && failure != FR_DIVERGED &&
               failure != FR_UNFINISHED;
    case FT_EXPECT_UAF:
        return failure == FR_USE_AFTER_FREE;
    case FT_EXPECT_NULL:
        return failure == FR_NULL_DEREF || failure == FR_CRASH;
    default:
        return 1;
    }
}

/* Replays schedule (base names its files) into c and classifies. */
static int one(const fr_confirm_opts *o, int expect, const char *schedule,
               const char *base, int blen, fr_confirmation *c, ft_error *err)
{
    snprintf(c->trace, sizeof c->trace, "%.900s/%.*s.replay.ftrace", o->dir,
             blen, base);
    snprintf(c->schedule, sizeof c->schedule, "%s", schedule);
    if (fr_confirm_replay(o, c, schedule, c->trace, FR_DIVERGE_STOP,
                          &c->outcome, err) < 0) {
        c->status = FR_NOT_RUN;
        return -1;
    }
    /* a state other than "followed" must show before --time ends */
    if (fr_confirm_cut(c, expect == FT_EXPECT_FOLLOWED))
        return 0;
    if (fr_failed_early(&c->outcome))
        c->status = shows(expect, c->outcome.failure) ? FR_FAILED_EARLY
                                                       : FR_NOT_REPRODUCED;
    else if (c->outcome.diverged)
        c->status = FR_SPURIOUS;
    else
        c->status = shows(expect, c->outcome.failure) ? FR_CONFIRMED
                                                       : FR_NOT_REPRODUCED;
    if (c->status == FR_CONFIRMED && expect == FT_EXPECT_FOLLOWED &&
        c->outcome.failure == FR_OK &&
        fr_confirm_tails(o, c, base, blen, err) < 0)
        return -1;
    return 0;
}

/* base[0..*blen) of schedule's file name (what its files are named by). */
int fr_confirm_kind(const ft_pipeline *pl, size_t i, const char *schedule,
                    const char *alt, const fr_confirm_opts *o,
                    fr_confirmation *c, ft_error *err)
{
    const ft_pkind *k = ft_pkind_of(pl->kprops[i].kind);
    return fr_confirm_expect(k ? k->expect : FT_EXPECT_FOLLOWED, schedule,
                             alt, o, c, err);
}

int fr_confirm_expect(int expect, const char *schedule, const char *alt,
                      const fr_confirm_opts *o, fr_confirmation *c,
                      ft_error *err)
{
    memset(c, 0, sizeof *c);
    int blen;
    const char *base = fr_confirm_base(schedule, &blen);
    if (one(o, expect, schedule, base, blen, c, err) < 0)
        return -1;
    c->first = c->outcome;
    if (!alt || c->status != FR_CONFIRMED || c->outcome.failure != FR_OK)
        return 0;
    /* the other order: kept when it makes the program fail */
    fr_confirmation a;
    memset(&a, 0, sizeof a);
    char abase[300];
    snprintf(abase, sizeof abase, "%.*s.alt", blen, base);
    if (one(o, expect, alt, abase, (int)strlen(abase), &a, err) < 0)
        return -1;
    if ((a.status == FR_CONFIRMED || a.status == FR_FAILED_EARLY) &&
        a.outcome.failure != FR_OK && a.outcome.failure != FR_UNFINISHED) {
        a.first = c->first;
        snprintf(a.note, sizeof a.note, "the first order (%.400s) did not "
                 "fail; the other order (%.400s) does", schedule, alt);
        *c = a;
    }
    return 0;
}

int fr_confirm_kind_wants_tails(const ft_pipeline *pl, size_t i,
                                const fr_confirmation *c)
{
    const ft_pkind *k = ft_pkind_of(pl->kprops[i].kind);
    return (!k || k->expect == FT_EXPECT_FOLLOWED) &&
           c->status == FR_CONFIRMED && c->outcome.failure == FR_OK &&
           c->schedule[0];
}

int fr_confirm_kind_tail(const ft_pipeline *pl, size_t i, const char *alt,
                         const fr_confirm_opts *o, fr_confirmation *c,
                         unsigned k, ft_error *err)
{
    if (!fr_confirm_kind_wants_tails(pl, i, c))
        return 0;
    int blen;
    const char *base = fr_confirm_base(c->schedule, &blen);
    char first[sizeof c->schedule];
    snprintf(first, sizeof first, "%s", c->schedule);
    /* then the other order, with the same tail */
    int r = fr_confirm_tail_or_alt(o, c, base, blen, alt, k, err);
    if (r == 2)
        snprintf(c->note, sizeof c->note,
                 "the first order (%.400s) did not "
                 "fail; the other order (%.400s) does, with tail %s",
                 first, alt, c->tail);
    return r > 0 ? 1 : r;
}

void fr_confirm_kind_tails_done(const fr_confirm_opts *o,
                                const fr_confirmation *c)
{
    int blen;
    const char *base = fr_confirm_base(c->schedule, &blen);
    fr_confirm_pair_done(o, base, blen);
}

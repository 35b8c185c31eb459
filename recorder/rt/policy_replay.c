/* SPDX-License-Identifier: MIT */
/* policy_replay.c - the replay policies.  "none" is the deterministic
 * default after a schedule: no preemption, round-robin at blocking points,
 * a timed wait expires only when nothing else can run (sched.c).  The
 * schedule follower reads FORETELL_SCHEDULE (docs/schedule-format.md) at
 * init with raw syscalls and mmap (the runtime avoids malloc: it wraps
 * it) and lets step i's thread run until its per-thread event index
 * passes the step's index, then hands the baton to step i+1's thread.
 * Per-thread indexes come from tracebuf.c (counts kept at switches) plus
 * the pending write, which is recorded before the baton leaves.  When the
 * step's thread cannot run (blocked, exited, never created) the replay has
 * diverged: a DIVERGE event goes into the trace, then the run stops (exit
 * FT_DIVERGED_STATUS) or continues under the tail policy (FORETELL_DIVERGE).
 * Kind and site mismatches are found by the harness from the trace
 * (replay/outcome.c): the runtime cannot symbolise sites.  docs/replay.md. */
#define _GNU_SOURCE
#include "rt.h"
#include "recorder/schedule_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- "none" ---- */

static int64_t none_budget(int tid)
{
    (void)tid;
    return INT64_MAX;
}

static int none_preempt(int tid)
{
    (void)tid;
    return 0;
}

/* The first enabled tid after cur, wrapping around. */
static int none_pick(const int *enabled, int n, int cur)
{
    int after = -1, lowest = enabled[0];
    for (int i = 0; i < n; i++) {
        if (enabled[i] > cur && (after < 0 || enabled[i] < after))
            after = enabled[i];
        if (enabled[i] < lowest)
            lowest = enabled[i];
    }
    return after >= 0 ? after : lowest;
}

static int oldest_waiter(const int *waiters, int n)
{
    (void)n;
    return waiters[0];
}

static int none_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    (void)tid, (void)deadline_ns, (void)now_ns;
    return 0;
}

const ft_policy ft_policy_none = {
    .budget = none_budget,
    .preempt = none_preempt,
    .pick = none_pick,
    .pick_waiter = oldest_waiter,
    .expire = none_expire,
};

const ft_policy *ft_policy_tail = &ft_policy_none;

/* ---- the schedule follower ---- */

struct step {
    uint64_t index;
    uint32_t tid;
    uint32_t steal; /* the step ends with the watchdog's STEAL */
};

/* The schedule was followed to its end (ft_replay_in_tail): set by the
 * thread holding the baton, read by the watchdog's progress tick. */
static int rp_in_tail;

int ft_replay_in_tail(void)
{
    return __atomic_load_n(&rp_in_tail, __ATOMIC_RELAXED);
}

static struct {
    struct step *steps;
    uint64_t n, cur;
    int diverge_continue;
    /* Probing: a blocking attempt leaves no event, so a recorded thread
     * may have tried a lock or join and blocked between its steps.  When
     * the step's thread is not enabled, other enabled threads are given
     * the baton one at a time, each only until its next event: they must
     * block silently, as they did when recorded (docs/replay.md). */
    int probe;            /* tid being probed, -1 none */
    uint64_t probe_n;     /* its next index when probing began */
    uint64_t probed_step; /* the step the probed[] marks belong to */
    uint8_t probed[FT_MAX_THREADS];
    /* One past each thread's last step (0: none).  A schedule lists the
     * model's transitions, not a thread's exit: a join step waits for a
     * child with no step left, which then runs to its end. */
    uint64_t end_step[FT_MAX_THREADS];
} rp = {.probe = -1};

static int load_text(const char *path, char **text, size_t *len, char *why,
                     size_t whylen)
{
    uint64_t size;
    int fd = ft_open_regular(path, &size, why, whylen);
    if (fd < 0)
        return -1;
    *len = (size_t)size;
    *text = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (*len && *text == MAP_FAILED) {
        snprintf(why, whylen, "cannot map it: %s", strerror(errno));
        *text = NULL;
        return -1;
    }
    return 0;
}

/* Each parsed line: the step table is one mapping sized by the room the
 * parser makes for the declared steps (bounded by the file's size). */
static int take(void *ctx, int item, const ft_sched_parse *p,
                const ft_sched_line *l, char *err, size_t errlen)
{
    size_t *bytes = ctx;
    if (item == FT_SI_STEPS) {
        *bytes = (p->room + 1) * sizeof *rp.steps;
        rp.steps = mmap(NULL, *bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (rp.steps == MAP_FAILED) {
            rp.steps = NULL;
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    } else if (item == FT_SI_STEP) {
        struct step *st = &rp.steps[p->nsteps - 1];
        st->tid = l->tid;
        st->index = l->tindex;
        st->steal = l->kindlen == 5 && !memcmp(l->kind, "steal", 5);
        rp.n = p->nsteps;
    }
    return 0;
}

/* Parses the schedule with the CLI's own parser (schedule_parse.c), so
 * that what `foretell replay` accepted the runtime follows, with the same
 * limits. */
int ft_replay_load(const char *path, int diverge_continue, char *out,
                   size_t outlen)
{
    char *text = NULL, why[200];
    size_t len = 0, bytes = 0;
    unsigned line;
    if (load_text(path, &text, &len, why, sizeof why) < 0) {
        snprintf(out, outlen, "cannot read schedule %s: %s", path, why);
        return -1;
    }
    rp.n = 0;
    int rc = ft_sched_parse_text(text, len, take, &bytes, &line, why,
                                 sizeof why);
    if (text)
        munmap(text, len);
    if (rc < 0) {
        snprintf(out, outlen, "%s:%u: %s", path, line, why);
        if (rp.steps)
            munmap(rp.steps, bytes);
        rp.steps = NULL;
        rp.n = 0;
        return -1;
    }
    rp.cur = 0;
    for (uint64_t i = 0; i < rp.n; i++)
        rp.end_step[rp.steps[i].tid] = i + 1;
    rp.diverge_continue = diverge_continue;
    if (ft_rt.policy != &ft_policy_record)
        ft_policy_tail = ft_rt.policy; /* FORETELL_STRATEGY chose one */
    ft_rt.policy = rp.n ? &ft_policy_replay : ft_policy_tail;
    return 0;
}

static uint64_t next_index(int tid)
{
    return ft_trace_tid_events(tid) + (ft_threads[tid].pw_size ? 1 : 0);
}

/* Steps whose thread has passed the step's event index are done.  Usually
 * the front step is tid's; it may be another thread's that ran without a
 * check (a thread back from a stolen wait takes a free baton directly). */
static void advance(void)
{
    while (rp.cur < rp.n) {
        uint32_t u = rp.steps[rp.cur].tid;
        if ((int)u >= ft_rt.nthreads || next_index((int)u) <= rp.steps[rp.cur].index)
            break;
        rp.cur++;
    }
    if (rp.cur == rp.n && ft_rt.policy == &ft_policy_replay) {
        ft_rt.policy = ft_policy_tail;
        __atomic_store_n(&rp_in_tail, 1, __ATOMIC_RELAXED);
        ft_rt_verbose("replay: schedule done (%llu steps)",
                      (unsigned long long)rp.n);
    }
}

/* The watchdog's look, under the runtime's lock (watchdog.c): the last
 * step done although no thread has reached a key point since, so that
 * advance() never ran.  The last step's thread may go on in code without
 * any (tests/confirm/progs/spin_after.c: `while (!flag) ;`, its load
 * hoisted out of the loop, read as the schedule's last step, then
 * spinning for good): the harness must still learn that the run is past
 * its schedule, or its share of --time never applies (the replay ran to
 * --time's end and the other witnesses were never replayed).  Only the
 * flag: the policy changes at the next key point, if one comes. */
void ft_replay_poll_tail(void)
{
    if (ft_rt.policy != &ft_policy_replay || !rp.n || rp.cur + 1 != rp.n ||
        __atomic_load_n(&rp_in_tail, __ATOMIC_RELAXED))
        return;
    uint32_t u = rp.steps[rp.cur].tid;
    if ((int)u < ft_rt.nthreads && next_index((int)u) > rp.steps[rp.cur].index)
        __atomic_store_n(&rp_in_tail, 1, __ATOMIC_RELAXED);
}

static int64_t replay_budget(int tid)
{
    (void)tid;
    return 1;
}

static int diverge_unscheduled(int tid);

/* Whether tid runs its tail for the step's thread, blocked joining it. */
static int finishing(int tid)
{
    int want = (int)rp.steps[rp.cur].tid;
    return want < ft_rt.nthreads && tid != want &&
           ft_threads[want].wait_kind == FT_W_JOIN &&
           ft_threads[want].wait_obj == (uintptr_t)tid &&
           rp.end_step[tid] <= rp.cur;
}

static int replay_preempt(int tid)
{
    advance();
    /* The schedule just ended (or had): this key point is the tail's
     * first decision, the one a violation's consequences most depend on. */
    if (ft_rt.policy != &ft_policy_replay)
        return ft_rt.policy->preempt(tid);
    if (finishing(tid))
        return 0;
    if (tid == rp.probe) {
        /* The probed thread may enter one key point, which should block. */
        if (next_index(tid) == rp.probe_n)
            return 0;
        return diverge_unscheduled(tid);
    }
    return rp.steps[rp.cur].tid != (uint32_t)tid;
}

static const char *const why_text[] = {
    "", "is blocked", "has exited", "was never created", "", "",
};

/* A probed thread emitted an event instead of blocking: the run has left
 * the recorded order. */
static int diverge_unscheduled(int tid)
{
    const struct step *s = &rp.steps[rp.cur];
    ft_event ev = {.kind = FT_EV_DIVERGE, .value = rp.cur, .value2 = s->tid,
                   .value3 = s->index, .arg = FT_DIV_BLOCKED};
    ft_emit(&ev);
    fprintf(stderr,
            "foretell: replay diverged at step %llu: thread %u is blocked; "
            "thread %d, run instead, did not block but ran its event %llu\n",
            (unsigned long long)rp.cur, s->tid, tid,
            (unsigned long long)rp.probe_n);
    rp.probe = -1;
    if (!rp.diverge_continue)
        ft_die("diverged", FT_DIVERGED_STATUS);
    ft_rt.policy = ft_policy_tail;
    return ft_policy_tail->preempt(tid);
}

/* An enabled thread not yet probed for this step, after want in tid order. */
static int probe_candidate(const int *enabled, int n, int want)
{
    if (rp.probed_step != rp.cur + 1) {
        memset(rp.probed, 0, sizeof rp.probed);
        rp.probed_step = rp.cur + 1;
    }
    int best = -1;
    for (int i = 0; i < n; i++) {
        int u = enabled[i];
        if (rp.probed[u])
            continue;
        int key = (u - want + FT_MAX_THREADS) % FT_MAX_THREADS;
        if (best < 0 || key < (best - want + FT_MAX_THREADS) % FT_MAX_THREADS)
            best = u;
    }
    if (best >= 0) {
        rp.probed[best] = 1;
        rp.probe = best;
        rp.probe_n = next_index(best);
    }
    return best;
}

static int diverge(const int *enabled, int n, int cur, int want)
{
    ft_thread *w = &ft_threads[want];
    int why = want >= ft_rt.nthreads      ? FT_DIV_ABSENT
              : w->state == FT_T_EXITED ? FT_DIV_EXITED
                                        : FT_DIV_BLOCKED;
    const struct step *s = &rp.steps[rp.cur];
    ft_event ev = {.kind = FT_EV_DIVERGE, .value = rp.cur, .value2 = s->tid,
                   .value3 = s->index, .arg = (uint32_t)why};
    ft_emit(&ev);
    fprintf(stderr,
            "foretell: replay diverged at step %llu: thread %u should run "
            "up to its event %llu but %s (it is at event %llu)\n",
            (unsigned long long)rp.cur, s->tid, (unsigned long long)s->index,
            why_text[why],
            (unsigned long long)(want < ft_rt.nthreads ? next_index(want) : 0));
    if (!rp.diverge_continue)
        ft_die("diverged", FT_DIVERGED_STATUS);
    ft_rt.policy = ft_policy_tail;
    return ft_policy_tail->pick(enabled, n, cur);
}

static int replay_pick(const int *enabled, int n, int cur)
{
    advance();
    if (ft_rt.policy != &ft_policy_replay)
        return ft_rt.policy->pick(enabled, n, cur);
    int want = (int)rp.steps[rp.cur].tid;
    rp.probe = -1;
    for (int i = 0; i < n; i++)
        if (enabled[i] == want)
            return want;
    int blocked = want < ft_rt.nthreads &&
                  ft_threads[want].state != FT_T_EXITED;
    for (int i = 0; blocked && i < n; i++)
        if (finishing(enabled[i]))
            return enabled[i];
    int u = blocked ? probe_candidate(enabled, n, want) : -1;
    return u >= 0 ? u : diverge(enabled, n, cur, want);
}

/* A timed wait of the step's thread has timed out: nobody else ran. */
static int replay_expire(int tid, int64_t deadline_ns, int64_t now_ns)
{
    advance();
    if (ft_rt.policy != &ft_policy_replay)
        return ft_rt.policy->expire(tid, deadline_ns, now_ns);
    return rp.steps[rp.cur].tid == (uint32_t)tid;
}

int ft_replay_steal_ok(int tid)
{
    if (ft_rt.policy != &ft_policy_replay)
        return 1;
    const struct step *s = &rp.steps[rp.cur];
    return s->tid == (uint32_t)tid && s->steal &&
           next_index(tid) == s->index;
}

/* Which condvar waiter a signal wakes.  The schedule does not say (its
 * steps name who runs, not who was woken), and the recorded run may have
 * woken any of them (an explored run draws it).  The waiter whose next
 * step comes first must have been woken by now; one with no step left
 * may stay asleep.  If the recorded run woke another one that runs later,
 * that one was woken by a later signal which this one then takes: the
 * steps run the same either way.  Without a step left for any, the
 * oldest, as the tail would. */
static int replay_pick_waiter(const int *waiters, int n)
{
    advance();
    if (ft_rt.policy != &ft_policy_replay)
        return ft_rt.policy->pick_waiter(waiters, n);
    int any = 0;
    for (int i = 0; i < n && !any; i++)
        any = rp.end_step[waiters[i]] > rp.cur;
    for (uint64_t k = rp.cur; any && k < rp.n; k++)
        for (int i = 0; i < n; i++)
            if (rp.steps[k].tid == (uint32_t)waiters[i])
                return waiters[i];
    return waiters[0];
}

const ft_policy ft_policy_replay = {
    .budget = replay_budget,
    .preempt = replay_preempt,
    .pick = replay_pick,
    .pick_waiter = replay_pick_waiter,
    .expire = replay_expire,
};

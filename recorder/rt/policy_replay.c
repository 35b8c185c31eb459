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

static int bad(const char *path, unsigned line, const char *what)
{
    ft_refusal_note("%s:%u: %s", path, line, what);
    return -1;
}

static int parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    if (q >= end || *q < '0' || *q > '9')
        return -1;
    while (q < end && *q >= '0' && *q <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*q++ - '0');
    }
    *p = q;
    *out = v;
    return 0;
}

/* One step line "tid index kind mark site" into s. */
static int parse_step(const char *p, const char *end, struct step *s)
{
    uint64_t tid, index;
    if (parse_u64(&p, end, &tid) || tid >= FT_MAX_THREADS || p >= end ||
        *p++ != ' ' || parse_u64(&p, end, &index) || p >= end || *p++ != ' ')
        return -1;
    const char *k = p;
    while (p < end && *p != ' ')
        p++;
    if (p == k || p + 3 > end || (p[1] != '!' && p[1] != '-') || p[2] != ' ')
        return -1;
    s->tid = (uint32_t)tid;
    s->index = index;
    s->steal = p - k == 5 && !memcmp(k, "steal", 5);
    return 0;
}

static int load_text(const char *path, char **text, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *len = (size_t)st.st_size;
    *text = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    return *len && *text == MAP_FAILED ? -1 : 0;
}

int ft_replay_load(const char *path, int diverge_continue)
{
    char *text;
    size_t len;
    if (load_text(path, &text, &len) < 0) {
        ft_refusal_note("cannot read schedule %s: %s", path, strerror(errno));
        return -1;
    }
    const char *p = text, *end = text + len;
    unsigned line = 0;
    uint64_t declared = 0, n = 0;
    int have_steps = 0, ended = 0, rc = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        size_t ll = (size_t)(le - p);
        if (line == 1) {
            if (ll < 19 || memcmp(p, "foretell-schedule 1", 19)) {
                bad(path, line, "not a schedule file (expected "
                                "'foretell-schedule 1')");
                goto out;
            }
        } else if (ended) {
            bad(path, line, "text after 'end'");
            goto out;
        } else if (ll == 0 || *p == '#') {
        } else if (!have_steps) {
            if (ll > 6 && !memcmp(p, "steps:", 6)) {
                const char *q = p + 6;
                while (q < le && *q == ' ')
                    q++;
                if (parse_u64(&q, le, &declared) || q != le ||
                    declared > 100000000) {
                    bad(path, line, "steps: expected a count");
                    goto out;
                }
                have_steps = 1;
                size_t bytes = (declared + 1) * sizeof *rp.steps;
                rp.steps = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (rp.steps == MAP_FAILED) {
                    bad(path, line, "out of memory");
                    goto out;
                }
            } else if (!memchr(p, ':', ll)) {
                bad(path, line, "expected a header line 'key: value'");
                goto out;
            }
        } else if (ll == 3 && !memcmp(p, "end", 3)) {
            if (n != declared) {
                bad(path, line, "fewer step lines than 'steps:'");
                goto out;
            }
            ended = 1;
        } else if (n >= declared) {
            bad(path, line, "more step lines than 'steps:'");
            goto out;
        } else if (parse_step(p, le, &rp.steps[n]) < 0) {
            bad(path, line, "bad step (expected 'tid index kind mark site')");
            goto out;
        } else {
            n++;
        }
        p = nl ? nl + 1 : end;
    }
    if (!ended) {
        bad(path, line + 1, "missing 'end' (truncated file?)");
        goto out;
    }
    rp.n = n;
    rp.cur = 0;
    for (uint64_t i = 0; i < n; i++)
        if (rp.steps[i].tid < FT_MAX_THREADS)
            rp.end_step[rp.steps[i].tid] = i + 1;
    rp.diverge_continue = diverge_continue;
    if (ft_rt.policy != &ft_policy_record)
        ft_policy_tail = ft_rt.policy; /* FORETELL_STRATEGY chose one */
    ft_rt.policy = rp.n ? &ft_policy_replay : ft_policy_tail;
    rc = 0;
out:
    if (text && text != MAP_FAILED)
        munmap(text, len);
    return rc;
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
        ft_rt_verbose("replay: schedule done (%llu steps)",
                      (unsigned long long)rp.n);
    }
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

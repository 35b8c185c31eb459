/* SPDX-License-Identifier: MIT */
/* atomic_oracle.c - see atomic_oracle.h. */
#include "atomic_oracle.h"

#include <string.h>

typedef struct walk_ctx {
    const ft_ctm *c;
    checked_region *reg;
    size_t nreg;
    long schedules;
    uint8_t read_release[ORACLE_MAX_TRANS]; /* RWUNLOCK of a read hold */
} walk_ctx;

/* Which transitions may change places.  An atomicity violation is a
 * schedule that cannot be turned into one running the region without
 * interruption by swapping adjacent transitions of different threads where
 * the swap is valid in every state (same enabledness, same result).  The
 * pairs that may swap, restated here from the pthread semantics of the CTM
 * (docs/ctm.md) rather than taken from infer:
 *  - memory accesses of different variables, or both reads;
 *  - operations on different objects (a cond wait touches the condition
 *    and its mutex; fork and join touch the child thread);
 *  - two failed tries (they only observe the object);
 *  - read locks and releases of read holds among themselves;
 *  - semaphore posts among themselves, waits among themselves, and a wait
 *    followed by a post (Lipton: the wait moves right past the post; the
 *    other order may disable the wait).
 * Everything else on a shared object stays ordered: lock and release
 * against a failed try that saw the lock held, post against a failed
 * trywait, and so on.  Since the swaps are state-independent, the
 * schedules reachable by swapping are exactly the linearisations of the
 * "must stay ordered" pairs, and the region is serializable in a schedule
 * iff those pairs and program order make no path out of the region and
 * back into it. */
enum sync_class { C_OTHER, C_FAIL, C_RD, C_UR, C_POST, C_WAIT };

static unsigned sync_class(const walk_ctx *w, uint32_t x)
{
    switch (w->c->op[x]) {
    case FT_OP_LOCK_FAIL:
    case FT_OP_RWLOCK_FAIL:
    case FT_OP_SEM_FAIL:
        return C_FAIL;
    case FT_OP_RDLOCK:
        return C_RD;
    case FT_OP_RWUNLOCK:
        return w->read_release[x] ? C_UR : C_OTHER;
    case FT_OP_SEM_POST:
        return C_POST;
    case FT_OP_SEM_WAIT:
        return C_WAIT;
    default:
        return C_OTHER;
    }
}

static int is_mem(unsigned op)
{
    return op == FT_OP_READ || op == FT_OP_WRITE || op == FT_OP_RMW;
}

/* Must x, scheduled before y, stay before it? */
static int ordered(const walk_ctx *w, uint32_t x, uint32_t y)
{
    const ft_ctm *c = w->c;
    if (c->tid[x] == c->tid[y])
        return 1; /* program order */
    unsigned ox = c->op[x], oy = c->op[y];
    if (ox == FT_OP_FORK || ox == FT_OP_JOIN)
        return c->value[x] == c->tid[y];
    if (oy == FT_OP_FORK || oy == FT_OP_JOIN)
        return c->value[y] == c->tid[x];
    if (is_mem(ox) || is_mem(oy))
        return is_mem(ox) && is_mem(oy) && c->obj[x] == c->obj[y] &&
               (ox != FT_OP_READ || oy != FT_OP_READ);
    uint32_t a[2] = {c->obj[x], c->obj2[x]}, b[2] = {c->obj[y], c->obj2[y]};
    int shared = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            shared |= a[i] != FT_CTM_NONE && a[i] == b[j];
    if (!shared)
        return 0;
    unsigned kx = sync_class(w, x), ky = sync_class(w, y);
    if (kx == C_FAIL && ky == C_FAIL)
        return 0;
    if ((kx == C_RD || kx == C_UR) && (ky == C_RD || ky == C_UR))
        return 0;
    if ((kx == C_POST || kx == C_WAIT) && ky == kx)
        return 0;
    return !(kx == C_WAIT && ky == C_POST);
}

/* Is the schedule seq[0..n) not conflict-serializable when positions
 * first..last of thread tid are the only non-unary transaction?  A path
 * of dependences leaves the transaction and comes back into it. */
static int cycle_through(const walk_ctx *w, const uint32_t *seq, uint32_t n,
                         uint32_t tid, uint32_t first, uint32_t last)
{
    const ft_ctm *c = w->c;
    uint8_t in[ORACLE_MAX_TRANS] = {0}, reach[ORACLE_MAX_TRANS] = {0};
    for (uint32_t i = first; i <= last; i++)
        in[i] = c->tid[seq[i]] == tid;
    for (uint32_t i = first; i < n; i++) {
        if (in[i]) {
            for (uint32_t j = i + 1; j < n; j++)
                if (!in[j] && ordered(w, seq[i], seq[j]))
                    reach[j] = 1;
        } else if (reach[i]) {
            for (uint32_t j = i + 1; j < n; j++)
                if (ordered(w, seq[i], seq[j])) {
                    if (in[j])
                        return 1;
                    reach[j] = 1;
                }
        }
    }
    return 0;
}

/* POSIX leaves a semaphore used before sem_init undefined: a schedule in
 * which another operation on a semaphore comes before its recorded
 * SEM_INIT is not a behaviour of the program. */
static int initialised_first(const ft_ctm *c, const uint32_t *seq,
                             uint32_t n)
{
    uint8_t init_done[ORACLE_MAX_VARS] = {0}, has_init[ORACLE_MAX_VARS] = {0};
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] == FT_OP_SEM_INIT)
            has_init[c->obj[x]] = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i];
        if (c->op[x] == FT_OP_SEM_INIT)
            init_done[c->obj[x]] = 1;
        else if (c->obj[x] != FT_CTM_NONE &&
                 c->vars[c->obj[x]].kind == FT_VAR_SEM &&
                 has_init[c->obj[x]] && !init_done[c->obj[x]])
            return 0;
    }
    return 1;
}

/* Whether each RWUNLOCK releases a read hold (the generator takes an
 * rwlock at most once per thread, so the last acquire says which). */
static void mark_read_releases(const ft_ctm *c, uint8_t *read_release)
{
    uint8_t mode[ORACLE_MAX_THREADS][ORACLE_MAX_VARS];
    memset(mode, 0, sizeof mode);
    for (uint32_t x = 0; x < c->ntrans; x++) {
        uint32_t t = c->tid[x], v = c->obj[x];
        if (c->op[x] == FT_OP_RDLOCK || c->op[x] == FT_OP_WRLOCK)
            mode[t][v] = c->op[x] == FT_OP_RDLOCK;
        read_release[x] = c->op[x] == FT_OP_RWUNLOCK && mode[t][v];
    }
}

static void visit(void *vctx, const uint32_t *seq, uint32_t n, int maximal,
                  const uint8_t *blocked)
{
    (void)maximal;
    (void)blocked;
    walk_ctx *w = vctx;
    const ft_ctm *c = w->c;
    if (n < 2)
        return;
    /* Every prefix is visited, and a new cycle through a region can only
     * close at a transition of the region: check when one is appended. */
    uint32_t lastx = seq[n - 1];
    int valid = -1;
    w->schedules++;
    for (size_t k = 0; k < w->nreg; k++) {
        checked_region *cr = &w->reg[k];
        if (cr->violated || c->tid[lastx] != cr->r->tid ||
            lastx < cr->tr[0] || lastx > cr->tr[cr->n - 1] ||
            lastx == cr->tr[0])
            continue;
        uint32_t first = 0;
        while (seq[first] != cr->tr[0])
            first++;
        if (!cycle_through(w, seq, n, cr->r->tid, first, n - 1))
            continue;
        if (valid < 0)
            valid = initialised_first(c, seq, n);
        if (!valid)
            continue;
        cr->violated = 1;
        memcpy(cr->bad_seq, seq, n * sizeof *seq);
        cr->bad_n = n;
    }
}

long atomic_oracle_walk(const ft_ctm *c, checked_region *reg, size_t nreg)
{
    walk_ctx w = {c, reg, nreg, 0, {0}};
    if (c->ntrans > ORACLE_MAX_TRANS || c->nvars > ORACLE_MAX_VARS ||
        c->nthreads > ORACLE_MAX_THREADS)
        return -1;
    mark_read_releases(c, w.read_release);
    oracle_opts o = {0, NULL, NULL, 0};
    return oracle_walk(c, &o, visit, &w);
}

/* SPDX-License-Identifier: MIT */
/* model.c - questions asked of a built CTM: which transitions are shared,
 * which pairs are dependent, what must happen before what (fork/join
 * clocks), and sub-models for slicing.  Dependence is defined here once so
 * that merging, lockset/HB, MAT, slicing and the tests' oracle agree. */
#include "ctm/ctm.h"

#include <stdlib.h>
#include <string.h>

static const char *const op_names[FT_OP_COUNT] = {
    [FT_OP_READ] = "read",
    [FT_OP_WRITE] = "write",
    [FT_OP_RMW] = "rmw",
    [FT_OP_LOCK] = "lock",
    [FT_OP_LOCK_FAIL] = "lock-fail",
    [FT_OP_UNLOCK] = "unlock",
    [FT_OP_RDLOCK] = "rdlock",
    [FT_OP_WRLOCK] = "wrlock",
    [FT_OP_RWLOCK_FAIL] = "rwlock-fail",
    [FT_OP_RWUNLOCK] = "rwunlock",
    [FT_OP_WAIT_PRE] = "wait-pre",
    [FT_OP_WAIT_POST] = "wait-post",
    [FT_OP_NOTIFY] = "notify",
    [FT_OP_NOTIFY_ALL] = "notify-all",
    [FT_OP_SEM_INIT] = "sem-init",
    [FT_OP_SEM_POST] = "sem-post",
    [FT_OP_SEM_WAIT] = "sem-wait",
    [FT_OP_SEM_FAIL] = "sem-fail",
    [FT_OP_BARRIER_ARRIVE] = "barrier-arrive",
    [FT_OP_BARRIER_LEAVE] = "barrier-leave",
    [FT_OP_ONCE_RUN] = "once-run",
    [FT_OP_ONCE_SKIP] = "once-skip",
    [FT_OP_ONCE_DONE] = "once-done",
    [FT_OP_FORK] = "fork",
    [FT_OP_JOIN] = "join",
    [FT_OP_FREE] = "free",
};

const char *ft_op_name(unsigned op)
{
    return op < FT_OP_COUNT && op_names[op] ? op_names[op] : "?";
}

int ft_ctm_writes(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_WRITE || c->op[x] == FT_OP_RMW;
}

int ft_ctm_blocking(const ft_ctm *c, uint32_t x)
{
    switch (c->op[x]) {
    case FT_OP_LOCK:
    case FT_OP_RDLOCK:
    case FT_OP_WRLOCK:
    case FT_OP_SEM_WAIT:
        return c->value[x] == FT_HOW_BLOCK || c->value[x] == FT_HOW_SPIN;
    case FT_OP_WAIT_POST:
        return c->value[x] == 0; /* a timed-out wait needed no notify */
    case FT_OP_BARRIER_LEAVE:
    case FT_OP_JOIN:
        return 1;
    default:
        return 0;
    }
}

int ft_ctm_reads(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_READ || c->op[x] == FT_OP_RMW;
}

static int is_memory(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW;
}

/* Sync pairs on one object that commute in every state. */
static int commuting_sync(unsigned a, unsigned b)
{
    return (a == FT_OP_RDLOCK && b == FT_OP_RDLOCK) ||
           (a == FT_OP_SEM_POST && b == FT_OP_SEM_POST);
}

int ft_ctm_conflict(const ft_ctm *c, uint32_t x, uint32_t y)
{
    if (c->tid[x] == c->tid[y])
        return 0;
    unsigned ox = c->op[x], oy = c->op[y];
    if (ox == FT_OP_FORK || ox == FT_OP_JOIN)
        return c->value[x] == c->tid[y];
    if (oy == FT_OP_FORK || oy == FT_OP_JOIN)
        return c->value[y] == c->tid[x];
    if (is_memory(c, x) || is_memory(c, y)) {
        if (!is_memory(c, x) || !is_memory(c, y) || c->obj[x] != c->obj[y])
            return 0;
        return ft_ctm_writes(c, x) || ft_ctm_writes(c, y);
    }
    int same = c->obj[x] == c->obj[y] ||
               (c->obj2[x] != FT_CTM_NONE &&
                (c->obj2[x] == c->obj[y] || c->obj2[x] == c->obj2[y])) ||
               (c->obj2[y] != FT_CTM_NONE && c->obj2[y] == c->obj[x]);
    return same && !commuting_sync(ox, oy);
}

/* Must-HB clocks.  Walking transitions in trace order visits every fork
 * before its child and every child's end before the join that waits for
 * it (the trace is a run), so one pass computes them. */
int ft_ctm_hb_prepare(ft_ctm *c)
{
    uint32_t n = c->nthreads;
    free(c->hb_vc);
    free(c->hb_first);
    free(c->hb_count);
    free(c->hb_pos);
    c->hb_vc = NULL;
    c->hb_pos = NULL;
    c->hb_rows = 0;
    c->hb_first = calloc(n + 1, sizeof *c->hb_first);
    c->hb_count = calloc(n + 1, sizeof *c->hb_count);
    if (!c->hb_first || !c->hb_count)
        return -1;
    /* rows of thread t: its start row, then one per join, in order (the
     * joins counted in trace order, hb_count borrowed for it) */
    uint32_t rows = n;
    for (uint32_t x = 0; x < c->ntrans; x++)
        if (c->op[x] == FT_OP_JOIN) {
            rows++;
            c->hb_count[c->tid[x]]++;
        }
    c->hb_pos = calloc(rows + 1, sizeof *c->hb_pos);
    uint32_t *cur = calloc((size_t)n * n + 1, sizeof *cur);
    c->hb_vc = calloc((size_t)rows * n + 1, sizeof *c->hb_vc);
    if (!c->hb_pos || !cur || !c->hb_vc) {
        free(cur);
        return -1;
    }
    uint32_t r = 0;
    for (uint32_t t = 0; t < n; t++) {
        c->hb_first[t] = r;
        r += 1 + c->hb_count[t];
        c->hb_count[t] = 1;
    }
    c->hb_rows = rows;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        uint32_t t = c->tid[x], o = c->op[x];
        if (o != FT_OP_FORK && o != FT_OP_JOIN)
            continue;
        uint32_t child = (uint32_t)c->value[x];
        if (o == FT_OP_FORK) {
            uint32_t *row = &c->hb_vc[(size_t)c->hb_first[child] * n];
            memcpy(row, &cur[(size_t)t * n], n * sizeof *row);
            row[t] = c->pos[x] + 1;
            memcpy(&cur[(size_t)child * n], row, n * sizeof *row);
        } else {
            uint32_t *me = &cur[(size_t)t * n], *ch = &cur[(size_t)child * n];
            ch[child] = c->len[child];
            for (uint32_t j = 0; j < n; j++)
                if (ch[j] > me[j])
                    me[j] = ch[j];
            me[t] = 0;
            uint32_t row = c->hb_first[t] + c->hb_count[t]++;
            c->hb_pos[row] = c->pos[x];
            memcpy(&c->hb_vc[(size_t)row * n], me, n * sizeof *me);
        }
    }
    free(cur);
    return 0;
}

uint32_t ft_ctm_hb_before(const ft_ctm *c, uint32_t x, uint32_t j)
{
    uint32_t t = c->tid[x], p = c->pos[x];
    if (t == j)
        return p;
    if (!c->hb_vc)
        return 0;
    uint32_t lo = c->hb_first[t], hi = lo + c->hb_count[t];
    uint32_t best = lo;
    while (lo < hi) { /* last row with hb_pos <= p (rows sorted by pos) */
        uint32_t mid = lo + (hi - lo) / 2;
        if (mid == c->hb_first[t] || c->hb_pos[mid] <= p) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return c->hb_vc[(size_t)best * c->nthreads + j];
}

int ft_ctm_must_hb(const ft_ctm *c, uint32_t x, uint32_t y)
{
    if (c->tid[x] == c->tid[y])
        return c->pos[x] < c->pos[y];
    return ft_ctm_hb_before(c, y, c->tid[x]) > c->pos[x];
}

static int resize(void **p, size_t elem, uint32_t cap)
{
    void *q = realloc(*p, elem * ((size_t)cap + 1));
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int ft_ctm_binds(const ft_ctm *c, uint32_t x)
{
    if (!c->nglue)
        return 0;
    uint32_t t = c->tid[x];
    for (uint32_t p = c->pos[x]; p + 1 < c->len[t]; p++) {
        uint32_t y = ft_ctm_at(c, t, p);
        if (!ft_ctm_glued(c, y))
            return 0;
        if (ft_ctm_is_shared(c, ft_ctm_at(c, t, p + 1)))
            return 1;
    }
    return 0;
}

/* Glued x stays glued in a subset when the chain of glued transitions
 * after it reaches the thread's next kept one: a transition left out
 * between does not matter to the subset's properties, so only the steps
 * no thread could run between count. */
static int glued_to_kept(const ft_ctm *c, const uint8_t *keep, uint32_t x)
{
    uint32_t t = c->tid[x];
    for (uint32_t p = c->pos[x] + 1; p < c->len[t]; p++) {
        uint32_t y = ft_ctm_at(c, t, p);
        if (keep[y])
            return 1;
        if (!ft_ctm_glued(c, y))
            return 0;
    }
    return 0;
}

/* keep, with the chain after every kept transition that binds its
 * thread to run on (ft_ctm_binds) and whose glued chain reaches no kept
 * transition, up to the shared one it binds to: left out, x would lose
 * its glue, a subset's schedule could run another thread after it,
 * which no run can, and its witness would not replay
 * (test_predict_random's seed 1217: a slice kept a paired read and not
 * the read it was glued to, its thread's last, and Z3 ran the other
 * threads after it).  NULL when there is no such x (keep serves as it
 * is) or out of memory (*oom set). */
static uint8_t *keep_bound(const ft_ctm *c, const uint8_t *keep, int *oom)
{
    uint8_t *k2 = NULL;
    *oom = 0;
    for (uint32_t i = 0; c->nglue && i < c->nglue; i++) {
        uint32_t x = c->glue_id[i];
        if (!keep[x] || !ft_ctm_binds(c, x) || glued_to_kept(c, keep, x))
            continue;
        if (!k2) {
            if (!(k2 = malloc(c->ntrans + 1))) {
                *oom = 1;
                return NULL;
            }
            memcpy(k2, keep, c->ntrans);
        }
        uint32_t t = c->tid[x];
        for (uint32_t p = c->pos[x] + 1; p < c->len[t]; p++) {
            uint32_t y = ft_ctm_at(c, t, p);
            k2[y] = 1;
            if (ft_ctm_is_shared(c, y) || !ft_ctm_glued(c, y))
                break;
        }
    }
    return k2;
}

/* Whether kept x keeps its objects' sharedness of c in the subset,
 * even if only its thread touches them there:
 * - x's guard only another thread's transition makes true (a failed
 *   trylock, a semaphore wait, a wake-up, a barrier departure, a once
 *   skip).  Local, its object would need nothing (smt/sync.c), and in a
 *   subset that lost that transition (a window clipped for a hunt,
 *   predict/window.c) it would run when no run can: seed 4214 failed a
 *   trywrlock with the writer's lock clipped away.  Shared, the guard is
 *   false where no kept transition makes it true.
 * - a kept glued chain binds to x.  Local (its variable's other
 *   accessors cut away), x would end no block, the chain would bind
 *   nothing, and a schedule could run another thread between the two,
 *   which no run can (test_predict_random's seed 2585).
 * Only x's thread touches such a variable in the subset: no conflict is
 * added, and a slice is a prefix of each thread, so the data rule adds
 * nothing either. */
static int stays_shared(const ft_ctm *c, const uint8_t *keep, uint32_t x)
{
    if (!ft_ctm_is_shared(c, x))
        return 0;
    switch (c->op[x]) {
    case FT_OP_LOCK_FAIL:
    case FT_OP_RWLOCK_FAIL:
    case FT_OP_SEM_WAIT:
    case FT_OP_SEM_FAIL:
    case FT_OP_WAIT_POST:
    case FT_OP_BARRIER_LEAVE:
    case FT_OP_ONCE_SKIP:
        return 1;
    default:
        break;
    }
    if (c->pos[x] == 0)
        return 0;
    uint32_t w = ft_ctm_at(c, c->tid[x], c->pos[x] - 1);
    return keep[w] && ft_ctm_glued(c, w);
}

ft_ctm *ft_ctm_subset(const ft_ctm *c, const uint8_t *keep, uint32_t **map)
{
    int oom;
    uint8_t *bound = keep_bound(c, keep, &oom);
    if (oom)
        return NULL;
    if (bound)
        keep = bound;
    ft_ctm *s = ft_ctm_new();
    uint32_t *m = malloc(sizeof *m * (c->ntrans + 1));
    uint32_t *newid = malloc(sizeof *newid * (c->ntrans + 1));
    if (!s || !m || !newid)
        goto fail;
    uint32_t n = 0, nt = c->nthreads;
    for (uint32_t x = 0; x < c->ntrans; x++)
        n += keep[x] != 0;
    if (resize((void **)&s->op, 1, n) || resize((void **)&s->tid, 4, n) ||
        resize((void **)&s->pos, 4, n) || resize((void **)&s->obj, 4, n) ||
        resize((void **)&s->obj2, 4, n) || resize((void **)&s->value, 8, n) ||
        resize((void **)&s->site, 4, n) || resize((void **)&s->event, 4, n) ||
        resize((void **)&s->rmw_id, 4, c->nrmw) ||
        resize((void **)&s->rmw_val, 8, c->nrmw) ||
        resize((void **)&s->glue_id, 4, c->nglue) ||
        resize((void **)&s->len, 4, nt) ||
        resize((void **)&s->parent, 4, nt) ||
        resize((void **)&s->fork_trans, 4, nt) ||
        resize((void **)&s->join_trans, 4, nt) ||
        resize((void **)&s->vars, sizeof *s->vars, c->nvars))
        goto fail;
    s->cap_trans = n + 1;
    s->cap_rmw = c->nrmw + 1;
    s->cap_glue = c->nglue + 1;
    s->cap_threads = nt + 1;
    s->nthreads = nt;
    s->nevents = c->nevents;
    s->mixed_done = 1; /* c's variables are split already */
    s->nmixed_split = c->nmixed_split;
    s->nmixed_left = c->nmixed_left;
    s->code = c->code; /* shared: the subset lives within c's lifetime */
    s->ncode = c->ncode;
    memcpy(s->vars, c->vars, sizeof *s->vars * c->nvars);
    s->nvars = c->nvars;
    s->cap_vars = c->nvars + 1;
    for (uint32_t v = 0; v < s->nvars; v++) {
        /* a heap object's sharedness is its accesses', not its frees' */
        s->vars[v].shared = c->vars[v].kind == FT_VAR_HEAP && c->vars[v].shared;
        s->vars[v].first_tid = FT_CTM_NONE;
    }
    for (uint32_t t = 0; t < nt; t++)
        s->len[t] = 0;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        newid[x] = FT_CTM_NONE;
        if (!keep[x])
            continue;
        uint32_t t = c->tid[x], y = s->ntrans++;
        s->op[y] = c->op[x];
        s->tid[y] = t;
        s->pos[y] = s->len[t]++;
        s->obj[y] = c->obj[x];
        s->obj2[y] = c->obj2[x];
        s->value[y] = c->value[x];
        if (c->op[x] == FT_OP_RMW) { /* y grows with x: rmw_id stays sorted */
            s->rmw_id[s->nrmw] = y;
            s->rmw_val[s->nrmw++] = ft_ctm_value2(c, x);
        }
        if (ft_ctm_glued(c, x) && glued_to_kept(c, keep, x))
            s->glue_id[s->nglue++] = y; /* y grows with x */
        s->site[y] = c->site[x];
        s->event[y] = c->event[x];
        m[y] = x;
        newid[x] = y;
        uint32_t objs[2] = {c->obj[x], c->obj2[x]};
        int keeps = stays_shared(c, keep, x);
        for (int k = 0; k < 2; k++) {
            if (objs[k] == FT_CTM_NONE)
                continue;
            ft_ctm_var *v = &s->vars[objs[k]];
            if (v->first_tid == FT_CTM_NONE)
                v->first_tid = t;
            else if (v->first_tid != t)
                v->shared = 1;
            if (keeps && c->vars[objs[k]].shared)
                v->shared = 1;
        }
    }
    for (uint32_t t = 0; t < nt; t++) {
        s->parent[t] = c->parent[t];
        s->fork_trans[t] = c->fork_trans[t] == FT_CTM_NONE
                               ? FT_CTM_NONE
                               : newid[c->fork_trans[t]];
        s->join_trans[t] = c->join_trans[t] == FT_CTM_NONE
                               ? FT_CTM_NONE
                               : newid[c->join_trans[t]];
    }
    free(newid);
    newid = NULL;
    if (ft_ctm_finish(s))
        goto fail;
    *map = m;
    free(bound);
    return s;
fail:
    free(bound);
    free(newid);
    free(m);
    ft_ctm_free(s);
    return NULL;
}

static int cmp_addr(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

uint64_t *ft_ctm_mem_by_addr(const ft_ctm *c, uint32_t *n)
{
    uint32_t m = 0;
    for (uint32_t v = 0; v < c->nvars; v++)
        m += c->vars[v].kind == FT_VAR_MEMORY;
    uint64_t *mem = malloc(sizeof *mem * 2 * ((size_t)m + 1));
    if (!mem)
        return NULL;
    m = 0;
    for (uint32_t v = 0; v < c->nvars; v++)
        if (c->vars[v].kind == FT_VAR_MEMORY) {
            mem[2 * m] = c->vars[v].addr;
            mem[2 * m++ + 1] = v;
        }
    qsort(mem, m, 2 * sizeof *mem, cmp_addr);
    *n = m;
    return mem;
}

uint32_t ft_ctm_mem_lower(const uint64_t *mem, uint32_t n, uint64_t addr)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (mem[2 * mid] < addr)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

int ft_ctm_set_code(ft_ctm *c, const ft_site *sites, uint32_t nsites)
{
    if (c->code_owned)
        free(c->code);
    c->code = NULL;
    c->ncode = 0;
    c->code_owned = 0;
    int any = 0;
    for (uint32_t i = 0; i < nsites && !any; i++)
        any = sites[i].straight != 0;
    if (!any) /* no spans: nothing to keep */
        return 0;
    c->code = malloc(sizeof *c->code * nsites);
    if (!c->code)
        return -1;
    for (uint32_t i = 0; i < nsites; i++)
        c->code[i] = (ft_ctm_code){sites[i].offset, sites[i].module,
                                   sites[i].straight};
    c->ncode = nsites;
    c->code_owned = 1;
    return 0;
}

/* x's site's code when its span is known, else NULL. */
static const ft_ctm_code *spanned(const ft_ctm *c, uint32_t x)
{
    uint32_t sx = c->site[x];
    if (!c->code || sx == 0 || sx > c->ncode || !c->code[sx - 1].straight)
        return NULL;
    return &c->code[sx - 1];
}

int ft_ctm_runs_regardless(const ft_ctm *c, uint32_t x, uint32_t y)
{
    const ft_ctm_code *a = spanned(c, x);
    if (!a)
        return -1;
    uint32_t sy = c->site[y];
    if (sy == 0 || sy > c->ncode)
        return 0;
    const ft_ctm_code *b = &c->code[sy - 1];
    /* y's site is the return address of its hook's call, which lies in
     * the run when the address right after it is at most its end */
    return b->module == a->module && b->offset > a->offset &&
           b->offset - a->offset <= a->straight - 1;
}

uint64_t ft_ctm_straight_end(const ft_ctm *c, uint32_t x)
{
    const ft_ctm_code *a = spanned(c, x);
    return a ? a->offset + a->straight - 1 : UINT64_MAX;
}

/* SPDX-License-Identifier: MIT */
/* mixed.c - one variable per byte range that every access agrees on.
 * Variables are interned by address, so an access that covers another
 * variable's bytes without starting at its address was not an access of
 * it: bench/predict/shapes/workqueue.c's consumers read `q.len` and
 * `q.done` as one 8-byte load (the compiler merged them), filed under
 * `len`'s variable with a value no write of `len` gave; `done` saw no
 * read at all.  The data rule then stopped every consumer at that load
 * (no source for its value), and a write of `done` looked free to move
 * across it.  The same holds for a memset or memcpy over a struct whose
 * fields are also accessed one by one.
 *
 * While building, ft_ctm_add notes each access whose size differs from
 * its variable's first (a flag in the interning slot tells without
 * touching the variable) and keeps the contents of small or uniform wide
 * accesses.  At ft_ctm_finish, before the heap incarnations, the memory
 * variables are swept in address order; a group of variables whose
 * accesses overlap with different extents is cut at every access's ends
 * into components, each a variable of its own (a variable that starts a
 * component keeps its index).  An access over k > 1 components becomes k
 * transitions of its event, glued as the runtime's paired reads are (no
 * other thread runs between them: it was one instruction or one call),
 * each with its share of the value, little-endian as x86-64 stores it: a
 * component of at most 8 bytes gets those bytes as a number, a longer
 * one the hash of its bytes, as a wide access's value is.  A share whose
 * bytes are not known (a wide access's contents elided, or longer than
 * WIDE_KEEP bytes and not one repeated byte) gets a token no other
 * access has: a read of it has no source, so its thread stops there,
 * which the model did before the split as well (never a schedule the
 * program cannot run).  A group that would cut one access into more than
 * MAX_SHARES parts is left whole, as before, and counted.
 * docs/ctm.md, "Mixed-size accesses". */
#include "ctm/ctm.h"

#include <stdlib.h>
#include <string.h>

#define WIDE_KEEP 64u  /* wide contents kept up to this many bytes */
#define MAX_SHARES 64u /* an access cut into more leaves its group whole */

static int grow(void **p, size_t elem, size_t cap)
{
    void *q = realloc(*p, elem * cap);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int ft_ctm_note_size(ft_ctm *c, uint32_t x, uint32_t s, const uint8_t *bytes,
                     uint32_t nbytes, int uniform)
{
    if (!bytes) {
        if (c->nsize == c->cap_size) {
            uint32_t cap = c->cap_size ? 2 * c->cap_size : 64;
            if (cap < c->cap_size || grow((void **)&c->size_id, 4, cap) ||
                grow((void **)&c->size_val, 4, cap))
                return -1;
            c->cap_size = cap;
        }
        c->size_id[c->nsize] = x;
        c->size_val[c->nsize++] = s;
        return 0;
    }
    if (!nbytes)
        return 0;
    if (!uniform) {
        uniform = 1;
        for (uint32_t i = 1; i < nbytes && uniform; i++)
            uniform = bytes[i] == bytes[0];
    }
    if (!uniform && nbytes > WIDE_KEEP)
        return 0;
    uint32_t keep = uniform ? 1 : nbytes;
    if (c->nwide == c->cap_wide) {
        uint32_t cap = c->cap_wide ? 2 * c->cap_wide : 64;
        if (cap < c->cap_wide || grow((void **)&c->wide_id, 4, cap) ||
            grow((void **)&c->wide_at, 8, cap))
            return -1;
        c->cap_wide = cap;
    }
    if (c->nwide_bytes + keep > c->cap_wide_bytes) {
        size_t cap = c->cap_wide_bytes ? 2 * c->cap_wide_bytes : 1024;
        while (cap < c->nwide_bytes + keep)
            cap *= 2;
        if (grow((void **)&c->wide_bytes, 1, cap))
            return -1;
        c->cap_wide_bytes = cap;
    }
    memcpy(c->wide_bytes + c->nwide_bytes, bytes, keep);
    c->wide_id[c->nwide] = x;
    c->wide_at[c->nwide++] =
        (uint64_t)c->nwide_bytes | (uniform ? FT_CTM_WIDE_UNIFORM : 0);
    c->nwide_bytes += keep;
    return 0;
}

/* A split access: transition x (old id) covers the components at
 * boundaries b .. b + k of its group, from address lo. */
typedef struct split {
    uint32_t x, b, k;
    uint32_t before; /* transitions added for the splits before this one */
    uint64_t lo, size;
} split;

typedef struct mixed {
    ft_ctm *c;
    uint32_t *gid; /* per variable: its group, FT_CTM_NONE none */
    uint64_t *bnd; /* (group, boundary) pairs sorted, unique */
    uint32_t nbnd;
    uint32_t *gfirst; /* group g's boundaries: bnd pairs gfirst[g] .. [g+1] */
    uint32_t ngroups;
    uint32_t *gmax; /* the most components an access of g covers */
    uint32_t *cvar; /* per boundary pair: the component's variable */
    split *sp;
    uint32_t nsp, capsp;
    uint32_t nvars0; /* variables before the split: later ones are new
                        components */
} mixed;

static uint64_t end_of(uint64_t addr, uint64_t size)
{
    return addr + size < addr ? UINT64_MAX : addr + size;
}

/* Access x's size: its own where it differs from its variable's. */
static uint32_t size_of(const ft_ctm *c, uint32_t x)
{
    uint32_t a = ft_ctm_id_lower(c->size_id, c->nsize, x);
    if (a < c->nsize && c->size_id[a] == x)
        return c->size_val[a];
    return c->vars[c->obj[x]].size;
}

static int is_mem(const ft_ctm *c, uint32_t x)
{
    return c->op[x] >= FT_OP_READ && c->op[x] <= FT_OP_RMW &&
           c->obj[x] < c->nvars && c->vars[c->obj[x]].kind == FT_VAR_MEMORY;
}

/* The first boundary of group g at or after address a (an index of bnd). */
static uint32_t bnd_lower(const mixed *m, uint32_t g, uint64_t a)
{
    uint32_t lo = m->gfirst[g], hi = m->gfirst[g + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->bnd[2 * mid + 1] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *p = a, *q = b;
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Groups of overlapping memory variables (in address order), the mixed
 * ones numbered in m->gid; their boundaries in m->bnd.  0, -1 OOM. */
static int find_groups(mixed *m)
{
    ft_ctm *c = m->c;
    uint32_t n = 0;
    uint64_t *mem = ft_ctm_mem_by_addr(c, &n);
    uint32_t *ext = malloc(sizeof *ext * ((size_t)c->nvars + 1));
    uint8_t *multi = calloc((size_t)c->nvars + 1, 1);
    m->gid = malloc(sizeof *m->gid * ((size_t)c->nvars + 1));
    int rc = -1;
    if (!mem || !ext || !multi || !m->gid)
        goto out;
    for (uint32_t v = 0; v < c->nvars; v++) {
        ext[v] = c->vars[v].size;
        m->gid[v] = FT_CTM_NONE;
    }
    for (uint32_t i = 0; i < c->nsize; i++) {
        uint32_t v = c->obj[c->size_id[i]];
        if (v < c->nvars) {
            multi[v] = 1;
            if (c->size_val[i] > ext[v])
                ext[v] = c->size_val[i];
        }
    }
    size_t npairs = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t v = (uint32_t)mem[2 * i + 1], j = i + 1;
        uint64_t end = end_of(mem[2 * i], ext[v]);
        while (j < n && mem[2 * j] < end) {
            uint64_t e = end_of(mem[2 * j], ext[mem[2 * j + 1]]);
            end = e > end ? e : end;
            j++;
        }
        if (j - i > 1 || multi[v]) {
            for (uint32_t k = i; k < j; k++)
                m->gid[mem[2 * k + 1]] = m->ngroups;
            m->ngroups++;
            npairs += 2 * (size_t)(j - i);
        }
        i = j;
    }
    if (!m->ngroups) {
        rc = 0;
        goto out;
    }
    for (uint32_t i = 0; i < c->nsize; i++) {
        uint32_t v = c->obj[c->size_id[i]];
        npairs += v < c->nvars && m->gid[v] != FT_CTM_NONE;
    }
    if (npairs >= UINT32_MAX / 2)
        goto out;
    m->bnd = malloc(sizeof *m->bnd * 2 * (npairs + 1));
    if (!m->bnd)
        goto out;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)mem[2 * i + 1];
        if (m->gid[v] == FT_CTM_NONE)
            continue;
        m->bnd[2 * k] = m->gid[v];
        m->bnd[2 * k++ + 1] = mem[2 * i];
        m->bnd[2 * k] = m->gid[v];
        m->bnd[2 * k++ + 1] = end_of(mem[2 * i], c->vars[v].size);
    }
    for (uint32_t i = 0; i < c->nsize; i++) {
        uint32_t v = c->obj[c->size_id[i]];
        if (v >= c->nvars || m->gid[v] == FT_CTM_NONE)
            continue;
        m->bnd[2 * k] = m->gid[v];
        m->bnd[2 * k++ + 1] = end_of(c->vars[v].addr, c->size_val[i]);
    }
    qsort(m->bnd, k, 2 * sizeof *m->bnd, cmp_pair);
    uint32_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || m->bnd[2 * i] != m->bnd[2 * (u - 1)] ||
            m->bnd[2 * i + 1] != m->bnd[2 * (u - 1) + 1]) {
            m->bnd[2 * u] = m->bnd[2 * i];
            m->bnd[2 * u++ + 1] = m->bnd[2 * i + 1];
        }
    m->nbnd = u;
    m->gfirst = malloc(sizeof *m->gfirst * ((size_t)m->ngroups + 1));
    m->gmax = calloc((size_t)m->ngroups + 1, sizeof *m->gmax);
    if (!m->gfirst || !m->gmax)
        goto out;
    for (uint32_t g = 0, i = 0; g <= m->ngroups; g++) {
        while (i < u && m->bnd[2 * i] < g)
            i++;
        m->gfirst[g] = i;
    }
    rc = 0;
out:
    free(mem);
    free(ext);
    free(multi);
    return rc;
}

/* The accesses that cover more than one component; groups whose
 * accesses would be cut too finely are left whole. */
static int find_splits(mixed *m)
{
    ft_ctm *c = m->c;
    for (uint32_t x = 0; x < c->ntrans; x++) {
        if (!is_mem(c, x) || m->gid[c->obj[x]] == FT_CTM_NONE)
            continue;
        uint32_t g = m->gid[c->obj[x]];
        uint64_t lo = c->vars[c->obj[x]].addr, hi = end_of(lo, size_of(c, x));
        uint32_t b = bnd_lower(m, g, lo), k = bnd_lower(m, g, hi) - b;
        if (k > m->gmax[g])
            m->gmax[g] = k;
        if (k < 2)
            continue;
        if (m->nsp == m->capsp) {
            uint32_t cap = m->capsp ? 2 * m->capsp : 64;
            if (cap < m->capsp || grow((void **)&m->sp, sizeof *m->sp, cap))
                return -1;
            m->capsp = cap;
        }
        m->sp[m->nsp++] = (split){x, b, k, 0, lo, hi - lo};
    }
    uint64_t added = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->nsp; i++) {
        split s = m->sp[i];
        if (m->gmax[m->gid[c->obj[s.x]]] > MAX_SHARES)
            continue;
        s.before = (uint32_t)added;
        added += s.k - 1;
        if ((uint64_t)c->ntrans + added >= UINT32_MAX - 1)
            break; /* the rest stay whole: ids must fit */
        m->sp[kept++] = s;
    }
    m->nsp = kept;
    for (uint32_t g = 0; g < m->ngroups; g++)
        c->nmixed_left += m->gmax[g] > MAX_SHARES;
    return 0;
}

/* The new id of old transition x (the first of its shares). */
static uint32_t new_id(const mixed *m, uint32_t x)
{
    uint32_t lo = 0, hi = m->nsp;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->sp[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->nsp)
        return x + (m->nsp ? m->sp[m->nsp - 1].before + m->sp[m->nsp - 1].k - 1
                           : 0);
    return x + m->sp[lo].before;
}

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(const uint8_t *b, uint64_t n, uint64_t h)
{
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

/* Past this many bytes a run of one byte is hashed by its length. */
#define RUN_HASH_MAX (1u << 20)

uint64_t ft_ctm_wide_value(const uint8_t *bytes, uint32_t nbytes, uint64_t size,
                           int uniform)
{
    if (!bytes || !nbytes)
        return 0;
    if (!uniform && nbytes > 1) {
        if (nbytes > 8)
            return fnv(bytes, nbytes, FNV_BASIS);
        uint64_t r = 0;
        for (uint32_t j = nbytes; j-- > 0;)
            r = (r << 8) | bytes[j];
        return r;
    }
    if (size > 8) {
        if (size > RUN_HASH_MAX)
            return fnv((const uint8_t *)&size, sizeof size,
                       fnv(bytes, 1, FNV_BASIS));
        uint64_t h = FNV_BASIS;
        for (uint64_t j = 0; j < size; j++)
            h = (h ^ bytes[0]) * FNV_PRIME;
        return h;
    }
    uint64_t r = 0;
    for (uint64_t j = 0; j < size; j++)
        r = (r << 8) | bytes[0];
    return r;
}

/* The value of the share [a, a + len) of access x (old id), which
 * covers size bytes from lo and whose whole value was v. */
static uint64_t share(const ft_ctm *c, uint32_t x, uint64_t lo, uint64_t size,
                      uint64_t v, uint64_t a, uint64_t len)
{
    uint64_t off = a - lo;
    uint32_t i = ft_ctm_id_lower(c->wide_id, c->nwide, x);
    if (i < c->nwide && c->wide_id[i] == x) { /* contents kept */
        uint64_t at = c->wide_at[i];
        const uint8_t *b = c->wide_bytes + (at & ~FT_CTM_WIDE_UNIFORM);
        if (at & FT_CTM_WIDE_UNIFORM)
            return ft_ctm_wide_value(b, 1, len, 1);
        return ft_ctm_wide_value(b + off, (uint32_t)len, len, 0);
    }
    if (size <= 8) /* a narrow access: its value's bytes (len < 8) */
        return (v >> (8 * off)) & ((1ull << (8 * len)) - 1);
    /* not known: a value no other access has but by a 2^-63 chance */
    uint64_t key[2] = {x, a};
    return fnv((const uint8_t *)key, sizeof key, FNV_BASIS) | (1ull << 63);
}

/* Moves the transitions to their new ids, last first, cutting each split
 * one into its shares (old ids below its new id are not yet moved). */
static void move_transitions(mixed *m, uint32_t added)
{
    ft_ctm *c = m->c;
    uint32_t s = m->nsp;
    for (uint32_t x = c->ntrans; x-- > 0;) {
        while (s > 0 && m->sp[s - 1].x > x)
            s--;
        int cut = s > 0 && m->sp[s - 1].x == x;
        uint32_t base = x + (cut     ? m->sp[s - 1].before
                             : s > 0 ? m->sp[s - 1].before + m->sp[s - 1].k - 1
                                     : 0);
        if (!cut) {
            if (base != x) {
                c->op[base] = c->op[x];
                c->tid[base] = c->tid[x];
                c->obj[base] = c->obj[x];
                c->obj2[base] = c->obj2[x];
                c->value[base] = c->value[x];
                c->site[base] = c->site[x];
                c->event[base] = c->event[x];
            }
            continue;
        }
        const split *p = &m->sp[s - 1];
        uint8_t op = c->op[x];
        uint32_t tid = c->tid[x], site = c->site[x], ev = c->event[x];
        uint64_t v = c->value[x];
        for (uint32_t j = p->k; j-- > 0;) {
            uint32_t y = base + j, b = p->b + j;
            uint64_t a = m->bnd[2 * b + 1], len = m->bnd[2 * b + 3] - a;
            c->op[y] = op;
            c->tid[y] = tid;
            c->obj[y] = m->cvar[b];
            c->obj2[y] = FT_CTM_NONE;
            c->value[y] = share(c, x, p->lo, p->size, v, a, len);
            c->site[y] = site;
            c->event[y] = ev;
        }
    }
    c->ntrans += added;
    c->prefaulted = c->ntrans;
}

/* The RMW and glue lists under the new ids (before the move: the old
 * ids' operations are looked at): a split RMW writes its share of what it
 * wrote in each part; a split access's parts are glued to the next, and
 * its last is glued where the access was. */
static int remap_lists(mixed *m, uint32_t added)
{
    ft_ctm *c = m->c;
    uint32_t nr = 0, ng = 0, s = 0;
    uint64_t rmw_more = 0;
    for (uint32_t i = 0; i < m->nsp; i++)
        if (c->op[m->sp[i].x] == FT_OP_RMW)
            rmw_more += m->sp[i].k - 1;
    uint32_t *rid = malloc(sizeof *rid * ((size_t)c->nrmw + rmw_more + 1));
    uint64_t *rval = malloc(sizeof *rval * ((size_t)c->nrmw + rmw_more + 1));
    uint32_t *glue = malloc(sizeof *glue * ((size_t)c->nglue + added + 1));
    if (!rid || !rval || !glue) {
        free(rid);
        free(rval);
        free(glue);
        return -1;
    }
    for (uint32_t i = 0; i < c->nrmw; i++) {
        uint32_t x = c->rmw_id[i];
        while (s < m->nsp && m->sp[s].x < x)
            s++;
        if (s < m->nsp && m->sp[s].x == x) {
            const split *p = &m->sp[s];
            for (uint32_t j = 0; j < p->k; j++) {
                uint64_t a = m->bnd[2 * (p->b + j) + 1],
                         len = m->bnd[2 * (p->b + j) + 3] - a;
                rid[nr] = x + p->before + j;
                rval[nr++] = share(c, x, p->lo, p->size, c->rmw_val[i], a, len);
            }
        } else {
            rid[nr] = new_id(m, x);
            rval[nr++] = c->rmw_val[i];
        }
    }
    s = 0;
    for (uint32_t i = 0; i <= c->nglue; i++) {
        uint32_t x = i < c->nglue ? c->glue_id[i] : UINT32_MAX;
        for (; s < m->nsp && m->sp[s].x <= x; s++) {
            const split *p = &m->sp[s];
            for (uint32_t j = 0; j + 1 < p->k; j++)
                glue[ng++] = p->x + p->before + j;
        }
        if (i < c->nglue) {
            uint32_t last = new_id(m, x);
            if (s > 0 && m->sp[s - 1].x == x)
                last += m->sp[s - 1].k - 1;
            glue[ng++] = last;
        }
    }
    free(c->rmw_id);
    free(c->rmw_val);
    free(c->glue_id);
    c->rmw_id = rid;
    c->rmw_val = rval;
    c->nrmw = c->cap_rmw = nr;
    c->glue_id = glue;
    c->nglue = c->cap_glue = ng;
    return 0;
}

/* Each component's variable: the group's variable that starts there, or
 * a new one. */
static int component_vars(mixed *m)
{
    ft_ctm *c = m->c;
    m->cvar = malloc(sizeof *m->cvar * ((size_t)m->nbnd + 1));
    if (!m->cvar)
        return -1;
    for (uint32_t i = 0; i < m->nbnd; i++)
        m->cvar[i] = FT_CTM_NONE;
    for (uint32_t v = 0; v < c->nvars; v++) {
        uint32_t g = m->gid[v];
        if (g == FT_CTM_NONE || m->gmax[g] > MAX_SHARES)
            continue;
        m->cvar[bnd_lower(m, g, c->vars[v].addr)] = v;
    }
    for (uint32_t g = 0; g < m->ngroups; g++) {
        if (m->gmax[g] > MAX_SHARES)
            continue;
        for (uint32_t i = m->gfirst[g]; i + 1 < m->gfirst[g + 1]; i++)
            if (m->cvar[i] == FT_CTM_NONE) {
                m->cvar[i] = ft_ctm_append_var(c, m->bnd[2 * i + 1],
                                               FT_VAR_MEMORY, FT_CTM_NONE);
                if (m->cvar[i] == FT_CTM_NONE)
                    return -1;
            }
    }
    return 0;
}

/* After the move: positions, the frees' and forks' ids, and every
 * component variable's size, sharedness, writes and initial value. */
static int settle(mixed *m, uint32_t nold)
{
    ft_ctm *c = m->c;
    for (uint32_t t = 0; t < c->nthreads; t++)
        c->len[t] = 0;
    for (uint32_t y = 0; y < c->ntrans; y++)
        c->pos[y] = c->len[c->tid[y]]++;
    for (uint32_t i = 0; i < c->nfrees; i++)
        c->frees[i].at =
            c->frees[i].at >= nold ? c->ntrans : new_id(m, c->frees[i].at);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (c->fork_trans[t] != FT_CTM_NONE)
            c->fork_trans[t] = new_id(m, c->fork_trans[t]);
        if (c->join_trans[t] != FT_CTM_NONE)
            c->join_trans[t] = new_id(m, c->join_trans[t]);
    }
    uint8_t *seen = calloc((size_t)c->nvars + 1, 1);
    if (!seen)
        return -1;
    for (uint32_t g = 0; g < m->ngroups; g++) {
        if (m->gmax[g] > MAX_SHARES)
            continue;
        for (uint32_t i = m->gfirst[g]; i + 1 < m->gfirst[g + 1]; i++)
            c->vars[m->cvar[i]].size =
                (uint32_t)(m->bnd[2 * i + 3] - m->bnd[2 * i + 1]);
    }
    for (uint32_t y = 0; y < c->ntrans; y++) {
        uint32_t v = c->obj[y];
        if (is_mem(c, y) && v < m->c->nvars &&
            (v >= m->nvars0 ? 1
                            : m->gid[v] != FT_CTM_NONE &&
                                  m->gmax[m->gid[v]] <= MAX_SHARES))
            ft_ctm_account(c, v, y, seen);
    }
    free(seen);
    return 0;
}

static void drop_notes(ft_ctm *c)
{
    free(c->size_id);
    free(c->size_val);
    free(c->wide_id);
    free(c->wide_at);
    free(c->wide_bytes);
    c->size_id = c->size_val = c->wide_id = NULL;
    c->wide_at = NULL;
    c->wide_bytes = NULL;
    c->nsize = c->cap_size = c->nwide = c->cap_wide = 0;
    c->nwide_bytes = c->cap_wide_bytes = 0;
}

int ft_ctm_split_mixed(ft_ctm *c)
{
    mixed m = {.c = c, .nvars0 = c->nvars};
    int rc = -1;
    if (c->mixed_done) { /* a subset of a model split already */
        drop_notes(c);
        return 0;
    }
    c->mixed_done = 1;
    if (find_groups(&m) < 0)
        goto out;
    if (!m.ngroups) {
        rc = 0;
        goto out;
    }
    if (find_splits(&m) < 0 || component_vars(&m) < 0)
        goto out;
    uint32_t nold = c->ntrans, added = 0;
    if (m.nsp)
        added = m.sp[m.nsp - 1].before + m.sp[m.nsp - 1].k - 1;
    if (added && (ft_ctm_reserve_trans(c, nold + added) < 0 ||
                  remap_lists(&m, added) < 0))
        goto out;
    if (added)
        move_transitions(&m, added);
    c->nmixed_split += m.nsp;
    rc = settle(&m, nold);
out:
    drop_notes(c);
    free(m.gid);
    free(m.bnd);
    free(m.gfirst);
    free(m.gmax);
    free(m.cvar);
    free(m.sp);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* check.c - the oracle-backed properties of the reductions (see
 * check.h): collect a key per feasible prefix, sort, and compare. */
#include "check.h"
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_quiet;

struct keys {
    uint64_t *k;
    size_t n, cap;
};

static void keys_add(struct keys *s, uint64_t k)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->k = realloc(s->k, s->cap * sizeof *s->k);
        if (!s->k)
            abort();
    }
    s->k[s->n++] = k;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void keys_uniq(struct keys *s)
{
    qsort(s->k, s->n, sizeof *s->k, u64_cmp);
    size_t u = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!u || s->k[u - 1] != s->k[i])
            s->k[u++] = s->k[i];
    s->n = u;
}

/* --- CXT soundness: key = class << 1 | ok --- */
void dump_model(const ft_reduced *r);

struct cxt_ctx {
    const ft_reduced *r;
    struct keys all;
    uint64_t want; /* debugging: print the schedules of this class */
};

void dump_model(const ft_reduced *r)
{
    const ft_ctm *c = r->ctm;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        fprintf(stderr, "thread %u:", t);
        for (uint32_t p = 0; p < c->len[t]; p++) {
            uint32_t x = ft_ctm_at(c, t, p);
            uint32_t b = ft_block_of(r, x) - r->bfirst[t];
            fprintf(stderr, " [%u b%u %s v%d=%llu]", x, b, ft_op_name(c->op[x]),
                    c->obj[x] == FT_CTM_NONE ? -1 : (int)c->obj[x],
                    (unsigned long long)c->value[x]);
        }
        fprintf(stderr, "\n");
    }
    for (uint32_t i = 0; i < r->nmats; i++)
        fprintf(stderr, "mat t%u %u..%u / t%u %u..%u\n", r->mats[i].a,
                r->mats[i].a_first, r->mats[i].a_last, r->mats[i].b,
                r->mats[i].b_first, r->mats[i].b_last);
    for (uint32_t i = 0; i < r->ncxt; i++)
        fprintf(stderr, "cxt t%u b%u -> t%u b%u\n", r->cxt[i].from_thread,
                r->cxt[i].from_block, r->cxt[i].to_thread, r->cxt[i].to_block);
}

/* Merging makes blocks of a thread's local transitions and the shared
 * one after them.  A prefix may stop inside a block: before its shared
 * transition (the locals ran, the shared one is not enabled yet) or after
 * it (trailing locals of a thread's last block).  Locals commute with
 * everything, so such a prefix is equivalent, up to local transitions, to
 * one without the first kind and with the second kind completed right
 * after the thread's last transition; that is the prefix we check. */
static uint32_t normalize(const ft_reduced *r, const uint32_t *seq,
                          uint32_t n, const uint8_t *blk, uint32_t *out,
                          uint8_t *oblk)
{
    const ft_ctm *c = r->ctm;
    uint32_t done[ORACLE_MAX_THREADS] = {0}, lastidx[ORACLE_MAX_THREADS];
    for (uint32_t i = 0; i < n; i++) {
        done[c->tid[seq[i]]]++;
        lastidx[c->tid[seq[i]]] = i;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = seq[i], t = c->tid[x], b = ft_block_of(r, x);
        uint32_t k = done[t]; /* thread t ran positions 0..k-1 */
        uint32_t lastb = ft_block_of(r, ft_ctm_at(c, t, k - 1));
        int partial = r->bend[lastb] > k - 1;
        if (partial && b == lastb) {
            uint32_t key = r->bkey[b];
            if (key == FT_CTM_NONE || c->pos[key] > k - 1)
                continue; /* locals before a shared transition not run */
        }
        oblk[m] = blk[i];
        out[m++] = x;
        if (partial && b == lastb && i == lastidx[t])
            for (uint32_t p = k; p <= r->bend[lastb]; p++) {
                oblk[m] = 1;
                out[m++] = ft_ctm_at(c, t, p);
            }
    }
    return m;
}

static void visit_cxt(void *p, const uint32_t *raw, uint32_t rawn,
                      int maximal, const uint8_t *rawblk)
{
    struct cxt_ctx *x = p;
    uint32_t seq[ORACLE_MAX_TRANS];
    uint8_t blocked[ORACLE_MAX_TRANS];
    if (!maximal)
        return; /* MAT promises representatives of runs, not of prefixes */
    uint32_t n = normalize(x->r, raw, rawn, rawblk, seq, blocked);
    uint64_t cls = oracle_class_key(x->r->ctm, seq, n) & (UINT64_MAX >> 1);
    int ok = oracle_respects_cxt(x->r, seq, n, blocked);
    if (x->want && cls == x->want) {
        fprintf(stderr, "  schedule%s:", ok ? " (ok)" : "");
        for (uint32_t i = 0; i < n; i++)
            fprintf(stderr, " %u", seq[i]);
        fprintf(stderr, "\n");
    }
    keys_add(&x->all, (cls << 1) | (uint64_t)ok);
}

int check_cxt_sound(const ft_reduced *r, int read_values, const char *tag)
{
    struct cxt_ctx x = {r, {0}, 0};
    oracle_opts o = {read_values, NULL, r, 0};
    if (oracle_walk(r->ctm, &o, visit_cxt, &x) < 0) {
        free(x.all.k);
        return 0; /* too big for the oracle: nothing to check */
    }
    keys_uniq(&x.all);
    int bad = 0;
    for (size_t i = 0; i < x.all.n; i++) {
        uint64_t cls = x.all.k[i] >> 1;
        int ok = 0;
        size_t j = i;
        for (; j < x.all.n && x.all.k[j] >> 1 == cls; j++)
            ok |= (int)(x.all.k[j] & 1);
        if (!ok && !bad++ && getenv("FT_MODEL_DEBUG")) {
            dump_model(r);
            struct cxt_ctx y = {r, {0}, cls};
            oracle_walk(r->ctm, &o, visit_cxt, &y);
            free(y.all.k);
        }
        i = j - 1;
    }
    if (bad && !check_quiet)
        fprintf(stderr, "%s: %d equivalence classes (read values %s) have no "
                        "representative within CXT\n",
                tag, bad, read_values ? "on" : "off");
    free(x.all.k);
    return bad ? -1 : 0;
}

/* --- lockset/HB soundness --- */
struct ls_ctx {
    const ft_reduced *r;
    int bad;
};

static void visit_ls(void *p, const uint32_t *seq, uint32_t n, int maximal,
                     const uint8_t *blocked)
{
    (void)blocked;
    struct ls_ctx *x = p;
    const ft_reduced *r = x->r;
    const ft_ctm *c = r->ctm;
    (void)maximal;
    /* look at a switch once the block switched to has run whole */
    if (n < 2)
        return;
    uint32_t last = seq[n - 1], bb = ft_block_of(r, last);
    if (c->pos[last] != r->bend[bb])
        return;
    uint32_t len = r->bend[bb] - r->bstart[bb] + 1;
    if (n < len + 1)
        return;
    uint32_t a = seq[n - 1 - len], b = seq[n - len];
    uint32_t ta = c->tid[a], tb = c->tid[b];
    uint32_t ba = ft_block_of(r, a);
    if (ta == tb || c->pos[a] != r->bend[ba] ||
        ba + 1 == r->bfirst[ta] + r->bcount[ta])
        return;
    if (!ft_switch_feasible(r, ta, ba - r->bfirst[ta], tb,
                            bb - r->bfirst[tb])) {
        if (!x->bad++ && getenv("FT_MODEL_DEBUG")) {
            dump_model(r);
            fprintf(stderr, "  ruled out:");
            for (uint32_t i = 0; i < n; i++)
                fprintf(stderr, " %u", seq[i]);
            fprintf(stderr, "\n");
        }
    }
}

int check_lockset_sound(const ft_reduced *r, const char *tag)
{
    struct ls_ctx x = {r, 0};
    oracle_opts o = {0, r, NULL, 0};
    oracle_walk(r->ctm, &o, visit_ls, &x);
    if (x.bad)
        fprintf(stderr, "%s: %d feasible switches ruled out by lockset/HB\n",
                tag, x.bad);
    return x.bad ? -1 : 0;
}

/* --- orders of selected transitions --- */
struct proj_ctx {
    const ft_ctm *c;
    const uint32_t *orig; /* NULL: identity */
    const uint8_t *sel;   /* by original id */
    struct keys all;
};

static void visit_proj(void *p, const uint32_t *seq, uint32_t n, int maximal,
                       const uint8_t *blocked)
{
    (void)blocked;
    struct proj_ctx *x = p;
    (void)maximal;
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = x->orig ? x->orig[seq[i]] : seq[i];
        if (x->sel[id])
            h = (h ^ (id + 1)) * 0x100000001b3ull;
    }
    keys_add(&x->all, h);
}

static int same_sets(struct keys *a, struct keys *b, const char *what,
                     const char *tag)
{
    keys_uniq(a);
    keys_uniq(b);
    int same = a->n == b->n && !memcmp(a->k, b->k, a->n * sizeof *a->k);
    if (!same)
        fprintf(stderr, "%s: %s: %zu orders in the full model, %zu after\n",
                tag, what, a->n, b->n);
    free(a->k);
    free(b->k);
    return same ? 0 : -1;
}

int check_merge_preserves(const ft_reduced *r, const char *tag)
{
    const ft_ctm *c = r->ctm;
    uint8_t sel[ORACLE_MAX_TRANS] = {0};
    for (uint32_t x = 0; x < c->ntrans && x < ORACLE_MAX_TRANS; x++)
        sel[x] = (uint8_t)ft_ctm_is_shared(c, x);
    struct proj_ctx full = {c, NULL, sel, {0}}, merged = {c, NULL, sel, {0}};
    oracle_opts o1 = {1, NULL, NULL, 0}, o2 = {1, r, NULL, 0};
    if (oracle_walk(c, &o1, visit_proj, &full) < 0) {
        free(full.all.k);
        return 0;
    }
    oracle_walk(c, &o2, visit_proj, &merged);
    return same_sets(&full.all, &merged.all, "merging", tag);
}

int check_slice_preserves(ft_ctm *c, const uint32_t *prop, uint32_t n,
                          unsigned flags, const char *tag)
{
    uint8_t sel[ORACLE_MAX_TRANS] = {0};
    if (c->ntrans > ORACLE_MAX_TRANS)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        sel[prop[i]] = 1;
    ft_reduced *s = ft_reduce_slice(c, prop, n, flags);
    if (!s)
        return -1;
    struct proj_ctx full = {c, NULL, sel, {0}};
    struct proj_ctx sl = {s->ctm, s->orig, sel, {0}};
    oracle_opts o = {1, NULL, NULL, 0};
    oracle_walk(c, &o, visit_proj, &full);
    oracle_walk(s->ctm, &o, visit_proj, &sl);
    int rc = same_sets(&full.all, &sl.all, "slicing", tag);
    /* and the slice's own CXT is sound for it */
    if (!rc)
        rc = check_cxt_sound(s, 1, tag);
    ft_reduced_free(s);
    return rc;
}

ft_ctm *load_events(const void *evbuf_ptr, const char *tag)
{
    char path[512];
    temp_trace_path(path, sizeof path, tag);
    if (trace_write(path, evbuf_ptr)) {
        fprintf(stderr, "%s: cannot write %s\n", tag, path);
        return NULL;
    }
    ft_error err;
    memset(&err, 0, sizeof err);
    ft_ctm *c = ft_ctm_load(path, &err);
    if (!c)
        fprintf(stderr, "%s: %s: at byte %llu: %s\n", tag, path,
                (unsigned long long)err.offset, err.message);
    unlink(path);
    return c;
}

/* SPDX-License-Identifier: MIT */
/* wire.c - a trace's result as bytes, from the child that analyzed it to
 * the batch that stores it: one msgpack array in a fixed field order
 * (both ends are this file, built together).  The decoder checks every
 * count (ft_mp_validate), type and bound anyway: a child that died
 * mid-write leaves a prefix, which must be refused, not half read. */
#include "batch/batch.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

static void put_str(msgpack_packer *pk, const char *s)
{
    if (!s) {
        msgpack_pack_nil(pk);
        return;
    }
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

static void put_site(msgpack_packer *pk, const ft_fevent *e)
{
    msgpack_pack_array(pk, 12);
    put_str(pk, e->role);
    put_str(pk, e->kind);
    msgpack_pack_uint8(pk, e->key);
    msgpack_pack_uint32(pk, e->tid);
    msgpack_pack_uint64(pk, e->index);
    put_str(pk, e->site.module);
    put_str(pk, e->site.file);
    put_str(pk, e->site.function);
    put_str(pk, e->site.text);
    msgpack_pack_uint32(pk, e->site.line);
    msgpack_pack_uint32(pk, e->site.column);
    msgpack_pack_uint64(pk, e->site.offset);
}

static void put_group(msgpack_packer *pk, const fb_group *g)
{
    const ft_finding *f = &g->f;
    msgpack_pack_array(pk, 14);
    put_str(pk, g->fingerprint);
    put_str(pk, g->key);
    msgpack_pack_uint32(pk, g->instances);
    msgpack_pack_int(pk, g->observed);
    put_str(pk, f->kind);
    put_str(pk, f->message);
    put_str(pk, f->witness);
    msgpack_pack_int(pk, f->replayable);
    msgpack_pack_int(pk, f->observed);
    msgpack_pack_uint64(pk, f->prop == SIZE_MAX ? UINT64_MAX : f->prop);
    msgpack_pack_array(pk, f->nevents);
    for (uint32_t e = 0; e < f->nevents; e++)
        put_site(pk, &f->events[e]);
    put_str(pk, g->confirm.status);
    put_str(pk, g->confirm.failure);
    put_str(pk, g->confirm.detail);
}

int fb_result_encode(const fb_result *r, char **buf, size_t *len)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, 21);
    put_str(&pk, r->hash);
    put_str(&pk, r->path);
    put_str(&pk, r->program);
    put_str(&pk, r->build_id);
    put_str(&pk, r->end_reason);
    if (r->argv) {
        msgpack_pack_bin(&pk, r->argv_len);
        msgpack_pack_bin_body(&pk, r->argv, r->argv_len);
    } else {
        msgpack_pack_nil(&pk);
    }
    msgpack_pack_int64(&pk, r->recorded_ns);
    msgpack_pack_int64(&pk, r->exit_status);
    msgpack_pack_uint64(&pk, r->events);
    msgpack_pack_uint64(&pk, r->threads);
    msgpack_pack_int(&pk, r->status);
    put_str(&pk, r->message);
    msgpack_pack_int(&pk, r->exit_code);
    msgpack_pack_uint64(&pk, r->regions);
    msgpack_pack_uint64(&pk, r->properties);
    msgpack_pack_uint64(&pk, r->violated);
    msgpack_pack_uint64(&pk, r->holds);
    msgpack_pack_uint64(&pk, r->unknown);
    msgpack_pack_uint64(&pk, r->observed);
    msgpack_pack_double(&pk, r->seconds);
    msgpack_pack_array(&pk, (uint32_t)r->ngroups);
    for (size_t k = 0; k < r->ngroups; k++)
        put_group(&pk, &r->groups[k]);
    if (!sb.data) {
        msgpack_sbuffer_destroy(&sb);
        return -1;
    }
    *len = sb.size;
    *buf = msgpack_sbuffer_release(&sb);
    return 0;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct rd {
    const msgpack_object *a;
    uint32_t n, i;
    int bad;
} rd;

static rd open_array(const msgpack_object *o, uint32_t want)
{
    rd r = {0};
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != want) {
        r.bad = 1;
        return r;
    }
    r.a = o->via.array.ptr;
    r.n = want;
    return r;
}

static const msgpack_object *next(rd *r)
{
    static const msgpack_object nil = {.type = MSGPACK_OBJECT_NIL};
    if (r->bad || r->i >= r->n) {
        r->bad = 1;
        return &nil;
    }
    return &r->a[r->i++];
}

/* A string or nil into a new string (NULL for nil). */
static char *get_str(rd *r)
{
    const msgpack_object *o = next(r);
    if (o->type == MSGPACK_OBJECT_NIL)
        return NULL;
    if (o->type != MSGPACK_OBJECT_STR) {
        r->bad = 1;
        return NULL;
    }
    char *s = malloc(o->via.str.size + 1);
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, o->via.str.ptr, o->via.str.size);
    s[o->via.str.size] = 0;
    return s;
}

static void get_fixed(rd *r, char *out, size_t len)
{
    char *s = get_str(r);
    snprintf(out, len, "%s", s ? s : "");
    free(s);
}

static uint64_t get_uint(rd *r)
{
    const msgpack_object *o = next(r);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
        r->bad = 1;
        return 0;
    }
    return o->via.u64;
}

static int64_t get_int(rd *r)
{
    const msgpack_object *o = next(r);
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
        return (int64_t)o->via.u64;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return o->via.i64;
    r->bad = 1;
    return 0;
}

/* An array of n elements of size elem (calloc'd, NULL when empty): the
 * caller decodes each.  *n 0 and r->bad when it is not an array. */
static void *get_items(rd *r, size_t elem, uint32_t *n,
                       const msgpack_object **items)
{
    const msgpack_object *o = next(r);
    *n = 0;
    if (o->type != MSGPACK_OBJECT_ARRAY) {
        r->bad = 1;
        return NULL;
    }
    if (o->via.array.size == 0)
        return NULL;
    void *v = calloc(o->via.array.size, elem);
    if (!v) {
        r->bad = 1;
        return NULL;
    }
    *n = o->via.array.size;
    *items = o->via.array.ptr;
    return v;
}

static void get_event(const msgpack_object *o, ft_fevent *e, int *bad)
{
    rd r = open_array(o, 12);
    get_fixed(&r, e->role, sizeof e->role);
    get_fixed(&r, e->kind, sizeof e->kind);
    e->key = get_uint(&r) != 0;
    e->tid = (uint32_t)get_uint(&r);
    e->index = get_uint(&r);
    e->site.module = get_str(&r);
    e->site.file = get_str(&r);
    e->site.function = get_str(&r);
    e->site.text = get_str(&r);
    e->site.line = (uint32_t)get_uint(&r);
    e->site.column = (uint32_t)get_uint(&r);
    e->site.offset = get_uint(&r);
    if (r.bad || !e->site.module || !e->site.file || !e->site.function)
        *bad = 1;
}

static void get_group(const msgpack_object *o, fb_group *g, int *bad)
{
    rd r = open_array(o, 14);
    ft_finding *f = &g->f;
    get_fixed(&r, g->fingerprint, sizeof g->fingerprint);
    g->key = get_str(&r);
    g->instances = (uint32_t)get_uint(&r);
    g->observed = get_int(&r) != 0;
    get_fixed(&r, f->kind, sizeof f->kind);
    f->message = get_str(&r);
    f->witness = get_str(&r);
    f->replayable = get_int(&r) != 0;
    f->observed = get_int(&r) != 0;
    uint64_t prop = get_uint(&r);
    f->prop = prop == UINT64_MAX ? SIZE_MAX : (size_t)prop;
    f->kprop = SIZE_MAX; /* the pipeline's index: the child's alone */
    const msgpack_object *items = NULL;
    uint32_t ne;
    f->events = get_items(&r, sizeof *f->events, &ne, &items);
    for (uint32_t e = 0; e < ne; e++) {
        f->nevents++;
        get_event(&items[e], &f->events[e], bad);
    }
    get_fixed(&r, g->confirm.status, sizeof g->confirm.status);
    get_fixed(&r, g->confirm.failure, sizeof g->confirm.failure);
    g->confirm.detail = get_str(&r);
    if (r.bad || !g->key || !f->message ||
        strlen(g->fingerprint) != FT_FINGERPRINT_LEN)
        *bad = 1;
}

int fb_result_decode(const char *buf, size_t len, fb_result *res)
{
    memset(res, 0, sizeof *res);
    /* counts checked against the bytes first: msgpack-c would allocate
     * what a corrupt count claims */
    const uint8_t *b = (const uint8_t *)buf;
    if (ft_mp_validate(b, b + len) != b + len)
        return -1;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int bad = msgpack_unpack_next(&u, buf, len, &off) !=
                  MSGPACK_UNPACK_SUCCESS ||
              off != len;
    rd r = open_array(&u.data, 21);
    if (bad)
        r.bad = 1;
    get_fixed(&r, res->hash, sizeof res->hash);
    res->path = get_str(&r);
    res->program = get_str(&r);
    res->build_id = get_str(&r);
    res->end_reason = get_str(&r);
    const msgpack_object *av = next(&r);
    if (av->type == MSGPACK_OBJECT_BIN) {
        res->argv = malloc(av->via.bin.size + 1);
        if (res->argv) {
            memcpy(res->argv, av->via.bin.ptr, av->via.bin.size);
            res->argv_len = av->via.bin.size;
        }
    } else if (av->type != MSGPACK_OBJECT_NIL) {
        r.bad = 1;
    }
    res->recorded_ns = get_int(&r);
    res->exit_status = get_int(&r);
    res->events = get_uint(&r);
    res->threads = get_uint(&r);
    res->status = (int)get_int(&r);
    res->message = get_str(&r);
    res->exit_code = (int)get_int(&r);
    res->regions = get_uint(&r);
    res->properties = get_uint(&r);
    res->violated = get_uint(&r);
    res->holds = get_uint(&r);
    res->unknown = get_uint(&r);
    res->observed = get_uint(&r);
    const msgpack_object *sec = next(&r);
    if (sec->type == MSGPACK_OBJECT_FLOAT64 ||
        sec->type == MSGPACK_OBJECT_FLOAT32)
        res->seconds = sec->via.f64;
    else
        r.bad = 1;
    const msgpack_object *items = NULL;
    uint32_t ng;
    res->groups = get_items(&r, sizeof *res->groups, &ng, &items);
    for (uint32_t k = 0; k < ng; k++) {
        res->ngroups++;
        get_group(&items[k], &res->groups[k], &bad);
    }
    msgpack_unpacked_destroy(&u);
    if (r.bad || bad || !res->path || res->status < 0 ||
        res->status >= FB_NSTATUS) {
        fb_result_free(res);
        return -1;
    }
    return 0;
}

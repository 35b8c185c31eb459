/* SPDX-License-Identifier: MIT */
/* reader_meta.c - decoding the metadata chunks (HEADER, SITES, MODULES,
 * SYMBOLS, END) with msgpack-c.  These are small and read once, so the
 * generic decoder is fine here; the hot EVENTS path has its own decoder
 * (reader_decode.c).  Every byte range is first checked by
 * ft_mp_validate, because msgpack-c allocates a container's elements
 * before reading them and would believe a hostile count. */
#include "recorder/reader_internal.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

const uint8_t *ft_mp_validate(const uint8_t *p, const uint8_t *end)
{
    uint64_t left[33];
    int depth = 0;
    left[0] = 1;
    for (;;) {
        while (left[depth] == 0) {
            if (depth == 0)
                return p;
            depth--;
        }
        left[depth]--;
        if (p >= end)
            return NULL;
        uint8_t b = *p++;
        uint64_t skip = 0, count = 0;
        int n = 0;
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
            /* one byte */
        } else if (b <= 0x8f) {
            count = 2u * (b & 0x0f);
        } else if (b <= 0x9f) {
            count = b & 0x0f;
        } else if (b <= 0xbf) {
            skip = b & 0x1f;
        } else {
            switch (b) {
            case 0xc4: case 0xd9: n = 1; break;
            case 0xc5: case 0xda: n = 2; break;
            case 0xc6: case 0xdb: n = 4; break;
            case 0xc7: n = 1; skip = 1; break;
            case 0xc8: n = 2; skip = 1; break;
            case 0xc9: n = 4; skip = 1; break;
            case 0xca: skip = 4; break;
            case 0xcb: skip = 8; break;
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: case 0xdd:
                if (end - p < (b == 0xdc ? 2 : 4))
                    return NULL;
                count = be(p, b == 0xdc ? 2 : 4);
                p += b == 0xdc ? 2 : 4;
                break;
            case 0xde: case 0xdf:
                if (end - p < (b == 0xde ? 2 : 4))
                    return NULL;
                count = 2 * be(p, b == 0xde ? 2 : 4);
                p += b == 0xde ? 2 : 4;
                break;
            default: /* 0xc1 is never used */
                return NULL;
            }
            if (n) {
                if (end - p < n)
                    return NULL;
                skip += be(p, n);
                p += n;
            }
        }
        if (skip > (uint64_t)(end - p))
            return NULL;
        p += skip;
        if (count) {
            if (count > (uint64_t)(end - p) || depth == 31)
                return NULL;
            left[++depth] = count;
        }
    }
}

static int is_str(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_STR;
}

static int get_uint(const msgpack_object *o, uint64_t max, uint64_t *v)
{
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
        return -1;
    *v = o->via.u64;
    return 0;
}

static int get_int(const msgpack_object *o, int64_t *v)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *v = o->via.i64;
        return 0;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
        o->via.u64 <= (uint64_t)INT64_MAX) {
        *v = (int64_t)o->via.u64;
        return 0;
    }
    return -1;
}

/* str or nil -> reader-owned string (NULL for nil); -1 if neither. */
static int get_str(ft_reader *r, const msgpack_object *o, const char **out)
{
    if (o->type == MSGPACK_OBJECT_NIL) {
        *out = NULL;
        return 0;
    }
    if (!is_str(o) || memchr(o->via.str.ptr, 0, o->via.str.size))
        return -1;
    *out = ft_reader_strdup(r, o->via.str.ptr, o->via.str.size);
    return *out ? 0 : -1;
}

static int key_is(const msgpack_object *k, const char *name)
{
    size_t n = strlen(name);
    return is_str(k) && k->via.str.size == n &&
           !memcmp(k->via.str.ptr, name, n);
}

/* Calls fn on each top-level value of a body (SITES, MODULES, SYMBOLS). */
typedef int (*elem_fn)(ft_reader *r, const msgpack_object *o);

static int each_element(ft_reader *r, const uint8_t *body, size_t n,
                        uint64_t body_off, const char *what, elem_fn fn)
{
    const uint8_t *p = body, *end = body + n;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = 0;
    while (p < end) {
        uint64_t at = body_off + (uint64_t)(p - body);
        const uint8_t *e = ft_mp_validate(p, end);
        if (!e || (size_t)(e - p) > FT_META_MAX_ELEMENT) {
            rc = ft_reader_fail(r, at, "%s entry: expected a well-formed "
                                "msgpack array of at most %u bytes, found "
                                "byte 0x%02x", what, FT_META_MAX_ELEMENT, *p);
            break;
        }
        size_t off = 0;
        r->elem_at = at;
        if (msgpack_unpack_next(&u, (const char *)p, (size_t)(e - p), &off) !=
                MSGPACK_UNPACK_SUCCESS ||
            fn(r, &u.data) < 0) {
            if (!r->error.message[0] || r->error.offset != at)
                rc = ft_reader_fail(r, at, "%s entry: malformed (wrong "
                                    "element count or types)", what);
            else
                rc = -1;
            break;
        }
        p = e;
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}

static int one_module(ft_reader *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 4)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    ft_module m;
    const char *bid;
    if (get_str(r, &a[0], &m.path) < 0 || !m.path ||
        get_uint(&a[1], UINT64_MAX, &m.base) < 0 ||
        get_uint(&a[2], UINT64_MAX, &m.size) < 0 ||
        get_str(r, &a[3], &bid) < 0)
        return -1;
    m.build_id = bid ? bid : "";
    if (r->nmodules == r->capmodules) {
        uint32_t cap = r->capmodules ? 2 * r->capmodules : 16;
        ft_module *n = realloc(r->modules, cap * sizeof *n);
        if (!n)
            return -1;
        r->modules = n;
        r->capmodules = cap;
    }
    r->modules[r->nmodules++] = m;
    return 0;
}

static int header_field(ft_reader *r, const msgpack_object *k,
                        const msgpack_object *v, int *seen_format)
{
    uint64_t u;
    if (key_is(k, "format")) {
        if (!key_is(v, FT_FORMAT_NAME))
            return -1;
        *seen_format = 1;
    } else if (key_is(k, "version")) {
        if (get_uint(v, UINT32_MAX, &u) < 0)
            return -1;
        r->header.version = (uint32_t)u;
    } else if (key_is(k, "program")) {
        if (get_str(r, v, &r->header.program) < 0)
            return -1;
    } else if (key_is(k, "argv")) {
        if (v->type != MSGPACK_OBJECT_ARRAY || r->argv)
            return -1;
        uint32_t n = v->via.array.size;
        r->argv = calloc((size_t)n + 1, sizeof *r->argv);
        if (!r->argv)
            return -1;
        for (uint32_t i = 0; i < n; i++)
            if (get_str(r, &v->via.array.ptr[i], &r->argv[i]) < 0 ||
                !r->argv[i])
                return -1;
        r->header.argc = n;
        r->header.argv = r->argv;
    } else if (key_is(k, "pid")) {
        if (get_uint(v, UINT64_MAX, &r->header.pid) < 0)
            return -1;
    } else if (key_is(k, "start_time_ns")) {
        if (get_uint(v, UINT64_MAX, &r->header.start_time_ns) < 0)
            return -1;
    } else if (key_is(k, "modules")) {
        if (v->type != MSGPACK_OBJECT_ARRAY)
            return -1;
        for (uint32_t i = 0; i < v->via.array.size; i++)
            if (one_module(r, &v->via.array.ptr[i]) < 0)
                return -1;
    }
    return 0; /* unknown keys (options, ...) are ignored */
}

int ft_meta_header(ft_reader *r, const uint8_t *body, size_t n,
                   uint64_t body_off)
{
    const uint8_t *e = ft_mp_validate(body, body + n);
    int is_map = n > 0 && ((*body & 0xf0) == 0x80 || *body == 0xde ||
                           *body == 0xdf);
    if (!e || e != body + n || !is_map)
        return ft_reader_fail(r, body_off, "HEADER: expected one msgpack map "
                              "filling the chunk body, found %s",
                              n == 0 ? "an empty body" : "other bytes");
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = 0, seen_format = 0;
    if (msgpack_unpack_next(&u, (const char *)body, n, &off) !=
        MSGPACK_UNPACK_SUCCESS) {
        rc = ft_reader_fail(r, body_off, "HEADER: msgpack-c cannot decode it");
    } else {
        const msgpack_object_map *m = &u.data.via.map;
        for (uint32_t i = 0; i < m->size && rc == 0; i++) {
            const msgpack_object *k = &m->ptr[i].key;
            if (header_field(r, k, &m->ptr[i].val, &seen_format) < 0)
                rc = ft_reader_fail(r, body_off, "HEADER: bad value for key "
                                    "'%.*s'", is_str(k) ? (int)k->via.str.size
                                    : 1, is_str(k) ? k->via.str.ptr : "?");
        }
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        return rc;
    if (!seen_format)
        return ft_reader_fail(r, body_off, "not a foretell trace: HEADER has "
                              "no \"format\": \"" FT_FORMAT_NAME "\" key");
    if (r->header.version < 1 || r->header.version > FT_FORMAT_VERSION)
        return ft_reader_fail(r, body_off, "unsupported trace version %u "
                              "(this reader reads version %u)",
                              r->header.version, FT_FORMAT_VERSION);
    if (!r->header.program)
        r->header.program = "";
    return 0;
}

/* Makes room for one more element in *arr (n used of *cap); -1 when the
 * count would overflow or memory is out. */
static int room_for_one(void **arr, uint32_t n, uint32_t *cap, size_t elem,
                        uint32_t first)
{
    if (n < *cap)
        return 0;
    uint32_t c = *cap ? 2 * *cap : first;
    if (c < *cap)
        return -1;
    void *a = realloc(*arr, (size_t)c * elem);
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

static int push_site(ft_reader *r, const ft_site *s)
{
    uint32_t cap = r->capsites;
    if (room_for_one((void **)&r->sites, r->nsites, &r->capsites,
                     sizeof *r->sites, 256) < 0)
        return -1;
    if (cap != r->capsites || !r->site_at) {
        uint64_t *at = realloc(r->site_at, r->capsites * sizeof *at);
        if (!at)
            return -1;
        r->site_at = at;
    }
    r->site_at[r->nsites] = r->elem_at;
    r->sites[r->nsites++] = *s;
    return 0;
}

static int one_site(ft_reader *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t id, mod, off;
    if (get_uint(&a[0], UINT32_MAX, &id) < 0 || id == 0 ||
        get_uint(&a[1], UINT32_MAX, &mod) < 0 ||
        get_uint(&a[2], UINT64_MAX, &off) < 0)
        return -1;
    ft_site s = {.id = (uint32_t)id, .module = (uint32_t)mod, .offset = off};
    return push_site(r, &s);
}

int ft_meta_sites(ft_reader *r, const uint8_t *body, size_t n,
                  uint64_t body_off)
{
    return each_element(r, body, n, body_off, "SITES", one_site);
}

static int one_module_elem(ft_reader *r, const msgpack_object *o)
{
    return one_module(r, o);
}

int ft_meta_modules(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off)
{
    return each_element(r, body, n, body_off, "MODULES", one_module_elem);
}

/* SYMBOLS entries are kept as sites with module UINT32_MAX until
 * ft_meta_finish_sites merges them into the real sites. */
#define SYM_MARK UINT32_MAX
#define SRC_MARK (UINT32_MAX - 1)

static int one_symbol(ft_reader *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 5)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t id, line, col;
    ft_site s = {.module = SYM_MARK, .offset = 0};
    if (get_uint(&a[0], UINT32_MAX, &id) < 0 || id == 0 ||
        get_str(r, &a[1], &s.function) < 0 || get_str(r, &a[2], &s.file) < 0 ||
        get_uint(&a[3], UINT32_MAX, &line) < 0 ||
        get_uint(&a[4], UINT32_MAX, &col) < 0)
        return -1;
    s.id = (uint32_t)id;
    s.line = (uint32_t)line;
    s.column = (uint32_t)col;
    return push_site(r, &s);
}

/* A [site, text] entry (SOURCE, INSN) as a site with module mark, its
 * text in s.text, or in s.insn when insn is set. */
static int one_site_text(ft_reader *r, const msgpack_object *o,
                         uint32_t mark, int insn)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 2)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t id;
    ft_site s = {.module = mark, .offset = 0};
    const char **field = insn ? &s.insn : &s.text;
    if (get_uint(&a[0], UINT32_MAX, &id) < 0 || id == 0 ||
        get_str(r, &a[1], field) < 0 || !*field)
        return -1;
    s.id = (uint32_t)id;
    return push_site(r, &s);
}

static int one_source(ft_reader *r, const msgpack_object *o)
{
    return one_site_text(r, o, SRC_MARK, 0);
}

int ft_meta_source(ft_reader *r, const uint8_t *body, size_t n,
                   uint64_t body_off)
{
    return each_element(r, body, n, body_off, "SOURCE", one_source);
}

/* INLINED entries: sites with module INL_MARK, merged like SYMBOLS. */
#define INL_MARK (UINT32_MAX - 2)

static int one_inlined(ft_reader *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t id, line;
    ft_site s = {.module = INL_MARK, .offset = 0};
    if (get_uint(&a[0], UINT32_MAX, &id) < 0 || id == 0 ||
        get_str(r, &a[1], &s.user_file) < 0 || !s.user_file ||
        get_uint(&a[2], UINT32_MAX, &line) < 0)
        return -1;
    s.id = (uint32_t)id;
    s.user_line = (uint32_t)line;
    return push_site(r, &s);
}

int ft_meta_inlined(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off)
{
    return each_element(r, body, n, body_off, "INLINED", one_inlined);
}

/* STRAIGHT entries: sites with module RUN_MARK, merged like SYMBOLS. */
#define RUN_MARK (UINT32_MAX - 3)

static int one_straight(ft_reader *r, const msgpack_object *o)
{
    (void)r;
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 2)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t id, span;
    ft_site s = {.module = RUN_MARK, .offset = 0};
    if (get_uint(&a[0], UINT32_MAX, &id) < 0 || id == 0 ||
        get_uint(&a[1], UINT32_MAX, &span) < 0)
        return -1;
    s.id = (uint32_t)id;
    s.straight = (uint32_t)span;
    return push_site(r, &s);
}

int ft_meta_straight(ft_reader *r, const uint8_t *body, size_t n,
                     uint64_t body_off)
{
    return each_element(r, body, n, body_off, "STRAIGHT", one_straight);
}

/* INSN entries: sites with module INS_MARK, merged like SYMBOLS. */
#define INS_MARK (UINT32_MAX - 4)

static int one_insn(ft_reader *r, const msgpack_object *o)
{
    return one_site_text(r, o, INS_MARK, 1);
}

int ft_meta_insn(ft_reader *r, const uint8_t *body, size_t n,
                 uint64_t body_off)
{
    return each_element(r, body, n, body_off, "INSN", one_insn);
}

static int one_datasym(ft_reader *r, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 4)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint64_t mod;
    ft_datasym d;
    if (get_uint(&a[0], UINT32_MAX, &mod) < 0 ||
        get_uint(&a[1], UINT64_MAX, &d.offset) < 0 ||
        get_uint(&a[2], UINT64_MAX, &d.size) < 0 ||
        get_str(r, &a[3], &d.name) < 0 || !d.name)
        return -1;
    d.module = (uint32_t)mod;
    if (room_for_one((void **)&r->data, r->ndata, &r->capdata,
                     sizeof *r->data, 64) < 0)
        return -1;
    r->data[r->ndata++] = d;
    return 0;
}

int ft_meta_data(ft_reader *r, const uint8_t *body, size_t n,
                 uint64_t body_off)
{
    return each_element(r, body, n, body_off, "DATA", one_datasym);
}

/* The members of a struct or union ([name, offset, type]) or the
 * enumerators of an enum ([name, value]) into r->types.members. */
static int type_members(ft_reader *r, const msgpack_object *o, ft_type *ty)
{
    ft_typetab *t = &r->types;
    int is_enum = ty->kind == FT_TYPE_ENUM;
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return -1;
    ty->first = t->nmembers;
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        const msgpack_object *m = &o->via.array.ptr[i];
        if (m->type != MSGPACK_OBJECT_ARRAY ||
            m->via.array.size != (is_enum ? 2u : 3u))
            return -1;
        const msgpack_object *a = m->via.array.ptr;
        ft_tmember tm = {0};
        uint64_t type = 0;
        int64_t v;
        if (get_str(r, &a[0], &tm.name) < 0 || !tm.name)
            return -1;
        if (is_enum) {
            if (get_int(&a[1], &v) == 0)
                tm.offset = (uint64_t)v;
            else if (get_uint(&a[1], UINT64_MAX, &tm.offset) < 0)
                return -1;
        } else if (get_uint(&a[1], UINT64_MAX, &tm.offset) < 0 ||
                   get_uint(&a[2], UINT32_MAX, &type) < 0) {
            return -1;
        }
        tm.type = (uint32_t)type;
        if (room_for_one((void **)&t->members, t->nmembers, &t->capmembers,
                         sizeof *t->members, 256) < 0)
            return -1;
        t->members[t->nmembers++] = tm;
    }
    ty->nmembers = t->nmembers - ty->first;
    return 0;
}

/* A TYPES entry (recorder/typetab.h has the layouts); kinds this reader
 * does not know are skipped. */
static int one_type(ft_reader *r, const msgpack_object *o)
{
    ft_typetab *t = &r->types;
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size < 4)
        return -1;
    const msgpack_object *a = o->via.array.ptr;
    uint32_t n = o->via.array.size;
    uint64_t kind, id, size, x;
    if (get_uint(&a[0], UINT32_MAX, &kind) < 0 ||
        get_uint(&a[1], UINT32_MAX, &id) < 0)
        return -1;
    if (kind == FT_TYPE_VAR) {
        ft_vartype v;
        if (n != 4 || get_uint(&a[2], UINT64_MAX, &v.offset) < 0 ||
            get_uint(&a[3], UINT32_MAX, &x) < 0)
            return -1;
        v.module = (uint32_t)id;
        v.type = (uint32_t)x;
        if (room_for_one((void **)&r->vartypes, r->nvartypes,
                         &r->capvartypes, sizeof *r->vartypes, 64) < 0)
            return -1;
        r->vartypes[r->nvartypes++] = v;
        return 0;
    }
    if (kind == FT_TYPE_DEREF) {
        ft_tderef d = {.site = (uint32_t)id};
        if (n != 5 || id == 0 || get_str(r, &a[2], &d.base) < 0 ||
            !d.base || get_str(r, &a[3], &d.field) < 0 || !d.field ||
            get_uint(&a[4], UINT32_MAX, &x) < 0)
            return -1;
        d.type = (uint32_t)x;
        if (room_for_one((void **)&t->derefs, t->nderefs, &t->capderefs,
                         sizeof *t->derefs, 64) < 0)
            return -1;
        t->derefs[t->nderefs++] = d;
        return 0;
    }
    if (kind < FT_TYPE_BASE || kind > FT_TYPE_ENUM)
        return 0;
    ft_type ty = {.id = (uint32_t)id, .kind = (uint8_t)kind};
    if (id == 0 || get_uint(&a[2], UINT64_MAX, &size) < 0 ||
        get_str(r, &a[3], &ty.name) < 0)
        return -1;
    ty.size = size;
    switch (kind) {
    case FT_TYPE_BASE:
        if (n != 5 || get_uint(&a[4], 255, &x) < 0)
            return -1;
        ty.enc = (uint8_t)x;
        break;
    case FT_TYPE_POINTER:
        if (n != 4)
            return -1;
        break;
    case FT_TYPE_STRUCT:
    case FT_TYPE_UNION:
        if (n != 5 || type_members(r, &a[4], &ty) < 0)
            return -1;
        break;
    case FT_TYPE_ARRAY:
        if (n != 6 || get_uint(&a[4], UINT32_MAX, &x) < 0 ||
            get_uint(&a[5], UINT64_MAX, &ty.count) < 0)
            return -1;
        ty.elem = (uint32_t)x;
        break;
    case FT_TYPE_ENUM:
        if (n != 6 || get_uint(&a[4], 1, &x) < 0 ||
            type_members(r, &a[5], &ty) < 0)
            return -1;
        ty.enc = (uint8_t)x;
        break;
    }
    if (room_for_one((void **)&t->types, t->ntypes, &t->captypes,
                     sizeof *t->types, 64) < 0)
        return -1;
    t->types[t->ntypes++] = ty;
    return 0;
}

int ft_meta_types(ft_reader *r, const uint8_t *body, size_t n,
                  uint64_t body_off)
{
    return each_element(r, body, n, body_off, "TYPES", one_type);
}

int ft_meta_symbols(ft_reader *r, const uint8_t *body, size_t n,
                    uint64_t body_off)
{
    return each_element(r, body, n, body_off, "SYMBOLS", one_symbol);
}

int ft_meta_end(ft_reader *r, const uint8_t *body, size_t n,
                uint64_t body_off)
{
    const uint8_t *e = ft_mp_validate(body, body + n);
    if (!e || e != body + n)
        return ft_reader_fail(r, body_off, "END: expected one msgpack map "
                              "filling the chunk body");
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = -1;
    ft_end end = {.present = 1, .exit_status = -1, .reason = ""};
    uint64_t threads = 0;
    if (msgpack_unpack_next(&u, (const char *)body, n, &off) ==
            MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP) {
        rc = 0;
        const msgpack_object_map *m = &u.data.via.map;
        for (uint32_t i = 0; i < m->size && rc == 0; i++) {
            const msgpack_object *k = &m->ptr[i].key, *v = &m->ptr[i].val;
            if (key_is(k, "events"))
                rc = get_uint(v, UINT64_MAX, &end.events);
            else if (key_is(k, "reason"))
                rc = get_str(r, v, &end.reason) < 0 || !end.reason ? -1 : 0;
            else if (key_is(k, "exit_status"))
                rc = get_int(v, &end.exit_status);
            else if (key_is(k, "threads"))
                rc = get_uint(v, UINT64_MAX, &threads);
        }
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        return ft_reader_fail(r, body_off, "END: expected a map of events, "
                              "reason, exit_status, threads");
    end.threads = threads;
    r->end = end;
    r->end_threads = threads;
    return 0;
}

/* A site or symbols entry with its position in the file, so that sorting
 * by id keeps file order among entries for the same id (last one wins). */
typedef struct tagged {
    ft_site s;
    uint32_t pos;
} tagged;

static int by_id_then_pos(const void *a, const void *b)
{
    const tagged *x = a, *y = b;
    if (x->s.id != y->s.id)
        return x->s.id < y->s.id ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int ft_meta_finish_sites(ft_reader *r)
{
    uint32_t n = r->nsites;
    tagged *t = n ? malloc((size_t)n * sizeof *t) : NULL;
    if (n && !t) {
        free(r->site_at);
        r->site_at = NULL;
        return ft_reader_fail(r, 0, "out of memory reading the site table");
    }
    for (uint32_t i = 0; i < n; i++)
        t[i] = (tagged){r->sites[i], i};
    if (n)
        qsort(t, n, sizeof *t, by_id_then_pos);
    uint32_t out = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i, at = 0;
        ft_site merged = {0};
        int have_site = 0;
        for (; j < n && t[j].s.id == t[i].s.id; j++) {
            const ft_site *s = &t[j].s;
            if (s->module == RUN_MARK) {
                merged.straight = s->straight;
            } else if (s->module == INS_MARK) {
                merged.insn = s->insn;
            } else if (s->module == INL_MARK) {
                merged.user_file = s->user_file;
                merged.user_line = s->user_line;
            } else if (s->module == SRC_MARK) {
                merged.text = s->text;
            } else if (s->module != SYM_MARK) {
                merged.id = s->id;
                merged.module = s->module;
                merged.offset = s->offset;
                have_site = 1;
                at = t[j].pos;
            } else if (s->function || s->file) {
                merged.function = s->function;
                merged.file = s->file;
                merged.line = s->line;
                merged.column = s->column;
            }
        }
        i = j;
        if (!have_site)
            continue;
        if (merged.id != out + 1) {
            rc = ft_reader_fail(r, r->site_at[at], "SITES entry: site id %u, "
                                "but site %u is not defined: site ids must "
                                "be dense from 1", merged.id, out + 1);
            break;
        }
        r->sites[out++] = merged;
    }
    free(t);
    free(r->site_at);
    r->site_at = NULL;
    r->nsites = out;
    return rc;
}

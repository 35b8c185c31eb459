/* SPDX-License-Identifier: MIT */
/* typetab.c - walking the type descriptions of a TYPES chunk: the path to
 * a byte inside a typed object ("inner.count", "[3]") and a value printed
 * by its type.  The table comes from a trace, so from anyone: ids may be
 * missing or cyclic and sizes absurd; each walk takes at most
 * FT_TYPE_MAX_DEPTH steps and never writes past its buffer. */
#include "recorder/typetab.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_id(const void *a, const void *b)
{
    const ft_type *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int by_site(const void *a, const void *b)
{
    const ft_tderef *x = a, *y = b;
    return x->site < y->site ? -1 : x->site > y->site;
}

void ft_typetab_finish(ft_typetab *t)
{
    if (t->ntypes > 1) {
        qsort(t->types, t->ntypes, sizeof *t->types, by_id);
        uint32_t w = 0; /* one entry per id (a hostile trace repeats) */
        for (uint32_t i = 0; i < t->ntypes; i++)
            if (!w || t->types[w - 1].id != t->types[i].id)
                t->types[w++] = t->types[i];
        t->ntypes = w;
    }
    if (t->nderefs > 1)
        qsort(t->derefs, t->nderefs, sizeof *t->derefs, by_site);
}

void ft_typetab_free(ft_typetab *t)
{
    free(t->types);
    free(t->members);
    free(t->derefs);
    memset(t, 0, sizeof *t);
}

const ft_type *ft_typetab_get(const ft_typetab *t, uint32_t id)
{
    size_t lo = 0, hi = t ? t->ntypes : 0;
    while (id && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->types[mid].id == id)
            return &t->types[mid];
        if (t->types[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Members looked at per aggregate: a hostile count costs no more. */
#define FT_TYPE_MAX_MEMBERS 4096u

/* How many of ty's members are in the table (and looked at). */
static uint32_t nmembers(const ft_typetab *t, const ft_type *ty)
{
    if (ty->first >= t->nmembers)
        return 0;
    uint32_t n = t->nmembers - ty->first;
    if (ty->nmembers < n)
        n = ty->nmembers;
    return n < FT_TYPE_MAX_MEMBERS ? n : FT_TYPE_MAX_MEMBERS;
}

static const ft_tmember *member(const ft_typetab *t, const ft_type *ty,
                                uint32_t i)
{
    uint64_t k = (uint64_t)ty->first + i;
    return k < t->nmembers ? &t->members[k] : NULL;
}

/* Bytes member i of ty spans: its type's size, else (a bit-field, an
 * unknown type) up to the member after it (DWARF lists them in order)
 * or the end of the aggregate. */
static uint64_t member_size(const ft_typetab *t, const ft_type *ty,
                            uint32_t i)
{
    const ft_tmember *m = member(t, ty, i);
    const ft_type *mt = ft_typetab_get(t, m->type);
    if (mt)
        return mt->size;
    uint64_t end = ty->size;
    const ft_tmember *n = i + 1 < nmembers(t, ty) ? member(t, ty, i + 1)
                                                  : NULL;
    if (n && n->offset > m->offset && n->offset < end)
        end = n->offset;
    return end > m->offset ? end - m->offset : 0;
}

static void append(char *out, size_t len, const char *fmt, const char *s,
                   uint64_t v)
{
    size_t w = strnlen(out, len);
    if (w + 1 >= len)
        return;
    if (s)
        snprintf(out + w, len - w, fmt, s);
    else
        snprintf(out + w, len - w, fmt, (unsigned long long)v);
}

/* An identifier the implementation reserves (__data, _M_i): members of
 * library types (pthread_mutex_t, std::atomic<int>) that the program
 * never names, walked through as if anonymous, so that a mutex stays
 * "lock" and an atomic "a" rather than "lock.__data.__lock". */
static int reserved(const char *name)
{
    return name[0] == '_' &&
           (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

const char *ft_typetab_path(const ft_typetab *t, uint32_t type, uint64_t off,
                            uint64_t size, char *out, size_t len,
                            uint32_t *leaf)
{
    const char *first = NULL;
    uint32_t cur = type;
    if (leaf)
        *leaf = 0;
    if (!len)
        return "";
    for (int depth = 0; depth < FT_TYPE_MAX_DEPTH; depth++) {
        const ft_type *ty = ft_typetab_get(t, cur);
        if (!ty)
            break;
        uint64_t want = size ? size : 1;
        if (ty->kind == FT_TYPE_STRUCT || ty->kind == FT_TYPE_UNION) {
            const ft_tmember *in = NULL;
            for (uint32_t i = 0, nm = nmembers(t, ty); i < nm && !in; i++) {
                const ft_tmember *m = member(t, ty, i);
                uint64_t ms = m ? member_size(t, ty, i) : 0;
                if (m && off >= m->offset && off - m->offset < ms &&
                    want <= ms - (off - m->offset))
                    in = m;
            }
            if (!in)
                break; /* padding, or an access spanning members */
            if (in->name[0] && !reserved(in->name)) {
                size_t w = strnlen(out, len);
                int bare = w == 0 || out[w - 1] == '>';
                append(out, len, bare ? "%s" : ".%s", in->name, 0);
                if (!first)
                    first = in->name;
            }
            off -= in->offset;
            cur = in->type;
            if (!cur)
                break;
            continue;
        }
        if (ty->kind == FT_TYPE_ARRAY) {
            const ft_type *et = ft_typetab_get(t, ty->elem);
            if (!et || !et->size)
                break;
            uint64_t idx = off / et->size, in = off % et->size;
            if ((ty->count && idx >= ty->count) || want > et->size - in)
                break;
            append(out, len, "[%llu]", NULL, idx);
            if (!first)
                first = "";
            off = in;
            cur = ty->elem;
            continue;
        }
        /* a scalar: the access reads it whole, or a part of it */
        if (off == 0 && (!size || size == ty->size) && leaf)
            *leaf = cur;
        break;
    }
    if (off)
        append(out, len, "+%llu", NULL, off);
    return first ? first : "";
}

/* The shortest decimal that reads back as d. */
static void print_double(double d, char *buf, size_t len)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, d);
        if (strtod(buf, NULL) == d || isnan(d))
            return;
    }
}

const char *ft_typetab_value(const ft_typetab *t, uint32_t type,
                             uint64_t value, uint64_t size, char *buf,
                             size_t len)
{
    const ft_type *ty = ft_typetab_get(t, type);
    if (ty && !size)
        size = ty->size;
    if (!ty || !len || ty->size != size || size == 0 || size > 8)
        return NULL;
    uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
    uint64_t sign = (uint64_t)1 << (8 * size - 1);
    value &= mask;
    int64_t sv = (int64_t)((value ^ sign) - sign); /* sign-extended */
    switch (ty->kind) {
    case FT_TYPE_POINTER:
        if (!value)
            snprintf(buf, len, "NULL");
        else
            snprintf(buf, len, "0x%" PRIx64, value);
        return buf;
    case FT_TYPE_ENUM:
        for (uint32_t i = 0, nm = nmembers(t, ty); i < nm; i++) {
            const ft_tmember *m = member(t, ty, i);
            if (m && (m->offset & mask) == value && m->name[0]) {
                snprintf(buf, len, "%s", m->name);
                return buf;
            }
        }
        if (ty->enc)
            snprintf(buf, len, "%" PRId64, sv);
        else
            snprintf(buf, len, "%" PRIu64, value);
        return buf;
    case FT_TYPE_BASE:
        break;
    default:
        return NULL;
    }
    switch (ty->enc) {
    case FT_ENC_SIGNED:
        snprintf(buf, len, "%" PRId64, sv);
        return buf;
    case FT_ENC_UNSIGNED:
        snprintf(buf, len, "%" PRIu64, value);
        return buf;
    case FT_ENC_BOOL:
        if (value > 1)
            snprintf(buf, len, "%" PRIu64, value);
        else
            snprintf(buf, len, "%s", value ? "true" : "false");
        return buf;
    case FT_ENC_CHAR:
        if (size == 1 && value >= 0x20 && value < 0x7f)
            snprintf(buf, len, value == '\'' || value == '\\' ? "'\\%c'"
                                                             : "'%c'",
                     (char)value);
        else
            snprintf(buf, len, "%" PRIu64, value);
        return buf;
    case FT_ENC_FLOAT:
        if (size == 4) {
            float f;
            uint32_t u = (uint32_t)value;
            memcpy(&f, &u, sizeof f);
            char tmp[64];
            for (int p = 1; p <= 9; p++) {
                snprintf(tmp, sizeof tmp, "%.*g", p, (double)f);
                if (strtof(tmp, NULL) == f || isnan(f))
                    break;
            }
            snprintf(buf, len, "%s", tmp);
            return buf;
        }
        if (size == 8) {
            double d;
            memcpy(&d, &value, sizeof d);
            print_double(d, buf, len);
            return buf;
        }
        return NULL;
    default:
        return NULL;
    }
}

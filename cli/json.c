/* SPDX-License-Identifier: MIT */
/* json.c - the JSON emitter (see json.h).  Writes straight to a FILE:
 * nothing is buffered here, so arbitrarily long outputs (dump of a big
 * trace) cost no memory. */
#include "cli/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ft_json_init(ft_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

/* Comma before every value but the first at its level (not after a key). */
static void before_value(ft_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0 && j->depth <= FT_JSON_MAX_DEPTH &&
        j->count[j->depth - 1]++ > 0)
        fputc(',', j->out);
}

static void open_level(ft_json *j, int c)
{
    before_value(j);
    fputc(c, j->out);
    if (j->depth < FT_JSON_MAX_DEPTH)
        j->count[j->depth] = 0;
    j->depth++;
}

static void close_level(ft_json *j, int c)
{
    if (j->depth > 0)
        j->depth--;
    fputc(c, j->out);
}

void ft_json_begin_object(ft_json *j) { open_level(j, '{'); }
void ft_json_end_object(ft_json *j) { close_level(j, '}'); }
void ft_json_begin_array(ft_json *j) { open_level(j, '['); }
void ft_json_end_array(ft_json *j) { close_level(j, ']'); }

size_t ft_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        min = 0x80;
        c &= 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        min = 0x800;
        c &= 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        min = 0x10000;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    return len;
}

static void put_string(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t len = ft_utf8_len(p + i, n - i);
            if (len == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(p + i, 1, len, out);
                i += len;
            }
        }
    }
    fputc('"', out);
}

void ft_json_key(ft_json *j, const char *key)
{
    before_value(j);
    put_string(j->out, key, strlen(key));
    fputc(':', j->out);
    j->after_key = 1;
}

void ft_json_strn(ft_json *j, const char *s, size_t n)
{
    before_value(j);
    put_string(j->out, s, n);
}

void ft_json_str(ft_json *j, const char *s)
{
    if (!s) {
        ft_json_null(j);
        return;
    }
    ft_json_strn(j, s, strlen(s));
}

void ft_json_uint(ft_json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRIu64, v);
}

void ft_json_int(ft_json *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRId64, v);
}

/* The shortest of digits_lo..17 significant digits that reads back as
 * v (as a float when as_float): 0.1, not 0.10000000000000001. */
static void shortest(FILE *out, double v, int digits_lo, int as_float)
{
    char buf[40];
    for (int d = digits_lo; d <= 17; d++) {
        snprintf(buf, sizeof buf, "%.*g", d, v);
        double back = strtod(buf, NULL);
        if (as_float ? (float)back == (float)v : back == v)
            break;
    }
    fputs(buf, out);
}

void ft_json_double(ft_json *j, double v)
{
    before_value(j);
    if (isfinite(v))
        shortest(j->out, v, 15, 0);
    else
        fputs("null", j->out); /* JSON has no NaN or infinity */
}

void ft_json_float(ft_json *j, float v)
{
    before_value(j);
    if (isfinite(v))
        shortest(j->out, v, 6, 1);
    else
        fputs("null", j->out);
}

void ft_json_bool(ft_json *j, int v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void ft_json_null(ft_json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void ft_json_hex(ft_json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "\"0x%" PRIx64 "\"", v);
}

void ft_json_bytes_hex(ft_json *j, const uint8_t *p, size_t n)
{
    before_value(j);
    fputc('"', j->out);
    for (size_t i = 0; i < n; i++)
        fprintf(j->out, "%02x", p[i]);
    fputc('"', j->out);
}

void ft_json_line(ft_json *j)
{
    fputc('\n', j->out);
    j->depth = 0;
    j->after_key = 0;
}

void ft_json_kstr(ft_json *j, const char *key, const char *s)
{
    ft_json_key(j, key);
    ft_json_str(j, s);
}

void ft_json_kuint(ft_json *j, const char *key, uint64_t v)
{
    ft_json_key(j, key);
    ft_json_uint(j, v);
}

void ft_json_kint(ft_json *j, const char *key, int64_t v)
{
    ft_json_key(j, key);
    ft_json_int(j, v);
}

void ft_json_khex(ft_json *j, const char *key, uint64_t v)
{
    ft_json_key(j, key);
    ft_json_hex(j, v);
}

void ft_json_kbool(ft_json *j, const char *key, int v)
{
    ft_json_key(j, key);
    ft_json_bool(j, v);
}

void ft_json_raw(ft_json *j, const char *text)
{
    before_value(j);
    fputs(text, j->out);
}

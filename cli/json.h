/* SPDX-License-Identifier: MIT */
/* json.h - a small streaming JSON emitter for the commands' --json output
 * (dump, stats, check, and the analysis commands).  It tracks nesting and
 * commas itself, so callers just say begin/key/value/end; strings are
 * escaped and invalid UTF-8 becomes U+FFFD, so output always parses.
 * Integers are emitted exactly (addresses go out as "0x..." strings,
 * because JSON readers commonly lose precision above 2^53). */
#ifndef FORETELL_CLI_JSON_H
#define FORETELL_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FT_JSON_MAX_DEPTH 32

typedef struct ft_json {
    FILE *out;
    int depth;
    int count[FT_JSON_MAX_DEPTH]; /* values written at each level */
    int after_key;
} ft_json;

void ft_json_init(ft_json *j, FILE *out);

void ft_json_begin_object(ft_json *j);
void ft_json_end_object(ft_json *j);
void ft_json_begin_array(ft_json *j);
void ft_json_end_array(ft_json *j);
/* The key of the next member (inside an object). */
void ft_json_key(ft_json *j, const char *key);

void ft_json_str(ft_json *j, const char *s); /* NULL -> null */
void ft_json_strn(ft_json *j, const char *s, size_t n);
void ft_json_uint(ft_json *j, uint64_t v);
void ft_json_int(ft_json *j, int64_t v);
/* The shortest text that reads back as v (null for NaN and infinities):
 * 0.1, not 0.10000000000000001. */
void ft_json_double(ft_json *j, double v);
/* The same for a single-precision value (a result's times): 4.489e-05,
 * not the 17 digits of its double. */
void ft_json_float(ft_json *j, float v);
void ft_json_bool(ft_json *j, int v);
void ft_json_null(ft_json *j);
void ft_json_hex(ft_json *j, uint64_t v); /* "0x1f" */
void ft_json_bytes_hex(ft_json *j, const uint8_t *p, size_t n); /* "0a1b" */

/* A value already in JSON (another document's part, as it was). */
void ft_json_raw(ft_json *j, const char *text);

/* Length of a valid UTF-8 sequence at s (1-4), or 0 if invalid (the
 * XML and HTML writers escape with the same rule). */
size_t ft_utf8_len(const unsigned char *s, size_t n);

/* Ends a top-level value with a newline (JSON Lines). */
void ft_json_line(ft_json *j);

/* Convenience members: key + value. */
void ft_json_kstr(ft_json *j, const char *key, const char *s);
void ft_json_kuint(ft_json *j, const char *key, uint64_t v);
void ft_json_kint(ft_json *j, const char *key, int64_t v);
void ft_json_khex(ft_json *j, const char *key, uint64_t v);
void ft_json_kbool(ft_json *j, const char *key, int v);

#endif

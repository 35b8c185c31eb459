/* SPDX-License-Identifier: MIT */
/* test_json.c - the JSON emitter used by --json outputs: commas and
 * nesting, escaping of quotes, control characters and invalid UTF-8,
 * exact 64-bit integers, numbers in their shortest exact text, and JSON
 * Lines. */
#include "cli/json.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char out[4096];

static FILE *open_out(void)
{
    memset(out, 0, sizeof out);
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_non_null(f);
    return f;
}

static void test_nesting_and_commas(void **state)
{
    (void)state;
    FILE *f = open_out();
    ft_json j;
    ft_json_init(&j, f);
    ft_json_begin_object(&j);
    ft_json_kuint(&j, "a", 1);
    ft_json_key(&j, "list");
    ft_json_begin_array(&j);
    ft_json_uint(&j, 18446744073709551615ull);
    ft_json_int(&j, -9223372036854775807LL - 1);
    ft_json_begin_object(&j);
    ft_json_end_object(&j);
    ft_json_begin_array(&j);
    ft_json_end_array(&j);
    ft_json_null(&j);
    ft_json_bool(&j, 1);
    ft_json_double(&j, NAN);
    ft_json_end_array(&j);
    ft_json_khex(&j, "addr", 0x7fff0000beefull);
    ft_json_kstr(&j, "none", NULL);
    ft_json_end_object(&j);
    ft_json_line(&j);
    ft_json_begin_object(&j);
    ft_json_kbool(&j, "second", 0);
    ft_json_end_object(&j);
    ft_json_line(&j);
    fclose(f);
    assert_string_equal(out,
        "{\"a\":1,\"list\":[18446744073709551615,-9223372036854775808,{},[],"
        "null,true,null],\"addr\":\"0x7fff0000beef\",\"none\":null}\n"
        "{\"second\":false}\n");
}

static void test_string_escaping(void **state)
{
    (void)state;
    FILE *f = open_out();
    ft_json j;
    ft_json_init(&j, f);
    ft_json_begin_array(&j);
    ft_json_str(&j, "q\"b\\n\n\t\x01");
    ft_json_str(&j, "caf\xc3\xa9 \xe2\x82\xac"); /* valid UTF-8 kept */
    ft_json_str(&j, "bad\xff\xc3(");             /* invalid bytes replaced */
    ft_json_str(&j, "\xed\xa0\x80");             /* surrogate: invalid */
    ft_json_strn(&j, "nul\0byte", 8);
    uint8_t bytes[] = {0x00, 0xab, 0xff};
    ft_json_bytes_hex(&j, bytes, 3);
    ft_json_end_array(&j);
    fclose(f);
    assert_string_equal(out,
        "[\"q\\\"b\\\\n\\n\\t\\u0001\",\"caf\xc3\xa9 \xe2\x82\xac\","
        "\"bad\\ufffd\\ufffd(\",\"\\ufffd\\ufffd\\ufffd\","
        "\"nul\\u0000byte\",\"00abff\"]");
}

/* Numbers in the fewest digits that read back exactly. */
static void test_shortest_numbers(void **state)
{
    (void)state;
    FILE *f = open_out();
    ft_json j;
    ft_json_init(&j, f);
    ft_json_begin_array(&j);
    ft_json_double(&j, 0.1);
    ft_json_double(&j, 1.0 / 3);
    ft_json_double(&j, 5.0);
    ft_json_double(&j, 1e300);
    ft_json_float(&j, 4.489e-05f);
    ft_json_float(&j, 0.1f);
    ft_json_float(&j, 16777217.0f); /* 2^24 + 1: the float 16777216 */
    ft_json_float(&j, INFINITY);
    ft_json_end_array(&j);
    fclose(f);
    assert_string_equal(out, "[0.1,0.3333333333333333,5,1e+300,4.489e-05,"
                             "0.1,16777216,null]");
    /* every text reads back as the value written */
    double vals[] = {0.1, 2.0 / 3, 123456.789, 1e-7, 6.02214076e23};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        f = open_out();
        ft_json_init(&j, f);
        ft_json_double(&j, vals[i]);
        fclose(f);
        assert_true(strtod(out, NULL) == vals[i]);
        f = open_out();
        ft_json_init(&j, f);
        ft_json_float(&j, (float)vals[i]);
        fclose(f);
        assert_true((float)strtod(out, NULL) == (float)vals[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_commas),
        cmocka_unit_test(test_string_escaping),
        cmocka_unit_test(test_shortest_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* test_suppress.c - the suppressions file (predict/suppress.c): TSan's
 * pattern semantics checked against an independent oracle, fnmatch(3)
 * (a substring match is fnmatch of "*P*", '^' and '$' drop a side), on
 * 20,000 random patterns and texts; rules matching by function, file,
 * module and line ranges, kinds and their aliases, hit counts; and every
 * malformed file refused with its line. */
#include "predict/predict.h"

#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* The oracle: fnmatch over the pattern made whole-string. */
static int oracle(const char *pat, const char *text)
{
    if (!*text)
        return 0;
    size_t n = strlen(pat);
    int start = n && pat[0] == '^';
    int end = n > (size_t)start && pat[n - 1] == '$';
    char full[128];
    snprintf(full, sizeof full, "%s%.*s%s", start ? "" : "*",
             (int)(n - start - end), pat + start, end ? "" : "*");
    return fnmatch(full, text, 0) == 0;
}

static void random_patterns_agree_with_fnmatch(void **state)
{
    (void)state;
    static const char alpha[] = "ab*./";
    unsigned matched = 0;
    for (int c = 0; c < 20000; c++) {
        char pat[16], text[16];
        unsigned pn = rnd(7), tn = rnd(10), k = 0;
        if (rnd(4) == 0)
            pat[k++] = '^';
        for (unsigned i = 0; i < pn; i++)
            pat[k++] = alpha[rnd(5)];
        if (rnd(4) == 0)
            pat[k++] = '$';
        pat[k] = 0;
        for (unsigned i = 0; i < tn; i++)
            text[i] = alpha[rnd(5) == 2 ? 0 : rnd(5)]; /* few '*' in text */
        text[tn] = 0;
        int want = oracle(pat, text), got = ft_suppress_pattern_match(pat, text);
        if (want != got)
            fail_msg("pattern '%s' text '%s': fnmatch says %d, we say %d", pat,
                     text, want, got);
        matched += (unsigned)got;
    }
    /* both outcomes are exercised */
    assert_true(matched > 2000 && matched < 18000);
}

static ft_suppressions *parse(const char *text, ft_error *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    ft_suppressions *s = NULL;
    int rc = ft_suppressions_read_file(f, "supp.txt", &s, err);
    fclose(f);
    return rc == 0 ? s : NULL;
}

static void rules_match_function_file_module_and_lines(void **state)
{
    (void)state;
    ft_error err;
    ft_suppressions *s = parse(
        "# comment line\n"
        "\n"
        "  race:^update_stats$   # TSan's name for data races\n"
        "atomicity:src/vendor/*\n"
        "deadlock:libthird.so\n"
        "order:pool.c:100-140\n"
        "use-after-free:queue.c:77\n"
        "*:ns::Cache::get\n",
        &err);
    assert_non_null(s);
    assert_int_equal(ft_suppressions_count(s), 6);
    ft_supp_frame upd = {"update_stats", "/w/stats.c", "app", 12};
    ft_supp_frame upd2 = {"update_stats_all", "/w/stats.c", "app", 12};
    ft_supp_frame vendor = {"f", "/w/src/vendor/z.c", "app", 3};
    ft_supp_frame lib = {"g", "/usr/include/x.h", "libthird.so", 0};
    ft_supp_frame pool = {"h", "/w/pool.c", "app", 120};
    ft_supp_frame pool_out = {"h", "/w/pool.c", "app", 141};
    ft_supp_frame q = {"h", "/w/queue.c", "app", 77};
    ft_supp_frame cache = {"ns::Cache::get(int)", "/w/c.cc", "app", 1};
    assert_int_equal(ft_suppressions_match(s, "data-race", &upd, 1), 0);
    assert_int_equal(ft_suppressions_match(s, "data-race", &upd2, 1), -1);
    assert_int_equal(ft_suppressions_match(s, "deadlock", &upd, 1), -1);
    /* atomicity covers CMA's pairs too */
    assert_int_equal(ft_suppressions_match(s, "atomicity-pair", &vendor, 1),
                     1);
    assert_int_equal(ft_suppressions_match(s, "order", &vendor, 1), -1);
    assert_int_equal(ft_suppressions_match(s, "deadlock", &lib, 1), 2);
    assert_int_equal(ft_suppressions_match(s, "order", &pool, 1), 3);
    assert_int_equal(ft_suppressions_match(s, "order", &pool_out, 1), -1);
    assert_int_equal(ft_suppressions_match(s, "use-after-free", &q, 1), 4);
    /* any frame of a finding: the second one here */
    ft_supp_frame two[2] = {pool_out, q};
    assert_int_equal(ft_suppressions_match(s, "use-after-free", two, 2), 4);
    assert_int_equal(ft_suppressions_match(s, "abort", &cache, 1), 5);
    /* unknown parts of a frame match nothing */
    ft_supp_frame none = {NULL, "", NULL, 0};
    assert_int_equal(ft_suppressions_match(s, "data-race", &none, 1), -1);
    uint64_t hits;
    unsigned line;
    const char *kind;
    assert_string_equal(ft_suppressions_rule(s, 0, &line, &hits, &kind),
                        "^update_stats$");
    assert_int_equal(line, 3);
    assert_int_equal(hits, 1);
    assert_string_equal(kind, "data-race");
    assert_string_equal(ft_suppressions_rule(s, 3, &line, &hits, NULL),
                        "pool.c");
    assert_int_equal(hits, 1);
    assert_int_equal(ft_suppressions_hits(s), 7);
    assert_null(ft_suppressions_rule(s, 6, NULL, NULL, NULL));
    ft_suppressions_free(s);
    assert_int_equal(ft_suppressions_match(NULL, "order", &pool, 1), -1);
}

static void bad_files_name_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"race:x\nracee:y\n", "line 2: unknown kind 'racee'"},
        {"just_a_function\n", "line 1: expected KIND:PATTERN"},
        {"\n\ndeadlock:   \n", "line 3: the rule for 'deadlock' has no pattern"},
        {"order:a.c:40-12\n", "line 1: the line range of 'a.c' ends before"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ft_error err;
        memset(&err, 0, sizeof err);
        assert_null(parse(bad[i].text, &err));
        if (!strstr(err.message, bad[i].want))
            fail_msg("'%s': got '%s', want '%s'", bad[i].text, err.message,
                     bad[i].want);
        assert_string_equal(err.path, "supp.txt");
    }
    /* a NUL byte, a line too long */
    ft_error err;
    char nul[] = "race:a\0b\n";
    FILE *f = fmemopen(nul, sizeof nul - 1, "r");
    ft_suppressions *s = NULL;
    assert_int_equal(ft_suppressions_read_file(f, "n.txt", &s, &err), -1);
    fclose(f);
    assert_non_null(strstr(err.message, "NUL"));
    char *lng = malloc(10000);
    memset(lng, 'a', 9998);
    memcpy(lng, "race:", 5);
    lng[9998] = '\n';
    lng[9999] = 0;
    assert_null(parse(lng, &err));
    assert_non_null(strstr(err.message, "line 1: line too long"));
    free(lng);
    /* a missing file */
    assert_int_equal(ft_suppressions_read("/nonexistent/supp", &s, &err), -1);
    assert_null(s);
    /* an empty file is no rule */
    s = parse("# nothing\n", &err);
    assert_non_null(s);
    assert_int_equal(ft_suppressions_count(s), 0);
    ft_suppressions_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_patterns_agree_with_fnmatch),
        cmocka_unit_test(rules_match_function_file_module_and_lines),
        cmocka_unit_test(bad_files_name_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

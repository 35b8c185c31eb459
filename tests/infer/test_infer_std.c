/* SPDX-License-Identifier: MIT */
/* test_infer_std.c - RAPID STD import and export: round trips on generated
 * traces keep every event (names, locations, values), errors name the line,
 * and begin/end become user-stated regions. */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static int read_text(fi_trace *t, const char *text, ft_error *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    int rc = fi_std_read(t, f, "test.std", err);
    fclose(f);
    return rc;
}

static char *write_text(const fi_trace *t, int values)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(fi_std_write(t, f, values) >= 0);
    fclose(f);
    return buf;
}

/* A random well-formed STD trace: forks before a child's events, joins
 * after, balanced acq/rel, begin/end pairs, mixed location styles. */
static char *gen_std(uint64_t *seed, int values)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    static const char *vars[] = {"x", "y", "obj.field", "V7"};
    static const char *locks[] = {"L0", "mutex_a"};
    int started[4] = {1}, held[4] = {-1, -1, -1, -1}, open_r[4] = {0};
    int nstarted = 1;
    unsigned n = 5 + rnd_below(seed, 60);
    for (unsigned i = 0; i < n; i++) {
        unsigned t = rnd_below(seed, (unsigned)nstarted);
        unsigned c = rnd_below(seed, 10);
        char loc[64];
        switch (rnd_below(seed, 3)) {
        case 0: snprintf(loc, sizeof loc, "%u", rnd_below(seed, 500)); break;
        case 1: snprintf(loc, sizeof loc, "src/m%u.c:%u", t,
                         1 + rnd_below(seed, 90)); break;
        default: snprintf(loc, sizeof loc, "pc_%u", rnd_below(seed, 9));
        }
        if (c == 0 && nstarted < 4) {
            fprintf(f, "T%u|fork(T%d)|%s\n", t, nstarted, loc);
            started[nstarted++] = 1;
        } else if (c == 1) {
            if (held[t] < 0) {
                held[t] = (int)rnd_below(seed, 2);
                fprintf(f, "T%u|acq(%s)|%s\n", t, locks[held[t]], loc);
            } else {
                fprintf(f, "T%u|rel(%s)|%s\n", t, locks[held[t]], loc);
                held[t] = -1;
            }
        } else if (c == 2) {
            fprintf(f, "T%u|%s(0)|%s\n", t, open_r[t] ? "end" : "begin",
                    loc);
            open_r[t] = !open_r[t];
        } else {
            const char *v = vars[rnd_below(seed, 4)];
            if (values)
                fprintf(f, "T%u|%s(%s)|%s|%u\n", t, c < 6 ? "r" : "w", v,
                        loc, rnd_below(seed, 1000));
            else
                fprintf(f, "T%u|%s(%s)|%s\n", t, c < 6 ? "r" : "w", v, loc);
        }
    }
    fclose(f);
    (void)started;
    return buf;
}

static void round_trips(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int c = 0; c < 2000; c++) {
        int values = c & 1;
        char *text = gen_std(&seed, values);
        fi_trace t;
        fi_trace_init(&t);
        ft_error err;
        if (read_text(&t, text, &err) != 0)
            fail_msg("case %d: %s", c, err.message);
        char *back = write_text(&t, values);
        if (strcmp(text, back) != 0)
            fail_msg("case %d differs:\n%s\n---\n%s", c, text, back);
        /* And once more through a second import. */
        fi_trace t2;
        fi_trace_init(&t2);
        assert_int_equal(read_text(&t2, back, &err), 0);
        assert_int_equal(t.nev, t2.nev);
        free(text);
        free(back);
        fi_trace_free(&t);
        fi_trace_free(&t2);
    }
}

static void import_meaning(void **state)
{
    (void)state;
    static const char text[] = "# comment\n"
                               "\n"
                               "main|fork(w1)|a.c:3\n"
                               "w1|acq(m)|b.c:10\n"
                               "w1 | w(count) | b.c:11 | 42\n"
                               "w1|rel(m)|b.c:12\n"
                               "main|join(w1)|a.c:4\n"
                               "main|r(count)|77|42\n";
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    assert_int_equal(read_text(&t, text, &err), 0);
    /* main: START, CREATE; w1: START, LOCK, WRITE, UNLOCK; main: JOIN,
     * READ */
    assert_int_equal(t.nev, 8);
    assert_int_equal(t.nthreads, 2);
    assert_int_equal(t.ev[0].kind, FT_EV_THREAD_START);
    assert_int_equal(t.ev[1].kind, FT_EV_THREAD_CREATE);
    assert_int_equal(t.ev[1].value, 1);
    assert_int_equal(t.ev[2].kind, FT_EV_THREAD_START);
    assert_int_equal(t.ev[2].tid, 1);
    assert_int_equal(t.ev[2].value, 0); /* parent */
    assert_int_equal(t.ev[4].kind, FT_EV_WRITE);
    assert_int_equal(t.ev[4].value, 42);
    assert_int_equal(t.ev[7].addr, t.ev[4].addr);
    const ft_site *s = fi_trace_site_get(&t, t.ev[4].site);
    assert_string_equal(s->file, "b.c");
    assert_int_equal(s->line, 11);
    s = fi_trace_site_get(&t, t.ev[7].site);
    assert_null(s->file);
    assert_int_equal(s->line, 77);
    assert_string_equal(fi_trace_name_of(&t, 'T', 1), "w1");
    assert_string_equal(fi_trace_name_of(&t, 'V', t.ev[4].addr), "count");
    fi_trace_free(&t);
}

static void errors_name_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"T0|r(x)|1\nT0|r(x)\n", "line 2: expected"},
        {"T0|read(x)|1\n", "line 1: unknown operation \"read\""},
        {"T0|r(x|1\n", "line 1: unclosed"},
        {"T0|r()|1\n", "line 1: operation \"r\" needs"},
        {"\n\nT0|acq(l)|1|5\n", "line 3: a value field"},
        {"T0|w(x)|1|five\n", "line 1: bad value"},
        {"T0|fork(T0)|1\n", "line 1: thread T0 forks"},
        {"|r(x)|1\n", "line 1: empty thread"},
        {"T0|r(x)|1|2|3|4\n", "line 1: too many"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fi_trace t;
        fi_trace_init(&t);
        ft_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(read_text(&t, cases[i].text, &err), -1);
        assert_string_equal(err.path, "test.std");
        if (!strstr(err.message, cases[i].want))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message,
                     cases[i].want);
        fi_trace_free(&t);
    }
    /* Overlong lines are refused, not allocated. */
    size_t n = 70000;
    char *big = malloc(n + 16);
    memcpy(big, "T0|r(", 5);
    memset(big + 5, 'a', n);
    strcpy(big + 5 + n, ")|1\n");
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    assert_int_equal(read_text(&t, big, &err), -1);
    assert_non_null(strstr(err.message, "line 1: line longer"));
    fi_trace_free(&t);
    free(big);
}

/* begin/end give annotated regions; the classic lost update is observed. */
static void begin_end_regions(void **state)
{
    (void)state;
    static const char text[] = "T0|begin(0)|1\n"
                               "T0|r(bal)|2\n"
                               "T1|w(bal)|9\n"
                               "T0|w(bal)|3\n"
                               "T0|end(0)|4\n"
                               "T0|begin(0)|5\n"
                               "T0|r(bal)|6\n"
                               "T0|end(0)|7\n";
    fi_trace t;
    fi_trace_init(&t);
    ft_error err;
    assert_int_equal(read_text(&t, text, &err), 0);
    fi_options o;
    fi_options_default(&o);
    o.infer = 0;
    fi_analysis a;
    assert_int_equal(fi_analyze(&a, &t, &o), 0);
    assert_int_equal(a.nregions, 2);
    assert_int_equal(a.regions[0].source, FI_SRC_ANNOTATED);
    assert_int_equal(a.regions[0].status, FI_ST_OBSERVED);
    assert_int_equal(a.regions[1].status, FI_ST_PROVED);
    assert_int_equal(a.regions[1].proof, FI_PROOF_SINGLE);
    fi_analysis_free(&a);
    fi_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(import_meaning),
        cmocka_unit_test(errors_name_the_line),
        cmocka_unit_test(begin_end_regions),
        cmocka_unit_test(round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

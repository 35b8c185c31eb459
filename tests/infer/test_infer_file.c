/* SPDX-License-Identifier: MIT */
/* test_infer_file.c - STD text -> fi_trace -> foretell trace file (writer)
 * -> fi_trace (reader) -> STD text gives the same text back, and the
 * analysis of the reloaded trace finds the same regions as the analysis of
 * the imported one; fi_trace's compact events give back every field. */
#include "helpers.h"
#include "../unit/fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static const char *dir = ".";

static char *std_text(const fi_trace *t, int values)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(fi_std_write(t, f, values) >= 0);
    fclose(f);
    return buf;
}

static void through_file(void **state)
{
    (void)state;
    static const char text[] =
        "T0|fork(T1)|main.c:10\n"
        "T0|begin(0)|main.c:11\n"
        "T0|acq(L0)|main.c:12\n"
        "T0|r(x)|main.c:13|5\n"
        "T1|acq(L0)|worker.c:3\n"
        "T1|w(x)|worker.c:4|6\n"
        "T1|rel(L0)|worker.c:5\n"
        "T0|w(x)|main.c:14|7\n"
        "T0|rel(L0)|main.c:15\n"
        "T0|end(0)|main.c:16\n"
        "T0|join(T1)|main.c:17\n";
    fi_trace a, b;
    fi_trace_init(&a);
    fi_trace_init(&b);
    FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
    ft_error err;
    assert_int_equal(fi_std_read(&a, in, "mem", &err), 0);
    fclose(in);
    char path[512];
    snprintf(path, sizeof path, "%s/infer_roundtrip.ftr", dir);
    assert_int_equal(fi_trace_save(&a, path, &err), 0);
    int rc = fi_trace_load(&b, path, &err);
    if (rc != 0)
        fail_msg("load: %s at %llu: %s", err.path,
                 (unsigned long long)err.offset, err.message);
    assert_int_equal(a.nev, b.nev);
    /* Names do not travel in trace files: compare with the reloaded names
     * copied over, which are keyed by address and tid. */
    for (size_t i = 0; i < a.nnames; i++)
        fi_trace_name(&b, a.names[i].ns, a.names[i].key, a.names[i].name);
    char *sa = std_text(&a, 1), *sb = std_text(&b, 1);
    assert_string_equal(sa, sb);
    assert_string_equal(sa, text);
    fi_analysis x, y;
    assert_int_equal(fi_analyze(&x, &a, NULL), 0);
    assert_int_equal(fi_analyze(&y, &b, NULL), 0);
    assert_int_equal(x.nregions, y.nregions);
    for (size_t k = 0; k < x.nregions; k++) {
        assert_int_equal(x.regions[k].first, y.regions[k].first);
        assert_int_equal(x.regions[k].status, y.regions[k].status);
    }
    /* The annotated region is interrupted by T1's write: observed. */
    assert_true(x.nregions >= 1);
    int observed = 0;
    for (size_t k = 0; k < x.nregions; k++)
        observed += x.regions[k].source == FI_SRC_ANNOTATED &&
                    x.regions[k].status == FI_ST_OBSERVED;
    assert_int_equal(observed, 1);
    fi_analysis_free(&x);
    fi_analysis_free(&y);
    free(sa);
    free(sb);
    fi_trace_free(&a);
    fi_trace_free(&b);
    remove(path);
}

/* fi_trace keeps compact events (fi_event) with the rare fields in a side
 * table: every field of every kind comes back from fi_trace_get, in
 * memory and through a trace file, and events without rare fields read
 * zeros from fi_trace_extra. */
static void compact_events(void **state)
{
    (void)state;
    static const ft_event in[] = {
        {.kind = FT_EV_THREAD_START},
        {.kind = FT_EV_MUTEX_LOCK, .site = 1, .addr = 0x1000, .rc = 16,
         .arg = FT_HOW_TRY},
        {.kind = FT_EV_COND_WAIT, .site = 1, .addr = 0x2000, .obj2 = 0x1000},
        {.kind = FT_EV_ATOMIC_CAS, .site = 1, .addr = 0x3000, .size = 8,
         .mo = 5, .value = 1, .value2 = 2, .value3 = 0xffffffffffffffffull,
         .arg = 1},
        {.kind = FT_EV_WRITE, .site = 1, .addr = 0x3008, .size = 4,
         .value = 42},
        {.kind = FT_EV_MALLOC, .site = 1, .addr = 0x4000, .value = 64,
         .value2 = 3},
        {.kind = FT_EV_REALLOC, .site = 1, .obj2 = 0x4000, .addr = 0x5000,
         .value = 128, .value2 = 1},
        /* return codes beyond int16_t go to the side table */
        {.kind = FT_EV_MUTEX_UNLOCK, .site = 1, .addr = 0x1000, .rc = 70000},
        {.kind = FT_EV_MUTEX_UNLOCK, .site = 1, .addr = 0x1000,
         .rc = INT16_MIN},
        {.kind = FT_EV_MUTEX_UNLOCK, .site = 1, .addr = 0x1000,
         .rc = INT16_MAX},
        {.kind = FT_EV_MUTEX_UNLOCK, .site = 1, .addr = 0x1000, .rc = -5},
        {.kind = FT_EV_THREAD_EXIT, .tid = 1023},
    };
    size_t n = sizeof in / sizeof *in;
    fi_trace a, b;
    fi_trace_init(&a);
    fi_trace_init(&b);
    assert_int_not_equal(fi_trace_site(&a, "main", "main.c", 3), 0);
    for (size_t i = 0; i < n; i++) {
        ft_event e = in[i];
        e.index = 1000 + i; /* the trace's position wins */
        assert_int_equal(fi_trace_add(&a, &e), 0);
    }
    assert_int_equal(a.nev, n);
    /* CAS, COND_WAIT, MALLOC, REALLOC, the two wide return codes */
    assert_int_equal(a.nextra, 6);
    for (size_t i = 0; i < n; i++) /* the analysis reads rc == 0 */
        assert_int_equal(a.ev[i].rc == 0, in[i].rc == 0);
    /* more threads or kinds than fi_event holds: refused, not cut */
    ft_event big = {.kind = FT_EV_WRITE, .tid = 70000};
    assert_int_equal(fi_trace_add(&a, &big), -1);
    big = (ft_event){.kind = 300};
    assert_int_equal(fi_trace_add(&a, &big), -1);
    assert_int_equal(a.nev, n);
    fi_trace_shrink(&a);
    assert_int_equal(a.capev, n);
    char path[512];
    ft_error err;
    snprintf(path, sizeof path, "%s/infer_compact.ftr", dir);
    assert_int_equal(fi_trace_save(&a, path, &err), 0);
    int rc = fi_trace_load(&b, path, &err);
    if (rc != 0)
        fail_msg("load: %s: %s", err.path, err.message);
    assert_int_equal(b.nev, n);
    for (size_t i = 0; i < n; i++) {
        ft_event want = in[i], got, back;
        want.index = i;
        fi_trace_get(&a, i, &got);
        fi_trace_get(&b, i, &back);
        fx_assert_event_eq(&want, &got);
        fx_assert_event_eq(&want, &back);
        assert_int_equal(got.index, i);
        assert_int_equal(back.index, i);
        assert_null(got.bytes);
        assert_int_equal(fi_ev_index(&a, &a.ev[i]), i);
        assert_int_equal(fi_ev_obj2(&a, &a.ev[i]), in[i].obj2);
    }
    const fi_extra *none = fi_trace_extra(&a, 4); /* the WRITE */
    assert_int_equal(none->obj2 | none->value2 | none->value3, 0);
    assert_int_equal(fi_trace_extra(&a, n + 5)->value2, 0); /* past end */
    fi_trace_free(&a);
    fi_trace_free(&b);
    remove(path);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(through_file),
                                       cmocka_unit_test(compact_events)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

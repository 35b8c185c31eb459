/* SPDX-License-Identifier: MIT */
/* test_schedule_stream.c - the schedules analyze writes are made step by
 * step as they are written (ft_schedule_save_result: a window's witness
 * holds the recorded prefix, 10^5 steps of a 10^6-event trace), and must
 * be byte for byte the file of the whole schedule made in memory
 * (ft_schedule_from_result, ft_schedule_write), which replay and the
 * findings read.  On random traces (tests/model/gen.c), for every
 * violated atomicity property and kind candidate, its witness alone and
 * with a recorded prefix in front. */
#include "predict/kind.h"
#include "../model/gen.h"
#include "stdtrace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

/* The whole schedule s, as ft_schedule_write writes it. */
static char *written(const ft_schedule *s, size_t *n)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(ft_schedule_write(f, s), 0);
    long len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    char *buf = malloc((size_t)len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void same(const char *streamed_path, const ft_schedule *whole,
                 const char *what)
{
    size_t na, nb;
    char *a = slurp(streamed_path, &na), *b = written(whole, &nb);
    if (na != nb || memcmp(a, b, na) != 0)
        fail_msg("%s: the streamed schedule (%zu bytes) is not the whole "
                 "one (%zu bytes)", what, na, nb);
    free(a);
    free(b);
}

static unsigned check_atomicity(const ft_pipeline *pl, const char *dir)
{
    unsigned n = 0;
    char path[512], err[512];
    for (size_t i = 0; i < pl->nprops; i++) {
        const ft_presult *r = &pl->results[i];
        if (r->verdict != FT_VIOLATED)
            continue;
        assert_int_equal(ft_pipeline_write_schedule(pl, i, dir, path,
                                                    sizeof path, err,
                                                    sizeof err), 0);
        ft_schedule s;
        assert_int_equal(ft_schedule_from_result(&s, pl->ctm, &pl->info,
                                                 &pl->props[i], r), 0);
        same(path, &s, "atomicity");
        ft_schedule_free(&s);
        unlink(path);
        /* behind a recorded prefix, as a window's witness is */
        ft_presult w = *r;
        w.prefix = pl->ctm->ntrans < 5 ? pl->ctm->ntrans : 5;
        ft_schedule head;
        assert_int_equal(ft_schedule_head_from_result(&head, pl->ctm,
                                                      &pl->info,
                                                      &pl->props[i], &w), 0);
        assert_int_equal(ft_schedule_save_result(&head, pl->ctm, &pl->info,
                                                 &w, path, err, sizeof err),
                         0);
        assert_int_equal(ft_schedule_from_result(&s, pl->ctm, &pl->info,
                                                 &pl->props[i], &w), 0);
        assert_int_equal(s.nsteps, w.prefix + r->nsteps);
        same(path, &s, "atomicity with a prefix");
        ft_schedule_free(&s);
        unlink(path);
        if (ft_pipeline_write_alt_schedule(pl, i, dir, path, sizeof path,
                                           err, sizeof err) == 1)
            unlink(path);
        n++;
    }
    return n;
}

static unsigned check_kinds(const ft_pipeline *pl, const char *dir)
{
    unsigned n = 0;
    char path[512], err[512];
    for (size_t i = 0; i < pl->nkprops; i++) {
        const ft_presult *r = &pl->kresults[i];
        if (r->verdict != FT_VIOLATED)
            continue;
        assert_int_equal(ft_pipeline_write_kind_schedule(pl, i, dir, path,
                                                         sizeof path, err,
                                                         sizeof err), 0);
        ft_schedule s;
        assert_int_equal(ft_pipeline_kind_schedule(pl, i, r, &s), 0);
        same(path, &s, "kind");
        ft_schedule_free(&s);
        unlink(path);
        if (ft_pipeline_write_kind_alt(pl, i, dir, path, sizeof path, err,
                                       sizeof err) == 1)
            unlink(path);
        n++;
    }
    return n;
}

static void test_streamed_is_whole(void **state)
{
    (void)state;
    char path[64], dir[64];
    snprintf(path, sizeof path, "/tmp/ft_sched_stream_%d.ftrace",
             (int)getpid());
    snprintf(dir, sizeof dir, "/tmp/ft_sched_stream_%d.d", (int)getpid());
    unsigned natom = 0, nkind = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        gen_params gp;
        gen_small_params(seed, &gp);
        gp.sync_heavy = seed % 2;
        evbuf b = {0};
        gen_run(seed, &gp, &b);
        assert_int_equal(trace_write(path, &b), 0);
        evbuf_free(&b);
        ft_pipeline pl;
        ft_predict_opts po;
        ft_predict_opts_default(&po);
        po.timeout_ms = 20000;
        assert_int_equal(ft_test_pipeline_run(&pl, path, NULL, &po), 0);
        uint32_t mask = 0;
        for (unsigned k = 0; k < ft_npkinds; k++)
            mask |= 1u << ft_pkinds[k]->kind;
        assert_int_equal(ft_pipeline_kind_candidates(&pl, mask, 0), 0);
        assert_true(ft_pipeline_predict_kinds(&pl, &po) >= 0);
        natom += check_atomicity(&pl, dir);
        nkind += check_kinds(&pl, dir);
        ft_pipeline_free(&pl);
    }
    unlink(path);
    rmdir(dir);
    /* the comparison had witnesses of both */
    assert_true(natom > 0);
    assert_true(nkind > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed_is_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

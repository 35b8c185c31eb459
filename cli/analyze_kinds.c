/* SPDX-License-Identifier: MIT */
/* analyze_kinds.c - the property kinds in `foretell analyze` (predict/
 * kind.h): which ones run (--kinds), making and solving their candidates,
 * writing their schedules, and replaying them.  Also where analyze finds
 * the program to replay when none is given after --: the one the trace
 * recorded, if that binary is still the build the trace was made from
 * (the main module's build id), so that findings are confirmed by
 * default and reported "predicted, unconfirmed" only without it. */
#include "cli/analyze_cmd.h"
#include "cli/commands.h"
#include "predict/kind.h"
#include "replay/confirm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void analyze_free_argv(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char **analyze_recorded_program(const char *trace, char *why, size_t len)
{
    ft_error err;
    ft_reader *r = ft_reader_open(trace, &err);
    if (!r) {
        snprintf(why, len, "the trace names no program");
        return NULL;
    }
    const ft_header *h = ft_reader_header(r);
    const char *exe = h->nmodules > 0 && h->modules[0].path
                          ? h->modules[0].path
                          : h->program;
    char **argv = NULL;
    if (!exe || !exe[0]) {
        snprintf(why, len, "the trace names no program");
    } else if (access(exe, X_OK) != 0) {
        snprintf(why, len, "the recorded program %.400s is not here", exe);
    } else if (fr_check_binary(trace, exe, NULL) != 1) {
        snprintf(why, len, "%.400s is not the build the trace recorded",
                 exe);
    } else if ((argv = calloc((size_t)h->argc + 2, sizeof *argv))) {
        int ok = (argv[0] = strdup(exe)) != NULL;
        for (uint32_t i = 1; ok && i < h->argc; i++)
            ok = (argv[i] = strdup(h->argv[i] ? h->argv[i] : "")) != NULL;
        if (!ok) {
            analyze_free_argv(argv);
            argv = NULL;
            snprintf(why, len, "out of memory");
        }
    }
    ft_reader_close(r);
    return argv;
}

int analyze_kinds(analyze_out *ao, ft_pipeline *pl, const char *dir)
{
    ao->kschedule = calloc(pl->nkprops + 1, sizeof *ao->kschedule);
    ao->kalt = calloc(pl->nkprops + 1, sizeof *ao->kalt);
    if (!ao->kschedule || !ao->kalt) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return FT_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < pl->nkprops; i++) {
        if (pl->kresults[i].verdict != FT_VIOLATED)
            continue;
        char path[4096], msg[4200];
        if (ft_pipeline_write_kind_schedule(pl, i, dir, path, sizeof path,
                                            msg, sizeof msg) < 0) {
            fprintf(stderr, "foretell analyze: error: %s\n", msg);
            return FT_EXIT_INTERNAL;
        }
        ao->kschedule[i] = strdup(path);
        int alt = ft_pipeline_write_kind_alt(pl, i, dir, path, sizeof path,
                                             msg, sizeof msg);
        if (alt < 0) {
            fprintf(stderr, "foretell analyze: error: %s\n", msg);
            return FT_EXIT_INTERNAL;
        }
        if (alt > 0)
            ao->kalt[i] = strdup(path);
    }
    return FT_EXIT_OK;
}

int analyze_confirm_kinds(analyze_out *ao, const analyze_confirm_opts *co)
{
    const ft_pipeline *pl = ao->pl;
    ao->kconfirm = calloc(pl->nkprops + 1, sizeof *ao->kconfirm);
    if (!ao->kconfirm) {
        fprintf(stderr, "foretell analyze: out of memory\n");
        return FT_EXIT_INTERNAL;
    }
    fr_confirm_opts o;
    analyze_confirm_opts_fill(&o, co);
    o.tails = 0; /* every witness first (analyze_tails_in_turns) */
    size_t total = 0;
    for (size_t i = 0; i < pl->nkprops; i++)
        total += ao->kschedule && ao->kschedule[i] != NULL;
    analyze_talk_begin(co->talk, "replaying findings", total);
    size_t left = total;
    for (size_t i = 0; i < pl->nkprops && total; i++) {
        if (!ao->kschedule[i] || analyze_confirm_skip(&o, &ao->kconfirm[i]))
            continue;
        analyze_share_time(&o, left--);
        analyze_talk_replay(co->talk, ao->kschedule[i]);
        ft_error err;
        errno = 0;
        if (fr_confirm_kind(pl, i, ao->kschedule[i], ao->kalt[i], &o,
                            &ao->kconfirm[i], &err) < 0)
            return analyze_replay_failed(&ao->kconfirm[i], &err, errno,
                                         co->talk);
    }
    analyze_talk_end(co->talk);
    return FT_EXIT_OK;
}

size_t analyze_kind_bugs(const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    size_t n = 0;
    for (size_t i = 0; i < pl->nkprops; i++) {
        if (pl->kresults[i].verdict != FT_VIOLATED)
            continue;
        if (!ao->kconfirm) {
            n++;
            continue;
        }
        const fr_confirmation *c = &ao->kconfirm[i];
        const ft_pkind *k = ft_pkind_of(pl->kprops[i].kind);
        int reached = c->status == FR_CONFIRMED ||
                      c->status == FR_FAILED_EARLY;
        n += reached && (!k || k->expect != FT_EXPECT_FOLLOWED ||
                         (c->outcome.failure != FR_OK &&
                          c->outcome.failure != FR_UNFINISHED));
    }
    return n;
}

size_t analyze_not_replayed(const analyze_out *ao)
{
    const ft_pipeline *pl = ao->pl;
    size_t n = 0;
    for (size_t i = 0; ao->confirm && i < pl->nprops; i++)
        n += ao->schedule[i] && ao->confirm[i].status == FR_NOT_RUN;
    for (size_t i = 0; ao->kconfirm && i < pl->nkprops; i++)
        n += pl->kresults[i].verdict == FT_VIOLATED &&
             ao->kconfirm[i].status == FR_NOT_RUN;
    return n;
}

size_t analyze_unrefined(const analyze_out *ao)
{
    size_t n = 0;
    for (size_t i = 0; ao->confirm && i < ao->pl->nprops; i++)
        n += ao->schedule[i] && ao->confirm[i].status == FR_SPURIOUS &&
             ao->confirm[i].refine_cut;
    return n;
}

void analyze_free_kinds(analyze_out *ao)
{
    for (size_t i = 0; ao->pl && i < ao->pl->nkprops; i++) {
        if (ao->kschedule)
            free(ao->kschedule[i]);
        if (ao->kalt)
            free(ao->kalt[i]);
    }
    free(ao->kschedule);
    free(ao->kalt);
    free(ao->kconfirm);
    ao->kschedule = ao->kalt = NULL;
    ao->kconfirm = NULL;
}

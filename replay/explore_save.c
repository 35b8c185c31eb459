/* SPDX-License-Identifier: MIT */
/* explore_save.c - the schedule of an explored run, from its trace: the
 * replay harness's fr_schedule_from_trace (one step per maximal run of a
 * thread's events, docs/schedule-format.md), written with the strategy
 * spec that produced the run in its property line, so that `foretell
 * replay --schedule` repeats the failure.  A hung run's schedule is
 * what its trace holds up to where it was stopped; a killed run's trace
 * damaged beyond that gives no schedule (the spec file still reproduces
 * it).  Written as every schedule is (ft_schedule_save): whole or not at
 * all. */
#define _GNU_SOURCE
#include "predict/predict.h"
#include "replay/explore.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int fx_schedule_from_trace(const char *trace, const char *path,
                           const char *note, int hung, ft_error *err)
{
    ft_schedule s;
    /* A hung run stopped by SIGKILL lost its last chunk: what was written
     * still says how the threads got to where they hung. */
    if ((hung ? fr_schedule_from_prefix(trace, &s, err)
              : fr_schedule_from_trace(trace, &s, err)) < 0)
        return -1;
    /* The SIGTERM that stopped a hung run is the harness's, not a step. */
    if (hung && s.nsteps && strcmp(s.steps[s.nsteps - 1].kind, "signal") == 0)
        s.nsteps--;
    snprintf(s.property, sizeof s.property, "explored run: %s", note ? note : "");
    char msg[sizeof err->message];
    int rc = ft_schedule_save(&s, path, msg, sizeof msg);
    if (rc < 0) {
        snprintf(err->path, sizeof err->path, "%s", path);
        snprintf(err->message, sizeof err->message, "%s", msg);
        err->offset = UINT64_MAX; /* a write failed, not the trace */
    }
    ft_schedule_free(&s);
    return rc;
}

/* report.h - the report channel from the runtime (recorder/rt/report.c) to
 * the harness that started the program (replay/report.c): one shared page.
 *
 * An exit status cannot say "the runtime refused this run": the program
 * may exit with any status, 84 included.  So the harness creates a small
 * anonymous file (memfd), passes its descriptor number in
 * FORETELL_REPORT_FD, and the runtime maps it at init, closes the
 * descriptor (the program's own descriptors are numbered as without us)
 * and removes the variable (programs it runs do not inherit it).  Through
 * the page the runtime tells the harness:
 *   - that it is there at all (magic: a program without it was not built
 *     with foretell-cc);
 *   - that it refused the run, with the status it exits with and the
 *     reason, "FILE:LINE: what" when a file is to blame;
 *   - how the run progresses (key points, CPU time, thread states),
 *     refreshed by the watchdog's tick, so that a slow run is told apart
 *     from a hung one.
 * A program cannot write there by accident.  docs/replay.md describes it.
 */
#ifndef FORETELL_REPORT_H
#define FORETELL_REPORT_H

#include <stdint.h>

#define FT_REPORT_ENV "FORETELL_REPORT_FD"
#define FT_REPORT_MAGIC 0x50525446u /* "FTRP" */
#define FT_REPORT_VERSION 1u
#define FT_REPORT_SIZE 4096u

/* The statuses the runtime exits with.  The trace says the same for the
 * first three (END reason, DEADLOCK/DIVERGE events); the refusals (the
 * runtime will not run the program at all, so there is no trace) are on
 * the page, since the program may exit with any of these numbers too. */
#define FT_DEADLOCK_STATUS 86     /* a deadlocked run */
#define FT_DIVERGED_STATUS 83     /* replay left its schedule (stop) */
#define FT_MAX_STEPS_STATUS 82    /* FORETELL_MAX_STEPS key points reached */
#define FT_OPEN_FAIL_STATUS 85    /* refused: the trace cannot be written */
#define FT_BAD_STRATEGY_STATUS 84 /* refused: FORETELL_STRATEGY malformed */
#define FT_BAD_SCHEDULE_STATUS 81 /* refused: FORETELL_SCHEDULE unreadable
                                     or malformed */

typedef struct ft_report_page {
    uint32_t magic;        /* FT_REPORT_MAGIC once the runtime started */
    uint32_t version;      /* FT_REPORT_VERSION */
    int32_t pid;           /* the process that maps it */
    int32_t refused;       /* nonzero: the runtime refused the run and
                              exits with this status (written last) */
    uint64_t ticks;        /* progress snapshots written so far */
    uint64_t keypoints;    /* key points run by all threads */
    uint64_t cpu_ns;       /* CPU time of the process */
    uint32_t threads;      /* threads created so far */
    uint32_t running;      /* threads by state at the snapshot */
    uint32_t runnable;
    uint32_t blocked;
    uint32_t outside;      /* sleeping for real, or stolen by the watchdog */
    uint32_t exited;
    char message[FT_REPORT_SIZE - 64]; /* the refusal, NUL-terminated */
} ft_report_page;

_Static_assert(sizeof(ft_report_page) == FT_REPORT_SIZE,
               "the report page is one page");

#endif

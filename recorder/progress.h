/* SPDX-License-Identifier: MIT */
/* progress.h - the progress page: what the runtime (recorder/rt/progress.c)
 * tells the harness that started the program (replay/progress.c) WHILE the
 * program runs, which the status channel cannot (docs/replay.md, "The
 * status channel"): that pipe is read once the run has ended, and carries
 * every report with a verdict in it (a refusal, a trace that could not be
 * written).  The page carries only:
 *   - presence: the runtime started at all (magic: a program without it
 *     was not built with foretell-cc), known even when the run wrote
 *     nothing;
 *   - progress: key points, CPU time, thread states, refreshed by the
 *     watchdog's tick, so that a slow run is told apart from a hung one;
 *     and whether a replay is past its schedule (its tail runs), so that
 *     the harness can bound the tail alone.
 * The harness creates a small anonymous file (memfd), passes its
 * descriptor number in FORETELL_PROGRESS_FD, and the runtime maps it at
 * init, closes the descriptor (the program's own descriptors are numbered
 * as without us) and removes the variable (programs it runs do not
 * inherit it).  A program cannot write there by accident.
 */
#ifndef FORETELL_PROGRESS_H
#define FORETELL_PROGRESS_H

#include <stdint.h>

#define FT_PROGRESS_ENV "FORETELL_PROGRESS_FD"
#define FT_PROGRESS_MAGIC 0x50525446u /* "FTRP" */
#define FT_PROGRESS_VERSION 2u /* 2: refusals moved to the status channel */
#define FT_PROGRESS_SIZE 4096u

typedef struct ft_progress_page {
    uint32_t magic;        /* FT_PROGRESS_MAGIC once the runtime started */
    uint32_t version;      /* FT_PROGRESS_VERSION */
    int32_t pid;           /* the process that maps it */
    int32_t in_tail;       /* 1 once a replay has followed its whole
                              schedule (the tail policy runs), at the
                              snapshot; 0 before, and in other runs (a
                              runtime from before 2026-11-29 leaves 0) */
    uint64_t ticks;        /* progress snapshots written so far */
    uint64_t keypoints;    /* key points run by all threads */
    uint64_t cpu_ns;       /* CPU time of the process */
    uint32_t threads;      /* threads created so far */
    uint32_t running;      /* threads by state at the snapshot */
    uint32_t runnable;
    uint32_t blocked;
    uint32_t outside;      /* sleeping for real, or stolen by the watchdog */
    uint32_t exited;
    char pad[FT_PROGRESS_SIZE - 64];
} ft_progress_page;

_Static_assert(sizeof(ft_progress_page) == FT_PROGRESS_SIZE,
               "the progress page is one page");

#endif

/* SPDX-License-Identifier: MIT */
/* rt_trace.h - what tracebuf.c (event and site chunks) and modules.c
 * (module table, header) share; the rest of the runtime uses rt.h. */
#ifndef FORETELL_RT_TRACE_H
#define FORETELL_RT_TRACE_H

#include "rt.h"

/* Seals c as a chunk of the given kind with the next sequence number and
 * writes it.  Async-signal-safe. */
void ft_tb_write_chunk(ft_chunk *c, unsigned kind);

/* ---- tbio.c: the writer thread ---- */
#define FT_IO_SLOTS 8                /* EVENTS buffers in the ring */
#define FT_EV_CAP (1u << 20)         /* bytes per EVENTS chunk */
#define FT_SITES_CAP (256u << 10)    /* bytes per SITES chunk */
/* Starts the writer thread (unless use_thread is 0) writing to fd; EVENTS
 * and SITES chunks are compressed at zstd_level (0: not compressed). */
void ft_io_init(int fd, int use_thread, int zstd_level);
/* The buffers of the slot `ahead` submissions from now (0: the next to
 * be submitted); waits until the writer is done with them. */
void ft_io_buffers(unsigned ahead, uint8_t **ev, uint8_t **sites);
/* Hands the current slot to the writer, which seals and writes the SITES
 * chunk (if has_sites) and then the EVENTS chunk (if has_ev). */
void ft_io_submit(const ft_chunk *sites, uint64_t sites_seq, int has_sites,
                  const ft_chunk *ev, uint64_t ev_seq, int has_ev);
/* Returns once every submitted slot is in the file. */
void ft_io_drain(void);
/* Writes to the trace unless a write already failed; the first failure
 * is reported (FORETELL_STATUS_FD or stderr) and stops all writing.
 * Async-signal-safe. */
void ft_io_write(int fd, const void *buf, size_t len);
void ft_io_forget(void); /* fork child */

void ft_modules_scan(void);
int ft_module_find(uintptr_t pc);
uintptr_t ft_module_base(int m); /* load base of module m */
int ft_module_lookup(uintptr_t pc, uintptr_t *off);
void ft_modules_write_new(void);
void ft_header_write(int64_t start_ns);

#endif

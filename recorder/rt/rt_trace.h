/* rt_trace.h - what tracebuf.c (event and site chunks) and modules.c
 * (module table, header) share; the rest of the runtime uses rt.h. */
#ifndef FORETELL_RT_TRACE_H
#define FORETELL_RT_TRACE_H

#include "rt.h"

/* Seals c as a chunk of the given kind with the next sequence number and
 * writes it.  Async-signal-safe. */
void ft_tb_write_chunk(ft_chunk *c, unsigned kind);

void ft_modules_scan(void);
int ft_module_find(uintptr_t pc);
uintptr_t ft_module_base(int m); /* load base of module m */
int ft_module_lookup(uintptr_t pc, uintptr_t *off);
void ft_modules_write_new(void);
void ft_header_write(int64_t start_ns);

#endif

/* SPDX-License-Identifier: MIT */
/* dwtypes.h - the symboliser's TYPES writer (recorder/dwtypes.c): from
 * DWARF, after the run, the types of the global variables of the
 * instrumented modules and the heap dereferences (`pool->completed`) of
 * the sites' source lines, so that reports name memory and print values as the
 * program does without the binary (docs/trace-format.md, TYPES).  Private
 * to recorder/: symbolize.c drives it. */
#ifndef FORETELL_DWTYPES_H
#define FORETELL_DWTYPES_H

#include "recorder/reader_internal.h"

#include <elfutils/libdwfl.h>

typedef struct ft_dwtypes ft_dwtypes;

ft_dwtypes *ft_dwtypes_new(ft_appender *ap);
void ft_dwtypes_free(ft_dwtypes *t);

/* Collects the global and static variables of module index (DWARF
 * DW_TAG_variable at a DW_OP_addr) in the program's compile units (built
 * by foretell-cc, or holding a site given to ft_dwtypes_site before),
 * offsets relative to the load base as DATA's: the link-time address
 * minus sub (the module's base for an ET_EXEC, else 0). */
void ft_dwtypes_module(ft_dwtypes *t, uint32_t index, Dwfl_Module *mod,
                       uint64_t sub);

/* Appends a TYPES entry for each variable collected, with its type.
 * The number appended, -1 when writing failed. */
int ft_dwtypes_emit_globals(ft_dwtypes *t);

/* The dereferences `base->field` of site's source line text whose base
 * DWARF types (a variable in scope at a, a Dwfl address, then members and
 * subscripts) as a pointer to a struct or union: a DEREF entry each,
 * with that type.  Returns the number appended, -1 when writing failed. */
int ft_dwtypes_site(ft_dwtypes *t, Dwfl_Module *mod, Dwarf_Addr a,
                    uint32_t site, const char *text);

/* Shared with dwderef.c (the dereferences), not for other files. */
#include <elfutils/libdw.h>
const char *ft_dw_str_attr(Dwarf_Die *d, int name);
/* The DIE d's DW_AT_type refers to, in *out; -1 none (void). */
int ft_dw_type_of(Dwarf_Die *d, Dwarf_Die *out);
/* Through typedefs and qualifiers (a bounded number); -1 none. */
int ft_dw_peel(Dwarf_Die *d, Dwarf_Die *out);
/* The TYPES id of d's type, its entries appended the first time; 0
 * unknown or over the bounds. */
uint32_t ft_dwtypes_type_id(ft_dwtypes *t, Dwarf_Die *d, int depth);
/* Notes a CU that holds a site (the program's: ft_dwtypes_module). */
void ft_dwtypes_note_cu(ft_dwtypes *t, Dwarf_Die *cu);
/* Appends [16, site, base, field, type]; -1 when writing failed. */
int ft_dwtypes_emit_deref(ft_dwtypes *t, uint32_t site, const char *base,
                          const char *field, uint32_t type);

#endif

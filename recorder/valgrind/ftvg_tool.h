/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ftvg_tool.h - what the two files of foretell's Valgrind tool share:
 * ftvg_instrument.c adds calls of the recording helpers of ftvg_main.c to
 * the program's translated code. */
#ifndef FTVG_TOOL_H
#define FTVG_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* ftvg_main.c: the module holding pc goes out once (MODULE record) */
void ftvg_announce(Addr pc);
/* ftvg_main.c, called from the instrumented code: an access (op_size: the
 * instruction's length << 32 | op << 16 | size; sp: the stack pointer),
 * a locked read-modify-write (len_size: length << 32 | size), a function
 * entered (its return address at sp), a return (sp past the address) */
VG_REGPARM(0) void ftvg_h_access(UWord op_size, Addr pc, Addr addr,
                                 ULong value, Addr sp);
VG_REGPARM(0) void ftvg_h_cas(UWord len_size, Addr pc, Addr addr,
                              ULong expd, ULong desired, ULong old);
VG_REGPARM(0) void ftvg_h_entry(Addr fn, Addr sp);
VG_REGPARM(0) void ftvg_h_return(Addr sp);

/* ftvg_instrument.c: the tool's instrument callback */
IRSB *ftvg_instrument(VgCallbackClosure *closure, IRSB *bb,
                      const VexGuestLayout *layout,
                      const VexGuestExtents *vge,
                      const VexArchInfo *archinfo_host, IRType gWordTy,
                      IRType hWordTy);

#endif

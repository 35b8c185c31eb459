/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ftvg_instrument.c - which code of the program foretell's Valgrind tool
 * instruments, and how: the program's own code (not the system's
 * libraries, not the C runtime's start-up), each load, store and locked
 * read-modify-write but those off the stack pointer, each function entry
 * and return.  The calls it adds land in ftvg_main.c, which records
 * (ftvg_tool.h).  Split from ftvg_main.c so that each file has one job:
 * this one runs when a block is translated, that one when it runs.
 * GPL-2.0-or-later as the rest of the tool (LICENSE in this folder). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "ftvg_raw.h"
#include "ftvg_tool.h"

static Addr user_lo = 1, user_hi = 0; /* the last range looked up */
static Bool user_last;

static Bool system_path(const HChar *p)
{
    return !p || VG_(strncmp)(p, "/lib/", 5) == 0 ||
           VG_(strncmp)(p, "/lib64/", 7) == 0 ||
           VG_(strncmp)(p, "/usr/lib/", 9) == 0 ||
           VG_(strncmp)(p, "/usr/lib64/", 11) == 0 ||
           VG_(strncmp)(p, "/usr/libexec/", 13) == 0 ||
           VG_(strstr)(p, "vgpreload_") != NULL;
}

/* The C runtime's start-up and tear-down code linked into the program
 * (crt1.o, crtbegin.o): a foretell-cc build does not instrument it
 * either. */
static Bool crt_code(Addr pc)
{
    const HChar *fn = NULL;
    if (!VG_(get_fnname)(VG_(current_DiEpoch)(), pc, &fn) || !fn)
        return False;
    static const HChar *const crt[] = {
        "_start", "__do_global_dtors_aux", "register_tm_clones",
        "deregister_tm_clones", "frame_dummy", "__libc_csu_init",
        "__libc_csu_fini", "_init", "_fini",
        "(below main)", /* what Valgrind calls _start */
        NULL};
    for (Int i = 0; crt[i]; i++)
        if (VG_(strcmp)(fn, crt[i]) == 0)
            return True;
    return False;
}

/* Whether code at pc is the program's own (not libc, ld.so, libstdc++ or
 * ours): only its accesses are recorded, as a foretell-cc build
 * instruments only what it compiles. */
static Bool user_code(Addr pc)
{
    if (pc >= user_lo && pc < user_hi)
        return user_last;
    const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
    if (!di) {
        user_lo = 1;
        user_hi = 0;
        return False;
    }
    user_lo = VG_(DebugInfo_get_text_avma)(di);
    user_hi = user_lo + VG_(DebugInfo_get_text_size)(di);
    user_last = !system_path(VG_(DebugInfo_get_filename)(di));
    if (user_last)
        ftvg_announce(pc);
    return user_last;
}

/* An atom of type ty as a 64-bit value; NULL when it has none that fits
 * (vectors: recorded wide, without their bytes). */
static IRExpr *as_u64(IRSB *sb, IRExpr *atom, IRType ty)
{
    IRTemp t;
    IROp op;
    switch (ty) {
    case Ity_I64:
        return atom;
    case Ity_I8:
        op = Iop_8Uto64;
        break;
    case Ity_I16:
        op = Iop_16Uto64;
        break;
    case Ity_I32:
        op = Iop_32Uto64;
        break;
    case Ity_F64:
        op = Iop_ReinterpF64asI64;
        break;
    case Ity_F32: {
        IRTemp w = newIRTemp(sb->tyenv, Ity_I32);
        addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Unop(Iop_ReinterpF32asI32,
                                                      atom)));
        atom = IRExpr_RdTmp(w);
        op = Iop_32Uto64;
        break;
    }
    default:
        return NULL;
    }
    t = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(op, atom)));
    return IRExpr_RdTmp(t);
}

static UInt insn_len; /* the current instruction's, for add_access */
static Int sp_offset; /* the guest stack pointer's, for add_access */

static void add_access(IRSB *sb, UInt op, Addr site, IRExpr *addr, IRType ty,
                       IRExpr *data, IRExpr *guard)
{
    UInt size = (UInt)sizeofIRType(ty);
    IRExpr *v = data ? as_u64(sb, data, ty) : NULL;
    if (!v) {
        op = op == FTVG_READ ? FTVG_READ_WIDE : FTVG_WRITE_WIDE;
        v = IRExpr_Const(IRConst_U64(0));
    }
    /* the stack pointer as the block has it here (the thread state's may
     * be behind), for ftvg_h_access's own-stack test */
    IRTemp sp = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(sp_offset, Ity_I64)));
    IRDirty *d = unsafeIRDirty_0_N(
        0, "ftvg_access", VG_(fnptr_to_fnentry)(&ftvg_h_access),
        mkIRExprVec_5(
            mkIRExpr_HWord((HWord)insn_len << 32 | (HWord)op << 16 | size),
            mkIRExpr_HWord(site), addr, v, IRExpr_RdTmp(sp)));
    if (guard)
        d->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* A call of helper with the stack pointer as the block has it here: (fn,
 * sp) when fn is given, else (sp). */
static void add_sp_call(IRSB *sb, const HChar *name, void *helper, Addr fn)
{
    IRTemp sp = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(sp_offset, Ity_I64)));
    IRExpr **args = fn ? mkIRExprVec_2(mkIRExpr_HWord(fn), IRExpr_RdTmp(sp))
                       : mkIRExprVec_1(IRExpr_RdTmp(sp));
    IRDirty *d =
        unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(helper), args);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* Whether an address atom was computed from the stack pointer within this
 * block (sp: per temporary). */
static Bool off_sp(const Bool *sp, IRExpr *addr)
{
    return addr->tag == Iex_RdTmp && sp[addr->Iex.RdTmp.tmp];
}

static void track_sp(Bool *sp, const VexGuestLayout *layout, IRTemp t,
                     IRExpr *e)
{
    if (e->tag == Iex_Get && e->Iex.Get.offset == layout->offset_SP)
        sp[t] = True;
    else if (e->tag == Iex_RdTmp && sp[e->Iex.RdTmp.tmp])
        sp[t] = True;
    else if (e->tag == Iex_Binop &&
             (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Sub64 ||
              e->Iex.Binop.op == Iop_And64) &&
             e->Iex.Binop.arg1->tag == Iex_RdTmp &&
             sp[e->Iex.Binop.arg1->Iex.RdTmp.tmp] &&
             e->Iex.Binop.arg2->tag == Iex_Const)
        sp[t] = True;
}

IRSB *ftvg_instrument(VgCallbackClosure *closure, IRSB *bb,
                           const VexGuestLayout *layout,
                           const VexGuestExtents *vge,
                           const VexArchInfo *archinfo_host, IRType gWordTy,
                           IRType hWordTy)
{
    (void)closure;
    (void)vge;
    (void)archinfo_host;
    (void)gWordTy;
    (void)hWordTy;
    IRSB *sb = deepCopyIRSBExceptStmts(bb);
    sp_offset = layout->offset_SP;
    Int ntemps = bb->tyenv->types_used;
    Bool *sp = VG_(calloc)("ftvg.sp", (SizeT)ntemps + 1, sizeof *sp);
    Bool user = False, locked = False;
    Addr site = 0;
    const HChar *fn;
    for (Int i = 0; i < bb->stmts_used; i++) {
        IRStmt *st = bb->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        switch (st->tag) {
        case Ist_IMark:
            user = user_code(st->Ist.IMark.addr) &&
                   !crt_code(st->Ist.IMark.addr);
            /* a locked instruction reads before its CAS (lock xadd:
             * load, add, CAS): its one event is the CAS */
            locked = False;
            for (Int j = i + 1; j < bb->stmts_used; j++) {
                IRStmt *s2 = bb->stmts[j];
                if (s2 && s2->tag == Ist_IMark)
                    break;
                if (s2 && s2->tag == Ist_CAS)
                    locked = True;
            }
            /* as our runtime's sites, the address after the access:
             * symbolised at site - 1, inside the instruction */
            site = st->Ist.IMark.addr + st->Ist.IMark.len;
            insn_len = st->Ist.IMark.len;
            addStmtToIRSB(sb, st);
            if (user && VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(),
                                                 st->Ist.IMark.addr, &fn))
                add_sp_call(sb, "ftvg_entry", &ftvg_h_entry, st->Ist.IMark.addr);
            break;
        case Ist_WrTmp: {
            IRExpr *e = st->Ist.WrTmp.data;
            addStmtToIRSB(sb, st);
            track_sp(sp, layout, st->Ist.WrTmp.tmp, e);
            if (user && !locked && e->tag == Iex_Load &&
                !off_sp(sp, e->Iex.Load.addr))
                add_access(sb, FTVG_READ, site, e->Iex.Load.addr,
                           e->Iex.Load.ty, IRExpr_RdTmp(st->Ist.WrTmp.tmp),
                           NULL);
            break;
        }
        case Ist_Store:
            if (user && !off_sp(sp, st->Ist.Store.addr))
                add_access(sb, FTVG_WRITE, site, st->Ist.Store.addr,
                           typeOfIRExpr(bb->tyenv, st->Ist.Store.data),
                           st->Ist.Store.data, NULL);
            addStmtToIRSB(sb, st);
            break;
        case Ist_StoreG: {
            IRStoreG *g = st->Ist.StoreG.details;
            if (user && !off_sp(sp, g->addr))
                add_access(sb, FTVG_WRITE, site, g->addr,
                           typeOfIRExpr(bb->tyenv, g->data), g->data,
                           g->guard);
            addStmtToIRSB(sb, st);
            break;
        }
        case Ist_LoadG: {
            IRLoadG *g = st->Ist.LoadG.details;
            addStmtToIRSB(sb, st);
            if (user && !off_sp(sp, g->addr)) {
                IRType ty = Ity_INVALID, dty = Ity_INVALID;
                typeOfIRLoadGOp(g->cvt, &dty, &ty);
                /* the value as loaded is not a temporary: recorded wide */
                add_access(sb, FTVG_READ, site, g->addr, ty, NULL, g->guard);
            }
            break;
        }
        case Ist_CAS: {
            IRCAS *c = st->Ist.CAS.details;
            addStmtToIRSB(sb, st);
            if (!user)
                break;
            IRType ty = typeOfIRExpr(bb->tyenv, c->dataLo);
            IRExpr *e = c->oldHi == IRTemp_INVALID
                            ? as_u64(sb, c->expdLo, ty) : NULL;
            IRExpr *dv = e ? as_u64(sb, c->dataLo, ty) : NULL;
            IRExpr *ov = dv ? as_u64(sb, IRExpr_RdTmp(c->oldLo), ty) : NULL;
            if (!ov) { /* cmpxchg16b: a wide read and write */
                add_access(sb, FTVG_READ, site, c->addr, Ity_V128, NULL,
                           NULL);
                add_access(sb, FTVG_WRITE, site, c->addr, Ity_V128, NULL,
                           NULL);
                break;
            }
            IRDirty *d = unsafeIRDirty_0_N(
                0, "ftvg_cas", VG_(fnptr_to_fnentry)(&ftvg_h_cas),
                mkIRExprVec_6(mkIRExpr_HWord((HWord)insn_len << 32 |
                                             sizeofIRType(ty)),
                              mkIRExpr_HWord(site), c->addr, e, dv, ov));
            addStmtToIRSB(sb, IRStmt_Dirty(d));
            break;
        }
        default:
            addStmtToIRSB(sb, st);
            break;
        }
    }
    if (user && bb->jumpkind == Ijk_Ret)
        add_sp_call(sb, "ftvg_return", &ftvg_h_return, 0);
    VG_(free)(sp);
    return sb;
}

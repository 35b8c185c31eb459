/* SPDX-License-Identifier: MIT */
/* straight.c - how far the machine code after a site runs without a jump
 * (the STRAIGHT chunk, docs/trace-format.md).  Prediction lets a read
 * inside an atomic region return another value than it returned in the
 * recorded run; its thread may then go on only as far as that value
 * cannot change what it does.  The instructions from the read's site up
 * to the first jump, conditional branch or return run whatever the value
 * was, so a later access of the thread whose site lies in that span (the
 * write of `x = x + 1`) still happens; one past a branch (the write of
 * `if (x == 0) x = 1`) may not (docs/prediction.md, "the data rule").
 *
 * The span is measured once per site with capstone, when the trace is
 * symbolised (the binary is at hand then, not necessarily at analysis),
 * over at most FT_STRAIGHT_MAX bytes.  Calls to the recorder's hooks and
 * interposed functions do not end it (they return to the next
 * instruction whatever the value was); any other call does, since a
 * callee may end the program on a value (SV-COMP's assume: the replay of
 * read_write_lock-2's witnesses said "the program ended first").  x86-64
 * and AArch64; other machines get no spans (their reads keep the paper's
 * rule). */
#include "recorder/straight.h"

#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

typedef struct func_sym {
    uint64_t addr;
    const char *name; /* in the ELF's string table */
} func_sym;

struct ft_straight {
    Elf *elf;
    csh cs;
    int cs_open, x86;
    Elf_Scn *last;  /* the section of the previous lookup */
    GElf_Shdr last_sh;
    func_sym *funcs; /* the module's functions by address */
    size_t nfuncs;
};

static int by_addr(const void *a, const void *b)
{
    const func_sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The module's function symbols (.symtab, else .dynsym), sorted. */
static void load_funcs(ft_straight *s)
{
    Elf_Scn *scn = NULL, *best = NULL;
    GElf_Shdr sh, best_sh = {0};
    while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best)) {
            best = scn;
            best_sh = sh;
        }
    }
    Elf_Data *d = best && best_sh.sh_entsize ? elf_getdata(best, NULL) : NULL;
    size_t n = d ? best_sh.sh_size / best_sh.sh_entsize : 0;
    s->funcs = n ? malloc(n * sizeof *s->funcs) : NULL;
    for (size_t i = 0; s->funcs && i < n; i++) {
        GElf_Sym sym;
        const char *name;
        if (gelf_getsym(d, (int)i, &sym) &&
            GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value &&
            (name = elf_strptr(s->elf, best_sh.sh_link, sym.st_name)))
            s->funcs[s->nfuncs++] = (func_sym){sym.st_value, name};
    }
    if (s->nfuncs)
        qsort(s->funcs, s->nfuncs, sizeof *s->funcs, by_addr);
}

/* A call the code after it runs past whatever the value was: to the
 * recorder's hooks (__tsan_*) and its interposed functions (__wrap_*),
 * which return, except the ones that end the thread or the program.  A
 * call to anything else may not return on some values (an assume, an
 * error handler): it ends the run. */
static int call_returns(const ft_straight *s, const cs_insn *insn)
{
    uint64_t target;
    if (s->x86) {
        const cs_x86 *x = &insn->detail->x86;
        if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
            return 0;
        target = (uint64_t)x->operands[0].imm;
    } else {
        const cs_arm64 *a = &insn->detail->arm64;
        if (a->op_count != 1 || a->operands[0].type != ARM64_OP_IMM)
            return 0;
        target = (uint64_t)a->operands[0].imm;
    }
    func_sym key = {target, NULL};
    const func_sym *f = s->nfuncs ? bsearch(&key, s->funcs, s->nfuncs,
                                            sizeof key, by_addr)
                                  : NULL;
    if (!f)
        return 0;
    if (!strncmp(f->name, "__tsan_", 7))
        return 1;
    return !strncmp(f->name, "__wrap_", 7) && !strstr(f->name, "exit") &&
           !strstr(f->name, "abort") && !strstr(f->name, "jmp") &&
           !strstr(f->name, "cancel");
}

ft_straight *ft_straight_open(Elf *elf)
{
    GElf_Ehdr eh;
    if (!elf || !gelf_getehdr(elf, &eh))
        return NULL;
    cs_arch arch;
    cs_mode mode;
    if (eh.e_machine == EM_X86_64) {
        arch = CS_ARCH_X86;
        mode = CS_MODE_64;
    } else if (eh.e_machine == EM_AARCH64) {
        arch = CS_ARCH_ARM64;
        mode = CS_MODE_ARM;
    } else {
        return NULL;
    }
    ft_straight *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->elf = elf;
    s->x86 = arch == CS_ARCH_X86;
    if (cs_open(arch, mode, &s->cs) != CS_ERR_OK) {
        free(s);
        return NULL;
    }
    s->cs_open = 1;
    cs_option(s->cs, CS_OPT_DETAIL, CS_OPT_ON);
    load_funcs(s);
    return s;
}

void ft_straight_close(ft_straight *s)
{
    if (!s)
        return;
    if (s->cs_open)
        cs_close(&s->cs);
    free(s->funcs);
    free(s);
}

/* The executable section holding link-time address a, or NULL. */
static Elf_Scn *code_section(ft_straight *s, uint64_t a, GElf_Shdr *sh)
{
    if (s->last && a >= s->last_sh.sh_addr &&
        a - s->last_sh.sh_addr < s->last_sh.sh_size) {
        *sh = s->last_sh;
        return s->last;
    }
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS ||
            !(sh->sh_flags & SHF_EXECINSTR))
            continue;
        if (a >= sh->sh_addr && a - sh->sh_addr < sh->sh_size) {
            s->last = scn;
            s->last_sh = *sh;
            return scn;
        }
    }
    return NULL;
}

/* Does insn end a straight run: a jump, a branch, a return, a trap? */
static int ends_run(const ft_straight *s, const cs_insn *insn)
{
    if (!insn->detail || cs_insn_group(s->cs, insn, CS_GRP_JUMP) ||
        cs_insn_group(s->cs, insn, CS_GRP_RET) ||
        cs_insn_group(s->cs, insn, CS_GRP_IRET) ||
        cs_insn_group(s->cs, insn, CS_GRP_INT))
        return 1;
    if (cs_insn_group(s->cs, insn, CS_GRP_CALL))
        return !call_returns(s, insn);
    /* instructions that stop or divert without saying so by group */
    return s->x86 && (insn->id == X86_INS_HLT || insn->id == X86_INS_UD2 ||
                      insn->id == X86_INS_SYSCALL ||
                      insn->id == X86_INS_SYSENTER);
}

int ft_straight_insn(ft_straight *s, uint64_t a, char *buf, size_t len)
{
    GElf_Shdr sh;
    Elf_Scn *scn = s ? code_section(s, a, &sh) : NULL;
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if (!d || !d->d_buf || d->d_size < sh.sh_size || !len)
        return -1;
    uint64_t off = a - sh.sh_addr, addr = a;
    size_t left = (size_t)(sh.sh_size - off);
    const uint8_t *code = (const uint8_t *)d->d_buf + off;
    cs_insn *insn = cs_malloc(s->cs);
    int ok = insn && cs_disasm_iter(s->cs, &code, &left, &addr, insn);
    if (ok)
        snprintf(buf, len, "%s%s%s", insn->mnemonic,
                 insn->op_str[0] ? " " : "", insn->op_str);
    if (insn)
        cs_free(insn, 1);
    return ok ? 0 : -1;
}

uint32_t ft_straight_span(ft_straight *s, uint64_t a)
{
    GElf_Shdr sh;
    Elf_Scn *scn = s ? code_section(s, a, &sh) : NULL;
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if (!d || !d->d_buf || d->d_size < sh.sh_size)
        return 0;
    uint64_t off = a - sh.sh_addr;
    size_t left = (size_t)(sh.sh_size - off);
    if (left > FT_STRAIGHT_MAX)
        left = FT_STRAIGHT_MAX;
    const uint8_t *code = (const uint8_t *)d->d_buf + off;
    uint64_t addr = a;
    cs_insn *insn = cs_malloc(s->cs);
    if (!insn)
        return 0;
    /* a run cut by the window or by undecodable bytes is as long as the
     * instructions decoded: the rest is not known to be straight */
    uint64_t run = 0;
    while (cs_disasm_iter(s->cs, &code, &left, &addr, insn) &&
           !ends_run(s, insn))
        run = addr - a;
    cs_free(insn, 1);
    return (uint32_t)run + 1;
}

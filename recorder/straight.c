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
 * over at most FT_STRAIGHT_MAX bytes.  Calls do not end it: a callee
 * returns to the next instruction whatever it computed.  x86-64 and
 * AArch64; other machines get no spans (their reads keep the paper's
 * rule). */
#include "recorder/straight.h"

#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct ft_straight {
    Elf *elf;
    csh cs;
    int cs_open, x86;
    Elf_Scn *last;  /* the section of the previous lookup */
    GElf_Shdr last_sh;
};

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
    return s;
}

void ft_straight_close(ft_straight *s)
{
    if (!s)
        return;
    if (s->cs_open)
        cs_close(&s->cs);
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
    /* instructions that stop or divert without saying so by group */
    return s->x86 && (insn->id == X86_INS_HLT || insn->id == X86_INS_UD2 ||
                      insn->id == X86_INS_SYSCALL ||
                      insn->id == X86_INS_SYSENTER);
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

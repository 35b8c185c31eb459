/* SPDX-License-Identifier: MIT */
/* rt_emit.h - the recording fast path of plain accesses, inlined into the
 * hooks (hooks_access.c): the site table's lookup when the site is known
 * and the READ/WRITE encoder.  Calls into tracebuf.c for these two cost
 * several ns per event on the access-dense kernel, where a recorded event
 * costs about 10.  tracebuf.c owns the state below; only the baton holder
 * touches it.  The bytes are those of ft_encode_event (event_encode.c). */
#ifndef FORETELL_RT_EMIT_H
#define FORETELL_RT_EMIT_H

#include "rt.h"

struct ft_site_entry {
    uintptr_t pc;
    uint32_t id;
    uint64_t count; /* allocations made at this site */
};

struct ft_tb_hot {
    ft_chunk ev;          /* the open EVENTS chunk */
    ft_addr_regs regs;    /* address-delta registers, reset per chunk */
    uint64_t nevents;     /* events written so far */
    struct ft_site_entry *sites; /* open addressing, 1 << site_bits slots */
    unsigned site_bits;
    uint32_t nsites;
};
extern struct ft_tb_hot ft_tbh;

/* Out of line: hands the full chunk to the writer and opens the next. */
void ft_tb_rotate(void);

static inline uint32_t ft_site_id_fast(uintptr_t pc)
{
    const struct ft_site_entry *tab = ft_tbh.sites;
    if (FT_LIKELY(tab != NULL)) {
        size_t h = (pc * 0x9e3779b97f4a7c15ull) >> (64 - ft_tbh.site_bits);
        if (FT_LIKELY(tab[h].pc == pc))
            return tab[h].id;
    }
    return ft_site_id(pc); /* probing, or a new site */
}

/* always_inline: left to itself gcc made this one out-of-line function,
 * whose prologue and epilogue were 16 of its 57 instructions per event. */
static inline __attribute__((always_inline)) void
ft_emit_access_fast(int kind, uint32_t site, uintptr_t addr, uint32_t size,
                    uint64_t value)
{
    uint8_t *p = ft_tbh.ev.pos;
    if (FT_UNLIKELY((size_t)(ft_tbh.ev.limit - p) < FT_EVENT_MAX_FIXED)) {
        ft_tb_rotate();
        p = ft_tbh.ev.pos;
    }
    /* kind is a constant, or READ or its paired opcode, at every call:
     * the register is chosen at compile time (version 3 splits READ's,
     * trace.h) */
    uint64_t *reg = kind == FT_EV_READ || kind == FT_OP_READ_PAIRED
                        ? &ft_tbh.regs.read
                        : &ft_tbh.regs.any;
    ft_tbh.ev.pos = ft_put_access(p, kind, site, reg, addr, size, value);
    ft_tbh.nevents++;
}

#endif

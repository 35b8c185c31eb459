/* SPDX-License-Identifier: MIT */
/* straight.h - spans of straight-line machine code after sites
 * (straight.c), for the symboliser. */
#ifndef FORETELL_STRAIGHT_H
#define FORETELL_STRAIGHT_H

#include <libelf.h>
#include <stdint.h>

/* Spans are measured over at most this many bytes after a site. */
#define FT_STRAIGHT_MAX 512

typedef struct ft_straight ft_straight;

/* A disassembler over elf's code, or NULL (a machine it does not know,
 * out of memory).  elf stays the caller's. */
ft_straight *ft_straight_open(Elf *elf);
void ft_straight_close(ft_straight *s);
/* The bytes from link-time address a up to the first jump, branch or
 * return (or the end of what could be decoded), plus 1; 0 when a is not
 * in the module's code.  s may be NULL (then 0). */
uint32_t ft_straight_span(ft_straight *s, uint64_t a);
/* The instruction at link-time address a, as "mnemonic operands"
 * (Intel syntax on x86), into buf; 0, or -1 when a is not in the
 * module's code or does not decode.  s may be NULL (then -1). */
int ft_straight_insn(ft_straight *s, uint64_t a, char *buf, size_t len);

#endif

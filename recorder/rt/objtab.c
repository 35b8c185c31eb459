/* SPDX-License-Identifier: MIT */
/* objtab.c - the table of modelled sync objects (mutexes, rwlocks,
 * condvars, semaphores, barriers, once controls), keyed by address.  Fixed
 * size, open addressing, mmap'd on first use: no malloc under the baton.
 * Callers hold the scheduler lock. */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define OBJ_BITS 16
#define OBJ_CAP (1u << OBJ_BITS)
#define TOMB ((uintptr_t)1)

static ft_obj *tab;

static size_t hash(uintptr_t a)
{
    return (size_t)((a * 0x9e3779b97f4a7c15ull) >> (64 - OBJ_BITS));
}

ft_obj *ft_obj_get(uintptr_t addr, int kind)
{
    if (!tab) {
        void *m = mmap(NULL, sizeof(ft_obj) * OBJ_CAP, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            static const char msg[] = "foretell: cannot map the sync object table\n";
            (void)!write(2, msg, sizeof msg - 1);
            _exit(127);
        }
        tab = m;
    }
    size_t h = hash(addr), free_slot = OBJ_CAP;
    for (unsigned n = 0; n < OBJ_CAP; n++, h = (h + 1) & (OBJ_CAP - 1)) {
        ft_obj *o = &tab[h];
        if (o->addr == addr)
            return o;
        if (o->addr == TOMB && free_slot == OBJ_CAP)
            free_slot = h;
        if (o->addr == 0) {
            if (free_slot == OBJ_CAP)
                free_slot = h;
            break;
        }
    }
    if (free_slot == OBJ_CAP) {
        static const char msg[] = "foretell: too many live sync objects (65536)\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    ft_obj *o = &tab[free_slot];
    *o = (ft_obj){.addr = addr, .kind = kind, .owner = -1};
    return o;
}

int ft_obj_drop(uintptr_t addr)
{
    if (!tab)
        return -1;
    size_t h = hash(addr);
    for (unsigned n = 0; n < OBJ_CAP; n++, h = (h + 1) & (OBJ_CAP - 1)) {
        if (tab[h].addr == addr) {
            tab[h].addr = TOMB;
            return tab[h].owner;
        }
        if (tab[h].addr == 0)
            return -1;
    }
    return -1;
}

/* SPDX-License-Identifier: MIT */
/* annotate.c - the entry points of the annotation header (recorder/
 * foretell.h): foretell_atomic_begin() / foretell_atomic_end() in a
 * program built with foretell-cc (which defines __FORETELL__) record
 * REGION_BEGIN / REGION_END with the caller's site, which infer/regions.c
 * takes as user-stated atomic regions.  Outside a recorded run (or inside
 * another hook) they do nothing.  They are ordinary key points, so a
 * recorded run and its replay see the same events at the same places. */
#include "rt.h"

void __foretell_region_begin(void);
void __foretell_region_end(void);

static void region_event(int kind, uintptr_t pc)
{
    ft_thread *t = ft_enter();
    if (!t)
        return;
    ft_event ev = {.kind = kind, .site = ft_site_id(pc)};
    ft_emit(&ev);
    ft_leave(t);
}

void __foretell_region_begin(void)
{
    region_event(FT_EV_REGION_BEGIN, FT_PC());
}

void __foretell_region_end(void)
{
    region_event(FT_EV_REGION_END, FT_PC());
}

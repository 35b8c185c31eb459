/* SPDX-License-Identifier: MIT */
/* foretell.h - annotations a program under test may use to state its own
 * atomic regions.  Include it and bracket a region:
 *
 *     foretell_atomic_begin();
 *     account->balance += amount;
 *     account->history[account->n++] = amount;
 *     foretell_atomic_end();
 *
 * When the program is built for recording (the foretell compiler wrapper
 * defines __FORETELL__), the macros call into the foretell runtime, which
 * records REGION_BEGIN / REGION_END events with the caller's site; the
 * analysis (`foretell analyze --regions`) treats each begin/end pair of one
 * thread as a user-stated e-transaction.  Otherwise they compile to
 * nothing, so the header can stay in production code.  Regions nest; an
 * end without a begin is ignored; a begin left open ends with its thread.
 */
#ifndef FORETELL_USER_H
#define FORETELL_USER_H

#ifdef __FORETELL__
#ifdef __cplusplus
extern "C" {
#endif
void __foretell_region_begin(void);
void __foretell_region_end(void);
#ifdef __cplusplus
}
#endif
#define foretell_atomic_begin() __foretell_region_begin()
#define foretell_atomic_end() __foretell_region_end()
#else
#define foretell_atomic_begin() ((void)0)
#define foretell_atomic_end() ((void)0)
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* fence.c - the asymmetric fence behind the watchdog's handshake.  A hook
 * sets in_hook and then reads has_baton; the watchdog (and a signal
 * handler quiescing the holder) clears has_baton and then reads in_hook.
 * Each side needs a store-load fence, or both may miss the other's store.
 * On the hook's side that fence (an xchg) was most of a hook's cost: about
 * 80% of the samples of __tsan_read4/__tsan_write8 on the dense kernel.
 * So the hook uses a plain store and a compiler barrier, and the rare side
 * calls membarrier(PRIVATE_EXPEDITED), which runs a full barrier on every
 * CPU running a thread of this process before it returns: a hook's store
 * made before that barrier is then visible to the watchdog's load, and a
 * hook's load made after it sees has_baton cleared.  Where membarrier is
 * missing (old kernel, seccomp), ft_rt.asym_fence stays 0 and the hooks
 * keep the seq_cst store. */
#define _GNU_SOURCE
#include "rt.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

void ft_fence_init(void)
{
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q < 0 || !(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return;
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
                0, 0) != 0)
        return;
    ft_rt.asym_fence = 1;
}

int ft_fence_remote(void)
{
    if (!ft_rt.asym_fence ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        return 0;
    /* Cannot happen once registered.  If it does, hooks go back to the
     * seq_cst store from their next entry, and this handshake fails (the
     * caller must not take the baton; it retries later). */
    __atomic_store_n(&ft_rt.asym_fence, 0, __ATOMIC_SEQ_CST);
    return -1;
}

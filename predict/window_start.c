/* SPDX-License-Identifier: MIT */
/* window_start.c - the state a window model starts in (window.c): what
 * the recorded prefix 0 .. k-1 leaves for the objects the window touches
 * (memory values, locks held, semaphore counts, once objects done), so
 * that the solver encodes only the window and still starts where the
 * recorded run was.  Condition waits and barrier episodes are never cut
 * (window.c picks k), so they have no start state. */
#include "predict/window.h"

#include <stdlib.h>

#define NONE UINT32_MAX

/* The hold of lock v by thread j at its position lo (entries e0 .. e1 of
 * the index are j's operations on v before lo), walked the way
 * smt/sync.c walks a thread.  A plain mutex needs only its last
 * operation. */
static void lock_state(const ft_ctm *c, uint32_t v, const uint32_t *list,
                       uint32_t e0, uint32_t e1, uint32_t *depth, uint32_t *rd)
{
    *depth = *rd = 0;
    if (c->vars[v].kind == FT_VAR_MUTEX &&
        c->vars[v].mutex_type != FT_MUTEX_RECURSIVE) {
        for (uint32_t q = e1; q > e0; q--) {
            unsigned op = c->op[list[q - 1]];
            if (op == FT_OP_LOCK_FAIL)
                continue;
            *depth = op == FT_OP_LOCK || op == FT_OP_WAIT_POST;
            return;
        }
        return;
    }
    for (uint32_t q = e0; q < e1; q++) {
        uint32_t x = list[q];
        switch (c->op[x]) {
        case FT_OP_WAIT_POST:
            *depth = 0;
            /* fall through */
        case FT_OP_LOCK:
        case FT_OP_WRLOCK:
            ++*depth;
            break;
        case FT_OP_RDLOCK:
            ++*rd;
            break;
        case FT_OP_UNLOCK:
        case FT_OP_WAIT_PRE:
        case FT_OP_RWUNLOCK:
            if (c->op[x] == FT_OP_RWUNLOCK && *depth == 0 && *rd > 0) {
                --*rd;
                break;
            }
            if (*depth == 0)
                break;
            if (c->op[x] != FT_OP_UNLOCK)
                *depth = 1;
            --*depth;
            break;
        default:
            break;
        }
    }
}

int ft_window_start_state(const ft_ctm *c, const ft_slice_index *ix, uint32_t k,
                          const uint32_t *lo, ft_ctm *s, ft_smt_start *st)
{
    uint8_t *touched = calloc((size_t)c->nvars + 1, 1);
    uint32_t nt = c->nthreads, cap = 0;
    if (!touched)
        return -1;
    for (uint32_t x = 0; x < s->ntrans; x++) {
        if (s->obj[x] < c->nvars)
            touched[s->obj[x]] = 1;
        if (s->obj2[x] < c->nvars)
            touched[s->obj2[x]] = 1;
    }
    for (uint32_t v = 0; v < c->nvars; v++)
        cap += touched[v];
    st->holds = malloc(sizeof *st->holds * ((size_t)cap * nt * 2 + 1));
    st->sem_obj = malloc(sizeof *st->sem_obj * (cap + 1));
    st->sem_count = malloc(sizeof *st->sem_count * (cap + 1));
    st->once_done = malloc(sizeof *st->once_done * (cap + 1));
    if (!st->holds || !st->sem_obj || !st->sem_count || !st->once_done) {
        free(touched);
        return -1;
    }
    for (uint32_t v = 0; v < c->nvars; v++) {
        if (!touched[v])
            continue;
        uint8_t kind = c->vars[v].kind;
        const uint32_t *all = ix->all, *wr = ix->wr;
        uint32_t a = ix->all_first[v], b = ix->all_first[v + 1];
        if (kind == FT_VAR_MEMORY) {
            uint32_t last = NONE;
            uint32_t wa = ix->wr_first[v], wb = ix->wr_first[v + 1];
            for (uint32_t j = 0; j < nt; j++) {
                uint32_t e0 = ft_slice_upper(c, wr, wa, wb, j, 0);
                uint32_t e1 = ft_slice_upper(c, wr, wa, wb, j, lo[j]);
                if (e1 > e0 && (last == NONE || wr[e1 - 1] > last))
                    last = wr[e1 - 1];
            }
            if (last != NONE) {
                s->vars[v].init = ft_ctm_written(c, last);
                s->vars[v].has_init = 1;
            }
        } else if (kind == FT_VAR_MUTEX || kind == FT_VAR_RWLOCK) {
            for (uint32_t j = 0; j < nt; j++) {
                uint32_t e0 = ft_slice_upper(c, all, a, b, j, 0);
                uint32_t e1 = ft_slice_upper(c, all, a, b, j, lo[j]);
                uint32_t depth, rd;
                lock_state(c, v, all, e0, e1, &depth, &rd);
                if (depth)
                    st->holds[st->nholds++] = (ft_smt_hold){v, j, depth, 0};
                if (rd)
                    st->holds[st->nholds++] = (ft_smt_hold){v, j, rd, 1};
                /* another thread may wait for it in the window */
                if (depth || rd)
                    s->vars[v].shared = 1;
            }
        } else if (kind == FT_VAR_SEM) {
            uint32_t init = NONE;
            for (uint32_t q = a; q < b; q++)
                if (all[q] < k && c->op[all[q]] == FT_OP_SEM_INIT &&
                    (init == NONE || all[q] > init))
                    init = all[q];
            int64_t n = init == NONE ? 0 : (int64_t)c->value[init];
            for (uint32_t q = a; q < b; q++) {
                uint32_t y = all[q];
                if (y >= k || (init != NONE && y <= init))
                    continue;
                n += c->op[y] == FT_OP_SEM_POST;
                n -= c->op[y] == FT_OP_SEM_WAIT;
            }
            st->sem_obj[st->nsems] = v;
            st->sem_count[st->nsems++] = n;
        } else if (kind == FT_VAR_ONCE) {
            for (uint32_t q = a; q < b; q++)
                if (all[q] < k && c->op[all[q]] == FT_OP_ONCE_DONE) {
                    st->once_done[st->nonce_done++] = v;
                    break;
                }
        }
    }
    free(touched);
    return 0;
}

/* trim.c - the smallest witness: the solver orders every transition it
 * schedules before the last violating access, including ones the
 * violation does not need (another thread running ahead).  Those steps
 * would pin the run down for no reason: replaying the violation with them
 * leaves no room for what the program does next (the failure a violation
 * leads to often needs the other threads to be elsewhere).  The witness
 * is cut to the causal past of its violating accesses: steps they depend
 * on through program order, fork/join, reads-from (a write to a memory
 * variable before a read of it) and synchronisation (any two operations
 * on the same object).  Every kept read keeps the last write before it,
 * so it reads the same value; every kept lock, wait or barrier operation
 * keeps the operations on its object before it; so the kept steps, in
 * witness order, are a feasible prefix that holds the violating accesses
 * in the same order
 * (tests/predict/test_predict_random.c checks both against the oracle). */
#include "predict/predict.h"

#include <stdlib.h>

static int writes_memory(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_WRITE || c->op[x] == FT_OP_RMW;
}

static int reads_memory(const ft_ctm *c, uint32_t x)
{
    return c->op[x] == FT_OP_READ || c->op[x] == FT_OP_RMW;
}

static int same_obj(uint32_t a, uint32_t b)
{
    return a != FT_CTM_NONE && a == b;
}

/* Does y (later in the witness) depend on x? */
static int depends(const ft_ctm *c, uint32_t x, uint32_t y)
{
    if (c->tid[x] == c->tid[y])
        return 1;
    if (c->op[x] == FT_OP_FORK && c->value[x] == c->tid[y])
        return 1;
    if (c->op[y] == FT_OP_JOIN && c->value[y] == c->tid[x])
        return 1;
    uint32_t ox[2] = {c->obj[x], c->obj2[x]}, oy[2] = {c->obj[y], c->obj2[y]};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (!same_obj(ox[i], oy[j]) || ox[i] >= c->nvars)
                continue;
            if (c->vars[ox[i]].kind != FT_VAR_MEMORY)
                return 1; /* synchronisation: every order matters */
            /* Only what y reads: a kept read must keep its write.  A
             * dropped read or write that came before a kept write runs
             * after the prefix instead, which no kept event observes. */
            if (writes_memory(c, x) && reads_memory(c, y))
                return 1;
        }
    return 0;
}

int ft_presult_trim(const ft_ctm *c, ft_presult *res)
{
    uint32_t n = res->nsteps;
    if (n == 0)
        return 0;
    uint8_t *keep = calloc(n, 1);
    if (!keep)
        return -1;
    for (uint32_t j = n; j-- > 0;) {
        if (res->steps[j].mark)
            keep[j] = 1;
        if (!keep[j])
            continue;
        for (uint32_t i = 0; i < j; i++)
            if (!keep[i] && depends(c, res->steps[i].trans, res->steps[j].trans))
                keep[i] = 1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (keep[i])
            res->steps[k++] = res->steps[i];
    res->nsteps = k;
    free(keep);
    return 0;
}

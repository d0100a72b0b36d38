/* check_split.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_split(gguflint_ctx *ctx)
{
    (void)ctx;
}

int gguflint_check_set(gguflint_ctx *const *ctxs, size_t n)
{
    if (!ctxs && n)
        return GGUFLINT_E_ARG;
    for (size_t i = 0; i < n; i++)
        if (ctxs[i] && ctxs[i]->status != GGUFLINT_OK)
            return ctxs[i]->status;
    return GGUFLINT_OK;
}

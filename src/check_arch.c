/* check_arch.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_arch(gguflint_ctx *ctx)
{
    (void)ctx;
}

/* check_split.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_split(gguflint_ctx *ctx)
{
    (void)ctx;
}

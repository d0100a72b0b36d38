/* check_metadata.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_metadata(gguflint_ctx *ctx)
{
    (void)ctx;
}

/* check_filetype.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_filetype(gguflint_ctx *ctx)
{
    (void)ctx;
}

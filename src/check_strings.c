/* check_strings.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_strings(gguflint_ctx *ctx)
{
    (void)ctx;
}

/* check_template.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_template(gguflint_ctx *ctx)
{
    (void)ctx;
}

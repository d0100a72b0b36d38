/* check_vocab.c - see checks.h. */
#include "checks.h"

#include "model.h"

void check_vocab(gguflint_ctx *ctx)
{
    (void)ctx;
}

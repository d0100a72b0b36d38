/* parse.h - the parse stage: the header, KV and tensor-info tables read into
 * the context's model (parse.c), then the data layout checked against it
 * (layout.c). */
#ifndef GGUFLINT_PARSE_PARSE_H
#define GGUFLINT_PARSE_PARSE_H

#include "core/internal.h"

/* Read the metadata into ctx->hdr, ctx->kvs and ctx->tensors, reporting every
 * structural finding; returns ctx->status. */
int parse_run(gguflint_ctx *ctx);
/* Tensor offsets, alignment, overlaps, padding and trailing bytes. */
void layout_check(gguflint_ctx *ctx);

#endif

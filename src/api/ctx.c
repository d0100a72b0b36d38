/* ctx.c - the top of the pipeline: the context's life cycle and the run,
 * which drives every stage in order (input check, parse, layout, semantic
 * checks, data scan, publication of the findings). Nothing below calls up
 * into this file. */
#include "core/internal.h"
#include "common/alloc.h"

#include "checks/checks.h"
#include "input/source.h"
#include "model/model.h"
#include "parse/parse.h"
#include "parse/tokens.h"

#include <stdlib.h>
#include <string.h>

gguflint_ctx *gguflint_new(const gguflint_options *opt)
{
    gguflint_ctx *ctx = gl_calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    if (opt)
        ctx->opt = *opt;
    else
        gguflint_options_default(&ctx->opt);
    if (ctx->opt.limits.max_findings_per_rule == 0)
        ctx->opt.limits.max_findings_per_rule = 1;
    ctx->hdr.alignment = 32;
    ctx->fd = -1;
    return ctx;
}

void gguflint_free(gguflint_ctx *ctx)
{
    if (!ctx)
        return;
    source_release(ctx);
    gl_free(ctx->kvs);
    gl_free(ctx->kv_flags);
    tok_free(ctx);
    gl_free(ctx->tensors);
    gl_free(ctx->deep_mem[0]);
    gl_free(ctx->deep_mem[1]);
    gl_free(ctx->recs);
    gl_free(ctx->pub);
    model_index_free(ctx);
    gl_free(ctx->name);
    sb_free(&ctx->text);
    gl_free(ctx);
}

int gguflint_run(gguflint_ctx *ctx)
{
    if (!ctx)
        return GGUFLINT_E_ARG;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (!ctx->input_set) {
        ctx->status = GGUFLINT_E_STATE;
        return ctx->status;
    }
    if (ctx->ran)
        return GGUFLINT_OK;
    ctx->ran = true;
    if (source_check_unchanged(ctx) != GGUFLINT_OK)
        return ctx->status;
    /* a stream cut at the input limit is a truncated file, unless the input
     * may be a prefix anyway (--header-only: the parser says whether the cut
     * fell inside the metadata) */
    if (ctx->stream_truncated && !ctx->opt.header_only)
        emit(ctx, R_TRUNCATED, ctx->size, 0, "input",
             "the stream is longer than the %llu-byte input limit; only its start was read",
             (unsigned long long)ctx->size);
    parse_run(ctx);
    if (ctx->status == GGUFLINT_OK)
        layout_check(ctx);
    if (ctx->status == GGUFLINT_OK)
        checks_run(ctx);
    if (ctx->status == GGUFLINT_OK && ctx->opt.deep)
        check_data(ctx);
    if (ctx->status == GGUFLINT_OK && ctx->opt.config_refused)
        emit(ctx, R_CONFIG_REFUSED, 0, 0, "config",
             "a .gguflint.ini found near the inputs turns off security checks and was not "
             "applied (name it with --config to use it)");
    source_close_fd(ctx);
    source_drop_pages(ctx);
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    return findings_finalize(ctx);
}

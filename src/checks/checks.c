/* checks.c - runs the semantic checks (check_*.c) after parsing and the
 * layout checks. Each check reads the model through model.h and reports
 * through emit(); a check must not assume the metadata is complete: it sees
 * every KV and tensor info that was read (hdr.metadata_complete says whether
 * that is all of them). */
#include "checks/checks.h"

#include "model/model.h"

void checks_run(gguflint_ctx *ctx)
{
    if (!ctx->hdr.is_gguf)
        return;
    if (!model_index(ctx)) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    static void (*const checks[])(gguflint_ctx *) = {
        check_metadata, check_filetype, check_arch,     check_vocab,
        check_split,    check_strings,  check_template, check_requires,
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (ctx->status != GGUFLINT_OK)
            return;
        checks[i](ctx);
    }
}

int checks_set_ready(gguflint_ctx *const *ctxs, size_t n)
{
    if (!ctxs && n)
        return GGUFLINT_E_ARG;
    for (size_t i = 0; i < n; i++)
        if (ctxs[i] && ctxs[i]->status == GGUFLINT_OK && !ctxs[i]->ran)
            return GGUFLINT_E_STATE;
    return GGUFLINT_OK;
}

/* fuzz_deep.c - the --deep data scan: parse, then read every tensor's data
 * (values, block scales, padding) from the input, on 1 to 3 threads chosen by
 * the input's first byte. Findings must stay inside the input. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return 0;
    gguflint_options_set_deep(opt, true);
    gguflint_options_set_deep_jobs(opt, size ? 1u + data[size - 1] % 3u : 1u);
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!ctx)
        return 0;
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    for (size_t i = 0; st == GGUFLINT_OK && i < gguflint_finding_count(ctx); i++)
        FUZZ_ASSERT(gguflint_finding_get(ctx, i)->offset <= size);
    gguflint_free(ctx);
    return 0;
}

/* fuzz_estimate.c - the memory estimate and the llama.cpp requirement from
 * hostile hyper-parameters: parse and lint under a pinned build (GG595,
 * requires_llama in the JSON report), then estimate at the smallest, a
 * usual and the largest context with several cache types, as text and JSON.
 * No overflow (UBSan), no division by zero, every output free of raw
 * control bytes, the estimate bounded however large block_count is. */
#include "fuzz_common.h"
#include "gguflint_llama.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return 0;
    FUZZ_ASSERT(gguflint_options_set_llama_build(opt, size & 1 ? "b5000" : "2024-06-01") ==
                GGUFLINT_OK);
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!ctx)
        return 0;
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    if (st == GGUFLINT_OK) {
        fuzz_sink rep = {0, 1};
        gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_JSON, fuzz_write, &rep);
        if (r) {
            gguflint_report_file(r, "f.gguf", ctx, st);
            gguflint_report_end(r, true);
            gguflint_report_free(r);
        }
        static const struct {
            uint64_t n_ctx, n_batch, n_ubatch;
            uint32_t tk, tv;
        } p[] = {
            {1, 0, 0, 1, 1},
            {4096, 512, 128, 8, 2},
            {1ull << 32, 1ull << 32, 1, 0, 41},
        };
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
            fuzz_sink text = {0, 1}, json = {0, 1};
            int a = gguflint_estimate(ctx, p[i].n_ctx, p[i].n_batch, p[i].n_ubatch, p[i].tk,
                                      p[i].tv, GGUFLINT_FORMAT_TEXT, fuzz_write, &text);
            int b = gguflint_estimate(ctx, p[i].n_ctx, p[i].n_batch, p[i].n_ubatch, p[i].tk,
                                      p[i].tv, GGUFLINT_FORMAT_JSON, fuzz_write, &json);
            FUZZ_ASSERT(a == b);
            FUZZ_ASSERT(a == GGUFLINT_OK || a == GGUFLINT_E_ARG || a == GGUFLINT_E_NOMEM);
            FUZZ_ASSERT(a != GGUFLINT_OK || (text.bytes > 0 && json.bytes > 0));
        }
    }
    gguflint_free(ctx);
    return 0;
}

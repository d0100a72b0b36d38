/* fuzz_parse.c - parse (and the structural checks) only: the fastest
 * harness. Checks that every finding points inside or at the end of the
 * input and names a real rule. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return 0;
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    if (st == GGUFLINT_OK) {
        const gguflint_header *h = gguflint_get_header(ctx);
        FUZZ_ASSERT(h->file_size == size);
        FUZZ_ASSERT(h->metadata_end <= size);
        FUZZ_ASSERT(gguflint_kv_count(ctx) == h->kv_parsed);
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            FUZZ_ASSERT(gguflint_rule((size_t)f->rule) != NULL);
            FUZZ_ASSERT(f->offset <= size);
            FUZZ_ASSERT(f->message && f->path);
        }
        /* an empty input is always a finding; a clean file has the magic */
        if (size == 0)
            FUZZ_ASSERT(gguflint_finding_count(ctx) == 1);
        if (gguflint_finding_count(ctx) == 0)
            FUZZ_ASSERT(size >= 24 && memcmp(data, "GGUF", 4) == 0);
    }
    gguflint_free(ctx);
    return 0;
}

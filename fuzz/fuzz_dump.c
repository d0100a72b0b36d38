/* fuzz_dump.c - the dump path: parse, then render the header, every KV (with
 * array elements re-read from the value bytes) and the tensor table as text
 * and JSON. Text must never contain a raw control byte. */
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
        fuzz_sink text = {0, 1}, json = {0, 1};
        gguflint_dump(ctx, GGUFLINT_FORMAT_TEXT, fuzz_write, &text);
        gguflint_dump(ctx, GGUFLINT_FORMAT_JSON, fuzz_write, &json);
        FUZZ_ASSERT(text.bytes > 0 && json.bytes > 0);
    }
    gguflint_free(ctx);
    return 0;
}

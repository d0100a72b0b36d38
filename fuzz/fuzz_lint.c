/* fuzz_lint.c - parse, every check and every output format rendered into
 * memory. The last 4 bytes of the input choose the options (when the input
 * is at least 4 bytes long): rule selection, severities, limits, --deep and
 * the output format, so the fuzzer explores option space and file space
 * together. Rendered text must never contain a raw control byte. */
#include "fuzz_common.h"

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return 0;
    size_t body = size;
    if (size >= 4) {
        const uint8_t *t = data + size - 4;
        body = size - 4;
        if (t[0] & 1)
            gguflint_options_set_limit(opt, GGUFLINT_LIMIT_STRING_LEN, 1u + t[1]);
        if (t[0] & 2)
            gguflint_options_set_limit(opt, GGUFLINT_LIMIT_ARRAY_COUNT, t[2]);
        if (t[0] & 4)
            gguflint_options_set_limit(opt, GGUFLINT_LIMIT_DEPTH, 1u + (t[3] & 7u));
        if (t[0] & 8)
            gguflint_options_set_limit(opt, GGUFLINT_LIMIT_FINDINGS_PER_RULE, 1u + (t[1] & 3u));
        if (t[0] & 16)
            gguflint_options_set_limit(opt, GGUFLINT_LIMIT_KV_COUNT, t[2]);
        if (t[0] & 32)
            gguflint_options_set_deep(opt, true);
        if (t[0] & 64) {
            static const char *const sel[] = {"GG1", "tensor", "data,GG0", "GG106,GG2"};
            gguflint_options_select(opt, sel[t[3] & 3u], false, NULL, 0);
        }
        if (t[0] & 128)
            gguflint_options_set_severity(opt, "ALL", (gguflint_severity)(t[3] >> 6));
    }
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!ctx)
        return 0;
    fuzz_check_status(gguflint_set_buffer(ctx, data, body));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    for (int fmt = GGUFLINT_FORMAT_TEXT; fmt <= GGUFLINT_FORMAT_GITHUB; fmt++) {
        fuzz_sink sink = {0, fmt == GGUFLINT_FORMAT_TEXT || fmt == GGUFLINT_FORMAT_GITHUB};
        gguflint_report *r = gguflint_report_new((gguflint_format)fmt, fuzz_write, &sink);
        if (!r)
            continue;
        gguflint_report_file(r, "fuzz\x1b[31m.gguf", ctx, st);
        gguflint_report_end(r, true);
        gguflint_report_free(r);
        FUZZ_ASSERT(sink.bytes > 0 || fmt == GGUFLINT_FORMAT_GITHUB);
    }
    /* the CycloneDX BOM: every general.* value of the file, with a digest */
    fuzz_sink bom = {0, 0};
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_CYCLONEDX, fuzz_write, &bom);
    if (r) {
        gguflint_report_file_ex(r, "fuzz.gguf", ctx, st, NULL,
                                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
        gguflint_report_end(r, true);
        gguflint_report_free(r);
        FUZZ_ASSERT(bom.bytes > 0);
    }
    gguflint_free(ctx);
    return 0;
}

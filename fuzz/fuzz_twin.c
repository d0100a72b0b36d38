/* fuzz_twin.c - the string path's fast twins against their plain paths
 * (issue 28): each input is linted with the vector paths on
 * (fp_force_level(2): the AVX2 token walk and duplicate index, the AVX2
 * UTF-8 check) and off (fp_force_level(0): every token through
 * tok_add_slow, every string through the scalar UTF-8 check); the findings
 * (rule, offset, length, severity, path, message) must be the same. */
#include "fuzz_common.h"

#include "common/fpscan.h"

typedef struct run {
    gguflint_ctx *ctx;
    int status;
} run;

static run lint(const uint8_t *data, size_t size, int level)
{
    fp_force_level(level);
    run r = {gguflint_new(NULL), GGUFLINT_E_NOMEM};
    if (r.ctx) {
        fuzz_check_status(gguflint_set_buffer(r.ctx, data, size));
        r.status = gguflint_run(r.ctx);
        fuzz_check_status(r.status);
    }
    fp_force_level(2);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run fast = lint(data, size, 2), slow = lint(data, size, 0);
    if (fast.ctx && slow.ctx && fast.status != GGUFLINT_E_NOMEM &&
        slow.status != GGUFLINT_E_NOMEM) {
        FUZZ_ASSERT(fast.status == slow.status);
        size_t n = gguflint_finding_count(fast.ctx);
        FUZZ_ASSERT(n == gguflint_finding_count(slow.ctx));
        for (size_t i = 0; i < n; i++) {
            const gguflint_finding *a = gguflint_finding_get(fast.ctx, i);
            const gguflint_finding *b = gguflint_finding_get(slow.ctx, i);
            FUZZ_ASSERT(a->rule == b->rule && a->offset == b->offset && a->length == b->length &&
                        a->severity == b->severity);
            FUZZ_ASSERT(strcmp(a->path, b->path) == 0 && strcmp(a->message, b->message) == 0);
        }
    }
    gguflint_free(fast.ctx);
    gguflint_free(slow.ctx);
    return 0;
}

/* test_security_profile.c - under --profile security, everything that
 * crashed (aborted, faulted, read or wrote out of bounds) a ggml reader in
 * the last two years is an error: the crash history of GGUF-REFERENCE §10
 * and SECURITY-PATTERNS §1.1-1.4, one row per crash, each naming the rules
 * that catch its input. A rule graded down in the security profile fails
 * here; and a zero dimension (SIGFPE in ggml before 2026-08) is checked end
 * to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

static const struct crash {
    const char *ids;  /* rules that catch the input, space-separated */
    const char *what; /* the crash */
} crashes[] = {
    {"GG115", "general.alignment of another type: assert abort in ggml (fixed c2cdd2b2, 2026-08)"},
    {"GG209", "a zero dimension: SIGFPE in ggml's overflow check (fixed c2cdd2b2, 2026-08)"},
    {"GG004 GG007", "version 0 / byte-swapped: assert in ggml 3a9ce1fb (2025-06)"},
    {"GG221 GG216", "padded sizes summing past SIZE_MAX: heap overflow (CVE-2025-53630, 2025-07)"},
    {"GG211 GG210", "tensor byte size overflow: heap overflow (CVE-2026-33298, 2026-02)"},
    {"GG113 GG120 GG111 GG112", "lengths and counts past the bytes: unbounded allocation (#19003)"},
    {"GG101", "an empty key: hard assert in llama.cpp (#24884, 2026-07)"},
    {"GG119 GG122", "general.alignment 0x80000000: abort on 64-bit, pad wrap on 32-bit (V-01)"},
    {"GG116", "general.alignment 0: division by zero in Ollama (CVE-2025-0317)"},
    {"GG202 GG220", "a tensor name of 64+ bytes copied into char[64] (ggml df9ac4ac)"},
    {"GG207", "n_dims over 4: write past ne[4] (CVE-2024-21802)"},
    {"GG212 GG213", "unknown or removed type as a table index (ctransformers, gguf-rs)"},
    {"GG003", "a 4-byte GGUF blob: SIGSEGV in Ollama (CVE-2024-39720)"},
    {"GG504", "general.file_type not u32: GGML_ASSERT in llama.cpp's loader (2025)"},
    {"GG401", "split.no not u16 in a later shard: GGML_ASSERT in llama.cpp's loader (2025)"},
    {"GG550", "an unknown rope.scaling.type: assert in llama.cpp's loader (2025)"},
    {"GG549", "expert_used_count > expert_count: assert in llama.cpp's loader (2025)"},
    {"GG577", "duplicate tokens: assert in llama.cpp's vocabulary (2025)"},
    {"GG572 GG571", "short or 1-byte scores/token_type: out-of-bounds read (#24888, #20735)"},
    {"GG575 GG576", "special token ids past the vocabulary: OOB read (GHSA-g4cc-763q-h9h6)"},
    {"GG579", "a BYTE token '<0x-1>': out-of-bounds write in PLaMo-2 (#25969)"},
    {"GG581", "a token of 2^31 bytes: token_to_piece overflow (CVE-2025-49847)"},
    {"GG583", "a precompiled_charsmap shorter than its prefix: OOB read (#24888)"},
    {"GG109 GG110", "nested arrays: RecursionError in gguf-py"},
    /* found by the loader differential (ci/loader-oracle, llama.cpp 3f545bec) */
    {"GG533", "ssm.inner_size != 2 x n_embd (jamba), experts_per_group 0: GGML_ASSERT"},
    {"GG546 GG547", "head counts 0 or not dividing: SIGFPE / ggml_reshape abort"},
    {"GG520", "a clip.* key of the wrong type: GGML_ASSERT in gguf_get_val_* (mtmd)"},
    {"GG521", "clip hyper-parameters out of range: asserts at the warmup encode (mtmd)"},
    {"GG522", "a tensor the clip graph dereferences without a null check: SIGSEGV"},
    {"GG523", "a clip tensor shape the graph cannot multiply: ggml_can_mul_mat abort"},
};

static size_t security_profile(void)
{
    for (size_t p = 0; gguflint_profile_name(p); p++)
        if (strcmp(gguflint_profile_name(p), "security") == 0)
            return p;
    fail_msg("no security profile");
    return 0;
}

static void test_crash_history_is_error(void **state)
{
    size_t sec = security_profile();
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) {
        char ids[128];
        snprintf(ids, sizeof ids, "%s", crashes[i].ids);
        for (char *id = strtok(ids, " "); id; id = strtok(NULL, " ")) {
            int r = gguflint_rule_find(id);
            if (r < 0)
                fail_msg("%s (%s) is not a rule", id, crashes[i].what);
            if (gguflint_rule_profile_severity((size_t)r, sec) != GGUFLINT_ERROR)
                fail_msg("%s is not an error under --profile security, yet it catches: %s", id,
                         crashes[i].what);
        }
    }
}

/* A zero dimension end to end: a warning by default, an error under security. */
static void test_zero_dim_security(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    uint64_t ne[2] = {4096, 0};
    gb_tensor(b, "empty", 2, ne, GB_F32, 0);
    size_t dim_at = gb_last(b)->dim[1];
    gb_pad_to(b, 32);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    for (int sec = 0; sec <= 1; sec++) {
        gguflint_options *opt = gguflint_options_new();
        assert_non_null(opt);
        if (sec)
            assert_int_equal(gguflint_options_profile(opt, "security"), GGUFLINT_OK);
        gguflint_ctx *ctx = gguflint_new(opt);
        gguflint_options_free(opt);
        assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
        assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
        bool seen = false;
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            if (strcmp(gguflint_rule((size_t)f->rule)->id, "GG209") == 0 && f->offset == dim_at) {
                seen = true;
                assert_int_equal(f->severity, sec ? GGUFLINT_ERROR : GGUFLINT_WARNING);
            }
        }
        assert_true(seen);
        gguflint_free(ctx);
    }
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_crash_history_is_error),
            cmocka_unit_test(test_zero_dim_security),
        })

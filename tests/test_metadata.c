/* test_metadata.c - the general.* rules of check_metadata.c (GG500-GG509):
 * for each rule a file built with the gguf_builder that triggers it, with the
 * exact rule id and byte offset asserted, and clean variants that must not
 * trigger it; plus the real files (vocab-only and historical v3), which must
 * get no warning or error from these rules. */
#define _POSIX_C_SOURCE 200809L

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

/* ------------------------------------------------------------ helpers */

#define EXPECT_AT(buf, len, id, off) ex_expect_at(buf, len, id, off, __func__)

#define EXPECT_NONE(buf, len, id) ex_expect_none(buf, len, NULL, id)

/* Tensors with contiguous offsets and zeroed data, then the buffer. */
static uint8_t *with_tensor(gb *b, uint32_t type, size_t *len)
{
    uint64_t ne[2] = {256, 2};
    gb_tensor(b, "blk.0.attn_q.weight", 2, ne, type, 0);
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)gb_align_up(gb_nbytes(type, 2, ne), 32));
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

#define NO_TENSOR UINT32_MAX

/* Finish builder b (with one tensor of `type`, or none) and check it. */
static void expect_built(gb *b, uint32_t type, const char *id, uint64_t off, bool want,
                         const char *where)
{
    size_t len;
    uint8_t *buf = type == NO_TENSOR ? ex_finish(b, &len) : with_tensor(b, type, &len);
    if (want)
        ex_expect_at(buf, len, id, off, where);
    else
        ex_expect_none_of(buf, len, NULL, (const char *const[]){id, NULL}, where);
}
#define EXPECT_AT_T(b, type, id, off) expect_built(b, type, id, off, true, __func__)
#define EXPECT_NONE_T(b, type, id) expect_built(b, type, id, 0, false, __func__)

/* ------------------------------------------------------------ GG500-GG502 */

static void test_arch_missing(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.name", "x");
    gb_kv_u32(b, "general.quantization_version", 2);
    EXPECT_AT_T(b, GB_F16, "GG500", 16); /* header kv_count */
    b = gb_new(2);
    gb_kv_str(b, "general.name", "x");
    EXPECT_AT_T(b, GB_F16, "GG500", 16);
    b = gb_new(1); /* v1: u32 counts, kv_count at 12 */
    gb_kv_str(b, "general.name", "x");
    EXPECT_AT_T(b, GB_F16, "GG500", 12);

    /* present */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    EXPECT_NONE_T(b, GB_F16, "GG500");
    /* a later split shard carries no model metadata */
    b = gb_new(3);
    gb_kv_u16(b, "split.no", 1);
    gb_kv_u16(b, "split.count", 2);
    gb_kv_i32(b, "split.tensors.count", 2);
    EXPECT_NONE_T(b, GB_F16, "GG500");
    /* imatrix files have no architecture */
    b = gb_new(3);
    gb_kv_str(b, "general.type", "imatrix");
    EXPECT_NONE_T(b, GB_F32, "GG500");
    /* an empty container is no model either (llama.cpp cannot load it) */
    b = gb_new(3);
    {
        size_t len;
        uint8_t *buf = gb_finish(b, &len);
        gb_free(b);
        EXPECT_AT(buf, len, "GG500", 16);
    }
    /* KV table not read to the end: the key may be in the part not read */
    b = gb_new(3);
    gb_override_counts(b, 0, 3);
    gb_kv_str(b, "general.name", "x");
    EXPECT_NONE_T(b, NO_TENSOR, "GG500");
}

static void test_arch_wrong_type(void **state)
{
    gb *b = gb_new(3);
    gb_kv_u32(b, "general.architecture", 7);
    size_t at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG501", at);
    static const char *const arr[] = {"llama"};
    b = gb_new(3);
    gb_kv_arr_str(b, "general.architecture", arr, 1);
    at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG501", at);
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    EXPECT_NONE_T(b, GB_F16, "GG501");
}

static void test_arch_charset(void **state)
{
    static const char *const bad[] = {"Llama", "llama.v2", "llama 3", "", "l\x1b[31m"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", bad[i]);
        size_t at = gb_last(b)->value;
        EXPECT_AT_T(b, GB_F16, "GG502", at);
    }
    /* big-endian files: the same offsets */
    size_t len;
    gb *b = gb_new(3);
    gb_set_big_endian(b, true);
    gb_kv_str(b, "general.architecture", "Llama");
    size_t at = gb_last(b)->value;
    gb_kv_u32(b, "general.file_type", 1024 + 1);
    size_t ft = gb_last(b)->value;
    uint8_t *buf = with_tensor(b, GB_F16, &len);
    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    memcpy(copy, buf, len);
    EXPECT_AT(buf, len, "GG502", at);
    EXPECT_AT(copy, len, "GG509", ft);
    static const char *const good[] = {"llama",      "command-r", "ernie4_5-moe",
                                       "nemotron_h", "qwen2",     "gpt-oss"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        b = gb_new(3);
        gb_kv_str(b, "general.architecture", good[i]);
        EXPECT_NONE_T(b, GB_F16, "GG502");
    }
}

/* ------------------------------------------------------------ GG503-GG504 */

static void test_general_key_wrong_type(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.tags", "a,b");
    size_t at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG503", at);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.base_model.0.name", 3);
    at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG503", at);

    /* an array of the wrong element type: at the element-type field */
    uint32_t v[2] = {1, 2};
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr(b, "general.languages", GB_VT_U32, 2, v, sizeof v);
    at = gb_last(b)->value;
    EXPECT_AT_T(b, GB_F16, "GG503", at);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_i64(b, "general.quantization_version", 2);
    at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG503", at);

    /* the types gguf-py writes; unknown general.* keys are not judged */
    static const char *const tags[] = {"text-generation", "llama"};
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.license", "mit");
    gb_kv_str(b, "general.source.url", "https://example.org");
    gb_kv_arr_str(b, "general.tags", tags, 2);
    gb_kv_u32(b, "general.base_model.count", 1);
    gb_kv_str(b, "general.base_model.0.name", "base");
    gb_kv_str(b, "general.base_model.0.repo_url", "https://example.org");
    gb_kv_u32(b, "general.dataset.count", 1);
    gb_kv_str(b, "general.dataset.0.name", "data");
    gb_kv_u32(b, "general.quantization_version", 2);
    gb_kv_u64(b, "general.some_private_key", 5);
    gb_kv_u32(b, "general.base_model.0.tags", 5); /* unknown field */
    EXPECT_NONE_T(b, GB_F16, "GG503");
}

static void test_loader_key_wrong_type(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.name", 1);
    size_t at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG504", at);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_i32(b, "general.file_type", 1);
    at = gb_last(b)->vtype;
    EXPECT_AT_T(b, GB_F16, "GG504", at);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "x");
    gb_kv_u32(b, "general.file_type", 1);
    EXPECT_NONE_T(b, GB_F16, "GG504");
}

/* ------------------------------------------------------------ GG505-GG506 */

static void test_quant_version_missing(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    EXPECT_AT_T(b, GB_Q8_0, "GG505", 16);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.quantization_version", 2);
    EXPECT_NONE_T(b, GB_Q8_0, "GG505");
    /* nothing quantized */
    static const uint32_t plain[] = {GB_F32, GB_F16, GB_BF16, GB_I8, GB_I32};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        EXPECT_NONE_T(b, plain[i], "GG505");
    }
    /* a later split shard */
    b = gb_new(3);
    gb_kv_u16(b, "split.no", 2);
    EXPECT_NONE_T(b, GB_Q4_K, "GG505");
}

static void test_quant_version_value(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.quantization_version", 1);
    size_t at = gb_last(b)->value;
    EXPECT_AT_T(b, GB_Q8_0, "GG506", at);

    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.quantization_version", 2);
    EXPECT_NONE_T(b, GB_Q8_0, "GG506");
}

/* ------------------------------------------------------------ GG507-GG509 */

static uint8_t *file_type_file(uint32_t ft, size_t *at, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.file_type", ft);
    *at = gb_last(b)->value;
    return ex_finish(b, len);
}

static void test_file_type_values(void **state)
{
    size_t at, len;
    static const uint32_t removed[] = {4, 5, 6, 33, 34, 35};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        uint8_t *buf = file_type_file(removed[i], &at, &len);
        EXPECT_AT(buf, len, "GG507", at);
    }
    static const uint32_t unknown[] = {42, 99, 1023, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        uint8_t *buf = file_type_file(unknown[i], &at, &len);
        EXPECT_AT(buf, len, "GG508", at);
    }
    uint8_t *buf = file_type_file(1024 + 15, &at, &len);
    EXPECT_AT(buf, len, "GG509", at);
    buf = file_type_file(1024 + 15, &at, &len);
    EXPECT_NONE(buf, len, "GG508");

    /* every current value, including 38-41 */
    for (uint32_t v = 0; v <= 41; v++) {
        if ((v >= 4 && v <= 6) || (v >= 33 && v <= 35))
            continue;
        buf = file_type_file(v, &at, &len);
        EXPECT_NONE(buf, len, "GG507");
        buf = file_type_file(v, &at, &len);
        EXPECT_NONE(buf, len, "GG508");
        buf = file_type_file(v, &at, &len);
        EXPECT_NONE(buf, len, "GG509");
    }
}

/* ------------------------------------------------------------ profiles */

static void test_profiles(void **state)
{
    int r = gguflint_rule_find("GG505");
    assert_true(r >= 0);
    /* ggml profile is the default; the spec requires the key */
    assert_int_equal(gguflint_rule_profile_severity((size_t)r, 0), GGUFLINT_WARNING);
    assert_int_equal(gguflint_rule_profile_severity((size_t)r, 1), GGUFLINT_ERROR);
    r = gguflint_rule_find("architecture-missing");
    assert_true(r >= 0);
    assert_string_equal(gguflint_rule((size_t)r)->family, "model");
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_arch_missing),
            cmocka_unit_test(test_arch_wrong_type),
            cmocka_unit_test(test_arch_charset),
            cmocka_unit_test(test_general_key_wrong_type),
            cmocka_unit_test(test_loader_key_wrong_type),
            cmocka_unit_test(test_quant_version_missing),
            cmocka_unit_test(test_quant_version_value),
            cmocka_unit_test(test_file_type_values),
            cmocka_unit_test(test_profiles),
        })

/* test_container.c - the container rules (GG0xx, rules/container.def): for
 * each rule a file that triggers it with the finding at the exact offset of
 * the offending field, and clean variants that must not. */

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
#include "rulekit.h"

/* The structural rules only (see rulekit.h). */
#define ST rk_structural()

static void header_with_version(uint32_t v, uint8_t **buf, size_t *len)
{
    gb *b = gb_new(v);
    *buf = rk_finish(b, len);
}

static void test_GG001_empty_file(void **state)
{
    static const uint8_t one[1] = {0};
    ex_assert_finding(one, 0, ST, "GG001", 0);
}

static void test_GG002_not_gguf(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    buf[3] = 'X';
    ex_assert_finding(buf, len, ST, "GG002", 0);
    static const uint8_t fugg[24] = {'F', 'U', 'G', 'G', 3};
    ex_assert_finding(fugg, sizeof fugg, ST, "GG002", 0);
    static const uint8_t elf[24] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    ex_assert_finding(elf, sizeof elf, ST, "GG002", 0);
    free(buf);
}

static void test_GG003_truncated_header(void **state)
{
    size_t len;
    uint8_t *buf = rk_finish(gb_new(3), &len);
    /* Each cut lands inside a field: version (4), tensor_count (8), kv_count (16). */
    ex_assert_finding(buf, 6, ST, "GG003", 4);
    ex_assert_finding(buf, 10, ST, "GG003", 8);
    ex_assert_finding(buf, 20, ST, "GG003", 16);
    ex_assert_finding(buf, 23, ST, "GG003", 16);
    /* Cut exactly at a field boundary: the next field is missing. */
    ex_assert_finding(buf, 16, ST, "GG003", 16);
    ex_assert_no_rule(buf, 24, ST, "GG003");
    free(buf);
    /* v1: 16-byte header, kv_count at 12. */
    buf = rk_finish(gb_new(1), &len);
    assert_int_equal(len, 16);
    ex_assert_finding(buf, 14, ST, "GG003", 12);
    free(buf);
}

static void test_GG004_unsupported_version(void **state)
{
    uint32_t bad[] = {0, 4, 99, 0x7fffffffu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *buf;
        size_t len;
        header_with_version(bad[i], &buf, &len);
        ex_assert_finding(buf, len, ST, "GG004", 4);
        free(buf);
    }
    uint8_t *buf;
    size_t len;
    header_with_version(3, &buf, &len);
    ex_assert_no_rule(buf, len, ST, "GG004");
    free(buf);
}

static void test_GG005_legacy_v1(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model_ex(1, false, &len);
    ex_assert_finding(buf, len, ST, "GG005", 4);
    /* v1 is parsed with u32 widths: nothing else is wrong with the file. */
    ex_assert_only_rules(buf, len, ST, "GG005");
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_int_equal(h->version, 1);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    assert_true(h->metadata_complete);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG006_version_2(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model_ex(2, false, &len);
    ex_assert_finding(buf, len, ST, "GG006", 4);
    ex_assert_only_rules(buf, len, ST, "GG006");
    free(buf);
    buf = gb_small_model(&len);
    ex_assert_no_rule(buf, len, ST, "GG006");
    free(buf);
}

static void test_GG007_byte_swapped(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model_ex(3, true, &len);
    assert_memory_equal(buf, "GGUF\0\0\0\3", 8);
    ex_assert_finding(buf, len, ST, "GG007", 4);
    /* The file is parsed byte-swapped: nothing else is wrong with it. */
    ex_assert_only_rules(buf, len, ST, "GG007");
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_true(h->big_endian);
    assert_int_equal(h->version, 3);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    long ai = gguflint_kv_find(ctx, "general.alignment");
    assert_true(ai >= 0);
    assert_int_equal(gguflint_kv_get(ctx, (size_t)ai)->u, 32);
    gguflint_free(ctx);
    free(buf);
    buf = gb_small_model(&len);
    ex_assert_no_rule(buf, len, ST, "GG007");
    free(buf);
}

static void test_GG008_kv_count_impossible(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_override_counts(b, 0, UINT64_C(1) << 32);
    RK_EXPECT(b, ST, "GG008", 16);
    /* One real KV, a thousand declared. */
    b = gb_new(3);
    gb_kv_u32(b, "a", 1);
    gb_override_counts(b, 0, 1000);
    RK_EXPECT(b, ST, "GG008", 16);
    /* v1: kv_count at 12. */
    b = gb_new(1);
    gb_override_counts(b, 0, 0x7fffffff);
    RK_EXPECT(b, ST, "GG008", 12);
    /* Feasible count: no GG008. */
    b = gb_new(3);
    gb_kv_u32(b, "a", 1);
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_no_rule(buf, len, ST, "GG008");
    free(buf);
}

static void test_GG009_tensor_count_impossible(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_override_counts(b, UINT64_C(1) << 40, 0);
    RK_EXPECT(b, ST, "GG009", 8);
    b = gb_new(1);
    gb_override_counts(b, 0xffffffffu, 0);
    RK_EXPECT(b, ST, "GG009", 8);
    uint8_t *buf = gb_small_model(&len);
    ex_assert_no_rule(buf, len, ST, "GG009");
    free(buf);
}

static void test_GG010_truncated(void **state)
{
    size_t len;
    /* Long keys keep the declared counts feasible (no GG008) at every cut. */
    static const char k1[] = "general.some_long_key_name";
    static const char k2[] = "general.another_long_key";
    /* A KV's u32 value cut after 2 bytes: GG010 at the value. */
    gb *b = gb_new(3);
    gb_kv_u32(b, k1, 1);
    gb_marks m = *gb_last(b);
    uint8_t *buf = rk_finish(b, &len);
    assert_int_equal(m.value, 24 + 8 + strlen(k1) + 4);
    ex_assert_finding(buf, len - 2, ST, "GG010", m.value);
    /* Cut inside the value-type field. */
    ex_assert_finding(buf, m.vtype + 2, ST, "GG010", m.vtype);
    free(buf);

    /* The second KV's key length field cut after 3 bytes. */
    b = gb_new(3);
    gb_kv_u8(b, k1, 1);
    gb_kv_u8(b, k2, 2);
    m = *gb_last(b);
    buf = rk_finish(b, &len);
    ex_assert_finding(buf, m.start + 3, ST, "GG010", m.start);
    free(buf);

    /* A tensor's second dim cut after 4 bytes. */
    b = gb_new(3);
    uint64_t ne[2] = {8, 8};
    gb_tensor(b, "t", 2, ne, GB_F32, 0);
    m = *gb_last(b);
    buf = rk_finish(b, &len);
    assert_int_equal(m.dim[1], 24 + 8 + 1 + 4 + 8);
    ex_assert_finding(buf, m.dim[1] + 4, ST, "GG010", m.dim[1]);
    /* Cut inside the offset field and inside the type field. */
    ex_assert_finding(buf, m.offset + 7, ST, "GG010", m.offset);
    ex_assert_finding(buf, m.ttype + 1, ST, "GG010", m.ttype);
    free(buf);
}

static void test_GG011_kv_count_over_limit(void **state)
{
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    gguflint_options *o = rk_options();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 2);
    ex_assert_finding(buf, len, o, "GG011", 16);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 12);
    ex_assert_no_rule(buf, len, o, "GG011");
    free(buf);
    gguflint_options_free(o);
}

static void test_GG012_tensor_count_over_limit(void **state)
{
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    gguflint_options *o = rk_options();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_TENSOR_COUNT, 1);
    ex_assert_finding(buf, len, o, "GG012", 8);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_TENSOR_COUNT, 3);
    ex_assert_no_rule(buf, len, o, "GG012");
    free(buf);
    gguflint_options_free(o);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_GG001_empty_file),
            cmocka_unit_test(test_GG002_not_gguf),
            cmocka_unit_test(test_GG003_truncated_header),
            cmocka_unit_test(test_GG004_unsupported_version),
            cmocka_unit_test(test_GG005_legacy_v1),
            cmocka_unit_test(test_GG006_version_2),
            cmocka_unit_test(test_GG007_byte_swapped),
            cmocka_unit_test(test_GG008_kv_count_impossible),
            cmocka_unit_test(test_GG009_tensor_count_impossible),
            cmocka_unit_test(test_GG010_truncated),
            cmocka_unit_test(test_GG011_kv_count_over_limit),
            cmocka_unit_test(test_GG012_tensor_count_over_limit),
        })

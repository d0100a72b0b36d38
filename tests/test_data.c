/* test_data.c - the data-section rules (GG3xx, rules/data.def): padding,
 * trailing bytes, missing final padding and the --header-only note, at exact
 * offsets; the --deep value checks are in test_deep.c. */

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

static void test_GG301_nonzero_padding(void **state)
{
    rk_layout l = {.nt = 1, .t = {RK_T("a", 1, GB_F32, 8)}};
    rk_built r = rk_build(&l);
    assert_true(r.data_start - r.info_end > 3);
    ex_assert_clean(r.buf, r.len, ST);
    r.buf[r.info_end + 2] = 0x55;
    r.buf[r.info_end + 3] = 0x01;
    ex_assert_finding(r.buf, r.len, ST, "GG301", r.info_end + 2);
    free(r.buf);
}

/* Padding inside the data section is only read with opt.deep. */
static void test_GG301_nonzero_padding_deep(void **state)
{
    gguflint_options *deep = rk_options();
    gguflint_options_set_deep(deep, true);
    gguflint_options_select(deep, "GG312", false, NULL, 0); /* zero data is fine here */
    /* Between tensors: a is 16 bytes padded to 32, b follows at 32. */
    rk_layout l = {.nt = 2, .t = {RK_T("a", 1, GB_F32, 4), RK_T("b", 1, GB_F32, 8)}};
    rk_built r = rk_build(&l);
    ex_assert_clean(r.buf, r.len, deep);
    size_t at = r.data_start + 20;
    r.buf[at] = 0x01;
    ex_assert_finding(r.buf, r.len, deep, "GG301", at);
    ex_assert_no_rule(r.buf, r.len, ST, "GG301");
    free(r.buf);
    /* After the last tensor. */
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    buf[len - 3] = 0xEE;
    buf[len - 1] = 0xEE;
    ex_assert_finding(buf, len, deep, "GG301", len - 3);
    ex_assert_no_rule(buf, len, ST, "GG301");
    free(buf);
    gguflint_options_free(deep);
}

static void test_GG302_trailing_bytes(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model(&len);
    uint8_t *buf = malloc(len + 5);
    assert_non_null(buf);
    memcpy(buf, model, len);
    memset(buf + len, 0xAB, 5);
    ex_assert_finding(buf, len + 5, ST, "GG302", len);
    /* Trailing zeros after a complete data section are trailing bytes too. */
    memset(buf + len, 0, 5);
    ex_assert_finding(buf, len + 5, ST, "GG302", len);
    free(buf);
    free(model);

    /* 0 tensors: zero padding to the alignment is fine, other bytes are not. */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    size_t end = gb_offset(b);
    gb_pad_to(b, 32);
    assert_true(gb_offset(b) > end);
    buf = rk_finish(b, &len);
    ex_assert_clean(buf, len, ST);
    ex_assert_clean(buf, end, ST); /* unpadded, like gguf-py vocab files */
    buf[end] = 0x01;
    ex_assert_finding(buf, len, ST, "GG302", end);
    free(buf);
}

/* --header-only: a prefix of a valid file gets one note, no bounds errors. */
static void test_GG304_data_not_checked(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    gguflint_options *o = rk_options();
    gguflint_options_set_header_only(o, true);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    uint64_t metadata_end = gguflint_get_header(ctx)->metadata_end;
    gguflint_free(ctx);
    /* cut inside the data section: only the note */
    ex_assert_finding(buf, 800, o, "GG304", metadata_end);
    ex_assert_only_rules(buf, 800, o, "GG304");
    /* cut right after the metadata, inside the padding */
    ex_assert_only_rules(buf, (size_t)metadata_end + 3, o, "GG304");
    /* the whole file: still only the note (nothing is wrong with it) */
    ex_assert_only_rules(buf, len, o, "GG304");
    /* without --header-only the prefix is an error, the whole file clean */
    ex_assert_finding(buf, 800, ST, "GG216", 0x2e3);
    ex_assert_no_rule(buf, len, ST, "GG304");
    /* a hostile offset is still caught in a prefix */
    gguflint_options_set_header_only(o, true);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG303_missing_final_padding(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    /* The last tensor, q8_0 [32, 2], is 68 bytes padded to 96: the file may be
     * cut anywhere in those 28 padding bytes. */
    uint64_t ne[2] = {32, 2};
    uint64_t last = gb_nbytes(GB_Q8_0, 2, ne);
    size_t tail = (size_t)(gb_align_up(last, 32) - last);
    assert_int_equal(tail, 28);
    ex_assert_finding(buf, len - 1, ST, "GG303", len - 1);
    ex_assert_finding(buf, len - tail, ST, "GG303", len - tail);
    ex_assert_only_rules(buf, len - 5, ST, "GG303");
    /* One byte of tensor data missing: that is data-past-eof, not GG303. */
    ex_assert_no_rule(buf, len - tail - 1, ST, "GG303");
    ex_assert_no_rule(buf, len, ST, "GG303");
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_GG301_nonzero_padding),
            cmocka_unit_test(test_GG301_nonzero_padding_deep),
            cmocka_unit_test(test_GG302_trailing_bytes),
            cmocka_unit_test(test_GG304_data_not_checked),
            cmocka_unit_test(test_GG303_missing_final_padding),
        })

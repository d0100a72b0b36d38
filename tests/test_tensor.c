/* test_tensor.c - the tensor-info rules (GG2xx, rules/tensor.def): files of
 * up to four tensors described as layouts (rulekit.h), each triggering a rule
 * at the exact offset of the offending field (name, n_dims, a dim, the type,
 * the offset), and clean variants. Most cases are rows of one table. */

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

#define N16 "nnnnnnnnnnnnnnnn"
#define N64 N16 N16 N16 N16
#define A8 RK_T("a", 1, GB_F32, 8) /* a first tensor with nothing wrong */

/* Where a tensor finding must be: a field of the tensor's info. */
typedef enum { AT_START, AT_NDIMS, AT_DIM0, AT_DIM1, AT_DIM2, AT_TYPE, AT_OFFSET } field;

/* One file as a layout; the rule `id` reported at field `at` of tensor
 * `tensor` (id NULL: not reported, see `not`), `not` not reported, and with
 * `only` nothing but `id`. */
typedef struct tensor_case {
    const char *id;
    rk_layout l;
    size_t tensor;
    field at;
    const char * not ;
    bool only;
} tensor_case;

static const tensor_case tensor_cases[] = {
    {"GG201", {.nt = 2, .t = {A8, RK_T("", 1, GB_F32, 8)}}, 1, AT_START, NULL, false},
    /* 64 bytes: over ggml's 63, within the spec's 64; 63 is fine */
    {"GG202", {.nt = 2, .t = {A8, RK_T(N64, 1, GB_F32, 8)}}, 1, AT_START, "GG220", false},
    {NULL,
     {.nt = 2, .t = {A8, RK_T(N16 N16 N16 "nnnnnnnnnnnnnnn", 1, GB_F32, 8)}},
     0,
     AT_START,
     "GG202",
     true},
    {"GG220", {.nt = 2, .t = {A8, RK_T(N64 "n", 1, GB_F32, 8)}}, 1, AT_START, NULL, false},
    {"GG203", {.nt = 2, .t = {A8, RK_T("w\xff", 1, GB_F32, 8)}}, 1, AT_START, NULL, false},
    {"GG204",
     {.nt = 2,
      .t = {A8,
            {.name = "b\0c",
             .namelen = 3,
             .n_dims = 1,
             .ne = {8},
             .type = GB_F32,
             .offset = RK_AUTO}}},
     1,
     AT_START,
     NULL,
     false},
    {"GG206",
     {.nt = 2, .t = {A8, {.name = "s", .n_dims = 0, .type = GB_F32, .offset = RK_AUTO}}},
     1,
     AT_NDIMS,
     NULL,
     true},
    {"GG207", {.nt = 2, .t = {A8, RK_T("b", 5, GB_F32, 8, 1, 1, 1, 1)}}, 1, AT_NDIMS, NULL, false},
    {"GG208", {.nt = 2, .t = {A8, RK_T("b", 2, GB_F32, 8, UINT64_MAX)}}, 1, AT_DIM1, NULL, false},
    {"GG208",
     {.nt = 1, .t = {RK_T("a", 3, GB_F32, 8, 1, UINT64_C(1) << 63)}},
     0,
     AT_DIM2,
     NULL,
     false},
    {"GG209",
     {.nt = 2, .t = {RK_T("a", 2, GB_F32, 8, 0), RK_T("b", 1, GB_F32, 8)}},
     0,
     AT_DIM1,
     NULL,
     true},
    /* (2^32 + 1) * 2^32 wraps to 2^32 > 0: ggml's check runs and rejects */
    {"GG210",
     {.nt = 2, .t = {A8, RK_T("b", 2, GB_F32, (UINT64_C(1) << 32) + 1, UINT64_C(1) << 32)}},
     1,
     AT_START,
     "GG515",
     false},
    /* the count wraps to zero or below: ggml (2026-08) skips its check and
     * accepts; GG515 (a warning under ggml), not GG210 */
    {"GG515",
     {.nt = 2, .t = {A8, RK_T("b", 2, GB_F32, UINT64_C(1) << 32, UINT64_C(1) << 32)}},
     1,
     AT_START,
     "GG210",
     false},
    /* 3 * 2^62 wraps to a negative count */
    {"GG515",
     {.nt = 1, .t = {RK_T("c", 2, GB_F32, 3, UINT64_C(1) << 62)}},
     0,
     AT_START,
     "GG210",
     false},
    /* four dims of 2^16: 2^64 elements, wraps to 0 */
    {"GG515",
     {.nt = 1,
      .t = {RK_T("c", 4, GB_F32, UINT64_C(1) << 16, UINT64_C(1) << 16, UINT64_C(1) << 16,
                 UINT64_C(1) << 16)}},
     0,
     AT_START,
     NULL,
     false},
    /* 2^62 f32 elements fit int64, 2^64 bytes do not fit uint64 */
    {"GG211",
     {.nt = 2, .t = {A8, RK_T("b", 1, GB_F32, UINT64_C(1) << 62)}},
     1,
     AT_START,
     "GG210",
     false},
    {"GG212", {.nt = 2, .t = {A8, RK_T("b", 1, 43, 32)}}, 1, AT_TYPE, "GG213", false},
    {"GG212", {.nt = 2, .t = {A8, RK_T("b", 1, 99, 32)}}, 1, AT_TYPE, "GG213", false},
    {"GG212", {.nt = 2, .t = {A8, RK_T("b", 1, 0xffffffffu, 32)}}, 1, AT_TYPE, "GG213", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 4, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 5, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 31, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 32, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 33, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 36, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 37, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG213", {.nt = 2, .t = {A8, RK_T("b", 1, 38, 32)}}, 1, AT_TYPE, "GG212", false},
    {"GG214", {.nt = 2, .t = {A8, RK_T("b", 2, GB_Q8_0, 33, 2)}}, 1, AT_DIM0, NULL, false},
    {"GG214", {.nt = 1, .t = {RK_T("k", 1, GB_Q4_K, 128)}}, 0, AT_DIM0, NULL, false},
    /* a: 16 bytes at 0; b at 16: not a multiple of 32, no overlap */
    {"GG215",
     {.nt = 2, .t = {RK_T("a", 1, GB_F32, 4), RK_TO("b", 1, GB_F32, 16, 4)}},
     1,
     AT_OFFSET,
     "GG217",
     false},
    {NULL,
     {.nt = 2, .t = {RK_T("a", 1, GB_F32, 4), RK_TO("b", 1, GB_F32, 32, 4)}},
     0,
     AT_START,
     "GG215",
     false},
    /* general.alignment 64: offset 32 is misaligned */
    {"GG215",
     {.nt = 2, .t = {RK_T("a", 1, GB_F32, 4), RK_TO("b", 1, GB_F32, 32, 4)}, .align_kv = 64},
     1,
     AT_OFFSET,
     NULL,
     false},
    {"GG216",
     {.nt = 1, .t = {RK_T("a", 1, GB_F32, 1024)}, .data_len_set = true, .data_len = 32},
     0,
     AT_OFFSET,
     NULL,
     false},
    /* an offset beyond the end of the file, and one where offset + size wraps */
    {"GG216",
     {.nt = 2, .t = {A8, RK_TO("b", 1, GB_F32, UINT64_C(1) << 40, 8)}},
     1,
     AT_OFFSET,
     NULL,
     false},
    {"GG216",
     {.nt = 2, .t = {A8, RK_TO("b", 1, GB_F32, UINT64_MAX - 31, 8)}},
     1,
     AT_OFFSET,
     NULL,
     false},
    /* a: 64 bytes at 0; b at 32 overlaps it; listed the other way round the
     * later-offset tensor is the first one; adjacent is fine */
    {"GG217",
     {.nt = 2, .t = {RK_T("a", 1, GB_F32, 16), RK_TO("b", 1, GB_F32, 32, 16)}},
     1,
     AT_OFFSET,
     NULL,
     false},
    {"GG217",
     {.nt = 2, .t = {RK_TO("a", 1, GB_F32, 32, 16), RK_TO("b", 1, GB_F32, 0, 16)}},
     0,
     AT_OFFSET,
     NULL,
     false},
    {NULL,
     {.nt = 2, .t = {RK_TO("a", 1, GB_F32, 0, 16), RK_TO("b", 1, GB_F32, 64, 16)}},
     0,
     AT_START,
     "GG217",
     false},
    /* a: 16 bytes (padded 32) at 0; b at 64 leaves a gap; a first tensor not at 0 */
    {"GG218",
     {.nt = 2, .t = {RK_T("a", 1, GB_F32, 4), RK_TO("b", 1, GB_F32, 64, 4)}},
     1,
     AT_OFFSET,
     "GG215",
     false},
    {"GG218", {.nt = 1, .t = {RK_TO("a", 1, GB_F32, 32, 4)}}, 0, AT_OFFSET, NULL, false},
};

static uint64_t field_offset(const gb_marks *m, field at)
{
    switch (at) {
    case AT_NDIMS: return m->n_dims;
    case AT_DIM0: return m->dim[0];
    case AT_DIM1: return m->dim[1];
    case AT_DIM2: return m->dim[2];
    case AT_TYPE: return m->ttype;
    case AT_OFFSET: return m->offset;
    default: return m->start;
    }
}

static void test_tensor_cases(void **state)
{
    for (size_t i = 0; i < sizeof tensor_cases / sizeof tensor_cases[0]; i++) {
        const tensor_case *c = &tensor_cases[i];
        char where[64];
        snprintf(where, sizeof where, "tensor case %zu (%s)", i, c->id ? c->id : "clean");
        rk_built r = rk_build(&c->l);
        if (c->id)
            ex_assert_finding_at(r.buf, r.len, ST, c->id, field_offset(&r.t[c->tensor], c->at),
                                 where);
        if (c->not )
            ex_assert_no_rule_at(r.buf, r.len, ST, c->not, where);
        if (c->only && c->id) {
            const char *ids[] = {c->id, NULL};
            ex_assert_only_rules_at(r.buf, r.len, ST, ids, where);
        } else if (c->only) {
            ex_assert_clean_at(r.buf, r.len, ST, where);
        }
        free(r.buf);
    }
}

static void test_GG205_duplicate_tensor_name(void **state)
{
    rk_layout l = {.nt = 3, .t = {A8, RK_T("b", 1, GB_F32, 8), A8}};
    rk_built r = rk_build(&l);
    ex_assert_finding(r.buf, r.len, ST, "GG205", r.t[2].start);
    gguflint_ctx *ctx = ex_lint_opt(r.buf, r.len, ST, NULL);
    size_t first;
    ex_count_id(ctx, "GG205", r.t[0].start, &first);
    assert_int_equal(first, 0);
    gguflint_free(ctx);
    free(r.buf);
}

static void test_GG219_data_start_past_eof(void **state)
{
    rk_layout l = {.nt = 1, .t = {RK_T("a", 1, GB_F32, 8)}, .stop_after_infos = true};
    rk_built r = rk_build(&l);
    assert_true(r.info_end % 32 != 0);
    assert_int_equal(r.len, r.info_end);
    ex_assert_finding(r.buf, r.len, ST, "GG219", r.info_end);
    /* Part of the padding present. */
    free(r.buf);
    l.stop_after_infos = false;
    r = rk_build(&l);
    assert_true(r.data_start - r.info_end > 1);
    ex_assert_finding(r.buf, r.info_end + 1, ST, "GG219", r.info_end);
    free(r.buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_tensor_cases),
            cmocka_unit_test(test_GG205_duplicate_tensor_name),
            cmocka_unit_test(test_GG219_data_start_past_eof),
        })

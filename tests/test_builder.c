/* test_builder.c - the in-memory GGUF builder the rule tests compute their
 * offsets from, checked against hand-written encodings (v3, big-endian, v1,
 * padding), and the clean files: the canned small model, a bare header and
 * layouts of every tensor type family report nothing. */

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

/* The builder writes the bytes the tests' offsets are computed from: check it
 * against hand-written encodings. */
static void test_builder_encoding(void **state)
{
    size_t len;
    /* v3 little-endian: header, a u16 KV, a u32 array, a tensor. */
    gb *b = gb_new(3);
    assert_int_equal(gb_offset(b), 24);
    assert_int_equal(gb_kv_u16(b, "k", 0x1234), 24);
    gb_marks m = *gb_last(b);
    assert_int_equal(m.start, 24);
    assert_int_equal(m.key, 32);
    assert_int_equal(m.vtype, 33);
    assert_int_equal(m.value, 37);
    assert_int_equal(m.end, 39);
    uint32_t el[2] = {1, 0x01020304};
    gb_kv_arr(b, "a", GB_VT_U32, 2, el, sizeof el);
    m = *gb_last(b);
    assert_int_equal(m.value, 39 + 13);
    assert_int_equal(m.arr_count, 39 + 17);
    assert_int_equal(m.arr_elems, 39 + 25);
    uint64_t ne[2] = {256, 3};
    gb_tensor(b, "t", 2, ne, GB_Q4_K, 64);
    m = *gb_last(b);
    assert_int_equal(m.n_dims, m.start + 9);
    assert_int_equal(m.dim[0], m.start + 13);
    assert_int_equal(m.dim[1], m.start + 21);
    assert_int_equal(m.ttype, m.start + 29);
    assert_int_equal(m.offset, m.start + 33);
    assert_int_equal(m.end, m.start + 41);
    assert_int_equal(gb_kv_written(b), 2);
    assert_int_equal(gb_tensors_written(b), 1);
    uint8_t *buf = rk_finish(b, &len);
    static const uint8_t head[] = {'G', 'G', 'U', 'F', 3, 0, 0,   0, 1, 0, 0, 0,    0,
                                   0,   0,   0,   2,   0, 0, 0,   0, 0, 0, 0, 1,    0,
                                   0,   0,   0,   0,   0, 0, 'k', 2, 0, 0, 0, 0x34, 0x12};
    assert_memory_equal(buf, head, sizeof head);
    static const uint8_t arr[] = {4, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 3, 2, 1};
    assert_memory_equal(buf + 39 + 13, arr, sizeof arr);
    free(buf);

    /* Big-endian: magic kept, everything after swapped. */
    b = gb_new(3);
    gb_set_big_endian(b, true);
    gb_kv_f32(b, "f", 1.0f);
    gb_kv_arr(b, "a", GB_VT_U32, 2, el, sizeof el);
    buf = rk_finish(b, &len);
    static const uint8_t be[] = {'G', 'G', 'U', 'F', 0,   0, 0, 3, 0, 0,    0,    0, 0, 0,
                                 0,   0,   0,   0,   0,   0, 0, 0, 0, 2,    0,    0, 0, 0,
                                 0,   0,   0,   1,   'f', 0, 0, 0, 6, 0x3f, 0x80, 0, 0};
    assert_memory_equal(buf, be, sizeof be);
    static const uint8_t beel[] = {0, 0, 0, 1, 1, 2, 3, 4};
    assert_memory_equal(buf + len - 8, beel, 8);
    free(buf);

    /* v1: u32 counts and lengths; override counts. */
    b = gb_new(1);
    assert_int_equal(gb_offset(b), 16);
    gb_kv_str(b, "s", "xy");
    gb_override_counts(b, 7, 9);
    buf = rk_finish(b, &len);
    static const uint8_t v1[] = {'G', 'G', 'U', 'F', 1,   0, 0, 0, 7, 0, 0, 0, 9, 0,   0,  0,
                                 1,   0,   0,   0,   's', 8, 0, 0, 0, 2, 0, 0, 0, 'x', 'y'};
    assert_int_equal(len, sizeof v1);
    assert_memory_equal(buf, v1, sizeof v1);
    free(buf);

    /* Padding, sizes, NULL safety, finish twice. */
    b = gb_new(3);
    gb_u8(b, 1);
    gb_pad_to(b, 32);
    assert_int_equal(gb_offset(b), 32);
    gb_pad_to(b, 32);
    assert_int_equal(gb_offset(b), 32);
    buf = gb_finish(b, &len);
    assert_non_null(buf);
    assert_null(gb_finish(b, &len));
    assert_false(gb_ok(b));
    gb_free(b);
    free(buf);
    assert_int_equal(gb_kv_u32(NULL, "x", 1), 0);
    assert_null(gb_finish(NULL, &len));
    assert_int_equal(len, 0);
    gb_free(NULL);
    uint64_t q[2] = {256, 3};
    assert_int_equal(gb_nbytes(GB_Q4_K, 2, q), 432);
    uint64_t r[1] = {33};
    assert_true(gb_nbytes(GB_Q8_0, 1, r) == UINT64_MAX);
    assert_true(gb_nbytes(4, 1, r) == UINT64_MAX);
    assert_true(gb_nbytes(99, 1, r) == UINT64_MAX);
    uint64_t z[2] = {8, 0};
    assert_int_equal(gb_nbytes(GB_F32, 2, z), 0);
    assert_int_equal(gb_nbytes(GB_F16, 0, NULL), 2);
    assert_int_equal(gb_align_up(33, 32), 64);
    assert_int_equal(gb_align_up(48, 48), 48);
}

static void test_small_model_clean(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    gguflint_options *o = rk_options();
    ex_assert_clean(buf, len, o);
    ex_assert_clean(buf, len, ST);
    gguflint_options_set_deep(o, true);
    /* the builder's tensors hold zeros: GG312 (test_deep.c) would fire */
    gguflint_options_select(o, "GG312", false, NULL, 0);
    ex_assert_clean(buf, len, o);

    /* The model as parsed matches what the builder wrote. */
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_non_null(h);
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 3);
    assert_false(h->big_endian);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    assert_int_equal(h->kv_parsed, 12);
    assert_int_equal(h->tensors_parsed, 3);
    assert_int_equal(h->alignment, 32);
    assert_true(h->metadata_complete);
    assert_int_equal(h->data_start % 32, 0);
    assert_int_equal(h->data_start + 64 + 32 + 96, len);
    assert_int_equal(gguflint_tensor_count(ctx), 3);
    const gguflint_tensor *t = gguflint_tensor_get(ctx, 2);
    assert_non_null(t);
    assert_int_equal(t->offset, 96);
    assert_int_equal(t->nbytes, 68);
    assert_int_equal(t->type, GB_Q8_0);
    long ai = gguflint_kv_find(ctx, "general.alignment");
    assert_true(ai >= 0);
    assert_int_equal(gguflint_kv_get(ctx, (size_t)ai)->u, 32);
    gguflint_free(ctx);
    free(buf);
    gguflint_options_free(o);
}

static void test_header_only_clean(void **state)
{
    size_t len;
    uint8_t *buf = rk_finish(gb_new(3), &len);
    assert_int_equal(len, 24);
    ex_assert_clean(buf, len, ST);
    free(buf);
}

static void test_builder_layouts_clean(void **state)
{
    /* Every tensor type family, auto offsets: no findings. */
    rk_layout l = {
        .nt = 4,
        .t = {{.name = "a", .n_dims = 2, .ne = {256, 3}, .type = GB_Q4_K, .offset = RK_AUTO},
              {.name = "b", .n_dims = 1, .ne = {5}, .type = GB_F32, .offset = RK_AUTO},
              {.name = "c", .n_dims = 3, .ne = {32, 2, 2}, .type = GB_Q4_0, .offset = RK_AUTO},
              {.name = "d", .n_dims = 4, .ne = {3, 1, 1, 2}, .type = GB_BF16, .offset = RK_AUTO}}};
    rk_built r = rk_build(&l);
    ex_assert_clean(r.buf, r.len, ST);
    free(r.buf);
    /* The same with general.alignment 64. */
    l.align_kv = 64;
    r = rk_build(&l);
    ex_assert_clean(r.buf, r.len, ST);
    free(r.buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_builder_encoding),
            cmocka_unit_test(test_small_model_clean),
            cmocka_unit_test(test_header_only_clean),
            cmocka_unit_test(test_builder_layouts_clean),
        })

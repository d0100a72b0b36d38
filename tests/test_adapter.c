/* test_adapter.c - the files that travel with models: LoRA adapters
 * (GG562-GG568), control vectors (GG569, GG587) and importance matrices
 * (GG588-GG590), plus vocabulary-only and draft models. Each kind is first
 * written the way llama.cpp's own tools write it (convert_lora_to_gguf.py,
 * cvector-generator, llama-imatrix, convert_hf_to_gguf.py --vocab-only) and
 * must lint with no error; then one fault per test, found exactly once at
 * its offset. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

/* No error and no model-family finding at all. */
static void expect_clean(uint8_t *buf, size_t len, const char *what)
{
    gguflint_ctx *ctx = ex_lint(buf, len);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const char *id = gguflint_rule((size_t)f->rule)->id;
        if (f->severity == GGUFLINT_ERROR || strncmp(id, "GG5", 3) == 0) {
            ex_print_findings(NULL, ctx);
            fail_msg("%s: reported %s", what, id);
        }
    }
    gguflint_free(ctx);
    free(buf);
}

/* Tensors with zero data after them. */
typedef struct tdesc {
    const char *name;
    uint32_t nd;
    uint64_t ne[4];
    uint32_t type;
} tdesc;

static size_t marks_info[32];

static uint8_t *finish(gb *b, const tdesc *t, size_t n, size_t *len)
{
    uint64_t off = 0, sizes[32];
    assert_true(n <= 32);
    for (size_t i = 0; i < n; i++) {
        sizes[i] = gb_nbytes(t[i].type, t[i].nd, t[i].ne);
        gb_tensor(b, t[i].name, t[i].nd, t[i].ne, t[i].type, off);
        marks_info[i] = gb_last(b)->start;
        off += gb_align_up(sizes[i], 32);
    }
    gb_pad_to(b, 32);
    for (size_t i = 0; i < n; i++) {
        gb_zeros(b, (size_t)sizes[i]);
        gb_pad_to(b, 32);
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
    return buf;
}

/* ------------------------------------------------------------------ LoRA */

typedef struct lspec {
    const char *adapter_type; /* NULL: absent */
    int alpha_kind;           /* 0 f32 16, 1 absent, 2 u32, 3 NaN */
    const tdesc *extra;       /* replaces the default tensors when set */
    size_t n_extra;
    bool with_hparams; /* the base model's E and heads */
} lspec;

static size_t mark_type, mark_alpha, mark_gtype;

static uint8_t *lora(const lspec *s, size_t *len)
{
    static const tdesc pairs[] = {
        {"blk.0.attn_q.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight.lora_b", 2, {8, 64, 1, 1}, GB_F32},
        {"token_embd.weight.lora_a", 2, {8, 16, 1, 1}, GB_F32},
        {"token_embd.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.type", "adapter");
    mark_gtype = gb_last(b)->value;
    if (s->adapter_type) {
        gb_kv_str(b, "adapter.type", s->adapter_type);
        mark_type = gb_last(b)->value;
    }
    switch (s->alpha_kind) {
    case 0: gb_kv_f32(b, "adapter.lora.alpha", 16.0f); break;
    case 2: gb_kv_u32(b, "adapter.lora.alpha", 16); break;
    case 3: gb_kv_f32(b, "adapter.lora.alpha", NAN); break;
    default: break;
    }
    mark_alpha = s->alpha_kind != 1 ? gb_last(b)->value : 0;
    if (s->with_hparams) {
        gb_kv_u32(b, "llama.embedding_length", 32);
        gb_kv_u32(b, "llama.block_count", 1);
        gb_kv_u32(b, "llama.feed_forward_length", 64);
        gb_kv_u32(b, "llama.attention.head_count", 4);
    }
    const tdesc *t = s->extra ? s->extra : pairs;
    size_t n = s->extra ? s->n_extra : sizeof pairs / sizeof pairs[0];
    return finish(b, t, n, len);
}

static void test_lora_clean(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora"}, &len);
    expect_clean(buf, len, "LoRA adapter");
    buf = lora(&(lspec){.adapter_type = "lora", .with_hparams = true}, &len);
    expect_clean(buf, len, "LoRA adapter with the base hyper-parameters");
}

static void test_GG562_adapter_type(void **state)
{
    (void)state;
    size_t len;
    /* adapter evidence from the lora tensors, no adapter.type */
    uint8_t *buf = lora(&(lspec){.adapter_type = NULL}, &len);
    ex_expect_at(buf, len, "GG562", mark_gtype, "adapter.type absent");
    buf = lora(&(lspec){.adapter_type = "cvec"}, &len);
    ex_expect_at(buf, len, "GG562", mark_type, "adapter.type cvec");
}

static void test_GG563_base_tensor_in_adapter(void **state)
{
    (void)state;
    const tdesc t[] = {
        {"blk.0.attn_q.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.attn_norm.weight", 1, {32, 1, 1, 1}, GB_F32}, /* *_norm.weight: skipped */
    };
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = t, .n_extra = 4}, &len);
    ex_expect_at(buf, len, "GG563", marks_info[2], "base tensor");
}

static void test_GG564_pair_incomplete(void **state)
{
    (void)state;
    const tdesc t[] = {
        {"blk.0.attn_q.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = t, .n_extra = 3}, &len);
    ex_expect_at(buf, len, "GG564", marks_info[2], "lora_b alone");
}

static void test_GG565_rank_mismatch(void **state)
{
    (void)state;
    const tdesc t[] = {
        {"blk.0.attn_q.weight.lora_a", 2, {32, 16, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = t, .n_extra = 2}, &len);
    ex_expect_at(buf, len, "GG565", marks_info[1], "rank 16 vs 8");
}

static void test_GG566_base_mismatch(void **state)
{
    (void)state;
    /* a state-space name llama's loader never creates (the fused attn_qkv
     * of the Oct 2025 tables' example is one it creates now: llama.cpp of
     * 2026-08-22 tries attn_qkv before split q/k/v) */
    const tdesc t[] = {
        {"blk.0.ssm_in.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.ssm_in.weight.lora_b", 2, {8, 96, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = t, .n_extra = 2}, &len);
    ex_expect_at(buf, len, "GG566", marks_info[0], "not a llama tensor");
    /* with the base hyper-parameters: ffn_up is [32, 64], not [32, 48] */
    const tdesc u[] = {
        {"blk.0.ffn_up.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight.lora_b", 2, {8, 48, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = u, .n_extra = 2, .with_hparams = true},
               &len);
    ex_expect_at(buf, len, "GG566", marks_info[0], "wrong outer shape");
}

static void test_GG567_GG568_alpha(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 2}, &len);
    ex_expect_at(buf, len, "GG567", mark_alpha, "alpha u32");
    buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 3}, &len);
    ex_expect_at(buf, len, "GG567", mark_alpha, "alpha NaN");
    buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 1}, &len);
    ex_expect_at(buf, len, "GG568", mark_type, "alpha absent");
}

/* -------------------------------------------------------- control vectors */

static uint8_t *cvec(const tdesc *t, size_t n, int32_t layer_count, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "controlvector");
    gb_kv_str(b, "controlvector.model_hint", "llama");
    if (layer_count)
        gb_kv_i32(b, "controlvector.layer_count", layer_count);
    return finish(b, t, n, len);
}

static void test_cvec_clean(void **state)
{
    (void)state;
    const tdesc t[] = {
        {"direction.1", 1, {32, 1, 1, 1}, GB_F32},
        {"direction.2", 1, {32, 1, 1, 1}, GB_F32},
        {"direction.3", 1, {32, 1, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = cvec(t, 3, 3, &len);
    expect_clean(buf, len, "control vector");
    buf = cvec(t, 3, 0, &len);
    expect_clean(buf, len, "control vector without layer_count");
}

static void test_GG569_cvec_layer(void **state)
{
    (void)state;
    const tdesc zero[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                          {"direction.0", 1, {32, 1, 1, 1}, GB_F32}};
    size_t len;
    uint8_t *buf = cvec(zero, 2, 2, &len);
    ex_expect_at(buf, len, "GG569", marks_info[1], "direction.0");
    const tdesc big[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                         {"direction.2000000000", 1, {32, 1, 1, 1}, GB_F32}};
    buf = cvec(big, 2, 0, &len);
    ex_expect_at(buf, len, "GG569", marks_info[1], "direction.2000000000");
    const tdesc over[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                          {"direction.5", 1, {32, 1, 1, 1}, GB_F32}};
    buf = cvec(over, 2, 4, &len);
    ex_expect_at(buf, len, "GG569", marks_info[1], "above layer_count");
    const tdesc model[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                           {"blk.0.attn_q.weight", 2, {32, 32, 1, 1}, GB_F32}};
    buf = cvec(model, 2, 0, &len);
    ex_expect_at(buf, len, "GG569", marks_info[1], "a model tensor");
}

static void test_GG587_cvec_tensor(void **state)
{
    (void)state;
    const tdesc t[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                       {"direction.2", 1, {16, 1, 1, 1}, GB_F32},
                       {"direction.3", 1, {32, 1, 1, 1}, GB_F16}};
    size_t len;
    uint8_t *buf = cvec(t, 2, 0, &len);
    ex_expect_at(buf, len, "GG587", marks_info[1], "length differs");
    const tdesc u[] = {{"direction.1", 1, {32, 1, 1, 1}, GB_F32},
                       {"direction.2", 1, {32, 1, 1, 1}, GB_F16}};
    buf = cvec(u, 2, 0, &len);
    ex_expect_at(buf, len, "GG587", marks_info[1], "f16 direction");
}

/* ------------------------------------------------------- importance matrix */

static size_t mark_imatrix_type;

static uint8_t *imatrix(const tdesc *t, size_t n, bool keys, size_t *len)
{
    static const char *const datasets[] = {"wiki.train.raw"};
    gb *b = gb_new(3);
    gb_kv_str(b, "general.type", "imatrix");
    mark_imatrix_type = gb_last(b)->value;
    if (keys) {
        gb_kv_arr_str(b, "imatrix.datasets", datasets, 1);
        gb_kv_u32(b, "imatrix.chunk_count", 100);
        gb_kv_u32(b, "imatrix.chunk_size", 512);
    }
    return finish(b, t, n, len);
}

static const tdesc imatrix_ok[] = {
    {"blk.0.attn_q.weight.in_sum2", 2, {32, 1, 1, 1}, GB_F32},
    {"blk.0.attn_q.weight.counts", 2, {1, 1, 1, 1}, GB_F32},
    {"blk.0.ffn_down_exps.weight.in_sum2", 2, {64, 4, 1, 1}, GB_F32},
    {"blk.0.ffn_down_exps.weight.counts", 2, {1, 4, 1, 1}, GB_F32},
};

static void test_imatrix_clean(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = imatrix(imatrix_ok, 4, true, &len);
    expect_clean(buf, len, "imatrix");
}

static void test_GG588_imatrix_keys(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = imatrix(imatrix_ok, 4, false, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    size_t at;
    assert_int_equal(ex_count_id(ctx, "GG588", mark_imatrix_type, &at), 3);
    assert_int_equal(at, 3);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG589_imatrix_pair(void **state)
{
    (void)state;
    const tdesc t[] = {
        {"blk.0.attn_q.weight.in_sum2", 2, {32, 1, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.counts", 2, {1, 1, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight.in_sum2", 2, {32, 1, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = imatrix(t, 3, true, &len);
    ex_expect_at(buf, len, "GG589", marks_info[2], "in_sum2 alone");
}

static void test_GG590_imatrix_shape(void **state)
{
    (void)state;
    /* 4 matrices, 1 count: llama-quantize reads 3 floats past .counts */
    const tdesc t[] = {
        {"blk.0.ffn_down_exps.weight.in_sum2", 2, {64, 4, 1, 1}, GB_F32},
        {"blk.0.ffn_down_exps.weight.counts", 2, {1, 1, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = imatrix(t, 2, true, &len);
    ex_expect_at(buf, len, "GG590", marks_info[1], "short counts");
}

/* ------------------------------------------- vocabulary-only and draft */

static void test_vocab_only_and_draft_clean(void **state)
{
    (void)state;
    static const char *const tokens[16] = {"<unk>", "<s>", "</s>", "a", "b", "c", "d", "e",
                                           "f",     "g",   "h",    "i", "j", "k", "l", "m"};
    /* convert_hf_to_gguf.py --vocab-only: every key, the tokenizer, no tensor */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "vocab only");
    gb_kv_u32(b, "llama.context_length", 256);
    gb_kv_u32(b, "llama.embedding_length", 32);
    gb_kv_u32(b, "llama.block_count", 1);
    gb_kv_u32(b, "llama.feed_forward_length", 64);
    gb_kv_u32(b, "llama.attention.head_count", 4);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", tokens, 16);
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    expect_clean(buf, len, "vocab-only model");

    /* a draft model is an ordinary small model of the same architecture */
    const tdesc t[] = {
        {"token_embd.weight", 2, {32, 16, 1, 1}, GB_F32},
        {"output_norm.weight", 1, {32, 1, 1, 1}, GB_F32},
        {"blk.0.attn_norm.weight", 1, {32, 1, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.attn_v.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.attn_output.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.ffn_norm.weight", 1, {32, 1, 1, 1}, GB_F32},
        {"blk.0.ffn_gate.weight", 2, {32, 64, 1, 1}, GB_F32},
        {"blk.0.ffn_down.weight", 2, {64, 32, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight", 2, {32, 64, 1, 1}, GB_F32},
    };
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "draft");
    gb_kv_u32(b, "llama.context_length", 256);
    gb_kv_u32(b, "llama.embedding_length", 32);
    gb_kv_u32(b, "llama.block_count", 1);
    gb_kv_u32(b, "llama.feed_forward_length", 64);
    gb_kv_u32(b, "llama.attention.head_count", 4);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", tokens, 16);
    buf = finish(b, t, sizeof t / sizeof t[0], &len);
    expect_clean(buf, len, "draft model");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lora_clean),
        cmocka_unit_test(test_GG562_adapter_type),
        cmocka_unit_test(test_GG563_base_tensor_in_adapter),
        cmocka_unit_test(test_GG564_pair_incomplete),
        cmocka_unit_test(test_GG565_rank_mismatch),
        cmocka_unit_test(test_GG566_base_mismatch),
        cmocka_unit_test(test_GG567_GG568_alpha),
        cmocka_unit_test(test_cvec_clean),
        cmocka_unit_test(test_GG569_cvec_layer),
        cmocka_unit_test(test_GG587_cvec_tensor),
        cmocka_unit_test(test_imatrix_clean),
        cmocka_unit_test(test_GG588_imatrix_keys),
        cmocka_unit_test(test_GG589_imatrix_pair),
        cmocka_unit_test(test_GG590_imatrix_shape),
        cmocka_unit_test(test_vocab_only_and_draft_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

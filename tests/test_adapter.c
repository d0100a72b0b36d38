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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "tiny_llama.h"
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
    gb_zero_data(b, sizes, n, 32);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

/* ------------------------------------------------------------------ LoRA */

typedef struct lspec {
    const char *adapter_type; /* NULL: absent */
    int alpha_kind;           /* 0 f32 16, 1 absent, 2 u32, 3 NaN */
    const tdesc *extra;       /* replaces the default tensors when set */
    size_t n_extra;
    bool with_hparams; /* the base model's E and heads */
    const char *arch;  /* general.architecture; NULL: llama */
    size_t arch_len;   /* its length when it holds a NUL (0: strlen) */
    bool no_arch;      /* no general.architecture at all */
    int alora_kind;    /* adapter.alora.invocation_tokens: 0 absent, 1 u32 array,
                          2 i32 array, 3 one u32 */
} lspec;

static size_t mark_type, mark_alpha, mark_gtype, mark_arch, mark_alora;

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
    if (!s->no_arch) {
        const char *arch = s->arch ? s->arch : "llama";
        gb_kv_strn(b, "general.architecture", arch, s->arch_len ? s->arch_len : strlen(arch));
        mark_arch = gb_last(b)->value;
    }
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
    static const uint32_t toks[3] = {1, 2, 3};
    if (s->alora_kind == 1)
        gb_kv_arr(b, "adapter.alora.invocation_tokens", 4, 3, toks, sizeof toks);
    else if (s->alora_kind == 2)
        gb_kv_arr(b, "adapter.alora.invocation_tokens", 5, 3, toks, sizeof toks);
    else if (s->alora_kind == 3)
        gb_kv_u32(b, "adapter.alora.invocation_tokens", 1);
    mark_alora = s->alora_kind ? gb_last(b)->value : 0;
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
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora"}, &len);
    expect_clean(buf, len, "LoRA adapter");
    buf = lora(&(lspec){.adapter_type = "lora", .with_hparams = true}, &len);
    expect_clean(buf, len, "LoRA adapter with the base hyper-parameters");
}

static void test_GG562_adapter_type(void **state)
{
    size_t len;
    /* adapter evidence from the lora tensors, no adapter.type */
    uint8_t *buf = lora(&(lspec){.adapter_type = NULL}, &len);
    ex_expect_at(buf, len, "GG562", mark_gtype, "adapter.type absent");
    buf = lora(&(lspec){.adapter_type = "cvec"}, &len);
    ex_expect_at(buf, len, "GG562", mark_type, "adapter.type cvec");
}

static void test_GG563_base_tensor_in_adapter(void **state)
{
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
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 2}, &len);
    ex_expect_at(buf, len, "GG567", mark_alpha, "alpha u32");
    buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 3}, &len);
    ex_expect_at(buf, len, "GG567", mark_alpha, "alpha NaN");
    buf = lora(&(lspec){.adapter_type = "lora", .alpha_kind = 1}, &len);
    ex_expect_at(buf, len, "GG568", mark_type, "alpha absent");
}

/* ------------------------------------------- LoRA against a base model */

/* A llama base model with the tensors the default adapter adapts, and an
 * expert tensor (build it before the adapter: it uses marks_info too). */
static uint8_t *base_model(const char *arch, size_t *len)
{
    static const tdesc t[] = {
        {"token_embd.weight", 2, {32, 16, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight", 2, {32, 32, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight", 2, {32, 64, 1, 1}, GB_F32},
        {"blk.0.ffn_gate_exps.weight", 3, {32, 64, 4, 1}, GB_F32},
    };
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", arch);
    gb_kv_u32(b, "llama.embedding_length", 32);
    gb_kv_u32(b, "llama.block_count", 1);
    gb_kv_u32(b, "llama.feed_forward_length", 64);
    gb_kv_u32(b, "llama.attention.head_count", 4);
    return finish(b, t, sizeof t / sizeof t[0], len);
}

typedef struct based {
    gguflint_ctx *base, *ctx;
    uint8_t *abuf, *bbuf;
} based;

/* Run the base (every rule off), then the adapter against it under
 * `profile` (NULL: ggml). Both buffers are freed by based_free. */
static based lint_based(uint8_t *abuf, size_t alen, uint8_t *bbuf, size_t blen, const char *profile)
{
    based r = {NULL, NULL, abuf, bbuf};
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    gguflint_options_clear(o);
    r.base = gguflint_new(o);
    assert_non_null(r.base);
    assert_int_equal(gguflint_set_buffer(r.base, bbuf, blen), GGUFLINT_OK);
    assert_int_equal(gguflint_run(r.base), GGUFLINT_OK);
    assert_null(gguflint_base_problem(r.base));
    assert_int_equal(gguflint_finding_count(r.base), 0);
    gguflint_options_default(o);
    if (profile)
        assert_int_equal(gguflint_options_profile(o, profile), GGUFLINT_OK);
    r.ctx = gguflint_new(o);
    gguflint_options_free(o);
    assert_non_null(r.ctx);
    assert_int_equal(gguflint_set_base(r.ctx, r.base), GGUFLINT_OK);
    assert_int_equal(gguflint_set_buffer(r.ctx, abuf, alen), GGUFLINT_OK);
    assert_int_equal(gguflint_run(r.ctx), GGUFLINT_OK);
    return r;
}

static void based_free(based *r)
{
    gguflint_free(r->ctx);
    gguflint_free(r->base);
    free(r->abuf);
    free(r->bbuf);
}

/* The adapter against the default llama base: exactly one `id`, at offset. */
static void expect_based(uint8_t *abuf, size_t alen, const char *id, uint64_t offset,
                         const char *profile, const char *where)
{
    size_t blen;
    uint8_t *bbuf = base_model("llama", &blen);
    based r = lint_based(abuf, alen, bbuf, blen, profile);
    size_t at, n = ex_count_id(r.ctx, id, offset, &at);
    if (n != 1 || at != 1) {
        print_message("%s: expected one %s at %llu, got %zu (%zu there)\n", where, id,
                      (unsigned long long)offset, n, at);
        ex_print_findings(NULL, r.ctx);
        based_free(&r);
        fail_msg("%s: %s", where, id);
    }
    based_free(&r);
}

/* The adapter against the default llama base: no finding at all. */
static void expect_based_clean(uint8_t *abuf, size_t alen, const char *where)
{
    size_t blen;
    uint8_t *bbuf = base_model("llama", &blen);
    based r = lint_based(abuf, alen, bbuf, blen, "strict");
    if (gguflint_finding_count(r.ctx) != 0) {
        ex_print_findings(where, r.ctx);
        based_free(&r);
        fail_msg("%s: findings against the base", where);
    }
    based_free(&r);
}

static void test_lora_base_clean(void **state)
{
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora"}, &len);
    expect_based_clean(buf, len, "LoRA adapter on its base");
    /* an activated LoRA, invocation tokens as convert_lora_to_gguf.py writes them */
    buf = lora(&(lspec){.adapter_type = "lora", .alora_kind = 1}, &len);
    expect_based_clean(buf, len, "aLoRA adapter on its base");
    /* expert halves [n_in, rank, n_expert] and [rank, n_out, n_expert] */
    const tdesc e[] = {
        {"blk.0.ffn_gate_exps.weight.lora_a", 3, {32, 8, 4, 1}, GB_F32},
        {"blk.0.ffn_gate_exps.weight.lora_b", 3, {8, 64, 4, 1}, GB_F32},
        {"blk.0.attn_norm.weight", 1, {32, 1, 1, 1}, GB_F32}, /* skipped by llama.cpp */
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = e, .n_extra = 3}, &len);
    expect_based_clean(buf, len, "expert LoRA on its base");
    /* llama.cpp files a half under its name with every ".lora_a" removed */
    const tdesc r[] = {
        {"blk.0.lora_a.attn_q.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = r, .n_extra = 2}, &len);
    expect_based_clean(buf, len, "a half named with an inner .lora_a");
}

static void test_GG530_arch_mismatch(void **state)
{
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .arch = "qwen2"}, &len);
    expect_based(buf, len, "GG530", mark_arch, NULL, "qwen2 adapter on a llama base");
    buf = lora(&(lspec){.adapter_type = "lora", .no_arch = true}, &len);
    expect_based(buf, len, "GG530", mark_gtype, NULL, "adapter without an architecture");
    /* llama.cpp reads the name as a C string: "llama\0x" is llama (GG514
     * says so), no mismatch */
    buf = lora(&(lspec){.adapter_type = "lora", .arch = "llama\0x", .arch_len = 7}, &len);
    expect_based(buf, len, "GG514", mark_arch + 8 + 5, NULL, "llama\\0x adapter");
    buf = lora(&(lspec){.adapter_type = "lora", .arch = "llama\0x", .arch_len = 7}, &len);
    {
        size_t blen;
        uint8_t *bbuf = base_model("llama", &blen);
        based r = lint_based(buf, len, bbuf, blen, NULL);
        assert_int_equal(ex_count(r.ctx, "GG530"), 0);
        based_free(&r);
    }
    /* without a base nothing says what the base is */
    buf = lora(&(lspec){.adapter_type = "lora", .arch = "qwen2"}, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count(ctx, "GG530"), 0);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG531_alora_tokens(void **state)
{
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .alora_kind = 2}, &len);
    ex_expect_at(buf, len, "GG531", mark_alora, "i32 invocation tokens");
    buf = lora(&(lspec){.adapter_type = "lora", .alora_kind = 3}, &len);
    ex_expect_at(buf, len, "GG531", mark_alora, "one u32, not an array");
    buf = lora(&(lspec){.adapter_type = "lora", .alora_kind = 2}, &len);
    expect_based(buf, len, "GG531", mark_alora, NULL, "i32 invocation tokens, with a base");
    buf = lora(&(lspec){.adapter_type = "lora", .alora_kind = 1}, &len);
    expect_clean(buf, len, "u32 invocation tokens");
}

static void test_GG566_against_base(void **state)
{
    size_t len;
    /* attn_k: a llama tensor, but not one this base has */
    const tdesc k[] = {
        {"blk.0.attn_k.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = k, .n_extra = 2}, &len);
    expect_based(buf, len, "GG566", marks_info[0], NULL, "target missing from the base");
    /* ffn_up is [32, 64] in the base */
    const tdesc u[] = {
        {"blk.0.ffn_up.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight.lora_b", 2, {8, 48, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = u, .n_extra = 2}, &len);
    expect_based(buf, len, "GG566", marks_info[0], NULL, "lora_b ne[1] 48, base 64");
    const tdesc a[] = {
        {"blk.0.ffn_up.weight.lora_a", 2, {16, 8, 1, 1}, GB_F32},
        {"blk.0.ffn_up.weight.lora_b", 2, {8, 64, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = a, .n_extra = 2}, &len);
    expect_based(buf, len, "GG566", marks_info[0], NULL, "lora_a ne[0] 16, base 32");
    /* token_embd [32, 16]: lora_b ne[1] is n_embd, lora_a ne[1] n_vocab */
    const tdesc t[] = {
        {"token_embd.weight.lora_a", 2, {8, 20, 1, 1}, GB_F32},
        {"token_embd.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = t, .n_extra = 2}, &len);
    expect_based(buf, len, "GG566", marks_info[0], NULL, "token_embd n_vocab 20, base 16");
}

static void test_GG532_pair_dims(void **state)
{
    size_t len;
    /* a 3-D lora_a for a 2-D base tensor: loaded, then ggml_mul_mat asserts */
    const tdesc q[] = {
        {"blk.0.attn_q.weight.lora_a", 3, {32, 8, 2, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = q, .n_extra = 2}, &len);
    expect_based(buf, len, "GG532", marks_info[0], NULL, "3-D lora_a, 2-D base");
    /* 2 experts in the halves, 4 in the base */
    const tdesc e[] = {
        {"blk.0.ffn_gate_exps.weight.lora_a", 3, {32, 8, 4, 1}, GB_F32},
        {"blk.0.ffn_gate_exps.weight.lora_b", 3, {8, 64, 2, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = e, .n_extra = 2}, &len);
    expect_based(buf, len, "GG532", marks_info[1], "security", "2 of 4 experts");
    /* a 3-D half whose ne[2] is 1 is a 2-D half */
    const tdesc one[] = {
        {"blk.0.attn_q.weight.lora_a", 3, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    buf = lora(&(lspec){.adapter_type = "lora", .extra = one, .n_extra = 2}, &len);
    expect_based_clean(buf, len, "lora_a [32, 8, 1]");
}

/* llama.cpp's loader reads only ne[0] and ne[1] of the halves: a 3-D lora_a
 * is no error without a base (it used to be GG565) */
static void test_lora_3d_no_base(void **state)
{
    const tdesc q[] = {
        {"blk.0.attn_q.weight.lora_a", 3, {32, 8, 2, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf = lora(&(lspec){.adapter_type = "lora", .extra = q, .n_extra = 2}, &len);
    expect_clean(buf, len, "3-D lora_a without a base");
}

/* An architecture the tables do not know: the note, and still every check
 * of what an adapter holds (none of them depends on the architecture). */
static void test_lora_unknown_arch(void **state)
{
    const tdesc t[] = {
        {"blk.0.attn_q.weight.lora_a", 2, {32, 8, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight.lora_b", 2, {8, 32, 1, 1}, GB_F32},
    };
    size_t len;
    uint8_t *buf =
        lora(&(lspec){.adapter_type = "lora", .arch = "newarch", .extra = t, .n_extra = 3}, &len);
    ex_expect_at(buf, len, "GG564", marks_info[2], "lora_b alone, unknown architecture");
    buf = lora(&(lspec){.adapter_type = "lora", .arch = "newarch", .alora_kind = 3}, &len);
    ex_expect_at(buf, len, "GG531", mark_alora, "alora scalar, unknown architecture");
}

static void test_lora_base_api(void **state)
{
    size_t alen, blen;
    uint8_t *abuf = lora(&(lspec){.adapter_type = "lora"}, &alen);
    uint8_t *bbuf = base_model("llama", &blen);
    gguflint_ctx *base = gguflint_new(NULL), *ctx = gguflint_new(NULL);
    assert_non_null(base);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_base(NULL, base), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_set_base(ctx, NULL), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_set_base(ctx, ctx), GGUFLINT_E_ARG);
    assert_non_null(gguflint_base_problem(NULL));
    assert_int_equal(gguflint_set_buffer(base, bbuf, blen), GGUFLINT_OK);
    assert_non_null(gguflint_base_problem(base)); /* not run yet */
    assert_int_equal(gguflint_set_base(ctx, base), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_run(base), GGUFLINT_OK);
    assert_null(gguflint_base_problem(base));
    /* an adapter is no base (the arguments the wrong way round) */
    gguflint_ctx *wrong = ex_lint(abuf, alen);
    assert_non_null(gguflint_base_problem(wrong));
    assert_int_equal(gguflint_set_base(ctx, wrong), GGUFLINT_E_ARG);
    /* the failure is not sticky */
    assert_int_equal(gguflint_set_base(ctx, base), GGUFLINT_OK);
    assert_int_equal(gguflint_set_buffer(ctx, abuf, alen), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_set_base(ctx, base), GGUFLINT_E_STATE);
    gguflint_free(wrong);
    gguflint_free(ctx);
    /* a model linted with a base attached is linted as without one */
    ctx = gguflint_new(NULL);
    gguflint_ctx *plain = ex_lint(bbuf, blen);
    assert_int_equal(gguflint_set_base(ctx, base), GGUFLINT_OK);
    assert_int_equal(gguflint_set_buffer(ctx, bbuf, blen), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_finding_count(ctx), gguflint_finding_count(plain));
    gguflint_free(plain);
    gguflint_free(ctx);
    /* a projector, a split shard, a file without tensors are no base */
    static const char *const problems[] = {"clip", "split", "empty"};
    for (size_t k = 0; k < 3; k++) {
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", k == 0 ? "clip" : "llama");
        if (k == 1)
            gb_kv_u16(b, "split.count", 2);
        size_t n;
        uint8_t *buf =
            k == 2 ? gb_finish(b, &n)
                   : finish(b, (const tdesc[]){{"blk.0.attn_q.weight", 2, {32, 32, 1, 1}, GB_F32}},
                            1, &n);
        if (k == 2)
            gb_free(b);
        gguflint_ctx *c = ex_lint(buf, n);
        if (!gguflint_base_problem(c))
            fail_msg("%s accepted as a base", problems[k]);
        gguflint_free(c);
        free(buf);
    }
    gguflint_free(base);
    free(abuf);
    free(bbuf);
}

/* Hostile sizes: a base with many tensors and an adapter with many halves
 * cost one hash lookup each (no scan of the base per pair). */
static void test_lora_base_many(void **state)
{
    enum { N = 20000 };
    char name[64];
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    for (size_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "blk.%zu.attn_q.weight", i);
        gb_tensor(b, name, 2, (const uint64_t[]){32, 32, 1, 1}, GB_F32, 0);
    }
    gb_pad_to(b, 32);
    gb_zeros(b, 32 * 32 * 4);
    size_t blen;
    uint8_t *bbuf = gb_finish(b, &blen);
    gb_free(b);
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.type", "adapter");
    gb_kv_str(b, "adapter.type", "lora");
    gb_kv_f32(b, "adapter.lora.alpha", 16.0f);
    for (size_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "blk.%zu.attn_q.weight.lora_a", i);
        gb_tensor(b, name, 2, (const uint64_t[]){32, 8, 1, 1}, GB_F32, 0);
        snprintf(name, sizeof name, "blk.%zu.attn_q.weight.lora_b", i + (i == N - 1));
        gb_tensor(b, name, 2, (const uint64_t[]){8, 32, 1, 1}, GB_F32, 1024);
    }
    gb_pad_to(b, 32);
    gb_zeros(b, 2048);
    size_t alen;
    uint8_t *abuf = gb_finish(b, &alen);
    gb_free(b);
    based r = lint_based(abuf, alen, bbuf, blen, NULL);
    /* the last lora_b names a layer the base lacks: two halves alone */
    assert_int_equal(ex_count(r.ctx, "GG564"), 2);
    assert_int_equal(ex_count(r.ctx, "GG566"), 0);
    based_free(&r);
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
    size_t len;
    uint8_t *buf = imatrix(imatrix_ok, 4, true, &len);
    expect_clean(buf, len, "imatrix");
}

static void test_GG588_imatrix_keys(void **state)
{
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
    static const char *const tokens[16] = {"<unk>", "<s>", "</s>", "a", "b", "c", "d", "e",
                                           "f",     "g",   "h",    "i", "j", "k", "l", "m"};
    /* convert_hf_to_gguf.py --vocab-only: every key, the tokenizer, no tensor */
    gb *b = gb_new(3);
    gb_llama hp = {.name = "vocab only",
                   .context = 256,
                   .embd = 32,
                   .blocks = 1,
                   .ff = 64,
                   .heads = 4,
                   .eps = 1e-5f};
    gb_llama_kvs(b, &hp);
    gb_llama_vocab(b, tokens, NULL, NULL, 16);
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
    hp.name = "draft"; /* the same keys */
    gb_llama_kvs(b, &hp);
    gb_llama_vocab(b, tokens, NULL, NULL, 16);
    buf = finish(b, t, sizeof t / sizeof t[0], &len);
    expect_clean(buf, len, "draft model");
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_lora_clean),
            cmocka_unit_test(test_GG562_adapter_type),
            cmocka_unit_test(test_GG563_base_tensor_in_adapter),
            cmocka_unit_test(test_GG564_pair_incomplete),
            cmocka_unit_test(test_GG565_rank_mismatch),
            cmocka_unit_test(test_GG566_base_mismatch),
            cmocka_unit_test(test_GG567_GG568_alpha),
            cmocka_unit_test(test_lora_base_clean),
            cmocka_unit_test(test_GG530_arch_mismatch),
            cmocka_unit_test(test_GG531_alora_tokens),
            cmocka_unit_test(test_GG566_against_base),
            cmocka_unit_test(test_GG532_pair_dims),
            cmocka_unit_test(test_lora_3d_no_base),
            cmocka_unit_test(test_lora_unknown_arch),
            cmocka_unit_test(test_lora_base_api),
            cmocka_unit_test(test_lora_base_many),
            cmocka_unit_test(test_cvec_clean),
            cmocka_unit_test(test_GG569_cvec_layer),
            cmocka_unit_test(test_GG587_cvec_tensor),
            cmocka_unit_test(test_imatrix_clean),
            cmocka_unit_test(test_GG588_imatrix_keys),
            cmocka_unit_test(test_GG589_imatrix_pair),
            cmocka_unit_test(test_GG590_imatrix_shape),
            cmocka_unit_test(test_vocab_only_and_draft_clean),
        })

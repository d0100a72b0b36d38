/* test_filetype.c - general.file_type against the tensors and the file name
 * (check_filetype.c, GG510-GG512) and the llama_ftype table (filetypes.c):
 * realistic llama-shaped quantized layouts (a Q4_K_M mix as llama-quantize
 * writes it must pass; Q4_K_M declared over all-Q8_0 weights must not), the
 * shape fallbacks, the majority rule, MXFP4_MOE, vocab-only files, quantized
 * 1-D tensors / norms / biases, and the file-name tag parser. Each rule: exact
 * id and offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "format/filetypes.h"
#include "gguf_builder.h"
#include "gguflint.h"

/* ------------------------------------------------------------ models */

typedef struct tdef {
    char name[48];
    uint32_t nd;
    uint64_t ne[3];
    uint32_t type;
} tdef;

typedef struct model {
    tdef t[128];
    size_t n;
    size_t type_off[128]; /* filled by build() */
    size_t info_off[128];
    size_t ft_value; /* general.file_type value offset (when written) */
} model;

static void add(model *m, const char *name, uint32_t nd, uint64_t ne0, uint64_t ne1, uint64_t ne2,
                uint32_t type)
{
    assert_true(m->n < 128);
    tdef *t = &m->t[m->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->nd = nd;
    t->ne[0] = ne0;
    t->ne[1] = ne1;
    t->ne[2] = ne2;
    t->type = type;
}

/* Write general.architecture, quantization_version and (unless ft < 0) the
 * file type, then the tensors with contiguous offsets and zeroed data. */
static uint8_t *build(model *m, long ft, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.quantization_version", 2);
    if (ft >= 0) {
        gb_kv_u32(b, "general.file_type", (uint32_t)ft);
        m->ft_value = gb_last(b)->value;
    }
    uint64_t off = 0;
    for (size_t i = 0; i < m->n; i++) {
        const tdef *t = &m->t[i];
        gb_tensor(b, t->name, t->nd, t->ne, t->type, off);
        m->type_off[i] = gb_last(b)->ttype;
        m->info_off[i] = gb_last(b)->start;
        uint64_t nb = gb_nbytes(t->type, t->nd, t->ne);
        assert_true(nb != UINT64_MAX);
        off += gb_align_up(nb, 32);
    }
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)off);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

/* llama-quantize's use_more_bits */
static int more_bits(int i, int n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* A tiny llama (E = 256, 8 layers) as llama-quantize writes a K-quant mix:
 * `base` on the bulk, `v_hi` on attn_v and ffn_down of the "more bits" layers
 * (Q4_K_M: Q6_K), output Q6_K, norms F32. */
static void llama_mix(model *m, uint32_t base, uint32_t v_hi, uint32_t output)
{
    const int L = 8;
    m->n = 0;
    add(m, "token_embd.weight", 2, 256, 32, 1, base);
    add(m, "output_norm.weight", 1, 256, 1, 1, GB_F32);
    add(m, "output.weight", 2, 256, 32, 1, output);
    for (int i = 0; i < L; i++) {
        char n[48];
        uint32_t hi = more_bits(i, L) ? v_hi : base;
#define T(suffix, nd, a, b, ty)                                                                    \
    snprintf(n, sizeof n, "blk.%d." suffix, i);                                                    \
    add(m, n, nd, a, b, 1, ty)
        T("attn_norm.weight", 1, 256, 1, GB_F32);
        T("attn_q.weight", 2, 256, 256, base);
        T("attn_k.weight", 2, 256, 64, base);
        T("attn_v.weight", 2, 256, 64, hi);
        T("attn_output.weight", 2, 256, 256, base);
        T("ffn_norm.weight", 1, 256, 1, GB_F32);
        T("ffn_gate.weight", 2, 256, 512, base);
        T("ffn_up.weight", 2, 256, 512, base);
        T("ffn_down.weight", 2, 512, 256, hi);
#undef T
    }
}

/* Every tensor of a model set to one type (norms stay F32). */
static void all_weights(model *m, uint32_t type)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].nd >= 2)
            m->t[i].type = type;
}

/* ------------------------------------------------------------ GG510 */

static void test_q4_k_m_mix_passes(void **state)
{
    model m;
    size_t len;
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    uint8_t *buf = build(&m, 15, &len);
    ex_expect_none(buf, len, "Llama-Tiny-Q4_K_M.gguf", "GG505", "GG510", "GG511", "GG512");
    /* the same model as Q4_K_S (Q5_K on the first attn_v / ffn_down layers) */
    llama_mix(&m, GB_Q4_K, GB_Q5_K, GB_Q6_K);
    buf = build(&m, 14, &len);
    ex_expect_none(buf, len, "tiny.Q4_K_S.gguf", "GG510", "GG512");
    /* --pure: the default type everywhere, output included */
    llama_mix(&m, GB_Q4_K, GB_Q4_K, GB_Q4_K);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* Q5_K_M, Q3_K_L, Q2_K */
    llama_mix(&m, GB_Q5_K, GB_Q6_K, GB_Q6_K);
    buf = build(&m, 17, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    llama_mix(&m, GB_Q3_K, GB_Q5_K, GB_Q6_K);
    buf = build(&m, 13, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    llama_mix(&m, GB_Q2_K, GB_Q3_K, GB_Q6_K);
    buf = build(&m, 10, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* converter outputs: Q8_0, F16, BF16, F32 */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_none(buf, len, "x-q8_0.gguf", "GG510", "GG512");
    llama_mix(&m, GB_F16, GB_F16, GB_F16);
    m.t[3].type = GB_F32; /* a few weights kept in F32 */
    buf = build(&m, 1, &len);
    ex_expect_none(buf, len, "x-F16.gguf", "GG510", "GG512");
    llama_mix(&m, GB_BF16, GB_BF16, GB_BF16);
    buf = build(&m, 32, &len);
    ex_expect_none(buf, len, "x.bf16.gguf", "GG510", "GG512");
    llama_mix(&m, GB_F32, GB_F32, GB_F32);
    buf = build(&m, 0, &len);
    ex_expect_none(buf, len, "x-f32.gguf", "GG510", "GG512");
}

static void test_q4_k_m_over_q8_0_fails(void **state)
{
    model m;
    size_t len;
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    all_weights(&m, GB_Q8_0);
    uint8_t *buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value,
                  "file_type 15 (Q4_K - Medium) but 2-D weights are q8_0 x58");
    /* the message names the file type the weights look like */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    all_weights(&m, GB_Q8_0);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, "look like file type 7 (Q8_0)");
    /* F16 declared, Q4_K_M content */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    buf = build(&m, 1, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, "q4_K x");
    /* Q8_0 declared, F16 content */
    llama_mix(&m, GB_F16, GB_F16, GB_F16);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, "f16 x58");
    /* BF16 declared, F16 content */
    llama_mix(&m, GB_F16, GB_F16, GB_F16);
    buf = build(&m, 32, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
    /* Q4_K_M over Q4_0 */
    llama_mix(&m, GB_Q4_0, GB_Q4_0, GB_Q6_K);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
}

static void test_majority_and_overrides(void **state)
{
    model m;
    size_t len;
    /* token_embd and output may be any type (--token-embedding-type,
     * --output-tensor-type: bartowski's _L variants use Q8_0) */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q8_0);
    m.t[0].type = GB_Q8_0;
    uint8_t *buf = build(&m, 15, &len);
    ex_expect_none(buf, len, "model-Q4_K_M.gguf", "GG510", "GG512");
    /* a few per-tensor overrides (--tensor-type) do not make a mismatch */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    for (size_t i = 0; i < m.n; i++)
        if (strstr(m.t[i].name, "blk.0.") && m.t[i].nd == 2)
            m.t[i].type = GB_Q8_0;
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* ... but the bulk of the model (the FFN: 70% of the parameters) in another
     * type does */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    for (size_t i = 0; i < m.n; i++)
        if (strstr(m.t[i].name, "ffn_") && m.t[i].nd == 2)
            m.t[i].type = GB_Q8_0;
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
    /* weights llama-quantize never quantizes keep any type */
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 256, 8, 1, GB_Q4_K);
    add(&m, "blk.0.ffn_gate_inp.weight", 2, 256, 512, 1, GB_F32);
    add(&m, "position_embd.weight", 2, 256, 512, 1, GB_F16);
    add(&m, "blk.0.attn_q.bias", 1, 256, 1, 1, GB_F32);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
}

static void test_shape_fallbacks(void **state)
{
    model m;
    size_t len;
    /* ne0 = 96 is not a multiple of 256: Q4_K falls back to Q5_0 */
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 96, 8, 1, GB_Q5_0);
    uint8_t *buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* with ne0 = 256 there is no fallback: Q5_0 cannot come from Q4_K_M */
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 256, 8, 1, GB_Q5_0);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
    /* ne0 = 48: not a multiple of 32 either: F16 */
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 48, 8, 1, GB_F16);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* Q6_K on attn_v falls back to Q8_0 */
    m.n = 0;
    add(&m, "blk.0.attn_v.weight", 2, 160, 8, 1, GB_Q8_0);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* IQ types fall back to IQ4_NL */
    m.n = 0;
    add(&m, "blk.0.ffn_up.weight", 2, 160, 8, 1, 20 /* iq4_nl */);
    buf = build(&m, 19, &len);
    ex_expect_none(buf, len, NULL, "GG510");
}

static void test_mxfp4_moe(void **state)
{
    model m;
    size_t len;
    m.n = 0;
    add(&m, "token_embd.weight", 2, 256, 32, 1, GB_Q8_0);
    add(&m, "blk.0.attn_q.weight", 2, 256, 256, 1, GB_Q8_0);
    add(&m, "blk.0.ffn_gate_exps.weight", 3, 256, 256, 8, 39 /* mxfp4 */);
    add(&m, "blk.0.ffn_up_exps.weight", 3, 256, 256, 8, 39);
    add(&m, "blk.0.ffn_down_exps.weight", 3, 256, 256, 8, 39);
    uint8_t *buf = build(&m, 38, &len);
    ex_expect_none(buf, len, "gpt-oss-20b-mxfp4.gguf", "GG510", "GG512");
    /* experts in Q4_K do not come from MXFP4_MOE */
    for (size_t i = 2; i < 5; i++)
        m.t[i].type = GB_Q4_K;
    buf = build(&m, 38, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
}

static void test_not_judged(void **state)
{
    size_t len;
    /* vocab-only: file_type 1 and no tensors */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.file_type", 1);
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    ex_expect_none(buf, len, "ggml-vocab-llama-Q4_K_M.gguf", "GG510", "GG511", "GG512");
    /* removed, unknown and guessed file types are other rules' business */
    model m;
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 99, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 4, &len);
    ex_expect_none(buf, len, NULL, "GG510");
    /* no file type: nothing to compare (without a name tag) */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, -1, &len);
    ex_expect_none(buf, len, NULL, "GG510", "GG512");
    /* the guessed flag is stripped before comparing: 1024 | 15 over Q8_0 */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 1024 + 15, &len);
    ex_expect_msg(buf, len, NULL, "GG510", m.ft_value, NULL);
}

/* ------------------------------------------------------------ GG511 */

static void test_unexpected_quantized(void **state)
{
    model m;
    size_t len;
    m.n = 0;
    add(&m, "blk.0.attn_norm.weight", 1, 256, 1, 1, GB_Q8_0);
    uint8_t *buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG511", m.type_off[0], "1-D");
    /* declared 2-D with ne[1] = 1 is 1-D to ggml */
    m.n = 0;
    add(&m, "blk.0.ffn_up.weight", 2, 256, 1, 1, GB_Q4_K);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, NULL, "GG511", m.type_off[0], "1-D");
    /* a 2-D norm, a 2-D bias */
    m.n = 0;
    add(&m, "blk.0.attn_q_norm.weight", 2, 256, 4, 1, GB_F32);
    add(&m, "blk.0.ffn_norm.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG511", m.type_off[1], "a norm");
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    add(&m, "blk.0.attn_q.bias", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG511", m.type_off[1], "a bias");
    /* GG534: a norm, a bias or a 1-D tensor in F16 or BF16 (the CPU
     * backend's element-wise kernels abort); a quantized one is GG511's */
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    add(&m, "blk.0.attn_norm.weight", 1, 256, 1, 1, GB_F16);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[1], "as f16");
    m.n = 0;
    add(&m, "output_norm.weight", 1, 256, 1, 1, GB_BF16);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[0], "as bf16");
    m.n = 0;
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    add(&m, "blk.0.attn_q.bias", 2, 256, 4, 1, GB_F16);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[1], "a bias stored as f16");
    m.n = 0;
    add(&m, "blk.0.attn_sinks.weight", 1, 256, 1, 1, GB_F16);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_F16);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[0], "1-D stored as f16");
    /* wavtokenizer's posnet.N.norm1.weight is a norm too */
    m.n = 0;
    add(&m, "posnet.0.norm1.weight", 2, 1, 256, 1, GB_F16);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[0], "a norm stored as f16");
    /* the SSM state tensors, 2-D: ggml_ssm_conv / ggml_ssm_scan read F32 */
    m.n = 0;
    add(&m, "blk.0.ssm_a", 2, 16, 256, 1, GB_F16);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[0], "an SSM state tensor stored as f16");
    m.n = 0;
    add(&m, "blk.0.ssm_conv1d.weight", 2, 4, 256, 1, GB_F16);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, NULL, "GG534", m.type_off[0], "an SSM state tensor");
    /* a 1-D router is a matrix product (qwen2moe's shared-expert gate:
     * decodes in F16), and a quantized norm is GG511's */
    m.n = 0;
    add(&m, "blk.0.ffn_gate_inp_shexp.weight", 1, 256, 1, 1, GB_F16);
    add(&m, "blk.0.ffn_norm.weight", 1, 256, 1, 1, GB_Q8_0);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    add(&m, "ids", 1, 256, 1, 1, GB_I32);
    buf = build(&m, 7, &len);
    ex_expect_none(buf, len, NULL, "GG534");
    /* F32 and integer 1-D tensors are normal */
    m.n = 0;
    add(&m, "blk.0.attn_norm.weight", 1, 256, 1, 1, GB_F32);
    add(&m, "blk.0.attn_q.bias", 1, 256, 1, 1, GB_F32);
    add(&m, "ids", 1, 256, 1, 1, GB_I32);
    add(&m, "blk.0.attn_q.weight", 2, 256, 4, 1, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_none(buf, len, NULL, "GG511", "GG534");
}

/* ------------------------------------------------------------ GG512 */

static void test_name_tag_parser(void **state)
{
    static const ex_str_case cases[] = {
        {"Meta-Llama-3-8B-Instruct-Q4_K_M.gguf", "Q4_K_M"},
        {"llama-2-7b.q8_0.gguf", "Q8_0"},
        {"model-IQ2_XS-00001-of-00003.gguf", "IQ2_XS"},
        {"model-F16.gguf", "F16"},
        {"model-BF16.gguf", "BF16"},
        {"models/mistral-7b-instruct-v0.2.Q5_K_S.gguf", "Q5_K_S"},
        {"ggml-model-f32.gguf", "F32"},
        {"phi-2.fp16.gguf", "FP16"},
        {"x-Q4_K.gguf", "Q4_K"},
        {"x_q4_0.gguf", "Q4_0"},
        {"gpt-oss-20b-mxfp4.gguf", "MXFP4"},
        {"x-Q4_0_4_4.gguf", "Q4_0_4_4"},
        {"x-i1-IQ4_XS.gguf", "IQ4_XS"},
        {"F16-trained-Q8_0.gguf", "Q8_0"}, /* the rightmost tag */
        {"Qwen2.5-7B-Instruct-UD-Q4_K_XL.gguf", NULL},
        {"x-Q6_K_L.gguf", NULL},
        {"x-Q4_K_M/model.gguf", NULL}, /* directories do not count */
        {"ggml-vocab-llama-spm.gguf", NULL},
        {"xQ8_0.gguf", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t at = 0, len = 0;
        const ftype_tag *t = ft_tag_in_name(cases[i].in, &at, &len);
        if (!cases[i].want) {
            if (t)
                fail_msg("'%s': unexpected tag %s", cases[i].in, t->tag);
            continue;
        }
        if (!t || strcmp(t->tag, cases[i].want) != 0)
            fail_msg("'%s': expected %s, got %s", cases[i].in, cases[i].want, t ? t->tag : "none");
        assert_int_equal(len, strlen(cases[i].want));
    }
    size_t at, len;
    assert_null(ft_tag_in_name(NULL, &at, &len));
}

static void test_name_tag_mismatch(void **state)
{
    model m;
    size_t len;
    /* the name says Q4_K_M, metadata and tensors say Q8_0: the name lies */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    uint8_t *buf = build(&m, 7, &len);
    ex_expect_msg(buf, len, "Llama-Tiny-Q4_K_M.gguf", "GG512", m.ft_value,
                  "general.file_type is 7 (Q8_0)");
    /* the name says Q4_K_S, the file type Q4_K_M; the tensors fit both */
    llama_mix(&m, GB_Q4_K, GB_Q4_K, GB_Q6_K);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, "tiny-q4_k_s.gguf", "GG512", m.ft_value, "Q4_K - Small");
    /* the name fits the tensors and the file type does not: only GG510 */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, "tiny.Q8_0.gguf", "GG512");
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 15, &len);
    ex_expect_msg(buf, len, "tiny.Q8_0.gguf", "GG510", m.ft_value, NULL);
    /* no file type: the name is judged by the tensors, at offset 0 */
    llama_mix(&m, GB_F16, GB_F16, GB_F16);
    buf = build(&m, -1, &len);
    ex_expect_msg(buf, len, "shard-Q4_K_M-00002-of-00003.gguf", "GG512", 0, "f16 x");
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    buf = build(&m, -1, &len);
    ex_expect_none(buf, len, "shard-Q4_K_M-00002-of-00003.gguf", "GG512");
    /* aliases: Q4_K names Q4_K_S and Q4_K_M */
    llama_mix(&m, GB_Q4_K, GB_Q6_K, GB_Q6_K);
    buf = build(&m, 15, &len);
    ex_expect_none(buf, len, "tiny-Q4_K.gguf", "GG512");
    /* no tag, no finding */
    llama_mix(&m, GB_Q8_0, GB_Q8_0, GB_Q8_0);
    buf = build(&m, 7, &len);
    ex_expect_none(buf, len, "tiny.gguf", "GG512");
}

/* ------------------------------------------------------------ the table */

static void test_table(void **state)
{
    for (uint32_t v = 0; v < 64; v++) {
        const ftype_info *ft = ft_info(v);
        bool removed = (v >= 4 && v <= 6) || (v >= 33 && v <= 35);
        if (v > 41) {
            assert_null(ft);
            continue;
        }
        assert_non_null(ft);
        assert_int_equal(ft->value, v);
        assert_int_equal(ft->status == FT_REMOVED, removed);
        if (!removed) {
            assert_true(ft->default_type < 43);
            assert_non_null(gguflint_ggml_type_name(ft->default_type));
            /* the default type is always allowed (--pure) */
            for (int r = 0; r < FTR__MIXED; r++)
                assert_true(ft_allowed(ft, (ft_role)r, 256, 1) & TS(ft->default_type));
        }
    }
    assert_int_equal(ft_info(15)->default_type, GGT_Q4_K);
    assert_int_equal(ft_info(28)->default_type, GGT_IQ2_XS); /* IQ2_S: default IQ2_XS */
    assert_int_equal(ft_info(29)->default_type, GGT_IQ2_S);
    assert_int_equal(ft_info(22)->default_type, GGT_IQ3_S);
    assert_null(ft_info(1024));
    assert_int_equal(ft_guess(GGT_Q4_K)->value, 15);
    assert_int_equal(ft_guess(GGT_BF16)->value, 32);
    /* Q4_K_M: attn_v may be Q6_K, attn_q may not */
    assert_true(ft_allowed(ft_info(15), FTR_ATTN_V, 256, 1) & TS(GGT_Q6_K));
    assert_false(ft_allowed(ft_info(15), FTR_ATTN_Q, 256, 1) & TS(GGT_Q6_K));
    assert_false(ft_allowed(ft_info(15), FTR_ATTN_Q, 256, 1) & TS(GGT_Q8_0));
    /* classification */
    const char *n = "blk.3.ffn_down_exps.weight";
    assert_int_equal(ft_role_of((const uint8_t *)n, strlen(n), true), FTR_FFN_DOWN);
    n = "token_embd.weight";
    assert_int_equal(ft_role_of((const uint8_t *)n, strlen(n), false), FTR_OUTPUT);
    assert_int_equal(ft_role_of((const uint8_t *)n, strlen(n), true), FTR_TOKEN_EMBD);
    n = "blk.0.attn_qkv.weight";
    assert_int_equal(ft_role_of((const uint8_t *)n, strlen(n), true), FTR_ATTN_V);
    n = "blk.0.attn_norm.weight";
    assert_false(ft_quantizable((const uint8_t *)n, strlen(n), 2));
    n = "blk.0.attn_q.weight";
    assert_false(ft_quantizable((const uint8_t *)n, strlen(n), 1));
    assert_true(ft_quantizable((const uint8_t *)n, strlen(n), 2));
    n = "blk.0.attn_q.bias";
    assert_false(ft_quantizable((const uint8_t *)n, strlen(n), 2));
    uint64_t ne[4] = {256, 1, 1, 1};
    assert_int_equal(ft_eff_dims(ne), 1);
    ne[2] = 4;
    assert_int_equal(ft_eff_dims(ne), 3);
}

/* ------------------------------------------------------------ robustness */

static void test_hostile_shapes(void **state)
{
    size_t len;
    /* a huge tensor name, n_dims > 4, an unknown type, zero dims: no crash,
     * nothing from these rules beyond what the shapes warrant */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.file_type", 15);
    char name[400];
    memset(name, 'a', sizeof name - 8);
    memcpy(name + sizeof name - 8, ".weight", 8);
    uint64_t ne[5] = {256, 4, 1, 1, 1};
    gb_tensor(b, name, 2, ne, GB_Q8_0, 0);
    gb_tensor(b, "w5", 5, ne, GB_Q8_0, 0);
    gb_tensor(b, "w_unknown.weight", 2, ne, 200, 0);
    uint64_t z[2] = {256, 0};
    gb_tensor(b, "w_zero.weight", 2, z, GB_Q8_0, 0);
    gb_pad_to(b, 32);
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    ex_expect_none(buf, len, "x-Q4_K_M.gguf", "GG510");
}

/* ft_quantizable: names holding one of llama-quantize's kept substrings,
 * alone or in a group behind a shared prefix (time_mix_, indexer., sam.),
 * and names that hold only the prefix or a near miss. */
static void test_quantizable_names(void **state)
{
    static const struct {
        const char *name;
        bool q;
    } cases[] = {
        {"blk.0.attn_q.weight", true},
        {"blk.0.attn_norm.weight", false},
        {"blk.0.time_mix_w1.weight", false},
        {"blk.0.time_mix_lerp_fused.weight", false},
        {"blk.0.time_mix_decay_w2.weight", false},
        {"blk.0.time_mix_key.weight", true},
        {"blk.0.time_mix_w3.weight", true},
        {"blk.0.indexer.k_proj.weight", false},
        {"blk.0.indexer.v_proj.weight", true},
        {"v.sam.neck.0.weight", false},
        {"v.sam.net_2.weight", false},
        {"v.sam.pos_embd.weight", false},
        {"v.sam.blk.0.attn.weight", true},
        {"v.blk.0.ffn_gate_inp.weight", false},
        {"blk.3.ssm_conv1d.weight", false},
        {"mm.a.code_embd.weight", false},
        {"blk.0.ffn_down.weight", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *n = cases[i].name;
        if (ft_quantizable((const uint8_t *)n, strlen(n), 2) != cases[i].q)
            fail_msg("%s: quantizable %d, expected %d", n, !cases[i].q, cases[i].q);
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_quantizable_names),
            cmocka_unit_test(test_q4_k_m_mix_passes),
            cmocka_unit_test(test_q4_k_m_over_q8_0_fails),
            cmocka_unit_test(test_majority_and_overrides),
            cmocka_unit_test(test_shape_fallbacks),
            cmocka_unit_test(test_mxfp4_moe),
            cmocka_unit_test(test_not_judged),
            cmocka_unit_test(test_unexpected_quantized),
            cmocka_unit_test(test_name_tag_parser),
            cmocka_unit_test(test_name_tag_mismatch),
            cmocka_unit_test(test_table),
            cmocka_unit_test(test_hostile_shapes),
        })

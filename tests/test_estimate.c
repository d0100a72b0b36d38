/* test_estimate.c - the memory estimate (model/estimate.c, `gguflint
 * estimate`): exact KV bytes with grouped-query heads (scalar and per-layer
 * head_count_kv), sliding-window layers (gemma2's unconditional pattern,
 * gemma3's only with a window, a per-layer pattern array), MLA (no V),
 * recurrent state (mamba; rwkv6, rwkv7, arwkv7, rwkv6qwen2 with their
 * compute peak; Kimi's KDA, MiniMax's linear attention), a hybrid (lfm2), a model without memory
 * (bert), cache types, the weights by type; hostile hyper-parameters
 * (saturation, division by zero, a huge block_count bounded by the tensors)
 * and the command line in text and JSON. */
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
#include "gguflint_llama.h"
#include "model/estimate.h"

/* One hyper-parameter "<arch>.<suffix>": a u32, or an i32 array (n > 0). */
typedef struct hp {
    const char *suffix;
    uint64_t v;
    int32_t arr[8];
    size_t n;
} hp;

/* A file of `arch` with the keys, a token_embd of n_embd x vocab and
 * `layers` small per-layer tensors (the estimate bounds block_count by the
 * tensors present). */
static uint8_t *model(const char *arch, const hp *h, size_t nh, uint64_t n_embd, uint64_t vocab,
                      uint32_t layers, size_t *len)
{
    gb *b = gb_new(3);
    char key[128];
    gb_kv_str(b, "general.architecture", arch);
    for (size_t i = 0; i < nh; i++) {
        snprintf(key, sizeof key, "%s.%s", arch, h[i].suffix);
        if (h[i].n)
            gb_kv_arr(b, key, GB_VT_I32, h[i].n, h[i].arr, h[i].n * 4);
        else if (h[i].v > UINT32_MAX)
            gb_kv_u64(b, key, h[i].v);
        else
            gb_kv_u32(b, key, (uint32_t)h[i].v);
    }
    uint64_t ne[2] = {n_embd, vocab}, one[1] = {32}, off = 0;
    gb_tensor(b, "token_embd.weight", 2, ne, GB_F16, off);
    off += (n_embd * vocab * 2 + 31) / 32 * 32;
    for (uint32_t il = 0; il < layers; il++) {
        snprintf(key, sizeof key, "blk.%u.attn_norm.weight", il);
        gb_tensor(b, key, 1, one, GB_F32, off);
        off += 128;
    }
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)off);
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
    return buf;
}

static estimate *run(const uint8_t *buf, size_t len, uint64_t n_ctx, uint32_t tk, uint32_t tv)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, NULL, NULL);
    arch_env *env = malloc(sizeof *env);
    estimate *e = malloc(sizeof *e);
    assert_non_null(env);
    assert_non_null(e);
    estimate_run(ctx, env, e, n_ctx, 0, 0, tk, tv);
    free(env);
    gguflint_free(ctx);
    return e;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* model() then run(), the file freed: the estimate of one configuration. */
static estimate *est_of(const char *arch, const hp *h, size_t nh, uint64_t n_embd, uint32_t layers,
                        uint64_t n_ctx, uint32_t tk, uint32_t tv)
{
    size_t len;
    uint8_t *buf = model(arch, h, nh, n_embd, 10, layers, &len);
    estimate *e = run(buf, len, n_ctx, tk, tv);
    free(buf);
    return e;
}

/* The keys most cases share: layers, a width of 64, 4 heads. */
#define BASE(layers)                                                                               \
    {"block_count", layers, {0}, 0}, {"embedding_length", 64, {0}, 0},                             \
    {                                                                                              \
        "attention.head_count", 4, {0}, 0                                                          \
    }

static void test_gqa(void **state)
{
    (void)state;
    hp h[] = {BASE(2), {"attention.head_count_kv", 1, {0}, 0}};
    size_t len;
    uint8_t *buf = model("llama", h, N(h), 64, 100, 2, &len);
    estimate *e = run(buf, len, 1000, 1, 1); /* 1000 cells padded to 1024 */
    assert_int_equal(e->n_ctx, 1024);
    assert_string_equal(e->memory, "kv");
    assert_int_equal(e->layer[0].k, 16 * 1 * 1024 * 2);
    assert_int_equal(e->kv_k, 2 * 16 * 1024 * 2);
    assert_int_equal(e->kv_v, e->kv_k);
    assert_int_equal(e->weights, 64 * 100 * 2 + 2 * 32 * 4);
    assert_int_equal(e->by_type[1], 64 * 100 * 2);
    assert_int_equal(e->count_by_type[0], 2);
    assert_int_equal(e->output, 100 * 4);
    assert_false(e->saturated);
    assert_int_equal(e->notes, 0);
    free(e);
    /* q8_0 K, f32 V: 64 values of K per cell are 2 blocks of 34 bytes */
    hp h2[] = {BASE(2), {"attention.head_count_kv", 0, {1, 4}, 2}};
    free(buf);
    buf = model("llama", h2, N(h2), 64, 100, 2, &len);
    e = run(buf, len, 256, 8, 0);
    assert_int_equal(e->layer[0].k, 256 * 34); /* 16 values: a block, rounded up */
    assert_int_equal(e->layer[1].k, 256 * 2 * 34);
    assert_int_equal(e->layer[1].v, 256 * 64 * 4);
    assert_true(e->notes & EST_N_CACHE_BLOCK);
    free(e);
    free(buf);
}

static void test_swa(void **state)
{
    (void)state;
    /* gemma2: every other layer slides, window 4096 by default */
    hp h[] = {BASE(4),
              {"attention.head_count_kv", 2, {0}, 0},
              {"attention.key_length", 32, {0}, 0},
              {"attention.value_length", 32, {0}, 0}};
    estimate *e = est_of("gemma2", h, N(h), 64, 4, 8192, 1, 1);
    assert_string_equal(e->memory, "iswa");
    assert_int_equal(e->n_swa, 4096);
    assert_int_equal(e->layer[0].kind, EST_SWA);
    assert_int_equal(e->layer[0].cells, 4608); /* pad256(4096 + 512) */
    assert_int_equal(e->layer[1].kind, EST_ATTN);
    assert_int_equal(e->layer[1].cells, 8192);
    assert_int_equal(e->kv_k, 2 * (4608 + 8192) * 64 * 2);
    free(e);
    /* a short context: the window cache is never larger than the context */
    e = est_of("gemma2", h, N(h), 64, 4, 1024, 1, 1);
    assert_int_equal(e->layer[0].cells, 1024);
    free(e);
    /* gemma3: no sliding_window key, no sliding layers */
    hp g[] = {BASE(6), {"attention.sliding_window", 512, {0}, 0}};
    e = est_of("gemma3", g, 3, 64, 6, 8192, 1, 1);
    assert_string_equal(e->memory, "kv");
    free(e);
    e = est_of("gemma3", g, 4, 64, 6, 8192, 1, 1);
    for (uint32_t il = 0; il < 5; il++)
        assert_int_equal(e->layer[il].cells, 1024);
    assert_int_equal(e->layer[5].cells, 8192);
    free(e);
    /* a per-layer pattern array decides, for any architecture */
    hp p[] = {BASE(3),
              {"attention.sliding_window", 256, {0}, 0},
              {"attention.sliding_window_pattern", 0, {0, 1, 1}, 3}};
    e = est_of("gemma3", p, N(p), 64, 3, 4096, 1, 1);
    assert_int_equal(e->layer[0].cells, 4096);
    assert_int_equal(e->layer[1].cells, 768); /* pad256(256 + 512) */
    assert_int_equal(e->layer[2].cells, 768);
    free(e);
    /* a window the tables have no layout for: said, full cache */
    hp m[] = {BASE(2), {"attention.sliding_window", 256, {0}, 0}};
    e = est_of("llama", m, N(m), 64, 2, 4096, 1, 1);
    assert_true(e->notes & EST_N_SWA_UNMODELLED);
    assert_int_equal(e->layer[1].cells, 4096);
    free(e);
}

static void test_mla(void **state)
{
    (void)state;
    hp h[] = {BASE(2),
              {"attention.head_count_kv", 1, {0}, 0},
              {"attention.key_length", 48, {0}, 0},
              {"attention.value_length", 32, {0}, 0},
              {"attention.key_length_mla", 32, {0}, 0},
              {"attention.value_length_mla", 16, {0}, 0},
              {"attention.kv_lora_rank", 32, {0}, 0}};
    estimate *e = est_of("deepseek2", h, N(h), 64, 2, 8192, 1, 1);
    assert_true(e->mla);
    assert_int_equal(e->kv_k, 2 * 48 * 8192 * 2);
    assert_int_equal(e->kv_v, 0);
    free(e);
    /* without the _mla keys: an ordinary cache */
    e = est_of("deepseek2", h, 6, 64, 2, 8192, 1, 1);
    assert_false(e->mla);
    assert_int_equal(e->kv_v, 2 * 32 * 8192 * 2);
    free(e);
}

static void test_recurrent_hybrid_none(void **state)
{
    (void)state;
    hp m[] = {{"block_count", 2, {0}, 0},
              {"embedding_length", 64, {0}, 0},
              {"ssm.conv_kernel", 4, {0}, 0},
              {"ssm.inner_size", 128, {0}, 0},
              {"ssm.state_size", 16, {0}, 0}};
    estimate *e = est_of("mamba", m, N(m), 64, 2, 4096, 1, 1);
    assert_string_equal(e->memory, "recurrent");
    assert_int_equal(e->layer[0].r, 3 * 128 * 4);
    assert_int_equal(e->rs_s, 2 * 16 * 128 * 4);
    assert_int_equal(e->kv_k + e->kv_v, 0);
    free(e);
    hp r[] = {{"block_count", 1, {0}, 0},
              {"embedding_length", 256, {0}, 0},
              {"wkv.head_size", 64, {0}, 0}};
    e = est_of("rwkv6", r, N(r), 256, 1, 4096, 1, 1);
    assert_int_equal(e->rs_r, 2 * 256 * 4); /* token_shift_count 2 by default */
    assert_int_equal(e->rs_s, 256 * 64 * 4);
    free(e);
    hp l[] = {BASE(2), {"attention.head_count_kv", 0, {0, 4}, 2}, {"shortconv.l_cache", 3, {0}, 0}};
    e = est_of("lfm2", l, N(l), 64, 2, 4096, 1, 1);
    assert_string_equal(e->memory, "hybrid");
    assert_int_equal(e->layer[0].kind, EST_RS);
    assert_int_equal(e->layer[0].r, 64 * 2 * 4);
    assert_int_equal(e->layer[1].kind, EST_ATTN);
    assert_int_equal(e->kv_k, 4096 * 64 * 2);
    free(e);
    hp b[] = {BASE(2)};
    e = est_of("bert", b, N(b), 64, 2, 4096, 1, 1);
    assert_string_equal(e->memory, "none");
    assert_int_equal(e->kv_k + e->kv_v + e->rs_r + e->rs_s, 0);
    free(e);
    e = est_of("no-such-arch", b, N(b), 64, 2, 4096, 1, 1);
    assert_true(e->notes & EST_N_UNKNOWN_ARCH);
    assert_int_equal(e->total, e->weights);
    free(e);
}

/* RWKV (llama-hparams.cpp n_embd_r / n_embd_s): per layer and sequence one
 * f32 token-shift state of token_shift_count x n_embd values (2 by default)
 * and one WKV state of n_embd x wkv.head_size; no KV cache; the compute
 * buffer the larger of the generic one and memory.def's MEM_ACT peak. */
static void test_rwkv(void **state)
{
    (void)state;
    hp r6[] = {{"block_count", 3, {0}, 0},
               {"embedding_length", 128, {0}, 0},
               {"wkv.head_size", 32, {0}, 0}};
    estimate *e = est_of("rwkv6", r6, N(r6), 128, 3, 4096, 1, 1);
    assert_string_equal(e->memory, "recurrent");
    assert_int_equal(e->n_layer, 3);
    for (uint32_t il = 0; il < 3; il++) {
        assert_int_equal(e->layer[il].kind, EST_RS);
        assert_int_equal(e->layer[il].r, 2 * 128 * 4);
        assert_int_equal(e->layer[il].s, 128 * 32 * 4);
    }
    assert_int_equal(e->rs_r, 3072);
    assert_int_equal(e->rs_s, 49152);
    assert_int_equal(e->kv_k + e->kv_v, 0);
    assert_int_equal(e->output, 10 * 4);
    /* generic 512 x (10 + 4 x 128) x 4 = 1069056 < 512 x 14 x 128 x 4 */
    assert_int_equal(e->compute, 3670016);
    /* token_embd 128 x 10 f16, 3 f32 norms of 32 */
    assert_int_equal(e->weights, 2560 + 3 * 128);
    assert_int_equal(e->total, 2944 + 3072 + 49152 + 40 + 3670016);
    assert_int_equal(e->notes, 0);
    assert_false(e->saturated);
    free(e);
    hp r7[] = {{"block_count", 2, {0}, 0},
               {"embedding_length", 256, {0}, 0},
               {"wkv.head_size", 64, {0}, 0},
               {"token_shift_count", 2, {0}, 0}};
    e = est_of("rwkv7", r7, N(r7), 256, 2, 8192, 1, 1);
    assert_string_equal(e->memory, "recurrent");
    assert_int_equal(e->rs_r, 2 * 2 * 256 * 4);
    assert_int_equal(e->rs_s, 2 * 256 * 64 * 4);
    assert_int_equal(e->compute, 512 * 18 * 256 * 4);
    assert_int_equal(e->total, 5120 + 256 + 4096 + 131072 + 40 + 9437184);
    free(e);
    /* arwkv7 and rwkv6qwen2 keep one token shift: token_shift_count 1 */
    r7[3].v = 1;
    e = est_of("arwkv7", r7, N(r7), 256, 2, 8192, 1, 1);
    assert_int_equal(e->rs_r, 2 * 256 * 4);
    assert_int_equal(e->rs_s, 2 * 256 * 64 * 4);
    assert_int_equal(e->compute, 512 * 16 * 256 * 4);
    free(e);
    /* a vocabulary large enough that the logits peak: the generic buffer */
    size_t len;
    uint8_t *buf = model("rwkv7", r7, N(r7), 256, 20000, 2, &len);
    e = run(buf, len, 4096, 1, 1);
    assert_int_equal(e->compute, 512 * (20000 + 4 * 256) * 4);
    free(e);
    free(buf);
    /* token_shift_count 0: no token-shift state, the WKV state stays */
    r7[3].v = 0;
    e = est_of("rwkv6qwen2", r7, N(r7), 256, 2, 8192, 1, 1);
    assert_int_equal(e->rs_r, 0);
    assert_int_equal(e->rs_s, 2 * 256 * 64 * 4);
    free(e);
}

/* Kimi's KDA layers (kimi-linear; bailingmoe3, kimi-k3 alike) and
 * MiniMax's linear attention (memory.def MEM_LA), each beside attention
 * layers; a state key the architecture's loader does not read is ignored. */
static void test_kda_la(void **state)
{
    (void)state;
    hp k[] = {BASE(2),
              {"attention.head_count_kv", 0, {0, 1}, 2},
              {"attention.key_length", 48, {0}, 0},
              {"attention.value_length", 32, {0}, 0},
              {"kda.head_dim", 16, {0}, 0},
              {"ssm.conv_kernel", 5, {0}, 0}};
    estimate *e = est_of("kimi-linear", k, N(k), 64, 2, 8192, 1, 1);
    assert_string_equal(e->memory, "hybrid");
    assert_int_equal(e->layer[0].kind, EST_RS);
    assert_int_equal(e->layer[0].r, 3 * 4 * 4 * 16 * 4); /* 3 x (5 - 1) x n_head x head_dim */
    assert_int_equal(e->layer[0].s, 16 * 16 * 4 * 4);
    assert_int_equal(e->layer[1].kind, EST_ATTN);
    assert_int_equal(e->kv_k, 48 * 8192 * 2);
    assert_int_equal(e->kv_v, 32 * 8192 * 2);
    assert_int_equal(e->rs_r + e->rs_s, 3072 + 4096);
    assert_int_equal(e->notes, 0);
    free(e);
    /* without ssm.conv_kernel llama.cpp counts 3 convolution steps */
    e = est_of("kimi-linear", k, N(k) - 1, 64, 2, 8192, 1, 1);
    assert_int_equal(e->layer[0].r, 3 * 3 * 4 * 16 * 4);
    free(e);
    /* minimax-01: every third layer attends, the others keep head_k^2 x n_head */
    hp m[] = {BASE(3), {"full_attention_interval", 3, {0}, 0}};
    e = est_of("minimax-01", m, N(m), 64, 3, 4096, 1, 1);
    assert_string_equal(e->memory, "hybrid");
    assert_int_equal(e->layer[0].kind, EST_RS);
    assert_int_equal(e->layer[1].kind, EST_RS);
    assert_int_equal(e->layer[2].kind, EST_ATTN);
    assert_int_equal(e->rs_r, 0);
    assert_int_equal(e->rs_s, 2 * 16 * 16 * 4 * 4);
    assert_int_equal(e->kv_k, 16 * 4 * 4096 * 2);
    /* mask 4096 x 512 f16, 512 x (10 + 4 x 64) f32, 3 x 512 x 512 x 4 heads f32 */
    assert_int_equal(e->compute, 4096 * 512 * 2 + 512 * 266 * 4 + 3 * 512 * 512 * 4 * 4);
    free(e);
    hp m2[] = {
        BASE(3), {"full_attention_interval", 3, {0}, 0}, {"attention.key_length", 32, {0}, 0}};
    e = est_of("minimax-01", m2, N(m2), 64, 3, 4096, 1, 1);
    assert_int_equal(e->layer[0].s, 32 * 32 * 4 * 4);
    free(e);
    /* mamba's loader reads no wkv.head_size: its state stays mamba's */
    hp w[] = {{"block_count", 2, {0}, 0},      {"embedding_length", 64, {0}, 0},
              {"ssm.conv_kernel", 4, {0}, 0},  {"ssm.inner_size", 128, {0}, 0},
              {"ssm.state_size", 16, {0}, 0},  {"wkv.head_size", 64, {0}, 0},
              {"shortconv.l_cache", 3, {0}, 0}};
    e = est_of("mamba", w, N(w), 64, 2, 4096, 1, 1);
    assert_int_equal(e->layer[0].r, 3 * 128 * 4);
    assert_int_equal(e->layer[0].s, 16 * 128 * 4);
    free(e);
}

static void test_hostile(void **state)
{
    (void)state;
    /* huge counts: saturated, never wrapped; block_count bounded by the tensors */
    hp h[] = {{"block_count", 4000000000u, {0}, 0},
              {"embedding_length", UINT64_MAX >> 1, {0}, 0},
              {"attention.head_count", 1, {0}, 0},
              {"attention.head_count_kv", 0x7fffffff, {0}, 0},
              {"attention.key_length", 1ull << 40, {0}, 0},
              {"attention.value_length", 1ull << 40, {0}, 0}};
    estimate *e = est_of("llama", h, N(h), 64, 3, 1ull << 32, 1, 1);
    assert_true(e->saturated);
    assert_true(e->notes & EST_N_LAYERS_CAPPED);
    assert_true(e->n_layer <= 4);
    assert_int_equal(e->total, UINT64_MAX);
    free(e);
    /* zero heads: no division by zero, head sizes 0 */
    hp z[] = {{"block_count", 2, {0}, 0},
              {"embedding_length", 64, {0}, 0},
              {"attention.head_count", 0, {0}, 0},
              {"ssm.conv_kernel", 0, {0}, 0}};
    e = est_of("llama", z, N(z), 64, 2, 1, 1, 1);
    assert_int_equal(e->kv_k, 0);
    assert_int_equal(e->n_ctx, 256);
    free(e);
    e = est_of("mamba", z, N(z), 64, 2, 1, 1, 1);
    assert_int_equal(e->rs_r, 0);
    free(e);
    /* RWKV: a huge head size, width and token-shift count saturate, never
     * wrap; the layer count stays bounded by the tensors */
    hp w[] = {{"block_count", 1000000, {0}, 0},
              {"embedding_length", 1ull << 40, {0}, 0},
              {"wkv.head_size", 1ull << 40, {0}, 0},
              {"token_shift_count", 0xffffffffu, {0}, 0}};
    e = est_of("rwkv7", w, N(w), 64, 2, 1ull << 40, 1, 1);
    assert_true(e->saturated);
    assert_true(e->notes & EST_N_LAYERS_CAPPED);
    assert_true(e->n_layer <= 3);
    assert_int_equal(e->rs_s, UINT64_MAX);
    assert_int_equal(e->compute, 512ull * 18 * (1ull << 40) * 4); /* large, exact */
    assert_int_equal(e->total, UINT64_MAX);
    free(e);
    /* just below 64 bits per layer: exact, the sum of two layers saturates */
    hp w2[] = {{"block_count", 2, {0}, 0},
               {"embedding_length", 1ull << 31, {0}, 0},
               {"wkv.head_size", 1ull << 30, {0}, 0}};
    e = est_of("rwkv6", w2, N(w2), 64, 2, 4096, 1, 1);
    assert_int_equal(e->layer[0].s, 1ull << 63);
    assert_int_equal(e->layer[0].r, 2 * (1ull << 31) * 4);
    assert_int_equal(e->rs_s, UINT64_MAX);
    assert_true(e->saturated);
    free(e);
    /* a KDA state row past 32 bits: exact here, said to wrap in llama.cpp */
    hp kd[] = {{"block_count", 2, {0}, 0},
               {"embedding_length", 64, {0}, 0},
               {"attention.head_count", 1u << 16, {0}, 0},
               {"attention.head_count_kv", 0, {0, 0}, 2},
               {"kda.head_dim", 1u << 20, {0}, 0}};
    e = est_of("kimi-linear", kd, N(kd), 64, 2, 4096, 1, 1);
    assert_true(e->notes & EST_N_RS_WRAPS);
    assert_false(e->saturated);
    assert_int_equal(e->layer[0].s, (1ull << 56) * 4);
    free(e);
}

static void test_cli(void **state)
{
    (void)state;
    char dir[] = "/tmp/gguflint-estimate-XXXXXX", out[16384];
    assert_int_equal(ex_tmpdir_make(dir), 0);
    hp h[] = {BASE(2), {"attention.head_count_kv", 1, {0}, 0}};
    size_t len;
    uint8_t *buf = model("llama", h, N(h), 64, 100, 2, &len);
    ex_write_file(dir, "m.gguf", buf, len);
    free(buf);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate --ctx 1000 m.gguf", 0,
                  "KV cache: K 65536 bytes (0.06 MiB), V 65536 bytes", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate --format json --ctx 1000 m.gguf", 0,
                  "\"kv_cache\":{\"k_bytes\":65536,\"v_bytes\":65536,\"bytes\":131072}", out,
                  sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate --cache-type-k q8_0 --ctx=256 m.gguf", 0,
                  "cache K q8_0, V f16", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate --ctx 0 m.gguf", 2, "--ctx", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate --cache-type-k nope m.gguf", 2,
                  "unknown ggml type", out, sizeof out);
    ex_write_text(dir, "x.txt", "not gguf");
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "estimate x.txt", 1, "not a GGUF model", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "--select GG595 --llama-build b2000 m.gguf", 0, NULL, out,
                  sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "--select GG595 --llama-build 2020-01-01 m.gguf", 1,
                  "needs llama.cpp b1953", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, ".", "--llama-build nope m.gguf", 2, "--llama-build", out,
                  sizeof out);
    assert_int_equal(ex_tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gqa),     cmocka_unit_test(test_swa),
        cmocka_unit_test(test_mla),     cmocka_unit_test(test_recurrent_hybrid_none),
        cmocka_unit_test(test_rwkv),    cmocka_unit_test(test_kda_la),
        cmocka_unit_test(test_hostile), cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

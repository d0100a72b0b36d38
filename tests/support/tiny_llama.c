/* tiny_llama.c - see tiny_llama.h. */
#include "tiny_llama.h"

#include "gguf_builder.h"

#include <stdlib.h>
#include <string.h>

enum { E = 32, V = 16, F = 64, H = 4, L = 1 };

typedef struct tspec {
    const char *name;
    uint32_t type;
    uint32_t n_dims;
    uint64_t ne0, ne1;
} tspec;

static const tspec tensors[] = {
    {"token_embd.weight", GB_F16, 2, E, V},     {"output_norm.weight", GB_F32, 1, E, 1},
    {"output.weight", GB_F16, 2, E, V},         {"blk.0.attn_norm.weight", GB_F32, 1, E, 1},
    {"blk.0.attn_q.weight", GB_F16, 2, E, E},   {"blk.0.attn_k.weight", GB_F16, 2, E, E},
    {"blk.0.attn_v.weight", GB_F16, 2, E, E},   {"blk.0.attn_output.weight", GB_F16, 2, E, E},
    {"blk.0.ffn_norm.weight", GB_F32, 1, E, 1}, {"blk.0.ffn_gate.weight", GB_F16, 2, E, F},
    {"blk.0.ffn_down.weight", GB_F16, 2, F, E}, {"blk.0.ffn_up.weight", GB_F16, 2, E, F},
};
#define N_TENSORS (sizeof tensors / sizeof tensors[0])

static uint64_t bytes_of(const tspec *t)
{
    uint64_t ne[2] = {t->ne0, t->ne1};
    return gb_nbytes(t->type, t->n_dims, ne);
}

/* Deterministic small finite values: f16 in [-0.5, 0.5), f32 near 1. */
static void fill(uint8_t *p, const tspec *t, uint64_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 12345u;
    if (t->type == GB_F32) {
        for (uint64_t i = 0; i + 4 <= n; i += 4) {
            x = x * 1664525u + 1013904223u;
            float v = 1.0f + (float)(x >> 20) / 65536.0f;
            memcpy(p + i, &v, 4);
        }
        return;
    }
    for (uint64_t i = 0; i + 2 <= n; i += 2) {
        x = x * 1664525u + 1013904223u;
        /* sign, exponent 0x0C..0x0D (2^-3..2^-2), random mantissa */
        uint16_t h = (uint16_t)(((x >> 31) << 15) | ((0x0Cu + ((x >> 29) & 1u)) << 10) |
                                ((x >> 8) & 0x3FFu));
        p[i] = (uint8_t)(h & 0xFF);
        p[i + 1] = (uint8_t)(h >> 8);
    }
}

const gb_llama gb_tiny_hparams = {
    .name = "tiny-llama",
    .file_type = 1,
    .alignment = 32,
    .context = 256,
    .embd = E,
    .blocks = L,
    .ff = F,
    .heads = H,
    .heads_kv = H,
    .eps = 1e-5f,
    .rope_dims = E / H,
    .rope_base = 10000.0f,
    .vocab = V,
};

/* The first eight u32 keys gb_llama_kvs writes, in gb_llama's order. */
static const char *const llama_u32_keys[] = {
    "general.file_type",          "general.alignment",
    "llama.context_length",       "llama.embedding_length",
    "llama.block_count",          "llama.feed_forward_length",
    "llama.attention.head_count", "llama.attention.head_count_kv",
};

void gb_llama_kvs(gb *b, const gb_llama *p)
{
    const uint32_t u[] = {p->file_type, p->alignment, p->context, p->embd,
                          p->blocks,    p->ff,        p->heads,   p->heads_kv};
    gb_kv_str(b, "general.architecture", "llama");
    if (p->name)
        gb_kv_str(b, "general.name", p->name);
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (u[i])
            gb_kv_u32(b, llama_u32_keys[i], u[i]);
    if (p->eps != 0.0f)
        gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", p->eps);
    if (p->rope_dims)
        gb_kv_u32(b, "llama.rope.dimension_count", p->rope_dims);
    if (p->rope_base != 0.0f)
        gb_kv_f32(b, "llama.rope.freq_base", p->rope_base);
    if (p->vocab)
        gb_kv_u32(b, "llama.vocab_size", p->vocab);
}

void gb_llama_vocab(gb *b, const char *const *tokens, const float *scores, const int32_t *types,
                    size_t n)
{
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", tokens, n);
    if (scores)
        gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, n, scores, n * sizeof *scores);
    if (types)
        gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, n, types, n * sizeof *types);
}

uint8_t *gb_tiny_llama(size_t *len)
{
    static const char *const tokens[V] = {"<unk>",
                                          "<s>",
                                          "</s>",
                                          "<0x0A>",
                                          "\xe2\x96\x81",
                                          "a",
                                          "b",
                                          "c",
                                          "\xe2\x96\x81the",
                                          "\xe2\x96\x81"
                                          "a",
                                          "in",
                                          "on",
                                          "is",
                                          "it",
                                          ".",
                                          ","};
    float scores[V];
    int32_t types[V];
    for (int i = 0; i < V; i++) {
        scores[i] = -(float)i;
        types[i] = i == 0 ? 2 : i < 3 ? 3 : i == 3 ? 6 : 1;
    }
    gb *b = gb_new(3);
    gb_llama_kvs(b, &gb_tiny_hparams);
    gb_llama_vocab(b, tokens, scores, types, V);
    gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    gb_kv_bool(b, "tokenizer.ggml.add_bos_token", 1);
    gb_kv_u32(b, "general.quantization_version", 2);
    uint64_t off = 0;
    for (size_t i = 0; i < N_TENSORS; i++) {
        uint64_t ne[2] = {tensors[i].ne0, tensors[i].ne1};
        gb_tensor(b, tensors[i].name, tensors[i].n_dims, ne, tensors[i].type, off);
        off = gb_align_up(off + bytes_of(&tensors[i]), 32);
    }
    gb_pad_to(b, 32);
    for (size_t i = 0; i < N_TENSORS; i++) {
        uint64_t n = bytes_of(&tensors[i]);
        uint8_t *data = malloc((size_t)n);
        if (!data) {
            gb_free(b);
            return NULL;
        }
        fill(data, &tensors[i], n, (uint32_t)i + 1);
        gb_bytes(b, data, (size_t)n);
        free(data);
        gb_pad_to(b, 32);
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

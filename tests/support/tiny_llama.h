/* tiny_llama.h - a complete, valid, tiny llama model in memory: every
 * hyper-parameter llama.cpp requires, a 16-token vocabulary, the full tensor
 * set of one block with the shapes the llama loader checks, and finite,
 * non-zero data. It lints clean under every check (structural and semantic,
 * --deep included), so it is the "valid" example and the clean input of the
 * CLI tests. */
#ifndef TINY_LLAMA_H
#define TINY_LLAMA_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_builder.h"

/* Caller frees. NULL on OOM. */
uint8_t *gb_tiny_llama(size_t *len);

/* The llama hyper-parameters of a model (the tiny model's, the generators'
 * sparse and bench models', a vocabulary-only file), written by gb_llama_kvs
 * in this order after general.architecture "llama"; a field of 0 (or NULL)
 * is not written. */
typedef struct gb_llama {
    const char *name;              /* general.name */
    uint32_t file_type, alignment; /* general.* */
    uint32_t context, embd, blocks, ff, heads, heads_kv;
    float eps; /* llama.attention.layer_norm_rms_epsilon */
    uint32_t rope_dims;
    float rope_base;
    uint32_t vocab; /* llama.vocab_size */
} gb_llama;
void gb_llama_kvs(gb *b, const gb_llama *p);
/* The tiny model's. */
extern const gb_llama gb_tiny_hparams;
/* tokenizer.ggml.model "llama", then the n tokens, their scores and their
 * types (scores and types are not written when NULL). */
void gb_llama_vocab(gb *b, const char *const *tokens, const float *scores, const int32_t *types,
                    size_t n);

#endif

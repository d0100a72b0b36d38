/* estimate.h - the memory llama.cpp (CPU backend, one sequence) takes for a
 * model at a context size (`gguflint estimate`, issue 27): weights, KV cache
 * per layer (grouped-query heads per layer, sliding-window layers, MLA),
 * recurrent state (mamba, rwkv, lfm2's short convolutions, Kimi's KDA,
 * MiniMax's linear attention) and hybrid
 * models, the output buffer and a rough compute buffer. The layout facts are
 * data: data/llama/memory.def and the architecture tables (model/arch_eval.h).
 * Every value comes from a file: arithmetic is checked, an overflow
 * saturates at UINT64_MAX and sets `saturated`, the layer loop is bounded by
 * ARCH_MAX_LAYERS and by the tensors present. */
#ifndef GGUFLINT_MODEL_ESTIMATE_H
#define GGUFLINT_MODEL_ESTIMATE_H

#include "format/types.h"
#include "model/arch_eval.h"

enum { EST_NONE, EST_ATTN, EST_SWA, EST_RS, EST_BOTH /* KV and recurrent state (falcon-h1) */ };

/* what the estimate could not model (est.notes bits) */
enum {
    EST_N_UNKNOWN_ARCH = 1,   /* not in the tables: weights only */
    EST_N_SWA_UNMODELLED = 2, /* sliding_window without a layout: full cache on every layer */
    EST_N_HEADS_UNKNOWN = 4,  /* a layer's head counts or sizes unknown: counted as 0 */
    EST_N_LAYERS_CAPPED = 8,  /* block_count above ARCH_MAX_LAYERS or the tensors present */
    EST_N_CACHE_BLOCK = 16,   /* a row not a whole number of the cache type's blocks */
    EST_N_RS_WRAPS = 32,      /* a state row above 2^32 - 1 values: llama.cpp's 32-bit size wraps */
    EST_N_RECURRENT_ARRAY = 64, /* attention.recurrent_layers present: the table's formula used */
};

typedef struct est_layer {
    uint8_t kind;   /* EST_* */
    uint64_t cells; /* KV cells (attention layers) */
    uint64_t k, v;  /* KV bytes */
    uint64_t r, s;  /* recurrent state bytes */
} est_layer;

typedef struct estimate {
    /* parameters, as llama.cpp adjusts them */
    uint64_t n_ctx_req, n_ctx, n_batch, n_ubatch;
    uint32_t type_k, type_v;
    /* weights */
    uint64_t weights, tensors;
    uint64_t by_type[GGML_TYPE_TABLE_COUNT + 1], count_by_type[GGML_TYPE_TABLE_COUNT + 1];
    /* memory */
    const char *memory; /* "kv", "iswa", "recurrent", "hybrid", "none" */
    bool mla;
    uint64_t n_swa; /* window (0: none) */
    uint32_t n_layer;
    est_layer layer[ARCH_MAX_LAYERS];
    uint64_t kv_k, kv_v, rs_r, rs_s;
    uint64_t n_vocab, n_embd;
    uint64_t output, compute, total;
    unsigned notes;
    bool saturated;
} estimate;

/* Estimate a file that was run. n_batch / n_ubatch 0: llama.cpp's defaults.
 * The env and the result are large: the caller allocates them. */
void estimate_run(gguflint_ctx *ctx, arch_env *env, estimate *e, uint64_t n_ctx, uint64_t n_batch,
                  uint64_t n_ubatch, uint32_t type_k, uint32_t type_v);

#endif

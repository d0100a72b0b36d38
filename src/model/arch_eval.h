/* arch_eval.h - evaluate the generated shape and condition formulas
 * (arch_tables.h) against one file's hyper-parameters, the way llama.cpp's
 * loader computes them. Values are 64-bit with checked arithmetic; anything
 * the file does not determine (a missing key without default, an overflow, a
 * division by zero, a formula the generator marked "?") is "unknown", and
 * callers never report on an unknown.
 *
 * The symbols without a key of their own (n_vocab, n_head, n_embd_head_k,
 * n_rot, the per-layer arrays, is_recurrent ...) are computed here as
 * llama.cpp's load_hparams computes them: this file is the hand-maintained
 * half of the architecture tables (see data/arch/README.md). */
#ifndef GGUFLINT_ARCH_EVAL_H
#define GGUFLINT_ARCH_EVAL_H

#include "model/arch_tables.h"
#include "model/model.h"

#define ARCH_MAX_SYMS 96
#define ARCH_MAX_LAYERS 512u /* llama.cpp LLAMA_MAX_LAYERS */

typedef struct arch_val {
    int64_t v;
    bool known;
} arch_val;

/* A per-layer hyper-parameter: llama.cpp's get_key_or_arr result. */
typedef struct arch_layers {
    bool is_array; /* else every layer has `scalar` */
    arch_val scalar;
    uint32_t n; /* elements decoded (at most ARCH_MAX_LAYERS) */
    int64_t v[ARCH_MAX_LAYERS];
    bool ok; /* element type readable (i32 / u32) */
} arch_layers;

/* What the evaluator needs, filled once per file by arch_env_init. */
typedef struct arch_env {
    gguflint_ctx *ctx;
    const arch_info *arch;
    const char *arch_name;       /* NUL-terminated, as llama.cpp sees it */
    arch_val sym[ARCH_MAX_SYMS]; /* layer-0 / scalar value of each symbol */
    bool vocab_from_tokens;      /* n_vocab is the length of tokenizer.ggml.tokens */
    arch_layers head, head_kv, ff;
    arch_val head_k, head_v;         /* n_embd_head_k / n_embd_head_v */
    bool recurrent_array;            /* [arch].attention.recurrent_layers is present */
    arch_layers swa;                 /* is_swa(il): the per-layer sliding_window_pattern array */
    arch_val head_k_swa, head_v_swa; /* head sizes of sliding-window layers */
} arch_env;

/* Resolve every symbol for `arch` from ctx's KVs. */
void arch_env_init(arch_env *env, gguflint_ctx *ctx, const arch_info *arch, const char *name);
/* A per-layer value (llama.cpp's n_head(il) and friends); unknown past the
 * array or for an unreadable element type. */
arch_val arch_layer_value(const arch_layers *l, uint32_t layer);
/* Evaluate an RPN formula at `layer` (ignored by layer-free formulas).
 * "" evaluates to the known value `empty`; "?" to unknown. */
arch_val arch_eval(const arch_env *env, const char *rpn, uint32_t layer, int64_t empty);
/* The tensor name of row `t` at `layer` into buf; false if it does not fit. */
bool arch_tensor_name(const arch_tensor *t, uint32_t layer, char *buf, size_t cap);
/* Infix-ish text of an RPN formula with symbol names, for messages. */
void arch_formula_text(const char *rpn, char *buf, size_t cap);

#endif

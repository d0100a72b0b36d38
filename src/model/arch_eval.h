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
#define ARCH_MAX_ROWS 256u   /* tensor rows of one architecture whose values are cached */

typedef struct arch_val {
    int64_t v;
    bool known;
} arch_val;

/* A per-layer hyper-parameter: llama.cpp's get_key_or_arr result. Only the
 * first n elements of v are ever written or read (no clearing per file). */
typedef struct arch_layers {
    bool is_array; /* else every layer has `scalar` */
    bool ok;       /* element type readable (i32 / u32) */
    arch_val scalar;
    uint32_t n; /* elements decoded (at most ARCH_MAX_LAYERS) */
    int64_t v[ARCH_MAX_LAYERS];
} arch_layers;

/* Which formula of a tensor row (arch_row_eval). */
enum { ARCH_F_COUNT, ARCH_F_COND, ARCH_F_NE0 /* .. ARCH_F_NE0 + 3 */, ARCH_F_N = ARCH_F_NE0 + 4 };

/* What the evaluator needs for one file, set up by arch_env_init. The keyed
 * symbols are looked up when a formula first needs them, and the formulas of
 * the architecture's rows that do not depend on the layer are evaluated once
 * per file: a tensor costs a name match and a few table reads. */
typedef struct arch_env {
    gguflint_ctx *ctx;
    const arch_info *arch;
    const char *arch_name; /* NUL-terminated, as llama.cpp sees it */
    size_t arch_len;
    arch_val sym[ARCH_MAX_SYMS]; /* layer-0 / scalar value of each symbol, once resolved */
    uint64_t sym_done[(ARCH_MAX_SYMS + 63) / 64]; /* bit i: sym[i] is resolved */
    bool vocab_from_tokens;          /* n_vocab is the length of tokenizer.ggml.tokens */
    bool recurrent_array;            /* [arch].attention.recurrent_layers is present */
    arch_val head_k, head_v;         /* n_embd_head_k / n_embd_head_v */
    arch_val head_k_swa, head_v_swa; /* head sizes of sliding-window layers */
    uint8_t row_done[ARCH_MAX_ROWS]; /* bit j: row_val[r][j] holds formula j of row r */
    arch_val row_val[ARCH_MAX_ROWS][ARCH_F_N];
    arch_layers head, head_kv, ff;
    arch_layers swa; /* is_swa(il): the per-layer sliding_window_pattern array */
} arch_env;

/* Resolve the derived symbols for `arch` from ctx's KVs (the keyed ones on
 * first use). */
void arch_env_init(arch_env *env, gguflint_ctx *ctx, const arch_info *arch, const char *name);
/* The layer-0 / scalar value of symbol `idx` (a SYM_* id). */
arch_val arch_sym_value(arch_env *env, int idx);
/* A per-layer value (llama.cpp's n_head(il) and friends); unknown past the
 * array or for an unreadable element type. */
arch_val arch_layer_value(const arch_layers *l, uint32_t layer);
/* Evaluate an RPN formula at `layer` (ignored by layer-free formulas).
 * "" evaluates to the known value `empty`; "?" to unknown. */
arch_val arch_eval(arch_env *env, const char *rpn, uint32_t layer, int64_t empty);
/* Formula `which` (ARCH_F_*) of row r at `layer`, cached per file when it
 * does not depend on the layer; an empty count is 0, any other empty
 * formula 1 (as arch_eval's `empty`). */
arch_val arch_row_eval_miss(arch_env *env, const arch_tensor *r, int which, uint32_t layer);
static inline arch_val arch_row_eval(arch_env *env, const arch_tensor *r, int which, uint32_t layer)
{
    const arch_info *a = env->arch;
    if (a) {
        size_t k = (size_t)(r - arch_tensors) - a->tensor_first; /* wraps below the range */
        if (k < a->tensor_count && k < ARCH_MAX_ROWS && (env->row_done[k] & (1u << which)))
            return env->row_val[k][which];
    }
    return arch_row_eval_miss(env, r, which, layer);
}
/* The tensor name of row `t` at `layer` into buf (NUL-terminated), its
 * length in *len; false if it does not fit. */
bool arch_tensor_name(const arch_tensor *t, uint32_t layer, char *buf, size_t cap, size_t *len);
/* Infix-ish text of an RPN formula with symbol names, for messages. */
void arch_formula_text(const char *rpn, char *buf, size_t cap);

#endif

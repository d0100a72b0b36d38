/* check_adapter.c - files that are not models but travel with them, as
 * llama.cpp reads them:
 *   LoRA adapters (llama_adapter_lora_init: adapter.type, alpha, lora_a /
 *   lora_b pairs against the base architecture's tensors),
 *   control vectors (common's control-vector loader: direction.N tensors),
 *   importance matrices (llama-quantize's load_imatrix: in_sum2 / counts).
 * Called by check_arch once it knows the file's kind.
 *
 * Work is bounded: one pass over the tensors with O(1) name lookups (plus,
 * for LoRA, a scan of the architecture's rows per pair); nothing allocated. */
#include "checks/arch_check.h"
#include "format/wire.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_F32 0u

static bool ends_with(gguflint_view v, const char *suffix)
{
    size_t n = strlen(suffix);
    return v.len >= n && memcmp(v.ptr + v.len - n, suffix, n) == 0;
}

static void at_tensor(gguflint_ctx *ctx, int rule, const gguflint_tensor *t, unsigned w,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void at_tensor(gguflint_ctx *ctx, int rule, const gguflint_tensor *t, unsigned w,
                      const char *fmt, ...)
{
    if (!arch_live(ctx, rule)) {
        arch_drop(ctx, rule);
        return;
    }
    char msg[320], path[192], name[120];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tensor_path(path, sizeof path, ctx, t);
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 80);
    emit(ctx, rule, t->info_offset, w + t->name.len, path, "tensor '%s' %s", name, msg);
}

static void at_kv(gguflint_ctx *ctx, int rule, const gguflint_kv *kv, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void at_kv(gguflint_ctx *ctx, int rule, const gguflint_kv *kv, const char *fmt, ...)
{
    if (!arch_live(ctx, rule)) {
        arch_drop(ctx, rule);
        return;
    }
    char msg[320], path[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kv_path(path, sizeof path, kv);
    emit(ctx, rule, kv->value_offset, kv->value_size, path, "%s", msg);
}

/* The tensor named `base` + `suffix` (bounded name length), or NULL. */
static const gguflint_tensor *sibling(const gguflint_ctx *ctx, const uint8_t *base, size_t n,
                                      const char *suffix)
{
    char name[512];
    size_t s = strlen(suffix);
    if (n + s + 1 > sizeof name)
        return NULL;
    memcpy(name, base, n);
    memcpy(name + n, suffix, s + 1);
    if (memchr(name, 0, n))
        return NULL; /* a NUL inside the name: not a C-string lookup */
    return tensor_by_name(ctx, name);
}

/* ------------------------------------------------------------------ LoRA */

/* The LoRA pair of lora_a tensor `a` (base name `n` bytes): ranks, then the
 * base architecture's tensor. */
static void lora_pair(const arch_file *f, arch_env *env, const gguflint_tensor *a,
                      const gguflint_tensor *b, size_t n)
{
    gguflint_ctx *ctx = f->ctx;
    bool embd = n >= 17 && memcmp(a->name.ptr + n - 17, "token_embd.weight", 17) == 0;
    if (a->n_dims != 2 || b->n_dims != 2) {
        at_tensor(ctx, R_LORA_RANK_MISMATCH, b, f->w,
                  "has %u dims and its lora_a %u: both halves of a LoRA pair are 2-D matrices",
                  b->n_dims, a->n_dims);
        return;
    }
    uint64_t ra = embd ? a->ne[0] : a->ne[1], rb = b->ne[0];
    if (ra != rb) {
        at_tensor(ctx, R_LORA_RANK_MISMATCH, b, f->w,
                  "has rank %llu and its lora_a rank %llu (llama.cpp: \"lora_a tensor is not "
                  "transposed\")",
                  (unsigned long long)rb, (unsigned long long)ra);
        return;
    }
    if (!f->info || f->info->coverage != COV_FULL)
        return;
    uint32_t layer = 0;
    const arch_tensor *row = arch_row_of(f, env, a->name.ptr, n, &layer);
    if (!row) {
        char base[160];
        esc_fixed(base, sizeof base, a->name.ptr, n, 120);
        at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                  "adapts '%s', which is not a tensor of '%s' (llama.cpp: \"does not exist in "
                  "base model\")",
                  base, f->arch);
        return;
    }
    /* outer dims against the base tensor, when the adapter carries the base
     * hyper-parameters (converters usually do not: then nothing is known) */
    arch_val d0 = arch_row_eval(env, row, ARCH_F_NE0, layer),
             d1 = arch_row_eval(env, row, ARCH_F_NE0 + 1, layer);
    uint64_t got0 = embd ? b->ne[1] : a->ne[0], got1 = embd ? a->ne[1] : b->ne[1];
    bool vocab_dim = embd && !env->vocab_from_tokens;
    if (d0.known && d0.v > 0 && (uint64_t)d0.v != got0)
        at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                  "adapts a tensor with ne[0] = %lld in '%s'; the pair gives %llu (llama.cpp: "
                  "\"has incorrect shape\")",
                  (long long)d0.v, f->arch, (unsigned long long)got0);
    else if (!vocab_dim && d1.known && d1.v > 0 && (uint64_t)d1.v != got1)
        at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                  "adapts a tensor with ne[1] = %lld in '%s'; the pair gives %llu (llama.cpp: "
                  "\"has incorrect shape\")",
                  (long long)d1.v, f->arch, (unsigned long long)got1);
}

void arch_check_lora(const arch_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *gt = kv_by_key(ctx, "general.type");
    const gguflint_kv *at = kv_by_key(ctx, "adapter.type");
    if (!at) {
        if (gt)
            at_kv(ctx, R_ADAPTER_TYPE_INVALID, gt,
                  "the adapter has no adapter.type; llama.cpp's adapter loader expects 'lora'");
    } else if (at->type != VT_STRING) {
        at_kv(ctx, R_ADAPTER_TYPE_INVALID, at, "adapter.type is not a string");
    } else {
        size_t vis = arch_c_string(ctx, at, "adapter.type");
        if (!(vis == 4 && memcmp(at->str.ptr, "lora", 4) == 0)) {
            char shown[80];
            esc_fixed(shown, sizeof shown, at->str.ptr, vis, 60);
            at_kv(ctx, R_ADAPTER_TYPE_INVALID, at,
                  "adapter.type is '%s'; llama.cpp's adapter loader accepts only 'lora'", shown);
        }
    }
    const gguflint_kv *alpha = kv_by_key(ctx, "adapter.lora.alpha");
    if (!alpha) {
        const gguflint_kv *where = at ? at : gt;
        if (where)
            at_kv(ctx, R_LORA_ALPHA_MISSING, where,
                  "no adapter.lora.alpha: llama.cpp scales the adapter by 1 instead of "
                  "alpha / rank");
    } else if (alpha->type != VT_FLOAT32) {
        at_kv(ctx, R_LORA_ALPHA_INVALID, alpha,
              "adapter.lora.alpha is not an f32: llama.cpp's gguf_get_val_f32 asserts the type "
              "and aborts");
    } else if (!isfinite(alpha->f) || alpha->f < 0) {
        at_kv(ctx, R_LORA_ALPHA_INVALID, alpha, "adapter.lora.alpha is %g", alpha->f);
    }
    if (ctx->status != GGUFLINT_OK)
        return;

    arch_env env;
    bool have_env = f->info != NULL;
    if (have_env)
        arch_env_init(&env, ctx, f->info, f->arch);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        size_t n = (size_t)t->name.len;
        if (ends_with(t->name, ".lora_a")) {
            const gguflint_tensor *b = sibling(ctx, t->name.ptr, n - 7, ".lora_b");
            if (!b)
                at_tensor(ctx, R_LORA_PAIR_INCOMPLETE, t, f->w,
                          "has no matching .lora_b (llama.cpp: \"LoRA tensor pair is missing "
                          "one component\")");
            else if (have_env)
                lora_pair(f, &env, t, b, n - 7);
        } else if (ends_with(t->name, ".lora_b")) {
            if (!sibling(ctx, t->name.ptr, n - 7, ".lora_a"))
                at_tensor(ctx, R_LORA_PAIR_INCOMPLETE, t, f->w,
                          "has no matching .lora_a (llama.cpp: \"LoRA tensor pair is missing "
                          "one component\")");
        } else if (!ends_with(t->name, "_norm.weight")) {
            at_tensor(ctx, R_LORA_TENSOR_UNEXPECTED, t, f->w,
                      "is not a .lora_a / .lora_b half: a base-model tensor in an adapter "
                      "(llama.cpp: \"has unexpected suffix\")");
        }
    }
}

/* ------------------------------------------------------- control vectors */

/* N of "direction.N" when it is a plain decimal without sign or leading
 * zero, else -1 (the value saturates at INT64_MAX). */
static int64_t direction_index(gguflint_view name)
{
    static const char pre[] = "direction.";
    size_t p = sizeof pre - 1;
    if (name.len <= p || memcmp(name.ptr, pre, p) != 0)
        return -1;
    if (name.len - p > 1 && name.ptr[p] == '0')
        return -1;
    int64_t v = 0;
    for (size_t i = p; i < name.len; i++) {
        uint8_t c = name.ptr[i];
        if (c < '0' || c > '9')
            return -1;
        v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (c - '0');
    }
    return v;
}

void arch_check_cvec(const arch_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    int64_t max_layer = ARCH_MAX_LAYERS;
    const char *bound = "llama.cpp's layer limit; controlvector.layer_count is absent";
    const gguflint_kv *lc = kv_by_key(ctx, "controlvector.layer_count");
    int64_t v;
    if (lc && lc->type != VT_ARRAY && lc->type != VT_STRING && kv_int(lc, &v) && v > 0 &&
        v <= ARCH_MAX_LAYERS) {
        max_layer = v;
        bound = "controlvector.layer_count";
    }
    const gguflint_tensor *first = NULL;
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        int64_t n = direction_index(t->name);
        if (n < 1 || n > max_layer) {
            if (n == 0)
                at_tensor(ctx, R_CVEC_LAYER_INVALID, t, f->w,
                          "is direction.0: layer 0 never has a control vector (llama.cpp: "
                          "\"invalid (zero) direction layer\")");
            else if (n < 0)
                at_tensor(ctx, R_CVEC_LAYER_INVALID, t, f->w,
                          "is not direction.N with N a plain decimal layer number (llama.cpp: "
                          "\"invalid/unparsable direction tensor layer index\")");
            else
                at_tensor(ctx, R_CVEC_LAYER_INVALID, t, f->w,
                          "names layer %lld, above %lld (%s): llama.cpp grows its buffer to "
                          "n_embd x N floats",
                          (long long)n, (long long)max_layer, bound);
            continue;
        }
        if (t->type != TYPE_F32 || t->n_dims != 1) {
            at_tensor(ctx, R_CVEC_TENSOR_INVALID, t, f->w,
                      "is not a 1-D f32 vector (type %u, %u dims): llama.cpp refuses it", t->type,
                      t->n_dims);
            continue;
        }
        if (!first) {
            first = t;
        } else if (t->ne[0] != first->ne[0]) {
            at_tensor(ctx, R_CVEC_TENSOR_INVALID, t, f->w,
                      "has %llu elements and the first direction %llu: every direction has "
                      "embedding_length values (llama.cpp: \"does not match previous "
                      "dimensions\")",
                      (unsigned long long)t->ne[0], (unsigned long long)first->ne[0]);
        }
    }
}

/* ------------------------------------------------------ importance matrix */

void arch_check_imatrix(gguflint_ctx *ctx, const gguflint_kv *gt)
{
    static const char *const keys[] = {"imatrix.datasets", "imatrix.chunk_count",
                                       "imatrix.chunk_size"};
    unsigned w = wire_width(ctx->hdr.version);
    if (ctx->hdr.metadata_complete)
        for (size_t k = 0; k < 3; k++)
            if (!kv_by_key(ctx, keys[k]))
                at_kv(ctx, R_IMATRIX_KEY_MISSING, gt,
                      "the imatrix file lacks %s (llama-quantize: \"missing imatrix metadata\")",
                      keys[k]);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        size_t n = (size_t)t->name.len;
        if (ends_with(t->name, ".in_sum2")) {
            const gguflint_tensor *c = sibling(ctx, t->name.ptr, n - 8, ".counts");
            if (!c) {
                at_tensor(ctx, R_IMATRIX_PAIR, t, w, "has no matching .counts");
                continue;
            }
            if (t->type != TYPE_F32) {
                at_tensor(ctx, R_IMATRIX_SHAPE, t, w,
                          "is type %u, not f32: llama-quantize reads it as floats", t->type);
                continue;
            }
            uint64_t mats = t->n_dims >= 2 ? t->ne[1] : 1;
            uint64_t have = 1;
            for (uint32_t d = 0; d < c->n_dims && d < 4; d++)
                have = c->ne[d] && have <= UINT64_MAX / c->ne[d] ? have * c->ne[d] : 0;
            if (c->type != TYPE_F32)
                at_tensor(ctx, R_IMATRIX_SHAPE, c, w,
                          "is type %u, not f32: llama-quantize reads it as floats", c->type);
            else if (have < mats)
                at_tensor(ctx, R_IMATRIX_SHAPE, c, w,
                          "has %llu values for %llu matrices of its .in_sum2: llama-quantize "
                          "reads one count per matrix, past the end",
                          (unsigned long long)have, (unsigned long long)mats);
        } else if (ends_with(t->name, ".counts")) {
            if (!sibling(ctx, t->name.ptr, n - 7, ".in_sum2"))
                at_tensor(ctx, R_IMATRIX_PAIR, t, w, "has no matching .in_sum2");
        } else {
            at_tensor(ctx, R_IMATRIX_PAIR, t, w,
                      "ends in neither .in_sum2 nor .counts: not importance data");
        }
    }
}

/* check_adapter.c - files that are not models but travel with them, as
 * llama.cpp reads them (LoRA adapters are in check_lora.c, which shares the
 * reporting helpers here):
 *   control vectors (common's control-vector loader: direction.N tensors),
 *   importance matrices (llama-quantize's load_imatrix: in_sum2 / counts).
 * Called by check_arch once it knows the file's kind.
 *
 * Work is bounded: one pass over the tensors with O(1) name lookups; nothing
 * allocated. */
#include "checks/arch_check.h"
#include "format/wire.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_F32 0u

bool adapter_ends_with(gguflint_view v, const char *suffix)
{
    size_t n = strlen(suffix);
    return v.len >= n && memcmp(v.ptr + v.len - n, suffix, n) == 0;
}

void adapter_at_tensor(gguflint_ctx *ctx, int rule, const gguflint_tensor *t, unsigned w,
                       const char *fmt, ...)
{
    if (!arch_keep(ctx, rule))
        return;
    char msg[320], path[192], name[120];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tensor_path(path, sizeof path, ctx, t);
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 80);
    emit(ctx, rule, t->info_offset, w + t->name.len, path, "tensor '%s' %s", name, msg);
}

void adapter_at_kv(gguflint_ctx *ctx, int rule, const gguflint_kv *kv, const char *fmt, ...)
{
    if (!arch_keep(ctx, rule))
        return;
    char msg[320], path[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kv_path(path, sizeof path, kv);
    emit(ctx, rule, kv->value_offset, kv->value_size, path, "%s", msg);
}

const gguflint_tensor *adapter_sibling(const gguflint_ctx *ctx, const uint8_t *base, size_t n,
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
                adapter_at_tensor(ctx, R_CVEC_LAYER_INVALID, t, f->w,
                                  "is direction.0: layer 0 never has a control vector (llama.cpp: "
                                  "\"invalid (zero) direction layer\")");
            else if (n < 0)
                adapter_at_tensor(
                    ctx, R_CVEC_LAYER_INVALID, t, f->w,
                    "is not direction.N with N a plain decimal layer number (llama.cpp: "
                    "\"invalid/unparsable direction tensor layer index\")");
            else
                adapter_at_tensor(
                    ctx, R_CVEC_LAYER_INVALID, t, f->w,
                    "names layer %lld, above %lld (%s): llama.cpp grows its buffer to "
                    "n_embd x N floats",
                    (long long)n, (long long)max_layer, bound);
            continue;
        }
        if (t->type != TYPE_F32 || t->n_dims != 1) {
            adapter_at_tensor(ctx, R_CVEC_TENSOR_INVALID, t, f->w,
                              "is not a 1-D f32 vector (type %u, %u dims): llama.cpp refuses it",
                              t->type, t->n_dims);
            continue;
        }
        if (!first) {
            first = t;
        } else if (t->ne[0] != first->ne[0]) {
            adapter_at_tensor(ctx, R_CVEC_TENSOR_INVALID, t, f->w,
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
                adapter_at_kv(
                    ctx, R_IMATRIX_KEY_MISSING, gt,
                    "the imatrix file lacks %s (llama-quantize: \"missing imatrix metadata\")",
                    keys[k]);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        size_t n = (size_t)t->name.len;
        if (adapter_ends_with(t->name, ".in_sum2")) {
            const gguflint_tensor *c = adapter_sibling(ctx, t->name.ptr, n - 8, ".counts");
            if (!c) {
                adapter_at_tensor(ctx, R_IMATRIX_PAIR, t, w, "has no matching .counts");
                continue;
            }
            if (t->type != TYPE_F32) {
                adapter_at_tensor(ctx, R_IMATRIX_SHAPE, t, w,
                                  "is type %u, not f32: llama-quantize reads it as floats",
                                  t->type);
                continue;
            }
            uint64_t mats = t->n_dims >= 2 ? t->ne[1] : 1;
            uint64_t have = 1;
            for (uint32_t d = 0; d < c->n_dims && d < 4; d++)
                have = c->ne[d] && have <= UINT64_MAX / c->ne[d] ? have * c->ne[d] : 0;
            if (c->type != TYPE_F32)
                adapter_at_tensor(ctx, R_IMATRIX_SHAPE, c, w,
                                  "is type %u, not f32: llama-quantize reads it as floats",
                                  c->type);
            else if (have < mats)
                adapter_at_tensor(
                    ctx, R_IMATRIX_SHAPE, c, w,
                    "has %llu values for %llu matrices of its .in_sum2: llama-quantize "
                    "reads one count per matrix, past the end",
                    (unsigned long long)have, (unsigned long long)mats);
        } else if (adapter_ends_with(t->name, ".counts")) {
            if (!adapter_sibling(ctx, t->name.ptr, n - 7, ".in_sum2"))
                adapter_at_tensor(ctx, R_IMATRIX_PAIR, t, w, "has no matching .in_sum2");
        } else {
            adapter_at_tensor(ctx, R_IMATRIX_PAIR, t, w,
                              "ends in neither .in_sum2 nor .counts: not importance data");
        }
    }
}

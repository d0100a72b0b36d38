/* access.c - the public read access to the parsed model: the header, the KVs
 * and the tensor infos of a context (valid after gguflint_run). */
#include "core/internal.h"
#include "model/model.h"

#include <string.h>

size_t gguflint_memory_used(const gguflint_ctx *ctx)
{
    if (!ctx)
        return 0;
    size_t m = sizeof *ctx;
    m += ctx->cap_kvs * sizeof *ctx->kvs + ctx->cap_tensors * sizeof *ctx->tensors;
    m += ctx->cap_recs * sizeof *ctx->recs + ctx->n_pub * sizeof *ctx->pub + ctx->text.cap;
    m += (ctx->kv_index.cap + ctx->tensor_index.cap) * sizeof(vs_slot);
    if (ctx->owned)
        m += (size_t)ctx->size;
    if (ctx->name)
        m += strlen(ctx->name) + 1;
    return m;
}

const gguflint_header *gguflint_get_header(const gguflint_ctx *ctx)
{
    return ctx ? &ctx->hdr : NULL;
}

size_t gguflint_kv_count(const gguflint_ctx *ctx)
{
    return ctx ? ctx->n_kvs : 0;
}

const gguflint_kv *gguflint_kv_get(const gguflint_ctx *ctx, size_t i)
{
    return ctx && i < ctx->n_kvs ? &ctx->kvs[i] : NULL;
}

long gguflint_kv_find(const gguflint_ctx *ctx, const char *key)
{
    if (!ctx || !key)
        return -1;
    if (ctx->indexed) { /* after a run: the keyed index, O(1) */
        const gguflint_kv *kv = kv_by_key(ctx, key);
        return kv ? (long)kv_index_of(ctx, kv) : -1;
    }
    size_t n = strlen(key);
    for (size_t i = 0; i < ctx->n_kvs; i++)
        if (ctx->kvs[i].key.len == n && memcmp(ctx->kvs[i].key.ptr, key, n) == 0)
            return (long)i;
    return -1;
}

size_t gguflint_tensor_count(const gguflint_ctx *ctx)
{
    return ctx ? ctx->n_tensors : 0;
}

const gguflint_tensor *gguflint_tensor_get(const gguflint_ctx *ctx, size_t i)
{
    return ctx && i < ctx->n_tensors ? &ctx->tensors[i] : NULL;
}

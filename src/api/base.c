/* base.c - attaching a base model to a LoRA adapter's context
 * (gguflint_set_base) and saying whether a context can serve as one
 * (gguflint_base_problem). The checks themselves are in
 * checks/check_lora_base.c; they only read the base. */
#include "core/internal.h"

#include "model/model.h"

#include <string.h>

static bool ends_with(gguflint_view v, const char *suffix)
{
    size_t n = strlen(suffix);
    return v.len >= n && memcmp(v.ptr + v.len - n, suffix, n) == 0;
}

const char *gguflint_base_problem(const gguflint_ctx *base)
{
    if (!base)
        return "there is no base";
    if (!base->ran)
        return "it has not been run (gguflint_run)";
    if (base->status != GGUFLINT_OK)
        return "its run failed";
    if (!base->hdr.is_gguf)
        return "it is not a GGUF file";
    if (!base->hdr.metadata_complete)
        return "its metadata could not be read to the end (a cut or malformed file)";
    const gguflint_kv *arch = kv_by_key(base, "general.architecture");
    if (!arch || arch->type != VT_STRING || arch->str.len == 0 || arch->str.ptr[0] == 0)
        return "it has no general.architecture string: not a model llama.cpp loads";
    gguflint_view a = arch->str;
    size_t vis = memchr(a.ptr, 0, (size_t)a.len) ? strlen((const char *)a.ptr) : (size_t)a.len;
    if (vis == 4 && memcmp(a.ptr, "clip", 4) == 0)
        return "it is a multimodal projector (clip), not a model";
    if (vis == 13 && memcmp(a.ptr, "controlvector", 13) == 0)
        return "it is a control vector, not a model";
    if (kv_by_key(base, "adapter.type") || kv_by_key(base, "adapter.lora.alpha"))
        return "it is a LoRA adapter, not a model (the base comes first: --base MODEL ADAPTER)";
    const gguflint_kv *sc = kv_by_key(base, "split.count");
    int64_t count = 0;
    if (sc && kv_int(sc, &count) && count > 1)
        return "it is one shard of a split model (split.count > 1): a split base is not "
               "supported yet";
    if (base->n_tensors == 0)
        return "it has no tensors: not a model";
    for (size_t i = 0; i < base->n_tensors; i++)
        if (ends_with(base->tensors[i].name, ".lora_a") ||
            ends_with(base->tensors[i].name, ".lora_b"))
            return "it is a LoRA adapter, not a model (the base comes first: --base MODEL "
                   "ADAPTER)";
    return NULL;
}

int gguflint_set_base(gguflint_ctx *ctx, const gguflint_ctx *base)
{
    if (!ctx || !base || base == ctx)
        return GGUFLINT_E_ARG;
    if (ctx->ran)
        return GGUFLINT_E_STATE;
    if (gguflint_base_problem(base))
        return GGUFLINT_E_ARG;
    ctx->base = base;
    return GGUFLINT_OK;
}

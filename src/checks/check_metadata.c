/* check_metadata.c - see checks.h. The general.* keys: general.architecture
 * (present, a string, [a-z0-9_-]+), the types writers use for the known
 * general.* keys, general.quantization_version (present when a tensor is
 * quantized, value 2) and general.file_type (a current llama_ftype value).
 * general.alignment is the parser's (GG115-GG119). */
#include "checks/checks.h"

#include "format/filetypes.h"
#include "model/model.h"

#include <string.h>

/* Expected types of the known general.* keys (docs/FORMAT.md section 6.1,
 * gguf-py GGUFWriter.add_*). */
typedef enum { EXP_STR, EXP_U32, EXP_STR_ARR } expect;

static const struct {
    const char *key;
    expect exp;
} general_keys[] = {
    {"general.type", EXP_STR},
    {"general.name", EXP_STR},
    {"general.author", EXP_STR},
    {"general.version", EXP_STR},
    {"general.organization", EXP_STR},
    {"general.basename", EXP_STR},
    {"general.finetune", EXP_STR},
    {"general.description", EXP_STR},
    {"general.quantized_by", EXP_STR},
    {"general.size_label", EXP_STR},
    {"general.license", EXP_STR},
    {"general.license.name", EXP_STR},
    {"general.license.link", EXP_STR},
    {"general.url", EXP_STR},
    {"general.doi", EXP_STR},
    {"general.uuid", EXP_STR},
    {"general.repo_url", EXP_STR},
    {"general.source.url", EXP_STR},
    {"general.source.doi", EXP_STR},
    {"general.source.uuid", EXP_STR},
    {"general.source.repo_url", EXP_STR},
    {"general.source.huggingface.repository", EXP_STR},
    {"general.quantization_version", EXP_U32},
    {"general.base_model.count", EXP_U32},
    {"general.dataset.count", EXP_U32},
    {"general.tags", EXP_STR_ARR},
    {"general.languages", EXP_STR_ARR},
    {"general.datasets", EXP_STR_ARR},
};

/* Fields of general.base_model.<N>.* and general.dataset.<N>.* (strings). */
static const char *const indexed_fields[] = {
    "name", "author", "version", "organization", "description", "url", "doi", "uuid", "repo_url",
};

static bool lookup_indexed(gguflint_view k, const char *prefix)
{
    if (!view_starts(k, prefix))
        return false;
    size_t i = strlen(prefix), digits = 0;
    while (i < k.len && k.ptr[i] >= '0' && k.ptr[i] <= '9') {
        i++;
        digits++;
    }
    if (digits == 0 || i >= k.len || k.ptr[i] != '.')
        return false;
    gguflint_view field = {k.ptr + i + 1, k.len - i - 1};
    for (size_t f = 0; f < sizeof indexed_fields / sizeof indexed_fields[0]; f++)
        if (view_eq(field, indexed_fields[f]))
            return true;
    return false;
}

/* The expected type of a general.* key; false when the key is not one we know. */
static bool expected_type(gguflint_view k, expect *out)
{
    for (size_t i = 0; i < sizeof general_keys / sizeof general_keys[0]; i++) {
        if (view_eq(k, general_keys[i].key)) {
            *out = general_keys[i].exp;
            return true;
        }
    }
    if (lookup_indexed(k, "general.base_model.") || lookup_indexed(k, "general.dataset.")) {
        *out = EXP_STR;
        return true;
    }
    return false;
}

static const char *expect_name(expect e)
{
    return e == EXP_STR ? "a string" : e == EXP_U32 ? "a u32" : "an array of strings";
}

/* Offset and length of the field that makes a KV's type wrong: its value-type
 * field, or for an array of the wrong element type its element-type field. */
static uint64_t type_field(const gguflint_kv *kv, expect e)
{
    if (e == EXP_STR_ARR && kv->type == VT_ARRAY)
        return kv->value_offset;
    return kv->value_offset - 4;
}

static bool type_ok(const gguflint_kv *kv, expect e)
{
    switch (e) {
    case EXP_STR: return kv->type == VT_STRING;
    case EXP_U32: return kv->type == VT_UINT32;
    default: return kv->type == VT_ARRAY && kv->elem_type == VT_STRING;
    }
}

/* Every KV was read (an absent key is then really absent). */
static bool kvs_complete(const gguflint_ctx *ctx)
{
    return ctx->hdr.kv_parsed == ctx->hdr.kv_count;
}

/* A split shard after the first: gguf-split writes the model metadata into
 * the first shard only. */
static bool later_shard(const gguflint_ctx *ctx)
{
    const gguflint_kv *kv = kv_by_key(ctx, "split.no");
    int64_t no;
    return kv && kv_int(kv, &no) && no != 0;
}

/* Where a missing key is reported: the header's kv_count field. */
static uint64_t kv_count_field(const gguflint_ctx *ctx)
{
    return wire_kv_count_off(model_width(ctx));
}

static void check_architecture(gguflint_ctx *ctx)
{
    const gguflint_kv *kv = kv_by_key(ctx, "general.architecture");
    char path[192];
    if (!kv) {
        const gguflint_kv *type = kv_by_key(ctx, "general.type");
        if (!kvs_complete(ctx) || later_shard(ctx) || kv_str_eq(type, "imatrix"))
            return;
        emit(ctx, R_ARCH_MISSING, kv_count_field(ctx), model_width(ctx),
             "kv[\"general.architecture\"]",
             "general.architecture is missing: llama.cpp fails with \"unknown model "
             "architecture\" and readers cannot find the <arch>.* hyper-parameters");
        return;
    }
    kv_path(path, sizeof path, kv);
    if (kv->type != VT_STRING) {
        char td[48];
        kv_type_text(td, sizeof td, kv);
        emit(ctx, R_ARCH_WRONG_TYPE, kv->value_offset - 4, 4, path,
             "general.architecture is %s, not a string: llama.cpp throws \"wrong type\" and "
             "cannot load the model",
             td);
        return;
    }
    gguflint_view s = kv->str;
    uint64_t bad = s.len;
    for (uint64_t i = 0; i < s.len; i++) {
        uint8_t c = s.ptr[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            bad = i;
            break;
        }
    }
    unsigned w = model_width(ctx);
    if (s.len == 0) {
        emit(ctx, R_ARCH_CHARSET, kv->value_offset, w, path,
             "general.architecture is empty; it must name an architecture ([a-z0-9_-]+)");
    } else if (bad < s.len) {
        char shown[160];
        esc_fixed(shown, sizeof shown, s.ptr, s.len, 64);
        emit(ctx, R_ARCH_CHARSET, kv->value_offset, wire_string_size(w, s.len), path,
             "general.architecture '%s' has a character outside [a-z0-9_-] at index %llu: no "
             "reader knows it, and it becomes the prefix of every <arch>.* key",
             shown, (unsigned long long)bad);
    }
}

static void check_general_types(gguflint_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_kvs && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_kv *kv = &ctx->kvs[i];
        if (!view_starts(kv->key, "general."))
            continue;
        char path[192], td[48];
        bool loader = false;
        expect e;
        if (view_eq(kv->key, "general.name") || view_eq(kv->key, "general.file_type")) {
            loader = true;
            e = view_eq(kv->key, "general.name") ? EXP_STR : EXP_U32;
        } else if (!expected_type(kv->key, &e)) {
            continue;
        }
        if (type_ok(kv, e))
            continue;
        kv_path(path, sizeof path, kv);
        kv_type_text(td, sizeof td, kv);
        char key[160];
        esc_fixed(key, sizeof key, kv->key.ptr, kv->key.len, 120);
        if (loader)
            emit(ctx, R_LOADER_KEY_WRONG_TYPE, type_field(kv, e), 4, path,
                 "%s is %s, not %s: llama.cpp reads it with a typed getter and %s", key, td,
                 expect_name(e),
                 e == EXP_U32 ? "aborts (GGML_ASSERT, Feb 2025) or throws \"wrong type\""
                              : "throws \"wrong type\", failing the load");
        else
            emit(ctx, R_GENERAL_KEY_WRONG_TYPE, type_field(kv, e), 4, path,
                 "%s is %s; writers (gguf-py) store it as %s and readers expect that", key, td,
                 expect_name(e));
    }
}

static void check_quantization_version(gguflint_ctx *ctx)
{
    const gguflint_kv *kv = kv_by_key(ctx, "general.quantization_version");
    if (kv) {
        if (kv->type == VT_UINT32 && kv->u != 2) {
            char path[192];
            kv_path(path, sizeof path, kv);
            emit(ctx, R_QUANT_VERSION_VALUE, kv->value_offset, 4, path,
                 "general.quantization_version is %llu; ggml's block layouts are version 2 "
                 "(GGML_QNT_VERSION) and every GGUF writer stores 2",
                 (unsigned long long)kv->u);
        }
        return;
    }
    if (!kvs_complete(ctx) || later_shard(ctx))
        return;
    const gguflint_tensor *first = NULL;
    size_t n = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        if (t->n_dims <= 4 && ggt_quantized(t->type)) {
            if (!first)
                first = t;
            n++;
        }
    }
    if (!first)
        return;
    char shown[160];
    esc_fixed(shown, sizeof shown, first->name.ptr, first->name.len, 100);
    emit(ctx, R_QUANT_VERSION_MISSING, kv_count_field(ctx), model_width(ctx),
         "kv[\"general.quantization_version\"]",
         "general.quantization_version is missing but %zu tensor(s) are quantized (first: "
         "tensor[%zu] '%s', %s); the spec requires it whenever a tensor is quantized",
         n, tensor_index_of(ctx, first), shown, gt_info(first->type)->name);
}

static void check_file_type_value(gguflint_ctx *ctx)
{
    const gguflint_kv *kv = kv_by_key(ctx, "general.file_type");
    if (!kv || kv->type != VT_UINT32) /* wrong types: GG504 */
        return;
    char path[192];
    kv_path(path, sizeof path, kv);
    uint64_t v = kv->u;
    uint32_t base = (uint32_t)(v & ~(uint64_t)FT_GUESSED);
    const ftype_info *ft = ft_info(base);
    if (v & FT_GUESSED)
        emit(ctx, R_FILE_TYPE_GUESSED, kv->value_offset, 4, path,
             "general.file_type %llu has the GUESSED flag (1024) set: llama.cpp only ORs it in "
             "memory when a file has no file type; stored, it shows as '%s (guessed)'",
             (unsigned long long)v, ft ? ft->display : "unknown");
    if (!ft) {
        emit(ctx, R_FILE_TYPE_UNKNOWN, kv->value_offset, 4, path,
             "general.file_type %llu is not a llama_ftype value (0-41 less 4-6 and 33-35); "
             "llama.cpp shows it as \"unknown, may not work\"",
             (unsigned long long)base);
    } else if (ft->status == FT_REMOVED) {
        emit(ctx, R_FILE_TYPE_REMOVED, kv->value_offset, 4, path,
             "general.file_type %u (LLAMA_FTYPE_%s) was removed from llama.cpp; current "
             "readers show it as \"unknown, may not work\"",
             base, ft->name);
    }
}

void check_metadata(gguflint_ctx *ctx)
{
    check_architecture(ctx);
    check_general_types(ctx);
    check_quantization_version(ctx);
    check_file_type_value(ctx);
}

/* model.c - lookup indexes and typed access over the parsed model, for the
 * semantic checks. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const uint8_t *s, uint64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Open-addressing index of views: slots hold index + 1 (first occurrence). */
static uint32_t *build_index(size_t n, size_t *cap_out, gguflint_view (*get)(const gguflint_ctx *, size_t),
                             const gguflint_ctx *ctx)
{
    size_t cap = 16;
    while (cap < n * 2 + 2)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        gguflint_view v = get(ctx, i);
        size_t h = (size_t)hash_bytes(v.ptr, v.len) & (cap - 1);
        bool dup = false;
        while (slots[h]) {
            gguflint_view e = get(ctx, slots[h] - 1);
            if (e.len == v.len && memcmp(e.ptr, v.ptr, (size_t)v.len) == 0) {
                dup = true;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
        if (!dup)
            slots[h] = (uint32_t)(i + 1);
    }
    *cap_out = cap;
    return slots;
}

static gguflint_view key_of(const gguflint_ctx *ctx, size_t i)
{
    return ctx->kvs[i].key;
}

static gguflint_view name_of(const gguflint_ctx *ctx, size_t i)
{
    return ctx->tensors[i].name;
}

bool model_index(gguflint_ctx *ctx)
{
    model_index_free(ctx);
    ctx->kv_slots = build_index(ctx->n_kvs, &ctx->kv_slots_cap, key_of, ctx);
    ctx->tensor_slots = build_index(ctx->n_tensors, &ctx->tensor_slots_cap, name_of, ctx);
    return ctx->kv_slots && ctx->tensor_slots;
}

void model_index_free(gguflint_ctx *ctx)
{
    free(ctx->kv_slots);
    free(ctx->tensor_slots);
    ctx->kv_slots = ctx->tensor_slots = NULL;
}

static long find(const uint32_t *slots, size_t cap, const char *s, size_t n,
                 gguflint_view (*get)(const gguflint_ctx *, size_t), const gguflint_ctx *ctx)
{
    if (!slots)
        return -1;
    size_t h = (size_t)hash_bytes((const uint8_t *)s, n) & (cap - 1);
    while (slots[h]) {
        gguflint_view e = get(ctx, slots[h] - 1);
        if (e.len == n && memcmp(e.ptr, s, n) == 0)
            return (long)slots[h] - 1;
        h = (h + 1) & (cap - 1);
    }
    return -1;
}

const gguflint_kv *kv_by_key(const gguflint_ctx *ctx, const char *key)
{
    long i = find(ctx->kv_slots, ctx->kv_slots_cap, key, strlen(key), key_of, ctx);
    return i < 0 ? NULL : &ctx->kvs[i];
}

const gguflint_kv *kv_by_keyf(const gguflint_ctx *ctx, const char *fmt, ...)
{
    char key[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof key)
        return NULL;
    return kv_by_key(ctx, key);
}

const gguflint_tensor *tensor_by_name(const gguflint_ctx *ctx, const char *name)
{
    long i = find(ctx->tensor_slots, ctx->tensor_slots_cap, name, strlen(name), name_of, ctx);
    return i < 0 ? NULL : &ctx->tensors[i];
}

size_t kv_index_of(const gguflint_ctx *ctx, const gguflint_kv *kv)
{
    return (size_t)(kv - ctx->kvs);
}

size_t tensor_index_of(const gguflint_ctx *ctx, const gguflint_tensor *t)
{
    return (size_t)(t - ctx->tensors);
}

bool kv_int(const gguflint_kv *kv, int64_t *out)
{
    switch (kv->type) {
    case VT_UINT8: case VT_UINT16: case VT_UINT32:
        *out = (int64_t)kv->u;
        return true;
    case VT_UINT64:
        if (kv->u > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)kv->u;
        return true;
    case VT_INT8: case VT_INT16: case VT_INT32: case VT_INT64:
        *out = kv->i;
        return true;
    default:
        return false;
    }
}

bool kv_num(const gguflint_kv *kv, double *out)
{
    if (kv->type == VT_FLOAT32 || kv->type == VT_FLOAT64) {
        *out = kv->f;
        return true;
    }
    int64_t i;
    if (!kv_int(kv, &i))
        return false;
    *out = (double)i;
    return true;
}

bool kv_str(const gguflint_kv *kv, gguflint_view *out)
{
    if (kv->type != VT_STRING)
        return false;
    *out = kv->str;
    return true;
}

bool kv_str_eq(const gguflint_kv *kv, const char *s)
{
    return kv && kv->type == VT_STRING && view_eq(kv->str, s);
}

void kv_path(char *buf, size_t cap, const gguflint_kv *kv)
{
    path_kv(buf, cap, kv->key.ptr, kv->key.len);
}

void tensor_path(char *buf, size_t cap, const gguflint_ctx *ctx, const gguflint_tensor *t)
{
    snprintf(buf, cap, "tensor[%zu]", tensor_index_of(ctx, t));
}

bool arr_iter_init(const gguflint_ctx *ctx, const gguflint_kv *kv, arr_iter *it)
{
    memset(it, 0, sizeof *it);
    if (kv->type != VT_ARRAY)
        return false;
    it->w = ctx->hdr.version == 1 ? 4 : 8;
    cur_init(&it->c, ctx->data + kv->value_offset, kv->value_size);
    it->c.big_endian = ctx->hdr.big_endian;
    it->base = kv->value_offset;
    if (!cur_skip(&it->c, 4u + it->w))
        return false;
    it->et = kv->elem_type;
    it->left = kv->count;
    return true;
}

bool arr_next(arr_iter *it, gguflint_view *el, uint64_t *el_off)
{
    if (it->left == 0 || it->et == VT_ARRAY)
        return false;
    uint64_t at = it->c.off;
    if (it->et == VT_STRING) {
        uint64_t n;
        if (!cur_uint(&it->c, it->w, &n) || !cur_has(&it->c, n))
            return false;
        el->ptr = cur_ptr(&it->c);
        el->len = n;
        it->c.off += n;
    } else {
        unsigned sz = vt_size(it->et);
        if (!cur_has(&it->c, sz))
            return false;
        el->ptr = cur_ptr(&it->c);
        el->len = sz;
        it->c.off += sz;
    }
    if (el_off)
        *el_off = it->base + at;
    it->left--;
    it->index++;
    return true;
}

int64_t el_int(const arr_iter *it, gguflint_view el)
{
    uint64_t v = cur_load(&it->c, el.ptr, (unsigned)el.len);
    switch (it->et) {
    case VT_INT8: return (int8_t)(uint8_t)v;
    case VT_INT16: return (int16_t)(uint16_t)v;
    case VT_INT32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
    }
}

double el_num(const arr_iter *it, gguflint_view el)
{
    uint64_t v = cur_load(&it->c, el.ptr, (unsigned)el.len);
    if (it->et == VT_FLOAT32) {
        uint32_t b = (uint32_t)v;
        float f;
        memcpy(&f, &b, 4);
        return (double)f;
    }
    if (it->et == VT_FLOAT64) {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    return (double)el_int(it, el);
}

const char *view_cstr(char *buf, size_t cap, gguflint_view v)
{
    if (cap == 0)
        return buf;
    size_t n = v.len < cap - 1 ? (size_t)v.len : cap - 1;
    memcpy(buf, v.ptr, n);
    buf[n] = '\0';
    return buf;
}

bool view_eq(gguflint_view v, const char *s)
{
    size_t n = strlen(s);
    return v.len == n && memcmp(v.ptr, s, n) == 0;
}

bool view_starts(gguflint_view v, const char *prefix)
{
    size_t n = strlen(prefix);
    return v.len >= n && memcmp(v.ptr, prefix, n) == 0;
}

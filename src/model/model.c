/* model.c - lookup indexes and typed access over the parsed model, for the
 * semantic checks. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

static gguflint_view key_of(const void *ctx, size_t i)
{
    return ((const gguflint_ctx *)ctx)->kvs[i].key;
}

static gguflint_view name_of(const void *ctx, size_t i)
{
    return ((const gguflint_ctx *)ctx)->tensors[i].name;
}

/* The two bits of a name in a 256-bit Bloom filter: its length and first
 * and last eight bytes, mixed. Not keyed: a file can at most set every bit,
 * which makes each lookup hash as it would without the filter. */
static uint64_t bloom_mix(const uint8_t *s, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else {
        for (size_t i = 0; i < n; i++)
            a |= (uint64_t)s[i] << (8 * i);
    }
    return (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (n * 0x165667B19E3779F9ull);
}

static void bloom_add(uint64_t bloom[4], const uint8_t *s, size_t n)
{
    uint64_t h = bloom_mix(s, n);
    unsigned x = (unsigned)(h >> 56), y = (unsigned)(h >> 48) & 255;
    bloom[x >> 6] |= 1ull << (x & 63);
    bloom[y >> 6] |= 1ull << (y & 63);
}

static bool bloom_may(const uint64_t bloom[4], const uint8_t *s, size_t n)
{
    uint64_t h = bloom_mix(s, n);
    unsigned x = (unsigned)(h >> 56), y = (unsigned)(h >> 48) & 255;
    return (bloom[x >> 6] >> (x & 63) & 1) && (bloom[y >> 6] >> (y & 63) & 1);
}

/* Index entries 0..n-1; a repeated key or name keeps its first occurrence. */
static bool build_index(viewset *set, size_t n, viewset_get get, const gguflint_ctx *ctx)
{
    if (!viewset_reserve(set, n, get, ctx))
        return false;
    for (size_t i = 0; i < n; i++)
        if (viewset_insert(set, get, ctx, get(ctx, i), i) == -2)
            return false;
    return true;
}

bool model_index(gguflint_ctx *ctx)
{
    /* the parser's key set is the key index when it handed it over */
    bool keys = ctx->kv_index_ready;
    viewset_free(&ctx->tensor_index);
    if (!keys)
        viewset_free(&ctx->kv_index);
    bool ok = (keys || build_index(&ctx->kv_index, ctx->n_kvs, key_of, ctx)) &&
              build_index(&ctx->tensor_index, ctx->n_tensors, name_of, ctx);
    ctx->indexed = ok;
    ctx->probes += (keys ? 0 : ctx->kv_index.probes) + ctx->tensor_index.probes;
    memset(ctx->kv_bloom, 0, sizeof ctx->kv_bloom);
    memset(ctx->name_bloom, 0, sizeof ctx->name_bloom);
    for (size_t i = 0; i < ctx->n_kvs; i++)
        bloom_add(ctx->kv_bloom, ctx->kvs[i].key.ptr, (size_t)ctx->kvs[i].key.len);
    for (size_t i = 0; i < ctx->n_tensors; i++)
        bloom_add(ctx->name_bloom, ctx->tensors[i].name.ptr, (size_t)ctx->tensors[i].name.len);
    return ok;
}

void model_index_free(gguflint_ctx *ctx)
{
    viewset_free(&ctx->kv_index);
    viewset_free(&ctx->tensor_index);
    ctx->indexed = false;
    ctx->kv_index_ready = false;
    /* every lookup goes to the (empty) index */
    memset(ctx->kv_bloom, 0xFF, sizeof ctx->kv_bloom);
    memset(ctx->name_bloom, 0xFF, sizeof ctx->name_bloom);
}

/* The index of name s[0, n) in one of the model's sets, -1 when absent: the
 * Bloom filter first, since most lookups are for names a file lacks. */
static long find_name(const gguflint_ctx *ctx, const uint64_t bloom[4], const viewset *set,
                      viewset_get get, const char *s, size_t n)
{
    if (!bloom_may(bloom, (const uint8_t *)s, n))
        return -1;
    return viewset_find(set, get, ctx, (const uint8_t *)s, n);
}

const gguflint_kv *kv_by_key(const gguflint_ctx *ctx, const char *key)
{
    size_t n = strlen(key);
    long i = find_name(ctx, ctx->kv_bloom, &ctx->kv_index, key_of, key, n);
    return i < 0 ? NULL : &ctx->kvs[i];
}

/* Format a key made of literal text, %s and %.*s (all the key lookups use)
 * without stdio, which costs several hundred instructions a call and is
 * called dozens of times per file. False for anything else (the caller falls
 * back to vsnprintf) or a key longer than cap - 1. */
static bool key_format(char *key, size_t cap, const char *fmt, va_list ap)
{
    size_t n = 0;
    for (const char *f = fmt; *f; f++) {
        const char *s;
        size_t len;
        if (*f != '%') {
            s = f;
            len = 1;
        } else if (f[1] == 's') {
            s = va_arg(ap, const char *);
            len = strlen(s);
            f++;
        } else if (f[1] == '.' && f[2] == '*' && f[3] == 's') {
            int w = va_arg(ap, int);
            s = va_arg(ap, const char *);
            if (w < 0)
                return false;
            const char *nul = memchr(s, 0, (size_t)w);
            len = nul ? (size_t)(nul - s) : (size_t)w;
            f += 3;
        } else {
            return false;
        }
        if (len >= cap - n)
            return false;
        memcpy(key + n, s, len);
        n += len;
    }
    key[n] = '\0';
    return true;
}

const gguflint_kv *kv_by_keyf(const gguflint_ctx *ctx, const char *fmt, ...)
{
    char key[256];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    bool ok = key_format(key, sizeof key, fmt, ap2);
    va_end(ap2);
    if (!ok) {
        int n = vsnprintf(key, sizeof key, fmt, ap);
        ok = n >= 0 && (size_t)n < sizeof key;
    }
    va_end(ap);
    return ok ? kv_by_key(ctx, key) : NULL;
}

const gguflint_kv *kv_by_arch_key(const gguflint_ctx *ctx, const char *arch, size_t arch_len,
                                  const char *suffix)
{
    char key[256];
    size_t n = strlen(suffix);
    if (arch_len + 1 + n >= sizeof key)
        return NULL;
    memcpy(key, arch, arch_len);
    key[arch_len] = '.';
    memcpy(key + arch_len + 1, suffix, n);
    n += arch_len + 1;
    long i = find_name(ctx, ctx->kv_bloom, &ctx->kv_index, key_of, key, n);
    return i < 0 ? NULL : &ctx->kvs[i];
}

const gguflint_tensor *tensor_by_name(const gguflint_ctx *ctx, const char *name)
{
    size_t n = strlen(name);
    long i = find_name(ctx, ctx->name_bloom, &ctx->tensor_index, name_of, name, n);
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
    case VT_UINT8:
    case VT_UINT16:
    case VT_UINT32: *out = (int64_t)kv->u; return true;
    case VT_UINT64:
        if (kv->u > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)kv->u;
        return true;
    case VT_INT8:
    case VT_INT16:
    case VT_INT32:
    case VT_INT64: *out = kv->i; return true;
    default: return false;
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

const char *kv_type_text(char *buf, size_t cap, const gguflint_kv *kv)
{
    const char *t = vt_name(kv->type);
    if (kv->type == VT_ARRAY) {
        const char *e = vt_name(kv->elem_type);
        snprintf(buf, cap, "an array of %s", e ? e : "?");
    } else {
        snprintf(buf, cap, "%s", t ? t : "?");
    }
    return buf;
}

bool arr_iter_init(const gguflint_ctx *ctx, const gguflint_kv *kv, arr_iter *it)
{
    memset(it, 0, sizeof *it);
    if (kv->type != VT_ARRAY)
        return false;
    it->w = model_width(ctx);
    cur_init(&it->c, ctx->data + kv->value_offset, kv->value_size);
    it->c.big_endian = ctx->hdr.big_endian;
    it->base = kv->value_offset;
    if (!cur_skip(&it->c, WIRE_TYPE_SIZE + it->w))
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
    uint64_t v = cur_read_unchecked(&it->c, el.ptr, (unsigned)el.len);
    switch (it->et) {
    case VT_INT8: return (int8_t)(uint8_t)v;
    case VT_INT16: return (int16_t)(uint16_t)v;
    case VT_INT32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
    }
}

double el_num(const arr_iter *it, gguflint_view el)
{
    uint64_t v = cur_read_unchecked(&it->c, el.ptr, (unsigned)el.len);
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

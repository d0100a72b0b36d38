/* dump.c - the `dump` view of a parsed file: header, every KV with its type
 * and value (arrays with their count and first elements, or all of them),
 * the tensor table.
 * Text output escapes every byte from the file; JSON output is exact. Array
 * elements are re-read from the (already validated) value bytes through the
 * cursor, never past the value's range. */
#include "core/internal.h"

#include "common/cursor.h"
#include "core/limits.h"
#include "report/out.h"
#include "format/types.h"
#include "format/wire.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

typedef struct dump_out {
    out o;
    bool json;
    uint64_t elems; /* array elements shown (0: all) */
} dump_out;

#define put(d, s) out_put(&(d)->o, s)
#define putf(d, ...) out_putf(&(d)->o, __VA_ARGS__)

/* A string from the file: quoted and escaped (text) or a JSON string. */
static void put_bytes(dump_out *o, const uint8_t *s, uint64_t n)
{
    uint64_t max = o->json ? DUMP_JSON_STR_MAX : DUMP_TEXT_STR_MAX;
    size_t take = (size_t)(n > max ? max : n);
    if (o->json) {
        json_quote(o->o.w, o->o.u, (const char *)s, take);
        return;
    }
    put(o, "\"");
    gguflint_escape(o->o.w, o->o.u, s, take);
    put(o, "\"");
    if (n > max)
        putf(o, "...(%" PRIu64 " bytes)", n);
}

static void put_float(dump_out *o, double v, bool f32)
{
    if (isnan(v) || isinf(v)) {
        const char *s = isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
        if (o->json)
            putf(o, "\"%s\"", s);
        else
            put(o, s);
        return;
    }
    putf(o, f32 ? "%.9g" : "%.17g", v);
}

/* Print one scalar of type t read from the cursor; false when it cannot. */
static bool put_scalar(dump_out *o, cursor *c, uint32_t t)
{
    uint64_t raw;
    unsigned n = vt_size(t);
    if (n == 0 || !cur_uint(c, n, &raw))
        return false;
    switch (t) {
    case VT_INT8: putf(o, "%d", (int)(int8_t)(uint8_t)raw); break;
    case VT_INT16: putf(o, "%d", (int)(int16_t)(uint16_t)raw); break;
    case VT_INT32: putf(o, "%" PRId32, (int32_t)(uint32_t)raw); break;
    case VT_INT64: putf(o, "%" PRId64, (int64_t)raw); break;
    case VT_FLOAT32: {
        uint32_t b = (uint32_t)raw;
        float f;
        memcpy(&f, &b, 4);
        put_float(o, (double)f, true);
        break;
    }
    case VT_FLOAT64: {
        double d;
        memcpy(&d, &raw, 8);
        put_float(o, d, false);
        break;
    }
    case VT_BOOL: put(o, raw ? "true" : "false"); break;
    default: putf(o, "%" PRIu64, raw); break;
    }
    return true;
}

static void put_array(dump_out *o, const gguflint_ctx *ctx, const gguflint_kv *kv)
{
    unsigned w = wire_width(ctx->hdr.version);
    cursor c;
    cur_init(&c, ctx->data + kv->value_offset, kv->value_size);
    c.big_endian = ctx->hdr.big_endian;
    cur_skip(&c, WIRE_TYPE_SIZE + w); /* inside the parsed value */
    uint64_t shown = o->elems && kv->count > o->elems ? o->elems : kv->count;
    put(o, "[");
    for (uint64_t i = 0; i < shown; i++) {
        if (i)
            put(o, ", ");
        if (kv->elem_type == VT_STRING) {
            uint64_t n;
            if (!cur_uint(&c, w, &n) || !cur_has(&c, n))
                break;
            put_bytes(o, cur_ptr(&c), n);
            cur_skip(&c, n);
        } else if (kv->elem_type == VT_ARRAY) {
            put(o, o->json ? "null" : "[...]");
            break; /* nested elements are not walked here */
        } else if (!put_scalar(o, &c, kv->elem_type)) {
            break;
        }
    }
    if (!o->json && kv->count > shown)
        put(o, ", ...");
    put(o, "]");
}

/* A scalar or string KV's value; false when the scalar cannot be read. */
static bool put_value(dump_out *o, const gguflint_ctx *ctx, const gguflint_kv *kv)
{
    if (kv->type == VT_STRING) {
        put_bytes(o, kv->str.ptr, kv->str.len);
        return true;
    }
    cursor c;
    cur_init(&c, ctx->data + kv->value_offset, kv->value_size);
    c.big_endian = ctx->hdr.big_endian;
    return put_scalar(o, &c, kv->type);
}

static void dump_text(dump_out *o, const gguflint_ctx *ctx)
{
    const gguflint_header *h = &ctx->hdr;
    if (!h->is_gguf) {
        putf(o, "not a GGUF file (%" PRIu64 " bytes)\n", h->file_size);
        return;
    }
    putf(o, "GGUF v%u, %s, %" PRIu64 " bytes\n", h->version,
         h->big_endian ? "big-endian" : "little-endian", h->file_size);
    putf(o, "tensor_count %" PRIu64 ", kv_count %" PRIu64 ", alignment %" PRIu64, h->tensor_count,
         h->kv_count, h->alignment);
    if (h->metadata_complete)
        putf(o, ", data at 0x%" PRIx64 "\n", h->data_start);
    else
        put(o, ", metadata incomplete (see lint findings)\n");
    putf(o, "\n%zu key/value pairs:\n", ctx->n_kvs);
    for (size_t i = 0; i < ctx->n_kvs; i++) {
        const gguflint_kv *kv = &ctx->kvs[i];
        putf(o, "  %4zu 0x%08" PRIx64 " ", i, kv->offset);
        gguflint_escape(o->o.w, o->o.u, kv->key.ptr, (size_t)kv->key.len);
        if (kv->type == VT_ARRAY) {
            putf(o, " arr[%s,%" PRIu64 "] = ", vt_name(kv->elem_type), kv->count);
            put_array(o, ctx, kv);
        } else {
            putf(o, " %s = ", vt_name(kv->type));
            put_value(o, ctx, kv); /* nothing for a value that cannot be read */
        }
        put(o, "\n");
    }
    putf(o, "\n%zu tensors:\n", ctx->n_tensors);
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        const ggml_type_info *ti = gt_info(t->type);
        putf(o, "  %4zu ", i);
        put_bytes(o, t->name.ptr, t->name.len);
        if (ti->name)
            putf(o, " %s [", ti->name);
        else
            putf(o, " type#%u [", t->type);
        unsigned nd = t->n_dims < 4 ? t->n_dims : 4;
        for (unsigned j = 0; j < nd; j++)
            putf(o, j ? ", %" PRIu64 : "%" PRIu64, t->ne[j]);
        putf(o, "] offset 0x%" PRIx64, t->offset);
        if (t->size_ok)
            putf(o, " size %" PRIu64 "\n", t->nbytes);
        else
            put(o, " size ?\n");
    }
}

static void dump_json(dump_out *o, const gguflint_ctx *ctx)
{
    const gguflint_header *h = &ctx->hdr;
    putf(o, "{\"schema_version\":1,\"file_size\":%" PRIu64 ",\"gguf\":%s", h->file_size,
         h->is_gguf ? "true" : "false");
    if (h->is_gguf) {
        putf(o,
             ",\"version\":%u,\"big_endian\":%s,\"tensor_count\":%" PRIu64 ",\"kv_count\":%" PRIu64
             ",\"alignment\":%" PRIu64 ",\"metadata_complete\":%s",
             h->version, h->big_endian ? "true" : "false", h->tensor_count, h->kv_count,
             h->alignment, h->metadata_complete ? "true" : "false");
        if (h->metadata_complete)
            putf(o, ",\"data_start\":%" PRIu64, h->data_start);
    }
    put(o, ",\"kvs\":[");
    for (size_t i = 0; i < ctx->n_kvs; i++) {
        const gguflint_kv *kv = &ctx->kvs[i];
        put(o, i ? ",{\"key\":" : "{\"key\":");
        put_bytes(o, kv->key.ptr, kv->key.len);
        putf(o, ",\"offset\":%" PRIu64 ",\"type\":\"%s\"", kv->offset, vt_name(kv->type));
        if (kv->type == VT_ARRAY) {
            putf(o,
                 ",\"elem_type\":\"%s\",\"count\":%" PRIu64 ",\"first\":", vt_name(kv->elem_type),
                 kv->count);
            put_array(o, ctx, kv);
        } else {
            put(o, ",\"value\":");
            if (!put_value(o, ctx, kv))
                put(o, "null");
        }
        put(o, "}");
    }
    put(o, "],\"tensors\":[");
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        const ggml_type_info *ti = gt_info(t->type);
        put(o, i ? ",{\"name\":" : "{\"name\":");
        put_bytes(o, t->name.ptr, t->name.len);
        putf(o, ",\"type_id\":%u,\"type\":", t->type);
        if (ti->name)
            putf(o, "\"%s\"", ti->name);
        else
            put(o, "null");
        put(o, ",\"dims\":[");
        unsigned nd = t->n_dims < 4 ? t->n_dims : 4;
        for (unsigned j = 0; j < nd; j++)
            putf(o, j ? ",%" PRIu64 : "%" PRIu64, t->ne[j]);
        putf(o, "],\"n_dims\":%u,\"offset\":%" PRIu64, t->n_dims, t->offset);
        if (t->size_ok)
            putf(o, ",\"nbytes\":%" PRIu64 "}", t->nbytes);
        else
            put(o, ",\"nbytes\":null}");
    }
    put(o, "]}\n");
}

void gguflint_dump(const gguflint_ctx *ctx, gguflint_format fmt, gguflint_write_fn w, void *user)
{
    gguflint_dump_ex(ctx, fmt, w, user, DUMP_ELEMS);
}

void gguflint_dump_ex(const gguflint_ctx *ctx, gguflint_format fmt, gguflint_write_fn w, void *user,
                      uint64_t max_elems)
{
    if (!ctx || !w)
        return;
    dump_out o = {{w, user}, fmt == GGUFLINT_FORMAT_JSON, max_elems};
    if (o.json)
        dump_json(&o, ctx);
    else
        dump_text(&o, ctx);
}

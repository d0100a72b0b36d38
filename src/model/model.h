/* model.h - read access to the parsed model for the semantic checks
 * (check_*.c): KV and tensor lookup by name in O(1), typed scalar reads, and
 * iteration over array elements re-read through the cursor from the already
 * validated value bytes. Nothing here allocates except the two lookup
 * indexes built once per run (model_index). */
#ifndef GGUFLINT_MODEL_H
#define GGUFLINT_MODEL_H

#include "core/internal.h"

#include "common/cursor.h"
#include "format/types.h"
#include "format/wire.h"

/* Width of counts and lengths in this file (see format/wire.h). */
static inline unsigned model_width(const gguflint_ctx *ctx)
{
    return wire_width(ctx->hdr.version);
}

/* Build the key and tensor-name indexes (called by checks_run). False on NOMEM. */
bool model_index(gguflint_ctx *ctx);
void model_index_free(gguflint_ctx *ctx);

/* The first KV with exactly this key, or NULL. */
const gguflint_kv *kv_by_key(const gguflint_ctx *ctx, const char *key);
/* The KV "<arch>.<suffix>" (arch_len bytes of arch), built without
 * formatting: the architecture checks look up dozens of these per file. */
const gguflint_kv *kv_by_arch_key(const gguflint_ctx *ctx, const char *arch, size_t arch_len,
                                  const char *suffix);
/* printf-style key: kv_by_keyf(ctx, "%s.block_count", arch). */
const gguflint_kv *kv_by_keyf(const gguflint_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The first tensor with exactly this name, or NULL. */
const gguflint_tensor *tensor_by_name(const gguflint_ctx *ctx, const char *name);
/* Index of a KV / tensor record in ctx (for paths). */
size_t kv_index_of(const gguflint_ctx *ctx, const gguflint_kv *kv);
size_t tensor_index_of(const gguflint_ctx *ctx, const gguflint_tensor *t);

/* Integer value of a scalar KV of any integer type (not bool), as int64
 * (u64 values above INT64_MAX fail). */
bool kv_int(const gguflint_kv *kv, int64_t *out);
/* Float value of an f32/f64 KV, or of an integer KV. */
bool kv_num(const gguflint_kv *kv, double *out);
/* A string KV's bytes. */
bool kv_str(const gguflint_kv *kv, gguflint_view *out);
/* True when a string KV equals s exactly. */
bool kv_str_eq(const gguflint_kv *kv, const char *s);
/* Path text kv["key"] for a KV. */
void kv_path(char *buf, size_t cap, const gguflint_kv *kv);
void tensor_path(char *buf, size_t cap, const gguflint_ctx *ctx, const gguflint_tensor *t);
/* A KV's type as a finding names it: "u32", "an array of string"; returns
 * buf. */
const char *kv_type_text(char *buf, size_t cap, const gguflint_kv *kv);

/* Iterate over the elements of an array KV (one level; nested arrays are not
 * walked here). Element i's bytes are in *el (for strings: the string bytes,
 * with *el_off the offset of its length field; for scalars: the raw bytes). */
typedef struct arr_iter {
    cursor c;
    uint32_t et;
    unsigned w;
    uint64_t left, index;
    uint64_t base; /* file offset of c.base */
} arr_iter;
bool arr_iter_init(const gguflint_ctx *ctx, const gguflint_kv *kv, arr_iter *it);
bool arr_next(arr_iter *it, gguflint_view *el, uint64_t *el_off);
/* Scalar element decoders for the bytes arr_next returned. */
int64_t el_int(const arr_iter *it, gguflint_view el);
double el_num(const arr_iter *it, gguflint_view el);

/* Copy a view into a NUL-terminated buffer (truncating); returns buf. */
const char *view_cstr(char *buf, size_t cap, gguflint_view v);
bool view_eq(gguflint_view v, const char *s);
bool view_starts(gguflint_view v, const char *prefix);

#endif

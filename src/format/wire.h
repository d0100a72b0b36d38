/* wire.h - the one home of GGUF record geometry: where each field of the
 * header, a KV and a tensor info sits, and the smallest size of a record.
 * Counts and string lengths are 4 bytes wide in v1 and 8 in v2/v3; every
 * other field has a fixed width. Layout (docs/FORMAT.md):
 *
 *   header       magic[4] version:u32 tensor_count:W kv_count:W
 *   string       len:W bytes[len]                      (no NUL terminator)
 *   kv           key:string type:u32 value
 *   array value  elem_type:u32 count:W elements
 *   tensor info  name:string n_dims:u32 ne[n_dims]:W each type:u32 offset:u64
 *
 * The offsets below are computed from records the parser has already read
 * completely, so every field lies inside the input and no sum can overflow. */
#ifndef GGUFLINT_FORMAT_WIRE_H
#define GGUFLINT_FORMAT_WIRE_H

#include "gguflint.h"

#include "format/types.h"

#define WIRE_MAGIC_SIZE 4u
#define WIRE_VERSION_OFF 4u      /* u32 after the magic */
#define WIRE_TENSOR_COUNT_OFF 8u /* the first count, after the version */
#define WIRE_TYPE_SIZE 4u        /* value type, array element type, n_dims, ggml type */
#define WIRE_DATA_OFFSET_SIZE 8u /* a tensor's data offset: u64 in every version */

/* Width of counts, lengths and dims in this version: 4 in v1, else 8. */
static inline unsigned wire_width(uint32_t version)
{
    return version == 1 ? 4u : 8u;
}

/* ---- header ---- */
static inline uint64_t wire_kv_count_off(unsigned w)
{
    return WIRE_TENSOR_COUNT_OFF + w;
}

/* The fixed header: 24 bytes in v2/v3, 16 in v1. */
static inline uint64_t wire_header_size(unsigned w)
{
    return WIRE_TENSOR_COUNT_OFF + 2u * w;
}

/* ---- smallest encodings, to bound declared counts by the bytes left ---- */
/* A KV: key length, empty key, value type, a 1-byte value. */
static inline uint64_t wire_kv_min(unsigned w)
{
    return w + WIRE_TYPE_SIZE + 1u;
}

/* A tensor info: name length, empty name, n_dims = 0, type, offset. */
static inline uint64_t wire_tensor_info_min(unsigned w)
{
    return w + WIRE_TYPE_SIZE + WIRE_TYPE_SIZE + WIRE_DATA_OFFSET_SIZE;
}

/* An array element of value type et (valid): a string is at least its
 * length field, an array its header, a scalar its size. */
static inline uint64_t wire_elem_min(unsigned w, uint32_t et)
{
    return et == VT_STRING ? w : et == VT_ARRAY ? WIRE_TYPE_SIZE + w : vt_size(et);
}

/* ---- strings and KVs ---- */
/* Bytes of a string record: its length field and its bytes. */
static inline uint64_t wire_string_size(unsigned w, uint64_t len)
{
    return w + len;
}

/* The value-type field of a KV (after its key). */
static inline uint64_t wire_kv_type_off(unsigned w, const gguflint_kv *kv)
{
    return kv->offset + w + kv->key.len;
}

/* Bytes of a KV's key and value-type fields (the span a type finding marks). */
static inline uint64_t wire_kv_head_size(unsigned w, const gguflint_kv *kv)
{
    return w + kv->key.len + WIRE_TYPE_SIZE;
}

/* The count field of an array value, and its first element. */
static inline uint64_t wire_array_count_off(const gguflint_kv *kv)
{
    return kv->value_offset + WIRE_TYPE_SIZE;
}

static inline uint64_t wire_array_elems_off(unsigned w, const gguflint_kv *kv)
{
    return kv->value_offset + WIRE_TYPE_SIZE + w;
}

/* Element i of an array of fixed-size elements of `size` bytes. */
static inline uint64_t wire_array_elem_off(unsigned w, const gguflint_kv *kv, uint64_t size,
                                           uint64_t i)
{
    return wire_array_elems_off(w, kv) + size * i;
}

/* ---- tensor infos ---- */
static inline uint64_t wire_ti_ndims_off(unsigned w, const gguflint_tensor *t)
{
    return t->info_offset + w + t->name.len;
}

/* The field of dimension j (j < n_dims). */
static inline uint64_t wire_ti_ne_off(unsigned w, const gguflint_tensor *t, uint64_t j)
{
    return wire_ti_ndims_off(w, t) + WIRE_TYPE_SIZE + j * w;
}

static inline uint64_t wire_ti_type_off(unsigned w, const gguflint_tensor *t)
{
    return wire_ti_ne_off(w, t, t->n_dims);
}

static inline uint64_t wire_ti_offset_off(unsigned w, const gguflint_tensor *t)
{
    return wire_ti_type_off(w, t) + WIRE_TYPE_SIZE;
}

#endif

/* gguf_builder.h - an in-memory GGUF writer for tests, fuzz seeds and
 * benchmarks. It writes exactly what it is told, valid or not: it never
 * validates, so hostile files (wrong counts, bad types, truncated fields) are
 * as easy to make as good ones.
 *
 * Usage:
 *   gb *b = gb_new(3);
 *   gb_kv_str(b, "general.architecture", "llama");
 *   uint64_t ne[2] = {8, 4};
 *   gb_tensor(b, "w", 2, ne, GB_F16, 0);
 *   gb_pad_to(b, 32);                 (end of infos -> data_start)
 *   gb_zeros(b, gb_nbytes(GB_F16, 2, ne));
 *   gb_pad_to(b, 32);
 *   size_t len; uint8_t *buf = gb_finish(b, &len);   (NULL on failure)
 *   gb_free(b); ... free(buf);
 *
 * Contracts common to every function:
 *  - `b` may be NULL (everything is then a no-op returning 0 / NULL), so a
 *    failed gb_new needs no special casing.
 *  - Allocation failure sets a sticky error flag: later writes are ignored and
 *    gb_finish returns NULL. gb_ok() reports it.
 *  - Multi-byte values are written in the file's byte order (little-endian, or
 *    big-endian after gb_set_big_endian); gb_bytes/gb_str bytes are never
 *    swapped. The magic is always the bytes "GGUF".
 *  - "Length fields" (string lengths, array counts, tensor dims, header
 *    counts) are u64 for version >= 2 and u32 for version 1; a value too big
 *    for a u32 field is truncated to its low 32 bits.
 *  - Writers return the offset (from file start) at which they began writing,
 *    so a test can compute the offset of the field a finding should point at.
 *    gb_last() gives the offsets of the sub-fields of the last KV / tensor.
 *  - No global state; builders are independent. */
#ifndef GGUF_BUILDER_H
#define GGUF_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Metadata value types (gguf_type). */
enum {
    GB_VT_U8 = 0,
    GB_VT_I8 = 1,
    GB_VT_U16 = 2,
    GB_VT_I16 = 3,
    GB_VT_U32 = 4,
    GB_VT_I32 = 5,
    GB_VT_F32 = 6,
    GB_VT_BOOL = 7,
    GB_VT_STR = 8,
    GB_VT_ARR = 9,
    GB_VT_U64 = 10,
    GB_VT_I64 = 11,
    GB_VT_F64 = 12
};

/* A few ggml tensor types (ggml_type ids). */
enum {
    GB_F32 = 0,
    GB_F16 = 1,
    GB_Q4_0 = 2,
    GB_Q4_1 = 3,
    GB_Q5_0 = 6,
    GB_Q5_1 = 7,
    GB_Q8_0 = 8,
    GB_Q2_K = 10,
    GB_Q3_K = 11,
    GB_Q4_K = 12,
    GB_Q5_K = 13,
    GB_Q6_K = 14,
    GB_I8 = 24,
    GB_I32 = 26,
    GB_BF16 = 30
};

typedef struct gb gb;

/* Offsets of the fields of the last KV or tensor info written. Fields that do
 * not apply are GB_NO_MARK. */
#define GB_NO_MARK ((size_t)-1)
#define GB_MARK_DIMS 8
typedef struct gb_marks {
    size_t start;             /* KV: key length field; tensor: name length field */
    size_t key;               /* KV: first key byte; tensor: first name byte */
    size_t vtype;             /* KV: value-type field */
    size_t value;             /* KV: first value byte (strings: length field;
                         arrays: element-type field) */
    size_t arr_count;         /* KV arrays: count field */
    size_t arr_elems;         /* KV arrays: first element byte */
    size_t n_dims;            /* tensor: n_dims field */
    size_t dim[GB_MARK_DIMS]; /* tensor: dim fields (first 8) */
    size_t ttype;             /* tensor: ggml type field */
    size_t offset;            /* tensor: offset field */
    size_t end;               /* one past the last byte written for this item */
} gb_marks;

/* ---- life cycle ---- */

/* A builder holding the header: magic, `version` (any value; 1 selects u32
 * length fields) and placeholder tensor/kv counts. NULL when out of memory. */
gb *gb_new(uint32_t version);
/* Write everything after the magic big-endian. Call right after gb_new (it
 * rewrites the version field; later calls affect only later writes). */
void gb_set_big_endian(gb *b, bool be);
/* Declared header counts to write instead of the numbers of gb_kv_* /
 * gb_tensor calls made (for hostile headers). */
void gb_override_counts(gb *b, uint64_t tensor_count, uint64_t kv_count);
/* Patch the real counts into the header (unless overridden) and hand over the
 * bytes: an exactly-sized malloc'd buffer the caller frees, its size in *len.
 * NULL (and *len = 0) after any allocation failure. The builder is then
 * finished: later writes are ignored; only gb_free, gb_offset, gb_last,
 * gb_ok remain meaningful. */
uint8_t *gb_finish(gb *b, size_t *len);
/* Free the builder (and its buffer, if not handed over by gb_finish). */
void gb_free(gb *b);
/* false after an allocation failure or a write after gb_finish. */
bool gb_ok(const gb *b);

/* ---- queries ---- */
size_t gb_offset(const gb *b);        /* bytes written so far */
const gb_marks *gb_last(const gb *b); /* fields of the last KV / tensor */
uint32_t gb_version(const gb *b);
uint64_t gb_kv_written(const gb *b); /* gb_kv_* calls so far */
uint64_t gb_tensors_written(const gb *b);

/* ---- raw writers (no counting) ---- */
size_t gb_u8(gb *b, uint8_t v);
size_t gb_u16(gb *b, uint16_t v);
size_t gb_u32(gb *b, uint32_t v);
size_t gb_u64(gb *b, uint64_t v);
size_t gb_i8(gb *b, int8_t v);
size_t gb_i16(gb *b, int16_t v);
size_t gb_i32(gb *b, int32_t v);
size_t gb_i64(gb *b, int64_t v);
size_t gb_f32(gb *b, float v);
size_t gb_f64(gb *b, double v);
size_t gb_bytes(gb *b, const void *p, size_t n); /* verbatim */
size_t gb_zeros(gb *b, size_t n);
size_t gb_fill(gb *b, uint8_t byte, size_t n);
/* A length field: u64, or u32 in v1. */
size_t gb_len_field(gb *b, uint64_t v);
/* A gguf string: length field n, then the n bytes of s (s may hold NULs). */
size_t gb_str(gb *b, const void *s, size_t n);
/* A gguf string with an arbitrary declared length and `n` actual bytes
 * (e.g. declared 2^63 with 3 bytes following). */
size_t gb_str_decl(gb *b, uint64_t declared, const void *s, size_t n);
/* An array header: u32 element type, then the count length field. */
size_t gb_arr_header(gb *b, uint32_t elem_type, uint64_t count);
/* Zero bytes up to the next multiple of `alignment` counted from file start
 * (nothing if alignment is 0 or already aligned). */
size_t gb_pad_to(gb *b, uint64_t alignment);
/* Overwrite already-written bytes in the file's byte order (no-op when out of
 * range). Handy for fixing up a field whose value is known later. */
void gb_patch_u8(gb *b, size_t at, uint8_t v);
void gb_patch_u32(gb *b, size_t at, uint32_t v);
void gb_patch_u64(gb *b, size_t at, uint64_t v);

/* ---- KVs (each counts one KV and returns the KV's start offset) ---- */

/* Key (length field + bytes) and value-type field; the caller writes the value
 * with raw writers. gb_kv_beginn takes a key with explicit length (NULs ok). */
size_t gb_kv_begin(gb *b, const char *key, uint32_t type);
size_t gb_kv_beginn(gb *b, const void *key, size_t keylen, uint32_t type);
size_t gb_kv_u8(gb *b, const char *key, uint8_t v);
size_t gb_kv_i8(gb *b, const char *key, int8_t v);
size_t gb_kv_u16(gb *b, const char *key, uint16_t v);
size_t gb_kv_i16(gb *b, const char *key, int16_t v);
size_t gb_kv_u32(gb *b, const char *key, uint32_t v);
size_t gb_kv_i32(gb *b, const char *key, int32_t v);
size_t gb_kv_f32(gb *b, const char *key, float v);
size_t gb_kv_u64(gb *b, const char *key, uint64_t v);
size_t gb_kv_i64(gb *b, const char *key, int64_t v);
size_t gb_kv_f64(gb *b, const char *key, double v);
/* A bool with the raw byte given (0/1 valid, anything else hostile). */
size_t gb_kv_bool(gb *b, const char *key, uint8_t raw);
size_t gb_kv_str(gb *b, const char *key, const char *s);
size_t gb_kv_strn(gb *b, const char *key, const void *s, size_t n);
/* An array: element type, `count`, then `nbytes` bytes from `elems`. When the
 * element type is a fixed-size scalar and nbytes is a multiple of its size,
 * `elems` holds host-order values that are written in the file's byte order;
 * otherwise the bytes are copied verbatim. `count` is written as given, so it
 * may disagree with nbytes (hostile arrays). */
size_t gb_kv_arr(gb *b, const char *key, uint32_t elem_type, uint64_t count, const void *elems,
                 size_t nbytes);
/* An array of n C strings. */
size_t gb_kv_arr_str(gb *b, const char *key, const char *const *strs, size_t n);

/* ---- tensor infos (each counts one tensor and returns the info's start) ---- */

/* name, u32 n_dims, n_dims length fields from ne[], u32 type, u64 offset.
 * ne may be NULL when n_dims is 0. */
size_t gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                 uint64_t offset);
size_t gb_tensorn(gb *b, const void *name, size_t namelen, uint32_t n_dims, const uint64_t *ne,
                  uint32_t type, uint64_t offset);

/* The data section of n tensors of sizes[i] bytes each, zeros: padding to
 * `alignment`, then each tensor's bytes padded to `alignment` (offsets laid
 * out with gb_align_up(size, alignment), as the tensor infos declare). */
void gb_zero_data(gb *b, const uint64_t *sizes, size_t n, uint64_t alignment);

/* ---- ggml sizes ---- */

/* Block size (elements) and bytes per block of a ggml type; false for removed
 * or unknown ids. */
bool gb_type_traits(uint32_t type, uint32_t *block, uint32_t *type_size);
/* Bytes of a tensor: (ne0/block)*type_size*ne1*ne2*ne3 (dims past n_dims are
 * 1; 0 if any dim is 0). UINT64_MAX when the type is unknown/removed, ne0 is
 * not a multiple of the block size, n_dims > 4 or the product overflows. */
uint64_t gb_nbytes(uint32_t type, uint32_t n_dims, const uint64_t *ne);
/* x rounded up to a multiple of a (a > 0). */
uint64_t gb_align_up(uint64_t x, uint64_t a);

/* ---- canned files ---- */

/* A small VALID v3 model with no findings: general.architecture "llama",
 * general.alignment 32 (u32), some u32/f32/string/bool KVs, a string array
 * and three tensors (token_embd.weight f16 [8,4], blk.0.attn_norm.weight f32
 * [8], output.weight q8_0 [32,2]) with contiguous padded offsets and
 * zero-padded data; no trailing bytes. Caller frees. NULL on OOM. */
uint8_t *gb_small_model(size_t *len);
/* Same model with a chosen version (2 or 3) and byte order; version 1 writes
 * the v1 layout (u32 lengths). */
uint8_t *gb_small_model_ex(uint32_t version, bool big_endian, size_t *len);

#ifdef __cplusplus
}
#endif
#endif

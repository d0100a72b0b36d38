/* gguf_builder.c - see gguf_builder.h. */
#include "gguf_builder.h"

#include <stdlib.h>
#include <string.h>

struct gb {
    uint8_t *buf;
    size_t len;
    size_t cap;
    uint32_t version;
    bool big_endian;
    bool failed;
    bool finished;
    bool counts_overridden;
    uint64_t kv_count;
    uint64_t tensor_count;
    uint64_t ovr_tensor_count;
    uint64_t ovr_kv_count;
    gb_marks last;
};

static bool wide(const gb *b)
{
    return b->version != 1;
}

static bool reserve(gb *b, size_t n)
{
    if (b->failed || b->finished) {
        b->failed = true;
        return false;
    }
    if (n <= b->cap - b->len)
        return true;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t want = b->len + n;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < want)
        cap *= 2;
    uint8_t *p = realloc(b->buf, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->buf = p;
    b->cap = cap;
    return true;
}

/* Store an n-byte unsigned integer at p in the builder's byte order. */
static void store(const gb *b, uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned shift = 8 * (b->big_endian ? n - 1 - i : i);
        p[i] = (uint8_t)(v >> shift);
    }
}

static size_t put_uint(gb *b, uint64_t v, unsigned n)
{
    if (!b)
        return 0;
    size_t at = b->len;
    if (!reserve(b, n))
        return at;
    store(b, b->buf + b->len, v, n);
    b->len += n;
    return at;
}

static void reset_marks(gb_marks *m, size_t start)
{
    m->start = start;
    m->key = GB_NO_MARK;
    m->vtype = GB_NO_MARK;
    m->value = GB_NO_MARK;
    m->arr_count = GB_NO_MARK;
    m->arr_elems = GB_NO_MARK;
    m->n_dims = GB_NO_MARK;
    for (int i = 0; i < GB_MARK_DIMS; i++)
        m->dim[i] = GB_NO_MARK;
    m->ttype = GB_NO_MARK;
    m->offset = GB_NO_MARK;
    m->end = start;
}

/* ---- life cycle ---- */

gb *gb_new(uint32_t version)
{
    gb *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->version = version;
    reset_marks(&b->last, 0);
    gb_bytes(b, "GGUF", 4);
    gb_u32(b, version);
    gb_len_field(b, 0); /* tensor_count, patched by gb_finish */
    gb_len_field(b, 0); /* kv_count */
    if (b->failed) {
        gb_free(b);
        return NULL;
    }
    return b;
}

void gb_set_big_endian(gb *b, bool be)
{
    if (!b)
        return;
    b->big_endian = be;
    if (b->len >= 8)
        store(b, b->buf + 4, b->version, 4);
}

void gb_override_counts(gb *b, uint64_t tensor_count, uint64_t kv_count)
{
    if (!b)
        return;
    b->counts_overridden = true;
    b->ovr_tensor_count = tensor_count;
    b->ovr_kv_count = kv_count;
}

uint8_t *gb_finish(gb *b, size_t *len)
{
    if (len)
        *len = 0;
    if (!b || b->failed || b->finished) {
        if (b)
            b->failed = true;
        return NULL;
    }
    uint64_t tc = b->counts_overridden ? b->ovr_tensor_count : b->tensor_count;
    uint64_t kc = b->counts_overridden ? b->ovr_kv_count : b->kv_count;
    unsigned w = wide(b) ? 8 : 4;
    if (b->len >= 8 + 2 * (size_t)w) {
        store(b, b->buf + 8, tc, w);
        store(b, b->buf + 8 + w, kc, w);
    }
    /* Exactly sized, so sanitizers catch any read past the end. */
    uint8_t *out = realloc(b->buf, b->len);
    if (!out) {
        b->failed = true;
        return NULL;
    }
    b->buf = NULL;
    b->cap = 0;
    b->finished = true;
    if (len)
        *len = b->len;
    return out;
}

void gb_free(gb *b)
{
    if (!b)
        return;
    free(b->buf);
    free(b);
}

bool gb_ok(const gb *b)
{
    return b && !b->failed;
}

/* ---- queries ---- */

size_t gb_offset(const gb *b)
{
    return b ? b->len : 0;
}

const gb_marks *gb_last(const gb *b)
{
    return b ? &b->last : NULL;
}

uint32_t gb_version(const gb *b)
{
    return b ? b->version : 0;
}

uint64_t gb_kv_written(const gb *b)
{
    return b ? b->kv_count : 0;
}

uint64_t gb_tensors_written(const gb *b)
{
    return b ? b->tensor_count : 0;
}

/* ---- raw writers ---- */

size_t gb_u8(gb *b, uint8_t v)
{
    return put_uint(b, v, 1);
}
size_t gb_u16(gb *b, uint16_t v)
{
    return put_uint(b, v, 2);
}
size_t gb_u32(gb *b, uint32_t v)
{
    return put_uint(b, v, 4);
}
size_t gb_u64(gb *b, uint64_t v)
{
    return put_uint(b, v, 8);
}
size_t gb_i8(gb *b, int8_t v)
{
    return put_uint(b, (uint8_t)v, 1);
}
size_t gb_i16(gb *b, int16_t v)
{
    return put_uint(b, (uint16_t)v, 2);
}
size_t gb_i32(gb *b, int32_t v)
{
    return put_uint(b, (uint32_t)v, 4);
}
size_t gb_i64(gb *b, int64_t v)
{
    return put_uint(b, (uint64_t)v, 8);
}

size_t gb_f32(gb *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return put_uint(b, u, 4);
}

size_t gb_f64(gb *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return put_uint(b, u, 8);
}

size_t gb_bytes(gb *b, const void *p, size_t n)
{
    if (!b)
        return 0;
    size_t at = b->len;
    if (n == 0)
        return at;
    if (!reserve(b, n))
        return at;
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    return at;
}

size_t gb_fill(gb *b, uint8_t byte, size_t n)
{
    if (!b)
        return 0;
    size_t at = b->len;
    if (n == 0)
        return at;
    if (!reserve(b, n))
        return at;
    memset(b->buf + b->len, byte, n);
    b->len += n;
    return at;
}

size_t gb_zeros(gb *b, size_t n)
{
    return gb_fill(b, 0, n);
}

size_t gb_len_field(gb *b, uint64_t v)
{
    if (!b)
        return 0;
    return wide(b) ? put_uint(b, v, 8) : put_uint(b, (uint32_t)v, 4);
}

size_t gb_str_decl(gb *b, uint64_t declared, const void *s, size_t n)
{
    size_t at = gb_len_field(b, declared);
    gb_bytes(b, s, n);
    return at;
}

size_t gb_str(gb *b, const void *s, size_t n)
{
    return gb_str_decl(b, n, s, n);
}

size_t gb_arr_header(gb *b, uint32_t elem_type, uint64_t count)
{
    size_t at = gb_u32(b, elem_type);
    gb_len_field(b, count);
    return at;
}

size_t gb_pad_to(gb *b, uint64_t alignment)
{
    if (!b)
        return 0;
    size_t at = b->len;
    if (alignment == 0)
        return at;
    uint64_t rem = (uint64_t)b->len % alignment;
    if (rem)
        gb_zeros(b, (size_t)(alignment - rem));
    return at;
}

void gb_zero_data(gb *b, const uint64_t *sizes, size_t n, uint64_t alignment)
{
    gb_pad_to(b, alignment);
    for (size_t i = 0; i < n; i++) {
        gb_zeros(b, (size_t)sizes[i]);
        gb_pad_to(b, alignment);
    }
}

static void patch(gb *b, size_t at, uint64_t v, unsigned n)
{
    if (!b || !b->buf || at > b->len || n > b->len - at)
        return;
    store(b, b->buf + at, v, n);
}

void gb_patch_u8(gb *b, size_t at, uint8_t v)
{
    patch(b, at, v, 1);
}
void gb_patch_u32(gb *b, size_t at, uint32_t v)
{
    patch(b, at, v, 4);
}
void gb_patch_u64(gb *b, size_t at, uint64_t v)
{
    patch(b, at, v, 8);
}

/* ---- KVs ---- */

size_t gb_kv_beginn(gb *b, const void *key, size_t keylen, uint32_t type)
{
    if (!b)
        return 0;
    size_t at = b->len;
    reset_marks(&b->last, at);
    gb_str(b, key, keylen);
    b->last.key = at + (wide(b) ? 8 : 4);
    b->last.vtype = gb_u32(b, type);
    b->last.value = b->len;
    b->last.end = b->len;
    b->kv_count++;
    return at;
}

size_t gb_kv_begin(gb *b, const char *key, uint32_t type)
{
    return gb_kv_beginn(b, key, key ? strlen(key) : 0, type);
}

static size_t kv_scalar(gb *b, const char *key, uint32_t type, uint64_t v, unsigned n)
{
    size_t at = gb_kv_begin(b, key, type);
    put_uint(b, v, n);
    if (b)
        b->last.end = b->len;
    return at;
}

/* gb_kv_u8 .. gb_kv_bool: one integer of `bytes` bytes (signed values as
 * their two's-complement bits, through `utype`). */
#define GB_KV_INT(name, ctype, utype, vtype, bytes)                                                \
    size_t gb_kv_##name(gb *b, const char *key, ctype v)                                           \
    {                                                                                              \
        return kv_scalar(b, key, vtype, (utype)v, bytes);                                          \
    }
GB_KV_INT(u8, uint8_t, uint8_t, GB_VT_U8, 1)
GB_KV_INT(i8, int8_t, uint8_t, GB_VT_I8, 1)
GB_KV_INT(u16, uint16_t, uint16_t, GB_VT_U16, 2)
GB_KV_INT(i16, int16_t, uint16_t, GB_VT_I16, 2)
GB_KV_INT(u32, uint32_t, uint32_t, GB_VT_U32, 4)
GB_KV_INT(i32, int32_t, uint32_t, GB_VT_I32, 4)
GB_KV_INT(u64, uint64_t, uint64_t, GB_VT_U64, 8)
GB_KV_INT(i64, int64_t, uint64_t, GB_VT_I64, 8)
GB_KV_INT(bool, uint8_t, uint8_t, GB_VT_BOOL, 1)

size_t gb_kv_f32(gb *b, const char *key, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return kv_scalar(b, key, GB_VT_F32, u, 4);
}

size_t gb_kv_f64(gb *b, const char *key, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return kv_scalar(b, key, GB_VT_F64, u, 8);
}

size_t gb_kv_strn(gb *b, const char *key, const void *s, size_t n)
{
    size_t at = gb_kv_begin(b, key, GB_VT_STR);
    gb_str(b, s, n);
    if (b)
        b->last.end = b->len;
    return at;
}

size_t gb_kv_str(gb *b, const char *key, const char *s)
{
    return gb_kv_strn(b, key, s, s ? strlen(s) : 0);
}

static unsigned scalar_size(uint32_t vt)
{
    switch (vt) {
    case GB_VT_U8:
    case GB_VT_I8:
    case GB_VT_BOOL: return 1;
    case GB_VT_U16:
    case GB_VT_I16: return 2;
    case GB_VT_U32:
    case GB_VT_I32:
    case GB_VT_F32: return 4;
    case GB_VT_U64:
    case GB_VT_I64:
    case GB_VT_F64: return 8;
    default: return 0;
    }
}

size_t gb_kv_arr(gb *b, const char *key, uint32_t elem_type, uint64_t count, const void *elems,
                 size_t nbytes)
{
    size_t at = gb_kv_begin(b, key, GB_VT_ARR);
    if (!b)
        return 0;
    gb_u32(b, elem_type);
    b->last.arr_count = gb_len_field(b, count);
    b->last.arr_elems = b->len;
    unsigned es = scalar_size(elem_type);
    const uint8_t *p = elems;
    if (es > 1 && nbytes % es == 0) {
        for (size_t i = 0; i < nbytes; i += es) {
            uint64_t v = 0;
            switch (es) {
            case 2: {
                uint16_t x;
                memcpy(&x, p + i, 2);
                v = x;
                break;
            }
            case 4: {
                uint32_t x;
                memcpy(&x, p + i, 4);
                v = x;
                break;
            }
            default: memcpy(&v, p + i, 8); break;
            }
            put_uint(b, v, es);
        }
    } else if (nbytes) {
        gb_bytes(b, elems, nbytes);
    }
    b->last.end = b->len;
    return at;
}

size_t gb_kv_arr_str(gb *b, const char *key, const char *const *strs, size_t n)
{
    size_t at = gb_kv_begin(b, key, GB_VT_ARR);
    if (!b)
        return 0;
    gb_u32(b, GB_VT_STR);
    b->last.arr_count = gb_len_field(b, n);
    b->last.arr_elems = b->len;
    for (size_t i = 0; i < n; i++)
        gb_str(b, strs[i], strlen(strs[i]));
    b->last.end = b->len;
    return at;
}

/* ---- tensor infos ---- */

size_t gb_tensorn(gb *b, const void *name, size_t namelen, uint32_t n_dims, const uint64_t *ne,
                  uint32_t type, uint64_t offset)
{
    if (!b)
        return 0;
    size_t at = b->len;
    reset_marks(&b->last, at);
    gb_str(b, name, namelen);
    b->last.key = at + (wide(b) ? 8 : 4);
    b->last.n_dims = gb_u32(b, n_dims);
    for (uint32_t i = 0; i < n_dims; i++) {
        size_t d = gb_len_field(b, ne ? ne[i] : 1);
        if (i < GB_MARK_DIMS)
            b->last.dim[i] = d;
    }
    b->last.ttype = gb_u32(b, type);
    b->last.offset = gb_u64(b, offset);
    b->last.end = b->len;
    b->tensor_count++;
    return at;
}

size_t gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                 uint64_t offset)
{
    return gb_tensorn(b, name, name ? strlen(name) : 0, n_dims, ne, type, offset);
}

/* ---- ggml sizes ---- */

static const struct {
    uint16_t block;
    uint16_t size;
} ggml_traits[] = {
    /* 0 f32 */ {1, 4},         /* 1 f16 */ {1, 2},         /* 2 q4_0 */ {32, 18},
    /* 3 q4_1 */ {32, 20},      /* 4 removed */ {0, 0},     /* 5 removed */ {0, 0},
    /* 6 q5_0 */ {32, 22},      /* 7 q5_1 */ {32, 24},      /* 8 q8_0 */ {32, 34},
    /* 9 q8_1 */ {32, 36},      /* 10 q2_K */ {256, 84},    /* 11 q3_K */ {256, 110},
    /* 12 q4_K */ {256, 144},   /* 13 q5_K */ {256, 176},   /* 14 q6_K */ {256, 210},
    /* 15 q8_K */ {256, 292},   /* 16 iq2_xxs */ {256, 66}, /* 17 iq2_xs */ {256, 74},
    /* 18 iq3_xxs */ {256, 98}, /* 19 iq1_s */ {256, 50},   /* 20 iq4_nl */ {32, 18},
    /* 21 iq3_s */ {256, 110},  /* 22 iq2_s */ {256, 82},   /* 23 iq4_xs */ {256, 136},
    /* 24 i8 */ {1, 1},         /* 25 i16 */ {1, 2},        /* 26 i32 */ {1, 4},
    /* 27 i64 */ {1, 8},        /* 28 f64 */ {1, 8},        /* 29 iq1_m */ {256, 56},
    /* 30 bf16 */ {1, 2},       /* 31 removed */ {0, 0},    /* 32 removed */ {0, 0},
    /* 33 removed */ {0, 0},    /* 34 tq1_0 */ {256, 54},   /* 35 tq2_0 */ {256, 66},
    /* 36 removed */ {0, 0},    /* 37 removed */ {0, 0},    /* 38 removed */ {0, 0},
    /* 39 mxfp4 */ {32, 17},    /* 40 nvfp4 */ {64, 36},    /* 41 q1_0 */ {128, 18},
    /* 42 q2_0 */ {64, 18},
};

bool gb_type_traits(uint32_t type, uint32_t *block, uint32_t *type_size)
{
    if (type >= sizeof ggml_traits / sizeof ggml_traits[0] || ggml_traits[type].block == 0)
        return false;
    if (block)
        *block = ggml_traits[type].block;
    if (type_size)
        *type_size = ggml_traits[type].size;
    return true;
}

uint64_t gb_nbytes(uint32_t type, uint32_t n_dims, const uint64_t *ne)
{
    uint32_t block, size;
    if (!gb_type_traits(type, &block, &size) || n_dims > 4)
        return UINT64_MAX;
    uint64_t d[4] = {1, 1, 1, 1};
    for (uint32_t i = 0; i < n_dims; i++)
        d[i] = ne[i];
    if (d[0] % block)
        return UINT64_MAX;
    for (int i = 0; i < 4; i++)
        if (d[i] == 0)
            return 0;
    uint64_t n = d[0] / block;
    if (__builtin_mul_overflow(n, (uint64_t)size, &n))
        return UINT64_MAX;
    for (int i = 1; i < 4; i++)
        if (__builtin_mul_overflow(n, d[i], &n))
            return UINT64_MAX;
    return n;
}

uint64_t gb_align_up(uint64_t x, uint64_t a)
{
    if (a == 0)
        return x;
    uint64_t r = x % a;
    return r ? x + (a - r) : x;
}

/* ---- canned files ---- */

uint8_t *gb_small_model_ex(uint32_t version, bool big_endian, size_t *len)
{
    static const char *const tokens[] = {"<unk>", "<s>", "</s>", "hello", "world"};
    static const struct {
        const char *name;
        uint32_t n_dims;
        uint64_t ne[2];
        uint32_t type;
    } tensors[] = {
        {"token_embd.weight", 2, {8, 4}, GB_F16},
        {"blk.0.attn_norm.weight", 1, {8, 1}, GB_F32},
        {"output.weight", 2, {32, 2}, GB_Q8_0},
    };
    const uint64_t align = 32;
    enum { NT = sizeof tensors / sizeof tensors[0] };

    if (len)
        *len = 0;
    gb *b = gb_new(version);
    if (!b)
        return NULL;
    gb_set_big_endian(b, big_endian);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "gguflint test model");
    gb_kv_u32(b, "general.alignment", (uint32_t)align);
    gb_kv_u32(b, "general.file_type", 7);
    gb_kv_u32(b, "general.quantization_version", 2);
    gb_kv_u32(b, "llama.context_length", 64);
    gb_kv_u32(b, "llama.embedding_length", 8);
    gb_kv_u32(b, "llama.block_count", 1);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_bool(b, "llama.use_parallel_residual", 1);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", tokens, sizeof tokens / sizeof tokens[0]);

    uint64_t off = 0;
    uint64_t sizes[NT];
    for (int i = 0; i < NT; i++) {
        sizes[i] = gb_nbytes(tensors[i].type, tensors[i].n_dims, tensors[i].ne);
        gb_tensor(b, tensors[i].name, tensors[i].n_dims, tensors[i].ne, tensors[i].type, off);
        off += gb_align_up(sizes[i], align);
    }
    gb_zero_data(b, sizes, NT, align);
    uint8_t *out = gb_finish(b, len);
    gb_free(b);
    return out;
}

uint8_t *gb_small_model(size_t *len)
{
    return gb_small_model_ex(3, false, len);
}

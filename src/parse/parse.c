/* parse.c - one pass over the header, the key/value table and the tensor-info
 * table, producing the model of views (ctx->hdr, ctx->kvs, ctx->tensors) and
 * every structural finding it can reach.
 *
 * Every read goes through the cursor. No allocation is sized by a count from
 * the file: KV and tensor records grow by doubling as entries are actually
 * read, and a declared count is first compared with the bytes remaining
 * divided by the smallest encoding of one entry. Parsing goes on past any
 * problem after which the layout is still known, and stops (metadata
 * incomplete) at the first one that makes the rest unreadable. Nested arrays
 * are walked with an explicit stack. */
#include "parse/parse.h"
#include "common/alloc.h"

#include "common/ckd.h"
#include "common/cursor.h"
#include "common/fpscan.h"
#include "common/viewset.h"
#include "format/types.h"
#include "format/wire.h"
#include "input/source.h"
#include "parse/tokens.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
    gguflint_ctx *ctx;
    cursor c;
    unsigned w;          /* width of counts and lengths: 4 in v1, 8 after */
    bool stop;           /* the layout is lost; nothing more can be read */
    viewset keys, names; /* duplicate keys and tensor names */
    bool keys_dangling;  /* keys holds the index of a KV that was not stored */
    /* The logical path of the field being read, built only when a finding
     * needs it (path_of): formatting it for every KV and tensor would cost
     * more than parsing them. */
    enum { PATH_HEADER, PATH_KV_INDEX, PATH_KV_KEY, PATH_TENSOR } path_kind;
    uint64_t path_index, path_dim;
    gguflint_view path_key;
    const char *path_field; /* tensor: ".name", ".n_dims", ".ne", ".type", ".offset", "" */
    char path[256];
    size_t tokens_kv; /* the first tokenizer.ggml.tokens KV's index + 1, or 0 */
} parser;

static const char *const magic_names[][2] = {
    {"lmgg", "the legacy GGML format (magic 'ggml', unversioned, before GGUF)"},
    {"fmgg", "the legacy GGMF format (magic 'ggmf', before GGUF)"},
    {"tjgg", "the legacy GGJT format (magic 'ggjt', llama.cpp before August 2023)"},
    {"algg", "a legacy GGLA LoRA adapter (magic 'ggla')"},
    {"ggml", "the legacy GGML format written big-endian"},
    {"ggjt", "the legacy GGJT format written big-endian"},
};

/* ---- small helpers ---- */

static gguflint_view kv_key_of(const void *ctx, size_t i)
{
    return ((const gguflint_ctx *)ctx)->kvs[i].key;
}

/* A tensor name as C readers see it: up to its first NUL. */
static gguflint_view tensor_name_of(const void *ctx, size_t i)
{
    gguflint_view n = ((const gguflint_ctx *)ctx)->tensors[i].name;
    const uint8_t *nul = memchr(n.ptr, 0, (size_t)n.len);
    if (nul)
        n.len = (uint64_t)(nul - n.ptr);
    return n;
}

static void set_kv_path(parser *p, uint64_t i)
{
    p->path_kind = PATH_KV_INDEX;
    p->path_index = i;
}

static void set_kv_key_path(parser *p, gguflint_view key)
{
    p->path_kind = PATH_KV_KEY;
    p->path_key = key;
}

static void set_tensor_path(parser *p, uint64_t i, const char *field, uint64_t dim)
{
    p->path_kind = PATH_TENSOR;
    p->path_index = i;
    p->path_field = field;
    p->path_dim = dim;
}

/* The current logical path, formatted now (only findings call this). */
static const char *path_of(parser *p)
{
    switch (p->path_kind) {
    case PATH_KV_INDEX:
        snprintf(p->path, sizeof p->path, "kv[%llu]", (unsigned long long)p->path_index);
        break;
    case PATH_KV_KEY: path_kv(p->path, sizeof p->path, p->path_key.ptr, p->path_key.len); break;
    case PATH_TENSOR:
        if (strcmp(p->path_field, ".ne") == 0)
            snprintf(p->path, sizeof p->path, "tensor[%llu].ne[%llu]",
                     (unsigned long long)p->path_index, (unsigned long long)p->path_dim);
        else
            snprintf(p->path, sizeof p->path, "tensor[%llu]%s", (unsigned long long)p->path_index,
                     p->path_field);
        break;
    default: snprintf(p->path, sizeof p->path, "header"); break;
    }
    return p->path;
}

static void nomem(parser *p)
{
    if (p->ctx->status == GGUFLINT_OK)
        p->ctx->status = GGUFLINT_E_NOMEM;
    p->stop = true;
}

/* Bytes of the file (not of the input in memory) from the cursor on: what
 * "cannot fit" tests compare with, so a prefix of a known file (a reader
 * input) gets the findings of the whole file. */
static uint64_t file_remaining(const parser *p)
{
    return p->ctx->size > p->c.off ? p->ctx->size - p->c.off : 0;
}

/* The input in memory ends before [field_off, field_off + need), which the
 * file holds: stop without a finding and say how much input is needed. */
static bool cut(parser *p, uint64_t field_off, uint64_t need)
{
    uint64_t end;
    if (p->c.len >= p->ctx->size || ckd_add64(&end, field_off, need) || end > p->ctx->size)
        return false;
    p->ctx->input_cut = true;
    p->ctx->bytes_needed = end;
    p->ctx->hdr.complete = false; /* what a caller of the public header sees */
    if (end > p->ctx->hdr.bytes_needed)
        p->ctx->hdr.bytes_needed = end;
    p->stop = true;
    return true;
}

/* The input ends before `need_end` (the end of the field starting at
 * `field_off`, counted from the file's start), and the file is not known to
 * go on (not a reader prefix: see cut): it is incomplete, and at least
 * need_end bytes are needed to read on. Under --header-only that is what a
 * partial download looks like: one GG013 note, and true is returned so the
 * caller reports nothing that only follows from the cut. Otherwise false:
 * the caller reports the truncation as an error. */
static bool input_cut(gguflint_ctx *ctx, uint64_t field_off, uint64_t need_end, const char *path,
                      const char *what)
{
    gguflint_header *h = &ctx->hdr;
    h->complete = false;
    if (need_end > h->bytes_needed)
        h->bytes_needed = need_end;
    if (!ctx->opt.header_only)
        return false;
    emit(ctx, R_INPUT_INCOMPLETE, field_off, 0, path,
         "--header-only: the input (%llu bytes) ends inside %s at 0x%llx: at least %llu bytes "
         "are needed to read on (a partial download; what follows was not checked)",
         (unsigned long long)ctx->avail, what, (unsigned long long)field_off,
         (unsigned long long)need_end);
    return true;
}

/* field_off + n, or UINT64_MAX when that does not fit. */
static uint64_t end_of(uint64_t field_off, uint64_t n)
{
    uint64_t e;
    return ckd_add64(&e, field_off, n) ? UINT64_MAX : e;
}

/* The file ends inside a field: report where, and stop. */
static void truncated(parser *p, uint64_t field_off, uint64_t need, const char *what)
{
    p->stop = true;
    if (cut(p, field_off, need) ||
        input_cut(p->ctx, field_off, end_of(field_off, need), path_of(p), what))
        return;
    uint64_t have = field_off <= p->ctx->size ? p->ctx->size - field_off : 0;
    emit(p->ctx, R_TRUNCATED, field_off, need, path_of(p),
         "file ends inside %s at 0x%llx: %llu bytes needed, %llu present", what,
         (unsigned long long)field_off, (unsigned long long)need, (unsigned long long)have);
}

static bool read_uint(parser *p, unsigned n, uint64_t *out, const char *what)
{
    uint64_t at = p->c.off;
    if (!cur_uint(&p->c, n, out)) {
        truncated(p, at, n, what);
        return false;
    }
    return true;
}

/* The subject of a string finding: WHAT, or "array element INDEX" for an
 * element of a string array (elem). */
static const char *string_label(char *buf, size_t cap, const char *what, bool elem, uint64_t index)
{
    if (!elem)
        return what;
    snprintf(buf, cap, "array element %llu", (unsigned long long)index);
    return buf;
}

static void string_over_limit(parser *p, uint64_t len_off, uint64_t n, const char *what, bool elem,
                              uint64_t index)
{
    char label[48];
    emit(p->ctx, R_STRING_OVER_LIMIT, len_off, p->w, path_of(p),
         "%s: length %llu is over the limit of %llu bytes",
         string_label(label, sizeof label, what, elem, index), (unsigned long long)n,
         (unsigned long long)p->ctx->opt.limits.max_string_len);
}

/* A string of length n (its length field at len_off) that the input does not
 * hold: the parse stops. Under --header-only a cut is a note (and the limit
 * is still checked) unless no file could hold the length; else the string
 * runs past the end of the file. */
static void string_cut(parser *p, uint64_t len_off, uint64_t n, const char *what, bool elem,
                       uint64_t index)
{
    p->stop = true;
    if (cut(p, p->c.off, n))
        return;
    uint64_t need = end_of(p->c.off, n);
    if (need != UINT64_MAX && input_cut(p->ctx, len_off, need, path_of(p), what)) {
        if (n > p->ctx->opt.limits.max_string_len)
            string_over_limit(p, len_off, n, what, elem, index);
        return;
    }
    char label[48], at[32] = "";
    if (!elem)
        snprintf(at, sizeof at, " at 0x%llx", (unsigned long long)len_off);
    emit(p->ctx, R_STRING_PAST_EOF, len_off, p->w, path_of(p),
         "%s: length %llu%s runs past the end of the file (%llu bytes remain)",
         string_label(label, sizeof label, what, elem, index), (unsigned long long)n, at,
         (unsigned long long)file_remaining(p));
}

/* Read a length-prefixed string. On success *s is a view into the input and
 * *len_off the offset of its length field. Reports past-EOF (stop) and the
 * configured length limit (continue: the bytes are there). */
static bool read_string(parser *p, gguflint_view *s, uint64_t *len_off, const char *what)
{
    uint64_t n;
    *len_off = p->c.off;
    if (!read_uint(p, p->w, &n, what))
        return false;
    if (!cur_has(&p->c, n)) {
        string_cut(p, *len_off, n, what, false, 0);
        return false;
    }
    if (n > p->ctx->opt.limits.max_string_len)
        string_over_limit(p, *len_off, n, what, false, 0);
    s->ptr = cur_ptr(&p->c);
    s->len = n;
    cur_skip_unchecked(&p->c, n); /* cur_has(n) above */
    return true;
}

/* ---- header ---- */

/* A header count: the rule when it cannot fit in the bytes that follow, the
 * rule when it is over its limit, where it is and what it counts. */
typedef struct count_rules {
    int impossible, limit;
    const char *path, *name, *unit;
} count_rules;

static const count_rules kv_count_rules = {R_KV_COUNT_IMPOSSIBLE, R_KV_COUNT_LIMIT,
                                           "header.kv_count", "metadata_kv_count", "a KV"};
static const count_rules tensor_count_rules = {R_TENSOR_COUNT_IMPOSSIBLE, R_TENSOR_COUNT_LIMIT,
                                               "header.tensor_count", "tensor_count",
                                               "a tensor info"};

/* Report a declared count (its field at `at`) that cannot fit in `rem`
 * bytes when each entry takes at least `min`, or else is over `limit`.
 * `prefix`: rem is what any file could hold (--header-only). */
static void header_count(parser *p, uint64_t count, uint64_t at, uint64_t rem, uint64_t min,
                         uint64_t limit, const count_rules *c, bool prefix)
{
    if (count > rem / min && prefix)
        emit(p->ctx, c->impossible, at, p->w, c->path,
             "%s %llu cannot fit in any file: at %llu bytes each it would pass 2^64 bytes", c->name,
             (unsigned long long)count, (unsigned long long)min);
    else if (count > rem / min)
        emit(p->ctx, c->impossible, at, p->w, c->path,
             "%s %llu cannot fit: %llu bytes follow and %s takes at least %llu", c->name,
             (unsigned long long)count, (unsigned long long)rem, c->unit, (unsigned long long)min);
    else if (count > limit)
        emit(p->ctx, c->limit, at, p->w, c->path, "%s %llu is over the limit of %llu", c->name,
             (unsigned long long)count, (unsigned long long)limit);
}

static bool parse_header(parser *p)
{
    gguflint_ctx *ctx = p->ctx;
    gguflint_header *h = &ctx->hdr;
    const uint8_t *d = ctx->data;
    uint64_t size = ctx->avail; /* >= min(file size, 64): the header is in memory */

    if (size == 0) {
        emit(ctx, R_EMPTY_FILE, 0, 0, "header", "the file is empty (0 bytes)");
        h->complete = false; /* nothing to read on from: the magic is needed */
        h->bytes_needed = 4;
        return false;
    }
    size_t cmp = size < 4 ? (size_t)size : 4;
    bool fugg = false;
    if (memcmp(d, "GGUF", cmp) != 0) {
        static const char lfs[] = "version https://git-lfs";
        char got[64];
        esc_fixed(got, sizeof got, d, size, 4);
        if (size >= sizeof lfs - 1 && memcmp(d, lfs, sizeof lfs - 1) == 0) {
            emit(ctx, R_NOT_GGUF, 0, 4, "header.magic",
                 "this is a Git LFS pointer file, not the model: fetch the real file with "
                 "'git lfs pull'");
            return false;
        }
        if (size >= 4 && memcmp(d, "FUGG", 4) == 0) {
            emit(ctx, R_NOT_GGUF, 0, 4, "header.magic",
                 "magic 'FUGG': a 2023 pre-release GGUF file (or a big-endian magic); no "
                 "current reader accepts it; parsed as GGUF to report the rest");
            fugg = true;
        } else {
            for (size_t i = 0; size >= 4 && i < sizeof magic_names / sizeof magic_names[0]; i++) {
                if (memcmp(d, magic_names[i][0], 4) == 0) {
                    emit(ctx, R_NOT_GGUF, 0, 4, "header.magic",
                         "magic '%s': %s, not GGUF; convert it with a current llama.cpp", got,
                         magic_names[i][1]);
                    return false;
                }
            }
            emit(ctx, R_NOT_GGUF, 0, cmp, "header.magic",
                 "the file starts with '%s', not the GGUF magic 'GGUF'", got);
            return false;
        }
    }
    if (size < 4) {
        if (!input_cut(ctx, 0, 4, "header.magic", "the magic"))
            emit(ctx, R_TRUNCATED_HEADER, 0, 4, "header.magic",
                 "the file is %llu bytes long and ends inside the magic", (unsigned long long)size);
        return false;
    }
    if (size < 8) {
        if (!input_cut(ctx, 4, 8, "header.version", "the version field"))
            emit(ctx, R_TRUNCATED_HEADER, 4, 4, "header.version",
                 "the file ends inside the version field (%llu bytes)", (unsigned long long)size);
        return false;
    }
    cur_seek(&p->c, WIRE_VERSION_OFF);
    uint32_t v = 0;
    cur_u32(&p->c, &v); /* size >= 8 above */
    if (v != 0 && (v & 0xFFFFu) == 0) {
        p->c.big_endian = true;
        v = __builtin_bswap32(v);
        h->big_endian = true;
        emit(ctx, R_BYTE_SWAPPED, 4, 4, "header.version",
             "version field reads 0x%08x little-endian: this is a big-endian (byte-swapped) "
             "GGUF v%u file; ggml refuses it, gguf-py byte-swaps it; parsed big-endian",
             __builtin_bswap32(v), v);
    }
    h->version = v;
    if (v == 0 || v > 3) {
        emit(ctx, R_BAD_VERSION, 4, 4, "header.version",
             "version %u is not supported (known versions are 1, 2 and 3)", v);
        return false;
    }
    if (v == 1)
        emit(ctx, R_LEGACY_V1, 4, 4, "header.version",
             "GGUF v1 (32-bit counts and lengths): current ggml rejects it ('GGUFv1 is no longer "
             "supported'); parsed with the v1 layout");
    else if (v == 2)
        emit(ctx, R_VERSION_2, 4, 4, "header.version",
             "GGUF v2: readers accept it, writers emit v3");
    (void)fugg;
    p->w = wire_width(v);
    uint64_t tc, kc;
    if (!cur_uint(&p->c, p->w, &tc)) {
        if (!input_cut(ctx, WIRE_TENSOR_COUNT_OFF, WIRE_TENSOR_COUNT_OFF + p->w,
                       "header.tensor_count", "tensor_count"))
            emit(ctx, R_TRUNCATED_HEADER, WIRE_TENSOR_COUNT_OFF, p->w, "header.tensor_count",
                 "the file ends inside tensor_count (%llu bytes)", (unsigned long long)size);
        return false;
    }
    uint64_t kc_off = p->c.off;
    if (!cur_uint(&p->c, p->w, &kc)) {
        if (!input_cut(ctx, kc_off, kc_off + p->w, "header.kv_count", "metadata_kv_count"))
            emit(ctx, R_TRUNCATED_HEADER, kc_off, p->w, "header.kv_count",
                 "the file ends inside metadata_kv_count (%llu bytes)", (unsigned long long)size);
        return false;
    }
    h->is_gguf = true;
    h->tensor_count = tc;
    h->kv_count = kc;

    /* Counts are checked against the bytes that follow in the file; with
     * --header-only the input may be a prefix of a file of unknown size, so
     * only against the most any file could hold (records past 2^64 bytes). */
    const bool prefix = ctx->opt.header_only;
    uint64_t rem = prefix ? UINT64_MAX - p->c.off : file_remaining(p);
    header_count(p, kc, kc_off, rem, wire_kv_min(p->w), ctx->opt.limits.max_kv_count,
                 &kv_count_rules, prefix);
    header_count(p, tc, WIRE_TENSOR_COUNT_OFF, rem, wire_tensor_info_min(p->w),
                 ctx->opt.limits.max_tensor_count, &tensor_count_rules, prefix);
    return true;
}

/* ---- keys ---- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

/* True for a key no key rule can fire on, found 16 bytes at a time: 1 to
 * 65535 bytes of [a-z0-9_] segments joined by single dots, checked 64 bytes
 * per step (a key longer than 64 bytes took the byte loop, 1.5x the cost per
 * byte of a file of such keys: the adversarial benchmark's colliding keys
 * pass 64 bytes at 16x). Anything else (and a key whose last 16-byte load
 * would pass `end`, the end of readable memory) goes through the byte-wise
 * rules. */
static bool key_plain(const uint8_t *k, uint64_t n, const uint8_t *end)
{
    if (n == 0 || n > 65535 || (uint64_t)(end - k) < (n + 15) / 16 * 16)
        return false;
    bool prev_dot = true; /* a dot first is not plain */
    for (uint64_t at = 0; at < n; at += 64) {
        uint64_t m = n - at < 64 ? n - at : 64;
        uint64_t ok = 0, dots = 0;
        for (unsigned c = 0; c * 16 < m; c++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(k + at + 16 * c));
            __m128i lower = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('a' - 1)),
                                          _mm_cmplt_epi8(v, _mm_set1_epi8('z' + 1)));
            __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                          _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
            __m128i dot = _mm_cmpeq_epi8(v, _mm_set1_epi8('.'));
            __m128i word =
                _mm_or_si128(_mm_or_si128(lower, digit), _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
            ok |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(word, dot)) << (16 * c);
            dots |= (uint64_t)(unsigned)_mm_movemask_epi8(dot) << (16 * c);
        }
        uint64_t in = m == 64 ? ~0ull : (1ull << m) - 1;
        dots &= in;
        /* every byte allowed; no dot next to another, within this step or
         * across the step before */
        if ((ok & in) != in || (dots & (dots << 1)) || (prev_dot && (dots & 1)))
            return false;
        prev_dot = (dots >> (m - 1)) & 1;
    }
    return !prev_dot; /* no dot last */
}
#else
static bool key_plain(const uint8_t *k, uint64_t n, const uint8_t *end)
{
    (void)k, (void)n, (void)end;
    return false;
}
#endif

static void check_key(parser *p, uint64_t kv_off, gguflint_view k)
{
    gguflint_ctx *ctx = p->ctx;
    if (key_plain(k.ptr, k.len, p->c.base + p->c.len))
        return; /* most keys */
    uint64_t len = wire_string_size(p->w, k.len);
    if (k.len == 0) {
        emit(ctx, R_EMPTY_KEY, kv_off, len, path_of(p),
             "key is empty (llama.cpp asserted on it before July 2026, #24884)");
        return;
    }
    bool bad = false;
    if (k.len > 65535) {
        emit(ctx, R_KEY_TOO_LONG, kv_off, len, path_of(p),
             "key is %llu bytes long; the spec allows at most 65535", (unsigned long long)k.len);
        bad = true;
    }
    if (!utf8_valid(k.ptr, k.len)) {
        emit(ctx, R_KEY_INVALID_UTF8, kv_off, len, path_of(p), "key is not valid UTF-8");
        bad = true;
    }
    const uint8_t *ctl = NULL;
    bool upper_or_other = false;
    uint64_t seg_len = 0, seg_no = 0;
    bool empty_seg = false;
    for (uint64_t i = 0; i < k.len; i++) {
        uint8_t c = k.ptr[i];
        if (c < 0x20 || c == 0x7F) {
            if (!ctl)
                ctl = k.ptr + i;
        } else if (c == '.') {
            if (seg_len == 0)
                empty_seg = true;
            seg_len = 0;
            seg_no++;
            continue;
        } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                     (c == '-' && seg_no == 0))) {
            upper_or_other = true;
        }
        seg_len++;
    }
    if (seg_len == 0)
        empty_seg = true;
    if (ctl) {
        emit(ctx, R_KEY_CONTROL_BYTES, kv_off, len, path_of(p),
             "key contains %s byte 0x%02x at index %llu", *ctl == 0 ? "a NUL" : "a control", *ctl,
             (unsigned long long)(ctl - k.ptr));
        bad = true;
    }
    if (!bad && (upper_or_other || empty_seg))
        emit(ctx, R_KEY_NOT_SNAKE_CASE, kv_off, len, path_of(p),
             "key is not dotted lower_snake_case ASCII (segments of [a-z0-9_], '-' allowed "
             "in the architecture prefix)");
}

/* ---- values ---- */

static bool is_key(gguflint_view k, const char *s)
{
    size_t n = strlen(s);
    return k.len == n && memcmp(k.ptr, s, n) == 0;
}

static void check_bools(parser *p, const uint8_t *b, uint64_t n, uint64_t at)
{
    for (uint64_t i = 0; i < n; i++) {
        if (b[i] > 1) {
            emit(p->ctx, R_BOOL_NOT_0_1, at + i, 1, path_of(p),
                 "bool value is 0x%02x (only 0 and 1 are valid; ggml reads any non-zero as true)",
                 b[i]);
            return; /* one per value */
        }
    }
}

static void check_string_utf8(parser *p, gguflint_view s, uint64_t len_off, uint64_t index,
                              bool in_array)
{
    if (utf8_valid(s.ptr, s.len))
        return;
    if (in_array)
        emit(p->ctx, R_STRING_INVALID_UTF8, len_off, wire_string_size(p->w, s.len), path_of(p),
             "array element %llu is not valid UTF-8", (unsigned long long)index);
    else
        emit(p->ctx, R_STRING_INVALID_UTF8, len_off, wire_string_size(p->w, s.len), path_of(p),
             "string value is not valid UTF-8");
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* GG121 for array element `index` whose length field is at `at`. */
static void report_invalid(parser *p, const uint8_t *at, uint64_t n, uint64_t index)
{
    emit(p->ctx, R_STRING_INVALID_UTF8, (uint64_t)(at - p->c.base), wire_string_size(8, n),
         path_of(p), "array element %llu is not valid UTF-8", (unsigned long long)index);
}

/* A run of strings of one array, each shorter than SHORT_STRING: their
 * length fields, little-endian u64 values below 0x80, are eight ASCII bytes,
 * and an ASCII byte is a whole character. So the bytes from the run's first
 * string to the end of its last are valid UTF-8 exactly when each string is
 * (no sequence can straddle a length field, and one cut by the end of a
 * string meets an ASCII byte and fails): one vector pass over the run, in
 * place. Only when it fails are its strings checked one by one. `first` is
 * the length field of the run's first string, `stop` the end of its last. */
#define SHORT_STRING 0x80u
_Static_assert(TOKEN_NH_MAX < SHORT_STRING, "the token loops take only short strings");

static void check_run(parser *p, const uint8_t *first, uint64_t first_index, const uint8_t *stop,
                      const uint8_t *limit, bool *esc)
{
    bool e = false;
    if (first == stop)
        return;
    bool ok = utf8_valid_region_esc(first + 8, (uint64_t)(stop - first - 8), limit, &e);
    *esc |= e;
    if (ok)
        return;
    uint64_t index = first_index;
    for (const uint8_t *q = first; q < stop; index++) {
        uint64_t n = cur_le64_unchecked(q); /* re-reading strings the loop has already bounded */
        const uint8_t *sp = q + 8;
        if (!utf8_valid(sp, n))
            report_invalid(p, q, n, index);
        q = sp + n;
    }
}
#endif

typedef struct frame {
    uint32_t et;
    uint64_t left;
    uint64_t index; /* next element index (for messages) */
} frame;

/* Read an array header (element type, count) at the cursor and validate it.
 * Returns false (stop) when the element type is unknown or the count cannot fit. */
static bool array_header(parser *p, uint32_t *et, uint64_t *count, uint64_t *et_off)
{
    gguflint_ctx *ctx = p->ctx;
    uint64_t v;
    *et_off = p->c.off;
    if (!read_uint(p, 4, &v, "an array element type"))
        return false;
    *et = (uint32_t)v;
    uint64_t cnt_off = p->c.off;
    if (!read_uint(p, p->w, count, "an array count"))
        return false;
    if (*et >= VT_COUNT) {
        emit(ctx, R_UNKNOWN_ARRAY_TYPE, *et_off, 4, path_of(p),
             "array element type %u is not a GGUF value type (0..12)", *et);
        p->stop = true;
        return false;
    }
    uint64_t min = wire_elem_min(p->w, *et);
    uint64_t rem = file_remaining(p);
    if (*count > rem / min) {
        p->stop = true;
        /* past the input, but not past what a file can hold: a cut input */
        uint64_t bytes, need = UINT64_MAX;
        if (!ckd_mul64(&bytes, *count, min))
            need = end_of(p->c.off, bytes);
        if (need != UINT64_MAX &&
            input_cut(ctx, cnt_off, need, path_of(p), "an array's elements")) {
            if (*count > ctx->opt.limits.max_array_count)
                emit(ctx, R_ARRAY_COUNT_LIMIT, cnt_off, p->w, path_of(p),
                     "array of %llu elements is over the limit of %llu", (unsigned long long)*count,
                     (unsigned long long)ctx->opt.limits.max_array_count);
            return false;
        }
        emit(ctx, R_ARRAY_COUNT_IMPOSSIBLE, cnt_off, p->w, path_of(p),
             "array of %llu %s elements cannot fit: %llu bytes remain, an element takes at "
             "least %llu",
             (unsigned long long)*count, vt_name(*et), (unsigned long long)rem,
             (unsigned long long)min);
        return false;
    }
    if (*count > ctx->opt.limits.max_array_count)
        emit(ctx, R_ARRAY_COUNT_LIMIT, cnt_off, p->w, path_of(p),
             "array of %llu elements is over the limit of %llu", (unsigned long long)*count,
             (unsigned long long)ctx->opt.limits.max_array_count);
    return true;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The first tokenizer.ggml.tokens KV, when it is the array being read (an
 * array of strings at depth 1): start its record (parse/tokens.h), or NULL.
 * Only an array whose tokens can all be in memory is recorded. */
static tok_index *start_tokens(parser *p, uint64_t count)
{
    gguflint_ctx *ctx = p->ctx;
    size_t kv = ctx->n_kvs - 1; /* the KV being read is stored already */
    if (!p->tokens_kv || p->tokens_kv - 1 != kv || count > cur_remaining(&p->c) / 8)
        return NULL;
    bool dups = ctx->opt.severity[R_TOK_DUPLICATE] != GGUFLINT_OFF;
    if (!tok_begin(ctx, kv, ctx->data + ctx->kvs[kv].value_offset, count, dups)) {
        nomem(p);
        return NULL;
    }
    return ctx->tokens;
}

/* The common case (v2/v3, little-endian) of a string array with raw
 * pointers, from the cursor: p->c.off is written back on exit. Short strings
 * are only stepped over here and validated a run at a time (check_run); a
 * long one ends the run and is validated on its own. With `ti` (the tokens
 * array) each token is also recorded: the inner loop hashes tokens of up to
 * 32 bytes and takes an empty slot itself; any other token (empty, longer, a
 * slot with its tag: a duplicate or a rare accident) leaves the inner loop,
 * and the outer loop records it with tok_add_slow. Returns how many of the
 * frame's strings are left for the generic loop (0 when all were read).
 * Always inlined, so it is specialised with and without `ti`. */
static inline __attribute__((always_inline)) uint64_t walk_strings(parser *p, const frame *f,
                                                                   unsigned depth, tok_index *ti)
{
    gguflint_ctx *ctx = p->ctx;
    const uint64_t max_len = ctx->opt.limits.max_string_len;
    uint64_t left = f->left;
    const uint8_t *q = cur_ptr(&p->c), *end = p->c.base + p->c.len;
    const uint8_t *run = q;
    uint64_t run_index = f->index;
    bool esc = false, e;
    bool dropping = false; /* a long array: its pages go back as it is read */
    /* the tokens record's hot state (written back around tok_add_slow).
     * Offsets are 32-bit, so the inner loop stays within 4 GiB of the base;
     * past that tok_add_slow stops the record. */
    const uint8_t *const tbase = ti ? ti->base : NULL;
    uint64_t tn = ti ? ti->n : 0;
    const uint8_t *rec_lim = end;
    if (ti && (uint64_t)(end - tbase) > UINT32_MAX)
        rec_lim = tbase + UINT32_MAX;
#if defined(__SSE2__)
    /* the vector walks as fp_level allows: 0 (fp_force_level, for tests)
     * sends every token through tok_add_slow, the reference they agree with */
    const int level = ti ? fp_level() : 0;
    const bool inline_tokens = ti && ti->slots != NULL && level > 0;
    const bool tok_avx2 = inline_tokens && level > 1 && tok_have_avx2();
#else
    const bool inline_tokens = false;
#endif
    while (left > 0) {
        /* below `lim` a whole short string fits before `end` (no bounds
         * test; 64 bytes readable after each string's start for the hash)
         * and the run stays under RUN_BYTES */
        const uint8_t *lim = q;
        if (end - q >= (ptrdiff_t)(8 + SHORT_STRING)) {
            lim = end - (8 + SHORT_STRING - 1);
            if (end - run > (ptrdiff_t)RUN_BYTES && run + RUN_BYTES < lim)
                lim = run + RUN_BYTES;
            if (ti && rec_lim < lim)
                lim = q < rec_lim ? rec_lim : q;
            if (ti && !inline_tokens)
                lim = q; /* every token through tok_add_slow */
        }
#if defined(__SSE2__)
        if (ti && q < lim) {
            tok_walk w = tok_avx2 ? tok_walk_avx2(ti, (tok_walk){q, left, tn}, lim)
                                  : tok_walk_sse2(ti, (tok_walk){q, left, tn}, lim);
            q = w.q, left = w.left, tn = w.tn;
        }
#endif
        while (!ti && left > 0 && q < lim) {
            uint64_t n = cur_le64_unchecked(q);
            if (n >= SHORT_STRING)
                break;
            q += 8 + n;
            left--;
        }
        if (left > 0 && end - run > (ptrdiff_t)RUN_BYTES && q >= run + RUN_BYTES) {
            /* a full run: validate it and give its pages back (the page
             * it starts in too, after the first run: that page's start is
             * the run before; the first run's holds the KV's key, which
             * checks read again) */
            check_run(p, run, run_index, q, end, &esc);
            if (dropping)
                source_drop_behind(ctx, (uint64_t)(run - p->c.base), (uint64_t)(q - p->c.base));
            else
                source_drop(ctx, (uint64_t)(run - p->c.base), (uint64_t)(q - p->c.base));
            dropping = true;
            run = q;
            run_index = f->index + (f->left - left);
            continue;
        }
        if (left == 0 || end - q < 8)
            break;
        uint64_t n = cur_le64_unchecked(q); /* end - q >= 8 */
        if (n > (uint64_t)(end - q - 8) || n > max_len)
            break; /* the generic loop reports it */
        if (n >= SHORT_STRING) {
            uint64_t at = f->index + (f->left - left);
            check_run(p, run, run_index, q, end, &esc);
            if (!utf8_valid_region_esc(q + 8, n, end, &e))
                report_invalid(p, q, n, at);
            esc |= e;
            run = q + 8 + n;
            run_index = at + 1;
        }
        if (ti) {
            ti->n = tn;
            if (!tok_add_slow(ti, q, end))
                goto stop_recording;
            tn = ti->n;
        }
        q += 8 + n;
        left--;
    }
    if (ti)
        ti->n = tn;
    check_run(p, run, run_index, q, end, &esc);
    if (dropping)
        source_drop_behind(ctx, (uint64_t)(run - p->c.base), (uint64_t)(q - p->c.base));
    /* every string of the KV's own array was read here */
    if (depth == 1 && left == 0 && ctx->status == GGUFLINT_OK)
        ctx->kv_flags[ctx->n_kvs - 1] |= KVF_STR_SCANNED | (esc ? KVF_ESC : 0);
    cur_seek_ptr_unchecked(&p->c, q); /* q only moved over bounded strings */
    return left;
stop_recording:
    /* the record cannot go on (memory, or past 4 GiB): finish the array
     * without it; check_vocab then reads the tokens itself */
    if (ti->nomem)
        ctx->status = GGUFLINT_E_NOMEM;
    ti->n = 0;
    check_run(p, run, run_index, q, end, &esc);
    cur_seek_ptr_unchecked(&p->c, q);
    return left;
}
#endif

/* Walk an array value whose header is at the cursor, iteratively. */
static bool parse_array(parser *p, gguflint_kv *kv)
{
    gguflint_ctx *ctx = p->ctx;
    frame st[HARD_MAX_DEPTH];
    unsigned max_depth = ctx->opt.limits.max_depth;
    if (max_depth == 0)
        max_depth = 1;
    if (max_depth > HARD_MAX_DEPTH)
        max_depth = HARD_MAX_DEPTH;
    uint32_t et;
    uint64_t count, et_off;
    if (!array_header(p, &et, &count, &et_off))
        return false;
    kv->elem_type = et;
    kv->count = count;
    if (et == VT_ARRAY)
        emit(ctx, R_NESTED_ARRAY, et_off, 4, path_of(p),
             "array of arrays: the spec allows it, ggml and llama.cpp reject it");
    unsigned depth = 1;
    st[0] = (frame){et, count, 0};
    while (depth > 0 && !p->stop) {
        frame *f = &st[depth - 1];
        if (f->left == 0) {
            depth--;
            continue;
        }
        if (f->et == VT_STRING) {
            /* hot loop: vocabularies hold hundreds of thousands of strings */
            const uint64_t max_len = ctx->opt.limits.max_string_len;
            uint64_t left = f->left, index = f->index;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (!p->c.big_endian && p->w == 8 && max_len >= SHORT_STRING) {
                tok_index *ti = depth == 1 ? start_tokens(p, f->left) : NULL;
                if (ti)
                    left = walk_strings(p, f, depth, ti);
                else
                    left = walk_strings(p, f, depth, NULL);
                index = f->index + (f->left - left);
                if (ti)
                    tok_end(ctx, left == 0 && ti->n == f->left);
                if (ctx->status != GGUFLINT_OK) {
                    p->stop = true;
                    return false;
                }
            }
#endif
            while (left > 0) {
                uint64_t len_off = p->c.off, n;
                if (!cur_uint(&p->c, p->w, &n)) {
                    truncated(p, len_off, p->w, "a string array element length");
                    return false;
                }
                if (!cur_has(&p->c, n)) {
                    string_cut(p, len_off, n, "a string array element", true, index);
                    return false;
                }
                const uint8_t *sp = cur_ptr(&p->c);
                cur_skip_unchecked(&p->c, n); /* cur_has(n) above */
                if (n > max_len)
                    string_over_limit(p, len_off, n, NULL, true, index);
                if (!utf8_valid(sp, n))
                    emit(ctx, R_STRING_INVALID_UTF8, len_off, wire_string_size(p->w, n), path_of(p),
                         "array element %llu is not valid UTF-8", (unsigned long long)index);
                left--;
                index++;
            }
            f->left = 0;
            f->index = index;
            if (ctx->status != GGUFLINT_OK)
                p->stop = true;
            continue;
        }
        if (f->et == VT_ARRAY) {
            if (depth >= max_depth) {
                emit(ctx, R_ARRAY_TOO_DEEP, p->c.off, 4, path_of(p),
                     "arrays nested deeper than the limit of %u levels", max_depth);
                p->stop = true;
                return false;
            }
            f->left--;
            f->index++;
            uint32_t iet;
            uint64_t icount, iet_off;
            if (!array_header(p, &iet, &icount, &iet_off))
                return false;
            st[depth++] = (frame){iet, icount, 0};
            continue;
        }
        /* fixed-size elements: one bounds check for the whole run */
        uint64_t sz = vt_size(f->et), total;
        if (ckd_mul64(&total, sz, f->left) || !cur_has(&p->c, total)) {
            truncated(p, p->c.off, total, "a fixed-size array");
            return false;
        }
        if (f->et == VT_BOOL)
            check_bools(p, cur_ptr(&p->c), total, p->c.off);
        cur_skip_unchecked(&p->c, total); /* cur_has(total) above */
        f->left = 0;
    }
    return !p->stop;
}

static bool parse_value(parser *p, gguflint_kv *kv)
{
    uint32_t t = kv->type;
    if (t == VT_STRING) {
        uint64_t len_off;
        if (!read_string(p, &kv->str, &len_off, "string value"))
            return false;
        check_string_utf8(p, kv->str, len_off, 0, false);
        return true;
    }
    if (t == VT_ARRAY)
        return parse_array(p, kv);
    unsigned n = vt_size(t);
    uint64_t at = p->c.off, raw;
    if (!read_uint(p, n, &raw, "a scalar value"))
        return false;
    kv->u = raw;
    switch (t) {
    case VT_INT8: kv->i = (int8_t)(uint8_t)raw; break;
    case VT_INT16: kv->i = (int16_t)(uint16_t)raw; break;
    case VT_INT32: kv->i = (int32_t)(uint32_t)raw; break;
    case VT_INT64: kv->i = (int64_t)raw; break;
    case VT_FLOAT32: {
        uint32_t b = (uint32_t)raw;
        float f;
        memcpy(&f, &b, 4);
        kv->f = (double)f;
        break;
    }
    case VT_FLOAT64: memcpy(&kv->f, &raw, 8); break;
    case VT_BOOL: check_bools(p, p->c.base + at, 1, at); break;
    default: kv->i = (int64_t)raw; break;
    }
    return true;
}

static void check_alignment(parser *p, const gguflint_kv *kv, uint64_t type_off)
{
    gguflint_ctx *ctx = p->ctx;
    if (kv->type != VT_UINT32) {
        emit(ctx, R_ALIGNMENT_WRONG_TYPE, type_off, 4, path_of(p),
             "general.alignment is of type %s, readers require u32 (ggml aborted on it before "
             "August 2026); the default 32 is assumed",
             vt_name(kv->type));
        return;
    }
    uint64_t a = kv->u, at = kv->value_offset;
    if (a == 0) {
        emit(ctx, R_ALIGNMENT_ZERO, at, 4, path_of(p),
             "general.alignment is 0 (division by zero in older readers); the default 32 is "
             "assumed");
        return;
    }
    if (!is_pow2_u64(a))
        emit(ctx, R_ALIGNMENT_NOT_POW2, at, 4, path_of(p),
             "general.alignment %llu is not a power of two (ggml requires one)",
             (unsigned long long)a);
    if (a % 8 != 0)
        emit(ctx, R_ALIGNMENT_NOT_MULT8, at, 4, path_of(p),
             "general.alignment %llu is not a multiple of 8 as the spec requires",
             (unsigned long long)a);
    if (a > ALIGNMENT_MAX && ctx->hdr.tensor_count > 0)
        emit(ctx, R_ALIGNMENT_TOO_LARGE, at, 4, path_of(p),
             "general.alignment %llu is over 1 MiB (multi-GiB padding, seek wrap on 32-bit)",
             (unsigned long long)a);
    else if (a > ALIGNMENT_MAX)
        emit(ctx, R_ALIGNMENT_HUGE_NO_TENSORS, at, 4, path_of(p),
             "general.alignment %llu is over 1 MiB in a file without tensors (older readers and "
             "gguf-py seek to the padded data start; bytes after the metadata are not taken as "
             "padding)",
             (unsigned long long)a);
    ctx->hdr.alignment = a;
}

static void parse_kvs(parser *p)
{
    gguflint_ctx *ctx = p->ctx;
    bool have_alignment = false;
    for (uint64_t i = 0; i < ctx->hdr.kv_count && !p->stop; i++) {
        gguflint_kv kv;
        memset(&kv, 0, sizeof kv);
        kv.offset = p->c.off;
        set_kv_path(p, i);
        uint64_t len_off;
        if (!read_string(p, &kv.key, &len_off, "a key"))
            return;
        set_kv_key_path(p, kv.key);
        check_key(p, kv.offset, kv.key);
        uint64_t type_off = p->c.off, t;
        if (!read_uint(p, 4, &t, "a value type"))
            return;
        kv.type = (uint32_t)t;
        if (!grow((void **)&ctx->kvs, &ctx->cap_kvs, ctx->n_kvs, sizeof *ctx->kvs) ||
            !grow((void **)&ctx->kv_flags, &ctx->cap_kv_flags, ctx->n_kvs, 1)) {
            nomem(p);
            return;
        }
        ctx->kv_flags[ctx->n_kvs] = 0;
        long prev = viewset_insert(&p->keys, kv_key_of, ctx, kv.key, ctx->n_kvs);
        if (prev == -2) {
            nomem(p);
            return;
        }
        if (prev >= 0)
            emit(ctx, R_DUPLICATE_KEY, kv.offset, wire_string_size(p->w, kv.key.len), path_of(p),
                 "key repeats kv[%ld] at 0x%llx (ggml rejects duplicate keys)", prev,
                 (unsigned long long)ctx->kvs[prev].offset);
        if (kv.type >= VT_COUNT) {
            emit(ctx, R_UNKNOWN_VALUE_TYPE, type_off, 4, path_of(p),
                 "value type %u is not a GGUF value type (0..12); the rest of the file "
                 "cannot be read",
                 kv.type);
            p->stop = true;
            p->keys_dangling |= prev < 0; /* the set names a KV that is not stored */
            return;
        }
        kv.value_offset = p->c.off;
        /* the checks read the first tokens KV: only that one is recorded */
        if (!p->tokens_kv && is_key(kv.key, "tokenizer.ggml.tokens"))
            p->tokens_kv = ctx->n_kvs + 1;
        /* store the key first so the duplicate set's views stay valid */
        ctx->kvs[ctx->n_kvs] = kv;
        ctx->n_kvs++;
        bool ok = parse_value(p, &kv);
        kv.value_size = p->c.off - kv.value_offset;
        if (!ok) {
            ctx->n_kvs--;
            p->keys_dangling |= prev < 0;
            return;
        }
        ctx->kvs[ctx->n_kvs - 1] = kv;
        ctx->hdr.kv_parsed++;
        if (prev < 0 && !have_alignment && is_key(kv.key, "general.alignment")) {
            have_alignment = true;
            check_alignment(p, &kv, type_off);
        }
    }
}

/* ---- tensor infos ---- */

/* The name as shown in messages (escaped), made only for a finding. */
static const char *shown_name(char *buf, size_t cap, gguflint_view n)
{
    esc_fixed(buf, cap, n.ptr, n.len, 100);
    return buf;
}

/* Name rules; returns the name's first NUL (or NULL), which the caller needs
 * too. Most names are short ASCII with no finding: one memchr, one ASCII test. */
static const uint8_t *check_tensor_name(parser *p, uint64_t at, gguflint_view n)
{
    gguflint_ctx *ctx = p->ctx;
    uint64_t len = wire_string_size(p->w, n.len);
    if (n.len == 0) {
        emit(ctx, R_TENSOR_NAME_EMPTY, at, len, path_of(p), "tensor name is empty");
        return NULL;
    }
    char shown[160];
    if (n.len >= 64)
        emit(ctx, R_TENSOR_NAME_TOO_LONG, at, len, path_of(p),
             "tensor name '%s' is %llu bytes; ggml allows at most 63",
             shown_name(shown, sizeof shown, n), (unsigned long long)n.len);
    if (n.len > 64)
        emit(ctx, R_TENSOR_NAME_OVER_SPEC, at, len, path_of(p),
             "tensor name '%s' is %llu bytes; the spec allows at most 64",
             shown_name(shown, sizeof shown, n), (unsigned long long)n.len);
    if (!utf8_valid(n.ptr, n.len))
        emit(ctx, R_TENSOR_NAME_UTF8, at, len, path_of(p), "tensor name '%s' is not valid UTF-8",
             shown_name(shown, sizeof shown, n));
    const uint8_t *nul = memchr(n.ptr, 0, (size_t)n.len);
    if (nul) {
        char head[160];
        esc_fixed(head, sizeof head, n.ptr, (uint64_t)(nul - n.ptr), 100);
        emit(ctx, R_TENSOR_NAME_NUL, at, len, path_of(p),
             "tensor name '%s' contains a NUL at index %llu: C readers see only '%s'",
             shown_name(shown, sizeof shown, n), (unsigned long long)(nul - n.ptr), head);
    }
    return nul;
}

/* Compute the element count and byte size of t, reporting overflow and type
 * problems. Sets t->size_ok when the byte size is known. */
static void tensor_size(parser *p, gguflint_tensor *t, uint64_t at, uint64_t ne0_off,
                        uint64_t type_off, bool dims_ok)
{
    gguflint_ctx *ctx = p->ctx;
    const ggml_type_info *ti = gt_info(t->type);
    if (ti->status == GT_UNKNOWN) {
        emit(ctx, R_UNKNOWN_GGML_TYPE, type_off, 4, path_of(p),
             "ggml type %u is not a known type (valid ids are 0..42)", t->type);
    } else if (ti->status == GT_REMOVED) {
        emit(ctx, R_REMOVED_GGML_TYPE, type_off, 4, path_of(p),
             "ggml type %u (%s) was removed from ggml; no current reader loads it", t->type,
             ti->name);
    }
    if (!dims_ok)
        return;
    bool zero = false;
    int64_t ne = 1;
    bool overflow = false;
    for (unsigned j = 0; j < 4; j++) {
        if (t->ne[j] == 0)
            zero = true;
        else if (!overflow && ckd_muls64(&ne, ne, (int64_t)t->ne[j]))
            overflow = true;
    }
    if (zero)
        ne = 0;
    else if (overflow) {
        /* ggml (2026-08) computes the count with int64 wrap-around and
         * runs its overflow check only when that count is positive: a count
         * that wraps to zero or below is accepted (GG515), the rest rejected
         * (GG210). */
        uint64_t wrapped = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
        if ((int64_t)wrapped <= 0)
            emit(ctx, R_ELEMENT_COUNT_WRAPS, at, 0, path_of(p),
                 "element count %llu x %llu x %llu x %llu overflows int64 and wraps to %lld: "
                 "ggml skips its overflow check for a count <= 0 and accepts the tensor with a "
                 "wrapped size",
                 (unsigned long long)t->ne[0], (unsigned long long)t->ne[1],
                 (unsigned long long)t->ne[2], (unsigned long long)t->ne[3],
                 (long long)(int64_t)wrapped);
        else
            emit(ctx, R_ELEMENT_COUNT_OVERFLOW, at, 0, path_of(p),
                 "element count %llu x %llu x %llu x %llu overflows int64",
                 (unsigned long long)t->ne[0], (unsigned long long)t->ne[1],
                 (unsigned long long)t->ne[2], (unsigned long long)t->ne[3]);
        return;
    }
    if (ti->status != GT_VALID)
        return;
    if (t->ne[0] % ti->block != 0) {
        emit(ctx, R_ROW_NOT_BLOCK_MULTIPLE, ne0_off, p->w, path_of(p),
             "ne[0] = %llu is not a multiple of the %s block size %u", (unsigned long long)t->ne[0],
             ti->name, ti->block);
        return;
    }
    uint64_t rows = 1, row_bytes, nb;
    for (unsigned j = 1; j < 4; j++)
        rows *= t->ne[j]; /* cannot overflow: the signed product above did not */
    if (zero) {
        t->nbytes = 0;
        t->size_ok = true;
        return;
    }
    uint64_t row_product;
    if (ckd_mul64(&row_product, t->ne[0], ti->size)) {
        /* ggml_row_size multiplies before it divides by the block size */
        emit(ctx, R_BYTE_SIZE_OVERFLOW, at, 0, path_of(p),
             "row size ne[0] x %u = %llu x %u overflows 64 bits (readers compute it before "
             "dividing by the block size)",
             ti->size, (unsigned long long)t->ne[0], ti->size);
        return;
    }
    if (ckd_mul64(&row_bytes, t->ne[0] / ti->block, ti->size) || ckd_mul64(&nb, row_bytes, rows) ||
        nb > (uint64_t)INT64_MAX) {
        emit(ctx, R_BYTE_SIZE_OVERFLOW, at, 0, path_of(p),
             "byte size of %llu elements of %s is over INT64_MAX (or overflows 64 bits)",
             (unsigned long long)ne, ti->name);
        return;
    }
    t->nbytes = nb;
    t->size_ok = true;
}

static void parse_tensors(parser *p)
{
    gguflint_ctx *ctx = p->ctx;
    for (uint64_t i = 0; i < ctx->hdr.tensor_count && !p->stop; i++) {
        gguflint_tensor t;
        memset(&t, 0, sizeof t);
        t.info_offset = p->c.off;
        set_tensor_path(p, i, ".name", 0);
        uint64_t len_off;
        if (!read_string(p, &t.name, &len_off, "a tensor name"))
            return;
        const uint8_t *nul = check_tensor_name(p, t.info_offset, t.name);
        if (!grow((void **)&ctx->tensors, &ctx->cap_tensors, ctx->n_tensors,
                  sizeof *ctx->tensors)) {
            nomem(p);
            return;
        }
        /* C readers copy the name up to its first NUL: compare what they see */
        gguflint_view seen = {t.name.ptr, nul ? (uint64_t)(nul - t.name.ptr) : t.name.len};
        long prev = viewset_insert(&p->names, tensor_name_of, ctx, seen, ctx->n_tensors);
        if (prev == -2) {
            nomem(p);
            return;
        }
        if (prev >= 0) {
            char shown[160];
            esc_fixed(shown, sizeof shown, t.name.ptr, t.name.len, 100);
            emit(ctx, R_DUPLICATE_TENSOR, t.info_offset, wire_string_size(p->w, t.name.len),
                 path_of(p), "tensor name '%s' repeats tensor[%ld] at 0x%llx%s", shown, prev,
                 (unsigned long long)ctx->tensors[prev].info_offset,
                 nul || memchr(ctx->tensors[prev].name.ptr, 0, (size_t)ctx->tensors[prev].name.len)
                     ? " as C readers see it (up to the first NUL)"
                     : "");
        }
        ctx->tensors[ctx->n_tensors++] = t; /* name must be in place for the set */
        set_tensor_path(p, i, ".n_dims", 0);
        uint64_t nd_off = p->c.off, nd;
        if (!read_uint(p, 4, &nd, "a tensor's n_dims"))
            goto lost;
        t.n_dims = (uint32_t)nd;
        bool dims_ok = true;
        if (nd == 0)
            emit(ctx, R_N_DIMS_ZERO, nd_off, 4, path_of(p),
                 "n_dims is 0: a scalar, accepted by ggml, unusual in models");
        if (nd > 4) {
            emit(ctx, R_N_DIMS_TOO_LARGE, nd_off, 4, path_of(p),
                 "n_dims %llu is over 4, the most ggml supports (CVE-2024-21802)",
                 (unsigned long long)nd);
            dims_ok = false;
            uint64_t need;
            if (ckd_mul64(&need, nd, p->w) || !cur_has(&p->c, need)) {
                truncated(p, p->c.off, need, "the dims of a tensor with too many dimensions");
                goto lost;
            }
        }
        for (unsigned j = 0; j < 4; j++)
            t.ne[j] = 1;
        uint64_t ne0_off = p->c.off;
        for (uint64_t j = 0; j < nd; j++) {
            uint64_t d_off = p->c.off, d;
            set_tensor_path(p, i, ".ne", j);
            if (!read_uint(p, p->w, &d, "a tensor dimension"))
                goto lost;
            if (j < 4)
                t.ne[j] = d;
            if (d > (uint64_t)INT64_MAX) {
                emit(ctx, R_DIM_NEGATIVE, d_off, p->w, path_of(p),
                     "dimension %llu is %lld as int64 (negative)", (unsigned long long)j,
                     (long long)d);
                dims_ok = false;
            } else if (d == 0 && j < 4) {
                emit(ctx, R_DIM_ZERO, d_off, p->w, path_of(p),
                     "dimension %llu is 0: an empty tensor (ggml crashed on it before August "
                     "2026)",
                     (unsigned long long)j);
            }
        }
        set_tensor_path(p, i, ".type", 0);
        uint64_t type_off = p->c.off, ty;
        if (!read_uint(p, 4, &ty, "a tensor type"))
            goto lost;
        t.type = (uint32_t)ty;
        set_tensor_path(p, i, ".offset", 0);
        if (!read_uint(p, 8, &t.offset, "a tensor offset"))
            goto lost;
        set_tensor_path(p, i, "", 0);
        tensor_size(p, &t, t.info_offset, ne0_off, type_off, dims_ok);
        ctx->tensors[ctx->n_tensors - 1] = t;
        ctx->hdr.tensors_parsed++;
        continue;
    lost:
        ctx->n_tensors--;
        return;
    }
}

int parse_run(gguflint_ctx *ctx)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    cur_init(&p.c, ctx->data, ctx->avail);
    ctx->hdr.file_size = ctx->size;
    ctx->hdr.alignment = 32;
    ctx->hdr.complete = true;
    if (parse_header(&p)) {
        parse_kvs(&p);
        if (!p.stop)
            parse_tensors(&p);
        ctx->hdr.metadata_end = p.c.off;
        ctx->hdr.metadata_complete = !p.stop;
        if (ctx->hdr.complete)
            ctx->hdr.bytes_needed = p.c.off;
        /* an unusable alignment value was reported; layout continues with 32 */
        if (ctx->hdr.alignment == 0)
            ctx->hdr.alignment = 32;
    }
    ctx->probes += p.keys.probes + p.names.probes;
    /* The key set is exactly the checks' key index (first index of every
     * key): hand it over rather than build it again, unless it names a KV
     * whose value could not be read. */
    if (!p.keys_dangling && ctx->status == GGUFLINT_OK) {
        ctx->kv_index = p.keys;
        ctx->kv_index_ready = true;
        p.keys = (viewset){0};
    }
    viewset_free(&p.keys);
    viewset_free(&p.names);
    /* The record arrays grew by doubling: give back what is not used. */
    if (ctx->n_kvs && ctx->n_kvs < ctx->cap_kvs) {
        gguflint_kv *k = gl_realloc(ctx->kvs, ctx->n_kvs * sizeof *k);
        if (k) {
            ctx->kvs = k;
            ctx->cap_kvs = ctx->n_kvs;
        }
    }
    if (ctx->n_tensors && ctx->n_tensors < ctx->cap_tensors) {
        gguflint_tensor *t = gl_realloc(ctx->tensors, ctx->n_tensors * sizeof *t);
        if (t) {
            ctx->tensors = t;
            ctx->cap_tensors = ctx->n_tensors;
        }
    }
    return ctx->status;
}

/* check_vocab.c - the tokenizer (tokenizer.ggml.*): value and element types
 * of its keys, the lengths of the per-token arrays against each other, against
 * [arch].vocab_size and against the rows of the embedding tensors, special
 * token ids (declared and the tokenizer's defaults), and one pass over the
 * tokens: duplicates, empty and over-long tokens, malformed BYTE tokens,
 * unknown token types; plus the precompiled charsmap's size prefix and the
 * keys a BPE tokenizer needs.
 *
 * Cost: vocabularies hold 100k-260k tokens. The parse pass, which steps
 * over every token anyway, records them (parse/tokens.h): the duplicates
 * its keyed index found, the empty and over-long tokens, and every 64th
 * token's offset. Here only token_type (fixed-size i32, 16 checked per SSE2 step)
 * and the few tokens with a finding are read; the tokens array is not read
 * again. Arrays the parse pass did not record (big-endian, v1) are walked
 * once here, with token_type indexed beside it and one open-addressing
 * table of offsets into the input (keyed hash, common/keyhash.h). Scores and
 * merges are never walked (only their headers are read). */
#include "checks/checks.h"
#include "common/alloc.h"
#include "model/arch_tables.h"
#include "checks/vocab_tables.h"

#include "model/model.h"
#include "parse/tokens.h"
#include "input/source.h"

#include "common/cpu.h"
#include "common/keyhash.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#define TK "tokenizer.ggml."

enum { NO_TYPE = 0xFFu };

/* A key with one required type; for arrays the element type, and optionally a
 * second element type current llama.cpp also accepts. */
typedef struct key_type {
    const char *key;
    uint32_t type, elem, alt;
} key_type;

static const key_type typed_keys[] = {
    {TK "model", VT_STRING, NO_TYPE, NO_TYPE},
    {TK "pre", VT_STRING, NO_TYPE, NO_TYPE},
    {TK "tokens", VT_ARRAY, VT_STRING, NO_TYPE},
    /* llama.cpp converts i32 scores since the #24888 fixes */
    {TK "scores", VT_ARRAY, VT_FLOAT32, VT_INT32},
    {TK "token_type", VT_ARRAY, VT_INT32, NO_TYPE},
    {TK "merges", VT_ARRAY, VT_STRING, NO_TYPE},
    {TK "precompiled_charsmap", VT_ARRAY, VT_UINT8, VT_INT8},
    {TK "suppress_tokens", VT_ARRAY, VT_INT32, NO_TYPE},
    {TK "token_type_count", VT_UINT32, NO_TYPE, NO_TYPE},
    {TK "add_bos_token", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "add_eos_token", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "add_sep_token", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "add_space_prefix", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "remove_extra_whitespaces", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "normalizer.lowercase", VT_BOOL, NO_TYPE, NO_TYPE},
    {TK "normalizer.strip_accents", VT_BOOL, NO_TYPE, NO_TYPE},
};

/* Special token id keys (all u32). llama.cpp reads the misspelled
 * "seperator"; the spec's "separator" is checked too. */
static const char *const special_keys[] = {
    TK "bos_token_id",     TK "eos_token_id",       TK "eot_token_id",       TK "eom_token_id",
    TK "unknown_token_id", TK "seperator_token_id", TK "separator_token_id", TK "padding_token_id",
    TK "cls_token_id",     TK "mask_token_id",      TK "fim_pre_token_id",   TK "fim_suf_token_id",
    TK "fim_mid_token_id", TK "fim_pad_token_id",   TK "fim_rep_token_id",   TK "fim_sep_token_id",
    TK "prefix_token_id",  TK "suffix_token_id",    TK "middle_token_id",
};

/* The keys of the special ids a tokenizer assumes when they are absent, in
 * the order of vocab_model.defaults (checks/vocab_tables.h). */
static const char *const default_keys[VD__COUNT] = {
    TK "bos_token_id",       TK "eos_token_id",     TK "unknown_token_id",
    TK "seperator_token_id", TK "padding_token_id", TK "mask_token_id",
};

static const char *type_name(uint32_t t)
{
    const char *n = vt_name(t);
    return n ? n : "?";
}

/* True when kv has the type `kt` describes; reports GG571 otherwise. */
static bool check_type(gguflint_ctx *ctx, const gguflint_kv *kv, const key_type *kt)
{
    char path[192];
    if (kv->type != kt->type) {
        kv_path(path, sizeof path, kv);
        if (kt->type == VT_ARRAY)
            emit(ctx, R_TOK_WRONG_TYPE, kv->value_offset - 4, 4, path,
                 "%s is of type %s, llama.cpp requires an array of %s", kt->key,
                 type_name(kv->type), type_name(kt->elem));
        else
            emit(ctx, R_TOK_WRONG_TYPE, kv->value_offset - 4, 4, path,
                 "%s is of type %s, llama.cpp requires %s (its typed getter throws)", kt->key,
                 type_name(kv->type), type_name(kt->type));
        return false;
    }
    if (kt->type != VT_ARRAY || kv->elem_type == kt->elem ||
        (kt->alt != NO_TYPE && kv->elem_type == kt->alt))
        return true;
    kv_path(path, sizeof path, kv);
    unsigned got = vt_size(kv->elem_type), want = vt_size(kt->elem);
    if (got != want && want != 0 && kv->elem_type != VT_STRING && kv->elem_type != VT_ARRAY)
        emit(ctx, R_TOK_WRONG_TYPE, kv->value_offset, 4, path,
             "%s is an array of %s (%u-byte elements); llama.cpp reads it as %s (%u bytes "
             "each): type confusion and an out-of-bounds read (llama.cpp #24888)",
             kt->key, type_name(kv->elem_type), got, type_name(kt->elem), want);
    else
        emit(ctx, R_TOK_WRONG_TYPE, kv->value_offset, 4, path,
             "%s is an array of %s, llama.cpp requires an array of %s", kt->key,
             type_name(kv->elem_type), type_name(kt->elem));
    return false;
}

static void elem_path(char *buf, size_t cap, const char *key, uint64_t i)
{
    snprintf(buf, cap, "kv[\"%s\"][%llu]", key, (unsigned long long)i);
}

/* ---- the pass over the tokens ---- */

/* The duplicate index of the fallback walk (scan_tokens, for arrays the
 * parse pass did not record): open addressing over tokens, slots of
 * parse/tokens.h (a 32-bit tag of the hash, 0 = empty, and the token index);
 * the offsets of the tokens (from the start of the array value) sit beside
 * the slots in the same allocation, so equal tags can be confirmed with a
 * memcmp. The hash is multilinear under the per-process key
 * (keyhash_ml_hash): a few multiplies per token, and for any two tokens an
 * attacker picks, a collision in the slot bits has probability about 1/cap.
 * Arrays over 4 GiB and vocabularies over DUP_MAX_TOKENS are not indexed. */

static bool is_hex_upper(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* llama.cpp finds byte tokens by the text snprintf("<0x%02X>") produces. */
static bool is_byte_token(const uint8_t *s, uint64_t len)
{
    return len == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && is_hex_upper(s[3]) &&
           is_hex_upper(s[4]) && s[5] == '>';
}

/* The reporters are cold and out of line, so the hot loop keeps its registers. */
#define COLD __attribute__((cold, noinline))

COLD static void report_type(gguflint_ctx *ctx, const gguflint_kv *types, uint64_t i, int64_t t)
{
    char path[96];
    elem_path(path, sizeof path, TK "token_type", i);
    emit(ctx, R_TOK_TYPE_UNKNOWN, wire_array_elem_off(model_width(ctx), types, 4, i), 4, path,
         "token_type %lld of token %llu is not a llama.cpp token type (0 undefined, 1 normal, "
         "2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte)",
         (long long)t, (unsigned long long)i);
}

COLD static void report_byte(gguflint_ctx *ctx, uint64_t i, const uint8_t *s, uint64_t len,
                             uint64_t off)
{
    char path[96], shown[96];
    elem_path(path, sizeof path, TK "tokens", i);
    esc_fixed(shown, sizeof shown, s, len, 40);
    emit(ctx, R_TOK_BYTE_MALFORMED, off, model_width(ctx) + len, path,
         "token %llu has token_type 6 (BYTE) but its text '%s' is not <0xNN> with two "
         "uppercase hex digits (PLaMo-2 indexed a byte table with \"<0x-1>\", llama.cpp "
         "#25969)",
         (unsigned long long)i, shown);
}

/* Empty and over-long tokens; `off` is the offset of the length field. */
COLD static void check_token_slow(gguflint_ctx *ctx, uint64_t i, const uint8_t *s, uint64_t len,
                                  uint64_t off)
{
    unsigned w = model_width(ctx);
    char path[96], shown[96];
    elem_path(path, sizeof path, TK "tokens", i);
    if (len == 0) {
        emit(ctx, R_TOK_EMPTY, off, w, path,
             "token %llu is empty (llama.cpp renames it [EMPTY_%llu]; other readers may not)",
             (unsigned long long)i, (unsigned long long)i);
        return;
    }
    esc_fixed(shown, sizeof shown, s, len, 40);
    if (len > TOKEN_MAX_ERROR)
        emit(ctx, R_TOK_TOO_LONG, off, w + len, path,
             "token %llu '%s' is %llu bytes (over 64 KiB; token lengths near 2^31 overflowed "
             "llama.cpp's token_to_piece, CVE-2025-49847)",
             (unsigned long long)i, shown, (unsigned long long)len);
    else
        emit(ctx, R_TOK_LONG, off, w + len, path,
             "token %llu '%s' is %llu bytes (over 1 KiB; real vocabularies stay below)",
             (unsigned long long)i, shown, (unsigned long long)len);
}

COLD static void report_duplicate(gguflint_ctx *ctx, uint64_t i, const uint8_t *s, uint64_t len,
                                  uint64_t off, uint32_t prev)
{
    char path[96], shown[96];
    elem_path(path, sizeof path, TK "tokens", i);
    esc_fixed(shown, sizeof shown, s, len, 40);
    emit(ctx, R_TOK_DUPLICATE, off, model_width(ctx) + len, path,
         "token %llu '%s' repeats token %lu (llama.cpp refuses or aborts on duplicate tokens)",
         (unsigned long long)i, shown, (unsigned long)prev);
}

/* State of the pass over the tokens. */
typedef struct scan {
    gguflint_ctx *ctx;
    const gguflint_kv *types;
    const cursor *c;       /* over the tokens array value (byte order) */
    unsigned w;            /* width of the length fields */
    uint64_t file_base;    /* file offset of the array value */
    const uint8_t *base;   /* the array value */
    const uint8_t *vend;   /* its end */
    const uint8_t *tybase; /* token_type elements (i32) */
    const uint8_t *p;      /* the next token's length field */
    tok_slot *slots;       /* NULL: no duplicate index */
    uint32_t *offs;        /* offset of token i's length field in the value */
    size_t mask;
    unsigned shift;
    keyhash_ml ml; /* the index's keyed hash */
} scan;

/* Tokens [from, to) of the array; `typed`: token_type covers them. The hot
 * loop of the check: a common token costs a length read, a type read, two
 * compares and one insert into the duplicate index. `le64`: the file is
 * little-endian with 8-byte lengths and so is the host, so every field is one
 * plain load. False when the pass must stop (memory ran out). Always inlined,
 * so each call is specialised on `typed` and `le64`. */
static inline __attribute__((always_inline)) bool scan_range(scan *sc, uint64_t from, uint64_t to,
                                                             bool typed, bool le64)
{
    /* locals: stores into the index must not force reloads of the state */
    gguflint_ctx *const ctx = sc->ctx;
    const cursor *const c = sc->c;
    const unsigned w = sc->w;
    const uint8_t *const base = sc->base, *const vend = sc->vend;
    const uint8_t *const tybase = sc->tybase;
    tok_slot *const slots = sc->slots;
    uint32_t *const offs = sc->offs;
    const size_t mask = sc->mask;
    const unsigned shift = sc->shift;
    const uint8_t *p = sc->p;
    const keyhash_ml *const ml = &sc->ml;
    uint64_t probes = 0;
    for (uint64_t i = from; i < to; i++) {
        if ((size_t)(vend - p) < w)
            return false; /* unreachable: the parser read the whole array */
        uint64_t len;
        if (le64)
            memcpy(&len, p, 8);
        else
            len = cur_read_unchecked(c, p, w);
        const uint8_t *const s = p + w, *const el = p;
        if (len > (uint64_t)(vend - s))
            return false;
        p = s + len;
        if (typed) {
            int64_t type;
            if (le64) {
                int32_t t32;
                memcpy(&t32, tybase + 4 * i, 4);
                type = t32;
            } else {
                type = (int32_t)(uint32_t)cur_read_unchecked(c, tybase + 4 * i, 4);
            }
            if ((uint64_t)type > 5) {
                if (type != 6)
                    report_type(ctx, sc->types, i, type);
                else if (!is_byte_token(s, len))
                    report_byte(ctx, i, s, len, sc->file_base + (uint64_t)(el - base));
                if (ctx->status != GGUFLINT_OK)
                    return false;
            }
        }
        if (len - 1 >= TOKEN_MAX_WARN) {
            check_token_slow(ctx, i, s, len, sc->file_base + (uint64_t)(el - base));
            if (ctx->status != GGUFLINT_OK)
                return false;
        }
        if (!slots || len == 0)
            continue;
        const uint32_t rel = (uint32_t)(el - base);
        offs[i] = rel;
        /* keyed (strongly universal): the slot from the top bits, the tag
         * from the 32 below them (tok_tag) */
        const uint64_t h = keyhash_ml_hash(ml, s, (size_t)len, vend);
        const uint32_t tag = tok_tag(h);
        size_t k = (size_t)(h >> shift);
        for (; slots[k].tag; k = (k + 1) & mask) {
            probes++;
            if (slots[k].tag != tag)
                continue;
            const uint8_t *q = base + offs[slots[k].idx];
            if (cur_read_unchecked(c, q, w) == len && memcmp(q + w, s, (size_t)len) == 0) {
                report_duplicate(ctx, i, s, len, sc->file_base + rel, slots[k].idx);
                if (ctx->status != GGUFLINT_OK)
                    return false;
                break;
            }
        }
        if (!slots[k].tag)
            slots[k] = (tok_slot){tag, (uint32_t)i};
    }
    ctx->probes += probes;
    sc->p = p;
    return true;
}

/* Walk tokens once; token_type (a validated i32 array) is indexed directly
 * beside it, and its elements past the last token are checked after. */
/* The tokens as the parse pass recorded them (parse/tokens.h): the types
 * and BYTE tokens from token_type, then the odd tokens and the duplicates
 * the record holds, each rule's findings in token order as scan_range makes
 * them. Reads token_type and the few tokens that have a finding, never the
 * whole tokens array. */
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static bool types_avx2(void)
{
    return (cpu_features() & CPU_AVX2) != 0;
}

/* From i, the first of 32 little-endian i32 token types (ty[4 i..]) not
 * all in 0..5, or the last whole step: 32 types per step. A type is in
 * 0..5 exactly when its low 16 bits minus 5 (saturated) and its high 16 bits
 * are zero. */
__attribute__((target("avx2"), noinline)) static uint64_t types_ok_avx2(const uint8_t *ty,
                                                                        uint64_t i, uint64_t n)
{
    const __m256i five = _mm256_set1_epi32(5);
    for (; n - i >= 32; i += 32) {
        const __m256i *p = (const __m256i *)(const void *)(ty + 4 * i);
        __m256i a = _mm256_or_si256(_mm256_subs_epu16(_mm256_loadu_si256(p), five),
                                    _mm256_subs_epu16(_mm256_loadu_si256(p + 1), five));
        __m256i b = _mm256_or_si256(_mm256_subs_epu16(_mm256_loadu_si256(p + 2), five),
                                    _mm256_subs_epu16(_mm256_loadu_si256(p + 3), five));
        a = _mm256_or_si256(a, b);
        if (!_mm256_testz_si256(a, a))
            break;
    }
    return i;
}
#else
static bool types_avx2(void)
{
    return false;
}

static uint64_t types_ok_avx2(const uint8_t *ty, uint64_t i, uint64_t n)
{
    (void)ty, (void)n;
    return i;
}
#endif

static void report_recorded(gguflint_ctx *ctx, const tok_index *t, const gguflint_kv *tokens,
                            const gguflint_kv *types)
{
    const uint64_t n = tokens->count, file_base = tokens->value_offset;
    const unsigned w = model_width(ctx);
    const uint64_t n_typed = types ? (types->count < n ? types->count : n) : 0;
    const uint8_t *ty = types ? ctx->data + wire_array_elems_off(w, types) : NULL;
    tok_pos pos = tok_pos_start(t);
    for (uint64_t i = 0; i < n_typed; i++) {
#if defined(__SSE2__)
        if (types_avx2())
            i = types_ok_avx2(ty, i, n_typed);
        /* 16 types per step while they are all 0..5 (normal, control, ...) */
        const __m128i bias = _mm_set1_epi32(INT32_MIN), five = _mm_set1_epi32(INT32_MIN + 5);
        while (n_typed - i >= 16) {
            __m128i any = _mm_setzero_si128();
            for (unsigned k = 0; k < 4; k++)
                any = _mm_or_si128(
                    any, _mm_cmpgt_epi32(
                             _mm_xor_si128(_mm_loadu_si128((
                                               const __m128i *)(const void *)(ty + 4 * i + 16 * k)),
                                           bias),
                             five));
            if (_mm_movemask_epi8(any))
                break;
            i += 16;
        }
        if (i >= n_typed)
            break;
#endif
        int32_t type;
        memcpy(&type, ty + 4 * i, 4); /* recorded arrays are little-endian */
        if ((uint32_t)type <= 5)
            continue;
        if (type != 6) {
            report_type(ctx, types, i, type);
        } else {
            tok_seek(t, &pos, i);
            const uint8_t *el = t->base + pos.off;
            uint64_t len;
            memcpy(&len, el, 8);
            if (!is_byte_token(el + 8, len))
                report_byte(ctx, i, el + 8, len, file_base + pos.off);
        }
        if (ctx->status != GGUFLINT_OK)
            return;
    }
    pos = tok_pos_start(t);
    for (size_t k = 0; k < t->n_odd && ctx->status == GGUFLINT_OK; k++) {
        uint32_t i = t->odd[k];
        tok_seek(t, &pos, i);
        const uint8_t *el = t->base + pos.off;
        uint64_t len;
        memcpy(&len, el, 8);
        check_token_slow(ctx, i, el + 8, len, file_base + pos.off);
    }
    pos = tok_pos_start(t);
    for (size_t k = 0; k < t->n_dups && ctx->status == GGUFLINT_OK; k++) {
        uint32_t i = t->dups[k].i;
        tok_seek(t, &pos, i);
        const uint8_t *el = t->base + pos.off;
        uint64_t len;
        memcpy(&len, el, 8);
        report_duplicate(ctx, i, el + 8, len, file_base + pos.off,
                         (uint32_t)tok_index_at(t, t->dups[k].prev_off));
    }
    for (uint64_t i = n_typed; types && i < types->count && ctx->status == GGUFLINT_OK; i++) {
        int32_t type;
        memcpy(&type, ty + 4 * i, 4);
        if ((uint64_t)(int64_t)type > 6)
            report_type(ctx, types, i, type);
    }
}

__attribute__((noinline)) static void scan_tokens(gguflint_ctx *ctx, const gguflint_kv *tokens,
                                                  const gguflint_kv *types)
{
    const tok_index *t = ctx->tokens;
    if (t && t->complete && t->kv < ctx->n_kvs && &ctx->kvs[t->kv] == tokens &&
        t->n == tokens->count) {
        report_recorded(ctx, t, tokens, types);
        /* token_type was read once, in order: give its pages back, as the
         * parse pass gave back the tokens' (1 MB of a 256k vocabulary) */
        if (types)
            source_drop(ctx, wire_array_elems_off(model_width(ctx), types),
                        wire_array_elems_off(model_width(ctx), types) + 4 * types->count);
        return;
    }
    arr_iter it;
    if (!arr_iter_init(ctx, tokens, &it))
        return;
    const uint64_t n = tokens->count;
    scan sc = {
        .ctx = ctx,
        .types = types,
        .c = &it.c,
        .w = it.w,
        .file_base = it.base,
        .base = it.c.base,
        .vend = it.c.base + it.c.len,
        .tybase = types ? ctx->data + wire_array_elems_off(it.w, types) : NULL,
        .p = it.c.base + it.c.off,
        .shift = 64,
    };
    if (n >= 2 && n <= DUP_MAX_TOKENS && tokens->value_size <= UINT32_MAX &&
        ctx->opt.severity[R_TOK_DUPLICATE] != GGUFLINT_OFF) {
        size_t cap = 16;
        sc.shift = 60;
        while (cap < n + n / 2) {
            cap *= 2;
            sc.shift--;
        }
        sc.slots = gl_calloc(cap * sizeof *sc.slots + (size_t)n * sizeof *sc.offs, 1);
        if (!sc.slots) {
            ctx->status = GGUFLINT_E_NOMEM;
            return;
        }
        sc.offs = (uint32_t *)(void *)(sc.slots + cap);
        sc.mask = cap - 1;
        keyhash_ml_init(&sc.ml);
    }
    uint64_t n_typed = types ? (types->count < n ? types->count : n) : 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!it.c.big_endian && it.w == 8) {
        if (scan_range(&sc, 0, n_typed, true, true))
            scan_range(&sc, n_typed, n, false, true);
    } else
#endif
    {
        if (scan_range(&sc, 0, n_typed, true, false))
            scan_range(&sc, n_typed, n, false, false);
    }
    for (uint64_t i = n_typed; types && i < types->count && ctx->status == GGUFLINT_OK; i++) {
        int64_t type = (int32_t)(uint32_t)cur_read_unchecked(&it.c, sc.tybase + 4 * i, 4);
        if ((uint64_t)type > 6)
            report_type(ctx, types, i, type);
    }
    gl_free(sc.slots);
}

/* ---- counts and ids ---- */

static void check_length(gguflint_ctx *ctx, const gguflint_kv *kv, uint64_t n_tokens)
{
    if (!kv || kv->type != VT_ARRAY || kv->count == n_tokens)
        return;
    char path[192];
    kv_path(path, sizeof path, kv);
    emit(ctx, R_TOK_LENGTH_MISMATCH, wire_array_count_off(kv), model_width(ctx), path,
         "%.*s has %llu elements but there are %llu tokens (%s; llama.cpp #20735/#20737)",
         (int)kv->key.len, (const char *)kv->key.ptr, (unsigned long long)kv->count,
         (unsigned long long)n_tokens,
         kv->count < n_tokens ? "older llama.cpp reads past its end"
                              : "the extra elements belong to no token");
}

static void check_tensor_rows(gguflint_ctx *ctx, const char *name, uint64_t n_tokens)
{
    const gguflint_tensor *t = tensor_by_name(ctx, name);
    if (!t || t->n_dims < 2 || t->ne[1] == n_tokens)
        return;
    const gguflint_kv *arch = kv_by_key(ctx, "general.architecture");
    gguflint_view a;
    if (arch && kv_str(arch, &a) && !arch_rows_are_vocab(arch_find(a.ptr, a.len), name))
        return; /* not a row per token in this architecture (GG553 checks it) */
    unsigned w = model_width(ctx);
    char path[64];
    snprintf(path, sizeof path, "tensor[%zu].ne[1]", tensor_index_of(ctx, t));
    emit(ctx, R_TOK_TENSOR_ROWS, wire_ti_ne_off(w, t, 1), w, path,
         "%s has %llu rows (ne[1]) but the vocabulary has %llu tokens; llama.cpp refuses the "
         "shape, other readers index past the table",
         name, (unsigned long long)t->ne[1], (unsigned long long)n_tokens);
}

static void check_vocab_size(gguflint_ctx *ctx, uint64_t n_tokens)
{
    const gguflint_kv *arch = kv_by_key(ctx, "general.architecture");
    gguflint_view a;
    if (!arch || !kv_str(arch, &a) || a.len == 0 || a.len > 128)
        return;
    const gguflint_kv *vs = kv_by_keyf(ctx, "%.*s.vocab_size", (int)a.len, (const char *)a.ptr);
    int64_t v;
    if (!vs || !kv_int(vs, &v) || (v >= 0 && (uint64_t)v == n_tokens))
        return;
    char path[192];
    kv_path(path, sizeof path, vs);
    emit(ctx, R_TOK_VOCAB_SIZE, vs->value_offset, vt_size(vs->type), path,
         "vocab_size is %lld but tokenizer.ggml.tokens has %llu tokens (logits and token ids "
         "would index past one or the other)",
         (long long)v, (unsigned long long)n_tokens);
}

static void check_special_ids(gguflint_ctx *ctx, bool have_tokens, uint64_t n_tokens)
{
    static const key_type u32_key = {NULL, VT_UINT32, NO_TYPE, NO_TYPE};
    for (size_t i = 0; i < sizeof special_keys / sizeof special_keys[0]; i++) {
        const gguflint_kv *kv = kv_by_key(ctx, special_keys[i]);
        if (!kv)
            continue;
        key_type kt = u32_key;
        kt.key = special_keys[i];
        check_type(ctx, kv, &kt);
        int64_t id;
        if (!have_tokens || !kv_int(kv, &id) || id < 0 || (uint64_t)id < n_tokens)
            continue;
        char path[192];
        kv_path(path, sizeof path, kv);
        emit(ctx, R_TOK_SPECIAL_ID_RANGE, kv->value_offset, vt_size(kv->type), path,
             "%s is %lld but there are only %llu tokens (out-of-bounds read in llama.cpp's "
             "vocabulary, GHSA-g4cc-763q-h9h6)",
             special_keys[i], (long long)id, (unsigned long long)n_tokens);
    }
}

static void check_defaults(gguflint_ctx *ctx, const vocab_model *m, const vocab_pre *pre,
                           const gguflint_kv *tokens)
{
    static const char *const short_names[VD__COUNT] = {"bos", "eos", "unk", "sep", "pad", "mask"};
    char list[160];
    size_t used = 0;
    list[0] = '\0';
    for (int d = 0; d < VD__COUNT; d++) {
        int id = m->defaults[d];
        if (d == VD_BOS && pre && (pre->flags & VP_NO_BOS))
            id = -1; /* the pre-tokenizer's branch clears the default BOS */
        if (id < 0 || (uint64_t)id < tokens->count || kv_by_key(ctx, default_keys[d]))
            continue;
        int n = snprintf(list + used, sizeof list - used, "%s%s=%d", used ? ", " : "",
                         short_names[d], id);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
    }
    if (!used)
        return;
    char path[192];
    kv_path(path, sizeof path, tokens);
    emit(ctx, R_TOK_DEFAULT_ID_RANGE, wire_array_count_off(tokens), model_width(ctx), path,
         "the '%s' tokenizer assumes %s when the keys are absent, but there are only %llu "
         "tokens (out-of-bounds read in llama.cpp before the GHSA-g4cc-763q-h9h6 fixes)",
         m->name, list, (unsigned long long)tokens->count);
}

static void check_charsmap(gguflint_ctx *ctx, const gguflint_kv *kv)
{
    unsigned w = model_width(ctx);
    char path[192];
    kv_path(path, sizeof path, kv);
    if (kv->count < 4) {
        emit(ctx, R_TOK_CHARSMAP, wire_array_count_off(kv), w, path,
             "precompiled_charsmap has %llu bytes, fewer than its 4-byte size prefix (llama.cpp "
             "reads the prefix out of bounds)",
             (unsigned long long)kv->count);
        return;
    }
    uint64_t at = wire_array_elems_off(w, kv);
    const uint8_t *p = ctx->data + at;
    uint64_t size =
        (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (size + 4 < kv->count)
        return;
    emit(ctx, R_TOK_CHARSMAP, at, 4, path,
         "precompiled_charsmap's size prefix says %llu bytes of XCDA blob, but only %llu bytes "
         "follow it (llama.cpp requires size + 4 < %llu; older versions read out of bounds)",
         (unsigned long long)size, (unsigned long long)(kv->count - 4),
         (unsigned long long)kv->count);
}

/* ---- the tokenizer model and the pre-tokenizer ---- */

/* The length llama.cpp sees of a string it reads as a C string (ml.get_key
 * into a std::string through gguf_get_val_str): up to the first NUL. */
static size_t c_len(const gguflint_kv *kv)
{
    const uint8_t *nul = kv->str.len ? memchr(kv->str.ptr, 0, (size_t)kv->str.len) : NULL;
    return nul ? (size_t)(nul - kv->str.ptr) : (size_t)kv->str.len;
}

/* A string KV that llama.cpp reads as the C string `s`. */
static bool c_str_is(const gguflint_kv *kv, const char *s)
{
    return kv && kv->type == VT_STRING && c_len(kv) == strlen(s) &&
           memcmp(kv->str.ptr, s, strlen(s)) == 0;
}

/* "llama, bert, ...": every name of the tokenizer-model table. */
static void model_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < vocab_model_count; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", vocab_models[i].name);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
}

/* tokenizer.ggml.pre as the loader reads it for model `m` (BPE): a name its
 * chain does not know is refused ("unknown pre-tokenizer type"). Returns the
 * pre-tokenizer's row, or NULL when there is none or it is unknown. */
static const vocab_pre *check_pre(gguflint_ctx *ctx, const vocab_model *m, const gguflint_kv *model,
                                  const gguflint_kv *pre, bool all)
{
    if (m->forced_pre[0]) /* the loader ignores the key */
        return vocab_pre_find((const uint8_t *)m->forced_pre, strlen(m->forced_pre));
    if (!(m->flags & VM_READS_PRE))
        return NULL;
    char path[192];
    if (!pre || pre->type != VT_STRING) {
        /* absent (a wrong type is GG571) */
        if (!pre && all) {
            kv_path(path, sizeof path, model);
            emit(ctx, R_TOK_PRE_MISSING, model->value_offset, model_width(ctx) + model->str.len,
                 path,
                 "the '%s' (BPE) tokenizer has no tokenizer.ggml.pre: llama.cpp falls back to "
                 "the default pre-tokenizer and warns that generation quality will be degraded",
                 m->name);
        }
        return NULL;
    }
    kv_path(path, sizeof path, pre);
    uint64_t size = model_width(ctx) + pre->str.len;
    size_t vis = c_len(pre);
    if (vis == 0) {
        emit(ctx, R_TOK_PRE_MISSING, pre->value_offset, size, path,
             "tokenizer.ggml.pre is empty (to its first NUL): llama.cpp treats it as missing, "
             "falls back to the "
             "default pre-tokenizer and warns that generation quality will be degraded");
        return NULL;
    }
    const vocab_pre *p = vocab_pre_find(pre->str.ptr, vis);
    if (p)
        return p;
    char shown[96];
    esc_fixed(shown, sizeof shown, pre->str.ptr, pre->str.len, 64);
    emit(ctx, R_TOK_PRE_UNKNOWN, pre->value_offset, size, path,
         "tokenizer.ggml.pre '%s' is unknown to llama.cpp of %s (%s), which refuses the file "
         "(\"unknown pre-tokenizer type\"); a file made for a newer llama.cpp may use a newer "
         "name",
         shown, vocab_source_date, vocab_source_build);
    return NULL;
}

static const vocab_model *check_model(gguflint_ctx *ctx, const gguflint_kv *model,
                                      const gguflint_kv *tokens, const gguflint_kv *pre,
                                      const vocab_pre **pre_out)
{
    *pre_out = NULL;
    if (!model || model->type != VT_STRING) {
        /* a key absent from metadata cut short may come after the cut */
        if (!model && tokens && ctx->hdr.metadata_complete) {
            char path[192];
            kv_path(path, sizeof path, tokens);
            emit(ctx, R_TOK_INCOMPLETE, tokens->offset, model_width(ctx) + tokens->key.len, path,
                 "tokenizer.ggml.tokens is present but tokenizer.ggml.model is not (llama.cpp "
                 "requires the model key)");
        }
        return NULL;
    }
    char path[192];
    kv_path(path, sizeof path, model);
    uint64_t len = model_width(ctx) + model->str.len;
    const vocab_model *m = vocab_model_find(model->str.ptr, c_len(model));
    if (!m) {
        char shown[96], known[256];
        esc_fixed(shown, sizeof shown, model->str.ptr, model->str.len, 64);
        model_names(known, sizeof known);
        emit(ctx, R_TOK_MODEL_UNKNOWN, model->value_offset, len, path,
             "tokenizer.ggml.model '%s' is unknown to llama.cpp of %s (%s), which refuses the "
             "file (\"unknown tokenizer\"); known: %s",
             shown, vocab_source_date, vocab_source_build, known);
        return NULL;
    }
    const bool all = ctx->hdr.metadata_complete; /* an absent key is really absent */
    if (!(m->flags & VM_NO_VOCAB) && !tokens && all)
        emit(ctx, R_TOK_INCOMPLETE, model->value_offset, len, path,
             "the '%s' tokenizer has no tokenizer.ggml.tokens (llama.cpp: \"cannot find "
             "tokenizer vocab in model file\")",
             m->name);
    if ((m->flags & VM_MERGES) && all && !kv_by_key(ctx, TK "merges") &&
        !(m->merges_unless_pre[0] && c_str_is(pre, m->merges_unless_pre)))
        emit(ctx, R_TOK_MERGES_MISSING, model->value_offset, len, path,
             "the '%s' (BPE) tokenizer has no tokenizer.ggml.merges (llama.cpp: \"cannot "
             "find tokenizer merges in model file\")",
             m->name);
    if (!(m->flags & VM_NO_VOCAB))
        *pre_out = check_pre(ctx, m, model, pre, all);
    return m;
}

void check_vocab(gguflint_ctx *ctx)
{
    bool typed_ok[sizeof typed_keys / sizeof typed_keys[0]];
    const gguflint_kv *kvs[sizeof typed_keys / sizeof typed_keys[0]];
    for (size_t i = 0; i < sizeof typed_keys / sizeof typed_keys[0]; i++) {
        kvs[i] = kv_by_key(ctx, typed_keys[i].key);
        typed_ok[i] = kvs[i] && check_type(ctx, kvs[i], &typed_keys[i]);
    }
    /* indexes into typed_keys */
    enum { I_MODEL, I_PRE, I_TOKENS, I_SCORES, I_TYPES, I_MERGES, I_CHARSMAP };
    const gguflint_kv *tokens = typed_ok[I_TOKENS] ? kvs[I_TOKENS] : NULL;
    const vocab_pre *pre = NULL;
    const vocab_model *m = check_model(ctx, kvs[I_MODEL], kvs[I_TOKENS], kvs[I_PRE], &pre);
    if (typed_ok[I_CHARSMAP])
        check_charsmap(ctx, kvs[I_CHARSMAP]);
    check_special_ids(ctx, tokens != NULL, tokens ? tokens->count : 0);
    if (!tokens)
        return;
    uint64_t n = tokens->count;
    check_length(ctx, kvs[I_SCORES], n);
    check_length(ctx, kvs[I_TYPES], n);
    check_vocab_size(ctx, n);
    check_tensor_rows(ctx, "token_embd.weight", n);
    check_tensor_rows(ctx, "output.weight", n);
    if (m)
        check_defaults(ctx, m, pre, tokens);
    if (ctx->status == GGUFLINT_OK)
        scan_tokens(ctx, tokens, typed_ok[I_TYPES] ? kvs[I_TYPES] : NULL);
}

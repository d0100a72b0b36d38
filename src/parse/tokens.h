/* tokens.h - the tokenizer's tokens as the parse pass reads them. The
 * vocabulary is most of the metadata of most models, so the parse pass,
 * which has to step over every token anyway, also builds the duplicate-token
 * index (keyed: see tokens.c and the complexity contract in
 * docs/ARCHITECTURE.md), keeps every 64th token's offset (the others are
 * a short walk away), and notes the tokens whose length is a finding.
 * check_vocab.c reports from this record and so reads the tokens array
 * again only at the few tokens with a finding (its pages have been given
 * back by then: see source_drop). Only the first tokenizer.ggml.tokens KV, an array
 * of strings in a little-endian v2/v3 file read to its end by the fast path,
 * is recorded; otherwise `complete` stays false and check_vocab walks the
 * array itself. */
#ifndef GGUFLINT_PARSE_TOKENS_H
#define GGUFLINT_PARSE_TOKENS_H

#include "core/internal.h"

#include "common/keyhash.h"

/* Tokens longer than these are an error / a warning (CVE-2025-49847). */
#define TOKEN_MAX_ERROR (64u * 1024u)
#define TOKEN_MAX_WARN 1024u
/* Tokens up to this many bytes are hashed with NH (tokens.c), longer ones
 * with SipHash-1-3. */
#define TOKEN_NH_MAX 64u

typedef struct tok_slot {
    uint32_t tag; /* tok_tag of the keyed hash (0: empty) */
    uint32_t idx; /* token index */
} tok_slot;

/* A slot of the parse pass's index: the token's offset instead of its
 * index, so that no per-token offset table is needed (see cps). */
typedef struct tok_oslot {
    uint32_t tag; /* tok_tag of the keyed hash (0: empty) */
    uint32_t off; /* the token's length field, from base */
} tok_oslot;

typedef struct tok_dup {
    uint32_t i;        /* token i repeats */
    uint32_t prev_off; /* the token whose length field is here (from base) */
} tok_dup;

/* One checkpoint (a token's offset) every 2^TOK_CP_SHIFT tokens: any
 * token's offset is then a walk over fewer than 64 length fields away, and
 * the record costs 4 bytes per 64 tokens instead of 4 per token. */
#define TOK_CP_SHIFT 6u
#define TOK_CP_MASK ((1u << TOK_CP_SHIFT) - 1u)

typedef struct tok_index {
    size_t kv;           /* the tokens KV: index in ctx->kvs */
    uint64_t n;          /* tokens checked and indexed so far */
    bool complete;       /* every token of the array was recorded */
    bool dup_checked;    /* and looked up in the index (the rule is on, the array fits) */
    const uint8_t *base; /* the array value (its element-type field) */
    uint32_t *cps;       /* token (j << TOK_CP_SHIFT)'s length field, from base */
    tok_dup *dups;       /* duplicates, in token order */
    size_t n_dups, cap_dups;
    uint32_t *odd; /* tokens of length 0 or over TOKEN_MAX_WARN, in order */
    size_t n_odd, cap_odd;
    /* the index (kept with a complete record, for tok_find) */
    tok_oslot *slots;
    size_t mask;
    unsigned shift;
    uint64_t probes;
    uint64_t compares; /* byte compares on equal tags (duplicates, false matches) */
    bool nomem;        /* a note could not be stored (the run is out of memory) */
    /* the keys (from the per-process key): NH's 32-bit word keys, the
     * length's and the final multiplier (odd), SipHash's for long tokens */
    uint32_t nh[TOKEN_NH_MAX / 4];
    uint64_t klen, mul;
    uint64_t klen_tab[TOKEN_NH_MAX + 1]; /* n * klen: one add in the token loops */
    /* n * klen plus the upper half's constant product nh[2] * nh[3] of a
     * block whose upper half is zero (tokens of up to 8 bytes: tok_hash8) */
    uint64_t short_tab[9];
    keyhash_key sip;
} tok_index;

/* Start recording the array whose value starts at `base`, `count` tokens
 * (already checked against the bytes present, so the allocation is bounded
 * by the input's size), as KV `kv`. `dups`: build the duplicate index too.
 * False when memory ran out. */
bool tok_begin(gguflint_ctx *ctx, size_t kv, const uint8_t *base, uint64_t count, bool dups);
/* The array was read to its end (complete) or not: frees the whole record
 * when incomplete. */
void tok_end(gguflint_ctx *ctx, bool complete);
void tok_free(gguflint_ctx *ctx);

/* A position in a complete record: token i's length field at base + off. */
typedef struct tok_pos {
    uint64_t i, off;
} tok_pos;

/* Move *pos (from tok_pos_start) to token i (< t->n) of a complete record:
 * forward from *pos when i is less than 64 tokens ahead, else from i's
 * checkpoint; fewer than 64 length fields read either way, so a pass in
 * increasing order costs O(n) in all. */
tok_pos tok_pos_start(const tok_index *t);
void tok_seek(const tok_index *t, tok_pos *pos, uint64_t i);
/* The index of the token whose length field is at `off` (an offset the
 * record holds): a binary search of the checkpoints and a short walk. */
uint64_t tok_index_at(const tok_index *t, uint32_t off);

/* Whether a complete record with its duplicate index (dup_checked) holds
 * the token s[0..len), len > 0: its first index and the offset of its
 * length field (from base). The index is kept after the parse for this:
 * checks look a few texts up instead of walking the vocabulary. */
bool tok_find(const tok_index *t, const uint8_t *s, uint64_t len, uint64_t *index, uint64_t *off);

/* Record the next token (index t->n), whose length field is at `el`, in
 * the general way: its offset, the length rules, and the duplicate index
 * with byte comparisons on equal tags. The parse loop inlines the common
 * case itself (tok_hash_fast, then an empty slot) and calls this for the
 * rest. `end`: readable memory ends there. False when the record must stop:
 * memory ran out (t->nomem) or the array passes 4 GiB (offsets are 32-bit). */
bool tok_add_slow(tok_index *t, const uint8_t *el, const uint8_t *end);

/* The tag kept in a slot: 32 bits of the hash below the slot bits. Not the
 * top 32 bits, which hold the slot bits themselves: tokens probing from
 * the same slot would then share all but 32 - log2(capacity) tag bits, and
 * every equal tag costs a byte compare with an earlier token, whose pages
 * the parse pass has given back (on a.gguf such false matches mapped about
 * 3 MB of dropped vocabulary back in). A fixed shift (one instruction, like
 * the top half's): an index has at most 2^TOK_SLOT_BITS_MAX slots, so the
 * slot bits (h >> shift) start at bit 64 - TOK_SLOT_BITS_MAX or above and
 * the tag's 32 bits end just below. | 1: 0 marks an empty slot. */
#define TOK_SLOT_BITS_MAX 25u
#define TOK_TAG_SHIFT (64u - TOK_SLOT_BITS_MAX - 32u)
static inline uint32_t tok_tag(uint64_t h)
{
    return (uint32_t)(h >> TOK_TAG_SHIFT) | 1u;
}

/* The last step of the token hash: NH's sum plus the length term, folded by
 * keyhash_mix's xor-shift (a fixed bijection: NH is linear in each word, so
 * tokens whose words run through a progression have sums in progression,
 * which linear probing turns into long runs), then multiply-shift by the
 * random odd `mul` (its top bits pick the slot). Being a bijection, the
 * fold keeps distinct sums distinct, so multiply-shift's bound stands. */
static inline uint64_t tok_finish(uint64_t sum, uint64_t mul)
{
    return (sum ^ (sum >> 32)) * mul;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* NH's product vector of a token of 1..16 bytes whose length field (a
 * little-endian u64 under 2^56) is the 8 bytes before it, as tokens sit in
 * the array: the token is loaded so that it ends at its block's end and the
 * bytes before it in the block are the length field's high bytes, all
 * zero, so no mask is needed: up to 8 bytes as one u64 (the block's upper
 * half zero), 9..16 as the whole block. tok_hash_ref lays the block out so
 * (tokens.c: short_block). */
static inline __attribute__((always_inline)) __m128i tok_nh_short(const uint8_t *s, uint64_t len,
                                                                  __m128i k0)
{
    __m128i v = len <= 8 ? _mm_loadl_epi64((const __m128i *)(const void *)(s + len - 8))
                         : _mm_loadu_si128((const __m128i *)(const void *)(s + len - 16));
    v = _mm_add_epi32(v, k0);
    return _mm_mul_epu32(v, _mm_srli_epi64(v, 32));
}

/* tok_hash_ref of a token of 1..8 bytes laid out as tok_nh_short finds it:
 * the block's upper half is zero, so its product is a constant of the keys
 * (in short_tab) and only the lower lane is computed. */
static inline __attribute__((always_inline)) uint64_t
tok_hash8(const uint8_t *s, uint64_t len, __m128i k0, const uint64_t *short_tab, uint64_t mul)
{
    __m128i v = _mm_add_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s + len - 8)), k0);
    v = _mm_mul_epu32(v, _mm_srli_epi64(v, 32));
    return tok_finish((uint64_t)_mm_cvtsi128_si64(v) + short_tab[len], mul);
}

/* tok_hash_ref of a token of 1..64 bytes with its length field before it
 * (tok_nh_short): NH 16 bytes per step (add the word keys, shift the odd
 * words down, multiply, accumulate), then the length and the multiplier.
 * A token of 17..64 bytes is NH'd as its first and its last 16 (17..32) or
 * 32 (33..64) bytes, which overlap (short_block): every load lies in the
 * token and none needs a mask. k0..k3: the word keys nh[0..3], [4..7],
 * [8..11], [12..15] as vectors. */
static inline __attribute__((always_inline)) uint64_t
tok_hash_fast(const uint8_t *s, uint64_t len, __m128i k0, __m128i k1, __m128i k2, __m128i k3,
              const uint64_t *klen_tab, uint64_t mul)
{
#define TOK_LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TOK_NH16(v, k) _mm_mul_epu32(_mm_add_epi32(v, k), _mm_srli_epi64(_mm_add_epi32(v, k), 32))
    __m128i p;
    if (len <= 16) {
        p = tok_nh_short(s, len, k0);
    } else if (len <= 32) {
        p = _mm_add_epi64(TOK_NH16(TOK_LD(s), k0), TOK_NH16(TOK_LD(s + len - 16), k1));
    } else {
        p = _mm_add_epi64(
            _mm_add_epi64(TOK_NH16(TOK_LD(s), k0), TOK_NH16(TOK_LD(s + 16), k1)),
            _mm_add_epi64(TOK_NH16(TOK_LD(s + len - 32), k2), TOK_NH16(TOK_LD(s + len - 16), k3)));
    }
    p = _mm_add_epi64(p, _mm_unpackhi_epi64(p, p));
    return tok_finish((uint64_t)_mm_cvtsi128_si64(p) + klen_tab[len], mul);
#undef TOK_LD
#undef TOK_NH16
}
#endif

/* The token loop of the parse pass (parse.c's walk_strings with a tokens
 * record): from q, while below `lim` and strings are left, hash each token
 * of 1..TOKEN_NH_MAX bytes and take an empty slot; stop at the first other
 * token (empty, longer, or a slot with its tag: a duplicate or a rare
 * accident), which the caller records with tok_add_slow. `lim` leaves 64
 * readable bytes after each token's start. One body (tok_walk_body) with a
 * thin wrapper per vector unit, as zstd writes its hot loops:
 * tok_walk_sse2 (tokens.c) and tok_walk_avx2 (tokens.c; when
 * tok_have_avx2()) differ only in how they compute the hash, tok_hash_ref's.
 * fp_level() 0 (fp_force_level) runs neither: every token goes through
 * tok_add_slow, the reference they agree with. */
typedef struct tok_walk {
    const uint8_t *q;
    uint64_t left, tn;
} tok_walk;
bool tok_have_avx2(void);
tok_walk tok_walk_sse2(tok_index *ti, tok_walk w, const uint8_t *lim);
tok_walk tok_walk_avx2(tok_index *ti, tok_walk w, const uint8_t *lim);

/* The keyed hash of one token (1 <= len; tests compare the vector and
 * scalar paths with it). */
uint64_t tok_hash_ref(const tok_index *t, const uint8_t *s, uint64_t len);

#endif

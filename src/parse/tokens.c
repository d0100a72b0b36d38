/* tokens.c - see tokens.h: the record of the tokens array the parse pass
 * fills, and its duplicate index (open addressing, at most two thirds full,
 * a keyed hash, below: NH, folded, then multiply-shift; any two different
 * tokens share a slot with probability about 2/capacity, whatever bytes an
 * attacker chose). */
#include "parse/tokens.h"
#include "common/alloc.h"
#include "common/cpu.h"

#include "core/limits.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The index's keys, drawn from the per-process key (keyhash.h) through
 * SipHash, so nothing about them can be learnt from the file or the output;
 * derived once per process (about 3 000 instructions: a tenth of a small
 * file's lint) and copied into each record. */
static tok_index key_proto;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void derive_once(void)
{
    tok_index *t = &key_proto;
    const keyhash_key *key = keyhash_process_key();
    for (size_t i = 0; i < sizeof t->nh / sizeof t->nh[0] + 4; i++) {
        uint64_t in[2] = {0x746f6b656e6e6831ull /* "tokennh1" */, (uint64_t)i};
        uint64_t v = keyhash_sip(key, in, sizeof in, 2, 4);
        if (i < sizeof t->nh / sizeof t->nh[0])
            t->nh[i] = (uint32_t)v;
        else if (i == sizeof t->nh / sizeof t->nh[0])
            t->klen = v;
        else if (i == sizeof t->nh / sizeof t->nh[0] + 1)
            t->mul = v | 1;
        else if (i == sizeof t->nh / sizeof t->nh[0] + 2)
            t->sip.k0 = v;
        else
            t->sip.k1 = v;
    }
    for (size_t n = 0; n <= TOKEN_NH_MAX; n++)
        t->klen_tab[n] = n * t->klen;
    for (size_t n = 0; n < sizeof t->short_tab / sizeof t->short_tab[0]; n++)
        t->short_tab[n] = n * t->klen + (uint64_t)t->nh[2] * t->nh[3];
}

static void derive_keys(tok_index *t)
{
    pthread_once(&key_once, derive_once);
    memcpy(t->nh, key_proto.nh, sizeof t->nh);
    memcpy(t->klen_tab, key_proto.klen_tab, sizeof t->klen_tab);
    memcpy(t->short_tab, key_proto.short_tab, sizeof t->short_tab);
    t->klen = key_proto.klen;
    t->mul = key_proto.mul;
    t->sip = key_proto.sip;
}

/* tok_tag's bits end below the slot bits: at most 2^TOK_SLOT_BITS_MAX
 * slots, 1.5 x DUP_MAX_TOKENS rounded up to a power of two (check_vocab's
 * fallback index sizes alike). */
_Static_assert((uint64_t)DUP_MAX_TOKENS * 3 / 2 <= (1ull << TOK_SLOT_BITS_MAX),
               "tok_tag's bits overlap the slot bits");

bool tok_begin(gguflint_ctx *ctx, size_t kv, const uint8_t *base, uint64_t count, bool dups)
{
    tok_free(ctx);
    if (count > DUP_MAX_TOKENS)
        return true; /* not recorded: check_vocab walks the array itself */
    tok_index *t = gl_calloc(1, sizeof *t);
    if (!t)
        return false;
    t->kv = kv;
    t->base = base;
    /* one checkpoint per 64 tokens the file declares: array_header checked
     * that the bytes present can hold that many */
    t->cps = gl_malloc(((size_t)(count >> TOK_CP_SHIFT) + 1) * sizeof *t->cps);
    if (!t->cps) {
        gl_free(t);
        return false;
    }
    if (dups && count >= 2) {
        size_t cap = 16;
        unsigned shift = 60;
        while (cap < count + count / 2) {
            cap *= 2;
            shift--;
        }
        t->slots = gl_calloc(cap, sizeof *t->slots);
        if (!t->slots) {
            gl_free(t->cps);
            gl_free(t);
            return false;
        }
        t->mask = cap - 1;
        t->shift = shift;
        derive_keys(t);
        t->dup_checked = true;
    }
    ctx->tokens = t;
    return true;
}

void tok_end(gguflint_ctx *ctx, bool complete)
{
    tok_index *t = ctx->tokens;
    if (!t)
        return;
    ctx->probes += t->probes;
    t->complete = complete && !t->nomem;
    if (!t->complete)
        tok_free(ctx); /* a complete record keeps its index for tok_find */
}

void tok_free(gguflint_ctx *ctx)
{
    tok_index *t = ctx->tokens;
    if (!t)
        return;
    gl_free(t->slots);
    gl_free(t->cps);
    gl_free(t->dups);
    gl_free(t->odd);
    gl_free(t);
    ctx->tokens = NULL;
}

static bool tok_note_odd(tok_index *t, uint64_t i)
{
    if (t->n_odd == t->cap_odd && !grow((void **)&t->odd, &t->cap_odd, t->n_odd, sizeof *t->odd)) {
        t->nomem = true;
        return false;
    }
    t->odd[t->n_odd++] = (uint32_t)i;
    return true;
}

static bool tok_note_dup(tok_index *t, uint64_t i, uint32_t prev_off)
{
    if (t->n_dups == t->cap_dups &&
        !grow((void **)&t->dups, &t->cap_dups, t->n_dups, sizeof *t->dups)) {
        t->nomem = true;
        return false;
    }
    t->dups[t->n_dups++] = (tok_dup){(uint32_t)i, prev_off};
    return true;
}

/* ---- the hash ----
 *
 * A token of up to TOKEN_NH_MAX bytes, laid out in a block of 16, 32 or 64
 * bytes (short_block; w_0, w_1, ... its 32-bit little-endian words), is hashed with NH (Black,
 * Halevi, Krawczyk, Krovetz and Rogaway, UMAC, 1999):
 *     nh = sum_i (w_2i + k_2i mod 2^32) * (w_2i+1 + k_2i+1 mod 2^32)  mod 2^64,
 * one 32 x 32 -> 64-bit multiply per 8 bytes. For two different strings of
 * one padded size, nh(x) - nh(y) takes any value with probability at most
 * 2^-32 over the random keys; adding len * klen separates strings that pad
 * alike. The sum is folded by an xor-shift (tok_finish, keyhash_mix's
 * first step; a bijection) and multiplied by a random odd multiplier
 * (multiply-shift, Dietzfelbinger et al. 1997), whose top b bits collide
 * with probability at most 2^(1-b) for different inputs. So two different
 * tokens, whatever an attacker chose, share a slot of a table of 2^b slots
 * with probability at most 2^-32 + 2^(1-b). A pairwise bound alone does not
 * keep linear-probing runs short: NH and multiply-shift are linear, and
 * tokens whose words form a progression made runs of up to 21 probes per
 * insert until the fold (test_tokens: test_progressions). Longer tokens get
 * SipHash-1-3. SSE2 does one 16-byte half per four instructions
 * (add the keys, shift the odd words down, multiply, accumulate). */

/* The block of a token of 1..TOKEN_NH_MAX bytes: one of 17..32 (33..64)
 * bytes is its first 16 (32) bytes and then its last 16 (32), overlapping,
 * as the walks load them without a mask; one of up to 16 bytes ends its
 * half (up to 8 bytes: the first 8) or its block (9..16), zeros before, as
 * tok_nh_short finds it in the array without a mask. Either way a
 * one-to-one layout per length (the two parts cover every byte), which is
 * all NH's bound needs. */
static void short_block(uint8_t pad[TOKEN_NH_MAX], const uint8_t *s, uint64_t len)
{
    if (len > 32) {
        memcpy(pad, s, 32);
        memcpy(pad + 32, s + len - 32, 32);
    } else if (len > 16) {
        memcpy(pad, s, 16);
        memcpy(pad + 16, s + len - 16, 16);
    } else if (len <= 8)
        memcpy(pad + 8 - len, s, (size_t)len);
    else
        memcpy(pad + 16 - len, s, (size_t)len);
}

static uint64_t nh_ref(const tok_index *t, const uint8_t *s, uint64_t len)
{
    uint8_t pad[TOKEN_NH_MAX] = {0};
    short_block(pad, s, len);
    size_t words = len <= 16 ? 4 : len <= 32 ? 8 : 16;
    uint64_t nh = 0;
    for (size_t i = 0; i < words; i += 2) {
        uint32_t a, b;
        memcpy(&a, pad + 4 * i, 4);
        memcpy(&b, pad + 4 * i + 4, 4);
        nh += (uint64_t)(uint32_t)(a + t->nh[i]) * (uint32_t)(b + t->nh[i + 1]);
    }
    return nh;
}

uint64_t tok_hash_ref(const tok_index *t, const uint8_t *s, uint64_t len)
{
    if (len > TOKEN_NH_MAX)
        return keyhash13(&t->sip, s, (size_t)len);
    return tok_finish(nh_ref(t, s, len) + len * t->klen, t->mul);
}

/* Token i's slot from k on, when a slot with its tag was found (a duplicate,
 * or a 2^-32 accident): compare, and go on probing past unequal tokens.
 * Returns the slot holding an equal token, or the empty slot to take. Out of
 * line so the hot loop keeps its registers. */
__attribute__((noinline)) static size_t probe_equal(tok_index *t, size_t k, uint32_t tag,
                                                    const uint8_t *s, uint64_t len)
{
    for (; t->slots[k].tag; k = (k + 1) & t->mask) {
        t->probes++;
        if (t->slots[k].tag != tag)
            continue;
        t->compares++;
        const uint8_t *q = t->base + t->slots[k].off;
        uint64_t qn;
        memcpy(&qn, q, 8);
        if (qn == len && memcmp(q + 8, s, (size_t)len) == 0)
            return k;
    }
    return k;
}

bool tok_add_slow(tok_index *t, const uint8_t *el, const uint8_t *end)
{
    const uint64_t rel = (uint64_t)(el - t->base), i = t->n;
    if (rel > UINT32_MAX)
        return false; /* offsets are 32-bit: the record stops here */
    if ((i & TOK_CP_MASK) == 0)
        t->cps[i >> TOK_CP_SHIFT] = (uint32_t)rel;
    t->n++;
    uint64_t len;
    memcpy(&len, el, 8); /* a length the parse loop has bounded */
    if (len - 1 >= TOKEN_MAX_WARN && !tok_note_odd(t, i))
        return false;
    if (!t->slots || len == 0)
        return true;
    const uint8_t *s = el + 8;
    (void)end; /* tok_hash_ref reads only the token */
    const uint64_t h = tok_hash_ref(t, s, len);
    const uint32_t tag = tok_tag(h);
    size_t k = probe_equal(t, (size_t)(h >> t->shift), tag, s, len);
    if (t->slots[k].tag)
        return tok_note_dup(t, i, t->slots[k].off);
    t->slots[k] = (tok_oslot){tag, (uint32_t)rel};
    return true;
}

/* ---- positions in a complete record ---- */

/* The length field after the one at `off` (the record's tokens were all
 * bounded by the parse pass, so no check is needed here). */
static uint64_t next_off(const tok_index *t, uint64_t off)
{
    uint64_t len;
    memcpy(&len, t->base + off, 8);
    return off + 8 + len;
}

tok_pos tok_pos_start(const tok_index *t)
{
    return (tok_pos){0, t->n ? t->cps[0] : 0};
}

void tok_seek(const tok_index *t, tok_pos *pos, uint64_t i)
{
    if (i < pos->i || i - pos->i > TOK_CP_MASK) {
        pos->i = i & ~(uint64_t)TOK_CP_MASK;
        pos->off = t->cps[i >> TOK_CP_SHIFT];
    }
    for (; pos->i < i; pos->i++)
        pos->off = next_off(t, pos->off);
}

uint64_t tok_index_at(const tok_index *t, uint32_t off)
{
    /* the last checkpoint at or before off */
    size_t lo = 0, hi = (size_t)((t->n + TOK_CP_MASK) >> TOK_CP_SHIFT);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->cps[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t i = (uint64_t)lo << TOK_CP_SHIFT, at = t->cps[lo];
    while (at < off && i + 1 < t->n) {
        at = next_off(t, at);
        i++;
    }
    return i;
}

bool tok_find(const tok_index *t, const uint8_t *s, uint64_t len, uint64_t *index, uint64_t *off)
{
    if (!t->complete || !t->slots || len == 0)
        return false;
    const uint64_t h = tok_hash_ref(t, s, len);
    const uint32_t tag = tok_tag(h);
    for (size_t k = (size_t)(h >> t->shift); t->slots[k].tag; k = (k + 1) & t->mask) {
        if (t->slots[k].tag != tag)
            continue;
        const uint8_t *q = t->base + t->slots[k].off;
        uint64_t qn;
        memcpy(&qn, q, 8);
        if (qn == len && memcmp(q + 8, s, (size_t)len) == 0) {
            *off = t->slots[k].off;
            *index = tok_index_at(t, t->slots[k].off);
            return true;
        }
    }
    return false;
}

/* ---- the token loop: one body, a wrapper per vector unit ---- */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* The loop of every walk (tokens.h): everything but the hash, which the
 * wrapper passes (HASH: an always-inline function of its keys, loaded
 * once before the loop, and the token). Always inlined into each wrapper,
 * so each gets its own loop with its hash in line. */
/* One token of the walk from q: hashed (tokens of up to 8 bytes by
 * tok_hash8, the others by HASH) and put in an empty slot, or `goto out`
 * (empty, long, or a slot with its tag: tok_add_slow takes it). */
#define TOK_STEP(ti, HASH, keys)                                                                   \
    do {                                                                                           \
        uint64_t n;                                                                                \
        memcpy(&n, q, 8); /* recorded arrays are little-endian */                                  \
        const uint8_t *const s = q + 8;                                                            \
        uint64_t h;                                                                                \
        if (__builtin_expect(n - 1 < 8, 1))                                                        \
            h = tok_hash8(s, n, (keys).k0, short_tab, mul);                                        \
        else if (n - 1 < TOKEN_NH_MAX)                                                             \
            h = HASH(&(keys), s, n, (ti), mul);                                                    \
        else                                                                                       \
            goto out; /* empty, or long: tok_add_slow */                                           \
        const uint32_t tag = tok_tag(h);                                                           \
        size_t k = (size_t)(h >> shift);                                                           \
        uint32_t st;                                                                               \
        while (__builtin_expect((st = slots[k].tag) != 0, 0) && st != tag) {                       \
            nprobes++;                                                                             \
            k = (k + 1) & mask;                                                                    \
        }                                                                                          \
        if (__builtin_expect(st != 0, 0))                                                          \
            goto out; /* a slot with its tag: compare in tok_add_slow */                           \
        slots[k] = (tok_oslot){tag, (uint32_t)(q - tbase)};                                        \
        tn++;                                                                                      \
        q = s + n;                                                                                 \
    } while (0)

/* The loop of every walk (tokens.h): everything but the hash of tokens of
 * 9..64 bytes, which the wrapper passes (HASH: an always-inline function of
 * its keys, loaded once before the loop, and the token). Tokens go 64 at a
 * time, from one checkpoint to the next: the checkpoint is stored once per
 * chunk (tok_add_slow stores the same offset when it takes that token), and
 * a chunk that starts more than 64 longest tokens below `lim` needs no test
 * of `lim` in its loop. Always inlined into each wrapper, so each gets its
 * own loop with its hash in line. */
#define TOK_WALK_BODY(ti, w, lim, HASH, keys)                                                        \
    uint32_t *const cps = (ti)->cps;                                                                 \
    const uint8_t *const tbase = (ti)->base;                                                         \
    tok_oslot *const slots = (ti)->slots;                                                            \
    const size_t mask = (ti)->mask;                                                                  \
    const unsigned shift = (ti)->shift;                                                              \
    const uint64_t mul = (ti)->mul;                                                                  \
    const uint64_t *const short_tab = (ti)->short_tab;                                               \
    const uint8_t *q = (w).q;                                                                        \
    /* the token count is the loop counter: one compare, no decrement */                             \
    uint64_t tn = (w).tn;                                                                            \
    const uint64_t tn_end = tn + (w).left;                                                           \
    /* probes (rare: only past an occupied slot), added to the record on                           \
     * the way out; the compiler keeps the count in memory, one add each */ \
    uint64_t nprobes = 0;                                                                            \
    while (tn != tn_end && q < (lim)) {                                                              \
        if ((tn & TOK_CP_MASK) == 0)                                                                 \
            cps[tn >> TOK_CP_SHIFT] = (uint32_t)(q - tbase);                                         \
        uint64_t stop = (tn | TOK_CP_MASK) + 1;                                                      \
        if (stop > tn_end)                                                                           \
            stop = tn_end;                                                                           \
        if ((lim)-q > (ptrdiff_t)((TOK_CP_MASK + 1) * (8 + TOKEN_NH_MAX))) {                         \
            do                                                                                       \
                TOK_STEP(ti, HASH, keys);                                                            \
            while (tn != stop);                                                                      \
        } else {                                                                                     \
            do                                                                                       \
                TOK_STEP(ti, HASH, keys);                                                            \
            while (tn != stop && q < (lim));                                                         \
        }                                                                                            \
    }                                                                                                \
    out:                                                                                             \
    (ti)->probes += nprobes;                                                                         \
    return (tok_walk)                                                                                \
    {                                                                                                \
        q, tn_end - tn, tn                                                                           \
    }

#define LD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define LD32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))

/* SSE2: NH 16 bytes per step (tok_hash_fast). */
typedef struct keys128 {
    __m128i k0, k1, k2, k3; /* the word keys nh[0..3], [4..7], [8..11], [12..15] */
} keys128;

static inline __attribute__((always_inline)) uint64_t
hash_sse2(const keys128 *k, const uint8_t *s, uint64_t n, const tok_index *ti, uint64_t mul)
{
    return tok_hash_fast(s, n, k->k0, k->k1, k->k2, k->k3, ti->klen_tab, mul);
}

__attribute__((noinline)) tok_walk tok_walk_sse2(tok_index *ti, tok_walk w, const uint8_t *lim)
{
    const keys128 keys = {LD16(ti->nh), LD16(ti->nh + 4), LD16(ti->nh + 8), LD16(ti->nh + 12)};
    TOK_WALK_BODY(ti, w, lim, hash_sse2, keys);
}

/* AVX2: NH taken 32 bytes per step: a token of 17..32 bytes is one add,
 * shift and multiply, 33..64 two. Tokens of up to 16 bytes keep the 16-byte
 * step: NH of a zero-padded half adds the keys' products, so the hash
 * (tok_hash_ref's) pads them to 16 only. */
#define TOK_AVX2 __attribute__((target("avx2,bmi2")))

bool tok_have_avx2(void)
{
    return (cpu_features() & (CPU_AVX2 | CPU_BMI2)) == (CPU_AVX2 | CPU_BMI2);
}

typedef struct keys256 {
    __m128i k0;       /* nh[0..3] */
    __m256i k01, k23; /* nh[0..7], nh[8..15] */
} keys256;

TOK_AVX2 static inline __attribute__((always_inline)) uint64_t
hash_avx2(const keys256 *k, const uint8_t *s, uint64_t n, const tok_index *ti, uint64_t mul)
{
    __m128i x;
    if (__builtin_expect(n <= 16, 1)) {
        x = tok_nh_short(s, n, k->k0);
    } else {
        __m256i p;
        if (n <= 32) { /* the first and the last 16 bytes (short_block) */
            __m256i v = _mm256_add_epi32(
                _mm256_inserti128_si256(_mm256_castsi128_si256(LD16(s)), LD16(s + n - 16), 1),
                k->k01);
            p = _mm256_mul_epu32(v, _mm256_srli_epi64(v, 32));
        } else { /* the first and the last 32 */
            __m256i a = _mm256_add_epi32(LD32(s), k->k01);
            __m256i b = _mm256_add_epi32(LD32(s + n - 32), k->k23);
            p = _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(a, 32)),
                                 _mm256_mul_epu32(b, _mm256_srli_epi64(b, 32)));
        }
        x = _mm_add_epi64(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
    }
    x = _mm_add_epi64(x, _mm_unpackhi_epi64(x, x));
    return tok_finish((uint64_t)_mm_cvtsi128_si64(x) + ti->klen_tab[n], mul);
}

TOK_AVX2 __attribute__((noinline)) tok_walk tok_walk_avx2(tok_index *ti, tok_walk w,
                                                          const uint8_t *lim)
{
    const keys256 keys = {LD16(ti->nh), LD32(ti->nh), LD32(ti->nh + 8)};
    TOK_WALK_BODY(ti, w, lim, hash_avx2, keys);
}
#undef LD16
#undef LD32
#undef TOK_WALK_BODY
#undef TOK_STEP
#else
bool tok_have_avx2(void)
{
    return false;
}

/* no vector unit: the walks take no token, tok_add_slow takes them all */
tok_walk tok_walk_sse2(tok_index *ti, tok_walk w, const uint8_t *lim)
{
    (void)ti, (void)lim;
    return w;
}

tok_walk tok_walk_avx2(tok_index *ti, tok_walk w, const uint8_t *lim)
{
    (void)ti, (void)lim;
    return w;
}
#endif

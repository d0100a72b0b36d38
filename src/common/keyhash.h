/* keyhash.h - keyed hashing for every table built from file data.
 *
 * An attacker who knows a table's hash function can fill one bucket (or one
 * probe run) with names of their choosing and make every insert walk all the
 * earlier ones: quadratic time from a linear-size file. So every hash table
 * whose keys come from input bytes hashes them under a 128-bit key drawn
 * once per process from the kernel's random source (getrandom, else
 * /dev/urandom): strings of up to 64 bytes (keys, tensor names, tokens) with
 * keyed multilinear hashing, longer ones with SipHash-1-3. Without the key,
 * colliding inputs cannot be built. Nothing the library prints or reports may depend on the key: tables
 * answer "is it there, and which entry came first", never "in what order".
 * Fuzzing builds (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) use a fixed key so
 * runs reproduce. */
#ifndef GGUFLINT_COMMON_KEYHASH_H
#define GGUFLINT_COMMON_KEYHASH_H

#include "common/attr.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct keyhash_key {
    uint64_t k0, k1;
} keyhash_key;

/* The per-process key, drawn on first use (thread-safe). */
const keyhash_key *keyhash_process_key(void);

/* SipHash-1-3 of data under the per-process key. */
uint64_t keyhash(const void *data, size_t len);

/* Multilinear hashing (Lemire and Kaser, "Strongly universal string hashing
 * is fast", 2014) for short strings, at one multiply per 4 bytes about four
 * times cheaper than SipHash on vocabulary tokens:
 *     h = k[0] + n * k[1] + sum_j chunk_j * k[2 + j]   (mod 2^64)
 * over the 32-bit little-endian chunks of the zero-padded string. Its top 32
 * bits are strongly universal: two different strings, whatever their bytes,
 * agree on the top b bits with probability about 2^-b over the random keys.
 * The sum is then mixed (keyhash_mix) so that structured sets of strings
 * do not form probe runs. Strings longer than KEYHASH_ML_MAX bytes get
 * SipHash-1-3 instead. Use the top 32 bits of the result. */
#define KEYHASH_ML_MAX 64u
typedef struct keyhash_ml {
    uint64_t k[2 + KEYHASH_ML_MAX / 4];
    keyhash_key sip;
} keyhash_ml;

/* Keys derived from the per-process key. */
void keyhash_ml_init(keyhash_ml *m);
/* The same keys, derived once per process (thread-safe). */
const keyhash_ml *keyhash_ml_process(void);

/* SipHash with c compression and d finalisation rounds (1-3 for the tables,
 * 2-4 for the reference vectors in the tests). */
uint64_t siphash_cd(const keyhash_key *key, const void *data, size_t len, int c, int d);

/* ---- the implementation, inline for hot loops (hundreds of thousands of
 * short strings per file) ---- */

static inline uint64_t keyhash_rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

#define KEYHASH_SIPROUND                                                                           \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = keyhash_rotl(v1, 13);                                                                 \
        v1 ^= v0;                                                                                  \
        v0 = keyhash_rotl(v0, 32);                                                                 \
        v2 += v3;                                                                                  \
        v3 = keyhash_rotl(v3, 16);                                                                 \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = keyhash_rotl(v3, 21);                                                                 \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = keyhash_rotl(v1, 17);                                                                 \
        v1 ^= v2;                                                                                  \
        v2 = keyhash_rotl(v2, 32);                                                                 \
    } while (0)

static inline uint64_t keyhash_load64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static inline uint64_t keyhash_sip(const keyhash_key *key, const void *data, size_t len, int c,
                                   int d)
{
    const uint8_t *in = data;
    uint64_t v0 = key->k0 ^ 0x736f6d6570736575ull;
    uint64_t v1 = key->k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = key->k0 ^ 0x6c7967656e657261ull;
    uint64_t v3 = key->k1 ^ 0x7465646279746573ull;
    const uint8_t *end = in + (len - len % 8);
    for (; in != end; in += 8) {
        uint64_t m = keyhash_load64(in);
        v3 ^= m;
        for (int i = 0; i < c; i++)
            KEYHASH_SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    switch (len & 7) {
    case 7: b |= (uint64_t)in[6] << 48; GGUFLINT_FALLTHROUGH;
    case 6: b |= (uint64_t)in[5] << 40; GGUFLINT_FALLTHROUGH;
    case 5: b |= (uint64_t)in[4] << 32; GGUFLINT_FALLTHROUGH;
    case 4: b |= (uint64_t)in[3] << 24; GGUFLINT_FALLTHROUGH;
    case 3: b |= (uint64_t)in[2] << 16; GGUFLINT_FALLTHROUGH;
    case 2: b |= (uint64_t)in[1] << 8; GGUFLINT_FALLTHROUGH;
    case 1: b |= (uint64_t)in[0]; break;
    default: break;
    }
    v3 ^= b;
    for (int i = 0; i < c; i++)
        KEYHASH_SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    for (int i = 0; i < d; i++)
        KEYHASH_SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* SipHash-1-3 under a key a hot loop fetched once (keyhash_process_key). */
static inline uint64_t keyhash13(const keyhash_key *key, const void *data, size_t len)
{
    return keyhash_sip(key, data, len, 1, 3);
}

/* Masks keeping the first n bytes of a little-endian word. */
static const uint64_t keyhash_tail_mask[9] = {
    0,
    0xFFull,
    0xFFFFull,
    0xFFFFFFull,
    0xFFFFFFFFull,
    0xFFFFFFFFFFull,
    0xFFFFFFFFFFFFull,
    0xFFFFFFFFFFFFFFull,
    ~0ull,
};

/* The n <= 8 bytes at p as a little-endian word, zero-padded: one 8-byte
 * load when [p, p + 8) is below `end` (the end of readable memory). */
static inline uint64_t keyhash_load_tail(const uint8_t *p, size_t n, const uint8_t *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        return w & keyhash_tail_mask[n];
    }
#else
    (void)end;
#endif
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

/* A fixed bijection of 64-bit words (an xor-shift folding the low half into
 * the high half, then a multiply by an odd constant) applied to the
 * multilinear sum. The sum is linear in the string's chunks, so strings
 * whose chunks run through an arithmetic progression (consecutive integers)
 * get hashes in arithmetic progression, and under linear probing such a set
 * forms long runs for some keys: up to 680 probes per insert at 2^18 strings
 * (measured over 200 keys). Mixed, the same sets cost what random strings
 * cost (1.5 probes), as they do under MurmurHash3's longer fmix64, for two
 * operations. Being a bijection it keeps the sum's collision bound for the
 * whole word. */
static inline uint64_t keyhash_mix(uint64_t h)
{
    h ^= h >> 32;
    return h * 0x9E3779B97F4A7C15ull;
}

/* The multilinear hash of p[0..n) (see keyhash_ml), mixed by
 * keyhash_mix; loads may read up to `end`, never past it. */
static inline uint64_t keyhash_ml_hash(const keyhash_ml *m, const uint8_t *p, size_t n,
                                       const uint8_t *end)
{
    if (n > KEYHASH_ML_MAX)
        return keyhash13(&m->sip, p, n);
    uint64_t h = m->k[0] + (uint64_t)n * m->k[1];
    const uint64_t *k = m->k + 2;
    while (n > 8) {
        uint64_t w = keyhash_load_tail(p, 8, end);
        h += (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1];
        k += 2;
        p += 8;
        n -= 8;
    }
    uint64_t w = keyhash_load_tail(p, n, end);
    return keyhash_mix(h + (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1]);
}

#endif

/* utf8.h - UTF-8 validation with an ASCII fast path, inline because the
 * parser calls it once per vocabulary string (hundreds of thousands of short
 * strings per file). The strict slow path is in utf8.c. */
#ifndef GGUFLINT_UTF8_H
#define GGUFLINT_UTF8_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Strict UTF-8 (Unicode Table 3-7): no overlongs, no surrogates, <= U+10FFFF. */
bool utf8_valid_slow(const uint8_t *s, uint64_t n);
/* Validate s[0..n), which sits in readable memory that ends at `limit`
 * (limit >= s + n; bytes up to it may be read, never past). AVX2 where the
 * host has it, the scalar check otherwise. For long strings and for runs of
 * strings separated by ASCII bytes (see parse.c). */
bool utf8_valid_region(const uint8_t *s, uint64_t n, const uint8_t *limit);
/* utf8_valid_region that also sets *esc: whether s[0..n) holds an ESC
 * (0x1B) followed by a printable ASCII byte (a terminal escape sequence may
 * start there), in the same pass. */
bool utf8_valid_region_esc(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc);
/* The AVX2 checks (utf8_avx2.c): *done is false when the host has no AVX2. */
bool utf8_valid_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *done);
bool utf8_valid_esc_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc, bool *done);
/* ascii_print_span over the whole 32-byte blocks of s[0..n) */
uint64_t utf8_print_span_avx2(const uint8_t *s, uint64_t n, bool text, bool *done);
/* Decode one UTF-8 sequence at s[0..n): its length (1..4) and code point, or 0
 * when the bytes are not a valid, shortest-form scalar value. */
unsigned utf8_decode(const uint8_t *s, uint64_t n, uint32_t *cp);
/* The byte-at-a-time reference check behind it (also used by the tests). */
bool utf8_valid_bytes(const uint8_t *s, uint64_t n);

static inline uint64_t utf8_load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint32_t utf8_load32(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* True when s[0..n) is all ASCII: whole-word loads; short strings (most
 * vocabulary tokens) are covered by two overlapping loads. */
static inline bool utf8_is_ascii(const uint8_t *s, uint64_t n)
{
    const uint64_t m8 = 0x8080808080808080ull;
    if (n >= 8) {
        uint64_t acc = utf8_load64(s + n - 8);
        for (uint64_t i = 0; i + 8 <= n; i += 8)
            acc |= utf8_load64(s + i);
        return !(acc & m8);
    }
    if (n >= 4)
        return !((utf8_load32(s) | utf8_load32(s + n - 4)) & 0x80808080u);
    uint8_t acc = 0;
    for (uint64_t i = 0; i < n; i++)
        acc |= s[i];
    return !(acc & 0x80);
}

static inline bool utf8_valid(const uint8_t *s, uint64_t n)
{
    return utf8_is_ascii(s, n) || utf8_valid_slow(s, n);
}

/* The length of the run of printable ASCII bytes (0x20..0x7E; with text,
 * tabs and line feeds too) that starts s[0..n): n when every byte is one.
 * 16 or 32 bytes per step. */
uint64_t ascii_print_span(const uint8_t *s, uint64_t n, bool text);

#endif

/* utf8.c - the strict UTF-8 check behind utf8_valid's ASCII fast path.
 * Byte ranges are checked directly (Unicode Table 3-7), without building
 * code points. The loop runs while two bytes remain so the common cases
 * (ASCII and two-byte sequences) need no length test; the last byte and the
 * rare three- and four-byte sequences are checked with it. */
#include "common/utf8.h"

#define B7 0x8080808080808080ull

/* Text made of ASCII and two-byte sequences (byte-level BPE and most
 * European vocabularies) is checked eight bytes at a time: every lead byte
 * 110xxxxx (not the overlong C0/C1) must be followed by a continuation byte
 * 10xxxxxx and every continuation byte preceded by such a lead, with the
 * expectation carried across words. At the first word holding a three- or
 * four-byte lead it stops and returns where the byte-wise check must resume
 * (the start of that word, or of the pair straddling it); it returns n when
 * everything was checked and valid, and UINT64_MAX when something is invalid. */
static uint64_t two_byte_swar(const uint8_t *s, uint64_t n)
{
    uint64_t carry = 0; /* 0x80 when the previous word ended with a lead byte */
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t w = 0, k = n - i < 8 ? n - i : 8;
        /* little-endian hosts only (see caller); the last partial word is the
         * tail of an overlapping load when the string has 8 bytes, so no
         * variable-length copy is ever needed */
        if (k == 8)
            memcpy(&w, s + i, 8);
        else if (n >= 8) {
            memcpy(&w, s + n - 8, 8);
            w >>= 8 * (8 - k);
        } else {
            for (uint64_t j = 0; j < k; j++)
                w |= (uint64_t)s[i + j] << (8 * j);
        }
        uint64_t hi = w & B7;
        if (!hi && !carry)
            continue;
        uint64_t b6 = (w << 1) & B7, b5 = (w << 2) & B7;
        uint64_t lead = hi & b6, cont = hi & ~b6;
        if (lead & b5)
            return carry ? i - 1 : i;
        /* C0/C1: a lead whose bits 1-4 are all zero */
        uint64_t low = w & 0x1E1E1E1E1E1E1E1Eull;
        uint64_t nz = (low + 0x7F7F7F7F7F7F7F7Full) & B7;
        if ((lead & ~nz) || cont != ((lead << 8) | carry))
            return UINT64_MAX;
        carry = (lead >> 56) & 0x80; /* zero-filled bytes past n never leave one */
    }
    return carry ? UINT64_MAX : n;
}

bool utf8_valid_slow(const uint8_t *s, uint64_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* short strings (most tokens) are cheaper byte by byte, long ones with
     * vectors (the tail is copied: nothing past s + n is read) */
    if (n < 16)
        return utf8_valid_bytes(s, n);
    if (n >= 64) {
        bool done;
        bool ok = utf8_valid_avx2(s, n, s + n, &done);
        if (done)
            return ok;
    }
    uint64_t at = two_byte_swar(s, n);
    if (at == UINT64_MAX)
        return false;
    return at == n || utf8_valid_bytes(s + at, n - at);
#else
    return utf8_valid_bytes(s, n);
#endif
}

bool utf8_valid_bytes(const uint8_t *s, uint64_t n)
{
    const uint8_t *p = s, *end = s + n;
    if (n == 0)
        return true;
    const uint8_t *last = end - 1;
    while (p < last) {
        uint8_t c = p[0];
        if (c < 0x80) {
            p++;
            continue;
        }
        if ((uint8_t)(c - 0xC2) <= 0xDF - 0xC2) {
            if ((p[1] & 0xC0) != 0x80)
                return false;
            p += 2;
            continue;
        }
        size_t left = (size_t)(end - p);
        if ((c & 0xF0) == 0xE0) {
            uint8_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
            if (left < 3 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80)
                return false;
            p += 3;
        } else if ((uint8_t)(c - 0xF0) <= 4) {
            uint8_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
            if (left < 4 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 ||
                (p[3] & 0xC0) != 0x80)
                return false;
            p += 4;
        } else {
            return false;
        }
    }
    return p == end || *p < 0x80; /* a lone final byte must be ASCII */
}

/* Decode one UTF-8 sequence at s[0..n). Returns its length (1..4) and the code
 * point, or 0 when the bytes are not a valid, shortest-form scalar value. */
unsigned utf8_decode(const uint8_t *s, uint64_t n, uint32_t *cp)
{
    uint8_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    unsigned len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1Fu;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0Fu;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (unsigned i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

bool utf8_valid_region(const uint8_t *s, uint64_t n, const uint8_t *limit)
{
    bool done;
    bool ok = utf8_valid_avx2(s, n, limit, &done);
    return done ? ok : utf8_valid_slow(s, n);
}

bool utf8_valid_region_esc(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc)
{
    bool done;
    bool ok = utf8_valid_esc_avx2(s, n, limit, esc, &done);
    if (done)
        return ok;
    *esc = false;
    for (const uint8_t *p = s, *end = s + n; p < end && !*esc; p++) {
        p = memchr(p, 0x1B, (size_t)(end - p));
        if (!p)
            break;
        *esc = p + 1 < end && (uint8_t)(p[1] - 0x20u) < 0x5Fu;
    }
    return utf8_valid_slow(s, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

/* Bit i set when byte i of the 16 at p is printable ASCII. */
static inline unsigned print16(const uint8_t *p)
{
    /* signed bytes: printable is > 0x1F and < 0x7F (0x80.. are negative) */
    const __m128i lo = _mm_set1_epi8(0x1F), hi = _mm_set1_epi8(0x7F);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(a, lo), _mm_cmplt_epi8(a, hi)));
}

/* Bit i set when byte i of the 16 at p is a tab or a line feed. */
static inline unsigned tablf16(const uint8_t *p)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(a, _mm_set1_epi8('\t')),
                                                    _mm_cmpeq_epi8(a, _mm_set1_epi8('\n'))));
}

static inline bool print1(uint8_t c, bool text)
{
    return (uint8_t)(c - 0x20u) < 0x5Fu || (text && (c == '\t' || c == '\n'));
}

/* The SSE2 blocks of ascii_print_span from byte i (n >= 16, the bytes before
 * i printable). With text, the tab / line-feed mask is only made for the
 * blocks that are not all printable: a run of printable bytes costs what it
 * did without. */
static inline uint64_t span_blocks(const uint8_t *s, uint64_t n, uint64_t i, bool text)
{
    for (; n - i >= 32; i += 32) {
        unsigned m = print16(s + i) | print16(s + i + 16) << 16;
        if (m != 0xFFFFFFFFu && text)
            m |= tablf16(s + i) | tablf16(s + i + 16) << 16;
        if (m != 0xFFFFFFFFu)
            return i + (unsigned)__builtin_ctz(~m);
    }
    if (n - i >= 16) {
        unsigned m = print16(s + i);
        if (m != 0xFFFFu && text)
            m |= tablf16(s + i);
        if (m != 0xFFFFu)
            return i + (unsigned)__builtin_ctz(~m);
        i += 16;
    }
    /* the last bytes: an overlapping load ending at s + n (all of
     * [n - 16, i) were taken) */
    if (i < n) {
        unsigned m = print16(s + n - 16);
        if (m != 0xFFFFu && text)
            m |= tablf16(s + n - 16);
        return m == 0xFFFFu ? n : n - 16 + (unsigned)__builtin_ctz(~m);
    }
    return n;
}

/* A long string (a template, a long description): its whole 32-byte blocks
 * with AVX2 when the host has it. Out of line, so the short strings' path
 * saves no registers for the call. */
static __attribute__((noinline)) uint64_t span_long(const uint8_t *s, uint64_t n, bool text)
{
    bool done;
    uint64_t i = utf8_print_span_avx2(s, n, text, &done);
    if (!done)
        i = 0;
    else if (i < n - n % 32)
        return i; /* stopped in a whole block */
    return span_blocks(s, n, i, text);
}

uint64_t ascii_print_span(const uint8_t *s, uint64_t n, bool text)
{
    if (n >= 256)
        return span_long(s, n, text);
    if (n >= 16)
        return span_blocks(s, n, 0, text);
    for (uint64_t i = 0; i < n; i++)
        if (!print1(s[i], text))
            return i;
    return n;
}
#else
uint64_t ascii_print_span(const uint8_t *s, uint64_t n, bool text)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        /* a byte below 0x20, at or above 0x7F (w + 1 reaches 0x80), or 0x80..;
         * a tab or line feed is looked at byte by byte */
        uint64_t bad = ((w - 0x20 * ones) | (w + ones) | w) & high;
        if (bad)
            break;
    }
    for (; i < n; i++)
        if ((uint8_t)(s[i] - 0x20u) >= 0x5Fu && !(text && (s[i] == '\t' || s[i] == '\n')))
            return i;
    return n;
}
#endif

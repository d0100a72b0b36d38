/* utf8.c - the strict UTF-8 check behind utf8_valid's ASCII fast path.
 * Byte ranges are checked directly (Unicode Table 3-7), without building
 * code points. The loop runs while two bytes remain so the common cases
 * (ASCII and two-byte sequences) need no length test; the last byte and the
 * rare three- and four-byte sequences are checked with it. */
#include "utf8.h"

bool utf8_valid_slow(const uint8_t *s, uint64_t n)
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

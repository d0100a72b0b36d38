/* rawscan.c - the template analyser's raw byte scanner (prefix raw_, state
 * t->raw): every byte of the template, for invalid UTF-8 and for invisible
 * characters (zero-width, bidi controls, tag characters), whatever the
 * lexer makes of them. O(1) state; ASCII runs are skipped eight bytes at a
 * time. */
#include "template/tpl.h"

#include <string.h>

void raw_begin(tpl *t)
{
    t->raw.need = 0;
}

bool raw_invisible(uint32_t cp, const char **name)
{
    const char *s = NULL;
    switch (cp) {
    case 0x00AD: s = "SOFT HYPHEN"; break;
    case 0x061C: s = "ARABIC LETTER MARK"; break;
    case 0x180E: s = "MONGOLIAN VOWEL SEPARATOR"; break;
    case 0x200B: s = "ZERO WIDTH SPACE"; break;
    case 0x200C: s = "ZERO WIDTH NON-JOINER"; break;
    case 0x200D: s = "ZERO WIDTH JOINER"; break;
    case 0x200E: s = "LEFT-TO-RIGHT MARK"; break;
    case 0x200F: s = "RIGHT-TO-LEFT MARK"; break;
    case 0x202A: s = "LEFT-TO-RIGHT EMBEDDING"; break;
    case 0x202B: s = "RIGHT-TO-LEFT EMBEDDING"; break;
    case 0x202C: s = "POP DIRECTIONAL FORMATTING"; break;
    case 0x202D: s = "LEFT-TO-RIGHT OVERRIDE"; break;
    case 0x202E: s = "RIGHT-TO-LEFT OVERRIDE"; break;
    case 0x2060: s = "WORD JOINER"; break;
    case 0x2061:
    case 0x2062:
    case 0x2063:
    case 0x2064: s = "INVISIBLE OPERATOR"; break;
    case 0x2066: s = "LEFT-TO-RIGHT ISOLATE"; break;
    case 0x2067: s = "RIGHT-TO-LEFT ISOLATE"; break;
    case 0x2068: s = "FIRST STRONG ISOLATE"; break;
    case 0x2069: s = "POP DIRECTIONAL ISOLATE"; break;
    case 0xFEFF: s = "ZERO WIDTH NO-BREAK SPACE"; break;
    default:
        if (cp >= 0xE0000 && cp <= 0xE007F)
            s = "TAG CHARACTER (invisible ASCII)";
        break;
    }
    if (name)
        *name = s;
    return s != NULL;
}

static void u8_invalid(tpl *t, uint64_t index, uint8_t c)
{
    tpl_report(t, TH_UTF8, index,
               "invalid UTF-8: byte 0x%02x does not start or continue a "
               "valid sequence",
               c);
}

void raw_byte(tpl *t, uint8_t c)
{
again:
    if (t->raw.need == 0) {
        if (c < 0x80)
            return;
        t->raw.index = t->index;
        t->raw.bytes[0] = c;
        t->raw.len = 1;
        if (c >= 0xC2 && c <= 0xDF) {
            t->raw.need = 1;
            t->raw.cp = c & 0x1Fu;
            t->raw.min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            t->raw.need = 2;
            t->raw.cp = c & 0x0Fu;
            t->raw.min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            t->raw.need = 3;
            t->raw.cp = c & 0x07u;
            t->raw.min = 0x10000;
        } else {
            u8_invalid(t, t->index, c);
        }
        return;
    }
    if ((c & 0xC0) != 0x80) {
        u8_invalid(t, t->raw.index, t->raw.bytes[0]);
        t->raw.need = 0;
        goto again;
    }
    t->raw.cp = (t->raw.cp << 6) | (c & 0x3Fu);
    if (t->raw.len < 4)
        t->raw.bytes[t->raw.len++] = c;
    if (--t->raw.need > 0)
        return;
    uint32_t cp = t->raw.cp;
    const char *name;
    if (cp < t->raw.min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        u8_invalid(t, t->raw.index, t->raw.bytes[0]);
    else if (raw_invisible(cp, &name))
        tpl_report(t, TH_INVISIBLE, t->raw.index, "invisible character U+%04X (%s)", (unsigned)cp,
                   name);
}

void raw_end(tpl *t)
{
    if (t->raw.need > 0)
        tpl_report(t, TH_UTF8, t->raw.index,
                   "invalid UTF-8: the template ends inside a %u-byte sequence",
                   t->raw.len + t->raw.need);
    t->raw.need = 0;
}

/* Whether p[0..n) is all ASCII: eight bytes at a time, the last word
 * overlapping the one before it, so a short run is two loads. */
static bool all_ascii(const uint8_t *p, size_t n)
{
    const uint64_t HI = 0x8080808080808080ull;
    uint64_t w, acc = 0;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8) {
            memcpy(&w, p + i, 8);
            if (w & HI)
                return false;
        }
        memcpy(&w, p + n - 8, 8);
        return !(w & HI);
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        return !((a | b) & 0x80808080u);
    }
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return !(acc & 0x80);
}

/* The length of the UTF-8 sequence at p[0..n) (p[0] >= 0x80) when it is a
 * complete 2-, 3- or 4-byte one, shortest form, no surrogate, at most
 * U+10FFFF, and not a code point raw_invisible names (the 2-byte U+00AD and
 * U+061C, the 3-byte U+180E, U+200B..U+2069 and U+FEFF, the 4-byte tag
 * characters U+E0000..U+E007F are left to raw_byte); else 0. */
static inline __attribute__((always_inline)) size_t seq_ok(const uint8_t *p, size_t n)
{
    const uint8_t c = p[0];
    if (c >= 0xC2 && c <= 0xDF) {
        if (n < 2 || (p[1] & 0xC0) != 0x80)
            return 0;
        const uint32_t cp = (uint32_t)(c & 0x1Fu) << 6 | (p[1] & 0x3Fu);
        return cp == 0x00AD || cp == 0x061C ? 0 : 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        const uint32_t cp =
            (uint32_t)(c & 0x0Fu) << 12 | (uint32_t)(p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0x180E ||
            (cp >= 0x200B && cp <= 0x2069) || cp == 0xFEFF)
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        const uint32_t cp = (uint32_t)(c & 0x07u) << 18 | (uint32_t)(p[1] & 0x3Fu) << 12 |
                            (uint32_t)(p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
        if (cp < 0x10000 || cp > 0x10FFFF || (cp >= 0xE0000 && cp <= 0xE007F))
            return 0;
        return 4;
    }
    return 0;
}

/* raw_byte over the bytes of p[0..n) from the first non-ASCII one on (out
 * of line: raw_run's common case is then a leaf). */
static __attribute__((noinline)) void raw_run_bytes(tpl *t, const uint8_t *p, size_t n)
{
    uint64_t base = t->index;
    size_t i = 0;
    while (i < n) {
        if (t->raw.need == 0) {
            /* ASCII fast path, eight bytes at a time */
            while (n - i >= 8) {
                uint64_t w;
                memcpy(&w, p + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            while (i < n && p[i] < 0x80)
                i++;
            if (i == n)
                break;
        }
        if (t->raw.need == 0) {
            /* whole sequences that are well formed and not invisible, one
             * step each, while they follow one another (text of a script
             * other than Latin): raw_byte would report nothing */
            size_t k = seq_ok(p + i, n - i);
            if (k) {
                do {
                    i += k;
                    /* the commonest: 3-byte letters of U+2070..U+D7FF (CJK,
                     * kana, Hangul), one 4-byte load each (the last one of
                     * the piece goes to seq_ok) */
                    while (n - i >= 4) {
                        uint32_t w;
                        memcpy(&w, p + i, 4);
                        if ((w & 0xC0C0F0u) != 0x8080E0u)
                            break;
                        const uint32_t cp =
                            (w & 0x0Fu) << 12 | (w >> 2 & 0xFC0u) | (w >> 16 & 0x3Fu);
                        if (cp - 0x2070u >= 0xD800u - 0x2070u)
                            break;
                        i += 3;
                    }
                } while (i < n && p[i] >= 0x80 && (k = seq_ok(p + i, n - i)) != 0);
                continue;
            }
        }
        t->index = base + i;
        raw_byte(t, p[i]);
        i++;
    }
    t->index = base;
}

/* The reference: raw_byte on every byte (the byte loop's way). */
static __attribute__((noinline)) void raw_run_ref(tpl *t, const uint8_t *p, size_t n)
{
    const uint64_t base = t->index;
    for (size_t i = 0; i < n; i++) {
        t->index = base + i;
        raw_byte(t, p[i]);
    }
    t->index = base;
}

void raw_run(tpl *t, const uint8_t *p, size_t n)
{
    if (!TPL_FAST(t)) {
        raw_run_ref(t, p, n);
        return;
    }
    if (t->raw.need == 0 && all_ascii(p, n))
        return; /* the common case: nothing to decode */
    raw_run_bytes(t, p, n);
}

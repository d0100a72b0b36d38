/* escape.c - making untrusted bytes safe to show: terminal escaping and JSON
 * string escaping (see escape.h). */
#include "common/escape.h"

#include "common/utf8.h"

#include <string.h>

/* Code points that must never reach a terminal raw: C0/C1 controls, DEL,
 * bidi embeddings/overrides/isolates/marks, zero-width characters, line and
 * paragraph separators, BOM, tag characters. */
static bool cp_unsafe(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
        return true;
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 ||
        cp == 0xFEFF || cp == 0x180E)
        return true;
    if (cp >= 0x200B && cp <= 0x200D)
        return true;
    if (cp >= 0x202A && cp <= 0x202E)
        return true;
    if (cp >= 0x2060 && cp <= 0x206F)
        return true;
    if (cp >= 0xE0000 && cp <= 0xE007F) /* tag characters: invisible text */
        return true;
    return false;
}

static const char hexd[] = "0123456789abcdef";

/* PREFIX, then the byte c as two hex digits, into e; returns the length. */
static size_t hex_escape(char *e, const char *prefix, uint8_t c)
{
    size_t n = strlen(prefix);
    memcpy(e, prefix, n);
    e[n] = hexd[c >> 4];
    e[n + 1] = hexd[c & 15];
    return n + 2;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* True when the 8 bytes at s are all printable ASCII (0x20..0x7E) and, with
 * backslash, none is '\\'. Exact (the classic bytewise-compare tricks):
 * every message and path goes through here, most of them plain, so eight
 * bytes per step instead of one. */
static bool plain8(const uint8_t *s, bool backslash)
{
    uint64_t v, b;
    memcpy(&v, s, 8);
    uint64_t bad = (v - 0x20 * ONES) & ~v & HIGHS; /* a byte < 0x20 */
    bad |= ((v + ONES) | v) & HIGHS;               /* a byte >= 0x7F */
    if (backslash) {
        b = v ^ (0x5C * ONES); /* a '\\' is a zero byte of b */
        bad |= (b - ONES) & ~b & HIGHS;
    }
    return bad == 0;
}

static void escape_impl(gguflint_write_fn w, void *user, const void *data, size_t len,
                        bool backslash)
{
    const uint8_t *s = data;
    size_t i = 0, run = 0; /* s[run..i) is pending safe output */
    while (i < len) {
        while (len - i >= 8 && plain8(s + i, backslash))
            i += 8;
        if (i >= len)
            break;
        uint8_t c = s[i];
        if (c >= 0x20 && c < 0x7F && (c != '\\' || !backslash)) {
            i++;
            continue;
        }
        uint32_t cp = 0;
        unsigned l = c >= 0x80 ? utf8_decode(s + i, len - i, &cp) : 0;
        if (l > 0 && !cp_unsafe(cp)) {
            i += l;
            continue;
        }
        if (i > run)
            w(user, (const char *)s + run, i - run);
        char e[16];
        size_t el;
        if (c == '\\') {
            memcpy(e, "\\\\", 2);
            el = 2;
            l = 1;
        } else if (l > 0) {
            el = 0;
            e[el++] = '\\';
            e[el++] = 'u';
            e[el++] = '{';
            bool started = false;
            for (int sh = 20; sh >= 0; sh -= 4) {
                unsigned d = (cp >> sh) & 0xF;
                if (d || started || sh <= 12) {
                    e[el++] = hexd[d];
                    started = true;
                }
            }
            e[el++] = '}';
        } else {
            el = hex_escape(e, "\\x", c);
            l = 1;
        }
        w(user, e, el);
        i += l;
        run = i;
    }
    if (i > run)
        w(user, (const char *)s + run, i - run);
}

void gguflint_escape(gguflint_write_fn w, void *user, const void *data, size_t len)
{
    escape_impl(w, user, data, len, true);
}

void safe_text(gguflint_write_fn w, void *user, const char *s, size_t len)
{
    escape_impl(w, user, s, len, false);
}

void sb_escape(sbuf *b, const void *data, size_t len)
{
    gguflint_escape(sb_write, b, data, len);
}

typedef struct fixed_out {
    char *buf;
    size_t cap, len;
    bool full;
} fixed_out;

static void fixed_write(void *user, const char *data, size_t len)
{
    fixed_out *o = user;
    if (o->full)
        return;
    if (len >= o->cap - o->len) {
        o->full = true;
        return;
    }
    memcpy(o->buf + o->len, data, len);
    o->len += len;
}

void esc_fixed(char *buf, size_t cap, const uint8_t *s, uint64_t n, size_t max_in)
{
    fixed_out o = {buf, cap, 0, false};
    if (cap == 0)
        return;
    bool cut = n > max_in;
    size_t take = cut ? max_in : (size_t)n;
    /* Do not cut inside a UTF-8 sequence: back up over continuation bytes. */
    if (cut)
        while (take > 0 && (s[take] & 0xC0) == 0x80)
            take--;
    gguflint_escape(fixed_write, &o, s, take);
    if ((cut || o.full) && cap > 4) {
        size_t at = o.len < cap - 4 ? o.len : cap - 4;
        memcpy(buf + at, "...", 3);
        o.len = at + 3;
    }
    buf[o.len] = '\0';
}

void json_quote(gguflint_write_fn w, void *user, const char *s, size_t len)
{
    const uint8_t *u = (const uint8_t *)s;
    w(user, "\"", 1);
    size_t i = 0, run = 0;
    while (i < len) {
        uint8_t c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7F) {
            i++;
            continue;
        }
        uint32_t cp = 0;
        unsigned l = c >= 0x80 ? utf8_decode(u + i, len - i, &cp) : 0;
        if (l > 0 && !cp_unsafe(cp)) {
            i += l;
            continue;
        }
        if (i > run)
            w(user, s + run, i - run);
        char e[16];
        size_t el = 0;
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
            el = 2;
            l = 1;
        } else if (l > 0) {
            /* valid but unsafe code point: \uXXXX keeps JSON exact; above
             * U+FFFF (tag characters) as a UTF-16 surrogate pair, never as
             * its bytes (which would decode to other code points) */
            uint32_t units[2] = {cp, 0};
            unsigned nu = 1;
            if (cp > 0xFFFF) {
                units[0] = 0xD800 + ((cp - 0x10000) >> 10);
                units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
                nu = 2;
            }
            for (unsigned k = 0; k < nu; k++) {
                uint32_t u16 = units[k];
                e[el++] = '\\';
                e[el++] = 'u';
                e[el++] = hexd[(u16 >> 12) & 15];
                e[el++] = hexd[(u16 >> 8) & 15];
                e[el++] = hexd[(u16 >> 4) & 15];
                e[el++] = hexd[u16 & 15];
            }
        } else {
            /* control byte or invalid UTF-8 byte: shown as \u00XX */
            el = hex_escape(e, "\\u00", c);
            l = 1;
        }
        w(user, e, el);
        i += l;
        run = i;
    }
    if (i > run)
        w(user, s + run, i - run);
    w(user, "\"", 1);
}

void gguflint_json_string(gguflint_write_fn w, void *user, const void *data, size_t len)
{
    json_quote(w, user, data, len);
}

void json_quote_sb(sbuf *b, const char *s, size_t len)
{
    json_quote(sb_write, b, s, len);
}

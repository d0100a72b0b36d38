/* cursor.h - the one bounds-checked reader over a byte range.
 *
 * Invariant: off <= len. The only bounds test is `n <= len - off` (never
 * `off + n <= len`, which can wrap). Readers assemble values byte by byte
 * (no struct casts, no unaligned loads), honour the file's byte order, return
 * false without moving when the bytes are not there, and advance only on
 * success. Nothing here allocates. */
#ifndef GGUFLINT_CURSOR_H
#define GGUFLINT_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct cursor {
    const uint8_t *base;
    uint64_t len;
    uint64_t off;
    bool big_endian;
} cursor;

static inline void cur_init(cursor *c, const uint8_t *base, uint64_t len)
{
    c->base = base;
    c->len = len;
    c->off = 0;
    c->big_endian = false;
}

static inline uint64_t cur_remaining(const cursor *c)
{
    return c->len - c->off;
}

static inline bool cur_has(const cursor *c, uint64_t n)
{
    return n <= c->len - c->off;
}

static inline const uint8_t *cur_ptr(const cursor *c)
{
    return c->base + c->off;
}

static inline bool cur_skip(cursor *c, uint64_t n)
{
    if (!cur_has(c, n))
        return false;
    c->off += n;
    return true;
}

/* Assemble an n-byte unsigned integer (n <= 8) at p in the cursor's order. */
static inline uint64_t cur_load(const cursor *c, const uint8_t *p, unsigned n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* fast path: a little-endian file on a little-endian host */
    if (!c->big_endian && n == 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        return w;
    }
    if (!c->big_endian && n == 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        return w;
    }
#endif
    uint64_t v = 0;
    if (c->big_endian) {
        for (unsigned i = 0; i < n; i++)
            v = (v << 8) | p[i];
    } else {
        for (unsigned i = n; i-- > 0;)
            v = (v << 8) | p[i];
    }
    return v;
}

static inline bool cur_uint(cursor *c, unsigned n, uint64_t *out)
{
    if (!cur_has(c, n))
        return false;
    *out = cur_load(c, c->base + c->off, n);
    c->off += n;
    return true;
}

static inline bool cur_u8(cursor *c, uint8_t *out)
{
    if (!cur_has(c, 1))
        return false;
    *out = c->base[c->off++];
    return true;
}

static inline bool cur_u32(cursor *c, uint32_t *out)
{
    uint64_t v;
    if (!cur_uint(c, 4, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static inline bool cur_u64(cursor *c, uint64_t *out)
{
    return cur_uint(c, 8, out);
}

#endif

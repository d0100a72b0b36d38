/* cursor.h - the one bounds-checked reader over a byte range.
 *
 * Invariant: off <= len. The only bounds test is `n <= len - off` (never
 * `off + n <= len`, which can wrap). Readers assemble values byte by byte
 * (no struct casts, no unaligned loads), honour the file's byte order, return
 * false without moving when the bytes are not there, and advance only on
 * success. Nothing here allocates.
 *
 * The few reads and moves that skip the bounds test are named *_unchecked,
 * so every one can be found with grep: they are for fast paths where the
 * caller has already proven the bytes are there (one bounds test for a whole
 * run of fields, or bytes re-read after a checked pass), and each call site
 * says why it is safe. */
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

/* Move to absolute offset `off` (at most the length). */
static inline bool cur_seek(cursor *c, uint64_t off)
{
    if (off > c->len)
        return false;
    c->off = off;
    return true;
}

/* Unchecked: advance by n bytes the caller has proven are there. */
static inline void cur_skip_unchecked(cursor *c, uint64_t n)
{
    c->off += n;
}

/* Unchecked: move to the position of p, a pointer into the cursor's bytes
 * at or after the current one (a fast path hands its position back). */
static inline void cur_seek_ptr_unchecked(cursor *c, const uint8_t *p)
{
    c->off = (uint64_t)(p - c->base);
}

/* Unchecked: a little-endian u64 at p (the fast paths for little-endian
 * files, after their own bounds test). */
static inline uint64_t cur_le64_unchecked(const uint8_t *p)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, 8);
#else
    for (unsigned i = 8; i-- > 0;)
        v = (v << 8) | p[i];
#endif
    return v;
}

/* Unchecked: assemble an n-byte unsigned integer (n <= 8) at p, a pointer
 * into bytes the caller has bounded, in the cursor's byte order. */
static inline uint64_t cur_read_unchecked(const cursor *c, const uint8_t *p, unsigned n)
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
    *out = cur_read_unchecked(c, c->base + c->off, n);
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

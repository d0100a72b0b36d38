/* test_cursor.c - unit tests of the bounds-checked cursor (cursor.h) and the
 * checked arithmetic (ckd.h) at the edges: 0, 1, max-1, max and one past.
 * Every buffer is an exactly-sized malloc so AddressSanitizer reports any
 * read past its end; a failed read must leave the cursor where it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "common/ckd.h"
#include "common/cursor.h"

/* The buffers are exactly-sized heap copies (ex_dup, in the support library:
 * never inlined here, so gcc -O2 sees no 0/1-byte allocation to warn about). */

static const uint8_t seq8[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

/* ------------------------------------------------------------ empty buffer */

static void test_empty_buffer(void **state)
{
    uint8_t *buf = ex_dup(NULL, 0);
    cursor c;
    cur_init(&c, buf, 0);
    assert_ptr_equal(c.base, buf);
    assert_int_equal(c.len, 0);
    assert_int_equal(c.off, 0);
    assert_false(c.big_endian);
    assert_int_equal(cur_remaining(&c), 0);

    assert_true(cur_has(&c, 0));
    assert_false(cur_has(&c, 1));
    assert_false(cur_has(&c, UINT64_MAX));
    assert_true(cur_skip(&c, 0));
    assert_int_equal(c.off, 0);
    assert_false(cur_skip(&c, 1));
    assert_false(cur_skip(&c, UINT64_MAX));
    assert_int_equal(c.off, 0);

    uint8_t b8 = 0xAA;
    uint32_t b32 = 0xAAAAAAAAu;
    uint64_t b64 = 0xAAAAAAAAAAAAAAAAull;
    assert_false(cur_u8(&c, &b8));
    assert_int_equal(b8, 0xAA); /* untouched on failure */
    assert_false(cur_u32(&c, &b32));
    assert_int_equal(b32, 0xAAAAAAAAu);
    assert_false(cur_u64(&c, &b64));
    assert_true(b64 == 0xAAAAAAAAAAAAAAAAull);
    for (unsigned n = 1; n <= 8; n++) {
        uint64_t v = 7;
        assert_false(cur_uint(&c, n, &v));
        assert_int_equal(v, 7);
    }
    /* A zero-width read succeeds without touching memory. */
    uint64_t z = 99;
    assert_true(cur_uint(&c, 0, &z));
    assert_int_equal(z, 0);
    assert_int_equal(c.off, 0);
    assert_ptr_equal(cur_ptr(&c), buf);

    /* Same in big-endian mode. */
    c.big_endian = true;
    assert_false(cur_u32(&c, &b32));
    assert_false(cur_u64(&c, &b64));
    assert_int_equal(c.off, 0);
    free(buf);
}

/* ---------------------------------------------------------- cur_has / skip */

static void test_has_edges(void **state)
{
    for (size_t len = 1; len <= 9; len++) {
        uint8_t *buf = ex_dup((const uint8_t[9]){0}, len);
        cursor c;
        cur_init(&c, buf, len);
        /* from offset 0: 0, 1, len-1, len succeed; len+1 and huge fail */
        assert_true(cur_has(&c, 0));
        assert_true(cur_has(&c, 1));
        assert_true(cur_has(&c, len - 1));
        assert_true(cur_has(&c, len));
        assert_false(cur_has(&c, len + 1));
        assert_false(cur_has(&c, UINT64_MAX));
        assert_false(cur_has(&c, UINT64_MAX - 1));
        /* every start offset: exactly the remaining bytes fit, one more does not */
        for (uint64_t off = 0; off <= len; off++) {
            c.off = off;
            uint64_t rem = len - off;
            assert_int_equal(cur_remaining(&c), rem);
            assert_true(cur_has(&c, rem));
            assert_false(cur_has(&c, rem + 1));
            assert_false(cur_has(&c, UINT64_MAX));
            /* n chosen so that off + n wraps to a small number */
            if (off > 0)
                assert_false(cur_has(&c, UINT64_MAX - off + 1));
        }
        free(buf);
    }
}

static void test_skip_edges(void **state)
{
    enum { LEN = 5 };
    uint8_t *buf = ex_dup(seq8, LEN);
    cursor c;
    cur_init(&c, buf, LEN);

    assert_false(cur_skip(&c, LEN + 1)); /* one past: no move */
    assert_int_equal(c.off, 0);
    assert_false(cur_skip(&c, UINT64_MAX));
    assert_int_equal(c.off, 0);
    assert_true(cur_skip(&c, 0));
    assert_int_equal(c.off, 0);
    assert_true(cur_skip(&c, 1));
    assert_int_equal(c.off, 1);
    assert_true(cur_skip(&c, LEN - 2)); /* to max-1 */
    assert_int_equal(c.off, LEN - 1);
    assert_ptr_equal(cur_ptr(&c), buf + LEN - 1);
    assert_false(cur_skip(&c, 2));
    assert_int_equal(c.off, LEN - 1);
    /* a skip that would wrap off + n back into range must fail */
    assert_false(cur_skip(&c, UINT64_MAX - (LEN - 1) + 1));
    assert_int_equal(c.off, LEN - 1);
    assert_true(cur_skip(&c, 1)); /* exactly to the end */
    assert_int_equal(c.off, LEN);
    assert_int_equal(cur_remaining(&c), 0);
    assert_ptr_equal(cur_ptr(&c), buf + LEN);
    assert_true(cur_skip(&c, 0)); /* zero at the end is fine */
    assert_false(cur_skip(&c, 1));
    assert_int_equal(c.off, LEN);
    free(buf);
}

/* A cursor over a (never dereferenced) 2^64-1 byte range: the bounds test
 * must not wrap even when off and n are both near UINT64_MAX. */
static void test_has_huge_len(void **state)
{
    static const uint8_t dummy[1] = {0};
    cursor c;
    cur_init(&c, dummy, UINT64_MAX);
    assert_true(cur_has(&c, UINT64_MAX));
    assert_true(cur_has(&c, 0));
    c.off = UINT64_MAX - 1;
    assert_true(cur_has(&c, 1));
    assert_false(cur_has(&c, 2));
    assert_false(cur_has(&c, UINT64_MAX));
    assert_false(cur_skip(&c, 2));
    assert_int_equal(c.off, UINT64_MAX - 1);
    assert_true(cur_skip(&c, 1));
    assert_true(c.off == UINT64_MAX);
    assert_true(cur_has(&c, 0));
    assert_false(cur_has(&c, 1));
    assert_false(cur_skip(&c, 1));
    assert_true(c.off == UINT64_MAX);
    c.off = 1;
    assert_false(cur_has(&c, UINT64_MAX)); /* 1 + (2^64-1) wraps to 0 */
    assert_true(cur_has(&c, UINT64_MAX - 1));
}

/* --------------------------------------------------------- integer readers */

/* For a buffer of exactly `len` bytes, an n-byte read succeeds at offset
 * len - n (ends exactly at the end) and fails without moving at len - n + 1. */
static void check_read_at_end(unsigned n, size_t len, bool be)
{
    uint8_t src[16];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(0xF0u + i);
    uint8_t *buf = ex_dup(src, len);
    cursor c;
    cur_init(&c, buf, len);
    c.big_endian = be;

    if (len >= n) {
        c.off = len - n;
        uint64_t v = 0;
        assert_true(cur_uint(&c, n, &v));
        assert_int_equal(c.off, len);
        uint64_t want = 0;
        for (unsigned i = 0; i < n; i++) {
            unsigned k = be ? i : n - 1 - i;
            want = (want << 8) | src[len - n + k];
        }
        assert_true(v == want);
    }
    /* one past: starting at len - n + 1 (or any start when len < n) */
    uint64_t start = len >= n ? len - n + 1 : 0;
    for (uint64_t off = start; off <= len; off++) {
        c.off = off;
        uint64_t v = 0x5555;
        assert_false(cur_uint(&c, n, &v));
        assert_int_equal(c.off, off);
        assert_int_equal(v, 0x5555);
    }
    free(buf);
}

static void test_uint_at_end(void **state)
{
    for (unsigned n = 1; n <= 8; n++)
        for (size_t len = 0; len <= 12; len++) {
            check_read_at_end(n, len, false);
            check_read_at_end(n, len, true);
        }
}

static void test_u8_edges(void **state)
{
    uint8_t *buf = ex_dup((const uint8_t[]){0x00, 0x7F, 0x80, 0xFF}, 4);
    cursor c;
    cur_init(&c, buf, 4);
    uint8_t v = 0x11;
    assert_true(cur_u8(&c, &v));
    assert_int_equal(v, 0x00);
    assert_true(cur_u8(&c, &v));
    assert_int_equal(v, 0x7F);
    assert_true(cur_u8(&c, &v));
    assert_int_equal(v, 0x80);
    assert_true(cur_u8(&c, &v)); /* the last byte */
    assert_int_equal(v, 0xFF);
    assert_int_equal(c.off, 4);
    v = 0x11;
    assert_false(cur_u8(&c, &v)); /* one past */
    assert_int_equal(v, 0x11);
    assert_int_equal(c.off, 4);
    free(buf);
}

static void test_u32_edges(void **state)
{
    /* 7 bytes: u32 at 0..3 succeed (3 = max for 7 bytes), at 4..7 fail */
    uint8_t *buf = ex_dup(seq8, 7);
    cursor c;
    cur_init(&c, buf, 7);
    uint32_t v = 0;
    assert_true(cur_u32(&c, &v));
    assert_int_equal(v, 0x04030201u);
    assert_int_equal(c.off, 4);
    v = 0xDEADBEEFu;
    assert_false(cur_u32(&c, &v)); /* needs 4, has 3 */
    assert_int_equal(v, 0xDEADBEEFu);
    assert_int_equal(c.off, 4);
    c.off = 3;
    assert_true(cur_u32(&c, &v)); /* exactly the last 4 bytes */
    assert_int_equal(v, 0x07060504u);
    assert_int_equal(c.off, 7);
    assert_false(cur_u32(&c, &v));
    assert_int_equal(c.off, 7);

    c.off = 3;
    c.big_endian = true;
    assert_true(cur_u32(&c, &v));
    assert_int_equal(v, 0x04050607u);
    free(buf);
}

static void test_u64_edges(void **state)
{
    uint8_t *buf = ex_dup(seq8, 8);
    cursor c;
    cur_init(&c, buf, 8);
    uint64_t v = 0;
    assert_true(cur_u64(&c, &v));
    assert_true(v == 0x0807060504030201ull);
    assert_int_equal(c.off, 8);
    assert_false(cur_u64(&c, &v));
    assert_int_equal(c.off, 8);
    c.off = 1; /* 7 left: one short */
    v = 42;
    assert_false(cur_u64(&c, &v));
    assert_int_equal(v, 42);
    assert_int_equal(c.off, 1);
    c.off = 0;
    c.big_endian = true;
    assert_true(cur_u64(&c, &v));
    assert_true(v == 0x0102030405060708ull);
    free(buf);

    /* 7-byte buffer: a u64 never fits */
    buf = ex_dup(seq8, 7);
    cur_init(&c, buf, 7);
    assert_false(cur_u64(&c, &v));
    assert_int_equal(c.off, 0);
    free(buf);
}

static void test_endianness(void **state)
{
    uint8_t *buf = ex_dup(seq8, 8);
    cursor c;
    cur_init(&c, buf, 8);
    uint64_t v;
    static const uint64_t le[9] = {0,
                                   0x01,
                                   0x0201,
                                   0x030201,
                                   0x04030201,
                                   0x0504030201,
                                   0x060504030201,
                                   0x07060504030201,
                                   0x0807060504030201};
    static const uint64_t be[9] = {0,
                                   0x01,
                                   0x0102,
                                   0x010203,
                                   0x01020304,
                                   0x0102030405,
                                   0x010203040506,
                                   0x01020304050607,
                                   0x0102030405060708};
    for (unsigned n = 0; n <= 8; n++) {
        c.off = 0;
        c.big_endian = false;
        assert_true(cur_uint(&c, n, &v));
        assert_true(v == le[n]);
        assert_int_equal(c.off, n);
        c.off = 0;
        c.big_endian = true;
        assert_true(cur_uint(&c, n, &v));
        assert_true(v == be[n]);
        assert_int_equal(c.off, n);
        /* cur_read_unchecked is the assembler behind both */
        assert_true(cur_read_unchecked(&c, buf, n) == be[n]);
        c.big_endian = false;
        assert_true(cur_read_unchecked(&c, buf, n) == le[n]);
    }
    free(buf);

    /* high bits: no sign extension, every byte reaches its place */
    static const uint8_t ff[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    buf = ex_dup(ff, 8);
    cur_init(&c, buf, 8);
    assert_true(cur_u64(&c, &v));
    assert_true(v == UINT64_MAX);
    c.off = 4;
    uint32_t w;
    assert_true(cur_u32(&c, &w));
    assert_true(w == UINT32_MAX);
    free(buf);

    static const uint8_t top[8] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
    buf = ex_dup(top, 8);
    cur_init(&c, buf, 8);
    assert_true(cur_u64(&c, &v));
    assert_true(v == 0x8000000000000000ull);
    c.off = 0;
    c.big_endian = true;
    assert_true(cur_u64(&c, &v));
    assert_true(v == 0x80ull);
    c.off = 4;
    assert_true(cur_u32(&c, &w));
    assert_true(w == 0x00000080u);
    c.off = 4;
    c.big_endian = false;
    assert_true(cur_u32(&c, &w));
    assert_true(w == 0x80000000u);
    free(buf);
}

/* A sequence of reads walks a buffer to exactly its end. */
static void test_sequence_to_end(void **state)
{
    static const uint8_t bytes[13] = {0xAB, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    uint8_t *buf = ex_dup(bytes, sizeof bytes);
    cursor c;
    cur_init(&c, buf, sizeof bytes);
    uint8_t a;
    uint32_t b;
    uint64_t d;
    assert_true(cur_u8(&c, &a));
    assert_int_equal(a, 0xAB);
    assert_true(cur_u32(&c, &b));
    assert_int_equal(b, 1);
    assert_true(cur_u64(&c, &d));
    assert_true(d == 2);
    assert_int_equal(c.off, sizeof bytes);
    assert_int_equal(cur_remaining(&c), 0);
    assert_false(cur_u8(&c, &a));
    assert_false(cur_u32(&c, &b));
    assert_false(cur_u64(&c, &d));
    assert_int_equal(c.off, sizeof bytes);
    free(buf);
}

/* -------------------------------------------------------------------- ckd */

static void test_ckd_add64(void **state)
{
    uint64_t r = 1;
    assert_false(ckd_add64(&r, 0, 0));
    assert_true(r == 0);
    assert_false(ckd_add64(&r, 0, 1));
    assert_true(r == 1);
    assert_false(ckd_add64(&r, UINT64_MAX, 0));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_add64(&r, 0, UINT64_MAX));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_add64(&r, UINT64_MAX - 1, 1));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_add64(&r, 1, UINT64_MAX - 1));
    assert_true(r == UINT64_MAX);
    assert_true(ckd_add64(&r, UINT64_MAX, 1));
    assert_true(ckd_add64(&r, 1, UINT64_MAX));
    assert_true(ckd_add64(&r, UINT64_MAX - 1, 2));
    assert_true(ckd_add64(&r, UINT64_MAX, UINT64_MAX));
    assert_false(ckd_add64(&r, 1ull << 63, (1ull << 63) - 1));
    assert_true(r == UINT64_MAX);
    assert_true(ckd_add64(&r, 1ull << 63, 1ull << 63));
}

static void test_ckd_mul64(void **state)
{
    uint64_t r = 1;
    assert_false(ckd_mul64(&r, 0, 0));
    assert_true(r == 0);
    assert_false(ckd_mul64(&r, 0, UINT64_MAX));
    assert_true(r == 0);
    assert_false(ckd_mul64(&r, UINT64_MAX, 0));
    assert_true(r == 0);
    assert_false(ckd_mul64(&r, 1, UINT64_MAX));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_mul64(&r, UINT64_MAX, 1));
    assert_true(r == UINT64_MAX);
    assert_true(ckd_mul64(&r, UINT64_MAX, 2));
    assert_true(ckd_mul64(&r, 2, UINT64_MAX));
    assert_true(ckd_mul64(&r, UINT64_MAX, UINT64_MAX));
    assert_false(ckd_mul64(&r, 1ull << 32, (1ull << 32) - 1));
    assert_true(r == (1ull << 32) * ((1ull << 32) - 1));
    assert_true(ckd_mul64(&r, 1ull << 32, 1ull << 32));
    /* (2^32-1)(2^32+1) = 2^64-1: the largest product that fits */
    assert_false(ckd_mul64(&r, (1ull << 32) - 1, (1ull << 32) + 1));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_mul64(&r, 1ull << 63, 1));
    assert_true(r == 1ull << 63);
    assert_true(ckd_mul64(&r, 1ull << 63, 2));
    assert_false(ckd_mul64(&r, UINT64_MAX / 3, 3));
    assert_true(r == UINT64_MAX);
    assert_true(ckd_mul64(&r, UINT64_MAX / 3 + 1, 3));
}

static void test_ckd_muls64(void **state)
{
    int64_t r = 1;
    assert_false(ckd_muls64(&r, 0, 0));
    assert_true(r == 0);
    assert_false(ckd_muls64(&r, 0, INT64_MIN));
    assert_true(r == 0);
    assert_false(ckd_muls64(&r, INT64_MAX, 0));
    assert_true(r == 0);
    assert_false(ckd_muls64(&r, -1, -1));
    assert_true(r == 1);
    assert_false(ckd_muls64(&r, INT64_MAX, 1));
    assert_true(r == INT64_MAX);
    assert_false(ckd_muls64(&r, INT64_MAX, -1));
    assert_true(r == -INT64_MAX);
    assert_false(ckd_muls64(&r, INT64_MIN, 1));
    assert_true(r == INT64_MIN);
    assert_true(ckd_muls64(&r, INT64_MIN, -1)); /* -INT64_MIN does not fit */
    assert_true(ckd_muls64(&r, -1, INT64_MIN));
    assert_true(ckd_muls64(&r, INT64_MAX, 2));
    assert_true(ckd_muls64(&r, INT64_MIN, 2));
    assert_true(ckd_muls64(&r, INT64_MAX, INT64_MAX));
    assert_true(ckd_muls64(&r, INT64_MIN, INT64_MIN));
    /* 2^31 * 2^32 = 2^63 overflows; -2^31 * 2^32 = INT64_MIN fits */
    assert_true(ckd_muls64(&r, INT64_C(1) << 31, INT64_C(1) << 32));
    assert_false(ckd_muls64(&r, -(INT64_C(1) << 31), INT64_C(1) << 32));
    assert_true(r == INT64_MIN);
    assert_false(ckd_muls64(&r, INT64_MAX / 2, 2));
    assert_true(r == INT64_MAX - 1);
    assert_false(ckd_muls64(&r, -(INT64_MAX / 2), -2));
    assert_true(r == INT64_MAX - 1);
}

static void test_ckd_align64(void **state)
{
    uint64_t r = 12345;

    /* a == 0: overflow, x passed through */
    assert_true(ckd_align64(&r, 0, 0));
    assert_true(r == 0);
    assert_true(ckd_align64(&r, 77, 0));
    assert_true(r == 77);
    assert_true(ckd_align64(&r, UINT64_MAX, 0));
    assert_true(r == UINT64_MAX);

    /* x == 0 is aligned to anything */
    static const uint64_t as[] = {1, 2, 3, 8, 32, 48, 1000, 1ull << 63, UINT64_MAX};
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++) {
        r = 1;
        assert_false(ckd_align64(&r, 0, as[i]));
        assert_true(r == 0);
        /* x == a stays, x == 1 rounds up to a */
        assert_false(ckd_align64(&r, as[i], as[i]));
        assert_true(r == as[i]);
        assert_false(ckd_align64(&r, 1, as[i]));
        assert_true(r == as[i]);
    }

    /* a == 1: identity, even at UINT64_MAX */
    assert_false(ckd_align64(&r, UINT64_MAX, 1));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_align64(&r, UINT64_MAX - 1, 1));
    assert_true(r == UINT64_MAX - 1);

    /* powers of two */
    assert_false(ckd_align64(&r, 31, 32));
    assert_true(r == 32);
    assert_false(ckd_align64(&r, 33, 32));
    assert_true(r == 64);
    assert_false(ckd_align64(&r, UINT64_MAX - 31, 32)); /* 2^64-32, aligned */
    assert_true(r == UINT64_MAX - 31);
    assert_false(ckd_align64(&r, UINT64_MAX - 32, 32));
    assert_true(r == UINT64_MAX - 31);
    assert_true(ckd_align64(&r, UINT64_MAX - 30, 32)); /* would be 2^64 */
    assert_true(ckd_align64(&r, UINT64_MAX, 32));
    assert_true(ckd_align64(&r, UINT64_MAX, 2));
    assert_false(ckd_align64(&r, 1ull << 63, 1ull << 63));
    assert_true(r == 1ull << 63);
    assert_true(ckd_align64(&r, (1ull << 63) + 1, 1ull << 63));

    /* non-power-of-two alignments: 48 (spec-legal), 3, 1000 */
    assert_false(ckd_align64(&r, 47, 48));
    assert_true(r == 48);
    assert_false(ckd_align64(&r, 48, 48));
    assert_true(r == 48);
    assert_false(ckd_align64(&r, 49, 48));
    assert_true(r == 96);
    assert_false(ckd_align64(&r, 95, 48));
    assert_true(r == 96);
    assert_false(ckd_align64(&r, 97, 48));
    assert_true(r == 144);
    assert_false(ckd_align64(&r, 4, 3));
    assert_true(r == 6);
    assert_false(ckd_align64(&r, 1001, 1000));
    assert_true(r == 2000);

    /* near UINT64_MAX with a = 48: m is the largest multiple of 48 */
    uint64_t m = UINT64_MAX - UINT64_MAX % 48;
    assert_true(m % 48 == 0);
    assert_true(UINT64_MAX % 48 != 0); /* so m + 1 exists and overflows */
    assert_false(ckd_align64(&r, m, 48));
    assert_true(r == m);
    assert_false(ckd_align64(&r, m - 1, 48));
    assert_true(r == m);
    assert_false(ckd_align64(&r, m - 47, 48));
    assert_true(r == m);
    assert_false(ckd_align64(&r, m - 48, 48));
    assert_true(r == m - 48);
    assert_true(ckd_align64(&r, m + 1, 48));
    assert_true(ckd_align64(&r, UINT64_MAX, 48));

    /* a == UINT64_MAX: the only multiples are 0 and UINT64_MAX */
    assert_false(ckd_align64(&r, UINT64_MAX - 1, UINT64_MAX));
    assert_true(r == UINT64_MAX);
    assert_false(ckd_align64(&r, UINT64_MAX, UINT64_MAX));
    assert_true(r == UINT64_MAX);
    /* a == UINT64_MAX - 1: x = UINT64_MAX would round to 2(2^64-2): overflow */
    assert_true(ckd_align64(&r, UINT64_MAX, UINT64_MAX - 1));
    assert_false(ckd_align64(&r, 2, UINT64_MAX - 1));
    assert_true(r == UINT64_MAX - 1);
}

static void test_is_pow2(void **state)
{
    assert_false(is_pow2_u64(0));
    assert_true(is_pow2_u64(1));
    assert_true(is_pow2_u64(2));
    assert_false(is_pow2_u64(3));
    assert_false(is_pow2_u64(24));
    assert_false(is_pow2_u64(48));
    assert_false(is_pow2_u64(UINT64_MAX));
    assert_false(is_pow2_u64(UINT64_MAX - 1));
    assert_true(is_pow2_u64(1ull << 63));
    assert_false(is_pow2_u64((1ull << 63) + 1));
    assert_false(is_pow2_u64((1ull << 63) - 1));
    for (unsigned k = 0; k < 64; k++) {
        uint64_t p = 1ull << k;
        assert_true(is_pow2_u64(p));
        if (k >= 1)
            assert_false(is_pow2_u64(p + 1));
        if (k >= 2)
            assert_false(is_pow2_u64(p - 1));
        if (k >= 1 && k < 63)
            assert_false(is_pow2_u64(p | (p << 1)));
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_empty_buffer),
            cmocka_unit_test(test_has_edges),
            cmocka_unit_test(test_skip_edges),
            cmocka_unit_test(test_has_huge_len),
            cmocka_unit_test(test_uint_at_end),
            cmocka_unit_test(test_u8_edges),
            cmocka_unit_test(test_u32_edges),
            cmocka_unit_test(test_u64_edges),
            cmocka_unit_test(test_endianness),
            cmocka_unit_test(test_sequence_to_end),
            cmocka_unit_test(test_ckd_add64),
            cmocka_unit_test(test_ckd_mul64),
            cmocka_unit_test(test_ckd_muls64),
            cmocka_unit_test(test_ckd_align64),
            cmocka_unit_test(test_is_pow2),
        })

/* test_utf8.c - the UTF-8 validator: the inline ASCII fast path and the
 * word-at-a-time two-byte path must agree with the byte-wise reference check
 * on every sequence of up to three bytes and on millions of random strings
 * built from ASCII, valid and broken multi-byte pieces; plus fixed cases
 * (overlongs, surrogates, > U+10FFFF, truncated sequences). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "common/utf8.h"

static void agree(const uint8_t *s, uint64_t n)
{
    bool ref = utf8_valid_bytes(s, n);
    /* an exactly-sized copy so ASan catches any read past the end */
    uint8_t *copy = ex_dup(s, (size_t)n);
    if (utf8_valid(copy, n) != ref || utf8_valid_slow(copy, n) != ref) {
        char hex[256] = "";
        for (uint64_t i = 0; i < n && i < 40; i++)
            snprintf(hex + 3 * i, 4, "%02x ", s[i]);
        free(copy);
        fail_msg("disagree on [%s] (reference %d)", hex, ref);
    }
    free(copy);
}

static void test_exhaustive_short(void **state)
{
    uint8_t b[3];
    for (unsigned a = 0; a < 256; a++) {
        b[0] = (uint8_t)a;
        agree(b, 1);
        for (unsigned c = 0; c < 256; c++) {
            b[1] = (uint8_t)c;
            agree(b, 2);
            for (unsigned d = 0x70; d < 0xC8; d++) { /* around the interesting bytes */
                b[2] = (uint8_t)d;
                agree(b, 3);
            }
        }
    }
}

static void test_fixed_cases(void **state)
{
    static const struct {
        const char *s;
        bool ok;
    } cases[] = {
        {"plain ascii text", true},    {"\xc4\xa0the", true},
        {"\xc4\xa0the\xc4\x8a", true}, {"\xc0\xaf", false}, /* overlong '/' */
        {"\xc1\xbf", false},                                /* overlong */
        {"\xe0\x80\xaf", false},                            /* overlong 3-byte */
        {"\xed\xa0\x80", false},                            /* surrogate */
        {"\xf4\x90\x80\x80", false},                        /* > U+10FFFF */
        {"\xf0\x9f\x98\x80", true},                         /* U+1F600 */
        {"abcdefg\xc4", false},                             /* lead as the last byte of a word */
        {"abcdefg\xc4\xa0", true},                          /* pair across a word boundary */
        {"abcdefgh\xa0", false},                            /* stray continuation */
        {"\xe2\x80\xae rtl", true}, /* valid (unsafe for terminals, but UTF-8) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].s);
        assert_int_equal(utf8_valid_bytes((const uint8_t *)cases[i].s, n), cases[i].ok);
        agree((const uint8_t *)cases[i].s, n);
    }
}

static const char *const random_pieces[] = {
    "a",
    "Z",
    " ",
    "\xc4\xa0",
    "\xc3\xa9",
    "\xdf\xbf",
    "\xc2\x80",
    "\xe2\x96\x81",
    "\xf0\x9f\x98\x80",
    "\x80",
    "\xc0",
    "\xc1\x81",
    "\xff",
    "\xed\xa0\x80",
    "\xc4",
    "\xe2\x96",
    "abcdefgh",
    "\xc2",
};

static void test_random(void **state)
{
    uint32_t x = 12345;
    uint8_t buf[80];
    for (int round = 0; round < 300000; round++) {
        size_t n = 0;
        x = x * 1664525u + 1013904223u;
        unsigned count = 1 + (x >> 28);
        for (unsigned k = 0; k < count; k++) {
            x = x * 1664525u + 1013904223u;
            /* mostly valid random_pieces, sometimes broken ones */
            unsigned pick = (x >> 16) % (sizeof random_pieces / sizeof random_pieces[0]);
            if ((x & 7) != 0 && pick >= 9 && pick != 16)
                pick %= 9;
            size_t l = strlen(random_pieces[pick]);
            if (n + l > sizeof buf)
                break;
            memcpy(buf + n, random_pieces[pick], l);
            n += l;
        }
        agree(buf, n);
    }
}

/* utf8_valid_region on runs of strings as they sit in a string array (each
 * after its 8-byte little-endian length, every length below 0x80), from the
 * first string's bytes to the end of the last: valid exactly when every
 * string is (parse.c's check_run). Junk after the run must be ignored, and
 * with the limit at the run's end nothing past it is read (exact-size copy
 * for ASan). */
static void test_runs(void **state)
{
    static const char *const pieces[] = {
        "a",        "\xc4\xa0",     "\xe2\x96\x81", "\xf0\x9f\x98\x80", "\xc4",  "\x80",
        "\xe2\x96", "\xed\xa0\x80", "xyz",          "abcdefghijklmnop", "\x1b[", "\x1b"};
    uint32_t x = 777;
    uint8_t *buf = malloc(4096 + 32);
    assert_non_null(buf);
    for (int round = 0; round < 20000; round++) {
        size_t len = 0;
        bool all_ok = true;
        x = x * 1664525u + 1013904223u;
        unsigned strings = 1 + (x >> 26);
        for (unsigned k = 0; k < strings && len < 3900; k++) {
            uint8_t str[127];
            size_t sl = 0;
            x = x * 1664525u + 1013904223u;
            unsigned count = (x >> 29) + ((x >> 12) % 2 ? 0 : (x >> 13) % 6);
            for (unsigned c = 0; c < count; c++) {
                x = x * 1664525u + 1013904223u;
                unsigned pick = (x >> 16) % 12;
                if ((x & 15) != 0 && pick >= 4 && pick < 8)
                    pick %= 4;
                if (pick >= 10 && (x & 0x300))
                    pick = 8;
                size_t l = strlen(pieces[pick]);
                if (sl + l > sizeof str)
                    break;
                memcpy(str + sl, pieces[pick], l);
                sl += l;
            }
            all_ok = all_ok && utf8_valid_bytes(str, sl);
            for (unsigned b = 0; b < 8; b++)
                buf[len + b] = (uint8_t)((uint64_t)sl >> (8 * b));
            memcpy(buf + len + 8, str, sl);
            len += 8 + sl;
        }
        memset(buf + len, 0x80, 32); /* junk after: must be ignored */
        if (utf8_valid_region(buf + 8, len - 8, buf + len + 32) != all_ok)
            fail_msg("run of %zu bytes: expected %d", len, all_ok);
        bool esc, want_esc = false;
        for (size_t i = 8; i + 1 < len; i++)
            want_esc |= buf[i] == 0x1B && buf[i + 1] >= 0x20 && buf[i + 1] < 0x7F;
        if (utf8_valid_region_esc(buf + 8, len - 8, buf + len + 32, &esc) != all_ok ||
            esc != want_esc)
            fail_msg("run of %zu bytes: expected %d, esc %d", len, all_ok, want_esc);
        uint8_t *exact = ex_dup(buf + 8, len - 8);
        if (utf8_valid_region(exact, len - 8, exact + len - 8) != all_ok)
            fail_msg("exact run of %zu bytes: expected %d", len, all_ok);
        free(exact);
    }
    free(buf);
}

/* Random strings of `pieces`: each round up to max_count of them (at most
 * cap bytes), a piece at index `valid` or above (the broken ones) kept only
 * when (x & mask) is 0; the vector check against the reference. */
typedef struct mix {
    const char *const *pieces;
    unsigned n, valid, max_count, mask;
    uint32_t seed;
    int rounds;
    size_t cap;
} mix;

static void random_mix(const mix *m)
{
    uint32_t x = m->seed;
    uint8_t buf[800];
    assert_true(m->cap <= sizeof buf);
    for (int round = 0; round < m->rounds; round++) {
        size_t n = 0;
        x = x * 1664525u + 1013904223u;
        unsigned count = 1 + (x >> 24) % m->max_count;
        for (unsigned k = 0; k < count; k++) {
            x = x * 1664525u + 1013904223u;
            unsigned pick = (x >> 16) % m->n;
            if ((x & m->mask) != 0 && pick >= m->valid)
                pick %= m->valid;
            size_t l = strlen(m->pieces[pick]);
            if (n + l > m->cap)
                break;
            memcpy(buf + n, m->pieces[pick], l);
            n += l;
        }
        agree(buf, n);
    }
}

static const char *const long_pieces[] = {
    "abcdefghijklmnopqrstuvwxyz012345",
    "a",
    "\xc4\xa0",
    "\xe2\x96\x81",
    "\xf0\x9f\x98\x80",
    "\x80",
    "\xc4",
    "\xe2\x96",
    "\xed\xa0\x80",
    "\xf4\x90\x80\x80",
};

/* Long strings: whole ASCII blocks between multi-byte sequences, sequences
 * across 32-byte boundaries, errors after long valid stretches. */
static void test_random_long(void **state)
{
    random_mix(
        &(mix){long_pieces, sizeof long_pieces / sizeof *long_pieces, 5, 60, 31, 4242, 40000, 700});
}

static const char *const two_byte_pieces[] = {
    "the quick brown fox jumps over 1",
    "\xc4\xa0",
    "\xd0\xb9",
    "\xdf\xbf",
    "\xc2\x80",
    "a",
    "\x80",
    "\xc4",
    "\xc0\x80",
    "\xc1\xbf",
    "\xe2\x96\x81",
};

/* Long strings of ASCII and 2-byte sequences only, with sparse errors
 * (stray continuations, lone leads, the overlong C0/C1 leads, a rare 3-byte
 * sequence next to them): the vector check's 2-byte path against the
 * reference. */
static void test_random_two_byte(void **state)
{
    random_mix(&(mix){two_byte_pieces, sizeof two_byte_pieces / sizeof *two_byte_pieces, 6, 120, 63,
                      31337, 60000, 800});
}

/* Every short sequence, valid or not, at every position of a 200-byte
 * background of ASCII or 2-byte text: the vector check's steps and the
 * boundaries between them (and the mix of its 2-byte and exact methods)
 * against the reference. */
static void test_every_position(void **state)
{
    static const char *const seqs[] = {
        "\xe2\x96\x81",
        "\xe2\x96",
        "\xe2",
        "\xf0\x9f\x98\x80",
        "\xf0\x9f\x98",
        "\xf0\x9f",
        "\xf0",
        "\xed\xa0\x80",
        "\xed\x9f\xbf",
        "\xe0\x80\xaf",
        "\xe0\xa0\x80",
        "\xf4\x90\x80\x80",
        "\xf8\x88\x80\x80",
        "\xc0\xaf",
        "\xc1\xbf",
        "\xc2\x80",
        "\xc2",
        "\x80",
        "\xbf\xbf",
        "\xff",
        "\xe2\x96\x81\xe2\x96\x81",
        "\xc4\xa0\xe2\x96",
        /* a sequence cut short by ASCII, and one continued once too often:
         * across a 64-byte step, the exact step before a 2-byte step */
        "\xe2\x96\x41",
        "\xe2\x41",
        "\xf0\x9f\x41",
        "\xf0\x9f\x98\x41",
        "\xf0\x9f\x98\x80\x80",
        "\xe2\x96\x81\x80",
        "\xe2\x96\x81\xc4",
        "\xc0\x80",
    };
    uint8_t buf[240];
    for (int bg = 0; bg < 2; bg++)
        for (size_t q = 0; q < sizeof seqs / sizeof seqs[0]; q++) {
            size_t l = strlen(seqs[q]);
            for (size_t at = 0; at + l <= 200; at++) {
                for (size_t i = 0; i < 200; i++)
                    buf[i] = bg ? (uint8_t)(i % 2 ? 0xA0 : 0xC4) : (uint8_t)('a' + i % 26);
                if (bg && at % 2) /* keep the 2-byte background's pairs whole */
                    continue;
                memcpy(buf + at, seqs[q], l);
                size_t n = 200;
                if (bg && (at + l) % 2) /* the next pair would lose its lead */
                    buf[at + l] = 'x';
                agree(buf, n);
            }
        }
}

/* ascii_print_span against the byte-wise definition; strings of 256 bytes
 * and more take the AVX2 blocks on hosts that have them, so some rounds
 * make their first stop rare enough to lie far in. */
static void test_print_span(void **state)
{
    uint32_t x = 99;
    uint8_t buf[1200];
    for (int round = 0; round < 100000; round++) {
        x = x * 1664525u + 1013904223u;
        size_t n = round % 2 ? (x >> 8) % 200 : (x >> 8) % sizeof buf;
        uint32_t odds = round % 4 == 0 ? 4096 : 64; /* one byte in `odds` is not printable */
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (x >> 12) % odds ? (uint8_t)(0x20 + (x >> 8) % 0x5F)
                     : (x >> 20) % 3  ? (uint8_t)((x >> 16) % 2 ? '\t' : '\n')
                                      : (uint8_t)(x >> 16);
        }
        size_t want = 0, want_text = 0;
        while (want < n && buf[want] >= 0x20 && buf[want] < 0x7F)
            want++;
        while (want_text < n && ((buf[want_text] >= 0x20 && buf[want_text] < 0x7F) ||
                                 buf[want_text] == '\t' || buf[want_text] == '\n'))
            want_text++;
        uint8_t *exact = ex_dup(buf, n);
        assert_int_equal(ascii_print_span(exact, n, false), want);
        assert_int_equal(ascii_print_span(exact, n, true), want_text);
        free(exact);
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_exhaustive_short),
            cmocka_unit_test(test_fixed_cases),
            cmocka_unit_test(test_random),
            cmocka_unit_test(test_runs),
            cmocka_unit_test(test_random_long),
            cmocka_unit_test(test_random_two_byte),
            cmocka_unit_test(test_every_position),
            cmocka_unit_test(test_print_span),
        })

/* test_json_escape.c - gguflint_json_string, the one JSON string writer
 * (reports, dump, SARIF, manifests): valid UTF-8 decodes to the same code
 * points (code points above U+FFFF that must be escaped, such as the
 * invisible tag characters, become a UTF-16 surrogate pair, never per-byte
 * \u00XX escapes that decode to other characters), and every byte that is not
 * UTF-8 becomes \u00XX. Also gguflint_escape, the terminal escape: its
 * eight-bytes-at-a-time path for plain ASCII gives exactly what the byte loop
 * gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "gguflint.h"

static void expect(const char *in, size_t n, const char *want)
{
    ex_buf o = {0};
    gguflint_json_string(ex_buf_sink, &o, in, n);
    const char *got = o.p ? (const char *)o.p : "";
    if (strcmp(got, want) != 0)
        fail_msg("json of %zu bytes: got %s, want %s", n, got, want);
    free(o.p);
}

#define EXPECT(lit, want) expect(lit, sizeof lit - 1, want)

static void test_json_escape(void **state)
{
    EXPECT("plain", "\"plain\"");
    EXPECT("q\"b\\", "\"q\\\"b\\\\\"");
    EXPECT("nul\0x", "\"nul\\u0000x\"");
    EXPECT("esc\x1b[31m", "\"esc\\u001b[31m\"");
    EXPECT("del\x7f", "\"del\\u007f\"");
    EXPECT("c1\xc2\x9b", "\"c1\\u009b\"");
    EXPECT("rtl\xe2\x80\xae"
           "x",
           "\"rtl\\u202ex\"");
    EXPECT("caf\xc3\xa9", "\"caf\xc3\xa9\"");           /* safe UTF-8 stays as is */
    EXPECT("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""); /* U+1F600 is safe */
    /* U+E0001 LANGUAGE TAG (invisible): a surrogate pair, not \u00f3\u00a0... */
    EXPECT("tag\xf3\xa0\x80\x81x", "\"tag\\udb40\\udc01x\"");
    /* U+E007F CANCEL TAG */
    EXPECT("\xf3\xa0\x81\xbf", "\"\\udb40\\udc7f\"");
    /* not UTF-8: each byte as \u00XX */
    EXPECT("bad\xff\xfe", "\"bad\\u00ff\\u00fe\"");
    EXPECT("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");            /* an encoded surrogate */
    EXPECT("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""); /* past U+10FFFF */
}

/* gguflint_escape of random strings over the bytes at the edges of every
 * class (controls, 0x20, '\\', 0x7E, DEL, C1, UTF-8 pieces) against the same
 * string escaped in pieces of at most 7 bytes, cut only before ASCII bytes
 * (never inside a UTF-8 sequence): pieces that short never take the 8-byte
 * path, so the byte loop is the reference. */
static void test_escape_fast_path(void **state)
{
    static const uint8_t alpha[] = {0x00, 0x09, 0x1B, 0x1F, 0x20, 'a',  'Z',  0x5C, 0x22,
                                    0x7E, 0x7F, 0x80, 0x9B, 0xC2, 0xC3, 0xA9, 0xE2, 0x80,
                                    0xAE, 0xF3, 0xA0, 0x81, 0xBF, 0xFF, 'x',  '.',  '0'};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t s[64];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = (size_t)(x % sizeof s);
        unsigned plain = (unsigned)(x >> 40) % 4; /* mostly plain text, sometimes */
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            s[i] = plain && (x >> 33) % 8 ? (uint8_t)(0x20 + (x >> 20) % 95)
                                          : alpha[(x >> 20) % sizeof alpha];
        }
        ex_buf whole = {0}, parts = {0};
        gguflint_escape(ex_buf_sink, &whole, s, n);
        size_t start = 0;
        for (size_t i = 1; i <= n; i++)
            if (i == n || (i - start >= 7 && s[i] < 0x80)) {
                gguflint_escape(ex_buf_sink, &parts, s + start, i - start);
                start = i;
            }
        if (whole.len != parts.len || (whole.len && memcmp(whole.p, parts.p, whole.len) != 0))
            fail_msg("escape of %zu bytes differs from its 7-byte pieces (iteration %d)", n, iter);
        free(whole.p);
        free(parts.p);
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_json_escape),
            cmocka_unit_test(test_escape_fast_path),
        })

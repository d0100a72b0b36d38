/* test_json_escape.c - gguflint_json_string, the one JSON string writer
 * (reports, dump, SARIF, manifests): valid UTF-8 decodes to the same code
 * points (code points above U+FFFF that must be escaped, such as the
 * invisible tag characters, become a UTF-16 surrogate pair, never per-byte
 * \u00XX escapes that decode to other characters), and every byte that is not
 * UTF-8 becomes \u00XX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gguflint.h"

typedef struct out {
    char buf[512];
    size_t len;
} out;

static void put(void *user, const char *s, size_t n)
{
    out *o = user;
    assert_true(o->len + n < sizeof o->buf);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void expect(const char *in, size_t n, const char *want)
{
    out o = {{0}, 0};
    gguflint_json_string(put, &o, in, n);
    if (strcmp(o.buf, want) != 0)
        fail_msg("json of %zu bytes: got %s, want %s", n, o.buf, want);
}

#define EXPECT(lit, want) expect(lit, sizeof lit - 1, want)

static void test_json_escape(void **state)
{
    (void)state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_json_escape)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_kv.c - the key/value table rules (GG1xx, rules/kv.def): for each rule
 * files that trigger it with the finding at the exact offset of the
 * offending field (key, value type, count, value), and clean variants. */

#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"
#include "rulekit.h"

/* The structural rules only (see rulekit.h). */
#define ST rk_structural()

static void w_empty_key(gb *b)
{
    gb_kv_u32(b, "", 7);
}

static void w_good_key(gb *b)
{
    gb_kv_u32(b, "general.file_type", 7);
}

/* An array of `levels` nested arrays whose innermost holds two u8. Returns
 * the offsets of each level's element-type field in et[]. */
static uint8_t *nested_array_file(int levels, size_t *et, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.nested", GB_VT_ARR);
    for (int i = 0; i < levels; i++) {
        et[i] = gb_arr_header(b, i + 1 < levels ? GB_VT_ARR : GB_VT_U8, i + 1 < levels ? 1 : 2);
    }
    gb_u8(b, 1);
    gb_u8(b, 2);
    return rk_finish(b, len);
}

static void test_GG101_empty_key(void **state)
{
    gb_marks m;
    size_t len;
    uint8_t *buf = rk_one_kv_file(w_empty_key, &m, &len);
    assert_int_equal(m.start, 24);
    ex_assert_finding(buf, len, ST, "GG101", 24);
    free(buf);
    buf = rk_one_kv_file(w_good_key, &m, &len);
    ex_assert_clean(buf, len, ST);
    free(buf);
}

static void test_GG102_key_too_long(void **state)
{
    size_t len;
    char *key = malloc(65537);
    assert_non_null(key);
    memset(key, 'a', 65536);
    key[65536] = 0;
    gb *b = gb_new(3);
    gb_kv_u8(b, "general.x", 1);
    size_t at = gb_kv_u8(b, key, 1);
    RK_EXPECT(b, ST, "GG102", at);
    key[65535] = 0; /* 65535 bytes: the limit itself is fine */
    b = gb_new(3);
    gb_kv_u8(b, key, 1);
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_no_rule(buf, len, ST, "GG102");
    free(buf);
    free(key);
}

/* Key cases: a file of a clean KV (when `after_clean`) and a u8 KV with this
 * key; the rule must be reported at the key's KV (or, with id NULL, the
 * rules `not` must not). Keys with a NUL give their length. */
typedef struct key_case {
    const char *id; /* expected at the KV; NULL: a clean key */
    const char *key;
    size_t keylen; /* 0: strlen(key) */
    bool after_clean;
    const char * not ; /* a rule that must not be reported (or NULL) */
} key_case;

static const key_case key_cases[] = {
    {"GG103", "general.\xff\xfe", 0, true, NULL},
    {"GG103", "a\xc0\xaf", 0, false, NULL}, /* overlong encoding of '/' */
    {"GG104", "general\x01name", 0, false, NULL},
    {"GG104", "general.b\0x", 11, true, NULL},     /* an embedded NUL */
    {"GG104", "general.\x1b[31m", 0, false, NULL}, /* ESC */
    {"GG105", "General.Name", 0, true, NULL},
    {"GG105", "general name", 0, false, NULL},
    {NULL, "llama.attention.head_count_kv", 0, true, "GG105"},
    {NULL, "general.ok_key", 0, false, "GG105"},
};

static void test_key_cases(void **state)
{
    for (size_t i = 0; i < sizeof key_cases / sizeof key_cases[0]; i++) {
        const key_case *c = &key_cases[i];
        char where[64];
        snprintf(where, sizeof where, "key case %zu (%s)", i, c->id ? c->id : "clean");
        gb *b = gb_new(3);
        if (c->after_clean)
            gb_kv_u8(b, "general.x", 1);
        size_t at = gb_kv_beginn(b, c->key, c->keylen ? c->keylen : strlen(c->key), GB_VT_U8);
        gb_u8(b, 1);
        size_t len;
        uint8_t *buf = rk_finish(b, &len);
        if (c->id)
            ex_assert_finding_at(buf, len, ST, c->id, at, where);
        if (c->not )
            ex_assert_no_rule_at(buf, len, ST, c->not, where);
        free(buf);
    }
}

/* GG105 as the byte rule decides it: ASCII keys of [a-z0-9_] segments joined
 * by single dots, '-' allowed in the first segment. */
static bool snake_case(const char *k, size_t n)
{
    size_t seg = 0, segs = 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (c == '.') {
            if (seg == 0)
                return false;
            seg = 0;
            segs++;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
              (c == '-' && segs == 0)))
            return false;
        seg++;
    }
    return seg > 0;
}

/* Keys of 1 to 200 bytes, plain or with one defect (a dot, an upper-case
 * letter, a '-' or a space) placed at the ends or around the 64-byte steps
 * of the parser's fast path: GG105 exactly when the byte rule says so. */
static void test_long_keys(void **state)
{
    static const char word[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    static const char bad[] = ".A- ";
    uint64_t x = 0x243F6A8885A308D3ull;
    for (int iter = 0; iter < 1500; iter++) {
        char key[201];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = 1 + (size_t)(x % 200);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bool dot = i > 0 && i + 1 < n && key[i - 1] != '.' && (x >> 11) % 7 == 0;
            key[i] = dot ? '.' : word[(x >> 20) % (sizeof word - 1)];
        }
        if (iter % 2) {
            static const size_t spots[] = {0, 1, 62, 63, 64, 65, 126, 127, 128, 129};
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (x >> 8) % 3 == 0 ? n - 1 - (x >> 16) % 2 : spots[(x >> 24) % 10];
            if (at < n)
                key[at] = bad[(x >> 32) % (sizeof bad - 1)];
        }
        key[n] = 0;
        gb *b = gb_new(3);
        size_t kv = gb_kv_beginn(b, key, n, GB_VT_U8);
        gb_u8(b, 1);
        gb_kv_u8(b, "general.x", 1); /* bytes after the key: its loads stay inside */
        size_t len;
        uint8_t *buf = rk_finish(b, &len);
        char where[256];
        snprintf(where, sizeof where, "key '%s' (%zu bytes)", key, n);
        if (snake_case(key, n))
            ex_assert_no_rule_at(buf, len, ST, "GG105", where);
        else
            ex_assert_finding_at(buf, len, ST, "GG105", kv, where);
        free(buf);
    }
}

static void test_GG106_duplicate_key(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_u32(b, "general.a", 1);
    gb_kv_u32(b, "general.b", 1);
    size_t at = gb_kv_str(b, "general.a", "again");
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_finding(buf, len, ST, "GG106", at);
    /* The first occurrence is not the duplicate. */
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    size_t at24;
    assert_int_equal(ex_count_id(ctx, "GG106", 24, &at24), 1);
    assert_int_equal(at24, 0);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG107_unknown_value_type(void **state)
{
    uint32_t bad[] = {13, 0xffffffffu, 0x80000000u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gb *b = gb_new(3);
        gb_kv_u8(b, "general.a", 1);
        gb_kv_begin(b, "general.b", bad[i]);
        size_t at = gb_last(b)->vtype;
        gb_u32(b, 0);
        RK_EXPECT(b, ST, "GG107", at);
    }
}

static void test_GG108_unknown_array_type(void **state)
{
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", 13, 0, NULL, 0);
    size_t at = gb_last(b)->value;
    RK_EXPECT(b, ST, "GG108", at);
    b = gb_new(3);
    gb_kv_u8(b, "general.x", 1);
    gb_kv_arr(b, "general.a", 0xffffffffu, 2, "\0\0", 2);
    at = gb_last(b)->value;
    RK_EXPECT(b, ST, "GG108", at);
}

static void test_GG109_nested_array(void **state)
{
    size_t len, et[4];
    uint8_t *buf = nested_array_file(2, et, &len);
    ex_assert_finding(buf, len, ST, "GG109", et[0]);
    /* Within the default depth limit: only the nesting is reported. */
    ex_assert_only_rules(buf, len, ST, "GG109");
    free(buf);
    buf = nested_array_file(1, et, &len);
    ex_assert_clean(buf, len, ST);
    free(buf);
}

static void test_GG110_array_too_deep(void **state)
{
    size_t len, et[4];
    gguflint_options *o = rk_options();
    uint8_t *buf = nested_array_file(2, et, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 1);
    ex_assert_finding(buf, len, o, "GG110", et[1]);
    ex_assert_finding(buf, len, o, "GG109", et[0]);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 2);
    ex_assert_no_rule(buf, len, o, "GG110");
    free(buf);
    buf = nested_array_file(3, et, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 2);
    ex_assert_finding(buf, len, o, "GG110", et[2]);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG111_array_count_impossible(void **state)
{
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_U32, UINT64_C(1) << 40, NULL, 0);
    size_t at = gb_last(b)->arr_count;
    RK_EXPECT(b, ST, "GG111", at);
    /* Strings: each element needs at least its 8-byte length. */
    b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_STR, 3, "\0\0\0\0\0\0\0\0", 8);
    at = gb_last(b)->arr_count;
    RK_EXPECT(b, ST, "GG111", at);
}

static void test_GG112_string_past_eof(void **state)
{
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.name", GB_VT_STR);
    size_t at = gb_str_decl(b, 100, "abc", 3);
    RK_EXPECT(b, ST, "GG112", at);
    /* A key whose length runs past the end. */
    b = gb_new(3);
    at = gb_str_decl(b, 1000, "general.name", 12);
    gb_override_counts(b, 0, 1);
    RK_EXPECT(b, ST, "GG112", at);
    /* A string-array element. */
    b = gb_new(3);
    gb_kv_begin(b, "general.tags", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 2);
    gb_str(b, "x", 1);
    at = gb_str_decl(b, 50, "yz", 2);
    RK_EXPECT(b, ST, "GG112", at);
}

static void test_GG113_string_over_limit(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_str(b, "n", "hello"); /* the key, a string too, stays under the limit */
    size_t at = gb_last(b)->value;
    uint8_t *buf = rk_finish(b, &len);
    gguflint_options *o = rk_options();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 4);
    ex_assert_finding(buf, len, o, "GG113", at);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 5);
    ex_assert_no_rule(buf, len, o, "GG113");
    free(buf);
    /* Keys are strings too. */
    b = gb_new(3);
    at = gb_kv_u8(b, "general.name", 1);
    buf = rk_finish(b, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 11);
    ex_assert_finding(buf, len, o, "GG113", at);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG114_bool_not_0_1(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_bool(b, "general.flag", 2);
    size_t at = gb_last(b)->value;
    RK_EXPECT(b, ST, "GG114", at);
    /* A bool array element. */
    b = gb_new(3);
    gb_kv_arr(b, "general.flags", GB_VT_BOOL, 3, "\x01\x00\xff", 3);
    at = gb_last(b)->arr_elems + 2;
    RK_EXPECT(b, ST, "GG114", at);
    /* 0 and 1 are fine. */
    b = gb_new(3);
    gb_kv_bool(b, "general.a", 1);
    gb_kv_bool(b, "general.b", 0);
    gb_kv_arr(b, "general.c", GB_VT_BOOL, 2, "\x01\x00", 2);
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_clean(buf, len, ST);
    free(buf);
}

static void test_GG115_alignment_wrong_type(void **state)
{
    gb *b = gb_new(3);
    gb_kv_u64(b, "general.alignment", 32);
    size_t at = gb_last(b)->vtype;
    RK_EXPECT(b, ST, "GG115", at);
    b = gb_new(3);
    uint32_t a[1] = {32};
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr(b, "general.alignment", GB_VT_U32, 1, a, sizeof a);
    at = gb_last(b)->vtype;
    RK_EXPECT(b, ST, "GG115", at);
    b = gb_new(3);
    gb_kv_i32(b, "general.alignment", 32);
    at = gb_last(b)->vtype;
    RK_EXPECT(b, ST, "GG115", at);
}

/* general.alignment values: a file with general.architecture and the
 * alignment (and, when `tensor`, one f32 tensor: GG119 is only about files
 * whose data is padded); the rule is reported at the value, or not at all. */
typedef struct align_case {
    uint32_t value;
    bool tensor;
    const char *id;
    bool reported;
} align_case;

static const align_case align_cases[] = {
    {0, false, "GG116", true},         {32, false, "GG116", false},
    {48, false, "GG117", true},        {24, false, "GG117", true},
    {64, false, "GG117", false},       {4, false, "GG118", true},
    {1, false, "GG118", true},         {8, false, "GG118", false},
    {32, false, "GG118", false},       {1u << 21, true, "GG119", true},
    {1u << 31, true, "GG119", true},   {1u << 20, true, "GG119", false},
    {1u << 21, false, "GG119", false}, /* no tensors: harmless */
};

static void test_alignment_cases(void **state)
{
    for (size_t i = 0; i < sizeof align_cases / sizeof align_cases[0]; i++) {
        const align_case *c = &align_cases[i];
        char where[64];
        snprintf(where, sizeof where, "alignment %u (%s)", c->value, c->id);
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        gb_kv_u32(b, "general.alignment", c->value);
        size_t at = gb_last(b)->value;
        if (c->tensor) {
            uint64_t ne[1] = {8};
            gb_tensor(b, "t", 1, ne, GB_F32, 0);
        }
        size_t len;
        uint8_t *buf = rk_finish(b, &len);
        if (c->reported)
            ex_assert_finding_at(buf, len, ST, c->id, at, where);
        else
            ex_assert_no_rule_at(buf, len, ST, c->id, where);
        free(buf);
    }
}

static void test_GG120_array_count_over_limit(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_U8, 4, "\1\2\3\4", 4);
    size_t at = gb_last(b)->arr_count;
    uint8_t *buf = rk_finish(b, &len);
    gguflint_options *o = rk_options();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_ARRAY_COUNT, 3);
    ex_assert_finding(buf, len, o, "GG120", at);
    ex_assert_no_rule(buf, len, o, "GG111");
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_ARRAY_COUNT, 4);
    ex_assert_no_rule(buf, len, o, "GG120");
    free(buf);
    gguflint_options_free(o);
}

static void test_GG121_string_invalid_utf8(void **state)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_strn(b, "general.name", "ab\xc3\x28", 4);
    size_t at = gb_last(b)->value;
    RK_EXPECT(b, ST, "GG121", at);
    /* A string-array element (the second). */
    b = gb_new(3);
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 3);
    gb_str(b, "ok", 2);
    at = gb_str(b, "\xed\xa0\x80", 3); /* a UTF-16 surrogate */
    gb_str(b, "fine", 4);
    RK_EXPECT(b, ST, "GG121", at);
    /* Valid multi-byte UTF-8 is fine. */
    b = gb_new(3);
    gb_kv_str(b, "general.name", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    uint8_t *buf = rk_finish(b, &len);
    ex_assert_clean(buf, len, ST);
    free(buf);
}

/* String arrays are validated a run of short strings at a time (parse.c):
 * every invalid element is still found, at its own offset, before and after
 * a long element, and a long element's length field (whose first byte may
 * be a continuation byte, 0xA9 here) never completes a sequence left open by
 * the string before it. */
static void test_GG121_string_array_runs(void **state)
{
    char long_ok[169], long_bad[300];
    memset(long_ok, 'a', sizeof long_ok);
    memset(long_bad, 'b', sizeof long_bad);
    long_bad[250] = (char)0xC3; /* a lead followed by ASCII */
    size_t len;
    gb *b = gb_new(3);
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 4);
    gb_str(b, "\xc4\xa0ok", 4);
    size_t bad1 = gb_str(b, "x\xc3", 2); /* cut sequence, then a long one (0xA9 ...) */
    gb_str(b, long_ok, sizeof long_ok);
    gb_str(b, "end", 3);
    gb_kv_begin(b, "tokenizer.ggml.merges", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 7);
    gb_str(b, long_ok, sizeof long_ok);
    gb_str(b, "\xc4\xa0-ne", 5);
    size_t bad2 = gb_str(b, "\xa0y", 2); /* starts with a continuation */
    gb_str(b, "\xe2\x96\x81z", 4);
    size_t bad3 = gb_str(b, long_bad, sizeof long_bad);
    size_t bad4 = gb_str(b, "\xed\xa0\x80", 3); /* surrogate, after the long one */
    gb_str(b, "end", 3);
    uint8_t *buf = rk_finish(b, &len);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
    assert_int_equal(ex_count(ctx, "GG121"), 4);
    const size_t bad[] = {bad1, bad2, bad3, bad4};
    for (size_t i = 0; i < 4; i++) {
        size_t at;
        ex_count_id(ctx, "GG121", bad[i], &at);
        assert_int_equal(at, 1);
    }
    gguflint_free(ctx);
    free(buf);
}

/* A string array of several MiB is validated a run at a time and, when it
 * comes from a mapped file, its pages are given back as it is read (parse.c,
 * source_drop). Linting the file must find exactly what linting the same
 * bytes in memory finds: invalid elements near the run boundaries, long
 * elements, and escape sequences the string checks look for afterwards. */
static void test_large_array_file_equals_buffer(void **state)
{
    enum { N = 300000 };
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_begin(b, "tokenizer.ggml.merges", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, N);
    char big[300];
    memset(big, 'q', sizeof big);
    for (uint32_t i = 0; i < N; i++) {
        char t[32];
        int n = snprintf(t, sizeof t, "\xc4\xa0tok%u", i);
        if (i % 9973 == 7)
            t[1] = 'x'; /* \xc4 x: invalid */
        if (i % 77777 == 5)
            memcpy(t + 2, "\x1b[0m", 4); /* an escape sequence */
        if (i % 66666 == 1) {
            gb_str(b, big, sizeof big);
            continue;
        }
        gb_str(b, t, (size_t)n);
    }
    size_t len;
    uint8_t *buf = rk_finish(b, &len);
    assert_true(len > (4u << 20));
    char path[] = "bigvocab-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    gguflint_ctx *mem = ex_lint(buf, len);
    gguflint_ctx *file = ex_lint_path(path, NULL);
    assert_non_null(file);
    /* every invalid element, by index (runs split every RUN_BYTES) */
    size_t want = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (i % 9973 != 7 || i % 66666 == 1)
            continue;
        char msg[64];
        snprintf(msg, sizeof msg, "array element %u is not valid UTF-8", i);
        bool found = false;
        for (size_t k = 0; k < gguflint_finding_count(mem) && !found; k++)
            found = strcmp(gguflint_finding_get(mem, k)->message, msg) == 0;
        assert_true(found);
        want++;
    }
    assert_int_equal(ex_count(mem, "GG121"), want);
    size_t escapes = 0;
    for (uint32_t i = 0; i < N; i++)
        escapes += i % 77777 == 5 && i % 66666 != 1;
    assert_int_equal(ex_count(mem, "GG700"), escapes);
    assert_int_equal(gguflint_finding_count(file), gguflint_finding_count(mem));
    for (size_t i = 0; i < gguflint_finding_count(mem); i++) {
        const gguflint_finding *x = gguflint_finding_get(mem, i),
                               *y = gguflint_finding_get(file, i);
        assert_int_equal(x->rule, y->rule);
        assert_int_equal(x->offset, y->offset);
        assert_string_equal(x->message, y->message);
    }
    gguflint_free(mem);
    gguflint_free(file);
    unlink(path);
    free(buf);
}

/* The key rules on random keys, most made of the bytes of real keys: a key
 * gets GG103/GG104/GG105 exactly when this plain statement of the rules
 * says so (the parser checks most keys 16 bytes at a time and only falls
 * back to the byte-wise rules when a key may break one). Keys of 1..70
 * bytes, each once with more KVs after it and once as the file's last;
 * snake_case above is that statement of GG105. */
static void test_key_rules_random(void **state)
{
    static const char alphabet[] = "abcxyz019_.._.-A\x01\x7f";
    uint64_t x = 0x1234567;
    for (int round = 0; round < 6000; round++) {
        char key[72];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = 1 + (size_t)(x >> 33) % 70;
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(x >> 40);
            /* mostly lowercase letters, some dots, rarely anything else */
            key[i] = r % 16 < 11   ? (char)('a' + r % 26)
                     : r % 16 < 14 ? '.'
                                   : alphabet[r % (sizeof alphabet - 1)];
        }
        bool clean = snake_case(key, n);
        for (int last = 0; last < 2; last++) {
            gb *b = gb_new(3);
            gb_kv_beginn(b, key, n, GB_VT_U8);
            gb_u8(b, 1);
            if (!last)
                gb_kv_u32(b, "general.file_type", 7);
            size_t len;
            uint8_t *buf = rk_finish(b, &len);
            gguflint_ctx *ctx = ex_lint_opt(buf, len, ST, NULL);
            size_t hits = ex_count(ctx, "GG103") + ex_count(ctx, "GG104") + ex_count(ctx, "GG105");
            if ((hits == 0) != clean)
                fail_msg("key '%.*s' (%zu bytes): %zu key findings, expected %s", (int)n, key, n,
                         hits, clean ? "none" : "some");
            gguflint_free(ctx);
            free(buf);
        }
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_GG101_empty_key),
            cmocka_unit_test(test_GG102_key_too_long),
            cmocka_unit_test(test_key_cases),
            cmocka_unit_test(test_long_keys),
            cmocka_unit_test(test_GG106_duplicate_key),
            cmocka_unit_test(test_GG107_unknown_value_type),
            cmocka_unit_test(test_GG108_unknown_array_type),
            cmocka_unit_test(test_GG109_nested_array),
            cmocka_unit_test(test_GG110_array_too_deep),
            cmocka_unit_test(test_GG111_array_count_impossible),
            cmocka_unit_test(test_GG112_string_past_eof),
            cmocka_unit_test(test_GG113_string_over_limit),
            cmocka_unit_test(test_GG114_bool_not_0_1),
            cmocka_unit_test(test_GG115_alignment_wrong_type),
            cmocka_unit_test(test_alignment_cases),
            cmocka_unit_test(test_GG120_array_count_over_limit),
            cmocka_unit_test(test_GG121_string_invalid_utf8),
            cmocka_unit_test(test_GG121_string_array_runs),
            cmocka_unit_test(test_large_array_file_equals_buffer),
            cmocka_unit_test(test_key_rules_random),
        })

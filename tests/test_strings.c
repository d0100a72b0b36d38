/* test_strings.c - string hygiene and resource claims (check_strings.c,
 * GG700-GG709): for each rule a triggering file and clean variants, with the
 * exact id and offset (keys at the key's length field, values at the value's
 * length field, array elements at the element's length field, tensor names at
 * the tensor info). Vocabulary arrays carrying the control, C1, bidi and
 * zero-width tokens real vocabularies have must stay clean; the real files
 * must get no warning or error from these rules; a 262144-token vocabulary is
 * checked in linear time. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <time.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

/* ------------------------------------------------------------ helpers */

#define EXPECT_AT(buf, len, id, off) ex_expect_at(buf, len, id, off, __func__)

/* None of the string rules GG700-GG709. Frees buf. */
static void expect_clean(uint8_t *buf, size_t len, const char *where)
{
    gguflint_ctx *ctx = ex_lint(buf, len);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strncmp(gguflint_rule((size_t)f->rule)->id, "GG70", 4) == 0) {
            print_message("%s: unexpected finding\n", where);
            ex_print_findings(NULL, ctx);
            gguflint_free(ctx);
            free(buf);
            fail_msg("%s: not clean", where);
        }
    }
    gguflint_free(ctx);
    free(buf);
}
#define EXPECT_CLEAN(buf, len) expect_clean(buf, len, __func__)

static uint8_t *done(gb *b, size_t *len)
{
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

/* A file with general.architecture and one string KV; *at = its value. */
static uint8_t *one_value(const char *key, const char *val, size_t n, size_t *at, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_strn(b, key, val, n);
    *at = gb_last(b)->value;
    return done(b, len);
}
#define VALUE(key, lit, at, len) one_value(key, lit, sizeof(lit) - 1, at, len)

/* A file with one tensor of this name; *at = its info offset. */
static uint8_t *one_tensor(const void *name, size_t n, size_t *at, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    uint64_t ne[1] = {32};
    gb_tensorn(b, name, n, 1, ne, GB_F32, 0);
    *at = gb_last(b)->start;
    gb_pad_to(b, 32);
    gb_zeros(b, 128);
    return done(b, len);
}
#define TENSOR(lit, at, len) one_tensor(lit, sizeof(lit) - 1, at, len)

/* A string array; *at = offset of element `want`. */
static uint8_t *one_array(const char *key, const char *const *v, size_t n, size_t want, size_t *at,
                          size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr_str(b, key, v, n);
    size_t off = gb_last(b)->arr_elems;
    for (size_t i = 0; i < want; i++)
        off += 8 + strlen(v[i]);
    *at = off;
    return done(b, len);
}

/* ------------------------------------------------------------ GG700 */

static void test_terminal_escape(void **state)
{
    size_t at, len;
    uint8_t *buf = VALUE("general.name", "Model \x1b[31mred\x1b[0m", &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* C1 CSI as UTF-8 (U+009B), and as a stray byte */
    buf = VALUE("general.description",
                "a\xc2\x9b"
                "31m",
                &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    buf = VALUE("general.description",
                "a\x9b"
                "31m",
                &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* OSC 52 in a chat template */
    buf = VALUE("tokenizer.chat_template", "{{ x }}\x1b]52;c;ZWNobw==\x07", &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* tensor names */
    buf = TENSOR("blk.0.\x1b[2Jw", &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* a token holding an escape sequence */
    static const char *const toks[] = {"<unk>", "\x1b", "\x1b[2J\x1b[H", "b"};
    buf = one_array("tokenizer.ggml.tokens", toks, 4, 2, &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* string arrays outside the vocabulary: any ESC */
    static const char *const tags[] = {"ok", "x\x1b"};
    buf = one_array("general.tags", tags, 2, 1, &at, &len);
    EXPECT_AT(buf, len, "GG700", at);

    /* a lone ESC token is a byte token; keys are GG104's */
    static const char *const bytes[] = {"\x1b", "\x01", "\x7f", "\x1b"};
    buf = one_array("tokenizer.ggml.tokens", bytes, 4, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
    /* an ESC ending a token, followed by a length field whose low byte is
     * printable (65 = 'A'), and a length of 27 (0x1B) followed by 'x' */
    static const char *const edge[] = {
        "a\x1b", "0123456789012345678901234567890123456789012345678901234567890123x",
        "012345678901234567890123456", "x"};
    buf = one_array("tokenizer.ggml.tokens", edge, 4, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
    static const char *const late[] = {"a\x1b", "b", "012345678901234567890123456", "c\x1b[0m"};
    buf = one_array("tokenizer.ggml.merges", late, 4, 3, &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    /* the parse pass finds vocabulary escapes for this check (parse.c):
     * one inside a long token, and one in the last of 300 short tokens */
    char big[201], *many[300];
    memset(big, 'a', 200);
    big[150] = 0x1b, big[151] = '[', big[200] = 0;
    const char *bigtoks[] = {"x", big, "y"};
    buf = one_array("tokenizer.ggml.tokens", bigtoks, 3, 1, &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    for (size_t i = 0; i < 300; i++)
        many[i] = i == 299 ? "z\x1b]0;" : i % 7 == 3 ? "012345678901234567890123456" : "tok";
    buf = one_array("tokenizer.ggml.tokens", (const char *const *)many, 300, 299, &at, &len);
    EXPECT_AT(buf, len, "GG700", at);
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "llama.\x1b[31mblock_count", 1);
    buf = done(b, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG700", 0, NULL), 0);
    assert_int_equal(ex_count_id(ctx, "GG104", 0, NULL), 1);
    gguflint_free(ctx);
    free(buf);
}

/* ------------------------------------------------------------ GG701 */

static void test_control_char(void **state)
{
    size_t at, len;
    uint8_t *buf = VALUE("general.description", "Official release\rfork", &at, &len);
    EXPECT_AT(buf, len, "GG701", at);
    buf = VALUE("general.name", "a\bb", &at, &len);
    EXPECT_AT(buf, len, "GG701", at);
    buf = VALUE("general.name", "cut\0here", &at, &len);
    EXPECT_AT(buf, len, "GG701", at);
    buf = VALUE("general.name", "nel\xc2\x85", &at, &len); /* C1 NEL */
    EXPECT_AT(buf, len, "GG701", at);
    buf = VALUE("general.name", "trailing cr\r", &at, &len);
    EXPECT_AT(buf, len, "GG701", at);
    buf = TENSOR("blk.0\t.weight", &at, &len);
    EXPECT_AT(buf, len, "GG701", at);
    /* a C1 control in a key (C0 in keys is GG104) */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    at = gb_kv_u32(b, "general.x\xc2\x85y", 1);
    buf = done(b, &len);
    EXPECT_AT(buf, len, "GG701", at);

    /* tab, LF and CRLF are normal in values; vocabularies hold control tokens */
    buf = VALUE("tokenizer.chat_template", "{% for m in messages %}\r\n\t{{ m }}\n{% endfor %}",
                &at, &len);
    EXPECT_CLEAN(buf, len);
    static const char *const toks[] = {"\n", "\t", ";\r", "\x01", "\xc2\x92", "\r\n"};
    buf = one_array("tokenizer.ggml.tokens", toks, 6, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
    static const char *const merges[] = {"\xc4\xa0 t", "\r \n"};
    buf = one_array("tokenizer.ggml.merges", merges, 2, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
}

/* ------------------------------------------------------------ GG702 */

static void test_bidi_control(void **state)
{
    size_t at, len;
    uint8_t *buf = VALUE("general.license", "MIT \xe2\x80\xae,laicremmoc-non", &at, &len);
    EXPECT_AT(buf, len, "GG702", at);
    buf = VALUE("general.description", "{{ x }}\xe2\x81\xa6 hidden \xe2\x81\xa9", &at, &len);
    EXPECT_AT(buf, len, "GG702", at);
    buf = TENSOR("blk.0.attn_q\xe2\x80\xad.weight", &at, &len);
    EXPECT_AT(buf, len, "GG702", at);
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    at = gb_kv_u32(b, "general.\xe2\x81\xa7x", 1);
    buf = done(b, &len);
    EXPECT_AT(buf, len, "GG702", at);

    /* real vocabularies have bidi controls as tokens; LRM/RLM are not reported */
    static const char *const toks[] = {"\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae", "a"};
    buf = one_array("tokenizer.ggml.tokens", toks, 4, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
    buf =
        VALUE("general.description", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\xe2\x80\x8f abc", &at, &len);
    EXPECT_CLEAN(buf, len);
}

/* ------------------------------------------------------------ GG703 */

static void test_invisible_char(void **state)
{
    size_t at, len;
    uint8_t *buf = VALUE("general.name",
                         "ev\xe2\x80\x8b"
                         "al",
                         &at, &len);
    EXPECT_AT(buf, len, "GG703", at);
    buf = VALUE("general.description", "\xef\xbb\xbfText", &at, &len); /* BOM */
    EXPECT_AT(buf, len, "GG703", at);
    buf = VALUE("general.description", "x\xe2\x81\xa0y", &at, &len); /* word joiner */
    EXPECT_AT(buf, len, "GG703", at);
    /* tag characters spelling "AB" (ASCII smuggling) */
    buf = VALUE("general.description", "x\xf3\xa0\x81\x81\xf3\xa0\x81\x82", &at, &len);
    EXPECT_AT(buf, len, "GG703", at);
    /* a zero-width joiner at the end of a value */
    buf = VALUE("general.name", "\xf0\x9f\x91\xa8\xe2\x80\x8d", &at, &len);
    EXPECT_AT(buf, len, "GG703", at);
    buf = TENSOR("bl\xe2\x80\x8dk.0.w", &at, &len);
    EXPECT_AT(buf, len, "GG703", at);
    static const char *const tags[] = {"a", "b\xe2\x80\x8c"};
    buf = one_array("general.tags", tags, 2, 1, &at, &len);
    EXPECT_AT(buf, len, "GG703", at);

    /* ZWJ in an emoji sequence, ZWNJ in Persian, a subdivision flag */
    buf = VALUE("general.description",
                "dev \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb and "
                "\xd9\x85\xdb\x8c\xe2\x80\x8c\xd8\xae\xd9\x88\xd8\xa7\xd9\x87\xd9\x85 and "
                "\xf0\x9f\x8f\xb4\xf3\xa0\x81\xa7\xf3\xa0\x81\xa2\xf3\xa0\x81\xa5\xf3\xa0\x81\xae"
                "\xf3\xa0\x81\xa7\xf3\xa0\x81\xbf!",
                &at, &len);
    EXPECT_CLEAN(buf, len);
    /* in chat templates bidi and invisible characters are GG728's */
    buf = VALUE("tokenizer.chat_template", "{{ x }}\xe2\x80\x8b\xe2\x80\xae\xf3\xa0\x81\x81", &at,
                &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG702", 0, NULL), 0);
    assert_int_equal(ex_count_id(ctx, "GG703", 0, NULL), 0);
    gguflint_free(ctx);
    free(buf);
    static const char *const tpl[] = {"{{ a }}", "b\xe2\x80\x8b"};
    buf = one_array("tokenizer.chat_template.tool_use", tpl, 2, 1, &at, &len);
    ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG703", 0, NULL), 0);
    gguflint_free(ctx);
    free(buf);
    /* vocabularies have zero-width tokens */
    static const char *const toks[] = {"\xef\xbb\xbf", "\xe2\x80\x8b", "\xe2\x81\xa0", "x"};
    buf = one_array("tokenizer.ggml.tokens", toks, 4, 0, &at, &len);
    EXPECT_CLEAN(buf, len);
}

/* ------------------------------------------------------------ GG704 */

static void test_tensor_name_hidden_suffix(void **state)
{
    size_t at, len;
    uint8_t *buf = TENSOR("output.weight\0evil", &at, &len);
    EXPECT_AT(buf, len, "GG704", at);
    buf = TENSOR("output.weight\0\0\0x", &at, &len);
    EXPECT_AT(buf, len, "GG704", at);
    /* trailing NULs only: GG204 reports the NUL, both readers agree on the rest */
    buf = TENSOR("output.weight\0\0", &at, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG704", 0, NULL), 0);
    assert_int_equal(ex_count_id(ctx, "GG204", 0, NULL), 1);
    gguflint_free(ctx);
    free(buf);
    buf = TENSOR("output.weight", &at, &len);
    EXPECT_CLEAN(buf, len);
}

/* ------------------------------------------------------------ GG705 */

static void test_path_like_name(void **state)
{
    size_t at, len;
    uint8_t *buf = TENSOR("../../.bashrc", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);
    buf = TENSOR("/etc/passwd", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);
    buf = TENSOR("blk.0/../../x", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);
    buf = VALUE("general.basename", "C:\\Windows\\x", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);
    buf = VALUE("general.name", "..", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);
    buf = VALUE("general.finetune", "..\\up", &at, &len);
    EXPECT_AT(buf, len, "GG705", at);

    /* names with slashes or dots that are not paths; keys not used as names */
    buf = VALUE("general.name", "Llama 3.1 8B / Instruct", &at, &len);
    EXPECT_CLEAN(buf, len);
    buf = VALUE("general.version", "v0..2", &at, &len);
    EXPECT_CLEAN(buf, len);
    buf = VALUE("general.url", "https://example.org/../x", &at, &len);
    EXPECT_CLEAN(buf, len);
    buf = TENSOR("blk.0.attn_q.weight", &at, &len);
    EXPECT_CLEAN(buf, len);
}

/* ------------------------------------------------------------ GG706-GG709 */

static uint8_t *claim_u32(const char *key, uint32_t v, size_t *at, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, key, v);
    *at = gb_last(b)->value;
    return done(b, len);
}

static void test_resource_claims(void **state)
{
    size_t at, len;
    static const struct {
        const char *key, *id;
        uint32_t bad, good;
    } cases[] = {
        {"llama.context_length", "GG706", 1u << 24, (1u << 24) - 1},
        {"llama.vocab_size", "GG707", (1u << 21) + 1, 1u << 21},
        {"llama.expert_count", "GG708", 1025, 1024},
        {"llama.embedding_length", "GG709", (1u << 20) + 1, 1u << 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *buf = claim_u32(cases[i].key, cases[i].bad, &at, &len);
        ex_expect_at(buf, len, cases[i].id, at, cases[i].key);
        buf = claim_u32(cases[i].key, cases[i].good, &at, &len);
        gguflint_ctx *ctx = ex_lint(buf, len);
        assert_int_equal(ex_count_id(ctx, cases[i].id, 0, NULL), 0);
        gguflint_free(ctx);
        free(buf);
    }
    /* a u64 far over the limit, under another architecture */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "command-r");
    gb_kv_u64(b, "command-r.context_length", UINT64_MAX);
    at = gb_last(b)->value;
    uint8_t *buf = done(b, &len);
    EXPECT_AT(buf, len, "GG706", at);
    /* keys of another architecture, and negative values, are not claims */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "qwen2.context_length", 1u << 30);
    gb_kv_i32(b, "llama.embedding_length", -5);
    buf = done(b, &len);
    EXPECT_CLEAN(buf, len);
    /* no architecture: nothing to read the claims under */
    b = gb_new(3);
    gb_kv_u32(b, "llama.context_length", 1u << 30);
    buf = done(b, &len);
    EXPECT_CLEAN(buf, len);
}

static void test_vocab_count(void **state)
{
    const uint64_t n = (1u << 21) + 1;
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    size_t at = gb_last(b)->value + 4; /* the count field */
    gb_zeros(b, (size_t)n * 8);        /* n empty strings */
    size_t len;
    uint8_t *buf = done(b, &len);
    EXPECT_AT(buf, len, "GG707", at);
}

/* ------------------------------------------------------------ cost and caps */

static void test_large_vocab_is_linear(void **state)
{
    /* 262144 tokens of 8 bytes, some with control and zero-width bytes */
    const size_t n = 262144;
    char **toks = malloc(n * sizeof *toks);
    char *text = malloc(n * 9);
    assert_non_null(toks);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) {
        toks[i] = text + i * 9;
        snprintf(toks[i], 9, "t%07zu", i);
        if (i % 1000 == 0)
            toks[i][3] = '\x01';
    }
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", (const char *const *)toks, n);
    size_t len;
    uint8_t *buf = done(b, &len);
    free(toks);
    free(text);
    clock_t t0 = clock();
    EXPECT_CLEAN(buf, len);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("  262144-token vocabulary linted in %.3f s\n", secs);
    assert_true(secs < 10.0);
}

static void test_findings_capped(void **state)
{
    /* 5000 elements with an ESC: 100 kept (the default cap), the rest dropped */
    const size_t n = 5000;
    const char **v = malloc(n * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = "x\x1b[1m";
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr_str(b, "general.tags", v, n);
    free(v);
    size_t len;
    uint8_t *buf = done(b, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG700", 0, NULL), 100);
    assert_true(gguflint_findings_dropped(ctx) >= n - 100);
    gguflint_free(ctx);
    free(buf);
}

static void test_security_profile(void **state)
{
    int r = gguflint_rule_find("terminal-escape");
    assert_true(r >= 0);
    assert_string_equal(gguflint_rule((size_t)r)->family, "security");
    assert_int_equal(gguflint_rule_profile_severity((size_t)r, 0), GGUFLINT_WARNING);
    assert_int_equal(gguflint_rule_profile_severity((size_t)r, 3), GGUFLINT_ERROR);
    r = gguflint_rule_find("GG704");
    assert_true(r >= 0);
    assert_int_equal(gguflint_rule((size_t)r)->default_severity, GGUFLINT_ERROR);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_terminal_escape),
            cmocka_unit_test(test_control_char),
            cmocka_unit_test(test_bidi_control),
            cmocka_unit_test(test_invisible_char),
            cmocka_unit_test(test_tensor_name_hidden_suffix),
            cmocka_unit_test(test_path_like_name),
            cmocka_unit_test(test_resource_claims),
            cmocka_unit_test(test_vocab_count),
            cmocka_unit_test(test_large_vocab_is_linear),
            cmocka_unit_test(test_findings_capped),
            cmocka_unit_test(test_security_profile),
        })

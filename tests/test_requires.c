/* test_requires.c - the oldest llama.cpp a file needs (model/requires.c,
 * data/llama/history.def) and GG595 under a pinned build (--llama-build):
 * files built for several dates (an old architecture with old types, then a
 * new architecture, tensor type, tokenizer model, pre-tokenizer, projector
 * type, and a key newer than its architecture) with their exact build numbers; GG595's id and offset, its clean cases, names unknown
 * to the reference tree, the pin's forms, and requires_llama in JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "format/types.h"
#include "gguf_builder.h"
#include "gguflint.h"
#include "gguflint_llama.h"
#include "model/arch_tables.h"
#include "model/requires.h"

/* A model: general.architecture, tokenizer.ggml.pre (NULL: none), one 1-D
 * tensor of 256 elements per type (n types), data written; tok: a
 * tokenizer.ggml.model, key: a u32 KV of that name (value 2). The offsets of
 * the architecture's value and of each tensor info go to arch_at / t_at, the
 * tokenizer model's value and the key's KV to tok_at / key_at. */
typedef struct spec {
    const char *arch, *pre, *proj;
    uint32_t types[4];
    size_t n;
    const char *tok, *key;
} spec;

static size_t tok_at, key_at;

static uint8_t *build(const spec *s, size_t *len, size_t *arch_at, size_t *t_at)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", s->arch);
    if (arch_at)
        *arch_at = gb_last(b)->value;
    if (s->pre)
        gb_kv_str(b, "tokenizer.ggml.pre", s->pre);
    if (s->proj)
        gb_kv_str(b, "clip.projector_type", s->proj);
    if (s->tok) {
        gb_kv_str(b, "tokenizer.ggml.model", s->tok);
        tok_at = gb_last(b)->value;
    }
    if (s->key)
        key_at = gb_kv_u32(b, s->key, 2);
    uint64_t ne[1] = {256}, off = 0, sizes[4];
    for (size_t i = 0; i < s->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%zu.weight", i);
        const ggml_type_info *ti = gt_info(s->types[i]);
        sizes[i] = 256 / ti->block * ti->size;
        gb_tensor(b, name, 1, ne, s->types[i], off);
        if (t_at)
            t_at[i] = gb_last(b)->start;
        off += (sizes[i] + 31) / 32 * 32;
    }
    gb_pad_to(b, 32);
    for (size_t i = 0; i < s->n; i++) {
        gb_zeros(b, sizes[i]);
        gb_pad_to(b, 32);
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
    return buf;
}

/* The build number the file needs (0: no dated need; UINT32_MAX: untagged). */
static uint32_t needed(const spec *s, size_t *unknown)
{
    size_t len;
    uint8_t *buf = build(s, &len, NULL, NULL);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, NULL, NULL);
    llama_req q;
    llama_requires(ctx, &q);
    *unknown = 0;
    for (size_t i = 0; i < q.n; i++)
        *unknown += !q.need[i].row;
    uint32_t r = !q.newest ? 0 : q.newest->row->build ? q.newest->row->build : UINT32_MAX;
    gguflint_free(ctx);
    free(buf);
    return r;
}

#define F32 0
#define F16 1
#define Q4_0 2
#define Q4_K 12
#define MXFP4 39
#define NVFP4 40

static void test_builds_by_date(void **state)
{
    (void)state;
    static const struct {
        spec s;
        uint32_t build;
    } rows[] = {
        {{"llama", NULL, NULL, {F32, F16, Q4_0}, 3, NULL, NULL}, 1953}, /* 2023: llama, old types */
        {{"llama", "llama-bpe", NULL, {F32, Q4_K}, 2, NULL, NULL},
         2786}, /* the pre-tokenizer of 2024-04-29 */
        {{"qwen2", "qwen2", NULL, {F16}, 1, NULL, NULL}, 2821}, /* qwen2's pre-tokenizer */
        {{"llama4", "llama4", NULL, {F16}, 1, NULL, NULL},
         5074}, /* a new architecture, 2025-04-07 */
        {{"llama", NULL, NULL, {F16, MXFP4}, 2, NULL, NULL},
         6096},                                                /* a new tensor type, 2025-08-05 */
        {{"llama", NULL, NULL, {NVFP4}, 1, NULL, NULL}, 8307}, /* nvfp4, 2026-03-11 */
        {{"qwen35", "qwen35", NULL, {F16}, 1, NULL, NULL}, 7993}, /* qwen35 and its pre-tokenizer */
        {{"llama", "laguna", NULL, {F16}, 1, NULL, NULL},
         10088}, /* a new pre-tokenizer, 2026-07-22 */
        {{"clip", NULL, "gemma4v", {F16}, 1, NULL, NULL}, 8643}, /* a projector type */
        {{"clip", NULL, "dots3note_v", {F16}, 1, NULL, NULL},
         UINT32_MAX}, /* after b10573: no tag yet */
        /* tokenizer models (tokenizer.ggml.model), each on the oldest architecture */
        {{"llama", NULL, NULL, {F16}, 1, "llama", NULL}, 1953},
        {{"llama", NULL, NULL, {F16}, 1, "gpt2", NULL}, 1953},
        {{"llama", NULL, NULL, {F16}, 1, "bert", NULL}, 2168},       /* WPM, 2024-02-11 */
        {{"llama", NULL, NULL, {F16}, 1, "no_vocab", NULL}, 2431},   /* 2024-03-14 */
        {{"llama", NULL, NULL, {F16}, 1, "t5", NULL}, 3248},         /* UGM, 2024-06-25 */
        {{"llama", NULL, NULL, {F16}, 1, "rwkv", NULL}, 3651},       /* 2024-09-01 */
        {{"llama", NULL, NULL, {F16}, 1, "none", NULL}, 4358},       /* 2024-12-18 */
        {{"llama", NULL, NULL, {F16}, 1, "plamo2", NULL}, 5899},     /* 2025-07-15 */
        {{"llama", NULL, NULL, {F16}, 1, "gemma4", NULL}, 8643},     /* 2026-04-02 */
        {{"llama", NULL, NULL, {F16}, 1, "hybriddna", NULL}, 9270},  /* 2026-05-21 */
        {{"llama", NULL, NULL, {F16}, 1, "whitespace", NULL}, 9449}, /* 2026-05-31 */
        /* keys the loader read only after its architecture came */
        {{"deepseek2", NULL, NULL, {F16}, 1, NULL, "deepseek2.expert_gating_func"}, 4417},
        {{"deepseek2", NULL, NULL, {F16}, 1, NULL, "deepseek2.attention.key_length_mla"}, 5137},
        {{"llama", NULL, NULL, {F16}, 1, NULL, "llama.vocab_size"}, 2431}, /* no tokens array */
        {{"llama", NULL, NULL, {F16}, 1, NULL, "llama.embedding_length_out"}, 7641},
        {{"gemma3", NULL, NULL, {F16}, 1, NULL, "gemma3.attention.sliding_window_pattern"}, 7516},
        /* clean: a key as old as its architecture, a key another loader
         * reads, a key read without the prefix that came with its
         * architecture (apertus, b6671) */
        {{"llama", NULL, NULL, {F16}, 1, NULL, "llama.context_length"}, 1953},
        {{"llama", NULL, NULL, {F16}, 1, NULL, "llama.expert_gating_func"}, 1953},
        {{"deepseek2", NULL, NULL, {F16}, 1, NULL, "deepseek2.attention.q_lora_rank"}, 3040},
        {{"apertus", NULL, NULL, {F16}, 1, NULL, "xielu.alpha_n"}, 6671},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t unknown;
        uint32_t got = needed(&rows[i].s, &unknown);
        if (got != rows[i].build || unknown)
            fail_msg("row %zu (%s): needs b%u, %zu unknown; expected b%u", i, rows[i].s.arch, got,
                     unknown, rows[i].build);
    }
}

static void test_unknown_names(void **state)
{
    (void)state;
    size_t unknown;
    spec s = {"no-such-arch", "no-such-pre", NULL, {F16}, 1, NULL, NULL};
    assert_int_equal(needed(&s, &unknown), 1953); /* f16 is still dated */
    assert_int_equal(unknown, 2);
    spec p = {"clip", NULL, "no-such-projector", {F16}, 1, NULL, NULL};
    assert_int_equal(needed(&p, &unknown), 1953);
    assert_int_equal(unknown, 1);
    /* plamo3 is upstream after the reference tree's build */
    spec t = {"llama", NULL, NULL, {F16}, 1, "plamo3", NULL};
    assert_int_equal(needed(&t, &unknown), 1953);
    assert_int_equal(unknown, 1);
}

/* Every loader's keys fit the need table (its own and the common ones). */
static void test_key_capacity(void **state)
{
    (void)state;
    size_t most = 0;
    for (size_t i = 0; i < arch_info_count; i++)
        if (arch_infos[i].key_count > most)
            most = arch_infos[i].key_count;
    if (most + arch_common_count > REQ_MAX_KEYS)
        fail_msg("%zu + %u keys > REQ_MAX_KEYS", most, (unsigned)arch_common_count);
}

static gguflint_options *pinned(const char *pin)
{
    gguflint_options *o = gguflint_options_new();
    assert_int_equal(gguflint_options_set_llama_build(o, pin), GGUFLINT_OK);
    return o;
}

/* Under the pin: exactly one GG595, at `at`, an error whose message holds
 * `text`; or, with text NULL, no GG595 at all. */
static void expect_pin(const uint8_t *buf, size_t len, const char *pin, uint64_t at,
                       const char *text)
{
    gguflint_options *o = pinned(pin);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, o, NULL);
    size_t n = ex_count(ctx, "GG595"), here = 0;
    ex_count_id(ctx, "GG595", at, &here);
    const gguflint_finding *f = ex_find(ctx, "GG595");
    bool ok = text
                  ? n == 1 && here == 1 && f->severity == GGUFLINT_ERROR && strstr(f->message, text)
                  : n == 0;
    if (!ok) {
        ex_print_findings(pin, ctx);
        fail_msg("pin %s: %zu GG595 (%zu at %llu), wanted %s", pin, n, here, (unsigned long long)at,
                 text ? text : "none");
    }
    gguflint_free(ctx);
    gguflint_options_free(o);
}

static void test_gg595_arch(void **state)
{
    (void)state;
    spec s = {"llama4", NULL, NULL, {F16}, 1, NULL, NULL};
    size_t len, at;
    uint8_t *buf = build(&s, &len, &at, NULL);
    expect_pin(buf, len, "b5000", at, "architecture 'llama4' needs llama.cpp b5074 (2025-04-07");
    expect_pin(buf, len, "2025-04-06", at, "newer than the pinned 2025-04-06");
    /* clean: the build that introduced it, a later one, a date on or after */
    static const char *const ok[] = {"b5074", "5074", "b10000", "2025-04-07", "2026-01-01"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        expect_pin(buf, len, ok[i], at, NULL);
    /* no pin: never reported */
    ex_assert_no_rule(buf, len, NULL, "GG595");
    free(buf);
}

static void test_gg595_type(void **state)
{
    (void)state;
    spec s = {"llama", NULL, NULL, {F16, MXFP4, MXFP4}, 3, NULL, NULL};
    size_t len, t_at[4];
    uint8_t *buf = build(&s, &len, NULL, t_at);
    /* once per type, at its first tensor */
    expect_pin(buf, len, "b6000", t_at[1], "tensor type 'mxfp4' needs llama.cpp b6096");
    expect_pin(buf, len, "b6096", t_at[1], NULL);
    free(buf);
}

static void test_gg595_tokenizer_model(void **state)
{
    (void)state;
    spec s = {"llama", NULL, NULL, {F16}, 1, "t5", NULL};
    size_t len;
    uint8_t *buf = build(&s, &len, NULL, NULL);
    expect_pin(buf, len, "b3000", tok_at,
               "tokenizer model 't5' needs llama.cpp b3248 (2024-06-25, commit 6fcbf6823553)");
    expect_pin(buf, len, "2024-06-24", tok_at, "newer than the pinned 2024-06-24");
    expect_pin(buf, len, "b3248", tok_at, NULL);
    expect_pin(buf, len, "2024-06-25", tok_at, NULL);
    free(buf);
    /* unknown to the reference tree (upstream later) */
    spec u = {"llama", NULL, NULL, {F16}, 1, "plamo3", NULL};
    buf = build(&u, &len, NULL, NULL);
    expect_pin(buf, len, "b9000", tok_at, "tokenizer model 'plamo3' is unknown to the reference");
    free(buf);
}

static void test_gg595_key(void **state)
{
    (void)state;
    /* deepseek2 (b3040) is known to b4000, its expert_gating_func is not */
    spec s = {"deepseek2", NULL, NULL, {F16}, 1, NULL, "deepseek2.expert_gating_func"};
    size_t len;
    uint8_t *buf = build(&s, &len, NULL, NULL);
    expect_pin(buf, len, "b4000", key_at,
               "key 'deepseek2.expert_gating_func' needs llama.cpp b4417 (2025-01-04");
    expect_pin(buf, len, "b4417", key_at, NULL);
    free(buf);
    /* clean: llama.vocab_size (b2431) beside the tokens array it repeats
     * (data/llama/key_alternatives.def) */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "llama.vocab_size", 2);
    const char *tokens[] = {"a", "b"};
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", tokens, 2);
    uint8_t *v = gb_finish(b, &len);
    gb_free(b);
    expect_pin(v, len, "b2000", 0, NULL);
    free(v);
    /* clean: the same key on an architecture whose loader does not read it */
    spec o = {"llama", NULL, NULL, {F16}, 1, NULL, "llama.expert_gating_func"};
    buf = build(&o, &len, NULL, NULL);
    expect_pin(buf, len, "b2000", key_at, NULL);
    free(buf);
}

static void test_gg595_unknown(void **state)
{
    (void)state;
    spec s = {"no-such-arch", NULL, NULL, {F16}, 1, NULL, NULL};
    size_t len, at;
    uint8_t *buf = build(&s, &len, &at, NULL);
    expect_pin(buf, len, "b5000", at, "unknown to the reference tree (llama.cpp b10573-14");
    expect_pin(buf, len, "2026-08-22", at, "unknown to the reference tree");
    /* a pin past the reference tree cannot be decided: not reported */
    expect_pin(buf, len, "b20000", at, NULL);
    expect_pin(buf, len, "2027-01-01", at, NULL);
    free(buf);
}

static void test_pin_forms(void **state)
{
    (void)state;
    gguflint_options *o = gguflint_options_new();
    static const char *const bad[] = {"b",          "x12",        "b0",
                                      "b12a",       "2025-13-01", "2025-00-10",
                                      "2025-01-32", "2025/01/01", "b1234567890"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gguflint_options_set_llama_build(o, bad[i]) != GGUFLINT_E_ARG)
            fail_msg("'%s' accepted", bad[i]);
    assert_int_equal(gguflint_options_set_llama_build(o, NULL), GGUFLINT_OK);
    assert_int_equal(gguflint_options_set_llama_build(o, ""), GGUFLINT_OK);
    assert_int_equal(gguflint_options_set_llama_build(NULL, "b1"), GGUFLINT_E_ARG);
    gguflint_options_free(o);
}

static void test_json_and_text(void **state)
{
    (void)state;
    spec s = {"llama4", "llama4", NULL, {F16}, 1, NULL, NULL};
    size_t len;
    uint8_t *buf = build(&s, &len, NULL, NULL);
    gguflint_options *o = pinned("b6000");
    gguflint_ctx *ctx = ex_lint_opt(buf, len, o, NULL);
    ex_buf j = {0}, t = {0};
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_JSON, ex_buf_sink, &j);
    gguflint_report_file(r, "m.gguf", ctx, GGUFLINT_OK);
    gguflint_report_end(r, true);
    gguflint_report_free(r);
    assert_non_null(
        strstr(ex_buf_str(&j), "\"requires_llama\":{\"build\":\"b5074\",\"date\":\"2025-04-07\""));
    assert_non_null(strstr(ex_buf_str(&j), "{\"what\":\"pre-tokenizer\",\"name\":\"llama4\""));
    r = gguflint_report_new(GGUFLINT_FORMAT_TEXT, ex_buf_sink, &t);
    gguflint_report_file(r, "m.gguf", ctx, GGUFLINT_OK);
    gguflint_report_end(r, false);
    gguflint_report_free(r);
    assert_non_null(
        strstr(ex_buf_str(&t), "m.gguf: requires llama.cpp b5074 (2025-04-07, commit "));
    gguflint_free(ctx);
    gguflint_options_free(o);
    /* no pin: no text line, JSON still says it */
    ctx = ex_lint_opt(buf, len, NULL, NULL);
    ex_buf_clear(&t);
    r = gguflint_report_new(GGUFLINT_FORMAT_TEXT, ex_buf_sink, &t);
    gguflint_report_file(r, "m.gguf", ctx, GGUFLINT_OK);
    gguflint_report_end(r, false);
    gguflint_report_free(r);
    assert_null(strstr(ex_buf_str(&t), "requires llama.cpp"));
    gguflint_free(ctx);
    free(buf);
    free(j.p);
    free(t.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builds_by_date),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_gg595_arch),
        cmocka_unit_test(test_gg595_type),
        cmocka_unit_test(test_gg595_unknown),
        cmocka_unit_test(test_pin_forms),
        cmocka_unit_test(test_json_and_text),
        cmocka_unit_test(test_key_capacity),
        cmocka_unit_test(test_gg595_tokenizer_model),
        cmocka_unit_test(test_gg595_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

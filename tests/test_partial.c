/* test_partial.c - partial downloads (--header-only): every prefix of a real
 * model is reported as incomplete (one GG013 note, complete = false and a
 * bytes_needed past the prefix, no finding that only follows from the cut),
 * every prefix holding the whole metadata as complete; sizes no file can hold
 * stay errors under --header-only (string and array lengths, counts, padded
 * tensor sizes summing past 2^64: GG221, with no wrapped size printed); and a
 * file without tensors whose general.alignment is 2^31 gets GG122 and is not
 * read past its metadata. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

static gguflint_ctx *run(const uint8_t *buf, size_t len, bool header_only, const char *profile)
{
    gguflint_options *opt = ex_options(NULL);
    if (profile)
        assert_int_equal(gguflint_options_profile(opt, profile), GGUFLINT_OK);
    gguflint_options_set_header_only(opt, header_only);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    gguflint_options_free(opt);
    return ctx;
}

/* A model with a vocabulary, a chat template, several tensors. */
static uint8_t *model(size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "partial");
    gb_kv_u32(b, "general.alignment", 32);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    static const char *const toks[] = {"<unk>", "<s>", "</s>", "a", "b", "ab", "\xc3\xa9t\xc3\xa9"};
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", toks, 7);
    float scores[7] = {0, 0, 0, -1, -2, -3, -4};
    gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, 7, scores, sizeof scores);
    gb_kv_str(b, "tokenizer.chat_template",
              "{% for m in messages %}{{ m['content'] }}{% endfor %}");
    uint64_t ne[2] = {8, 7};
    gb_tensor(b, "token_embd.weight", 2, ne, GB_F32, 0);
    uint64_t ne1[1] = {8};
    gb_tensor(b, "output_norm.weight", 1, ne1, GB_F32, 256);
    gb_pad_to(b, 32);
    gb_zeros(b, 256 + 32);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

static const char *id_of(const gguflint_finding *f)
{
    return gguflint_rule((size_t)f->rule)->id;
}

/* The rule ids of a context's findings, as one "GGnnn GGnnn " string. */
static void error_ids(const gguflint_ctx *ctx, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (!strstr(out, id_of(f)) && strlen(out) + 7 < cap) {
            strcat(out, id_of(f));
            strcat(out, " ");
        }
    }
}

/* Every prefix: incomplete inside the metadata (one GG013 and no finding the
 * whole file does not have), complete after it. */
static void test_every_prefix(void **state)
{
    size_t len;
    uint8_t *buf = model(&len);
    gguflint_ctx *whole = run(buf, len, true, NULL);
    const gguflint_header *wh = gguflint_get_header(whole);
    assert_true(wh->complete);
    assert_true(wh->metadata_complete);
    uint64_t meta_end = wh->metadata_end;
    assert_int_equal(wh->bytes_needed, meta_end);
    assert_int_equal(ex_count_id(whole, "GG013", 0, NULL), 0);
    char whole_errors[512];
    error_ids(whole, whole_errors, sizeof whole_errors);
    gguflint_free(whole);
    for (size_t n = 1; n < len; n++) {
        gguflint_ctx *ctx = run(buf, n, true, NULL);
        const gguflint_header *h = gguflint_get_header(ctx);
        size_t notes = 0;
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            if (strcmp(id_of(f), "GG013") == 0)
                notes++;
            if (strcmp(id_of(f), "GG013") != 0 && strcmp(id_of(f), "GG304") != 0 &&
                !strstr(whole_errors, id_of(f))) {
                print_message("prefix %zu: %s at 0x%llx: %s\n", n, id_of(f),
                              (unsigned long long)f->offset, f->message);
                fail();
            }
        }
        if (n < meta_end) {
            assert_false(h->complete);
            assert_int_equal(notes, 1);
            assert_true(h->bytes_needed > n);
            assert_true(h->bytes_needed <= meta_end);
        } else {
            assert_true(h->complete);
            assert_int_equal(notes, 0);
            assert_int_equal(h->bytes_needed, meta_end);
        }
        gguflint_free(ctx);
    }
    /* without --header-only a prefix is a truncated file: errors, and still
     * complete = false with bytes_needed for a caller that fetches more */
    gguflint_ctx *ctx = run(buf, (size_t)meta_end - 3, false, NULL);
    assert_int_equal(ex_count_id(ctx, "GG010", 0, NULL), 1);
    assert_int_equal(ex_count_id(ctx, "GG013", 0, NULL), 0);
    assert_false(gguflint_get_header(ctx)->complete);
    assert_true(gguflint_get_header(ctx)->bytes_needed > meta_end - 3);
    gguflint_free(ctx);
    free(buf);
}

/* bytes_needed lets a caller fetch in steps: starting from 24 bytes and
 * fetching max(bytes_needed, 2 x what it has) reaches the whole metadata. */
static void test_fetch_loop(void **state)
{
    size_t len;
    uint8_t *buf = model(&len);
    size_t have = 24, rounds = 0;
    for (;;) {
        gguflint_ctx *ctx = run(buf, have, true, NULL);
        const gguflint_header *h = gguflint_get_header(ctx);
        bool done = h->complete;
        uint64_t need = h->bytes_needed;
        gguflint_free(ctx);
        if (done)
            break;
        assert_true(need > have);
        have = need > 2 * have ? (size_t)need : 2 * have;
        if (have > len)
            have = len;
        assert_true(++rounds < 20);
    }
    free(buf);
}

/* Lengths and counts that no file can hold stay errors under --header-only. */
static void test_overflows_stay(void **state)
{
    /* a string value of length 2^64 - 1 */
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.name", GB_VT_STR);
    gb_u64(b, UINT64_MAX);
    gb_bytes(b, "abc", 3);
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    gguflint_ctx *ctx = run(buf, len, true, NULL);
    assert_int_equal(ex_count_id(ctx, "GG112", 0, NULL), 1);
    assert_int_equal(ex_count_id(ctx, "GG013", 0, NULL), 0);
    gguflint_free(ctx);
    free(buf);
    /* a u64 array of 2^62 elements (2^65 bytes), and a long but possible one */
    for (int big = 1; big >= 0; big--) {
        b = gb_new(3);
        gb_kv_begin(b, "my.array", GB_VT_ARR);
        gb_arr_header(b, GB_VT_U64, big ? (1ull << 62) : (1ull << 40));
        gb_zeros(b, 64);
        buf = gb_finish(b, &len);
        gb_free(b);
        ctx = run(buf, len, true, NULL);
        assert_int_equal(ex_count_id(ctx, "GG111", 0, NULL), big ? 1 : 0);
        assert_int_equal(ex_count_id(ctx, "GG013", 0, NULL), big ? 0 : 1);
        assert_int_equal(ex_count_id(ctx, "GG120", 0, NULL), big ? 0 : 1); /* over 2^30 */
        gguflint_free(ctx);
        free(buf);
    }
    /* kv_count 2^62: more KVs than any file holds */
    b = gb_new(3);
    gb_override_counts(b, 0, 1ull << 62);
    gb_kv_u8(b, "a", 1);
    buf = gb_finish(b, &len);
    gb_free(b);
    ctx = run(buf, len, true, NULL);
    assert_int_equal(ex_count_id(ctx, "GG008", 0, NULL), 1);
    gguflint_free(ctx);
    free(buf);
    /* kv_count 1000 in a 40-byte prefix: possible, so no GG008 */
    b = gb_new(3);
    gb_override_counts(b, 0, 1000);
    gb_kv_u8(b, "a", 1);
    buf = gb_finish(b, &len);
    gb_free(b);
    ctx = run(buf, len, true, NULL);
    assert_int_equal(ex_count_id(ctx, "GG008", 0, NULL), 0);
    assert_int_equal(ex_count_id(ctx, "GG013", 0, NULL), 1);
    gguflint_free(ctx);
    free(buf);
}

/* Three I8 tensors of 2^62 + 2^61 elements: each size fits in 64 bits, their
 * padded sum does not. ggml rejects the file; GG221 says so in both modes, and
 * the --header-only note prints no wrapped size. */
static void test_GG221_data_size_overflow(void **state)
{
    const uint64_t big = (1ull << 62) + (1ull << 61);
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    uint64_t ne[1] = {big};
    size_t third = 0;
    for (int i = 0; i < 3; i++) {
        size_t at = gb_tensor(b,
                              i == 0   ? "a"
                              : i == 1 ? "b"
                                       : "c",
                              1, ne, GB_I8, (uint64_t)i * big);
        if (i == 2)
            third = at;
    }
    gb_pad_to(b, 32);
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    for (int header_only = 0; header_only <= 1; header_only++) {
        gguflint_ctx *ctx = run(buf, len, header_only, NULL);
        size_t at;
        assert_int_equal(ex_count_id(ctx, "GG221", third, &at), 1);
        assert_int_equal(at, 1);
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            if (strcmp(id_of(f), "GG304") == 0)
                assert_non_null(strstr(f->message, "more than 2^64 bytes"));
        }
        gguflint_free(ctx);
    }
    free(buf);
    /* two of them fit: no finding */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_tensor(b, "a", 1, ne, GB_I8, 0);
    gb_tensor(b, "b", 1, ne, GB_I8, big);
    gb_pad_to(b, 32);
    buf = gb_finish(b, &len);
    gb_free(b);
    gguflint_ctx *ctx = run(buf, len, true, NULL);
    assert_int_equal(ex_count_id(ctx, "GG221", 0, NULL), 0);
    gguflint_free(ctx);
    free(buf);
}

/* general.alignment 2^31 without tensors: GG122 (an error under security),
 * and bytes after the metadata are trailing bytes, not padding to scan. */
static void test_GG122_alignment_huge_no_tensors(void **state)
{
    for (int pad = 0; pad <= 1; pad++) {
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        size_t at = gb_kv_u32(b, "general.alignment", 1u << 31);
        size_t value = gb_last(b)->value;
        (void)at;
        if (pad)
            gb_zeros(b, 4096); /* zeros, as padding to 2^31 would start */
        size_t len;
        uint8_t *buf = gb_finish(b, &len);
        gb_free(b);
        gguflint_ctx *ctx = run(buf, len, false, NULL);
        size_t n_at;
        assert_int_equal(ex_count_id(ctx, "GG122", value, &n_at), 1);
        assert_int_equal(n_at, 1);
        assert_int_equal(ex_count_id(ctx, "GG119", 0, NULL), 0);
        assert_int_equal(ex_count_id(ctx, "GG302", 0, NULL), pad ? 1 : 0);
        assert_int_equal(gguflint_max_severity(ctx), pad ? GGUFLINT_WARNING : GGUFLINT_NOTE);
        gguflint_free(ctx);
        ctx = run(buf, len, false, "security");
        assert_int_equal(ex_count_id(ctx, "GG122", value, NULL), 1);
        assert_int_equal(gguflint_max_severity(ctx), GGUFLINT_ERROR);
        gguflint_free(ctx);
        free(buf);
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_every_prefix),
            cmocka_unit_test(test_fetch_loop),
            cmocka_unit_test(test_overflows_stay),
            cmocka_unit_test(test_GG221_data_size_overflow),
            cmocka_unit_test(test_GG122_alignment_huge_no_tensors),
        })

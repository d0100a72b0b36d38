/* test_fingerprint.c - the identity of a finding across runs (SARIF
 * partialFingerprints, JSON "fingerprint", baselines), and the path normal
 * form it and the config ignores use:
 *  - gguflint_path_normalize: ".", "..", repeated and trailing '/', a base;
 *  - two spellings of one path give identical fingerprints;
 *  - growing an unrelated string (general.name, earlier in the file) moves
 *    every later offset but keeps every fingerprint;
 *  - the findings of one file never share a fingerprint, even six of one
 *    rule at one field;
 *  - GG800 (config-refused): reported at offset 0 when the caller refused
 *    a discovered config, absent otherwise. */
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

static void test_path_normalize(void **state)
{
    static const char *const cases[][3] = {
        /* path, base, normal form */
        {"models/x.gguf", NULL, "models/x.gguf"},
        {"./models/x.gguf", NULL, "models/x.gguf"},
        {"models//./x.gguf", NULL, "models/x.gguf"},
        {"models/sub/../x.gguf", NULL, "models/x.gguf"},
        {"models/", NULL, "models"},
        {"../up/x.gguf", NULL, "../up/x.gguf"},
        {"a/../../x", NULL, "../x"},
        {"", NULL, "."},
        {"./", NULL, "."},
        {"/", NULL, "/"},
        {"/../x", NULL, "/x"},
        {"//repo///m/x.gguf", NULL, "/repo/m/x.gguf"},
        {"/repo/models/x.gguf", "/repo", "models/x.gguf"},
        {"/repo/./models/x.gguf", "/repo/", "models/x.gguf"},
        {"/repo", "/repo", "."},
        {"/repository/x.gguf", "/repo", "/repository/x.gguf"},
        {"/elsewhere/x.gguf", "/repo", "/elsewhere/x.gguf"},
        {"models/x.gguf", "/repo", "models/x.gguf"},
        {"/x.gguf", "/", "x.gguf"},
        {"hf://org/repo/./a.gguf", NULL, "hf://org/repo/./a.gguf"},
        {"https://host//a/../b.gguf", "/repo", "https://host//a/../b.gguf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        size_t n = gguflint_path_normalize(cases[i][0], cases[i][1], buf, sizeof buf);
        if (strcmp(buf, cases[i][2]) != 0)
            fail_msg("'%s' (base %s): got '%s', want '%s'", cases[i][0],
                     cases[i][1] ? cases[i][1] : "none", buf, cases[i][2]);
        assert_int_equal(n, strlen(cases[i][2]));
    }
    /* a small buffer: cut like snprintf, the full length returned */
    char small[5];
    assert_int_equal(gguflint_path_normalize("./models/x.gguf", NULL, small, sizeof small), 13);
    assert_string_equal(small, "mode");
    assert_int_equal(gguflint_path_normalize("./a", NULL, NULL, 0), 1);
}

/* A model with findings in the header region, in KVs before and after
 * general.name, in tensor infos and in the data section: a duplicate key
 * (GG106), a bad bool (GG114), an uppercase key (GG105), a tensor with a
 * zero dimension (GG209) and one with a misaligned offset (GG215). `name`
 * is general.name's value, the string that grows. */
static uint8_t *model(const char *name, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "conformance");
    gb_kv_str(b, "general.name", name);
    gb_kv_bool(b, "general.flag", 7);
    gb_kv_u32(b, "Odd.Key", 1);
    gb_kv_u32(b, "conformance.block_count", 1);
    gb_kv_u32(b, "conformance.block_count", 2);
    uint64_t ne[2] = {32, 0};
    gb_tensor(b, "zero", 2, ne, 0 /* f32 */, 0);
    uint64_t ne1[1] = {8};
    gb_tensor(b, "misaligned", 1, ne1, 0, 4);
    gb_pad_to(b, 32);
    gb_zeros(b, 64);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

static uint64_t *prints_of(const gguflint_ctx *ctx, const char *path)
{
    size_t n = gguflint_finding_count(ctx);
    uint64_t *fp = calloc(n ? n : 1, sizeof *fp);
    assert_non_null(fp);
    assert_int_equal(gguflint_finding_fingerprints(ctx, path, fp, n), GGUFLINT_OK);
    return fp;
}

static void test_spellings(void **state)
{
    size_t len;
    uint8_t *buf = model("tiny", &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    size_t n = gguflint_finding_count(ctx);
    assert_true(n >= 4);
    uint64_t *a = prints_of(ctx, "models/x.gguf");
    static const char *const same[] = {"./models/x.gguf", "models//x.gguf", "models/./x.gguf",
                                       "models/sub/../x.gguf", "./models/x.gguf/"};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        uint64_t *b = prints_of(ctx, same[k]);
        assert_memory_equal(a, b, n * sizeof *a);
        free(b);
    }
    /* an absolute path made relative to the working directory (as the CLI
     * and the reports do) is the same file too */
    char norm[64];
    gguflint_path_normalize("/repo/./models/x.gguf", "/repo", norm, sizeof norm);
    uint64_t *c = prints_of(ctx, norm);
    assert_memory_equal(a, c, n * sizeof *a);
    /* another file: other fingerprints */
    uint64_t *d = prints_of(ctx, "models/y.gguf");
    for (size_t i = 0; i < n; i++)
        assert_true(a[i] != d[i]);
    /* wrong count, no context: refused */
    assert_int_equal(gguflint_finding_fingerprints(ctx, "x", a, n + 1), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_finding_fingerprints(NULL, "x", a, 0), GGUFLINT_E_ARG);
    free(a);
    free(c);
    free(d);
    gguflint_free(ctx);
    free(buf);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* No two of the n fingerprints are equal (sorts them). */
static void assert_distinct(uint64_t *fp, size_t n)
{
    qsort(fp, n, sizeof *fp, cmp_u64);
    for (size_t i = 1; i < n; i++)
        assert_true(fp[i] != fp[i - 1]);
}

static void test_unrelated_edit(void **state)
{
    size_t la, lb;
    uint8_t *short_name = model("tiny", &la);
    uint8_t *long_name = model("a much longer model name, forty bytes or so", &lb);
    assert_true(lb > la);
    gguflint_ctx *a = ex_lint(short_name, la), *b = ex_lint(long_name, lb);
    size_t n = gguflint_finding_count(a);
    assert_int_equal(gguflint_finding_count(b), n);
    /* every finding after general.name moved ... */
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += gguflint_finding_get(a, i)->offset != gguflint_finding_get(b, i)->offset;
    assert_true(moved >= 4);
    /* ... and kept its fingerprint, finding by finding */
    uint64_t *fa = prints_of(a, "m.gguf"), *fb = prints_of(b, "m.gguf");
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(a, i);
        if (fa[i] != fb[i])
            fail_msg("%s at 0x%llx (%s) changed its fingerprint", ex_id(f),
                     (unsigned long long)f->offset, f->path);
    }
    assert_distinct(fa, n); /* the findings of a file are all distinct */
    free(fa);
    free(fb);
    gguflint_free(a);
    gguflint_free(b);
    free(short_name);
    free(long_name);
}

/* Six findings of one rule at one field (GG541: a llama file without its
 * hyper-parameters) still get six fingerprints, the same in every run. */
static void test_same_field(void **state)
{
    gb *g = gb_new(3);
    gb_kv_str(g, "general.architecture", "llama");
    uint64_t ne[2] = {8, 16};
    gb_tensor(g, "token_embd.weight", 2, ne, 0, 0);
    gb_pad_to(g, 32);
    gb_zeros(g, 8 * 16 * 4);
    size_t len;
    uint8_t *buf = gb_finish(g, &len);
    gb_free(g);
    gguflint_ctx *a = ex_lint(buf, len), *b = ex_lint(buf, len);
    assert_true(ex_count(a, "GG541") >= 4);
    size_t n = gguflint_finding_count(a);
    uint64_t *fa = prints_of(a, "x"), *fb = prints_of(b, "x");
    assert_memory_equal(fa, fb, n * sizeof *fa);
    assert_distinct(fa, n);
    free(fa);
    free(fb);
    gguflint_free(a);
    gguflint_free(b);
    free(buf);
}

static void test_config_refused(void **state)
{
    size_t len;
    uint8_t *buf = model("tiny", &len);
    gguflint_options *opt = gguflint_options_new();
    ex_assert_no_rule_at(buf, len, opt, "GG800", "no config refused");
    assert_int_equal(gguflint_options_set_config_refused(opt, true), GGUFLINT_OK);
    ex_assert_finding_at(buf, len, opt, "GG800", 0, "a discovered config refused");
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    const gguflint_finding *f = ex_find(ctx, "GG800");
    assert_non_null(f);
    assert_string_equal(f->path, "config");
    assert_int_equal(f->severity, GGUFLINT_WARNING);
    gguflint_free(ctx);
    /* an error under the security profile */
    gguflint_options_profile(opt, "security");
    gguflint_options_set_config_refused(opt, true);
    ctx = ex_lint_opt(buf, len, opt, NULL);
    assert_int_equal(ex_find(ctx, "GG800")->severity, GGUFLINT_ERROR);
    gguflint_free(ctx);
    assert_int_equal(gguflint_options_set_config_refused(NULL, true), GGUFLINT_E_ARG);
    gguflint_options_free(opt);
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_path_normalize),
            cmocka_unit_test(test_spellings),
            cmocka_unit_test(test_unrelated_edit),
            cmocka_unit_test(test_same_field),
            cmocka_unit_test(test_config_refused),
        })

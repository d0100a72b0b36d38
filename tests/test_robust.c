/* test_robust.c - hostile inputs: every prefix of a valid model, every byte of
 * it mutated, seeded random mutations, and counts/lengths of 2^32, 2^63 and
 * 2^64-1 in every count and length field. Each input is copied into its own
 * exactly-sized heap buffer so AddressSanitizer catches any read past the
 * end. The library must never crash, must return GGUFLINT_OK from
 * gguflint_run (a malformed file is findings, not a failing status), must
 * keep every finding's offset inside the file and its strings escaped, and
 * must report huge declared sizes without trying to allocate them. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getrusage */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

/* ------------------------------------------------------------------ helpers */

/* A write callback that only counts bytes (exercises the output code). */
static void count_writer(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
}

static bool is_raw_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return true;
    return false;
}

/* Lint a private, exactly-sized copy of buf[0..len). Checks the invariants
 * every input must keep; returns the context (caller frees) or NULL after a
 * failed assertion message. */
static gguflint_ctx *lint_copy(const uint8_t *buf, size_t len, const gguflint_options *opt,
                               uint8_t **copy_out)
{
    uint8_t *copy = ex_dup(buf, len);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    int st = gguflint_set_buffer(ctx, copy, len);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        gguflint_free(ctx);
        free(copy);
        fail_msg("status %d (%s) for a %zu-byte input", st, gguflint_strerror(st), len);
    }
    /* Idempotent. */
    size_t n = gguflint_finding_count(ctx);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_finding_count(ctx), n);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        assert_non_null(f);
        assert_non_null(gguflint_rule((size_t)f->rule));
        assert_non_null(f->message);
        if (f->offset > len) {
            ex_print_findings(NULL, ctx);
            fail_msg("finding %zu at offset %llu past the end of a %zu-byte file", i,
                     (unsigned long long)f->offset, len);
        }
        if (is_raw_control(f->message) || (f->path && is_raw_control(f->path))) {
            ex_print_findings(NULL, ctx);
            fail_msg("finding %zu carries raw control bytes", i);
        }
    }
    assert_null(gguflint_finding_get(ctx, n));
    *copy_out = copy;
    return ctx;
}

static void done(gguflint_ctx *ctx, uint8_t *copy)
{
    gguflint_free(ctx);
    free(copy);
}

static bool has_rule_at(const gguflint_ctx *ctx, const char *id, uint64_t offset)
{
    size_t at;
    ex_count_id(ctx, id, offset, &at);
    return at > 0;
}

static bool has_any_rule(const gguflint_ctx *ctx, const char *const *ids)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const char *got = ex_id(gguflint_finding_get(ctx, i));
        for (size_t j = 0; ids[j]; j++)
            if (strcmp(got, ids[j]) == 0)
                return true;
    }
    return false;
}

static bool has_error(const gguflint_ctx *ctx)
{
    return ex_count_severity(ctx, GGUFLINT_ERROR) > 0;
}

/* Exercise dump and report on a linted context (must not crash). */
static void exercise_output(const gguflint_ctx *ctx)
{
    size_t bytes = 0;
    gguflint_dump(ctx, GGUFLINT_FORMAT_TEXT, count_writer, &bytes);
    gguflint_dump(ctx, GGUFLINT_FORMAT_JSON, count_writer, &bytes);
    for (int fmt = 0; fmt < 2; fmt++) {
        gguflint_report *r = gguflint_report_new((gguflint_format)fmt, count_writer, &bytes);
        assert_non_null(r);
        gguflint_report_file(r, "input.gguf", ctx, GGUFLINT_OK);
        gguflint_report_end(r, true);
        gguflint_report_free(r);
    }
    assert_true(bytes > 0);
}

/* ================================================================ prefixes */

/* Rules that say "the file ends too early" in one way or another. */
static const char *const truncation_rules[] = {
    "GG001", "GG003", "GG008", "GG009", "GG010", "GG111", "GG112", "GG216", "GG219", NULL,
};

/* Every prefix of `model` (whose last tensor's data ends at `data_end`, its
 * padding after that) is reported: as truncated with an error finding, or,
 * when only the final padding is missing, as GG303 missing-final-padding at
 * the end of the file. Returns the number of prefixes that were not (details
 * printed for the first few). */
static size_t check_prefixes(const uint8_t *model, size_t len, size_t data_end, const char *what)
{
    size_t failures = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy;
        gguflint_ctx *ctx = lint_copy(model, n, NULL, &copy);
        bool ok = n >= data_end ? has_rule_at(ctx, "GG303", n)
                                : has_error(ctx) && has_any_rule(ctx, truncation_rules);
        if (!ok && failures++ < 5) {
            print_message("%s: prefix of %zu/%zu bytes: expected %s\n", what, n, len,
                          n >= data_end ? "GG303 at the end" : "an error and a truncation finding");
            ex_print_findings(NULL, ctx);
        }
        done(ctx, copy);
    }
    if (failures)
        print_message("%s: %zu of %zu prefixes were not reported as truncated\n", what, failures,
                      len);
    return failures;
}

/* Where the small model's last tensor (q8_0 [32, 2], 68 bytes padded to 96)
 * ends: the model's length less the final padding. */
static size_t small_model_data_end(size_t len)
{
    uint64_t ne[2] = {32, 2};
    uint64_t last = gb_nbytes(GB_Q8_0, 2, ne);
    return len - (size_t)(gb_align_up(last, 32) - last);
}

static void test_prefixes_v3(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model(&len);
    size_t failures = check_prefixes(model, len, small_model_data_end(len), "v3");
    free(model);
    assert_int_equal(failures, 0);
}

static void test_prefixes_big_endian(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model_ex(3, true, &len);
    size_t failures = check_prefixes(model, len, small_model_data_end(len), "v3 big-endian");
    free(model);
    assert_int_equal(failures, 0);
}

static void test_prefixes_v1(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model_ex(1, false, &len);
    size_t failures = check_prefixes(model, len, small_model_data_end(len), "v1");
    free(model);
    assert_int_equal(failures, 0);
}

/* ================================================================ mutations */

static void mutate_each_byte(const uint8_t *model, size_t len, bool output)
{
    uint8_t *work = malloc(len);
    assert_non_null(work);
    for (size_t i = 0; i < len; i++) {
        for (int m = 0; m < 3; m++) {
            memcpy(work, model, len);
            work[i] = m == 0 ? (uint8_t)(model[i] ^ 0xFF) : m == 1 ? 0x00 : 0x80;
            uint8_t *copy;
            gguflint_ctx *ctx = lint_copy(work, len, NULL, &copy);
            if (output)
                exercise_output(ctx);
            done(ctx, copy);
        }
    }
    free(work);
}

static void test_flip_every_byte(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model(&len);
    mutate_each_byte(model, len, true);
    free(model);
}

static void test_flip_every_byte_big_endian_and_v1(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model_ex(3, true, &len);
    mutate_each_byte(model, len, false);
    free(model);
    model = ex_small_model_ex(1, false, &len);
    mutate_each_byte(model, len, false);
    free(model);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Seeded random multi-byte mutations, with random truncation and all options
 * (deep, strict limits). Deterministic. */
static void test_random_mutations(void **state)
{
    size_t len;
    uint8_t *model = ex_small_model(&len);
    uint8_t *work = malloc(len);
    assert_non_null(work);
    gguflint_options *deep = gguflint_options_new();
    assert_non_null(deep);
    gguflint_options_set_deep(deep, true);
    gguflint_options_set_limit(deep, GGUFLINT_LIMIT_DEPTH, 1);
    gguflint_options_set_limit(deep, GGUFLINT_LIMIT_FINDINGS_PER_RULE, 2);
    gguflint_options_set_limit(deep, GGUFLINT_LIMIT_STRING_LEN, 16);
    gguflint_options_set_limit(deep, GGUFLINT_LIMIT_ARRAY_COUNT, 3);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    static const uint8_t interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x20, 0x09, 0x40};
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(work, model, len);
        int nmut = 1 + (int)(xorshift(&seed) % 8);
        for (int k = 0; k < nmut; k++) {
            size_t at = (size_t)(xorshift(&seed) % len);
            uint64_t r = xorshift(&seed);
            work[at] = (r & 1) ? (uint8_t)(r >> 8) : interesting[(r >> 8) % sizeof interesting];
        }
        size_t n = (xorshift(&seed) % 4 == 0) ? (size_t)(xorshift(&seed) % (len + 1)) : len;
        uint8_t *copy;
        gguflint_ctx *ctx = lint_copy(work, n, (iter & 1) ? deep : NULL, &copy);
        if (iter % 16 == 0)
            exercise_output(ctx);
        done(ctx, copy);
    }
    free(work);
    free(model);
    gguflint_options_free(deep);
}

/* ============================================================ huge numbers */

static const uint64_t huge[] = {UINT64_C(1) << 32, UINT64_C(1) << 63, UINT64_MAX};
#define NHUGE (sizeof huge / sizeof huge[0])
#define REPEAT 200

typedef struct hostile {
    uint8_t *buf;
    size_t len;
    const char *id;  /* the rule that must be reported */
    uint64_t offset; /* at this offset */
} hostile;

static void run_hostile(hostile *h, const char *what, uint64_t value)
{
    assert_non_null(h->buf);
    bool ok = true;
    for (int rep = 0; rep < REPEAT; rep++) {
        uint8_t *copy;
        gguflint_ctx *ctx = lint_copy(h->buf, h->len, NULL, &copy);
        if (rep == 0 && !has_rule_at(ctx, h->id, h->offset)) {
            print_message("%s = %llu: expected %s at %llu\n", what, (unsigned long long)value,
                          h->id, (unsigned long long)h->offset);
            ex_print_findings(NULL, ctx);
            ok = false;
        }
        done(ctx, copy);
        if (!ok)
            break;
    }
    free(h->buf);
    if (!ok)
        fail_msg("%s = %llu: %s not reported at %llu", what, (unsigned long long)value, h->id,
                 (unsigned long long)h->offset);
}

static hostile make(gb *b, const char *id, uint64_t offset)
{
    hostile h = {NULL, 0, id, offset};
    assert_non_null(b);
    h.buf = gb_finish(b, &h.len);
    gb_free(b);
    return h;
}

static void test_huge_counts(void **state)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int be = 0; be < 2; be++) {
        for (size_t i = 0; i < NHUGE; i++) {
            uint64_t v = huge[i];
            gb *b;
            hostile h;

            /* tensor_count */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_str(b, "general.architecture", "llama");
            gb_override_counts(b, v, 1);
            h = make(b, "GG009", 8);
            run_hostile(&h, "tensor_count", v);

            /* kv_count */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_str(b, "general.architecture", "llama");
            gb_override_counts(b, 0, v);
            h = make(b, "GG008", 16);
            run_hostile(&h, "kv_count", v);

            /* key length */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            size_t at = gb_str_decl(b, v, "general.name", 12);
            gb_u32(b, GB_VT_U8);
            gb_u8(b, 1);
            gb_override_counts(b, 0, 1);
            h = make(b, "GG112", at);
            run_hostile(&h, "key length", v);

            /* string value length */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_begin(b, "general.name", GB_VT_STR);
            at = gb_str_decl(b, v, "abc", 3);
            h = make(b, "GG112", at);
            run_hostile(&h, "string length", v);

            /* string-array element length */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
            gb_arr_header(b, GB_VT_STR, 2);
            gb_str(b, "a", 1);
            at = gb_str_decl(b, v, "bc", 2);
            h = make(b, "GG112", at);
            run_hostile(&h, "string-array element length", v);

            /* array count, fixed-size elements */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_arr(b, "general.a", GB_VT_U32, v, "\1\0\0\0\2\0\0\0", 8);
            at = gb_last(b)->arr_count;
            h = make(b, "GG111", at);
            run_hostile(&h, "u32 array count", v);

            /* array count, u8 elements (1 byte each: count x 1 overflows nothing) */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_arr(b, "general.a", GB_VT_U8, v, "\1\2", 2);
            at = gb_last(b)->arr_count;
            h = make(b, "GG111", at);
            run_hostile(&h, "u8 array count", v);

            /* array count, string elements */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_begin(b, "general.tags", GB_VT_ARR);
            at = gb_arr_header(b, GB_VT_STR, v) + 4;
            gb_str(b, "x", 1);
            h = make(b, "GG111", at);
            run_hostile(&h, "string array count", v);

            /* array count of a nested array */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            gb_kv_begin(b, "general.nested", GB_VT_ARR);
            gb_arr_header(b, GB_VT_ARR, 1);
            at = gb_arr_header(b, GB_VT_U64, v) + 4;
            gb_u64(b, 1);
            h = make(b, "GG111", at);
            run_hostile(&h, "nested array count", v);

            /* a dim: 2^32 is a plausible size whose data is not there; 2^63
             * and 2^64-1 are negative as int64. */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            uint64_t ne[2] = {32, v};
            gb_tensor(b, "t", 2, ne, GB_F32, 0);
            gb_marks m = *gb_last(b);
            gb_pad_to(b, 32);
            gb_zeros(b, 128);
            h = make(b, v == (UINT64_C(1) << 32) ? "GG216" : "GG208",
                     v == (UINT64_C(1) << 32) ? m.offset : m.dim[1]);
            run_hostile(&h, "dim", v);

            /* ne[0] huge too (element count / byte size overflow or negative) */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            uint64_t ne2[2] = {v, v};
            gb_tensor(b, "t", 2, ne2, GB_F32, 0);
            m = *gb_last(b);
            gb_pad_to(b, 32);
            /* [2^32, 2^32] wraps to 0: accepted by ggml, GG515 */
            h = make(b, v == (UINT64_C(1) << 32) ? "GG515" : "GG208",
                     v == (UINT64_C(1) << 32) ? m.start : m.dim[0]);
            run_hostile(&h, "dims", v);

            /* tensor offset */
            b = gb_new(3);
            gb_set_big_endian(b, be);
            uint64_t ne3[1] = {8};
            gb_tensor(b, "t", 1, ne3, GB_F32, v);
            m = *gb_last(b);
            gb_pad_to(b, 32);
            gb_zeros(b, 32);
            h = make(b, "GG216", m.offset);
            run_hostile(&h, "tensor offset", v);
        }

        /* n_dims of 2^32-1 (the field is a u32). */
        gb *b = gb_new(3);
        gb_set_big_endian(b, be);
        gb_str(b, "t", 1);
        size_t at = gb_u32(b, UINT32_MAX);
        gb_u64(b, 8);
        gb_u32(b, GB_F32);
        gb_u64(b, 0);
        gb_override_counts(b, 1, 0);
        hostile h = make(b, "GG207", at);
        run_hostile(&h, "n_dims", UINT32_MAX);
    }

    /* v1: u32 counts and lengths of 2^32-1. */
    {
        gb *b = gb_new(1);
        gb_override_counts(b, 0, UINT32_MAX);
        hostile h = make(b, "GG008", 12);
        run_hostile(&h, "v1 kv_count", UINT32_MAX);
        b = gb_new(1);
        gb_override_counts(b, UINT32_MAX, 0);
        h = make(b, "GG009", 8);
        run_hostile(&h, "v1 tensor_count", UINT32_MAX);
        b = gb_new(1);
        gb_kv_begin(b, "general.name", GB_VT_STR);
        size_t at = gb_str_decl(b, UINT32_MAX, "abc", 3);
        h = make(b, "GG112", at);
        run_hostile(&h, "v1 string length", UINT32_MAX);
        b = gb_new(1);
        gb_kv_arr(b, "general.a", GB_VT_U32, UINT32_MAX, "\1\0\0\0", 4);
        at = gb_last(b)->arr_count;
        h = make(b, "GG111", at);
        run_hostile(&h, "v1 array count", UINT32_MAX);
    }

    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    print_message("huge counts: %d runs each, %.3f s total, max RSS %ld KiB\n", REPEAT, secs,
                  ru.ru_maxrss);
    /* Not a timing assertion, a sanity bound: nothing may have tried to
     * materialise a declared size (that would be gigabytes). */
    assert_true(ru.ru_maxrss < 1024L * 1024L);
}

/* Huge limits set by the caller must not turn into huge allocations either. */
static void test_huge_counts_with_unlimited_limits(void **state)
{
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, UINT64_MAX);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_ARRAY_COUNT, UINT64_MAX);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, UINT64_MAX);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_TENSOR_COUNT, UINT64_MAX);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, UINT32_MAX);
    for (size_t i = 0; i < NHUGE; i++) {
        gb *b = gb_new(3);
        gb_kv_arr(b, "general.a", GB_VT_U8, huge[i], "\1\2", 2);
        gb_kv_begin(b, "general.b", GB_VT_STR);
        gb_str_decl(b, huge[i], "x", 1);
        gb_override_counts(b, huge[i], huge[i]);
        size_t len;
        uint8_t *buf = ex_finish(b, &len);
        uint8_t *copy;
        gguflint_ctx *ctx = lint_copy(buf, len, o, &copy);
        assert_true(has_error(ctx));
        done(ctx, copy);
        free(buf);
    }
    gguflint_options_free(o);
}

/* Deeply nested arrays (each level 12 bytes) must not recurse without bound. */
static void test_deep_nesting(void **state)
{
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.deep", GB_VT_ARR);
    for (int i = 0; i < 100000; i++)
        gb_arr_header(b, GB_VT_ARR, 1);
    gb_arr_header(b, GB_VT_U8, 0);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, UINT32_MAX);
    uint8_t *copy;
    gguflint_ctx *ctx = lint_copy(buf, len, o, &copy);
    assert_true(has_error(ctx));
    done(ctx, copy);
    ctx = lint_copy(buf, len, NULL, &copy);
    assert_true(has_error(ctx));
    done(ctx, copy);
    free(buf);
    gguflint_options_free(o);
}

/* Many findings: max_findings_per_rule caps what is kept, the rest is counted. */
static void test_many_findings_capped(void **state)
{
    gb *b = gb_new(3);
    for (int i = 0; i < 5000; i++)
        gb_kv_bool(b, "general.flag", 7); /* duplicate key + bad bool, 5000 times */
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    uint8_t *copy;
    gguflint_ctx *ctx = lint_copy(buf, len, NULL, &copy);
    assert_true(gguflint_finding_count(ctx) <= 2 * 100 + 10);
    assert_true(gguflint_findings_dropped(ctx) > 0);
    done(ctx, copy);
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_prefixes_v3),
            cmocka_unit_test(test_prefixes_big_endian),
            cmocka_unit_test(test_prefixes_v1),
            cmocka_unit_test(test_flip_every_byte),
            cmocka_unit_test(test_flip_every_byte_big_endian_and_v1),
            cmocka_unit_test(test_random_mutations),
            cmocka_unit_test(test_huge_counts),
            cmocka_unit_test(test_huge_counts_with_unlimited_limits),
            cmocka_unit_test(test_deep_nesting),
            cmocka_unit_test(test_many_findings_capped),
        })

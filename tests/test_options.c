/* test_options.c - the opaque options and the version API: defaults, every
 * setter and getter, range checks, copies that are independent, NULL
 * handling, and that a context copies its options (changing or freeing them
 * after gguflint_new changes nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "gguflint.h"

static void test_defaults(void **state)
{
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    for (int l = 0; l < GGUFLINT_LIMIT__COUNT; l++)
        assert_true(gguflint_options_get_limit(o, (gguflint_limit)l) ==
                    gguflint_limit_default((gguflint_limit)l));
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_STRING_LEN) == (1ull << 30));
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_ARRAY_COUNT) == (1ull << 30));
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_KV_COUNT) == 100000);
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_TENSOR_COUNT) == 10000000);
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_DEPTH) == 4);
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT_FINDINGS_PER_RULE) == 100);
    assert_false(gguflint_options_get_deep(o));
    assert_int_equal(gguflint_options_get_deep_jobs(o), 0);
    assert_false(gguflint_options_get_header_only(o));
    assert_string_equal(gguflint_options_get_profile(o), "ggml");
    for (size_t i = 0; i < gguflint_rule_count(); i++)
        assert_int_equal(gguflint_options_get_severity(o, i), gguflint_rule(i)->default_severity);
    assert_int_equal(gguflint_options_get_severity(o, gguflint_rule_count()), GGUFLINT_OFF);
    gguflint_options_free(o);
}

static void test_setters_and_ranges(void **state)
{
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    assert_int_equal(gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, UINT64_MAX),
                     GGUFLINT_OK);
    assert_true(gguflint_options_get_limit(o, GGUFLINT_LIMIT_STRING_LEN) == UINT64_MAX);
    assert_int_equal(gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, UINT32_MAX), GGUFLINT_OK);
    assert_int_equal(gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 1ull << 32),
                     GGUFLINT_E_ARG);
    assert_true(gguflint_options_get_limit(o, GGUFLINT_LIMIT_DEPTH) == UINT32_MAX);
    assert_int_equal(gguflint_options_set_limit(o, GGUFLINT_LIMIT_FINDINGS_PER_RULE, 1ull << 32),
                     GGUFLINT_E_ARG);
    assert_int_equal(gguflint_options_set_limit(o, GGUFLINT_LIMIT__COUNT, 1), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_options_set_limit(o, (gguflint_limit)-1, 1), GGUFLINT_E_ARG);
    assert_true(gguflint_options_get_limit(o, GGUFLINT_LIMIT__COUNT) == 0);
    assert_true(gguflint_limit_default(GGUFLINT_LIMIT__COUNT) == 0);
    assert_int_equal(gguflint_options_set_deep(o, true), GGUFLINT_OK);
    assert_true(gguflint_options_get_deep(o));
    assert_int_equal(gguflint_options_set_deep_jobs(o, 3), GGUFLINT_OK);
    assert_int_equal(gguflint_options_get_deep_jobs(o), 3);
    assert_int_equal(gguflint_options_set_header_only(o, true), GGUFLINT_OK);
    assert_true(gguflint_options_get_header_only(o));
    assert_int_equal(gguflint_options_profile(o, "security"), GGUFLINT_OK);
    assert_string_equal(gguflint_options_get_profile(o), "security");
    assert_int_equal(gguflint_options_profile(o, "nope"), GGUFLINT_E_ARG);
    assert_string_equal(gguflint_options_get_profile(o), "security");
    int r = gguflint_rule_find("GG106");
    assert_true(r >= 0);
    assert_int_equal(gguflint_options_set_severity(o, "GG106", GGUFLINT_NOTE), GGUFLINT_OK);
    assert_int_equal(gguflint_options_get_severity(o, (size_t)r), GGUFLINT_NOTE);
    assert_int_equal(gguflint_options_select(o, "GG106", false, NULL, 0), GGUFLINT_OK);
    assert_int_equal(gguflint_options_get_severity(o, (size_t)r), GGUFLINT_OFF);
    gguflint_options_clear(o);
    for (size_t i = 0; i < gguflint_rule_count(); i++)
        assert_int_equal(gguflint_options_get_severity(o, i), GGUFLINT_OFF);
    /* back to every default */
    gguflint_options_default(o);
    assert_false(gguflint_options_get_deep(o));
    assert_string_equal(gguflint_options_get_profile(o), "ggml");
    assert_int_equal(gguflint_options_get_severity(o, (size_t)r), GGUFLINT_ERROR);
    gguflint_options_free(o);
}

static void test_null_options(void **state)
{
    assert_int_equal(gguflint_options_set_limit(NULL, GGUFLINT_LIMIT_DEPTH, 1), GGUFLINT_E_ARG);
    assert_true(gguflint_options_get_limit(NULL, GGUFLINT_LIMIT_DEPTH) == 0);
    assert_int_equal(gguflint_options_set_deep(NULL, true), GGUFLINT_E_ARG);
    assert_false(gguflint_options_get_deep(NULL));
    assert_int_equal(gguflint_options_set_deep_jobs(NULL, 2), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_options_set_header_only(NULL, true), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_options_profile(NULL, "ggml"), GGUFLINT_E_ARG);
    assert_null(gguflint_options_get_profile(NULL));
    assert_int_equal(gguflint_options_select(NULL, "ALL", true, NULL, 0), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_options_get_severity(NULL, 0), GGUFLINT_OFF);
    assert_null(gguflint_options_copy(NULL));
    gguflint_options_clear(NULL);
    gguflint_options_default(NULL);
    gguflint_options_free(NULL);
}

static void test_copy_is_independent(void **state)
{
    gguflint_options *a = gguflint_options_new();
    assert_non_null(a);
    gguflint_options_set_limit(a, GGUFLINT_LIMIT_KV_COUNT, 7);
    gguflint_options *b = gguflint_options_copy(a);
    assert_non_null(b);
    assert_true(gguflint_options_get_limit(b, GGUFLINT_LIMIT_KV_COUNT) == 7);
    gguflint_options_set_limit(a, GGUFLINT_LIMIT_KV_COUNT, 9);
    assert_true(gguflint_options_get_limit(b, GGUFLINT_LIMIT_KV_COUNT) == 7);
    gguflint_options_free(a);
    gguflint_options_free(b);
}

/* A context keeps the options it was made with: a file of 3 KVs is over a
 * kv_count limit of 2 (GG011) whatever happens to the options object after. */
static void test_context_copies_options(void **state)
{
    uint8_t file[24 + 3 * 14];
    memset(file, 0, sizeof file);
    memcpy(file, "GGUF", 4);
    file[4] = 3;  /* version */
    file[16] = 3; /* kv_count; tensor_count 0 */
    for (int k = 0; k < 3; k++) {
        uint8_t *kv = file + 24 + 14 * k;
        kv[0] = 1;                  /* key length 1 */
        kv[8] = (uint8_t)('a' + k); /* key; type 0 = u8; value 0 */
    }
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    gguflint_options_clear(o);
    gguflint_options_select(o, "GG011", true, NULL, 0);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 2);
    gguflint_ctx *ctx = gguflint_new(o);
    assert_non_null(ctx);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 100);
    gguflint_options_free(o);
    assert_int_equal(gguflint_set_buffer(ctx, file, sizeof file), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_finding_count(ctx), 1);
    assert_string_equal(gguflint_rule((size_t)gguflint_finding_get(ctx, 0)->rule)->id, "GG011");
    gguflint_free(ctx);
}

static void test_version(void **state)
{
    assert_string_equal(gguflint_version(), GGUFLINT_VERSION);
    assert_int_equal(gguflint_version_number(), GGUFLINT_VERSION_NUMBER);
    assert_int_equal(GGUFLINT_VERSION_NUMBER, GGUFLINT_VERSION_MAJOR * 10000 +
                                                  GGUFLINT_VERSION_MINOR * 100 +
                                                  GGUFLINT_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", GGUFLINT_VERSION_MAJOR, GGUFLINT_VERSION_MINOR,
             GGUFLINT_VERSION_PATCH);
    assert_string_equal(GGUFLINT_VERSION, want);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_defaults),
            cmocka_unit_test(test_setters_and_ranges),
            cmocka_unit_test(test_null_options),
            cmocka_unit_test(test_copy_is_independent),
            cmocka_unit_test(test_context_copies_options),
            cmocka_unit_test(test_version),
        })

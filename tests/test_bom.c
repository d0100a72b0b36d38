/* test_bom.c - the CycloneDX BOM's timestamp through the library
 * (gguflint_report_set_timestamp, report_cyclonedx.c): none by default,
 * the epoch's seconds as an ISO 8601 UTC date-time (leap days, century
 * rules, the last second of 9999), -1 removing it, and the range checked.
 * The BOM against the CycloneDX 1.6 schema, the CLI's --bom-timestamp and
 * SOURCE_DATE_EPOCH: tests/check_cyclonedx.py. */
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
#include "gguflint_llama.h"

/* The BOM of one small file with the timestamp `when` (-2: never set). */
static void bom(int64_t when, ex_buf *out)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, NULL, NULL);
    ex_buf_clear(out);
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_CYCLONEDX, ex_buf_sink, out);
    assert_non_null(r);
    if (when != -2)
        assert_int_equal(gguflint_report_set_timestamp(r, when), GGUFLINT_OK);
    gguflint_report_file(r, "m.gguf", ctx, GGUFLINT_OK);
    assert_int_equal(gguflint_report_end(r, true), GGUFLINT_OK);
    gguflint_report_free(r);
    gguflint_free(ctx);
    free(buf);
}

static void test_default_none(void **state)
{
    (void)state;
    static ex_buf s;
    bom(-2, &s);
    assert_non_null(strstr(ex_buf_str(&s), "\"metadata\":{\"tools\":"));
    assert_null(strstr(ex_buf_str(&s), "\"timestamp\""));
    bom(-1, &s); /* -1: removed */
    assert_null(strstr(ex_buf_str(&s), "\"timestamp\""));
}

static void test_dates(void **state)
{
    (void)state;
    static const struct {
        int64_t t;
        const char *iso;
    } rows[] = {
        {0, "1970-01-01T00:00:00Z"},
        {951782400, "2000-02-29T00:00:00Z"},  /* a leap day of a 400th year */
        {4107456000, "2100-02-28T00:00:00Z"}, /* 2100 is no leap year... */
        {4107542400, "2100-03-01T00:00:00Z"}, /* ...so March follows the 28th */
        {1700000000, "2023-11-14T22:13:20Z"},
        {1735689599, "2024-12-31T23:59:59Z"},
        {253402300799, "9999-12-31T23:59:59Z"}, /* the last accepted */
    };
    static ex_buf s;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bom(rows[i].t, &s);
        char want[64];
        snprintf(want, sizeof want, "\"metadata\":{\"timestamp\":\"%s\",\"tools\":", rows[i].iso);
        if (!strstr(ex_buf_str(&s), want))
            fail_msg("%lld: wanted %s in %.120s", (long long)rows[i].t, rows[i].iso,
                     ex_buf_str(&s));
    }
}

static void test_range(void **state)
{
    (void)state;
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_CYCLONEDX, ex_buf_sink, NULL);
    assert_non_null(r);
    assert_int_equal(gguflint_report_set_timestamp(r, -2), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_report_set_timestamp(r, INT64_C(253402300800)), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_report_set_timestamp(r, INT64_MIN), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_report_set_timestamp(r, INT64_MAX), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_report_set_timestamp(NULL, 0), GGUFLINT_E_ARG);
    gguflint_report_free(r);
    /* other formats ignore it */
    static ex_buf s;
    r = gguflint_report_new(GGUFLINT_FORMAT_JSON, ex_buf_sink, &s);
    assert_int_equal(gguflint_report_set_timestamp(r, 0), GGUFLINT_OK);
    gguflint_report_end(r, true);
    gguflint_report_free(r);
    assert_null(strstr(ex_buf_str(&s), "1970-01-01"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_none),
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

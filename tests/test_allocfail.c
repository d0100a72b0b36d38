/* test_allocfail.c - allocation-failure sweep (libexpat's practice): for a few
 * files, fail the i-th allocation made by the library for every i until a run
 * completes without an injected failure. Each run must end in a clean status
 * (GGUFLINT_OK, or GGUFLINT_E_NOMEM with a context that answers every later
 * call with it), never crash, and leak nothing (LeakSanitizer in the
 * asan-ubsan preset). malloc, calloc and realloc are redirected here with the
 * linker's --wrap, so the library's real code paths are exercised unchanged. */
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

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static long countdown = -1; /* fail when it reaches 0; -1 = never */
static long calls;
static int injected;

static int should_fail(void)
{
    calls++;
    if (countdown < 0)
        return 0;
    if (countdown-- == 0) {
        injected = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    return should_fail() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

static void sink(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
}

/* One full use of the library: parse, lint, report in both formats, dump. */
static int exercise(const uint8_t *buf, size_t len)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return GGUFLINT_E_NOMEM;
    int st = gguflint_set_buffer(ctx, buf, len);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        /* sticky: every later call answers the same status */
        assert_int_equal(gguflint_run(ctx), st);
        assert_int_equal(gguflint_finding_count(ctx), 0);
    }
    size_t out = 0;
    for (int f = GGUFLINT_FORMAT_TEXT; f <= GGUFLINT_FORMAT_JSON; f++) {
        gguflint_report *r = gguflint_report_new((gguflint_format)f, sink, &out);
        if (r) {
            gguflint_report_file(r, "x.gguf", ctx, st);
            gguflint_report_end(r, true);
            gguflint_report_free(r);
        }
    }
    if (st == GGUFLINT_OK)
        gguflint_dump(ctx, GGUFLINT_FORMAT_JSON, sink, &out);
    gguflint_free(ctx);
    return st;
}

static void sweep(const uint8_t *buf, size_t len, const char *what)
{
    long i = 0;
    for (;; i++) {
        countdown = i;
        injected = 0;
        calls = 0;
        int st = exercise(buf, len);
        countdown = -1;
        assert_true(st == GGUFLINT_OK || st == GGUFLINT_E_NOMEM);
        if (!injected) {
            assert_int_equal(st, GGUFLINT_OK);
            break;
        }
        assert_true(i < 100000);
    }
    printf("%s: %ld allocation sites failed in turn\n", what, i);
}

static void test_small_model(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    sweep(buf, len, "small model");
    free(buf);
}

static void test_hostile(void **state)
{
    /* many findings, duplicate keys and names: grows every table */
    gb *b = gb_new(3);
    char key[32];
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "k.%d", i % 150);
        gb_kv_u32(b, key, (uint32_t)i);
    }
    const char *strs[] = {"a", "\xff\xfe", "b", "\xc0\x80"};
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", strs, 4);
    uint64_t ne[2] = {33, 3};
    for (int i = 0; i < 100; i++)
        gb_tensor(b, "t", 2, ne, (uint32_t)(i % 45), (uint64_t)i * 7);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    sweep(buf, len, "hostile");
    free(buf);
}

static void test_big_endian_v1(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model_ex(1, false, &len);
    sweep(buf, len, "v1");
    free(buf);
    buf = ex_small_model_ex(3, true, &len);
    sweep(buf, len, "big-endian");
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_small_model),
            cmocka_unit_test(test_hostile),
            cmocka_unit_test(test_big_endian_v1),
        })

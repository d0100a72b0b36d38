/* test_threads.c - the library is thread-safe: several threads lint, report
 * and dump different files at once, each with its own context, and get the
 * same findings as a single-threaded run. Built in every preset; the tsan
 * preset runs it under ThreadSanitizer. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
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

#define N_THREADS 4
#define N_FILES 6
#define ROUNDS 20

typedef struct input {
    uint8_t *buf;
    size_t len;
    size_t expect_findings;
} input;

static input inputs[N_FILES];

static void count(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
}

static size_t lint_count(const input *in)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return (size_t)-1;
    size_t n = (size_t)-1;
    if (gguflint_set_buffer(ctx, in->buf, in->len) == GGUFLINT_OK &&
        gguflint_run(ctx) == GGUFLINT_OK) {
        n = gguflint_finding_count(ctx);
        size_t out = 0;
        gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_JSON, count, &out);
        if (r) {
            gguflint_report_file(r, "t.gguf", ctx, GGUFLINT_OK);
            gguflint_report_end(r, true);
            gguflint_report_free(r);
        }
        gguflint_dump(ctx, GGUFLINT_FORMAT_TEXT, count, &out);
        /* rule metadata is shared, read-only data */
        for (size_t i = 0; i < gguflint_rule_count(); i++)
            if (!gguflint_rule(i)->what)
                n = (size_t)-1;
    }
    gguflint_free(ctx);
    return n;
}

static void *worker(void *arg)
{
    size_t id = (size_t)(uintptr_t)arg, bad = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (size_t f = 0; f < N_FILES; f++) {
            const input *in = &inputs[(f + id) % N_FILES];
            if (lint_count(in) != in->expect_findings)
                bad++;
        }
    return (void *)(uintptr_t)bad;
}

static void make_inputs(void)
{
    inputs[0].buf = gb_small_model(&inputs[0].len);
    inputs[1].buf = gb_small_model_ex(1, false, &inputs[1].len);
    inputs[2].buf = gb_small_model_ex(3, true, &inputs[2].len);
    for (int k = 3; k < N_FILES; k++) {
        gb *b = gb_new(3);
        char key[32];
        for (int i = 0; i < 50 * k; i++) {
            snprintf(key, sizeof key, "k.%d", i % (20 * k));
            gb_kv_u32(b, key, (uint32_t)i);
        }
        uint64_t ne[2] = {33, 3};
        for (int i = 0; i < 20 * k; i++)
            gb_tensor(b, "t", 2, ne, (uint32_t)(i % 45), (uint64_t)i * 7);
        inputs[k].buf = gb_finish(b, &inputs[k].len);
        gb_free(b);
    }
    for (int k = 0; k < N_FILES; k++) {
        assert_non_null(inputs[k].buf);
        inputs[k].expect_findings = lint_count(&inputs[k]);
        assert_true(inputs[k].expect_findings != (size_t)-1);
    }
}

static void test_parallel_lint(void **state)
{
    make_inputs();
    pthread_t t[N_THREADS];
    for (size_t i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i), 0);
    size_t bad = 0;
    for (size_t i = 0; i < N_THREADS; i++) {
        void *ret;
        assert_int_equal(pthread_join(t[i], &ret), 0);
        bad += (size_t)(uintptr_t)ret;
    }
    assert_int_equal(bad, 0);
    for (int k = 0; k < N_FILES; k++)
        free(inputs[k].buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_parallel_lint),
        })

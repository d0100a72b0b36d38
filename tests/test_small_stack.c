/* test_small_stack.c - a 64 KiB stack limit (issue 25): `ulimit -s 64`, as in
 * some sandboxes, made lint, hash and dump of a clean file crash (SIGSEGV:
 * the arch checks keep tables of some 10 KB on the stack). The CLI now runs
 * its command, and its -j workers, on threads with an 8 MiB stack when the
 * limit is lower, so the same runs work under it; and the library itself
 * lints a clean model on a thread of 64 KiB (the arch evaluator's state and
 * the tensor set moved to the heap). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "expect.h"
#include "tiny_llama.h"
#include "gguflint.h"

static char dir[] = "/tmp/gguflint-stack-XXXXXX";

static char out[1 << 14];

static int run(const char *args)
{
    return ex_cli_run_as(&(ex_how){"ulimit -s 64 &&", 60}, GGUFLINT_CLI, dir, ".", args, out,
                         sizeof out);
}

static void test_small_stack(void **state)
{
    ex_write_tiny_llama(dir, "a.gguf");
    ex_write_tiny_llama(dir, "b.gguf");
    assert_int_equal(run("--isolated a.gguf"), 0);
    /* whether the --deep scan's second thread takes a piece is a race: the
     * run is repeated (its thread once inherited the 64 KiB limit and
     * crashed the sanitizer build in about 4 runs of 10) */
    for (int i = 0; i < 12; i++)
        assert_int_equal(run("--isolated -j 2 --deep a.gguf b.gguf"), 0);
    /* an adaptive run starts its helper thread only when it pays (often
     * never on two small files): --jobs-fixed starts it at once */
    assert_int_equal(run("--isolated -j 2 --jobs-fixed a.gguf b.gguf"), 0);
    assert_int_equal(run("hash a.gguf"), 0);
    assert_int_equal(run("dump a.gguf"), 0);
    assert_int_equal(run("--isolated -r ."), 0);
}

static void *lint_on_thread(void *arg)
{
    size_t len;
    uint8_t *buf = gb_tiny_llama(&len);
    int *st = arg;
    *st = -1;
    if (!buf)
        return NULL;
    gguflint_ctx *ctx = ex_lint(buf, len);
    *st = ctx && ex_count_severity(ctx, GGUFLINT_ERROR) == 0 ? 0 : 1;
    gguflint_free(ctx);
    free(buf);
    return NULL;
}

/* Sanitizer builds inflate every frame (redzones, fake stacks): the bound
 * is a property of the normal build only. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static void test_library_64k_thread(void **state)
{
#ifdef SANITIZED
    skip();
#endif
    pthread_attr_t a;
    pthread_t t;
    int st = -2;
    assert_int_equal(pthread_attr_init(&a), 0);
    assert_int_equal(pthread_attr_setstacksize(&a, 64 * 1024), 0);
    assert_int_equal(pthread_create(&t, &a, lint_on_thread, &st), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&a);
    assert_int_equal(st, 0);
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_small_stack),
            cmocka_unit_test(test_library_64k_thread),
        })

/* test_small_stack.c - a 64 KiB stack limit (issue 25): `ulimit -s 64`, as in
 * some sandboxes, made lint, hash and dump of a clean file crash (SIGSEGV:
 * the arch checks keep tables of some 10 KB on the stack). The CLI now runs
 * its command, and its -j workers, on threads with an 8 MiB stack when the
 * limit is lower, so the same runs work under it. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "expect.h"

static char dir[] = "/tmp/gguflint-stack-XXXXXX";

static int run(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && ulimit -s 64 && timeout 60 %s %s > out.txt 2>&1", dir,
             GGUFLINT_CLI, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_small_stack(void **state)
{
    (void)state;
    ex_write_tiny_llama(dir, "a.gguf");
    ex_write_tiny_llama(dir, "b.gguf");
    assert_int_equal(run("--isolated a.gguf"), 0);
    assert_int_equal(run("--isolated -j 2 --deep a.gguf b.gguf"), 0);
    assert_int_equal(run("hash a.gguf"), 0);
    assert_int_equal(run("dump a.gguf"), 0);
    assert_int_equal(run("--isolated -r ."), 0);
}

static int setup(void **state)
{
    (void)state;
    return ex_tmpdir_make(dir);
}

static int teardown(void **state)
{
    (void)state;
    return ex_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_small_stack)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

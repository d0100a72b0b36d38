/* test_path_hex.c - a path that is not UTF-8 round-trips through JSON
 * (issue 25): "path" escapes a byte 0xFF as \u00ff, which names another,
 * valid file (the UTF-8 bytes c3 bf), so the report and `hash` add
 * "path_hex" with the exact bytes; a UTF-8 path has none. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "tiny_llama.h"

static char dir[] = "/tmp/gguflint-pathhex-XXXXXX";
static char out[1 << 16];

static void write_clean(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    uint8_t *buf = gb_tiny_llama(&len);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(buf);
}

static void test_path_hex(void **state)
{
    (void)state;
    write_clean("m\xff.gguf");
    write_clean("caf\xc3\xa9.gguf");
    ex_cli_expect(GGUFLINT_CLI, dir, "", "--isolated --format json -r .", 0,
                  "\"path\":\"./m\\u00ff.gguf\",\"path_hex\":\"2e2f6dff2e67677566\"", out,
                  sizeof out);
    assert_non_null(strstr(out, "\"path\":\"./caf\xc3\xa9.gguf\",\"size\""));
    ex_cli_expect(GGUFLINT_CLI, dir, "", "hash m\xff.gguf", 0,
                  "\"path\":\"m\\u00ff.gguf\",\"path_hex\":\"6dff2e67677566\"", out, sizeof out);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_path_hex)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

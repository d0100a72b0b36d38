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

static char dir[] = "/tmp/gguflint-pathhex-XXXXXX";
static char out[1 << 16];

static void test_path_hex(void **state)
{
    ex_write_tiny_llama(dir, "m\xff.gguf");
    ex_write_tiny_llama(dir, "caf\xc3\xa9.gguf");
    ex_cli_expect(GGUFLINT_CLI, dir, "", "--isolated --format json -r .", 0,
                  "\"path\":\"./m\\u00ff.gguf\",\"path_hex\":\"2e2f6dff2e67677566\"", out,
                  sizeof out);
    assert_non_null(strstr(out, "\"path\":\"./caf\xc3\xa9.gguf\",\"size\""));
    ex_cli_expect(GGUFLINT_CLI, dir, "", "hash m\xff.gguf", 0,
                  "\"path\":\"m\\u00ff.gguf\",\"path_hex\":\"6dff2e67677566\"", out, sizeof out);
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_path_hex),
        })

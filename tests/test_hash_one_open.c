/* test_hash_one_open.c - `gguflint hash` opens a local file once (issue 25):
 * its metadata is parsed through the descriptor its digests are read from,
 * opened with O_NONBLOCK, so a FIFO swapped in between two opens can neither
 * block it nor be hashed instead of the file parsed. Counted with strace
 * (skipped without it); a FIFO given as the file is refused at once. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

static char dir[] = "/tmp/gguflint-hash1-XXXXXX";

static void test_one_open(void **state)
{
    if (system("strace -V > /dev/null 2>&1") != 0)
        skip();
    char path[600], log[600], cmd[2048];
    snprintf(path, sizeof path, "%s/m.gguf", dir);
    snprintf(log, sizeof log, "%s/strace.txt", dir);
    ex_write_tiny_llama(dir, "m.gguf");
    snprintf(cmd, sizeof cmd, "strace -f -e trace=open,openat -o '%s' %s hash '%s' > /dev/null",
             log, GGUFLINT_CLI, path);
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        skip(); /* ptrace not allowed here */
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[4096];
    int opens = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, path) && !strstr(line, "ENOENT"))
            opens++;
    fclose(f);
    assert_int_equal(opens, 1); /* two before: one to parse, one to hash */
}

static void test_fifo_refused(void **state)
{
    char path[600], cmd[2048];
    snprintf(path, sizeof path, "%s/fifo.gguf", dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    snprintf(cmd, sizeof cmd, "timeout 10 %s hash '%s' > /dev/null 2>&1", GGUFLINT_CLI, path);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 2); /* not 124: it did not block */
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_one_open),
            cmocka_unit_test(test_fifo_refused),
        })

/* test_lowmem.c - reading under an address-space limit (issue 25), run
 * through the built binary under `ulimit -v 262144` (256 MiB). Before, a
 * local file was mapped whole, and lint, dump and hash of a file larger than
 * the limit failed with "Cannot allocate memory". Now the metadata is read
 * with pread when the mapping cannot be had (or the file is larger than half
 * the limit):
 *  - a sparse 100 GiB model lints, dumps, with the same JSON report as
 *    without the limit;
 *  - a sparse 1 GiB model passes --deep (every data byte read, also on 8
 *    threads) and hash.
 * Skips when the file system cannot hold the sparse files or when the binary
 * cannot run under the limit at all (a sanitizer build reserves terabytes). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

#include "gguf_builder.h"

static char dir[] = "/tmp/gguflint-lowmem-XXXXXX";
static char out[1 << 16], plain[1 << 16];

#define LIMIT "ulimit -v 262144 && "

static int run(const char *pre, const char *args, char *buf, size_t cap)
{
    return ex_cli_run_as(&(ex_how){pre, 300}, GGUFLINT_CLI, dir, ".", args, buf, cap);
}

static void expect(const char *pre, const char *args, int code, const char *needle)
{
    ex_cli_expect_as(&(ex_how){pre, 300}, GGUFLINT_CLI, dir, ".", args, code, needle, out,
                     sizeof out);
}

/* A llama-named F32 tensor [ne0, ne1] with metadata at the front, the data
 * a hole; false when the file system refuses the size. */
static bool write_sparse(const char *name, uint64_t ne0, uint64_t ne1)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", 32);
    uint64_t ne[2] = {ne0, ne1};
    gb_tensor(b, "token_embd.weight", 2, ne, GB_F32, 0);
    gb_pad_to(b, 32);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    free(buf);
    bool ok = ftruncate(fd, (off_t)(len + ne0 * ne1 * 4)) == 0;
    close(fd);
    return ok;
}

static void test_huge_file_under_limit(void **state)
{
    if (run(LIMIT, "--version", out, sizeof out) != 0)
        skip(); /* the binary cannot start under the limit (a sanitizer build) */
    if (!write_sparse("huge.gguf", 1u << 20, 25600)) /* 100 GiB */
        skip();
    const char *args = "--isolated --select GG1,GG2,GG3 --format json huge.gguf";
    assert_int_equal(run("", args, plain, sizeof plain), 0);
    expect(LIMIT, args, 0, "\"size\":1073741825");
    assert_string_equal(out, plain);
    expect(LIMIT, "--isolated --select GG1,GG2,GG3 huge.gguf", 0, "1 file checked: 0 errors");
    expect(LIMIT, "dump huge.gguf", 0, "little-endian, 1073741825");
    assert_non_null(strstr(out, "token_embd.weight"));
}

static void test_deep_and_hash_under_limit(void **state)
{
    if (run(LIMIT, "--version", out, sizeof out) != 0)
        skip();
    if (!write_sparse("gig.gguf", 1u << 16, 4096)) /* 1 GiB */
        skip();
    expect(LIMIT, "--isolated --select GG3 --deep gig.gguf", 0,
           "warning GG312 tensor-all-zero: tensor[0]: tensor 'token_embd.weight' (f32, "
           "1073741824 bytes) is entirely zero");
    /* eight threads, each reading in pieces of its own */
    expect(LIMIT, "--isolated --select GG3 --deep -j 8 gig.gguf", 0, "1 file checked: 0 errors");
    assert_int_equal(run("", "hash gig.gguf", plain, sizeof plain), 0);
    /* the SHA-256 of 1 GiB of zero bytes */
    expect(LIMIT, "hash gig.gguf", 0,
           "\"sha256\":\"49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14\"");
    assert_string_equal(out, plain);
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_huge_file_under_limit),
            cmocka_unit_test(test_deep_and_hash_under_limit),
        })

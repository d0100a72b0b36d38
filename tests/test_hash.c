/* test_hash.c - `gguflint hash` and `--verify-manifest`: the manifest
 * survives metadata edits (the digests cover tensor data only), catches a
 * changed data byte, a missing and an extra tensor, works across the shards
 * of a split set, and rejects a malformed manifest. Runs the built CLI. */
#define _POSIX_C_SOURCE 200809L
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

#include "gguf_builder.h"

static char dir[] = "/tmp/gguflint-hash-XXXXXX";

/* A small model: tensors named by `names` (n of them, f32 [8]), data bytes
 * filled with `seed`, a general.name KV of `label`. */
static void write_model(const char *file, const char *label, const char *const *names, size_t n,
                        uint8_t seed, int flip_at)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    gb_kv_str(b, "general.name", label);
    uint64_t ne[1] = {8};
    for (size_t i = 0; i < n; i++)
        gb_tensor(b, names[i], 1, ne, GB_F32, 32 * i);
    gb_pad_to(b, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t data[32];
        for (int k = 0; k < 32; k++)
            data[k] = (uint8_t)(seed + i * 7 + (size_t)k);
        if ((int)i * 32 <= flip_at && flip_at < (int)(i + 1) * 32)
            data[flip_at - (int)i * 32] ^= 1;
        gb_bytes(b, data, 32);
    }
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    assert_non_null(buf);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(buf);
}

static int run(const char *args, const char *expect_out)
{
    char cmd[1024], out[256];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s > out.txt 2>&1", dir, GGUFLINT_CLI, args);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (expect_out) {
        snprintf(out, sizeof out, "%s/out.txt", dir);
        FILE *f = fopen(out, "r");
        char text[8192] = "";
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = '\0';
        if (f)
            fclose(f);
        if (!strstr(text, expect_out))
            fail_msg("%s: expected '%s' in:\n%s", args, expect_out, text);
    }
    return rc;
}

static void test_manifest_roundtrip(void **state)
{
    (void)state;
    static const char *const names[] = {"a.weight", "b.weight", "c.weight"};
    write_model("m.gguf", "first", names, 3, 1, -1);
    assert_int_equal(run("hash -o m.json m.gguf", NULL), 0);
    assert_int_equal(run("hash --verify-manifest m.json m.gguf", "3 tensors verified, 0 problems"),
                     0);
    /* metadata edit: same tensors, other name -> still verifies */
    write_model("renamed.gguf", "a much longer name changes every offset", names, 3, 1, -1);
    assert_int_equal(run("hash --verify-manifest m.json renamed.gguf", "0 problems"), 0);
    /* one data byte changed */
    write_model("flipped.gguf", "first", names, 3, 1, 40);
    assert_int_equal(
        run("hash --verify-manifest m.json flipped.gguf", "changed: tensor \"b.weight\""), 1);
    /* a tensor missing, another extra */
    static const char *const other[] = {"a.weight", "b.weight", "d.weight"};
    write_model("other.gguf", "first", other, 3, 1, -1);
    assert_int_equal(
        run("hash --verify-manifest m.json other.gguf", "missing: tensor \"c.weight\""), 1);
    assert_int_equal(run("hash --verify-manifest m.json other.gguf", "extra: tensor \"d.weight\""),
                     1);
}

static void test_split_set(void **state)
{
    (void)state;
    static const char *const s1[] = {"a.weight", "b.weight"}, *const s2[] = {"c.weight"};
    write_model("s-00001-of-00002.gguf", "x", s1, 2, 5, -1);
    write_model("s-00002-of-00002.gguf", "x", s2, 1, 9, -1);
    assert_int_equal(run("hash -o set.json s-00001-of-00002.gguf s-00002-of-00002.gguf", NULL), 0);
    assert_int_equal(
        run("hash --verify-manifest set.json s-00001-of-00002.gguf s-00002-of-00002.gguf",
            "3 tensors verified, 0 problems"),
        0);
    assert_int_equal(run("hash --verify-manifest set.json s-00001-of-00002.gguf",
                         "missing: tensor \"c.weight\""),
                     1);
}

static void test_bad_manifest(void **state)
{
    (void)state;
    static const char *const names[] = {"a.weight"};
    write_model("one.gguf", "x", names, 1, 3, -1);
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    static const char *const bad[] = {"", "{", "{\"files\":[{\"tensors\":[{\"name\":\"a\"}]}]}",
                                      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "nul\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "wb");
        fputs(bad[i], f);
        fclose(f);
        assert_int_equal(run("hash --verify-manifest bad.json one.gguf", "manifest"), 2);
    }
    assert_int_equal(run("hash --verify-manifest nope.json one.gguf", "cannot read"), 2);
    assert_int_equal(run("hash", NULL), 2);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_roundtrip),
        cmocka_unit_test(test_split_set),
        cmocka_unit_test(test_bad_manifest),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

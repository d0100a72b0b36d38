/* test_lone_shard.c - a shard without the rest of its set (issue 25), run
 * through the built binary. A first shard of three alone in a directory is
 * "the download that stopped early": under -r (and with several inputs) it
 * forms a set by itself and GG410 names each missing shard, at the first
 * shard's split.count value. What follows from judging a set from one
 * member: its total (GG415) is not judged while shards are missing, a later
 * shard alone gets GG410 for the shards before and after it, and a shard
 * named alone on the command line is linted as one file (no set). A
 * 00001-of-00001 file is no set. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"

static char dir[] = "/tmp/gguflint-lone-XXXXXX";
static char out[1 << 20];

/* Shard `no` (0-based) of `count` declaring `total` tensors and holding one;
 * *count_at gets the offset of its split.count value. */
static void write_shard(const char *rel, long no, long count, long total, size_t *count_at)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    if (no == 0)
        gb_kv_str(b, "general.name", "m");
    gb_kv_u16(b, "split.no", (uint16_t)no);
    gb_kv_u16(b, "split.count", (uint16_t)count);
    if (count_at)
        *count_at = gb_last(b)->value;
    gb_kv_i32(b, "split.tensors.count", (int32_t)total);
    uint64_t ne[1] = {4};
    char name[32];
    snprintf(name, sizeof name, "t%ld.weight", no);
    gb_tensor(b, name, 1, ne, GB_F32, 0);
    gb_pad_to(b, 32);
    gb_zeros(b, 32);
    ex_write_gb(dir, rel, b);
}

static void expect(const char *args, int code, const char *needle)
{
    ex_cli_expect(GGUFLINT_CLI, dir, "", args, code, needle, out, sizeof out);
}

static size_t count_of(const char *needle)
{
    size_t n = 0;
    for (const char *p = out; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The JSON of one GG410 finding at `offset`. */
static void gg410_at(char *buf, size_t cap, size_t offset)
{
    snprintf(buf, cap,
             "\"rule\":\"GG410\",\"slug\":\"split-shard-missing\",\"family\":\"split\","
             "\"severity\":\"error\",\"offset\":%zu,",
             offset);
}

/* Shard `no` (0-based) of 3, file `file`, alone in the new folder `sub`: -r
 * reports the shard `missing` and then the shard `also`, a GG410 each at its
 * split.count value; `want` gets that finding's JSON. */
static void lone(const char *sub, const char *file, long no, const char *missing, const char *also,
                 char *want, size_t cap)
{
    size_t at;
    char rel[256], args[256];
    ex_mkdirs(dir, sub);
    snprintf(rel, sizeof rel, "%s/%s", sub, file);
    write_shard(rel, no, 3, 3, &at);
    snprintf(args, sizeof args, "--isolated --select GG4 -r --format json %s", sub);
    expect(args, 1, missing);
    assert_non_null(strstr(out, also));
    gg410_at(want, cap, at);
    assert_int_equal(count_of(want), 2);
}

static void test_first_shard_alone(void **state)
{
    char want[256];
    /* before issue 25 this linted clean in every profile */
    lone("first", "m-00001-of-00003.gguf", 0, "shard 2 of 3 (split.no 1) is missing",
         "shard 3 of 3 (split.no 2) is missing", want, sizeof want);
    /* the total is not judged while shards are missing */
    assert_null(strstr(out, "GG415"));
    expect("--isolated --select GG4 -r first", 1, "error GG410 split-shard-missing");
    /* the shard named alone is one file, not a set */
    expect("--isolated --select GG4 first/m-00001-of-00003.gguf", 0, NULL);
    assert_null(strstr(out, "GG410"));
    /* named with another input, it is a set of one again */
    ex_mkdirs(dir, "other");
    write_shard("other/x-00001-of-00001.gguf", 0, 1, 1, NULL);
    expect("--isolated --select GG4 --format json first/m-00001-of-00003.gguf "
           "other/x-00001-of-00001.gguf",
           1, want);
    assert_int_equal(count_of("\"rule\":\"GG410\""), 2);
}

static void test_later_shard_alone(void **state)
{
    char want[256];
    lone("second", "m-00002-of-00003.gguf", 1, "shard 1 of 3 (split.no 0) is missing",
         "shard 3 of 3 (split.no 2) is missing", want, sizeof want);
}

static void test_single_file_set_clean(void **state)
{
    ex_mkdirs(dir, "one");
    write_shard("one/m-00001-of-00001.gguf", 0, 1, 1, NULL);
    expect("--isolated --select GG4 -r --format json one", 0, "\"files\":1,");
    assert_null(strstr(out, "GG41"));
    /* a complete set found by the walk: no GG410, its total judged */
    ex_mkdirs(dir, "full");
    write_shard("full/m-00001-of-00002.gguf", 0, 2, 2, NULL);
    write_shard("full/m-00002-of-00002.gguf", 1, 2, 2, NULL);
    expect("--isolated --select GG4 -r --format json full", 0, "\"files\":2,");
    assert_null(strstr(out, "GG41"));
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_first_shard_alone),
            cmocka_unit_test(test_later_shard_alone),
            cmocka_unit_test(test_single_file_set_clean),
        })

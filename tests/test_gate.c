/* test_gate.c - the CLI as a CI gate, run through the built binary:
 *  - baselines: --write-baseline records every finding, --baseline leaves
 *    them out of the report and the exit status, counts them, names each
 *    recorded finding that is gone with its line; a baseline written for
 *    ./models/x.gguf serves models/x.gguf and the absolute path; a malformed
 *    or missing baseline is exit 2; one file can be refreshed in place;
 *  - [ignore:PATTERN] on the normalised path relative to the config's
 *    folder (./, //, absolute, from a subfolder), leading folders, '*' never
 *    crossing '/';
 *  - CLI consistency: several formats on standard output, a missing file
 *    counted unreadable, every subcommand's --help, options after paths for
 *    hash and dump, dump of several files with --full-arrays. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"

static char dir[] = "/tmp/gguflint-gate-XXXXXX";
static char out[1 << 22]; /* a SARIF report carries the whole rule table with its help */

/* A model with a duplicate key (GG106), a bad bool (GG114) and, with
 * `extra`, an empty key too (GG101). */
static void write_model(const char *rel, bool extra)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "conformance");
    gb_kv_str(b, "general.name", "a");
    gb_kv_str(b, "general.name", "b");
    gb_kv_bool(b, "general.flag", 7);
    static const uint32_t elems[20] = {0};
    gb_kv_arr(b, "general.list", 4 /* u32 */, 20, elems, sizeof elems);
    if (extra)
        gb_kv_u32(b, "", 1);
    ex_write_gb(dir, rel, b);
}

static void expect(const char *cwd, const char *args, int code, const char *needle)
{
    ex_cli_expect(GGUFLINT_CLI, dir, cwd, args, code, needle, out, sizeof out);
}

static int setup(void **state)
{
    if (ex_tmpdir_make(dir) != 0)
        return -1;
    ex_mkdirs(dir, "repo/models/sub");
    ex_mkdirs(dir, "repo/tools");
    write_model("repo/models/x.gguf", false);
    write_model("repo/models/sub/y.gguf", false);
    return 0;
}

EX_TMPDIR_TEARDOWN(dir)

static void test_baseline(void **state)
{
    /* today's findings, recorded from one spelling of the path */
    expect("repo", "--isolated --write-baseline b.txt ./models/x.gguf", 1, "error GG106");
    char path[600];
    snprintf(path, sizeof path, "%s/repo/b.txt", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f)); /* the comment */
    assert_int_equal(line[0], '#');
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_int_equal(strspn(line, "0123456789abcdef"), 16);
    assert_int_equal(line[16], '\t');
    /* served to other spellings of the same file: nothing new, exit 0 */
    expect("repo", "--isolated --baseline b.txt models/x.gguf", 0, "0 errors, 0 warnings");
    ex_has(out, " baselined (0 baseline entries gone)");
    char args[900];
    snprintf(args, sizeof args, "--isolated --baseline b.txt %s/repo/models//x.gguf", dir);
    expect("repo", args, 0, "0 errors");
    /* from another folder the relative path differs: the file is not known */
    expect("repo/models", "--isolated --baseline ../b.txt x.gguf", 1, "error GG106");
    ex_has(out, "baselined finding gone");
    /* a new finding in the file: only it is reported and fails */
    write_model("repo/models/x.gguf", true);
    expect("repo", "--isolated --baseline b.txt models/x.gguf", 1, "GG101");
    ex_lacks(out, "GG106");
    ex_has(out, "1 error");
    /* JSON and SARIF: the counts, and no baselined result */
    expect("repo", "--isolated --format json --baseline b.txt models/x.gguf", 1,
           "\"baseline_gone\":0");
    ex_lacks(out, "\"rule\":\"GG106\"");
    expect("repo", "--isolated --format sarif --baseline b.txt models/x.gguf", 1, "\"baselined\":");
    ex_lacks(out, "\"ruleId\":\"GG106\"");
    /* fixed findings are gone: each named with its line */
    write_model("repo/models/x.gguf", false);
    ex_write_text(dir, "repo/b2.txt",
                  "# x\n0123456789abcdef\tGG999\tmodels/x.gguf\tkv[\"gone\"]\n");
    expect("repo", "--isolated --baseline b2.txt models/x.gguf", 1,
           "b2.txt:2: baselined finding gone: GG999 models/x.gguf kv[\"gone\"]");
    ex_has(out, "(1 baseline entry gone)");
    /* refreshed in place: read first, then written */
    expect("repo", "--isolated --baseline b2.txt --write-baseline b2.txt models/x.gguf", 1, NULL);
    expect("repo", "--isolated --baseline b2.txt models/x.gguf", 0, "0 baseline entries gone");
    /* a file that is not a baseline, or none: exit 2 with where */
    ex_write_text(dir, "repo/bad.txt", "# ok\n\nnot-a-fingerprint\tGG106\n");
    expect("repo", "--isolated --baseline bad.txt models/x.gguf", 2, "bad.txt:3: not a baseline");
    expect("repo", "--isolated --baseline missing.txt models/x.gguf", 2, "missing.txt");
    ex_write_text(dir, "repo/short.txt", "0123456789abcde\n");
    expect("repo", "--isolated --baseline short.txt models/x.gguf", 2, "short.txt:1:");
    /* the baseline format on standard output */
    expect("repo", "--isolated --format baseline models/x.gguf", 1, "\tGG106\tmodels/x.gguf\t");
}

static void test_ignore_paths(void **state)
{
    ex_write_text(dir, "repo/.gguflint.ini",
                  "[ignore:models/x.gguf]\nrules = GG106\nreason = r\n"
                  "[ignore:m*/y.gguf]\nrules = GG114\nreason = r\n"
                  "[ignore:models/sub]\nrules = GG120\nreason = r\n");
    /* every spelling of models/x.gguf, from the root and from a subfolder */
    static const char *const spellings[][2] = {
        {"repo", "models/x.gguf"},          {"repo", "./models/x.gguf"},
        {"repo", "models//./x.gguf"},       {"repo", "models/sub/../x.gguf"},
        {"repo/tools", "../models/x.gguf"},
    };
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        char args[300];
        snprintf(args, sizeof args, "--config %s/repo/.gguflint.ini --max-array-count 4 %s", dir,
                 spellings[i][1]);
        expect(spellings[i][0], args, 1, "GG114");
        ex_lacks(out, "GG106");
    }
    char args[900];
    snprintf(args, sizeof args, "--config .gguflint.ini %s/repo/models/x.gguf", dir);
    expect("repo", args, 0, "GG114"); /* a warning: exit 0 */
    ex_lacks(out, "GG106");
    /* '*' does not cross '/': m*\/y.gguf is not models/sub/y.gguf; a leading
     * folder matches everything below it (models/sub: GG120) */
    expect("repo", "--config .gguflint.ini --max-array-count 4 models/sub/y.gguf", 1, "GG106");
    ex_has(out, "GG114");
    ex_lacks(out, "GG120");
    ex_has(out, "unused ignore [ignore:m*/y.gguf]");
}

static void test_cli_consistency(void **state)
{
    expect("repo", "--isolated --format sarif --format json --format text models/x.gguf", 2,
           "several --format options write to standard output");
    expect("repo", "--isolated nonexist.gguf", 2, "0 files checked, 1 unreadable");
    expect("repo", "--isolated models/x.gguf nonexist.gguf", 2, "1 file checked, 1 unreadable");
    static const char *const helps[][2] = {
        {"dump --help", "usage: gguflint dump"}, {"rules --help", "usage: gguflint rules"},
        {"archs -h", "usage: gguflint archs"},   {"explain --help", "usage: gguflint explain"},
        {"hash --help", "usage: gguflint hash"}, {"--help", "--write-baseline FILE"},
        {"dump x.gguf --help", "--full-arrays"},
    };
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
        expect("repo", helps[i][0], 0, helps[i][1]);
    /* options after the paths */
    expect("repo", "hash models/x.gguf -o m.json", 0, NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/repo/m.json", dir);
    assert_int_equal(access(path, R_OK), 0);
    expect("repo", "dump models/x.gguf --format json", 0, "\"kvs\"");
    /* several paths; arrays cut at 8 elements unless --full-arrays */
    expect("repo", "dump models/x.gguf models/sub/y.gguf", 0, "==> models/sub/y.gguf <==");
    ex_has(out, "==> models/x.gguf <==");
    ex_has(out, ", ...]");
    expect("repo", "dump --full-arrays models/x.gguf", 0, NULL);
    ex_lacks(out, ", ...]");
    expect("repo", "dump models/x.gguf -- missing.gguf", 2, "missing.gguf");
}

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_baseline),
            cmocka_unit_test(test_ignore_paths),
            cmocka_unit_test(test_cli_consistency),
        })

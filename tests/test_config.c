/* test_config.c - the CLI's configuration file and file handling, run
 * through the built binary: .gguflint.ini found from the working directory
 * upwards, --config and --isolated, the command line overriding the file,
 * [severity], [limits], [ignore:PATTERN] with its required reason and the
 * report of unused ignores, unknown keys and sections rejected; -r (no
 * symlink loops, only *.gguf), -j with output in input order, and split sets
 * given together checked as a set. */
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

#include "gguf_builder.h"
#include "tiny_llama.h"

static char dir[] = "/tmp/gguflint-config-XXXXXX";
static char out[1 << 16];

/* Run the CLI in dir/cwd with args; stdout+stderr into `out`; the exit code. */
static void expect(const char *cwd, const char *args, int code, const char *needle)
{
    ex_cli_expect(GGUFLINT_CLI, dir, cwd, args, code, needle, out, sizeof out);
}

#define EXPECT(cwd, args, code, needle) expect(cwd, args, code, needle)

static int setup(void **state)
{
    if (ex_tmpdir_make(dir) != 0)
        return -1;
    ex_mkdirs(dir, "proj/sub/deeper");
    ex_write_tiny_llama(dir, "proj/sub/valid.gguf");
    ex_write_tiny_llama(dir, "proj/valid.gguf");
    /* a bool of 7: one warning (GG114) with the structural rules */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "conformance");
    gb_kv_bool(b, "general.flag", 7);
    ex_write_gb(dir, "proj/sub/bool.gguf", b);
    return 0;
}

EX_TMPDIR_TEARDOWN(dir)

static void test_discovery_and_override(void **state)
{
    /* no config: the bool is a warning, exit 0 */
    EXPECT("proj/sub", "--isolated bool.gguf", 0, "GG114");
    /* config two levels up raises it to an error */
    ex_write_text(dir, "proj/.gguflint.ini", "[severity]\nGG114 = error\n");
    EXPECT("proj/sub/deeper", "../bool.gguf", 1, "error GG114");
    /* the command line overrides the file */
    EXPECT("proj/sub", "--severity GG114=note bool.gguf", 0, "note GG114");
    /* --isolated ignores it, --config names another */
    EXPECT("proj/sub", "--isolated bool.gguf", 0, "warning GG114");
    ex_write_text(dir, "other.ini", "[gguflint]\nfail-on = warning\n");
    EXPECT("proj/sub", "--config ../../other.ini bool.gguf", 1, "warning GG114");
    EXPECT("proj/sub", "--config ../../other.ini --fail-on error bool.gguf", 0, NULL);
    /* profile and select from the file, select replaced by the command line;
     * select = GG1 turns security rules off, so a discovered file with it is
     * not applied (GG800) until it is named with --config */
    ex_write_text(dir, "proj/.gguflint.ini", "[gguflint]\nprofile = strict\nselect = GG1\n");
    EXPECT("proj/sub", "bool.gguf", 0, "warning GG800 config-refused");
    assert_non_null(strstr(out, "not applying"));
    assert_non_null(strstr(out, "warning GG114"));
    EXPECT("proj/sub", "--config ../.gguflint.ini bool.gguf", 1, "error GG114");
    EXPECT("proj/sub", "--config ../.gguflint.ini --select GG2 bool.gguf", 0,
           "0 errors, 0 warnings");
    /* limits */
    ex_write_text(dir, "proj/.gguflint.ini", "[limits]\nmax-kv-count = 1\n");
    EXPECT("proj/sub", "bool.gguf", 0, "GG011");
    remove(strcat(strcpy(out, dir), "/proj/.gguflint.ini"));
}

static void test_bad_configs(void **state)
{
    static const char *const bad[][2] = {
        {"[gguflint]\nprofil = strict\n", "unknown key"},
        {"[nonsense]\nx = 1\n", "unknown section"},
        {"[severity]\nGG114 = loud\n", "severity"},
        {"[severity]\nGG999 = error\n", "unknown rule"},
        {"[limits]\nmax-depth = -1\n", "bad value"},
        {"[ignore:*.gguf]\nrules = GG114\n", "reason"},
        {"[ignore:*.gguf]\nreason = because\n", "rules"},
        {"[ignore:*.gguf]\nrules = GG999\nreason = x\n", "unknown rule"},
        {"[gguflint]\nfail-on = sometimes\n", "bad value"},
        {"no section\n", "line"},
        /* values the library judges are reported with the file and line too */
        {"[gguflint]\nprofile = securty\n", "bad.ini: line 2: bad value 'securty' for 'profile'"},
        {"[gguflint]\n\nselect = GG1,NOPE\n", "bad.ini: line 3: unknown rule, prefix or family"},
        {"[severity]\nGG999 = error\n", "bad.ini: line 2: unknown rule 'GG999'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ex_write_text(dir, "bad.ini", bad[i][0]);
        EXPECT("proj/sub", "--config ../../bad.ini bool.gguf", 2, bad[i][1]);
    }
}

static void test_path_ignores(void **state)
{
    ex_write_text(dir, "ign.ini",
                  "[severity]\nGG114 = error\n"
                  "[ignore:bool.gguf]\nrules = GG114\nreason = kept for the tests\n"
                  "[ignore:nothing-*.gguf]\nrules = GG101\nreason = stale\n");
    EXPECT("proj/sub", "--config ../../ign.ini bool.gguf", 0,
           "unused ignore [ignore:nothing-*.gguf]");
    assert_null(strstr(out, "GG114"));
    assert_null(strstr(out, "unused ignore [ignore:bool.gguf]"));
}

static void test_recursive_and_jobs(void **state)
{
    ex_write_text(dir, "proj/sub/notes.txt", "not a model");
    char lnk[600], target[600];
    snprintf(lnk, sizeof lnk, "%s/proj/sub/deeper/loop", dir);
    snprintf(target, sizeof target, "%s/proj", dir);
    assert_int_equal(symlink(target, lnk), 0); /* a loop: must not be followed */
    EXPECT("proj", "--isolated -r .", 0, "3 files checked");
    char first[sizeof out];
    strcpy(first, out);
    EXPECT("proj", "--isolated -r -j4 .", 0, NULL);
    assert_string_equal(out, first); /* same order whatever -j */
    EXPECT("proj", "--isolated -j 0 .", 2, "-j");
}

static void test_split_set(void **state)
{
    for (int k = 1; k <= 2; k++) {
        gb *b = gb_new(3);
        if (k == 1) {
            gb_kv_str(b, "general.architecture", "conformance");
        }
        gb_kv_u16(b, "split.no", (uint16_t)(k - 1));
        gb_kv_u16(b, "split.count", 3);
        gb_kv_i32(b, "split.tensors.count", 0);
        char name[64];
        snprintf(name, sizeof name, "proj/m-%05d-of-00003.gguf", k);
        ex_write_gb(dir, name, b);
    }
    /* shard 3 of 3 is missing: reported on shard 1 */
    EXPECT("proj", "--isolated m-00001-of-00003.gguf m-00002-of-00003.gguf", 1, "GG410");
}

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_discovery_and_override),
            cmocka_unit_test(test_bad_configs),
            cmocka_unit_test(test_path_ignores),
            cmocka_unit_test(test_recursive_and_jobs),
            cmocka_unit_test(test_split_set),
        })

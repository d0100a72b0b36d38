/* test_discovery.c - what -r reaches and which configuration is trusted, run
 * through the built binary:
 *  - a Hugging Face cache (snapshots/REV/x.gguf -> ../../blobs/SHA, blobs
 *    without an extension) and an Ollama blob store (blobs/sha256-..., other
 *    blobs and manifests that are not GGUF) are scanned: each model once,
 *    by its .gguf name when it has one;
 *  - links to files and directories are followed, loops end, a FIFO is
 *    never opened; --include/--exclude globs whose '*' does not cross '/';
 *  - a run that finds nothing to check exits 2;
 *  - a .gguflint.ini shipped in a folder ([ignore:*] rules = ALL) is not
 *    read under --profile security, and not applied when found from the
 *    working directory (plain run or -r): it loosens security checks, so the
 *    run says so and reports GG800; a config that loosens nothing is
 *    applied; --config FILE is trusted; every report names the config used. */
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

static char dir[] = "/tmp/gguflint-discovery-XXXXXX";
static char out[1 << 20]; /* a SARIF report carries the whole rule table */

/* A model with a duplicate key (GG106). */
static void write_hostile(const char *rel)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.name", "a");
    gb_kv_str(b, "general.name", "b");
    ex_write_gb(dir, rel, b);
}

static void link_to(const char *target, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    assert_int_equal(symlink(target, path), 0);
}

static void expect(const char *cwd, const char *args, int code, const char *needle)
{
    ex_cli_expect(GGUFLINT_CLI, dir, cwd, args, code, needle, out, sizeof out);
}

static void test_hf_cache(void **state)
{
    const char *repo = "hf/hub/models--org--name";
    char p[512];
    snprintf(p, sizeof p, "%s/blobs", repo);
    ex_mkdirs(dir, p);
    snprintf(p, sizeof p, "%s/snapshots/0123abcd", repo);
    ex_mkdirs(dir, p);
    snprintf(p, sizeof p, "%s/refs", repo);
    ex_mkdirs(dir, p);
    snprintf(p, sizeof p, "%s/blobs/3f1e0a9b", repo);
    write_hostile(p);
    snprintf(p, sizeof p, "%s/blobs/77aa00cc", repo);
    ex_write_text(dir, p, "{\"architectures\": [\"LlamaForCausalLM\"]}\n");
    snprintf(p, sizeof p, "%s/refs/main", repo);
    ex_write_text(dir, p, "0123abcd");
    snprintf(p, sizeof p, "%s/snapshots/0123abcd/model-Q4_K_M.gguf", repo);
    link_to("../../blobs/3f1e0a9b", p);
    snprintf(p, sizeof p, "%s/snapshots/0123abcd/config.json", repo);
    link_to("../../blobs/77aa00cc", p);
    /* one model, linted once, under its .gguf name; the hostile content is found */
    expect("hf", "--isolated -r .", 1, "1 file checked: ");
    assert_non_null(strstr(out, "snapshots/0123abcd/model-Q4_K_M.gguf:"));
    assert_non_null(strstr(out, "GG106"));
    ex_lacks(out, "blobs/3f1e0a9b:");
    /* the whole cache directory given through a link works the same */
    link_to("hf/hub", "hub-link");
    expect("", "--isolated -r hub-link", 1, "1 file checked: ");
}

static void test_ollama_store(void **state)
{
    ex_mkdirs(dir, "ollama/models/blobs");
    ex_mkdirs(dir, "ollama/models/manifests/registry.ollama.ai/library/tiny");
    write_hostile("ollama/models/blobs/sha256-9b1f");
    ex_write_text(dir, "ollama/models/blobs/sha256-a0c2", "{{ .System }} {{ .Prompt }}");
    ex_write_text(dir, "ollama/models/blobs/sha256-e4d5", "MIT License\n");
    ex_write_text(dir, "ollama/models/manifests/registry.ollama.ai/library/tiny/latest",
                  "{\"schemaVersion\":2,\"layers\":[]}");
    expect("ollama", "--isolated -r models", 1, "1 file checked: ");
    assert_non_null(strstr(out, "blobs/sha256-9b1f:"));
    assert_non_null(strstr(out, "GG106"));
}

static void test_links_loops_fifos(void **state)
{
    ex_mkdirs(dir, "tree/a/b");
    ex_write_tiny_llama(dir, "tree/a/x.gguf");
    ex_write_tiny_llama(dir, "tree/a/b/y.gguf");
    link_to("../..", "tree/a/b/up");         /* a loop */
    link_to("x.gguf", "tree/a/also-x.gguf"); /* the same file twice */
    link_to("/nonexistent/file", "tree/a/dangling.gguf");
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/tree/a/pipe.gguf", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0); /* never opened: the run would hang */
    expect("tree", "--isolated -r .", 0, "2 files checked");
    /* globs: '*' does not cross '/' */
    expect("tree", "--isolated -r --include 'a/*.gguf' .", 0, "1 file checked");
    expect("tree", "--isolated -r --include '*/*/*.gguf' .", 0, "1 file checked");
    expect("tree", "--isolated -r --exclude b .", 0, "1 file checked");
    expect("tree", "--isolated -r --exclude 'y.gguf' --exclude 'also-*' .", 0, "1 file checked");
    /* --include takes files whatever their bytes */
    ex_write_text(dir, "tree/a/notes.txt", "not a model");
    expect("tree", "--isolated -r --include '*.txt' .", 1, "GG002");
}

static void test_nothing_found(void **state)
{
    ex_mkdirs(dir, "empty/sub");
    ex_write_text(dir, "empty/sub/readme.md", "no models here");
    expect("empty", "--isolated -r .", 2, "nothing to check");
    expect("tree", "--isolated -r --include '*.none' .", 2, "nothing to check");
}

static void test_config_trust(void **state)
{
    ex_mkdirs(dir, "dl/model");
    write_hostile("dl/model/model.gguf");
    /* shipped with the download: would silence every rule */
    ex_write_text(dir, "dl/model/.gguflint.ini", "[ignore:*]\nrules = ALL\nreason = trust me\n");
    /* run plainly in that folder, the config is found but not applied: it
     * turns security rules off; the run says why and every file gets GG800 */
    expect("dl/model", "model.gguf", 1, "warning GG800 config-refused");
    assert_non_null(strstr(out, "GG106"));
    assert_non_null(strstr(out, "not applying"));
    ex_lacks(out, "(config: ");
    /* --profile security reads no discovered config */
    expect("dl/model", "--profile security model.gguf", 1, "GG106");
    assert_non_null(strstr(out, "not reading"));
    ex_lacks(out, "(config: ");
    /* nor does a -r scan of the folder that holds it apply it */
    expect("dl/model", "-r .", 1, "GG800");
    assert_non_null(strstr(out, "GG106"));
    expect("dl", "-r model", 1, "GG106");
    ex_lacks(out, "GG800"); /* dl has no config: nothing found, nothing refused */
    /* named with --config it is trusted, even with --profile security */
    expect("dl/model", "--config .gguflint.ini --profile security model.gguf", 0,
           "(config: .gguflint.ini)");
    /* a discovered config that loosens nothing is applied, -r or not */
    ex_write_text(dir, "dl/model/.gguflint.ini", "[severity]\nGG105 = error\n");
    expect("dl/model", "-r .", 1, "(config: ");
    ex_lacks(out, "GG800");
    ex_write_text(dir, "dl/model/.gguflint.ini", "[ignore:*]\nrules = ALL\nreason = trust me\n");
    /* JSON and SARIF name it too */
    expect("dl/model", "--config .gguflint.ini --format json model.gguf", 0, "\"config\":\"");
    expect("dl/model", "--format json --profile security model.gguf", 1, "\"config\":null");
    expect("dl/model", "--config .gguflint.ini --format sarif model.gguf", 0,
           "\"properties\":{\"config\":\"");
}

/* -j keeps the output in input order and the same as -j1, with a window of
 * finished contexts bounded by memory. */
static void test_jobs_order(void **state)
{
    static char first[sizeof out];
    ex_mkdirs(dir, "many");
    for (int i = 0; i < 40; i++) {
        char p[64];
        snprintf(p, sizeof p, "many/m%02d.gguf", i);
        if (i % 3)
            ex_write_tiny_llama(dir, p);
        else
            write_hostile(p);
    }
    expect("many", "--isolated -r .", 1, "40 files checked");
    strcpy(first, out);
    expect("many", "--isolated -r -j8 .", 1, "40 files checked");
    assert_string_equal(out, first);
}

EX_TMPDIR_FIXTURES(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_hf_cache),
            cmocka_unit_test(test_ollama_store),
            cmocka_unit_test(test_links_loops_fifos),
            cmocka_unit_test(test_nothing_found),
            cmocka_unit_test(test_config_trust),
            cmocka_unit_test(test_jobs_order),
        })

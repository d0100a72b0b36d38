/* test_realfiles.c - lint the real GGUF files copied from llama.cpp's models/
 * directory (see MANIFEST.txt in GGUFLINT_REALFILES_DIR): current vocabulary
 * files must be clean of errors, the historical negative files must get the
 * findings that name what is wrong with them, and `dump` must render every
 * file in both formats. Every test skips when the directory is absent. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include <cmocka.h>

#include "expect.h"
#include "gguflint.h"

#ifndef GGUFLINT_REALFILES_DIR
#define GGUFLINT_REALFILES_DIR "../shared/gguf-realfiles"
#endif

static const char *const top_level[] = {
    "ggml-vocab-baichuan.gguf",     "ggml-vocab-bert-bge.gguf",  "ggml-vocab-deepseek-coder.gguf",
    "ggml-vocab-deepseek-llm.gguf", "ggml-vocab-falcon.gguf",    "ggml-vocab-gpt-2.gguf",
    "ggml-vocab-gpt-neox.gguf",     "ggml-vocab-llama-spm.gguf", "ggml-vocab-mpt.gguf",
    "ggml-vocab-phi-3.gguf",        "ggml-vocab-refact.gguf",    "ggml-vocab-starcoder.gguf",
};
#define N_TOP (sizeof top_level / sizeof top_level[0])

#define V1_FILE "historical/ggml-vocab-llama.2023-08-21.v1.gguf"
#define FUGG_FILE "historical/ggml-vocab-llama.2023-08-17.v1-FUGG-magic.gguf"
#define LFS_FILE "historical/ggml-vocab-bert-bge.2024-05-08.LFS-POINTER.gguf"
#define WRITER_FILE "historical/test_writer.2024-01-26.v3.gguf"

/* ------------------------------------------------------------------ helpers */

/* Everything a test allocates is registered here: a failed assertion
 * longjmps out of the test, and the per-test teardown then releases what is
 * left, so LeakSanitizer only ever reports real leaks. */
enum { K_MEM = 1, K_CTX, K_REPORT, K_DIR };
#define MAX_OWNED 32
static struct {
    void *p;
    int kind;
} owned[MAX_OWNED];

static void own(void *p, int kind)
{
    for (size_t i = 0; i < MAX_OWNED; i++)
        if (!owned[i].p) {
            owned[i].p = p;
            owned[i].kind = kind;
            return;
        }
}

static void disown(const void *p)
{
    for (size_t i = 0; i < MAX_OWNED; i++)
        if (p && owned[i].p == p) {
            owned[i].p = NULL;
            return;
        }
}

static void release(void *p, int kind)
{
    disown(p);
    if (!p)
        return;
    switch (kind) {
    case K_CTX: gguflint_free(p); break;
    case K_REPORT: gguflint_report_free(p); break;
    case K_DIR: closedir(p); break;
    default: free(p); break;
    }
}

static int release_all(void **state)
{
    for (size_t i = 0; i < MAX_OWNED; i++)
        if (owned[i].p)
            release(owned[i].p, owned[i].kind);
    return 0;
}

static bool realfiles_present(void)
{
    struct stat sb;
    return stat(GGUFLINT_REALFILES_DIR, &sb) == 0 && S_ISDIR(sb.st_mode);
}

#define SKIP_IF_ABSENT()                                                                           \
    do {                                                                                           \
        if (!realfiles_present()) {                                                                \
            print_message("real files not found at %s: skipped\n", GGUFLINT_REALFILES_DIR);        \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static void full_path(char *buf, size_t cap, const char *rel)
{
    int n = snprintf(buf, cap, "%s/%s", GGUFLINT_REALFILES_DIR, rel);
    assert_true(n > 0 && (size_t)n < cap);
}

/* The profile the files are linted under (every test runs the default;
 * test_profiles_clean re-runs the clean ones under each profile). */
static const char *profile = "ggml";

/* Open and run one file (path relative to the real-files directory). */
static gguflint_ctx *lint_rel(const char *rel)
{
    char path[4096];
    full_path(path, sizeof path, rel);
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    assert_int_equal(gguflint_options_profile(opt, profile), GGUFLINT_OK);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    own(ctx, K_CTX);
    int st = gguflint_open_file(ctx, path);
    if (st != GGUFLINT_OK)
        print_message("%s: %s: %s\n", path, gguflint_strerror(st), gguflint_error_detail(ctx));
    assert_int_equal(st, GGUFLINT_OK);
    st = gguflint_run(ctx);
    assert_int_equal(st, GGUFLINT_OK);
    gguflint_options_free(opt);
    return ctx;
}

/* The first finding of rule `id` (which must exist), or NULL. */
static const gguflint_finding *find_rule(const gguflint_ctx *ctx, const char *id)
{
    assert_true(gguflint_rule_find(id) >= 0);
    return ex_find(ctx, id);
}

static const gguflint_finding *expect_rule(const char *name, const gguflint_ctx *ctx,
                                           const char *id)
{
    const gguflint_finding *f = find_rule(ctx, id);
    if (!f) {
        print_message("%s: expected a %s finding\n", name, id);
        ex_print_findings(name, ctx);
    }
    assert_non_null(f);
    return f;
}

/* Findings must be in offset order and inside the file. */
static void check_finding_invariants(const char *name, const gguflint_ctx *ctx)
{
    const gguflint_header *h = gguflint_get_header(ctx);
    uint64_t prev = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        assert_non_null(f);
        assert_non_null(f->path);
        assert_non_null(f->message);
        if (f->offset < prev || f->offset > h->file_size) {
            print_message("%s: finding %zu offset 0x%llx out of order or past EOF\n", name, i,
                          (unsigned long long)f->offset);
            ex_print_findings(name, ctx);
            fail();
        }
        prev = f->offset;
    }
}

/* A clean current-format file: no error, metadata read completely, a v3
 * vocabulary with an architecture and a token list. */
static void check_clean_vocab(const char *rel)
{
    gguflint_ctx *ctx = lint_rel(rel);
    const gguflint_header *h = gguflint_get_header(ctx);
    check_finding_invariants(rel, ctx);
    size_t errors = ex_count_severity(ctx, GGUFLINT_ERROR);
    if (errors)
        ex_print_findings(rel, ctx);
    assert_int_equal(errors, 0);
    assert_true(gguflint_max_severity(ctx) < GGUFLINT_ERROR);
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 3);
    assert_false(h->big_endian);
    assert_true(h->metadata_complete);
    assert_true(h->kv_count > 0);
    assert_true(h->kv_parsed == h->kv_count);
    assert_int_equal(gguflint_kv_count(ctx), h->kv_count);
    assert_true(h->tensor_count == 0);
    assert_int_equal(gguflint_tensor_count(ctx), 0);
    assert_int_equal(h->alignment, 32);

    long arch = gguflint_kv_find(ctx, "general.architecture");
    assert_true(arch >= 0);
    const gguflint_kv *kv = gguflint_kv_get(ctx, (size_t)arch);
    assert_non_null(kv);
    assert_int_equal(kv->type, 8); /* string */
    assert_true(kv->str.len > 0);

    long tok = gguflint_kv_find(ctx, "tokenizer.ggml.tokens");
    assert_true(tok >= 0);
    kv = gguflint_kv_get(ctx, (size_t)tok);
    assert_non_null(kv);
    assert_int_equal(kv->type, 9);      /* array */
    assert_int_equal(kv->elem_type, 8); /* of strings */
    assert_true(kv->count > 1000);
    /* the array is the bulk of the file and lies inside it */
    assert_true(kv->value_offset + kv->value_size <= h->file_size);
    release(ctx, K_CTX);
}

/* ------------------------------------------------------------------- tests */

static void test_top_level_clean(void **state)
{
    SKIP_IF_ABSENT();
    for (size_t i = 0; i < N_TOP; i++)
        check_clean_vocab(top_level[i]);
}

/* Files written by llama.cpp's converters are canonical: no error under the
 * strict, spec and security profiles either. */
static void test_profiles_clean(void **state)
{
    SKIP_IF_ABSENT();
    static const char *const profiles[] = {"strict", "spec", "security"};
    for (size_t p = 0; p < 3; p++) {
        profile = profiles[p];
        for (size_t i = 0; i < N_TOP; i++)
            check_clean_vocab(top_level[i]);
    }
    profile = "ggml";
}

/* Every historical .v3.gguf file except the test_writer negative file. */
static void test_historical_v3_clean(void **state)
{
    SKIP_IF_ABSENT();
    char dir[4096];
    full_path(dir, sizeof dir, "historical");
    DIR *d = opendir(dir);
    assert_non_null(d);
    own(d, K_DIR);
    size_t checked = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if (len < 8 || strcmp(n + len - 8, ".v3.gguf") != 0)
            continue;
        if (strncmp(n, "test_writer.", 12) == 0)
            continue; /* a deliberate negative file, see test_writer_value_type_13 */
        char rel[512];
        int k = snprintf(rel, sizeof rel, "historical/%s", n);
        assert_true(k > 0 && (size_t)k < sizeof rel);
        check_clean_vocab(rel);
        checked++;
    }
    release(d, K_DIR);
    assert_int_equal(checked, 3); /* llama 2023-11-02, gpt2 2023-12-22, stablelm 2024-04-29 */
}

static void test_v1_file(void **state)
{
    SKIP_IF_ABSENT();
    gguflint_ctx *ctx = lint_rel(V1_FILE);
    const gguflint_header *h = gguflint_get_header(ctx);
    check_finding_invariants(V1_FILE, ctx);
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 1);
    assert_false(h->big_endian);
    if (!h->metadata_complete || h->kv_parsed != h->kv_count)
        ex_print_findings(V1_FILE, ctx);
    assert_true(h->metadata_complete);
    assert_true(h->kv_count > 0);
    assert_true(h->kv_count == h->kv_parsed);
    assert_true(h->tensor_count == 0);
    const gguflint_finding *f = expect_rule(V1_FILE, ctx, "GG005");
    assert_string_equal(gguflint_rule((size_t)f->rule)->slug, "legacy-version-1");
    assert_int_equal(f->offset, 4);
    assert_int_equal(f->severity, GGUFLINT_ERROR);
    /* v1 is the only problem: it has the real magic */
    assert_null(find_rule(ctx, "GG002"));
    assert_null(find_rule(ctx, "GG010"));
    /* the v1 layout (u32 lengths) was understood: the token list is readable */
    long tok = gguflint_kv_find(ctx, "tokenizer.ggml.tokens");
    assert_true(tok >= 0);
    const gguflint_kv *kv = gguflint_kv_get(ctx, (size_t)tok);
    assert_int_equal(kv->type, 9);
    assert_int_equal(kv->elem_type, 8);
    assert_int_equal(kv->count, 32000);
    long arch = gguflint_kv_find(ctx, "general.architecture");
    assert_true(arch >= 0);
    kv = gguflint_kv_get(ctx, (size_t)arch);
    assert_int_equal(kv->str.len, 5);
    assert_memory_equal(kv->str.ptr, "llama", 5);
    release(ctx, K_CTX);
}

static void test_fugg_file(void **state)
{
    SKIP_IF_ABSENT();
    gguflint_ctx *ctx = lint_rel(FUGG_FILE);
    const gguflint_header *h = gguflint_get_header(ctx);
    check_finding_invariants(FUGG_FILE, ctx);
    const gguflint_finding *f = expect_rule(FUGG_FILE, ctx, "GG002");
    assert_string_equal(gguflint_rule((size_t)f->rule)->slug, "not-gguf");
    assert_int_equal(f->offset, 0);
    if (!strstr(f->message, "FUGG"))
        ex_print_findings(FUGG_FILE, ctx);
    assert_non_null(strstr(f->message, "FUGG"));
    f = expect_rule(FUGG_FILE, ctx, "GG005");
    assert_int_equal(f->offset, 4);
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 1);
    if (!h->metadata_complete)
        ex_print_findings(FUGG_FILE, ctx);
    assert_true(h->metadata_complete);
    assert_true(h->kv_count > 0);
    assert_true(h->kv_count == h->kv_parsed);
    assert_int_equal(gguflint_kv_count(ctx), h->kv_count);
    assert_null(find_rule(ctx, "GG010"));
    release(ctx, K_CTX);
}

static void test_lfs_pointer(void **state)
{
    SKIP_IF_ABSENT();
    gguflint_ctx *ctx = lint_rel(LFS_FILE);
    const gguflint_header *h = gguflint_get_header(ctx);
    check_finding_invariants(LFS_FILE, ctx);
    const gguflint_finding *f = expect_rule(LFS_FILE, ctx, "GG002");
    assert_int_equal(f->offset, 0);
    assert_int_equal(f->severity, GGUFLINT_ERROR);
    if (!strstr(f->message, "Git LFS"))
        ex_print_findings(LFS_FILE, ctx);
    assert_non_null(strstr(f->message, "Git LFS"));
    assert_false(h->is_gguf);
    assert_int_equal(h->file_size, 131);
    assert_int_equal(gguflint_kv_count(ctx), 0);
    assert_int_equal(gguflint_tensor_count(ctx), 0);
    release(ctx, K_CTX);
}

static void test_writer_value_type_13(void **state)
{
    SKIP_IF_ABSENT();
    gguflint_ctx *ctx = lint_rel(WRITER_FILE);
    const gguflint_header *h = gguflint_get_header(ctx);
    check_finding_invariants(WRITER_FILE, ctx);
    const gguflint_finding *f = expect_rule(WRITER_FILE, ctx, "GG107");
    assert_string_equal(gguflint_rule((size_t)f->rule)->slug, "unknown-value-type");
    assert_int_equal(f->severity, GGUFLINT_ERROR);
    if (!strstr(f->message, "13"))
        ex_print_findings(WRITER_FILE, ctx);
    assert_non_null(strstr(f->message, "13"));
    assert_non_null(strstr(f->path, "dict1"));
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 3);
    assert_int_equal(h->kv_count, 30);
    assert_int_equal(h->tensor_count, 3);
    /* KV #6 (index 6) is the bad one: the six before it are read */
    assert_int_equal(h->kv_parsed, 6);
    assert_false(h->metadata_complete);
    /* the finding points at the value-type field of 'dict1', inside the file */
    assert_true(f->offset < h->file_size);
    release(ctx, K_CTX);
}

/* ------------------------------------------------------------------ dump */

typedef struct membuf {
    char *p;
    size_t len, cap;
} membuf;

static void mem_write(void *user, const char *data, size_t len)
{
    membuf *m = user;
    if (len > m->cap - m->len) {
        size_t nc = m->cap ? m->cap : 4096;
        while (len > nc - m->len)
            nc *= 2;
        disown(m->p);
        char *np = realloc(m->p, nc + 1);
        assert_non_null(np);
        own(np, K_MEM);
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->len, data, len);
    m->len += len;
    m->p[m->len] = '\0';
}

static size_t count_occurrences(const membuf *m, const char *needle)
{
    size_t k = 0, nl = strlen(needle);
    for (const char *s = m->p; (s = strstr(s, needle)) != NULL; s += nl)
        k++;
    return k;
}

/* No raw control byte other than newline, no NUL inside the output. */
static void check_no_controls(const char *rel, const membuf *m, const char *fmt)
{
    for (size_t i = 0; i < m->len; i++) {
        unsigned char c = (unsigned char)m->p[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f) {
            print_message("%s: %s dump has raw byte 0x%02x at %zu\n", rel, fmt, c, i);
            fail();
        }
    }
}

static void check_dump(const char *rel)
{
    gguflint_ctx *ctx = lint_rel(rel);
    const gguflint_header *h = gguflint_get_header(ctx);

    membuf text = {0};
    gguflint_dump(ctx, GGUFLINT_FORMAT_TEXT, mem_write, &text);
    assert_non_null(text.p);
    assert_true(text.len > 0);
    check_no_controls(rel, &text, "text");
    if (h->is_gguf) {
        char want[64];
        snprintf(want, sizeof want, "GGUF v%u", (unsigned)h->version);
        assert_non_null(strstr(text.p, want));
        snprintf(want, sizeof want, "kv_count %llu", (unsigned long long)h->kv_count);
        assert_non_null(strstr(text.p, want));
    } else {
        assert_non_null(strstr(text.p, "not a GGUF file"));
    }

    membuf json = {0};
    gguflint_dump(ctx, GGUFLINT_FORMAT_JSON, mem_write, &json);
    assert_non_null(json.p);
    assert_true(json.len > 2);
    check_no_controls(rel, &json, "json");
    assert_true(json.p[0] == '{');
    assert_true(json.p[json.len - 1] == '\n' && json.p[json.len - 2] == '}');
    assert_non_null(strstr(json.p, "\"schema_version\":1"));
    if (h->is_gguf) {
        char want[64];
        snprintf(want, sizeof want, "\"kv_count\":%llu,", (unsigned long long)h->kv_count);
        if (!strstr(json.p, want))
            print_message("%s: json dump lacks %s\n", rel, want);
        assert_non_null(strstr(json.p, want));
    }
    /* `{"key":` cannot occur inside a JSON string (quotes are escaped there),
     * so it counts the KV objects: one per KV read. */
    size_t objs = count_occurrences(&json, "{\"key\":");
    if (objs != gguflint_kv_count(ctx))
        print_message("%s: %zu KV objects in the JSON dump, %zu KVs read\n", rel, objs,
                      gguflint_kv_count(ctx));
    assert_int_equal(objs, gguflint_kv_count(ctx));
    assert_int_equal(count_occurrences(&json, "{\"name\":"), gguflint_tensor_count(ctx));
    if (h->metadata_complete)
        assert_int_equal(objs, h->kv_count);

    release(text.p, K_MEM);
    release(json.p, K_MEM);
    release(ctx, K_CTX);
}

static void test_dump_all(void **state)
{
    SKIP_IF_ABSENT();
    for (size_t i = 0; i < N_TOP; i++)
        check_dump(top_level[i]);
    static const char *const hist[] = {
        V1_FILE,
        FUGG_FILE,
        LFS_FILE,
        WRITER_FILE,
        "historical/ggml-vocab-llama.2023-11-02.v3.gguf",
        "historical/ggml-vocab-gpt2.2023-12-22.v3.gguf",
        "historical/ggml-vocab-stablelm.2024-04-29.v3.gguf",
    };
    for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++)
        check_dump(hist[i]);
}

/* Lint reports over all files at once: well-formed framing in both formats. */
static void test_report_all(void **state)
{
    SKIP_IF_ABSENT();
    membuf json = {0}, text = {0};
    gguflint_report *rj = gguflint_report_new(GGUFLINT_FORMAT_JSON, mem_write, &json);
    gguflint_report *rt = gguflint_report_new(GGUFLINT_FORMAT_TEXT, mem_write, &text);
    assert_non_null(rj);
    own(rj, K_REPORT);
    assert_non_null(rt);
    own(rt, K_REPORT);
    for (size_t i = 0; i < N_TOP; i++) {
        gguflint_ctx *ctx = lint_rel(top_level[i]);
        gguflint_report_file(rj, top_level[i], ctx, GGUFLINT_OK);
        gguflint_report_file(rt, top_level[i], ctx, GGUFLINT_OK);
        release(ctx, K_CTX);
    }
    gguflint_ctx *ctx = lint_rel(WRITER_FILE);
    gguflint_report_file(rj, WRITER_FILE, ctx, GGUFLINT_OK);
    gguflint_report_file(rt, WRITER_FILE, ctx, GGUFLINT_OK);
    release(ctx, K_CTX);
    gguflint_report_end(rj, true);
    gguflint_report_end(rt, true);
    release(rj, K_REPORT);
    release(rt, K_REPORT);

    assert_non_null(json.p);
    check_no_controls("report", &json, "json");
    assert_non_null(strstr(json.p, "{\"schema_version\":1,"));
    assert_non_null(strstr(json.p, "\"files\":13,"));
    assert_non_null(strstr(json.p, "\"rule\":\"GG107\""));
    assert_int_equal(count_occurrences(&json, "{\"path\":"), N_TOP + 1);
    assert_non_null(text.p);
    check_no_controls("report", &text, "text");
    assert_non_null(strstr(text.p, "GG107 unknown-value-type"));
    assert_non_null(strstr(text.p, "13 files checked:"));
    release(json.p, K_MEM);
    release(text.p, K_MEM);
}

/* The semantic families stay quiet on every real file: no general.* finding
 * (GG50x) at warning or above, no string-hygiene finding (GG70x) at all. */
static void test_semantic_families_quiet(void **state)
{
    SKIP_IF_ABSENT();
    ex_dir_clean(GGUFLINT_REALFILES_DIR, ".gguf", "GG50", GGUFLINT_WARNING);
    ex_dir_clean(GGUFLINT_REALFILES_DIR "/historical", "v3.gguf", "GG50", GGUFLINT_WARNING);
    ex_dir_clean(GGUFLINT_REALFILES_DIR, ".gguf", "GG70", GGUFLINT_NOTE);
    ex_dir_clean(GGUFLINT_REALFILES_DIR "/historical", "v3.gguf", "GG70", GGUFLINT_NOTE);
}

/* phi-3's real chat template is benign: no template rule (GG72x, GG73x). */
static void test_phi3_real_template_silent(void **state)
{
    SKIP_IF_ABSENT();
    gguflint_ctx *ctx = lint_rel("ggml-vocab-phi-3.gguf");
    assert_true(gguflint_kv_find(ctx, "tokenizer.chat_template") >= 0);
    bool bad = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const char *id = ex_id(gguflint_finding_get(ctx, i));
        bad |= strncmp(id, "GG72", 4) == 0 || strncmp(id, "GG73", 4) == 0;
    }
    if (bad)
        ex_print_findings("ggml-vocab-phi-3.gguf", ctx);
    assert_false(bad);
}

/* Without the real files every test here would skip: the whole suite then
 * exits 77, which ctest reports as skipped (SKIP_RETURN_CODE), not passed. */
int main(void)
{
    if (!realfiles_present()) {
        printf("real files not found at %s: skipped\n", GGUFLINT_REALFILES_DIR);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_semantic_families_quiet, release_all),
        cmocka_unit_test_teardown(test_phi3_real_template_silent, release_all),
        cmocka_unit_test_teardown(test_top_level_clean, release_all),
        cmocka_unit_test_teardown(test_profiles_clean, release_all),
        cmocka_unit_test_teardown(test_historical_v3_clean, release_all),
        cmocka_unit_test_teardown(test_v1_file, release_all),
        cmocka_unit_test_teardown(test_fugg_file, release_all),
        cmocka_unit_test_teardown(test_lfs_pointer, release_all),
        cmocka_unit_test_teardown(test_writer_value_type_13, release_all),
        cmocka_unit_test_teardown(test_dump_all, release_all),
        cmocka_unit_test_teardown(test_report_all, release_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_corpus.c - the committed corpus (written by tests/tools/gen_corpus.c)
 * checked through the library:
 *  - every corpus/regressions/NAME.gguf has a NAME.expect and the other way
 *    round, there are at least 40 of them, and linting each one reports every
 *    rule id its .expect lists (what was reported is printed on a miss);
 *  - every corpus/seed/NAME.gguf lints with no error-severity finding, except
 *    the one container finding its name declares ("legacy-v1-": GG005,
 *    "big-endian-": GG007), and the seeds stay small enough for fuzzers.
 * The corpus is found through GGUFLINT_SOURCE_DIR. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "expect.h"
#include "gguflint.h"

#define CORPUS GGUFLINT_SOURCE_DIR "/corpus"
#define MIN_REGRESSIONS 40
#define MAX_SEED_FILE (128u * 1024u)
#define MAX_SEED_TOTAL (2u * 1024u * 1024u)

/* ------------------------------------------------------------ helpers */

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static void names_free(names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Sorted stems (names without `suffix`) of the files in dir ending in suffix. */
static names list_stems(const char *dir, const char *suffix)
{
    names l = {NULL, 0, 0};
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s (regenerate with build-dev/tests/gen_corpus corpus)", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix))
            continue;
        if (l.n == l.cap) {
            l.cap = l.cap ? 2 * l.cap : 64;
            l.v = realloc(l.v, l.cap * sizeof *l.v);
            assert_non_null(l.v);
        }
        size_t stem = strlen(e->d_name) - strlen(suffix);
        l.v[l.n] = malloc(stem + 1);
        assert_non_null(l.v[l.n]);
        memcpy(l.v[l.n], e->d_name, stem);
        l.v[l.n][stem] = '\0';
        l.n++;
    }
    closedir(d);
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    return l;
}

static bool contains(const names *l, const char *s)
{
    return bsearch(&s, l->v, l->n, sizeof *l->v, cmp_str) != NULL;
}

/* Lint a file with the format (structural) rules: the corpus exercises the
 * container, KV, tensor and data layers, and its files are not complete
 * models. The `n` rules in `extra` are selected too (a regression's expected
 * model-level rules). NULL (after printing why) on a failing status. */
static gguflint_ctx *lint_file(const char *path, char (*extra)[16], size_t n)
{
    gguflint_options *opt = ex_options("container,kv,tensor,data,security");
    for (size_t i = 0; i < n; i++)
        gguflint_options_select(opt, extra[i], true, NULL, 0);
    gguflint_ctx *ctx = ex_lint_path(path, opt);
    gguflint_options_free(opt);
    return ctx;
}

static bool reported(const gguflint_ctx *ctx, const char *id)
{
    return ex_count(ctx, id) > 0;
}

/* The ids of an .expect file: one per line, '#' lines and blank lines skipped,
 * surrounding blanks trimmed. Returns the count; ids must be valid rule ids. */
static size_t read_expect(const char *path, char ids[][16], size_t cap, bool *ok)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        print_message("  cannot read %s\n", path);
        *ok = false;
        return 0;
    }
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t k = strlen(s);
        while (k > 0 &&
               (s[k - 1] == '\n' || s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t'))
            s[--k] = '\0';
        if (k == 0 || s[0] == '#')
            continue;
        if (k >= 16 || gguflint_rule_find(s) < 0 || n == cap) {
            print_message("  %s: '%s' is not a rule id\n", path, s);
            *ok = false;
            continue;
        }
        memcpy(ids[n++], s, k + 1);
    }
    fclose(f);
    return n;
}

/* ------------------------------------------------------------ regressions */

static void test_regressions_paired(void **state)
{
    names g = list_stems(CORPUS "/regressions", ".gguf");
    names e = list_stems(CORPUS "/regressions", ".expect");
    bool ok = true;
    for (size_t i = 0; i < g.n; i++)
        if (!contains(&e, g.v[i])) {
            print_message("  regressions/%s.gguf has no .expect\n", g.v[i]);
            ok = false;
        }
    for (size_t i = 0; i < e.n; i++)
        if (!contains(&g, e.v[i])) {
            print_message("  regressions/%s.expect has no .gguf\n", e.v[i]);
            ok = false;
        }
    if (g.n < MIN_REGRESSIONS) {
        print_message("  only %zu regression files, at least %d wanted\n", g.n, MIN_REGRESSIONS);
        ok = false;
    }
    names_free(&g);
    names_free(&e);
    assert_true(ok);
}

static void test_regressions_report_expected(void **state)
{
    names g = list_stems(CORPUS "/regressions", ".gguf");
    size_t bad = 0;
    for (size_t i = 0; i < g.n; i++) {
        char path[4096], epath[4096];
        snprintf(path, sizeof path, "%s/regressions/%s.gguf", CORPUS, g.v[i]);
        snprintf(epath, sizeof epath, "%s/regressions/%s.expect", CORPUS, g.v[i]);
        char ids[32][16];
        bool ok = true;
        size_t n = read_expect(epath, ids, 32, &ok);
        if (ok && n == 0) {
            print_message("  %s lists no rule id\n", epath);
            ok = false;
        }
        gguflint_ctx *ctx = lint_file(path, ids, n);
        if (!ctx) {
            bad++;
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            if (!reported(ctx, ids[k])) {
                print_message("  regressions/%s.gguf: expected %s, not reported\n", g.v[i], ids[k]);
                ok = false;
            }
        }
        if (!ok) {
            ex_print_findings(path, ctx);
            bad++;
        }
        gguflint_free(ctx);
    }
    if (bad)
        print_message("  %zu of %zu regression files failed\n", bad, g.n);
    names_free(&g);
    assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ seeds */

/* The error-level rule a seed may carry by its name, or NULL. */
static const char *declared_error(const char *stem)
{
    if (strncmp(stem, "legacy-v1-", 10) == 0)
        return "GG005";
    if (strncmp(stem, "big-endian-", 11) == 0)
        return "GG007";
    return NULL;
}

static void test_seeds_have_no_errors(void **state)
{
    names s = list_stems(CORPUS "/seed", ".gguf");
    size_t bad = 0;
    for (size_t i = 0; i < s.n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/seed/%s.gguf", CORPUS, s.v[i]);
        gguflint_ctx *ctx = lint_file(path, NULL, 0);
        if (!ctx) {
            bad++;
            continue;
        }
        const char *allowed = declared_error(s.v[i]);
        bool ok = true;
        for (size_t k = 0; k < gguflint_finding_count(ctx); k++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, k);
            if (f->severity == GGUFLINT_ERROR && !(allowed && strcmp(ex_id(f), allowed) == 0))
                ok = false;
        }
        if (allowed && !reported(ctx, allowed)) {
            print_message("  seed/%s.gguf: its name promises %s, not reported\n", s.v[i], allowed);
            ok = false;
        }
        if (gguflint_findings_dropped(ctx) != 0)
            ok = false;
        if (!ok) {
            print_message("  seed/%s.gguf is not clean:\n", s.v[i]);
            ex_print_findings(path, ctx);
            bad++;
        }
        gguflint_free(ctx);
    }
    size_t count = s.n;
    names_free(&s);
    if (count == 0)
        print_message("  no seed files (regenerate with build-dev/tests/gen_corpus corpus)\n");
    assert_true(count > 0);
    assert_int_equal(bad, 0);
}

static void test_seeds_are_small(void **state)
{
    names s = list_stems(CORPUS "/seed", ".gguf");
    unsigned long long total = 0;
    bool ok = s.n > 0;
    for (size_t i = 0; i < s.n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/seed/%s.gguf", CORPUS, s.v[i]);
        assert_int_equal(stat(path, &st), 0);
        total += (unsigned long long)st.st_size;
        if ((unsigned long long)st.st_size > MAX_SEED_FILE) {
            print_message("  seed/%s.gguf is %lld bytes (limit %u)\n", s.v[i],
                          (long long)st.st_size, MAX_SEED_FILE);
            ok = false;
        }
    }
    if (total > MAX_SEED_TOTAL) {
        print_message("  the seeds total %llu bytes (limit %u)\n", total, MAX_SEED_TOTAL);
        ok = false;
    }
    names_free(&s);
    assert_true(ok);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_regressions_paired),
            cmocka_unit_test(test_regressions_report_expected),
            cmocka_unit_test(test_seeds_have_no_errors),
            cmocka_unit_test(test_seeds_are_small),
        })

/* test_conformance.c - gguflint against the GGUF conformance suite
 * (corpus/conformance, written by tests/tools/gen_conformance.c), through the
 * library: every file of MANIFEST.tsv is linted under the spec, ggml and
 * strict profiles (gguflint_options_profile + gguflint_set_buffer +
 * gguflint_run, the file name set as the CLI sets it) and counts as accepted
 * when no finding has severity error. Each verdict must equal the manifest's.
 * Every disagreement is printed with the error findings before the test
 * fails. Also checked: the manifest's shape (columns, categories, y_ => spec
 * and ggml accept, n_ => both reject), that every .gguf in the folder is in
 * the manifest and the other way round, at least 150 files, and the suite's
 * total size. ci/conformance.sh does the same through the CLI. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "expect.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguflint.h"

#define SUITE GGUFLINT_SOURCE_DIR "/corpus/conformance"
#define MIN_FILES 150
#define MAX_TOTAL (1024u * 1024u)

enum { P_SPEC, P_GGML, P_STRICT, N_PROFILES };
static const char *const profile_names[N_PROFILES] = {"spec", "ggml", "strict"};

typedef struct row {
    char *file;
    char cat;
    bool accept[N_PROFILES];
} row;

typedef struct suite {
    row *rows;
    size_t n;
} suite;

static suite S;

/* ------------------------------------------------------------ reading */

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static bool parse_verdict(const char *s, bool *accept)
{
    if (strcmp(s, "accept") == 0)
        *accept = true;
    else if (strcmp(s, "reject") == 0)
        *accept = false;
    else
        return false;
    return true;
}

/* Parse MANIFEST.tsv into S; fail the test on a malformed line. */
static int load_manifest(void **state)
{
    size_t len;
    uint8_t *text = read_all(SUITE "/MANIFEST.tsv", &len);
    if (!text) {
        print_error("cannot read " SUITE "/MANIFEST.tsv\n");
        return -1;
    }
    char *s = realloc(text, len + 1);
    if (!s) {
        free(text);
        return -1;
    }
    s[len] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    S.rows = calloc(lines + 1, sizeof *S.rows);
    if (!S.rows) {
        free(s);
        return -1;
    }
    int bad = 0;
    size_t lineno = 0;
    for (char *line = s, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        char *f[7] = {0};
        size_t nf = 0;
        for (char *p = line; nf < 7;) {
            f[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (lineno == 1) {
            if (nf != 6 || strcmp(f[0], "file") != 0 || strcmp(f[3], "spec") != 0 ||
                strcmp(f[4], "ggml") != 0 || strcmp(f[5], "strict") != 0) {
                print_error("MANIFEST.tsv: bad header line\n");
                bad++;
            }
            continue;
        }
        row r = {0};
        bool ok = nf == 6 && strlen(f[1]) == 1 && strchr("yni", f[1][0]) &&
                  parse_verdict(f[3], &r.accept[P_SPEC]) &&
                  parse_verdict(f[4], &r.accept[P_GGML]) &&
                  parse_verdict(f[5], &r.accept[P_STRICT]) && f[2][0] != '\0' &&
                  f[0][0] == f[1][0] && f[0][1] == '_';
        if (ok) {
            r.cat = f[1][0];
            if (r.cat == 'y')
                ok = r.accept[P_SPEC] && r.accept[P_GGML];
            else if (r.cat == 'n')
                ok = !r.accept[P_SPEC] && !r.accept[P_GGML];
        }
        if (!ok) {
            print_error("MANIFEST.tsv:%zu: malformed or inconsistent line\n", lineno);
            bad++;
            continue;
        }
        r.file = strdup(f[0]);
        if (!r.file) {
            bad++;
            continue;
        }
        S.rows[S.n++] = r;
    }
    free(s);
    return bad ? -1 : 0;
}

static int free_manifest(void **state)
{
    for (size_t i = 0; i < S.n; i++)
        free(S.rows[i].file);
    free(S.rows);
    S.rows = NULL;
    S.n = 0;
    return 0;
}

/* ------------------------------------------------------------ tests */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's .gguf files and the manifest name the same files; the suite
 * is large enough and small enough. */
static void test_manifest_matches_folder(void **state)
{
    DIR *d = opendir(SUITE);
    assert_non_null(d);
    char **found = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t k = strlen(e->d_name);
        if (k < 5 || strcmp(e->d_name + k - 5, ".gguf") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **p = realloc(found, cap * sizeof *p);
            assert_non_null(p);
            found = p;
        }
        found[n] = strdup(e->d_name);
        assert_non_null(found[n]);
        n++;
    }
    closedir(d);
    qsort(found, n, sizeof *found, cmp_str);

    int problems = 0;
    size_t total = 0, per_cat[3] = {0, 0, 0};
    for (size_t i = 0; i < S.n; i++) {
        const char *key = S.rows[i].file;
        if (!bsearch(&key, found, n, sizeof *found, cmp_str)) {
            print_error("%s is in MANIFEST.tsv but not in " SUITE "\n", key);
            problems++;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(S.rows[j].file, key) == 0) {
                print_error("%s is listed twice\n", key);
                problems++;
            }
        per_cat[S.rows[i].cat == 'y' ? 0 : S.rows[i].cat == 'n' ? 1 : 2]++;
    }
    for (size_t i = 0; i < n; i++) {
        bool listed = false;
        for (size_t j = 0; j < S.n && !listed; j++)
            listed = strcmp(S.rows[j].file, found[i]) == 0;
        if (!listed) {
            print_error("%s is not in MANIFEST.tsv\n", found[i]);
            problems++;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SUITE, found[i]);
        size_t len;
        uint8_t *buf = read_all(path, &len);
        free(buf);
        total += len;
        free(found[i]);
    }
    free(found);
    print_message("conformance suite: %zu files (%zu y, %zu n, %zu i), %zu bytes\n", S.n,
                  per_cat[0], per_cat[1], per_cat[2], total);
    assert_int_equal(problems, 0);
    assert_true(S.n >= MIN_FILES);
    assert_true(per_cat[0] > 0 && per_cat[1] > 0 && per_cat[2] > 0);
    assert_true(total < MAX_TOTAL);
}

/* Lint one file under a profile: true when no finding is an error. The error
 * findings are printed when `show`. */
static bool lint_accepts(const char *file, const uint8_t *buf, size_t len, const char *profile,
                         bool show)
{
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    assert_int_equal(gguflint_options_profile(opt, profile), GGUFLINT_OK);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SUITE, file);
    assert_int_equal(gguflint_set_name(ctx, path), GGUFLINT_OK);
    assert_int_equal(gguflint_set_buffer(ctx, len ? buf : (const uint8_t *)"", len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    bool accept = true;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (f->severity != GGUFLINT_ERROR)
            continue;
        accept = false;
        if (show)
            print_message("      0x%llx %s %s: %s\n", (unsigned long long)f->offset,
                          gguflint_rule((size_t)f->rule)->id, f->path, f->message);
    }
    gguflint_free(ctx);
    gguflint_options_free(opt);
    return accept;
}

static void check_profile(size_t p)
{
    size_t agree = 0, per_cat_total[3] = {0, 0, 0}, per_cat_agree[3] = {0, 0, 0};
    for (size_t i = 0; i < S.n; i++) {
        const row *r = &S.rows[i];
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SUITE, r->file);
        size_t len;
        uint8_t *buf = read_all(path, &len);
        if (!buf) {
            print_error("cannot read %s\n", path);
            continue;
        }
        size_t c = r->cat == 'y' ? 0 : r->cat == 'n' ? 1 : 2;
        per_cat_total[c]++;
        bool got = lint_accepts(r->file, buf, len, profile_names[p], false);
        if (got == r->accept[p]) {
            agree++;
            per_cat_agree[c]++;
        } else {
            print_message("DISAGREE %s --profile %s: expected %s, gguflint %s\n", r->file,
                          profile_names[p], r->accept[p] ? "accept" : "reject",
                          got ? "accepts" : "rejects");
            (void)lint_accepts(r->file, buf, len, profile_names[p], true);
        }
        free(buf);
    }
    print_message("profile %-6s: y %zu/%zu, n %zu/%zu, i %zu/%zu, all %zu/%zu agree\n",
                  profile_names[p], per_cat_agree[0], per_cat_total[0], per_cat_agree[1],
                  per_cat_total[1], per_cat_agree[2], per_cat_total[2], agree, S.n);
    assert_int_equal(agree, S.n);
}

static void test_profile_spec(void **state)
{
    check_profile(P_SPEC);
}

static void test_profile_ggml(void **state)
{
    check_profile(P_GGML);
}

static void test_profile_strict(void **state)
{
    check_profile(P_STRICT);
}

EX_MAIN(load_manifest, free_manifest,
        {
            cmocka_unit_test(test_manifest_matches_folder),
            cmocka_unit_test(test_profile_spec),
            cmocka_unit_test(test_profile_ggml),
            cmocka_unit_test(test_profile_strict),
        })

/* test_twin_vocab.c - the string path's fast twins against their plain
 * paths (issue 28): every file of corpus/ and of the real vocabulary files
 * (GGUFLINT_REALFILES_DIR, skipped when absent) is linted with the vector
 * paths on (fp_force_level(2): the AVX2 token walk, the AVX2 UTF-8 check)
 * and off (fp_force_level(0): every token through tok_add_slow, every
 * string through the scalar UTF-8 check), in the ggml, strict and security
 * profiles; the findings (rule ids, offsets, sizes, severities) must be the
 * same, in the same order, messages and paths included. */
#define _XOPEN_SOURCE 700

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "common/fpscan.h"
#include "expect.h"
#include "gguflint.h"

#ifndef GGUFLINT_REALFILES_DIR
#define GGUFLINT_REALFILES_DIR "../shared/gguf-realfiles"
#endif
#define CORPUS GGUFLINT_SOURCE_DIR "/corpus"

/* Files bigger than this are skipped (the corpus holds sparse models). */
#define MAX_FILE (64u << 20)

typedef struct found {
    int rule;
    uint64_t offset, size;
    int severity;
    uint64_t text; /* FNV-1a of the path and the message */
} found;

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001B3ull;
    return h;
}

static const char *const profiles[] = {"ggml", "strict", "security"};

/* The findings of one lint at vector level `level`; *n gets their count. */
static found *lint(const uint8_t *buf, size_t len, const char *profile, int level, size_t *n,
                   int *status)
{
    fp_force_level(level);
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    assert_int_equal(gguflint_options_profile(opt, profile), GGUFLINT_OK);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
    *status = gguflint_run(ctx);
    *n = gguflint_finding_count(ctx);
    found *v = calloc(*n ? *n : 1, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < *n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        v[i] = (found){(int)f->rule, f->offset, f->length, (int)f->severity,
                       fnv(fnv(0xCBF29CE484222325ull, f->path), f->message)};
    }
    gguflint_free(ctx);
    gguflint_options_free(opt);
    fp_force_level(2);
    return v;
}

static size_t n_files, n_findings;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    size_t pl = strlen(path);
    if (type != FTW_F || pl < 5 || strcmp(path + pl - 5, ".gguf") != 0 ||
        (uint64_t)st->st_size > MAX_FILE)
        return 0;
    size_t len = 0;
    uint8_t *buf = (uint8_t *)ex_read_file(path, &len); /* st_size checked above */
    if (!buf)
        return 0;
    for (size_t p = 0; p < sizeof profiles / sizeof profiles[0]; p++) {
        size_t nf, ns;
        int sf, ss;
        found *fast = lint(buf, len, profiles[p], 2, &nf, &sf);
        found *slow = lint(buf, len, profiles[p], 0, &ns, &ss);
        if (sf != ss || nf != ns || (nf && memcmp(fast, slow, nf * sizeof *fast) != 0)) {
            fprintf(stderr,
                    "%s (%s): %zu findings (status %d) with the vector paths, %zu "
                    "(status %d) without\n",
                    path, profiles[p], nf, sf, ns, ss);
            for (size_t i = 0; i < nf || i < ns; i++)
                fprintf(stderr, "  %zu: %d@%llu | %d@%llu\n", i, i < nf ? fast[i].rule : -1,
                        i < nf ? (unsigned long long)fast[i].offset : 0ull,
                        i < ns ? slow[i].rule : -1,
                        i < ns ? (unsigned long long)slow[i].offset : 0ull);
            fail_msg("findings differ between the vector and the plain paths");
        }
        n_findings += nf;
        free(fast);
        free(slow);
    }
    n_files++;
    free(buf);
    return 0;
}

static void test_corpus(void **state)
{
    (void)state;
    n_files = n_findings = 0;
    assert_int_equal(nftw(CORPUS, visit, 16, FTW_PHYS), 0);
    fprintf(stderr, "corpus: %zu files, %zu findings each way\n", n_files, n_findings);
    assert_true(n_files > 100);
}

static void test_realfiles(void **state)
{
    (void)state;
    struct stat st;
    if (stat(GGUFLINT_REALFILES_DIR, &st) != 0) {
        skip();
        return;
    }
    n_files = n_findings = 0;
    assert_int_equal(nftw(GGUFLINT_REALFILES_DIR, visit, 16, FTW_PHYS), 0);
    fprintf(stderr, "real files: %zu files, %zu findings each way\n", n_files, n_findings);
    assert_true(n_files >= 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_realfiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_template_corpus.c - the template payload corpus (corpus/templates/)
 * through the library under --profile security:
 *  - every attack of attacks.tsv reports each rule its line lists;
 *  - no clean template of clean.tsv, and none of the real templates in
 *    ../shared/real-templates (when present; skipped otherwise), has an
 *    error-severity template finding.
 * It prints detection by class, recall (attacks with every expected rule),
 * precision (error-level flags that are attacks) and the warnings left on
 * the clean and real sets, by rule: the figures the README publishes. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

#define CORPUS GGUFLINT_SOURCE_DIR "/corpus/templates"
#define REAL GGUFLINT_SOURCE_DIR "/../shared/real-templates"
#define REAL_LLAMA GGUFLINT_SOURCE_DIR "/../shared/llama.cpp/models/templates"
#define REAL_EXTRA GGUFLINT_SOURCE_DIR "/../real-templates-extra"
#define MIN_ATTACKS 60
#define MIN_CLEAN 40

static const char *rule_id(const gguflint_finding *f)
{
    const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
    return r ? r->id : "";
}

static bool template_rule(const char *id)
{
    return strncmp(id, "GG72", 4) == 0 || strncmp(id, "GG73", 4) == 0;
}

/* The input of the last lint: views into it live as long as the context. */
static uint8_t *last_buf;

/* Lint one template under a profile (the previous context must be freed
 * first). */
static gguflint_ctx *lint_template_as(const char *tpl, size_t n, const char *profile)
{
    free(last_buf);
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_strn(b, "tokenizer.chat_template", tpl, n);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    assert_int_equal(gguflint_options_profile(opt, profile), GGUFLINT_OK);
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    last_buf = buf;
    return ctx;
}

static gguflint_ctx *lint_template(const char *tpl, size_t n)
{
    return lint_template_as(tpl, n, "security");
}

static bool has_error(const gguflint_ctx *ctx)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (template_rule(rule_id(f)) && f->severity == GGUFLINT_ERROR)
            return true;
    }
    return false;
}

static void print_findings(const char *name, const gguflint_ctx *ctx)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (template_rule(rule_id(f)))
            print_message("    %s: %s %s %s\n", name, rule_id(f),
                          gguflint_severity_name(f->severity), f->message);
    }
}

/* Template-rule warnings and notes of a clean template, counted by rule. */
typedef struct tally {
    char id[40][8];
    unsigned n[40];
    unsigned kinds;
} tally;

static void count_rest(tally *t, const gguflint_ctx *ctx)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const char *id = rule_id(f);
        if (!template_rule(id) || f->severity == GGUFLINT_ERROR)
            continue;
        unsigned k = 0;
        while (k < t->kinds && strcmp(t->id[k], id) != 0)
            k++;
        if (k == t->kinds && t->kinds < 40)
            snprintf(t->id[t->kinds++], sizeof t->id[0], "%s", id);
        if (k < 40)
            t->n[k]++;
    }
}

static void print_tally(const char *what, const tally *t)
{
    char line[512] = "";
    size_t n = 0;
    for (unsigned k = 0; k < t->kinds && n < sizeof line; k++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s x%u", t->id[k], t->n[k]);
    print_message("  %s: warnings and notes left:%s\n", what, t->kinds ? line : " none");
}

static void test_attacks(void **state)
{
    size_t len;
    char *s = ex_read_file(CORPUS "/attacks.tsv", &len);
    assert_non_null(s);
    unsigned total = 0, detected = 0, flagged = 0;
    struct {
        char name[24];
        unsigned n, ok;
    } cls[16];
    unsigned ncls = 0;
    bool bad = false;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char *name = line, *klass = strchr(name, '\t');
        assert_non_null(klass);
        *klass++ = '\0';
        char *rules = strchr(klass, '\t');
        assert_non_null(rules);
        *rules++ = '\0';
        char *tpl = strchr(rules, '\t');
        assert_non_null(tpl);
        *tpl++ = '\0';
        gguflint_ctx *ctx = lint_template(tpl, strlen(tpl));
        bool all = true;
        char want[64];
        snprintf(want, sizeof want, "%s", rules);
        for (char *save = NULL, *id = strtok_r(want, " ", &save); id;
             id = strtok_r(NULL, " ", &save)) {
            bool got = false;
            for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
                got |= strcmp(rule_id(gguflint_finding_get(ctx, i)), id) == 0;
            if (!got) {
                print_message("  attack %s: %s not reported\n", name, id);
                all = false;
            }
        }
        if (!all)
            print_findings(name, ctx);
        unsigned k = 0;
        while (k < ncls && strcmp(cls[k].name, klass) != 0)
            k++;
        if (k == ncls && ncls < 16) {
            snprintf(cls[ncls].name, sizeof cls[0].name, "%s", klass);
            cls[ncls].n = cls[ncls].ok = 0;
            ncls++;
        }
        if (k < 16) {
            cls[k].n++;
            cls[k].ok += all;
        }
        total++;
        detected += all;
        flagged += has_error(ctx);
        bad |= !all;
        gguflint_free(ctx);
    }
    free(s);
    print_message("  attacks: %u, every expected rule reported for %u (recall %.1f%%), an "
                  "error-level finding for %u\n",
                  total, detected, total ? 100.0 * detected / total : 0.0, flagged);
    for (unsigned k = 0; k < ncls; k++)
        print_message("    class %-12s %u/%u\n", cls[k].name, cls[k].ok, cls[k].n);
    assert_true(total >= MIN_ATTACKS);
    assert_false(bad);
}

static void test_clean(void **state)
{
    size_t len;
    char *s = ex_read_file(CORPUS "/clean.tsv", &len);
    assert_non_null(s);
    unsigned total = 0, errors = 0;
    tally t = {0};
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char *tpl = strchr(line, '\t');
        assert_non_null(tpl);
        *tpl++ = '\0';
        gguflint_ctx *ctx = lint_template(tpl, strlen(tpl));
        if (has_error(ctx)) {
            print_message("  clean %s has an error:\n", line);
            print_findings(line, ctx);
            errors++;
        }
        count_rest(&t, ctx);
        total++;
        gguflint_free(ctx);
    }
    free(s);
    print_message("  clean templates: %u, with an error under --profile security: %u\n", total,
                  errors);
    print_tally("clean", &t);
    assert_true(total >= MIN_CLEAN);
    assert_int_equal(errors, 0);
}

/* The profiles a real template must pass with no error: the default (ggml),
 * strict and security. */
static const char *const real_profiles[] = {"ggml", "strict", "security"};

/* Whether the MANIFEST.tsv of dir (when there is one) lists name in its first
 * column. */
static bool listed(const char *manifest, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = manifest; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '\t')
            return true;
    return false;
}

/* Every .jinja of dir under each of real_profiles: no error (a skip when the
 * directory is absent). When dir has a MANIFEST.tsv, every template must be
 * listed in it (where it came from). Warnings are counted under security. */
static void real_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        print_message("%s not found: skipped\n", dir);
        skip();
    }
    char mpath[4096];
    snprintf(mpath, sizeof mpath, "%s/MANIFEST.tsv", dir);
    size_t mlen;
    char *manifest = ex_read_file(mpath, &mlen);
    unsigned total = 0, errors[3] = {0}, unlisted = 0;
    tally t = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 7 || strcmp(e->d_name + n - 6, ".jinja") != 0)
            continue;
        if (manifest && !listed(manifest, e->d_name)) {
            print_message("  real %s is not in %s\n", e->d_name, mpath);
            unlisted++;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *tpl = ex_read_file(path, &len);
        assert_non_null(tpl);
        for (unsigned p = 0; p < 3; p++) {
            gguflint_ctx *ctx = lint_template_as(tpl, len, real_profiles[p]);
            if (has_error(ctx)) {
                print_message("  real %s has an error under --profile %s:\n", e->d_name,
                              real_profiles[p]);
                print_findings(e->d_name, ctx);
                errors[p]++;
            }
            if (p == 2)
                count_rest(&t, ctx);
            gguflint_free(ctx);
        }
        total++;
        free(tpl);
    }
    closedir(d);
    free(manifest);
    print_message("  real templates in %s: %u, with an error under --profile ggml/strict/"
                  "security: %u/%u/%u\n",
                  dir, total, errors[0], errors[1], errors[2]);
    print_tally("real", &t);
    assert_int_equal(errors[0] + errors[1] + errors[2], 0);
    assert_int_equal(unlisted, 0);
}

static void test_real_templates(void **state)
{
    real_dir(REAL);
}

static void test_real_llama_templates(void **state)
{
    real_dir(REAL_LLAMA);
}

static void test_real_extra_templates(void **state)
{
    real_dir(REAL_EXTRA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attacks),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_real_templates),
        cmocka_unit_test(test_real_llama_templates),
        cmocka_unit_test(test_real_extra_templates),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(last_buf);
    return rc;
}

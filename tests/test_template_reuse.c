/* test_template_reuse.c - the template analyser a thread keeps between
 * files (tpl_acquire/tpl_release, template.h) against its twin, a fresh
 * analyser for every file (GGUFLINT_TPL_FRESH=1, tpl_force_fresh):
 *
 * - the command line's JSON over corpus/ and over the payload corpus
 *   (corpus/templates/attacks.tsv and clean.tsv, each template a file),
 *   `-r -j1` so that one thread lints every file in turn, in the ggml,
 *   strict and security profiles: the same bytes both ways;
 * - in this process, every payload template linted after another one (an
 *   attack after a clean template, a clean one after an attack, a file of
 *   many small templates that spends the folding budget twice in a row):
 *   the same findings as a fresh analyser gives, so no file's state leaks
 *   into the next;
 * - the reuse is real: a second lint of a template file asks the allocator
 *   for far less than the ~400 KB a fresh analyser takes. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "gguflint.h"
#include "template/template.h"

#define CORPUS GGUFLINT_SOURCE_DIR "/corpus"
#define PAYLOADS GGUFLINT_SOURCE_DIR "/corpus/templates"
#define BUDGET_FILE CORPUS "/regressions/gguflint-9-template-many-small-budget.gguf"
#define OUT_CAP (16u << 20) /* the JSON of corpus/ is about 1.5 MB */

static char dir[] = "/tmp/gguflint-tplreuse-XXXXXX";
EX_TMPDIR_FIXTURES(dir)

static gguflint_options *security; /* --profile security, made by main */

/* ---- the payload corpus ---- */

typedef struct payload {
    char name[96];
    uint8_t *buf; /* the template as a GGUF */
    size_t len;
    char *fresh; /* its findings from a fresh analyser */
} payload;

static payload pl[512];
static size_t n_pl, n_attacks;

static void collect(const char *name, const char *text, size_t n, void *user)
{
    assert_true(n_pl < sizeof pl / sizeof pl[0]);
    payload *p = &pl[n_pl++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->buf = ex_template_gguf(text, n, 0, &p->len);
}

static char *findings(const uint8_t *buf, size_t len)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, security, NULL);
    char *out = ex_findings_text(ctx);
    gguflint_free(ctx);
    return out;
}

/* Read the corpus once, with each template's fresh findings. */
static void load_payloads(void)
{
    if (n_pl)
        return;
    n_attacks = ex_tsv_templates(PAYLOADS "/attacks.tsv", collect, NULL);
    ex_tsv_templates(PAYLOADS "/clean.tsv", collect, NULL);
    assert_true(n_attacks >= 60 && n_pl - n_attacks >= 40);
    tpl_force_fresh(1);
    for (size_t i = 0; i < n_pl; i++)
        pl[i].fresh = findings(pl[i].buf, pl[i].len);
    tpl_force_fresh(0);
}

/* Lint payload i with the kept analyser: what a fresh one gives. */
static void same_as_fresh(size_t i, const char *after)
{
    char *got = findings(pl[i].buf, pl[i].len);
    if (strcmp(got, pl[i].fresh) != 0) {
        print_error("%s after %s: the kept analyser and a fresh one disagree\n"
                    "kept:\n%sfresh:\n%s",
                    pl[i].name, after, got, pl[i].fresh);
        fail();
    }
    free(got);
}

/* ---- the command line's JSON both ways ---- */

static char *run_json(const char *fresh, const char *profile, const char *path)
{
    char pre[64], args[4200];
    snprintf(pre, sizeof pre, "export GGUFLINT_TPL_FRESH=%s &&", fresh);
    snprintf(args, sizeof args, "--isolated --profile %s --format json --exit-zero -r -j1 '%s'",
             profile, path);
    char *out = malloc(OUT_CAP);
    assert_non_null(out);
    const ex_how how = {pre, 120};
    assert_int_equal(ex_cli_run_as(&how, GGUFLINT_CLI, dir, ".", args, out, OUT_CAP), 0);
    assert_true(strlen(out) < OUT_CAP - 1); /* not cut */
    return out;
}

static unsigned n_json_runs;

static void json_both_ways(const char *path, const char *must_hold)
{
    static const char *const profiles[] = {"ggml", "strict", "security"};
    for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++) {
        char *kept = run_json("0", profiles[k], path);
        char *fresh = run_json("1", profiles[k], path);
        if (strcmp(kept, fresh) != 0) {
            print_error("%s, profile %s: the JSON differs with GGUFLINT_TPL_FRESH=1\n", path,
                        profiles[k]);
            fail();
        }
        ex_has(kept, must_hold);
        free(kept);
        free(fresh);
        n_json_runs += 2;
    }
}

static void corpus_json_same(void **state)
{
    json_both_ways(CORPUS, "\"rule\":\"GG7"); /* template findings among them */
    print_message("  corpus/: %u runs, the same JSON\n", n_json_runs);
}

static void payload_json_same(void **state)
{
    load_payloads();
    char rel[128];
    ex_mkdirs(dir, "pay");
    for (size_t i = 0; i < n_pl; i++) {
        snprintf(rel, sizeof rel, "pay/%c%04zu.gguf", i < n_attacks ? 'a' : 'c', i);
        ex_write_file(dir, rel, pl[i].buf, pl[i].len);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/pay", dir);
    json_both_ways(path, "\"rule\":\"GG720\"");
    print_message("  payload corpus (%zu files): the same JSON in every profile\n", n_pl);
}

/* ---- one file after another, in this process ---- */

static void clean_after_attack(void **state)
{
    load_payloads();
    size_t n_clean = n_pl - n_attacks;
    for (size_t a = 0; a < n_attacks; a++) {
        free(findings(pl[a].buf, pl[a].len)); /* its state is left in the kept analyser */
        free(findings(pl[a].buf, pl[a].len)); /* and again: a kept one's second file */
        same_as_fresh(n_attacks + a % n_clean, pl[a].name);
    }
}

static void attack_after_clean(void **state)
{
    load_payloads();
    size_t n_clean = n_pl - n_attacks;
    for (size_t a = 0; a < n_attacks; a++) {
        free(findings(pl[n_attacks + a % n_clean].buf, pl[n_attacks + a % n_clean].len));
        same_as_fresh(a, pl[n_attacks + a % n_clean].name);
        same_as_fresh(a, "itself");
    }
}

/* A file whose many templates spend the folding budget: a second run on
 * the same analyser must start with a whole budget again. */
static void budget_is_per_file(void **state)
{
    size_t len;
    uint8_t *buf = (uint8_t *)ex_read_file(BUDGET_FILE, &len);
    assert_non_null(buf);
    tpl_force_fresh(1);
    char *fresh = findings(buf, len);
    tpl_force_fresh(0);
    assert_non_null(strstr(fresh, "GG7"));
    for (int k = 0; k < 3; k++) {
        char *kept = findings(buf, len);
        assert_string_equal(kept, fresh);
        free(kept);
    }
    free(fresh);
    free(buf);
}

/* ---- the reuse is real ---- */

static size_t asked; /* bytes the library asked the allocator for */

static void *count_malloc(void *user, size_t n)
{
    (void)user;
    asked += n;
    return malloc(n);
}

static void *count_realloc(void *user, void *p, size_t n)
{
    (void)user;
    asked += n;
    return realloc(p, n);
}

static void count_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void second_file_costs_less(void **state)
{
    load_payloads();
    const payload *p = &pl[n_pl - 1];
    free(findings(p->buf, p->len));
    asked = 0;
    free(findings(p->buf, p->len));
    size_t kept = asked;
    tpl_force_fresh(1);
    asked = 0;
    free(findings(p->buf, p->len));
    size_t fresh = asked;
    tpl_force_fresh(0);
    print_message("  allocated per lint of %s: %zu bytes kept, %zu fresh\n", p->name, kept, fresh);
    assert_true(fresh > 300u * 1024u);
    assert_true(kept < 64u * 1024u);
    /* an analyser that grew past TPL_KEEP_HEAP for a big template is
     * freed, not kept: the next file gets a fresh one */
    /* six {% set %} of 60 000-byte strings: 360 KB in the variable store */
    const size_t each = 60000, head = 20, n = 6 * (head + each + 4);
    char *big = malloc(n + 1), *w = big;
    assert_non_null(big);
    for (int k = 0; k < 6; k++) {
        w += snprintf(w, head + 1, "{%% set v%d = '%*s", k, (int)(head - 13), "");
        memset(w, 'a', each);
        w += each;
        memcpy(w, "' %}", 4);
        w += 4;
    }
    size_t len;
    uint8_t *buf = ex_template_gguf(big, n, 0, &len);
    free(findings(buf, len));
    asked = 0;
    free(findings(p->buf, p->len));
    print_message("  after a %zu-byte template: %zu bytes\n", n, asked);
    assert_true(asked > 300u * 1024u);
    free(buf);
    free(big);
}

static int teardown_all(void **state)
{
    for (size_t i = 0; i < n_pl; i++) {
        free(pl[i].buf);
        free(pl[i].fresh);
    }
    gguflint_options_free(security);
    return teardown(state);
}

int main(void)
{
    /* set before any other call (gguflint.h) */
    if (gguflint_set_allocator(count_malloc, count_realloc, count_free, NULL) != GGUFLINT_OK)
        return 1;
    security = ex_options(NULL);
    if (gguflint_options_profile(security, "security") != GGUFLINT_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_json_same),   cmocka_unit_test(payload_json_same),
        cmocka_unit_test(clean_after_attack), cmocka_unit_test(attack_after_clean),
        cmocka_unit_test(budget_is_per_file), cmocka_unit_test(second_file_costs_less),
    };
    return cmocka_run_group_tests(tests, setup, teardown_all);
}

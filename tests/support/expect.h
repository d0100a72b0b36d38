/* expect.h - the one home of the tests' lint, print and count helpers:
 * lint a buffer or a file (failing the test on a failing status), look
 * findings up by rule id, family or severity, print every finding when an
 * expectation fails, and the assertions of the rule tests (a finding of a
 * rule at an exact offset, none of a rule, exactly a set of rules, no
 * finding at all). Every helper that lints takes options (NULL: every rule
 * at its default severity) and, for the assertions, the name of the calling
 * test (the macros pass __func__). For cmocka tests: include after cmocka.h. */
#ifndef GGUFLINT_TEST_EXPECT_H
#define GGUFLINT_TEST_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gguf_builder.h"
#include "gguflint.h"

/* cmocka hands every test and fixture a `void **state` that most of them
 * never read: the suites that include this header do not spell (void)state
 * in each one. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif

/* ---- options ---- */

/* New options (free with gguflint_options_free): every default, then, when
 * `select` is non-NULL, only the rules it names (ids, prefixes, slugs,
 * families, comma-separated). */
gguflint_options *ex_options(const char *select);

/* ---- linting ---- */

/* Set the buffer (and the file name, when non-NULL), run; the caller frees
 * the context. A failing status fails the test. */
gguflint_ctx *ex_lint_opt(const void *buf, size_t len, const gguflint_options *opt,
                          const char *name);
/* ex_lint_opt with default options and no name. */
gguflint_ctx *ex_lint(const uint8_t *buf, size_t len);
/* Open and run a file; NULL (after printing why) on a failing status. */
gguflint_ctx *ex_lint_path(const char *path, const gguflint_options *opt);

/* ---- looking at findings ---- */

/* The rule id of a finding ("GG106"; "" when the index is unknown). */
const char *ex_id(const gguflint_finding *f);
/* Every finding of ctx, one line each (id, slug, severity, offset, length,
 * path, message), through cmocka's print_message, under `label` if non-NULL. */
void ex_print_findings(const char *label, const gguflint_ctx *ctx);
/* Findings of rule `id`; *at (if non-NULL) gets how many are at `offset`. */
size_t ex_count_id(const gguflint_ctx *ctx, const char *id, uint64_t offset, size_t *at);
/* Findings of rule `id` at any offset. */
size_t ex_count(const gguflint_ctx *ctx, const char *id);
/* The first finding of rule `id`, or NULL. */
const gguflint_finding *ex_find(const gguflint_ctx *ctx, const char *id);
/* Findings whose rule is in `family` ("kv", "split", ...). */
size_t ex_count_family(const gguflint_ctx *ctx, const char *family);
/* Findings of exactly this severity. */
size_t ex_count_severity(const gguflint_ctx *ctx, gguflint_severity sev);

/* ---- assertions over a buffer (linted with `opt`; the buffer is not freed) ---- */

/* At least one finding of `id` at exactly `offset`. */
void ex_assert_finding_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                          const char *id, uint64_t offset, const char *where);
/* No finding of `id`. */
void ex_assert_no_rule_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                          const char *id, const char *where);
/* The findings are exactly the rules of the NULL-terminated list `ids` (each
 * at least once, nothing else). */
void ex_assert_only_rules_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                             const char *const *ids, const char *where);
/* No finding at all. */
void ex_assert_clean_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                        const char *where);
#define ex_assert_finding(buf, len, opt, id, offset)                                               \
    ex_assert_finding_at(buf, len, opt, id, offset, __func__)
#define ex_assert_no_rule(buf, len, opt, id) ex_assert_no_rule_at(buf, len, opt, id, __func__)
#define ex_assert_only_rules(buf, len, opt, ...)                                                   \
    do {                                                                                           \
        static const char *const ex_ids_[] = {__VA_ARGS__, NULL};                                  \
        ex_assert_only_rules_at(buf, len, opt, ex_ids_, __func__);                                 \
    } while (0)
#define ex_assert_clean(buf, len, opt) ex_assert_clean_at(buf, len, opt, __func__)

/* Exactly one finding of `id`, at `offset`, with default options, else the
 * test fails (naming `where`). Frees buf. */
void ex_expect_at(uint8_t *buf, size_t len, const char *id, uint64_t offset, const char *where);
/* ex_expect_at for a buffer linted under the file name `name` (when
 * non-NULL), whose one finding's message also holds `text` (when non-NULL).
 * Frees buf. */
void ex_expect_msg_at(uint8_t *buf, size_t len, const char *name, const char *id, uint64_t offset,
                      const char *text, const char *where);
#define ex_expect_msg(buf, len, name, id, offset, text)                                            \
    ex_expect_msg_at(buf, len, name, id, offset, text, __func__)
/* No finding of any rule of the NULL-terminated list `ids` (default options;
 * linted under `name` when non-NULL). Frees buf. */
void ex_expect_none_of(uint8_t *buf, size_t len, const char *name, const char *const *ids,
                       const char *where);
#define ex_expect_none(buf, len, name, ...)                                                        \
    do {                                                                                           \
        static const char *const ex_none_[] = {__VA_ARGS__, NULL};                                 \
        ex_expect_none_of(buf, len, name, ex_none_, __func__);                                     \
    } while (0)
/* Lint every file of `dir` whose name ends in `suffix` (none when the
 * directory is absent: the real files are optional); fail on a finding of a
 * rule whose id starts with `id_prefix` at `min` severity or above, and on a
 * file that cannot be read or run. */
void ex_dir_clean(const char *dir, const char *suffix, const char *id_prefix,
                  gguflint_severity min);

/* ---- a growing buffer ---- */

/* Bytes appended by ex_buf_put (start from {0}; free p). The bytes are
 * always followed by a NUL, so text can be read as a string. */
typedef struct ex_buf {
    uint8_t *p;
    size_t len, cap;
} ex_buf;
void ex_buf_put(ex_buf *b, const void *s, size_t n);
/* ex_buf_put as a gguflint write callback (gguflint_escape and friends):
 * user is the ex_buf. */
void ex_buf_sink(void *user, const char *s, size_t n);
/* The bytes as a string ("" before the first put), and emptied for reuse. */
const char *ex_buf_str(const ex_buf *b);
void ex_buf_clear(ex_buf *b);

/* An exactly-sized heap copy of n bytes (malloc(0) when n is 0, one byte
 * only where that returns NULL), so that AddressSanitizer sees a read past
 * its end; free it. */
uint8_t *ex_dup(const void *src, size_t n);

/* ---- files ---- */

/* The whole file at path, NUL-terminated (its length in *len; free it), or
 * NULL when it cannot be opened. A failing read fails the test. */
char *ex_read_file(const char *path, size_t *len);

/* ---- tests that are tables ---- */

/* A row of a table that maps a string to the string expected of it (a file
 * name to its tag, a path to its stem, a file to its rule id). */
typedef struct ex_str_case {
    const char *in, *want;
} ex_str_case;

/* A table of cases run as one cmocka test: the test's name, the rows and
 * their number. EX_TABLE_TEST(runner, table) in a CMUnitTest array makes a
 * test named after the table, whose state is the table's ex_table (the
 * runner reads it through *state). */
typedef struct ex_table {
    const char *name;
    const void *rows;
    size_t n;
} ex_table;
// clang-format off
#define EX_TABLE_TEST(runner, table) \
    {#table, runner, NULL, NULL, &(ex_table){#table, table, sizeof table / sizeof table[0]}}
// clang-format on

/* ---- a suite's main ---- */

/* main() of a suite: the cmocka tests, given as one braced list
 * ({cmocka_unit_test(a), ...,}: one test a line), run as one group named
 * "tests" with the group fixtures `setup` and `teardown` (NULL for none);
 * its status is the exit status. The list's commas split it into several
 * macro arguments, which __VA_ARGS__ joins again. */
#define EX_MAIN(setup, teardown, ...)                                                              \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = __VA_ARGS__;                                             \
        return cmocka_run_group_tests(tests, setup, teardown);                                     \
    }

/* ---- the command line ---- */

/* Run `cli args` in the directory dir/cwd (a shell command line: args may
 * quote), at most 60 s, with stdout and stderr into out (NUL-terminated,
 * cut at cap - 1 bytes; the output file is dir/out.txt). Returns the exit
 * status, -1 when the command did not exit. */
int ex_cli_run(const char *cli, const char *dir, const char *cwd, const char *args, char *out,
               size_t cap);
/* ex_cli_run, then fail the test unless it exits with `code` and, when
 * `needle` is non-NULL, the output holds needle. */
void ex_cli_expect(const char *cli, const char *dir, const char *cwd, const char *args, int code,
                   const char *needle, char *out, size_t cap);
/* How ex_cli_run_as runs the command: shell words before it in the same
 * subshell (`pre`: "ulimit -v 262144 &&"; NULL or "" for none) and the time
 * limit in seconds (0: 60). */
typedef struct ex_how {
    const char *pre;
    unsigned secs;
} ex_how;
/* ex_cli_run and ex_cli_expect run as `how` says (NULL: as ex_cli_run). */
int ex_cli_run_as(const ex_how *how, const char *cli, const char *dir, const char *cwd,
                  const char *args, char *out, size_t cap);
void ex_cli_expect_as(const ex_how *how, const char *cli, const char *dir, const char *cwd,
                      const char *args, int code, const char *needle, char *out, size_t cap);
/* Fail the test unless `out` (a command's output) holds `needle`
 * (ex_has), or unless it does not (ex_lacks); the output is printed. */
void ex_has(const char *out, const char *needle);
void ex_lacks(const char *out, const char *needle);
/* Write len bytes to dir/rel (failing the test when it cannot), and text
 * the same way; remove a test's whole directory (0, or -1 on failure, for
 * a cmocka teardown). */
void ex_write_file(const char *dir, const char *rel, const void *data, size_t len);
void ex_write_text(const char *dir, const char *rel, const char *text);
int ex_remove_tree(const char *dir);
/* Make dir/rel and its parents (mkdir -p), failing the test when it cannot. */
void ex_mkdirs(const char *dir, const char *rel);

/* ---- templates ---- */

/* The findings of a lint as text, one line each (rule id, severity,
 * offset+length, message) in the order the library gives them; free it. */
char *ex_findings_text(const gguflint_ctx *ctx);
/* A llama GGUF whose tokenizer.chat_template is text[0..n): one string, or
 * with split > 0 an array of strings of split bytes each (free it). */
uint8_t *ex_template_gguf(const char *text, size_t n, size_t split, size_t *len);
/* fn(name, text, n, user) for each template of a corpus TSV
 * (the .tsv files of corpus/templates: the first field names it, the last holds it;
 * lines starting with '#' are comments). Returns how many. */
typedef void (*ex_tsv_fn)(const char *name, const char *text, size_t n, void *user);
unsigned ex_tsv_templates(const char *path, ex_tsv_fn fn, void *user);

/* ---- building files ---- */

/* gb_finish, then gb_free: the file (free it; its length in *len), the test
 * failing when the builder could not make it. */
uint8_t *ex_finish(gb *b, size_t *len);
/* gb_small_model and gb_small_model_ex (gguf_builder.h), the test failing
 * when they cannot build the model. */
uint8_t *ex_small_model(size_t *len);
uint8_t *ex_small_model_ex(uint32_t version, bool big_endian, size_t *len);
/* ex_finish, written to dir/rel with ex_write_file. */
void ex_write_gb(const char *dir, const char *rel, gb *b);

/* ---- scratch directories of the command-line tests ---- */

/* cmocka group setup and teardown for a test's scratch directory `tmpl`
 * (a mkdtemp template, made then; removed with everything below it, modes
 * restored first). 0 on success. */
int ex_tmpdir_make(char *tmpl);
int ex_tmpdir_remove(const char *dir);
/* The group teardown of a suite that works in one scratch folder `dir`
 * (removes it), and both fixtures: `setup` makes `dir` (a mkdtemp
 * template). */
#define EX_TMPDIR_TEARDOWN(dir)                                                                    \
    static int teardown(void **state)                                                              \
    {                                                                                              \
        return ex_tmpdir_remove(dir);                                                              \
    }
#define EX_TMPDIR_FIXTURES(dir)                                                                    \
    static int setup(void **state)                                                                 \
    {                                                                                              \
        return ex_tmpdir_make(dir);                                                                \
    }                                                                                              \
    EX_TMPDIR_TEARDOWN(dir)
/* Write the small clean llama model (tiny_llama.h) to dir/name. */
void ex_write_tiny_llama(const char *dir, const char *name);

#endif

/* expect.h - assertions over a linted buffer shared by the test files of the
 * semantic checks: lint with every rule at its default, count a rule's
 * findings at an offset, require exactly one at an offset (printing every
 * finding when it is not there). For cmocka tests: include after cmocka.h. */
#ifndef GGUFLINT_TEST_EXPECT_H
#define GGUFLINT_TEST_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "gguflint.h"

/* Every finding of ctx, one line each, through cmocka's print_message. */
void ex_print_findings(const gguflint_ctx *ctx);
/* Set the buffer and run with default options; the caller frees the ctx. */
gguflint_ctx *ex_lint(const uint8_t *buf, size_t len);
/* Findings of rule `id`; *at (if non-NULL) gets how many are at `offset`. */
size_t ex_count_id(const gguflint_ctx *ctx, const char *id, uint64_t offset, size_t *at);
/* Exactly one finding of `id`, at `offset`, else the test fails (naming
 * `where`). Frees buf. */
void ex_expect_at(uint8_t *buf, size_t len, const char *id, uint64_t offset, const char *where);
/* Lint every file of `dir` whose name ends in `suffix` (none when the
 * directory is absent: the real files are optional); fail on a finding of a
 * rule whose id starts with `id_prefix` at `min` severity or above, and on a
 * file that cannot be read or run. */
void ex_dir_clean(const char *dir, const char *suffix, const char *id_prefix,
                  gguflint_severity min);

#endif

/* linediff.h - a bounded line difference of two texts (chat templates) for
 * `gguflint diff`: Myers' O((N+M)D) algorithm after the common first and
 * last lines are set aside, with every line first replaced by a number
 * (equal lines, equal numbers: one sort, O(L log L) comparisons), so a
 * comparison costs O(1) however long the lines are. Hostile templates
 * cannot make it unbounded: at most LINEDIFF_MAX_D edits are searched for
 * and at most LINEDIFF_BUDGET steps taken; past either, the differing middle
 * is reported as removed and added whole, with `truncated` set. Texts of
 * more than LINEDIFF_MAX_LINES lines are not compared line by line at all
 * (no ops, `truncated`). Memory: O(L) plus 4 * LINEDIFF_MAX_D^2 bytes at most. */
#ifndef GGUFLINT_CLI_LINEDIFF_H
#define GGUFLINT_CLI_LINEDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINEDIFF_MAX_D 1024
#define LINEDIFF_BUDGET ((uint64_t)1 << 24)
#define LINEDIFF_MAX_LINES ((size_t)1 << 22)

typedef struct line_op {
    char op;     /* '-': a line of the first text only; '+': of the second only */
    size_t line; /* its number (from 1) in its text */
    const uint8_t *text;
    size_t len; /* without the newline */
} line_op;

typedef struct line_diff {
    line_op *ops; /* in order of the texts */
    size_t n;
    size_t removed, added;
    bool truncated; /* the budget ran out: the middle is shown whole */
} line_diff;

/* The difference of a[0..na) and b[0..nb) (lines end at '\n'; a last '\n'
 * ends the last line) into *out. False when out of memory. */
bool line_diff_run(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, line_diff *out);
void line_diff_free(line_diff *d);

#endif

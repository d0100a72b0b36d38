/* baseline.h - the --baseline FILE of the lint command: the fingerprints a
 * baseline file records (written by --write-baseline, the report format
 * "baseline"), matched against each file's findings so that only new ones
 * are reported, and the entries no finding matched any more ("gone"). Uses
 * only the public API. */
#ifndef GGUFLINT_CLI_BASELINE_H
#define GGUFLINT_CLI_BASELINE_H

#include "gguflint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct baseline_entry {
    uint64_t fp;
    uint32_t line;    /* 1-based line of the file */
    size_t text, len; /* the rest of the line (rule, path, logical path), in text */
    bool hit;         /* a finding of this run matched it */
} baseline_entry;

typedef struct baseline {
    const char *path;
    char *text;        /* the file as read */
    baseline_entry *e; /* sorted by fingerprint */
    size_t n;
    char error[320]; /* why it was refused: ":LINE: what" or ": what" */
} baseline;

/* Read a baseline file (at most CLI_MAX_BASELINE_BYTES). False with a
 * message on standard error when it cannot be read or a line is not
 * "16-hex-digit fingerprint, tab, ..." (comments start with '#'). */
bool baseline_load(baseline *b, const char *path);
/* The same over text[0..len) (NUL-terminated at len; taken over, freed by
 * baseline_free), recorded under `name`; false with b->error set, nothing
 * printed. Used by baseline_load and the fuzz harness. */
bool baseline_parse_text(baseline *b, char *text, size_t len, const char *name);
/* Flag (flags[i] = true) the findings of ctx that the baseline records, and
 * mark those entries hit; returns how many findings were flagged. `path` is
 * the display path normalised as the reports do (against the working
 * directory). False when out of memory. */
bool baseline_match(baseline *b, const gguflint_ctx *ctx, const char *path, bool *flags,
                    size_t *matched);
/* Print each entry no finding matched ("FILE:LINE: gone: ...") to standard
 * error; returns how many. */
uint64_t baseline_gone(const baseline *b);
void baseline_free(baseline *b);

#endif

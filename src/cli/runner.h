/* runner.h - linting the inputs of a run on -j threads, handed back in input
 * order. Finished contexts wait for their turn to be reported; the window of
 * waiting contexts is bounded by their memory (gguflint_memory_used), not by
 * a count, so -j on many big files holds at most about `window_bytes` plus
 * the files in flight. Shards named PREFIX-NNNNN-of-MMMMM.gguf given together
 * form split sets (grouped by sorting: O(n log n) in the number of paths);
 * a set is checked (gguflint_check_set) under the SIGBUS guard before its
 * first member is handed out. The files of one model (the same directory and
 * model-name stem, gguflint_model_stem: its quantisations and shards) are
 * grouped the same way and checked with gguflint_check_family. */
#ifndef GGUFLINT_CLI_RUNNER_H
#define GGUFLINT_CLI_RUNNER_H

#include "gguflint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct runner runner;

/* Lint paths[0..n) with `opt` (copied by each context) on `jobs` threads:
 * with `fixed`, `jobs` workers from the start while the calling thread
 * reports (the reference); else the calling thread lints in input order,
 * lints the next files while a helper has the one it needs, and jobs - 1
 * helpers take files only once a second thread pays (CLI_ADAPT_START_NS).
 * An input with skip[i] set (skip may be NULL: none) is not run: it is
 * handed back with no context and the status skip_status[i] (an hf://
 * listing that failed). `base` (may be NULL) is the model every context is
 * given with gguflint_set_base (--base); it must outlive the runner. With
 * `lone_shards`, a shard given without the other members of its set
 * (-r, an hf:// listing, several inputs) is checked as a set of one, so
 * the shards it lacks are reported (GG410). NULL on NOMEM. */
runner *runner_new(const char *const *paths, size_t n, const gguflint_options *opt, unsigned jobs,
                   bool fixed, uint64_t stdin_max, uint64_t window_bytes, const char *const *skip,
                   const int *skip_status, const gguflint_ctx *base, bool lone_shards);
/* Input i (call in order 0, 1, ...): waits for it and returns its context
 * (NULL after NOMEM) and status (-1: the file changed while it was read). */
gguflint_ctx *runner_get(runner *rn, size_t i, int *status);
/* Done with input i: its context is freed and the window moves on. */
void runner_release(runner *rn, size_t i);
/* Joins the threads and frees everything. */
void runner_free(runner *rn);

#endif

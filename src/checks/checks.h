/* checks.h - the semantic checks, one function per file (check_*.c), run in
 * this order by checks_run. Each takes the context after parsing, reads the
 * model through model.h and reports with emit(). */
#ifndef GGUFLINT_CHECKS_H
#define GGUFLINT_CHECKS_H

#include "core/internal.h"

/* Build the model's indexes and run every check below but check_data. */
void checks_run(gguflint_ctx *ctx);

void check_metadata(gguflint_ctx *ctx); /* general.*: presence, types, values */
void check_filetype(gguflint_ctx *ctx); /* general.file_type vs tensors and file name */
void check_arch(gguflint_ctx *ctx);     /* architecture hyper-parameters and tensor set */
void check_vocab(gguflint_ctx *ctx);    /* tokenizer.* arrays and special ids */
void check_split(gguflint_ctx *ctx);    /* split.* keys of one shard */
void check_strings(gguflint_ctx *ctx);  /* string hygiene, resource claims */
void check_template(gguflint_ctx *ctx); /* chat-template injection (static analysis) */
/* The checks over several contexts (gguflint_check_set, _family) take
 * contexts that ran: GGUFLINT_E_ARG for a NULL list of n > 0,
 * GGUFLINT_E_STATE when one opened without error has not run, else
 * GGUFLINT_OK. */
int checks_set_ready(gguflint_ctx *const *ctxs, size_t n);

void check_requires(gguflint_ctx *ctx); /* GG595: needs newer than --llama-build */
/* Run separately, after the others, only with options.deep (see ctx.c). */
void check_data(gguflint_ctx *ctx); /* tensor values and block scales */

#endif

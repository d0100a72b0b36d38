/* gguflint_llama.h - the answers of issue 27: what a file needs of
 * llama.cpp, the oldest build that knows everything it uses (--llama-build,
 * GG595, "requires_llama" in the JSON report), the memory it takes at a
 * context size (`gguflint estimate`), and the AI-BOM's timestamp. Part of the public API beside gguflint.h (its functions are
 * GGUFLINT_API and exported like the rest). */
#ifndef GGUFLINT_LLAMA_H
#define GGUFLINT_LLAMA_H

#include "gguflint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pin the llama.cpp the files must load on: "bNNNN" (or "NNNN"), a build
 * tag, or "YYYY-MM-DD", a date; NULL or "" removes the pin. Every need of a
 * file (architecture, tensor type, tokenizer model, pre-tokenizer, projector
 * type, a key its loader first read after the architecture) first known to
 * llama.cpp after the pin is GG595. GGUFLINT_E_ARG for another form.
 * [MT: object] */
GGUFLINT_API int gguflint_options_set_llama_build(gguflint_options *opt, const char *build);

/* The memory estimate of a file that was run (gguflint_run): weights per
 * buffer and tensor type, the KV cache per layer (grouped-query heads,
 * sliding-window layers, MLA), recurrent state, output and compute buffers,
 * for n_ctx tokens of context, n_batch / n_ubatch, and the cache types
 * type_k / type_v (ggml type ids, e.g. 1 for f16). 0 for n_batch or n_ubatch
 * means llama.cpp's default (2048 and 512, at most n_ctx). Written as text
 * or JSON (fmt GGUFLINT_FORMAT_TEXT / _JSON) through w. Returns
 * GGUFLINT_OK, GGUFLINT_E_ARG for a bad argument (a cache type that is
 * not a ggml type, n_ctx 0) or the context's failing status. [MT: readers] */
GGUFLINT_API int gguflint_estimate(gguflint_ctx *ctx, uint64_t n_ctx, uint64_t n_batch,
                                   uint64_t n_ubatch, uint32_t type_k, uint32_t type_v,
                                   gguflint_format fmt, gguflint_write_fn w, void *user);

/* The CycloneDX BOM (GGUFLINT_FORMAT_CYCLONEDX) records `when` as its
 * metadata.timestamp: seconds since 1970-01-01T00:00:00Z, 0 to 253402300799
 * (9999-12-31T23:59:59Z), written as an ISO 8601 UTC date-time. -1 removes
 * it: the default, so that the same files give the same bytes. Set it
 * before the first file; other formats ignore it. GGUFLINT_OK, or
 * GGUFLINT_E_ARG for a NULL report or a time out of range. [MT: object] */
GGUFLINT_API int gguflint_report_set_timestamp(gguflint_report *r, int64_t when);

#ifdef __cplusplus
}
#endif
#endif

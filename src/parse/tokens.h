/* tokens.h - the tokenizer's tokens as the parse pass reads them. The
 * vocabulary is most of the metadata of most models, so the parse pass,
 * which has to step over every token anyway, also builds the duplicate-token
 * index (keyed: see common/keyhash.h and the complexity contract in
 * docs/ARCHITECTURE.md), keeps each token's offset, and notes the tokens
 * whose length is a finding. check_vocab.c reports from this record and so
 * never reads the tokens array again (its pages have been given back by
 * then: see source_drop). Only the first tokenizer.ggml.tokens KV, an array
 * of strings in a little-endian v2/v3 file read to its end by the fast path,
 * is recorded; otherwise `complete` stays false and check_vocab walks the
 * array itself. */
#ifndef GGUFLINT_PARSE_TOKENS_H
#define GGUFLINT_PARSE_TOKENS_H

#include "core/internal.h"

#include "common/keyhash.h"

/* Tokens longer than these are an error / a warning (CVE-2025-49847). */
#define TOKEN_MAX_ERROR (64u * 1024u)
#define TOKEN_MAX_WARN 1024u

typedef struct tok_slot {
    uint32_t tag; /* top 32 bits of the keyed hash, | 1 (0: empty) */
    uint32_t idx; /* token index */
} tok_slot;

typedef struct tok_dup {
    uint32_t i, prev; /* token i repeats token prev */
} tok_dup;

typedef struct tok_index {
    size_t kv;           /* the tokens KV: index in ctx->kvs */
    uint64_t n;          /* tokens recorded so far */
    bool complete;       /* every token of the array was recorded */
    bool dup_checked;    /* and looked up in the index (the rule is on, the array fits) */
    const uint8_t *base; /* the array value (its element-type field) */
    uint32_t *offs;      /* token i's length field, from base */
    tok_dup *dups;       /* duplicates, in token order */
    size_t n_dups, cap_dups;
    uint32_t *odd; /* tokens of length 0 or over TOKEN_MAX_WARN, in order */
    size_t n_odd, cap_odd;
    /* the index while the array is read (freed after it) */
    tok_slot *slots;
    size_t mask;
    unsigned shift;
    uint64_t probes;
    bool nomem; /* a note could not be stored (the run is out of memory) */
    keyhash_ml ml;
} tok_index;

/* Start recording the array whose value starts at `base`, `count` tokens
 * (already checked against the bytes present, so the allocation is bounded
 * by the input's size), as KV `kv`. `dups`: build the duplicate index too.
 * False when memory ran out. */
bool tok_begin(gguflint_ctx *ctx, size_t kv, const uint8_t *base, uint64_t count, bool dups);
/* The array was read to its end (complete) or not: frees the index, and the
 * whole record when incomplete. */
void tok_end(gguflint_ctx *ctx, bool complete);
void tok_free(gguflint_ctx *ctx);

/* The record's hot state, kept in registers by the parse loop (a local
 * copy that only inlined code touches): tok_hot_load, then tok_add per
 * token, then tok_hot_store. */
/* Recording is split in two so that each loop keeps its state in
 * registers: the parse loop only stores each token's offset (tok_push), and
 * after each run of strings, while their bytes are still in cache,
 * tok_flush checks and indexes the tokens pushed since the last flush. */

/* Store the offset of the next token's length field `el`. The parse loop
 * keeps `el` within 4 GiB of the base (offsets are 32-bit). */
static inline __attribute__((always_inline)) void tok_push(tok_index *t, uint64_t *n,
                                                           const uint8_t *el)
{
    t->offs[(*n)++] = (uint32_t)(el - t->base);
}

/* keyhash_ml_hash of a token (the same function: multilinear under the
 * per-process key, SipHash past KEYHASH_ML_MAX bytes), for a token with 8
 * readable bytes after its end (so each 8-byte chunk is one load),
 * straight-line for tokens of up to 16 bytes, most of a vocabulary. n >= 1. */
static inline __attribute__((always_inline)) uint64_t tok_hash(const keyhash_ml *m,
                                                               const uint8_t *s, uint64_t n)
{
    if (n > KEYHASH_ML_MAX)
        return keyhash13(&m->sip, s, (size_t)n);
    uint64_t h = m->k[0] + n * m->k[1], w;
    const uint64_t *k = m->k + 2;
    while (n > 16) {
        memcpy(&w, s, 8);
        h += (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1];
        k += 2, s += 8, n -= 8;
    }
    memcpy(&w, s, 8);
    if (n > 8) {
        h += (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1];
        k += 2, s += 8, n -= 8;
        memcpy(&w, s, 8);
    }
    w &= keyhash_tail_mask[n];
    return h + (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1];
}

/* Check and index tokens t->n .. n-1 (pushed since the last flush): note the
 * empty and over-long ones, and look each up in the duplicate index (keyed,
 * strongly universal: the slot from the top bits of the hash, the tag from
 * its top 32), inserting the new ones. `end`: readable memory ends there.
 * False when memory ran out (t->nomem). */
bool tok_flush(tok_index *t, uint64_t n, const uint8_t *end);

#endif
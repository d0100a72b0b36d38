/* diff.h - what differs between two GGUF files (or two split sets, each
 * compared as one model) for `gguflint diff`: the header (version, byte
 * order, alignment, counts, shards), the KVs of the first shard (added,
 * removed, changed in type or value; long strings and arrays summarised by
 * the SHA-256 and length of their bytes), the tensors of every shard
 * (added, removed, reshaped, retyped and, when digests are given, with
 * different data) and the chat templates line by line (linediff.h).
 *
 * Works on contexts already run, through the public API only. Keys and
 * tensor names are matched by sorting both sides (O(n log n) whatever the
 * names are); nothing is allocated from a declared count (only from records
 * the parser read), and values are compared in 64 KiB pieces read with
 * gguflint_read. The writers are diff_text.c and diff_json.c. */
#ifndef GGUFLINT_CLI_DIFF_H
#define GGUFLINT_CLI_DIFF_H

#include "gguflint.h"
#include "linediff.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strings up to this many bytes are shown; longer ones, and arrays, by
 * their digest and length. */
#define DIFF_INLINE_MAX 96

/* One side: its shards in order (one for a plain file), their names, and
 * optionally each shard's tensor digests (tensor_sha[s] + 65 * i: the 64
 * hex digits and NUL of tensor i of shard s; NULL: data not compared). */
typedef struct diff_side {
    gguflint_ctx *const *ctx;
    const char *const *paths;
    size_t n;
    const char *const *tensor_sha;
} diff_side;

typedef enum diff_change { DIFF_ADDED, DIFF_REMOVED, DIFF_CHANGED } diff_change;

/* A value as a writer shows it: the KV itself, plus a digest for long ones. */
typedef struct diff_value {
    const gguflint_kv *kv;
    bool summarised; /* shown as sha256 + bytes rather than in full */
    char sha256[65]; /* "" when libcrypto is missing */
    uint64_t bytes;  /* bytes digested: a string's bytes, an array's stored value */
} diff_value;

typedef struct diff_key {
    diff_change change;
    gguflint_view key;
    diff_value a, b; /* a: DIFF_REMOVED and DIFF_CHANGED; b: DIFF_ADDED and DIFF_CHANGED */
    bool lines;      /* a template whose line difference is in templates[] */
} diff_key;

enum { DIFF_T_SHAPE = 1, DIFF_T_TYPE = 2, DIFF_T_DATA = 4 };

typedef struct diff_tensor {
    diff_change change;
    unsigned what; /* DIFF_T_*: what changed (DIFF_CHANGED) */
    const gguflint_tensor *a, *b;
    const char *sha_a, *sha_b; /* data digests, when compared */
} diff_tensor;

typedef struct diff_header {
    const char *field; /* "version", "big_endian", "alignment", ... */
    uint64_t a, b;
} diff_header;

/* The line difference of one template key changed in both files. */
typedef struct diff_template {
    gguflint_view key;
    line_diff lines;
} diff_template;

typedef struct diff_result {
    diff_header header[8];
    size_t n_header;
    diff_key *keys;
    size_t n_keys, cap_keys;
    diff_tensor *tensors;
    size_t n_tensors, cap_tensors;
    diff_template *templates;
    size_t n_templates, cap_templates;
    size_t keys_added, keys_removed, keys_changed;
    size_t tensors_added, tensors_removed, tensors_changed;
    bool data_compared;
    bool nomem;
} diff_result;

/* Compare a with b into *out (zeroed first). False when out of memory
 * (out->nomem) or a read failed. */
bool diff_run(const diff_side *a, const diff_side *b, diff_result *out);
/* Whether anything differs. */
bool diff_any(const diff_result *r);
void diff_free(diff_result *r);

/* Where a writer writes: the callback and its user pointer. */
typedef struct diff_out {
    gguflint_write_fn w;
    void *u;
} diff_out;
void diff_put(const diff_out *o, const char *s);
/* Formatted output (a result longer than 255 bytes is cut: only numbers and
 * fixed words go through here, never file data). */
void diff_putf(const diff_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A scalar value (not a string or array) as text into buf: "5", "-3",
 * "1.5", "true"; for JSON non-finite floats are quoted ("\"nan\""). */
void diff_scalar(const gguflint_kv *kv, bool json, char buf[48]);
/* The name of a value type or ggml type, or "type N" (buf) when unknown. */
const char *diff_type_name(uint32_t type, bool ggml, char buf[24]);

/* The writers: human-readable text, and JSON (schema_version 1,
 * docs/schemas/gguflint-diff.schema.json). */
void diff_write_text(const diff_side *a, const diff_side *b, const diff_result *r,
                     gguflint_write_fn w, void *user);
void diff_write_json(const diff_side *a, const diff_side *b, const diff_result *r,
                     gguflint_write_fn w, void *user);

#endif

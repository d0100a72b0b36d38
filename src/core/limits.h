/* limits.h - every default and hard limit of gguflint in one place, each with
 * its reason (in the spirit of SQLite's sqliteLimit.h). Constants only, so
 * the CLI may include it too (its help text prints the defaults from here).
 *
 * Defaults are what a run uses unless the caller changes them
 * (gguflint_options_set_limit, the CLI's --max-* and --stdin-max options);
 * they are plain decimal literals so they can be stringified into help text.
 * Hard limits are fixed sizes of the implementation: they bound work or
 * memory whatever the options say. The template analyser's own budgets are
 * in template/template_impl.h, next to the code they bound. */
#ifndef GGUFLINT_CORE_LIMITS_H
#define GGUFLINT_CORE_LIMITS_H

/* ---- defaults of the settable limits (enum gguflint_limit) ---- */

/* Longest string (key, value, array element) before GG113: 1 GiB, ggml's own
 * bound, so that a file ggml can load is never reported for its size. */
#define LIMIT_DEFAULT_STRING_LEN 1073741824
/* Most elements in one array before GG120: 2^30, ggml's bound on arrays.
 * Larger counts are also impossible unless the bytes are there (GG111). */
#define LIMIT_DEFAULT_ARRAY_COUNT 1073741824
/* Most KVs declared before GG011: 100000, huggingface.js's bound; real models
 * have a few dozen. */
#define LIMIT_DEFAULT_KV_COUNT 100000
/* Most tensors declared before GG012: 10 million, huggingface.js's bound; the
 * largest real models have a few thousand. */
#define LIMIT_DEFAULT_TENSOR_COUNT 10000000
/* Array nesting levels walked: 4, the depth huggingface.js reads; ggml
 * rejects any nesting (GG109). Deeper is GG110 and stops the parse. */
#define LIMIT_DEFAULT_DEPTH 4
/* Findings kept per rule and file: 100, so a file with a million bad tokens
 * yields a readable report; the rest are counted as dropped. 0 means 1. */
#define LIMIT_DEFAULT_FINDINGS_PER_RULE 100
/* Bytes read from a stream (the CLI's '-', gguflint_read_stream's caller):
 * 1 GiB, the memory a stream may take, since it is read into a buffer. */
#define LIMIT_DEFAULT_STDIN_BYTES 1073741824

/* ---- hard limits ---- */

/* The most array nesting levels ever walked, whatever --max-depth says: the
 * explicit stack of parse.c is this many frames on the C stack. */
#define HARD_MAX_DEPTH 64u
/* Bytes of non-ASCII strings copied into one UTF-8 validation batch
 * (parse.c): large enough for the vector check to pay, small enough to stay
 * in L2. Longer strings are validated on their own. */
#define UTF8_BATCH_BYTES (64u << 10)
/* Bytes of tensor data read per step of the --deep scan, per thread: a
 * multiple of every ggml block size is taken from it. */
#define DEEP_CHUNK_BYTES (1u << 20)
/* The same for reader inputs (remote files): each piece is one request, so
 * larger pieces. */
#define DEEP_READER_CHUNK_BYTES (16u << 20)
/* Vocabularies larger than this are not checked for duplicate tokens: the
 * index costs 16-28 bytes per token, too much for a file that is hostile
 * anyway (real vocabularies stay below 300k). */
#define DUP_MAX_TOKENS (1u << 24)
/* Tensor names longer than this are not classified by role (norm, bias...)
 * for the file-type checks: no real name comes close, and the classification
 * scans the name several times. */
#define MAX_CLASSIFIED_NAME 256
/* dump: array elements shown per array, and string bytes shown in text and
 * JSON (longer strings are cut with their length given). */
#define DUMP_ELEMS 8
#define DUMP_TEXT_STR_MAX 160
#define DUMP_JSON_STR_MAX (1u << 20)

/* ---- CLI limits ---- */

/* -j N: at most 256 threads, far more than a linter can use. */
#define CLI_MAX_JOBS 256
/* Files linted ahead of the one being reported (-j): their contexts, and so
 * their findings, are held in memory until reported in input order. */
#define CLI_JOB_WINDOW 64
/* --select/--ignore/--severity options (command line and config file). */
#define CLI_MAX_RULE_OPTS 128
/* --format options of one run (each a report, to a file or standard output). */
#define CLI_MAX_OUTPUTS 8

#endif

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
 * 64 MiB. A stream is read into memory whole, so this is memory; the
 * metadata of the largest real models (262k-token vocabularies) is about
 * 16 MB, and what a stream is for is a header or a partial download piped in
 * (--header-only). A whole model on a stream is cut at the limit (GG010, or
 * a GG013 note under --header-only). */
#define LIMIT_DEFAULT_STDIN_BYTES 67108864

/* ---- hard limits ---- */

/* The most array nesting levels ever walked, whatever --max-depth says: the
 * explicit stack of parse.c is this many frames on the C stack. */
#define HARD_MAX_DEPTH 64u
/* Bytes of a string array validated per step of the parse pass (parse.c):
 * after each step the array's pages are given back (source_drop), so the
 * resident set stays about this size whatever the vocabulary's size (plus
 * what the kernel maps ahead: a 64 KiB fault-around window, or a whole
 * page-cache folio of up to 2 MiB for a file just written). A step costs
 * a madvise call and a few hundred instructions; 256 KiB rather than 1 MiB
 * took peak RSS on gen_bench's a.gguf just written from 11.3 to 10.9 MB. */
#define RUN_BYTES (256u << 10)
/* Files up to this size are read into memory rather than mapped
 * (source.c): for small files a read is cheaper than faulting a mapping in
 * and unmapping it, and -r runs over thousands of them. */
#define SMALL_FILE_READ_BYTES (256u << 10)
/* Bytes of tensor data read per step of the --deep scan, per thread, into a
 * buffer that stays in the L2 cache while it is scanned; a multiple of
 * every ggml block size is taken from it. */
#define DEEP_CHUNK_BYTES (256u << 10)
/* The --deep scan's unit of work, which threads take in turn: small enough
 * that one big tensor keeps every thread busy, large enough that taking one
 * costs nothing. */
#define DEEP_PIECE_BYTES (4u << 20)
/* The stack of each --deep scan thread the library starts. Set explicitly:
 * a thread's default stack is RLIMIT_STACK, which a sandbox may set to
 * 64 KiB (`ulimit -s 64`), too little for a sanitizer build's frames. */
#define DEEP_THREAD_STACK_BYTES ((size_t)1 << 20)
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

/* ---- URL inputs (src/net/, api/reader.c) ---- */

/* The first range asked for: 2 MiB holds the whole metadata of most models
 * (vocabulary-only files are 0.6-4 MB), and costs little when it does not. */
#define LIMIT_DEFAULT_FETCH_FIRST_RANGE 2097152
/* Most metadata bytes fetched and held per remote file (--max-fetch), and
 * per page of an API listing up to URL_API_PAGE_BYTES: 256 MiB, sixteen
 * times the largest real metadata (about 16 MB); more is refused, not read. */
#define LIMIT_DEFAULT_FETCH_MAX_BYTES 268435456
/* Retries after 429 and 5xx, the first after 500 ms, then doubling; a
 * Retry-After of the server is followed up to 60 s. */
#define LIMIT_DEFAULT_FETCH_RETRIES 3
#define LIMIT_DEFAULT_FETCH_BACKOFF_MS 500
#define URL_MAX_RETRY_AFTER_S 60
/* Redirects followed per request: the Hub sends a file to its CDN (one). */
#define LIMIT_DEFAULT_FETCH_MAX_REDIRECTS 10
/* Connect within 10 s; a request that receives nothing for 30 s fails. */
#define LIMIT_DEFAULT_FETCH_CONNECT_TIMEOUT_S 10
#define LIMIT_DEFAULT_FETCH_TIMEOUT_S 30
/* Deadlines (issue 25): a request - its redirects, retries and Retry-After
 * waits included - ends after 300 s however its bytes trickle in (a server
 * sending one byte every few seconds never trips the stall timeout), and all
 * the requests of one remote file after 1800 s. */
#define LIMIT_DEFAULT_FETCH_DEADLINE_S 300
#define LIMIT_DEFAULT_FETCH_FILE_DEADLINE_S 1800
/* A reader's first read is at least this (the header and a few KVs). */
#define URL_MIN_FIRST_READ 64
/* The padding before the data section is read with the metadata when it is
 * at most this; a larger one is read when a check asks (never for GG122's
 * 2 GiB alignments without tensors). */
#define URL_PREFETCH_PAD_MAX (1u << 20)
/* A server may answer a range with less than asked: answers of at least this
 * many bytes are followed without limit, URL_MAX_TINY_ANSWERS shorter ones
 * end the read (a byte per answer would cost a request per byte). */
#define URL_MIN_PROGRESS 65536
#define URL_MAX_TINY_ANSWERS 16
/* Extra request headers (--header, the Hub token): a handful in practice. */
#define URL_MAX_HEADERS 32
#define URL_MAX_HEADER_BYTES 8192
/* Hub listings: pages of at most 16 MiB (1 000 entries are ~200 KB), at most
 * 1 000 pages and 100 000 .gguf files per repository, paths of 4 KiB. */
#define URL_API_PAGE_BYTES (16u << 20)
#define URL_API_MAX_PAGES 1000
#define URL_API_MAX_FILES 100000
#define URL_API_MAX_PATH 4096
/* Idle libcurl handles (with their connections) kept per remote file. */
#define URL_IDLE_HANDLES 4
/* gguflint hash reads a remote file's data in pieces of this size, one
 * request each (as --deep does, DEEP_READER_CHUNK_BYTES). */
#define URL_HASH_PIECE_BYTES (16u << 20)

/* The largest general.alignment accepted (above: GG119 with tensors, GG122
 * without), and so the largest padding after the metadata of a file without
 * tensors that is scanned for zeros: nothing legitimate pads more. */
#define ALIGNMENT_MAX (1u << 20)

/* ---- CLI limits ---- */

/* -j N: at most 256 threads, far more than a linter can use. */
#define CLI_MAX_JOBS 256
/* Memory of the finished contexts waiting to be reported in input order
 * (-j): 256 MiB (gguflint_memory_used of each). Past it, workers start no new
 * file but the next one to be reported; a count would let 64 waiting
 * vocabulary-heavy files hold gigabytes. */
#define CLI_JOB_WINDOW_BYTES (256u << 20)
/* -j N without --jobs-fixed (cli/runner.c): the run is measured in phases
 * of at least 10 ms. The helpers beside the calling thread take files when
 * the calling thread alone got at least 85 % of a CPU (else the machine is
 * busy: a second thread gets no CPU of its own) and the rest of the run
 * would take longer than 5 ms alone (a thread's start, its cold caches and
 * the hand-offs cost tens of microseconds), or once one file has run 5 ms;
 * a phase with them in which the process got less than 150 % of a CPU
 * stops them, for a back-off doubling up to 1 s. Stopped helpers look
 * every 5 ms whether a long file has started. */
#define CLI_ADAPT_PHASE_NS 10000000u
#define CLI_ADAPT_START_NS 5000000u
#define CLI_ADAPT_SOLO_PCT 85u
#define CLI_ADAPT_GAIN_PCT 150u
#define CLI_ADAPT_BACKOFF_MAX_NS 1000000000u
#define CLI_ADAPT_POLL_NS 5000000
/* --select/--ignore/--severity options (command line and config file). */
#define CLI_MAX_RULE_OPTS 128
/* --format options of one run (each a report, to a file or standard output). */
#define CLI_MAX_OUTPUTS 8
/* A --baseline file: at most 64 MiB (about 1.3 million findings at ~50 bytes
 * a line); it is read whole, and a bigger one is an error, not a cut. */
#define CLI_MAX_BASELINE_BYTES (64u << 20)

#endif

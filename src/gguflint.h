/* gguflint.h - the only public header of libgguflint, a validating parser and
 * linter for GGUF model files.
 *
 * Usage:
 *   gguflint_options *opt = gguflint_options_new();      (NULL: out of memory)
 *   gguflint_options_profile(opt, "security");           (optional settings)
 *   gguflint_ctx *ctx = gguflint_new(opt);               (copies opt)
 *   gguflint_options_free(opt);
 *   int st = gguflint_open_file(ctx, "model.gguf");      (or _set_buffer / _read_stream)
 *   if (st == GGUFLINT_OK) st = gguflint_run(ctx);
 *   for (size_t i = 0; i < gguflint_finding_count(ctx); i++) ... gguflint_finding_get(ctx, i)
 *   gguflint_free(ctx);
 *
 * Errors: one convention for every call.
 *   - A call that can fail returns an int status: GGUFLINT_OK (0) or one of
 *     the GGUFLINT_E_* codes of gguflint_status; what it computes comes back
 *     through out-parameters. A failing status of a call on a context is
 *     sticky: the context answers every later call with it (the calls that
 *     say "not sticky" excepted).
 *   - The one-line text of a failure: gguflint_error_detail(ctx) for a call
 *     on a context; a call with no context to hold it takes an optional
 *     (buffer, size) pair that it fills like snprintf (gguflint_options_select,
 *     gguflint_url_list_new, and the reader's read_at callback in reverse).
 *   - A constructor (gguflint_new, gguflint_*_new, gguflint_options_copy)
 *     returns the new object, or NULL for GGUFLINT_E_NOMEM (or a NULL
 *     argument it needs).
 *   - A report (gguflint_report_*) remembers an allocation failure of its
 *     void calls, as a FILE remembers a write error: gguflint_report_end
 *     returns it.
 *   - A query never fails: it returns a value, with a documented "none" for
 *     a NULL handle, an index past the end or an unknown name (NULL, -1, 0,
 *     false or GGUFLINT_OFF), never a status.
 *   - The other void functions are destructors, setters that cannot fail,
 *     and writers whose output goes to the caller's callback.
 * A malformed file is never a failing status: every problem in the file is a
 * finding. Statuses are for the caller's world: I/O errors, memory, misuse.
 *
 * Structs the caller fills (gguflint_reader, gguflint_arch_info) begin with
 * struct_size: initialise them with their GGUFLINT_*_INIT macro, which sets
 * it to the size the caller was compiled with. The library refuses
 * (GGUFLINT_E_ARG) a size smaller than the first published layout, and
 * uses only the fields it knows of a larger one, so a caller built against a
 * newer header works with an older library and the other way round. Structs
 * the library hands out by pointer (rules, findings, header, KVs, tensors)
 * only ever grow at their end: read a field added in version V only when
 * gguflint_version_number() >= V.
 *
 * Memory: every allocation of the library goes through one allocator, the C
 * library's unless gguflint_set_allocator installed another (before any
 * other call). Not routed through it: the few tables built once per
 * process and kept until exit (the template analyser's automaton), which
 * come from the C library's malloc so that an allocator can be replaced;
 * and what the C library itself, libcurl and libjansson (URL inputs)
 * allocate.
 *
 * Thread safety: each declaration carries a tag.
 *   [MT: yes]      any thread, any time (static data, pure functions);
 *   [MT: object]   one call at a time on the object it is given (the ctx,
 *                  options, report, fetch options or URL list); calls on
 *                  different objects run on different threads at once;
 *   [MT: readers]  only reads its object: any number of these may run at
 *                  once on one object (a context after gguflint_run), but
 *                  not with a call that changes it;
 *   [MT: no]       process-wide: no other call of the library may run at
 *                  the same time.
 * Apart from the allocator, the library keeps no global state a caller can
 * change; contexts on different threads are independent.
 *
 * Every string in a finding (message, path) is already escaped: bytes from
 * the file that are control characters, bidi controls or invalid UTF-8
 * appear as \xNN or \u{NNNN} escapes, never raw.
 *
 * Stability: the declarations between #ifdef GGUFLINT_UNSTABLE_API and its
 * #endif are exported but not part of the 1.0 promise (docs/ABI.md): they
 * may change or go in any minor release. A caller that wants them defines
 * GGUFLINT_UNSTABLE_API before including this header (as zstd's
 * ZSTD_STATIC_LINKING_ONLY). Everything else is checked against the
 * committed ABI baseline by the ctest abi (tests/check_abi.py).
 *
 * Pointer lifetimes. Nothing returned by the library is owned by the caller
 * unless a _free function exists for it. In particular:
 *   - rule information (gguflint_rule, gguflint_rule_info strings), profile,
 *     severity, status and type names, gguflint_version: static, valid for
 *     the life of the program;
 *   - gguflint_finding pointers and their path/message strings: valid until
 *     the next call that changes the findings of that context
 *     (gguflint_suppress on it, gguflint_check_set with it among the
 *     contexts) or gguflint_free; fetch them again after such a call;
 *   - gguflint_header, gguflint_kv and gguflint_tensor pointers: valid until
 *     gguflint_free of their context;
 *   - gguflint_view pointers (keys, names, string values): point into the
 *     input, so valid while the context lives AND, for gguflint_set_buffer,
 *     while the caller's buffer does;
 *   - gguflint_error_detail: valid until the next call on that context;
 *   - options: gguflint_new copies them, so they may be changed or freed
 *     right after; one options object may serve any number of contexts;
 *   - a base model given with gguflint_set_base is borrowed, not copied: it
 *     must outlive the gguflint_run of every context it was given to.
 *
 * Symbols: every exported name starts with gguflint_ (functions, types) or
 * GGUFLINT_ (macros, enum constants); nothing else is exported by the shared
 * library. */
#ifndef GGUFLINT_H
#define GGUFLINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function of the API is marked GGUFLINT_API: the library is built
 * with hidden visibility, so only these are exported from the shared
 * library (a test checks that nothing else is). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define GGUFLINT_API __attribute__((visibility("default")))
#else
#define GGUFLINT_API
#endif

/* ---- version ----
 * The one home of the version number (CMake reads it from here). The
 * numeric form orders versions: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define GGUFLINT_VERSION_MAJOR 0
#define GGUFLINT_VERSION_MINOR 2
#define GGUFLINT_VERSION_PATCH 3
#define GGUFLINT_VERSION_NUMBER                                                                    \
    (GGUFLINT_VERSION_MAJOR * 10000 + GGUFLINT_VERSION_MINOR * 100 + GGUFLINT_VERSION_PATCH)
#define GGUFLINT_STRINGIFY_(x) #x
#define GGUFLINT_STRINGIFY(x) GGUFLINT_STRINGIFY_(x)
#define GGUFLINT_VERSION                                                                           \
    GGUFLINT_STRINGIFY(GGUFLINT_VERSION_MAJOR)                                                     \
    "." GGUFLINT_STRINGIFY(GGUFLINT_VERSION_MINOR) "." GGUFLINT_STRINGIFY(GGUFLINT_VERSION_PATCH)

/* The version of the library actually linked ("0.1.0" and 100 for 0.1.0),
 * to compare with the header's GGUFLINT_VERSION / GGUFLINT_VERSION_NUMBER. [MT: yes] */
GGUFLINT_API const char *gguflint_version(void);
GGUFLINT_API unsigned gguflint_version_number(void);

/* ---- statuses ---- */
typedef enum gguflint_status {
    GGUFLINT_OK = 0,
    GGUFLINT_E_IO = 1,          /* open/stat/read failed (message in gguflint_error_detail) */
    GGUFLINT_E_NOT_REGULAR = 2, /* a directory, FIFO, device ... given as a path */
    GGUFLINT_E_NOMEM = 3,       /* an allocation failed */
    GGUFLINT_E_STATE = 4,       /* API misuse: no input set, input set twice, ... */
    GGUFLINT_E_ARG = 5,         /* a bad argument (NULL, unknown rule name ...) */
    GGUFLINT_E_INTERNAL = 6     /* a state believed unreachable; fuzzers abort on it */
} gguflint_status;

/* [MT: yes] */
GGUFLINT_API const char *gguflint_strerror(int status);

/* ---- memory ----
 * The allocator every allocation of the library goes through, as three
 * functions and a pointer handed to each: m(user, size) returns a block of
 * at least size bytes (never asked for 0) or NULL; r(user, ptr, size)
 * resizes a block m or r returned (ptr never NULL, size never 0) or returns
 * NULL and leaves it as it was; f(user, ptr) frees one (ptr never NULL).
 * Every block is given back to f by the time the object it belongs to is
 * freed (a context, options, report, ...). Install it before any other call
 * of the library and never while one runs or an object of the library is
 * alive: blocks must go back to the allocator that gave them. All three
 * NULL: back to the C library's malloc, realloc and free. GGUFLINT_OK, or
 * GGUFLINT_E_ARG when only some are NULL. An allocator that fails makes the
 * calls that needed memory return GGUFLINT_E_NOMEM (constructors NULL).
 * [MT: no] */
typedef void *(*gguflint_malloc_fn)(void *user, size_t size);
typedef void *(*gguflint_realloc_fn)(void *user, void *ptr, size_t size);
typedef void (*gguflint_free_fn)(void *user, void *ptr);
GGUFLINT_API int gguflint_set_allocator(gguflint_malloc_fn m, gguflint_realloc_fn r,
                                        gguflint_free_fn f, void *user);

/* ---- rules ---- */
typedef enum gguflint_severity {
    GGUFLINT_OFF = 0,
    GGUFLINT_NOTE = 1,
    GGUFLINT_WARNING = 2,
    GGUFLINT_ERROR = 3
} gguflint_severity;

/* [MT: yes] */
GGUFLINT_API const char *gguflint_severity_name(gguflint_severity s); /* "note" ... */
/* Parses "error", "warning", "note", "off"; returns -1 when unknown. */
GGUFLINT_API int gguflint_severity_parse(const char *s);

typedef struct gguflint_rule_info {
    const char *id;     /* "GG106" */
    const char *slug;   /* "duplicate-key" */
    const char *family; /* "container", "kv", "tensor", "data", "model",
                           "tokenizer", "split", "security" */
    gguflint_severity default_severity;
    const char *summary; /* one line */
    const char *what;    /* documentation: what the rule checks */
    const char *why;     /* which reader breaks, which CVE */
    const char *example; /* a file that triggers it */
    const char *fix;     /* how to fix the writer */
    /* Added in 0.3 (the struct is only ever handed out by pointer, so fields
     * are appended): the CWE that fits the weakness a violation exploits in a
     * reader (0: none), and the SARIF security-severity, a CVSS-like score
     * such as "7.5" (NULL when the rule has none). */
    int cwe;
    const char *security_severity;
} gguflint_rule_info;

/* [MT: yes] */
GGUFLINT_API size_t gguflint_rule_count(void);
/* NULL when index >= gguflint_rule_count(). */
GGUFLINT_API const gguflint_rule_info *gguflint_rule(size_t index);
/* Index of the rule with this id ("GG106", case-insensitive) or slug; -1 if none. */
GGUFLINT_API int gguflint_rule_find(const char *id_or_slug);
/* The anchor of the rule's section in rules/RULES.md ("gg106-duplicate-key")
 * into buf (like snprintf); returns its length, 0 when index is out of range. */
GGUFLINT_API size_t gguflint_rule_anchor(size_t index, char *buf, size_t cap);

/* ---- options ----
 * Options are opaque and changed only through the functions below (as in
 * libspng): the layout is private, so new rules, limits and settings never
 * change the ABI, and the number of rules can grow freely. gguflint_new
 * copies the options it is given. Setters return GGUFLINT_OK, or
 * GGUFLINT_E_ARG for a NULL options pointer or a value out of range. */
typedef struct gguflint_options gguflint_options;

/* New options with every default (profile ggml, each rule at its default
 * severity, the default limits, no data scan); NULL when memory is exhausted.
 * Free with gguflint_options_free. [MT: yes] */
GGUFLINT_API gguflint_options *gguflint_options_new(void);
/* An independent copy (NULL when opt is NULL or memory is exhausted). [MT: readers] */
GGUFLINT_API gguflint_options *gguflint_options_copy(const gguflint_options *opt);
/* [MT: object] */
GGUFLINT_API void gguflint_options_free(gguflint_options *opt);
/* Put every option back to its default. */
GGUFLINT_API void gguflint_options_default(gguflint_options *opt);

/* Limits. Values may only be appended to this enum, never renumbered. */
typedef enum gguflint_limit {
    GGUFLINT_LIMIT_STRING_LEN = 0,   /* any string: longer is GG113 (default 1 GiB, as ggml) */
    GGUFLINT_LIMIT_ARRAY_COUNT = 1,  /* elements of one array: more is GG120 (default 2^30) */
    GGUFLINT_LIMIT_KV_COUNT = 2,     /* declared KVs above this: GG011 (default 100000) */
    GGUFLINT_LIMIT_TENSOR_COUNT = 3, /* declared tensors above this: GG012 (default 10000000) */
    GGUFLINT_LIMIT_DEPTH = 4,        /* array nesting levels walked (default 4; at most 2^32-1,
                                       0 counts as 1, walking stops at 64 whatever the value) */
    GGUFLINT_LIMIT_FINDINGS_PER_RULE = 5, /* findings kept per rule and file, the rest
                                             counted (default 100; at most 2^32-1, 0 counts
                                             as 1) */
    GGUFLINT_LIMIT__COUNT
} gguflint_limit;

/* [MT: object] */
GGUFLINT_API int gguflint_options_set_limit(gguflint_options *opt, gguflint_limit limit,
                                            uint64_t value);
/* A limit's value (0 for NULL options or an unknown limit). [MT: readers] */
GGUFLINT_API uint64_t gguflint_options_get_limit(const gguflint_options *opt, gguflint_limit limit);
/* A limit's default (0 for an unknown limit). [MT: yes] */
GGUFLINT_API uint64_t gguflint_limit_default(gguflint_limit limit);

/* Read the data section too: tensor values, block scales, padding (--deep). [MT: object] */
GGUFLINT_API int gguflint_options_set_deep(gguflint_options *opt, bool deep);
/* [MT: readers] */
GGUFLINT_API bool gguflint_options_get_deep(const gguflint_options *opt);
/* Threads for the data scan of one file (0 or 1: the calling thread only). [MT: object] */
GGUFLINT_API int gguflint_options_set_deep_jobs(gguflint_options *opt, uint32_t jobs);
/* [MT: readers] */
GGUFLINT_API uint32_t gguflint_options_get_deep_jobs(const gguflint_options *opt);
/* The input may be the start of a larger file (a partial download): checks
 * that need the data section's bytes are reported once as not checked
 * (GG304), not as errors. [MT: object] */
GGUFLINT_API int gguflint_options_set_header_only(gguflint_options *opt, bool header_only);
/* [MT: readers] */
GGUFLINT_API bool gguflint_options_get_header_only(const gguflint_options *opt);
#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* The caller found a configuration file near the inputs (not one it was
 * told to use) that turns off security checks, and did not apply it: every
 * run reports GG800 (config-refused) at offset 0 so the refusal is never
 * only a line on standard error. [MT: object] */
GGUFLINT_API int gguflint_options_set_config_refused(gguflint_options *opt, bool refused);
/* The caller guards SIGBUS on the thread that runs the context (the CLI
 * does: a file truncated under a mapping faults): with deep_jobs <= 1, the
 * --deep scan of a mapped file reads its data through the mapping, without
 * the copy a pread makes (the file's size checked before each piece, so a
 * file cut before a piece is read is an I/O status, and a cut during one a
 * SIGBUS; the pages given back behind the scan). Off (pread into one reused
 * buffer, the reference twin) by default; the findings are the same either
 * way. [MT: object] */
GGUFLINT_API int gguflint_options_set_deep_map(gguflint_options *opt, bool on);
/* [MT: readers] */
GGUFLINT_API bool gguflint_options_get_deep_map(const gguflint_options *opt);
#endif /* GGUFLINT_UNSTABLE_API */

/* Apply a profile: every rule back to its default, then the profile's
 * overrides. Profiles: "ggml" (the default: what llama.cpp's reader accepts),
 * "spec" (what docs/gguf.md allows), "strict" (the canonical output of a good
 * writer), "security" (untrusted downloads). GGUFLINT_E_ARG if unknown. [MT: object] */
GGUFLINT_API int gguflint_options_profile(gguflint_options *opt, const char *name);
/* The name of the profile applied last ("ggml" by default). [MT: readers] */
GGUFLINT_API const char *gguflint_options_get_profile(const gguflint_options *opt);
/* Profile names by index (NULL past the last) and a rule's severity in one. [MT: yes] */
GGUFLINT_API const char *gguflint_profile_name(size_t index);
GGUFLINT_API gguflint_severity gguflint_rule_profile_severity(size_t rule, size_t profile);

/* Enable (`on`) or disable the rules named by a comma-separated list of ids,
 * id prefixes ("GG1"), slugs, families ("kv") or "ALL". Enabling restores the
 * rule's severity in the applied profile. Returns GGUFLINT_E_ARG for an
 * unknown item, with the item copied into `bad` (if non-NULL). [MT: object] */
GGUFLINT_API int gguflint_options_select(gguflint_options *opt, const char *list, bool on,
                                         char *bad, size_t bad_size);
/* Disable every rule (the start of an exclusive --select). */
GGUFLINT_API void gguflint_options_clear(gguflint_options *opt);
/* Set the severity of the rules named by `name` (same forms as select). */
GGUFLINT_API int gguflint_options_set_severity(gguflint_options *opt, const char *name,
                                               gguflint_severity sev);
/* The effective severity of rule index `rule` (GGUFLINT_OFF: disabled, or
 * no such rule). [MT: readers] */
GGUFLINT_API gguflint_severity gguflint_options_get_severity(const gguflint_options *opt,
                                                             size_t rule);

/* ---- context and input ---- */
typedef struct gguflint_ctx gguflint_ctx;

/* NULL only when memory is exhausted. `opt` may be NULL for defaults; it is
 * copied (later changes to it do not affect this context). [MT: readers] */
GGUFLINT_API gguflint_ctx *gguflint_new(const gguflint_options *opt);
/* [MT: object] */
GGUFLINT_API void gguflint_free(gguflint_ctx *ctx);

/* Map a regular file read-only (64-bit sizes; only touched pages are read).
 * gguflint_run fails with GGUFLINT_E_IO if the file has shrunk since it was
 * opened. A file truncated by another process *during* a run makes reads of
 * its mapping raise SIGBUS, as with any mapping: a program that lints files
 * others may be rewriting should guard SIGBUS (the gguflint CLI does) or read
 * the file into a buffer and use gguflint_set_buffer. [MT: object] */
GGUFLINT_API int gguflint_open_file(gguflint_ctx *ctx, const char *path);
/* Borrow a caller's buffer; it is never written and must outlive the ctx
 * (views into it are handed out until gguflint_free). */
GGUFLINT_API int gguflint_set_buffer(gguflint_ctx *ctx, const void *data, size_t size);
/* Read a stream (e.g. stdin) into memory, at most `max_bytes`; a longer stream
 * is read only up to that bound and reported as truncated input. */
GGUFLINT_API int gguflint_read_stream(gguflint_ctx *ctx, FILE *stream, uint64_t max_bytes);
/* A caller's random-access input: a remote file, an archive member, a file
 * of a store that is not mapped. The library reads the metadata into memory
 * through read_at - a first read of first_read bytes, then geometrically
 * larger reads while the metadata goes on, at most max_prefix bytes in all -
 * and reads any other range (padding, --deep tensor data) through it when a
 * check asks. Every check that needs the file's size uses `size`, so a
 * reader input gives exactly the findings of the same file read locally. */
typedef struct gguflint_reader {
    size_t struct_size; /* sizeof(gguflint_reader) as the caller sees it:
                           set by GGUFLINT_READER_INIT */
    uint64_t size;      /* the file's total size in bytes */
    /* Fill buf with exactly len bytes at offset (offset + len <= size) and
     * return GGUFLINT_OK, or a failing status with a one-line reason in err.
     * Called from several threads at once by a --deep scan with deep_jobs. */
    int (*read_at)(void *user, uint64_t offset, void *buf, size_t len, char *err, size_t err_size);
    void (*close)(void *user); /* may be NULL */
    void *user;
    uint64_t first_read; /* bytes of the first read; 0: 2 MiB */
    uint64_t max_prefix; /* most bytes held for the metadata; 0: 256 MiB. A file
                            whose metadata goes on past it fails with
                            GGUFLINT_E_IO ("metadata larger than ...") */
} gguflint_reader;

/* Every field zero but struct_size: gguflint_reader r = GGUFLINT_READER_INIT; */
#define GGUFLINT_READER_INIT                                                                       \
    {                                                                                              \
        sizeof(gguflint_reader), 0, NULL, NULL, NULL, 0, 0                                         \
    }

/* Use a reader as the input. The metadata is read now: an I/O failure or a
 * metadata larger than max_prefix is this call's status. The context owns
 * `user` from this call on, whatever it returns: close(user) is called once,
 * by gguflint_free, or before this call returns when the input was refused.
 * GGUFLINT_E_ARG for a NULL ctx or read_at, or a struct_size below the first
 * published layout (then close is not called: the struct cannot be read). [MT: object] */
GGUFLINT_API int gguflint_open_reader(gguflint_ctx *ctx, const gguflint_reader *reader);
#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* Bytes of the input at `offset`, whatever the input is (a mapped file, a
 * buffer, a stream, a reader: ranges of a remote file). GGUFLINT_E_IO past
 * its end or when the read fails (reason in gguflint_error_detail); the
 * status is not sticky. For `gguflint hash` and other data readers. */
GGUFLINT_API int gguflint_read(gguflint_ctx *ctx, uint64_t offset, void *buf, size_t len);
#endif /* GGUFLINT_UNSTABLE_API */
/* The file's name for checks that read it (the quantisation tag in
 * "model-Q4_K_M.gguf", split shard numbers). gguflint_open_file sets it from
 * the path unless it was set before. Copied. */
GGUFLINT_API int gguflint_set_name(gguflint_ctx *ctx, const char *name);
/* The one-line text of the context's last failing status ("No such file or
 * directory", "the metadata goes on past the ... fetch cap"); "" when none. [MT: readers] */
GGUFLINT_API const char *gguflint_error_detail(const gguflint_ctx *ctx);

/* Parse and run every enabled check. Idempotent: a second call does nothing. [MT: object] */
GGUFLINT_API int gguflint_run(gguflint_ctx *ctx);

/* Validate a split set: the shards of one model (`-00001-of-0000N.gguf`), each
 * already run. Findings (missing or extra shards, a tensor in two shards, a
 * tensor total that differs from split.tensors.count, model metadata outside
 * the first shard) are added to the context of the shard holding the field.
 * ctxs may be in any order. Invalidates finding pointers fetched before from
 * any of the contexts. [MT: object] */
GGUFLINT_API int gguflint_check_set(gguflint_ctx *const *ctxs, size_t n);

#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* Validate the files of one model given together: its quantisations (the
 * same directory and model-name stem, see gguflint_model_stem) and the
 * shards of a split set, each already run, in any order. Every chat template
 * (tokenizer.chat_template and tokenizer.chat_template.*) must be the same
 * in each file that has it: a file whose value differs from the one most
 * files hold gets GG744 at that value. Invalidates finding pointers fetched
 * before from any of the contexts. [MT: object] */
GGUFLINT_API int gguflint_check_family(gguflint_ctx *const *ctxs, size_t n);

/* ---- a LoRA adapter against its base model ----
 * llama.cpp loads a LoRA adapter onto a model (llama_adapter_lora_init) and
 * refuses it when the two do not fit: another architecture, a target tensor
 * the model lacks, halves whose outer dimensions are not the model tensor's.
 * An adapter alone says little about its base (convert_lora_to_gguf.py
 * writes only adapter.lora.alpha), so these checks need the base itself.
 *
 * gguflint_set_base(ctx, base) makes gguflint_run(ctx) check the adapter in
 * ctx against `base`: another context whose input is the base model, already
 * run with GGUFLINT_OK (only its header, KVs and tensor infos are read; give
 * it options with every rule off, gguflint_options_clear, when its own
 * findings are not wanted). The base is borrowed, never copied: it must
 * outlive every gguflint_run of a context it was given to (and ctx's reports
 * that read findings, which never point into it), and nothing may change it
 * meanwhile (gguflint_suppress, gguflint_check_set, gguflint_free). Runs only
 * read it, so one base may serve many contexts on different threads at once.
 * Call it before gguflint_run(ctx), with or without the input set. A file
 * that is not a LoRA adapter (general.type is not "adapter", or it has no
 * adapter keys and no lora_a/lora_b tensors) is linted as usual and the base
 * is not used. Returns GGUFLINT_OK; GGUFLINT_E_ARG for a NULL pointer, base
 * == ctx, or a base that cannot serve (gguflint_base_problem says why);
 * GGUFLINT_E_STATE when ctx has already run. A failure is not sticky: ctx
 * stays usable, without a base. [MT: object] */
GGUFLINT_API int gguflint_set_base(gguflint_ctx *ctx, const gguflint_ctx *base);

/* Why `base` cannot serve as the base model of gguflint_set_base, as one
 * static line ("it has not been run", "it is a LoRA adapter, not a model",
 * ...), or NULL when it can. A base must have run with GGUFLINT_OK, be GGUF
 * whose metadata was read to the end, carry general.architecture as a
 * string, not be a projector (clip), an adapter or a control vector, have
 * tensors, and not be one shard of a split model (split.count > 1: its
 * tensors are spread over files; not supported yet). [MT: readers] */
GGUFLINT_API const char *gguflint_base_problem(const gguflint_ctx *base);

/* The model-name stem of a GGUF file name, for grouping the files given to
 * gguflint_check_family: the path without ".gguf", without a split suffix
 * "-NNNNN-of-MMMMM" and without the quantisation tag and the delimiter
 * before it ("dir/Model-7B-Q4_K_M.gguf" and "dir/Model-7B.Q8_0.gguf" are both
 * "dir/Model-7B"). Returns its length (written NUL-terminated to buf when
 * cap is larger), 0 when the name has neither a tag nor a split suffix. [MT: yes] */
GGUFLINT_API size_t gguflint_model_stem(const char *path, char *buf, size_t cap);
#endif /* GGUFLINT_UNSTABLE_API */

#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* ---- URL inputs: http://, https:// and hf://ORG/REPO[@REV][/PATH] ---- */
/* Remote files are linted without downloading them: the metadata is read
 * with HTTP range requests (libcurl, loaded when the first URL is opened)
 * and the data section only when --deep asks. hf://ORG/REPO[@REV]/PATH.gguf
 * is the file ENDPOINT/ORG/REPO/resolve/REV/PATH (REV defaults to main);
 * hf://ORG/REPO[@REV][/FOLDER] names the .gguf files of a repository, listed
 * with gguflint_url_list. Redirects are followed for http and https only,
 * never from https to http; TLS certificates are always verified; the Hub
 * token and extra headers go to the origin (scheme, host, port) of the URL
 * opened, never to a redirect target elsewhere; 429 and 5xx are retried;
 * every range must come back exactly as asked and from the same version of
 * the file (ETag, If-Range, size): anything else is GGUFLINT_E_IO with a
 * one-line reason in gguflint_error_detail. */

/* False when this build has no URL support (libcurl's headers or libjansson
 * were missing); URL calls then fail with GGUFLINT_E_ARG. [MT: yes] */
GGUFLINT_API bool gguflint_url_supported(void);
/* 0: not a URL (a path); 1: the URL of one file (http://, https://, or
 * hf://... ending in .gguf); 2: an hf:// repository or folder to list.
 * Syntax only: no request is made. */
GGUFLINT_API int gguflint_url_kind(const char *name);

typedef struct gguflint_fetch_options gguflint_fetch_options;
/* Defaults: a first range of 2 MiB, a cap of 256 MiB of metadata, 3 retries
 * from 500 ms, a 10 s connect and a 30 s stall timeout, at most 10 redirects;
 * the Hub at $HF_ENDPOINT (else https://huggingface.co) and the token
 * $HF_TOKEN (sent as "Authorization: Bearer" to the Hub's origin only).
 * NULL only when memory is exhausted. [MT: yes] */
GGUFLINT_API gguflint_fetch_options *gguflint_fetch_options_new(void);
/* [MT: object] */
GGUFLINT_API void gguflint_fetch_options_free(gguflint_fetch_options *fo);
typedef enum gguflint_fetch_setting {
    GGUFLINT_FETCH_FIRST_RANGE = 0, /* bytes of the first request (>= 64) */
    GGUFLINT_FETCH_MAX_BYTES = 1,   /* cap on the metadata held (and on one API page) */
    GGUFLINT_FETCH_RETRIES = 2,     /* extra attempts after 429 / 5xx (<= 20) */
    GGUFLINT_FETCH_BACKOFF_MS = 3,  /* first retry delay, doubled each time */
    GGUFLINT_FETCH_CONNECT_TIMEOUT_MS = 4,
    GGUFLINT_FETCH_TIMEOUT_MS = 5, /* a request that receives nothing this long fails */
    GGUFLINT_FETCH_MAX_REDIRECTS = 6,
    /* a request, its redirects, retries and Retry-After waits included, ends
     * after this however slowly its bytes come (default 300 s; 0: none) */
    GGUFLINT_FETCH_DEADLINE_MS = 7,
    /* all the requests of one remote file (default 1800 s; 0: none) */
    GGUFLINT_FETCH_FILE_DEADLINE_MS = 8
} gguflint_fetch_setting;
/* GGUFLINT_E_ARG for an unknown setting or a value out of range. */
GGUFLINT_API int gguflint_fetch_set(gguflint_fetch_options *fo, gguflint_fetch_setting what,
                                    uint64_t value);
/* A flag the caller may set non-zero from any thread to end every request
 * of URLs opened with these options soon (within about a second: transfers
 * and Retry-After waits check it), so an attempt the caller gave up on does
 * not keep running. The int must outlive the contexts opened. NULL: none. */
GGUFLINT_API int gguflint_fetch_set_cancel(gguflint_fetch_options *fo, const volatile int *flag);
/* Add a request header "Name: value" (printable ASCII, at most 32 headers),
 * sent to the origin of each URL opened with these options only. */
GGUFLINT_API int gguflint_fetch_add_header(gguflint_fetch_options *fo, const char *line);
/* The Hub's endpoint (an http(s) URL) and token; NULL keeps the current
 * value, "" removes the token. */
GGUFLINT_API int gguflint_fetch_set_hub(gguflint_fetch_options *fo, const char *endpoint,
                                        const char *token);

/* Open the file at `url` (kind 1). fo may be NULL for the defaults. The
 * metadata is fetched now; the context's name (for name-based checks) is the
 * URL without its query, unless set before. [MT: object] */
GGUFLINT_API int gguflint_open_url(gguflint_ctx *ctx, const char *url,
                                   const gguflint_fetch_options *fo);
/* For a URL input: the URL fetched (hf:// resolved), body bytes received and
 * HTTP requests made so far (redirects and retries included). False (and
 * nothing written) for other inputs. [MT: readers] */
GGUFLINT_API bool gguflint_fetch_stats(const gguflint_ctx *ctx, const char **url,
                                       uint64_t *bytes_fetched, uint64_t *requests);
/* For a URL input: false when the server ignored Range requests and sent the
 * whole file, which was then read from its start up to the fetch cap (the
 * metadata is complete, or the open failed); true otherwise. */
GGUFLINT_API bool gguflint_fetch_ranges(const gguflint_ctx *ctx);

/* The .gguf files named by an hf:// reference of kind 2 (or the one file of
 * kind 1), sorted by path, as hf://ORG/REPO@REV/PATH URLs. */
typedef struct gguflint_url_list gguflint_url_list;
/* [MT: readers] */
GGUFLINT_API int gguflint_url_list_new(const char *ref, const gguflint_fetch_options *fo,
                                       gguflint_url_list **out, char *err, size_t err_size);
GGUFLINT_API size_t gguflint_url_list_count(const gguflint_url_list *l);
GGUFLINT_API const char *gguflint_url_list_get(const gguflint_url_list *l,
                                               size_t i); /* NULL past the end */
GGUFLINT_API uint64_t gguflint_url_list_size(const gguflint_url_list *l, size_t i); /* as listed */
/* Bytes received and requests made to list. */
GGUFLINT_API void gguflint_url_list_stats(const gguflint_url_list *l, uint64_t *bytes,
                                          uint64_t *requests);
/* [MT: object] */
GGUFLINT_API void gguflint_url_list_free(gguflint_url_list *l);
#endif /* GGUFLINT_UNSTABLE_API */

/* ---- findings ---- */
typedef struct gguflint_finding {
    int rule;                   /* rule index, see gguflint_rule() */
    gguflint_severity severity; /* effective severity */
    uint64_t offset;            /* byte offset of the offending field */
    uint64_t length;            /* its length in bytes (0 when it is a position) */
    const char *path;           /* logical path: kv["general.alignment"], tensor[17].ne[1] */
    const char *message;        /* escaped, one line */
} gguflint_finding;

/* Remove the published findings of one rule (per-path ignores of a config
 * file); returns how many were removed. Invalidates finding pointers of ctx
 * fetched before (see "Pointer lifetimes" above). [MT: object] */
GGUFLINT_API size_t gguflint_suppress(gguflint_ctx *ctx, size_t rule);
/* The stable fingerprint of each finding of ctx into out[0..n) (n must be
 * gguflint_finding_count): a hash of the rule, the path (lexically
 * normalised: pass the one gguflint_path_normalize gives against the
 * working directory), the logical path, and the finding's subject (the KV by
 * key, the tensor info by name, the header, data section or end of the file)
 * with the offset relative to that subject, then the finding's order among
 * findings equal in all of these. Byte offsets that move when an earlier
 * string grows do not change it. GGUFLINT_OK, E_ARG, or E_NOMEM. [MT: readers] */
GGUFLINT_API int gguflint_finding_fingerprints(const gguflint_ctx *ctx, const char *path,
                                               uint64_t *out, size_t n);
/* The lexical normal form of a path, as fingerprints and config ignores see
 * it: empty and "." components dropped, "dir/.." folded (a relative path
 * keeps leading ".."), repeated and trailing '/' removed, "" -> "."; an
 * absolute path below the absolute directory `base` (NULL: none) made
 * relative to it. URLs are returned unchanged. Writes at most cap bytes
 * with a NUL (like snprintf) and returns the full length. [MT: yes] */
GGUFLINT_API size_t gguflint_path_normalize(const char *path, const char *base, char *buf,
                                            size_t cap);
/* [MT: readers] */
GGUFLINT_API size_t gguflint_finding_count(const gguflint_ctx *ctx);
GGUFLINT_API const gguflint_finding *gguflint_finding_get(const gguflint_ctx *ctx, size_t i);
/* Findings of a rule past max_findings_per_rule, counted but not kept. */
GGUFLINT_API uint64_t gguflint_findings_dropped(const gguflint_ctx *ctx);
/* Highest severity among the kept findings (GGUFLINT_OFF when none). */
GGUFLINT_API gguflint_severity gguflint_max_severity(const gguflint_ctx *ctx);

/* ---- the parsed model (valid after gguflint_run) ---- */
typedef struct gguflint_view {
    const uint8_t *ptr; /* into the input; not NUL-terminated */
    uint64_t len;
} gguflint_view;

typedef struct gguflint_header {
    uint64_t file_size;
    bool is_gguf;     /* the magic was recognised and a version read */
    uint32_t version; /* as interpreted (byte order applied) */
    bool big_endian;
    uint64_t tensor_count;   /* as declared */
    uint64_t kv_count;       /* as declared */
    uint64_t kv_parsed;      /* KVs read completely */
    uint64_t tensors_parsed; /* tensor infos read completely */
    uint64_t alignment;      /* effective alignment (32 when absent or unusable) */
    bool metadata_complete;  /* every KV and tensor info was read */
    uint64_t metadata_end;   /* offset just past the last tensor info read */
    uint64_t data_start;     /* start of the data section (valid if metadata_complete) */
    /* A cut input (a partial download, --header-only): complete is false when
     * the input ends inside the metadata, and bytes_needed is then a lower
     * bound on the input size at which reading can go on (fetch at least that
     * much and run again). When complete is true, bytes_needed is the end of
     * the metadata (header, KVs and tensor infos; not the data padding), or 0
     * for an input that is not GGUF. */
    bool complete;
    uint64_t bytes_needed;
} gguflint_header;

typedef struct gguflint_kv {
    gguflint_view key;
    uint64_t offset;       /* of the key's length field */
    uint32_t type;         /* value type 0..12 */
    uint64_t value_offset; /* first byte of the value */
    uint64_t value_size;   /* bytes of the whole value */
    uint32_t elem_type;    /* arrays: element type */
    uint64_t count;        /* arrays: element count */
    /* Scalars, decoded in the file's byte order: */
    uint64_t u;        /* unsigned types and bool */
    int64_t i;         /* signed types (sign-extended) */
    double f;          /* f32 / f64 */
    gguflint_view str; /* strings */
} gguflint_kv;

typedef struct gguflint_tensor {
    gguflint_view name;
    uint64_t info_offset; /* of the name's length field */
    uint32_t n_dims;      /* as declared */
    uint64_t ne[4];       /* dims (1 beyond n_dims); raw u64 bit patterns */
    uint32_t type;        /* ggml type id */
    uint64_t offset;      /* relative to the data section */
    uint64_t nbytes;      /* computed byte size (valid when size_ok) */
    bool size_ok;         /* type known, dims sane, no overflow */
} gguflint_tensor;

/* [MT: readers] */
GGUFLINT_API const gguflint_header *gguflint_get_header(const gguflint_ctx *ctx);
#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* Bytes of memory the context holds on the heap (records, indexes, findings,
 * a stream's buffer): what keeping it alive costs. Pages of a mapped file
 * are given back at the end of gguflint_run and not counted. The CLI bounds
 * the contexts waiting to be reported under -j by this. */
GGUFLINT_API size_t gguflint_memory_used(const gguflint_ctx *ctx);
#endif /* GGUFLINT_UNSTABLE_API */
GGUFLINT_API size_t gguflint_kv_count(const gguflint_ctx *ctx);
GGUFLINT_API const gguflint_kv *gguflint_kv_get(const gguflint_ctx *ctx, size_t i);
/* Index of the first KV with this exact key, or -1. */
GGUFLINT_API long gguflint_kv_find(const gguflint_ctx *ctx, const char *key);
GGUFLINT_API size_t gguflint_tensor_count(const gguflint_ctx *ctx);
GGUFLINT_API const gguflint_tensor *gguflint_tensor_get(const gguflint_ctx *ctx, size_t i);
/* Name of a value type ("u32") or of a ggml type ("q4_K"); NULL when unknown. [MT: yes] */
GGUFLINT_API const char *gguflint_value_type_name(uint32_t type);
GGUFLINT_API const char *gguflint_ggml_type_name(uint32_t type);

/* ---- output ---- */
/* Everything is written through a callback, so output can go to a FILE*, a
 * memory buffer (fuzzers) or anywhere else. */
typedef void (*gguflint_write_fn)(void *user, const char *data, size_t len);

/* Escape untrusted bytes for a terminal: printable ASCII and valid non-control
 * UTF-8 are kept; control characters, ESC, DEL, bidi and zero-width controls and
 * invalid UTF-8 become \xNN / \u{NNNN}; backslash becomes \\. [MT: yes] */
GGUFLINT_API void gguflint_escape(gguflint_write_fn w, void *user, const void *data, size_t len);

/* Write bytes as a JSON string, quotes included: the one JSON string writer of
 * gguflint (its reports, dump and the CLI's manifests all use it). Valid UTF-8
 * is exact: it decodes (jq, Python, any RFC 8259 reader) to the same code
 * points - kept as UTF-8, or written as \uXXXX (a surrogate pair above U+FFFF)
 * when the code point must not reach a terminal raw (controls, DEL, bidi,
 * zero-width and tag characters). Bytes that are not UTF-8 have no JSON
 * form: each is written as \u00XX, which decodes to U+00XX (so a consumer
 * that needs the bytes needs another field, e.g. the manifests' name_hex). [MT: yes] */
GGUFLINT_API void gguflint_json_string(gguflint_write_fn w, void *user, const void *data,
                                       size_t len);

typedef enum gguflint_format {
    GGUFLINT_FORMAT_TEXT = 0,
    GGUFLINT_FORMAT_JSON = 1,
    GGUFLINT_FORMAT_SARIF = 2,    /* SARIF 2.1.0, one run (lint reports only) */
    GGUFLINT_FORMAT_GITHUB = 3,   /* GitHub Actions workflow annotations (lint reports only) */
    GGUFLINT_FORMAT_BASELINE = 4, /* a baseline: one line per finding with its fingerprint */
    GGUFLINT_FORMAT_CYCLONEDX = 5 /* a CycloneDX 1.6 ML-BOM, one component per file (lint
                                     reports only; the run's findings as vulnerabilities) */
} gguflint_format;

/* A report over several files: begin, one call per file, end. A file that
 * could not be read (status != OK) is recorded in JSON with its error; in text
 * the caller prints such errors itself (to stderr). */
typedef struct gguflint_report gguflint_report;
/* [MT: yes] */
GGUFLINT_API gguflint_report *gguflint_report_new(gguflint_format fmt, gguflint_write_fn w,
                                                  void *user);
/* display_path: the name shown (as given). ctx may carry a failing status. [MT: object] */
GGUFLINT_API void gguflint_report_file(gguflint_report *r, const char *display_path,
                                       const gguflint_ctx *ctx, int status);
#ifdef GGUFLINT_UNSTABLE_API /* not promised for 1.0: docs/ABI.md */
/* gguflint_report_file, plus: `baselined` (NULL, or one flag per finding of
 * ctx): findings left out of the report and counted as baselined (the
 * baseline format writes them all the same); `sha256` (NULL, or the file's
 * SHA-256 as 64 lowercase hex digits): recorded by JSON as "sha256". */
GGUFLINT_API void gguflint_report_file_ex(gguflint_report *r, const char *display_path,
                                          const gguflint_ctx *ctx, int status,
                                          const bool *baselined, const char *sha256);
#endif /* GGUFLINT_UNSTABLE_API */
/* An input that could not even be opened as a context (an hf:// listing that
 * failed): recorded like a file whose status is `status`, with `detail`. */
GGUFLINT_API void gguflint_report_failure(gguflint_report *r, const char *display_path, int status,
                                          const char *detail);
/* Report settings (set after gguflint_report_new, before the first file).
 * Values may only be appended to this enum. */
typedef enum gguflint_report_setting {
    GGUFLINT_REPORT_COLOR = 0,        /* text: ANSI colours for severities (default 0: none) */
    GGUFLINT_REPORT_STATISTICS = 1,   /* text and JSON: findings counted per rule (default 0) */
    GGUFLINT_REPORT_BASELINE_GONE = 2 /* baseline entries no finding matched (summary; default 0) */
} gguflint_report_setting;
/* GGUFLINT_OK, or GGUFLINT_E_ARG for an unknown setting or a NULL report;
 * formats a setting does not apply to ignore it. */
GGUFLINT_API int gguflint_report_set(gguflint_report *r, gguflint_report_setting setting,
                                     int value);
/* Name the configuration file the run used (NULL: none), before
 * gguflint_report_end: every report says it (text: in the summary line;
 * JSON: "config"; SARIF: the run's properties.config), so a configuration
 * that turned rules off is never silent. Copied. */
GGUFLINT_API int gguflint_report_set_config(gguflint_report *r, const char *config_path);
/* The absolute directory relative display paths are relative to (the
 * working directory): SARIF names it as originalUriBaseIds.SRCROOT, and a
 * display path below it is reported (and fingerprinted) relative to it, so
 * /repo/models/x.gguf run from /repo and ./models/x.gguf are one artifact.
 * NULL or a relative dir: none. Copied. */
GGUFLINT_API int gguflint_report_set_base(gguflint_report *r, const char *dir);
/* SARIF: the absolute URL of the rule documentation (rules/RULES.md where
 * the sources are published); each rule's helpUri is URL#anchor. NULL or
 * "": no helpUri (help.markdown still names the section). Copied. */
GGUFLINT_API int gguflint_report_set_help_uri(gguflint_report *r, const char *url);
/* The three setters above return GGUFLINT_OK, GGUFLINT_E_ARG for a NULL
 * report, or GGUFLINT_E_NOMEM when the copy failed (the setting is then
 * unset, and gguflint_report_end returns GGUFLINT_E_NOMEM too). */

/* Closes the JSON document; in text prints the summary line when `summary`.
 * Returns GGUFLINT_OK, GGUFLINT_E_ARG for a NULL report, or GGUFLINT_E_NOMEM
 * when an allocation of this report's calls failed (some of its output,
 * e.g. statistics or fingerprints, is then missing). [MT: object] */
GGUFLINT_API int gguflint_report_end(gguflint_report *r, bool summary);
GGUFLINT_API void gguflint_report_free(gguflint_report *r);

/* The dump command: header, every KV with its type and value (arrays with count
 * and first elements), the tensor table. [MT: readers] */
GGUFLINT_API void gguflint_dump(const gguflint_ctx *ctx, gguflint_format fmt, gguflint_write_fn w,
                                void *user);
/* The same, showing at most max_elems elements of each array (0: all of
 * them; gguflint_dump shows 8). The walk is bounded by the value's bytes. */
GGUFLINT_API void gguflint_dump_ex(const gguflint_ctx *ctx, gguflint_format fmt,
                                   gguflint_write_fn w, void *user, uint64_t max_elems);

/* Rule documentation as Markdown (the RULES.md file) and as one rule's text. [MT: yes] */
GGUFLINT_API void gguflint_rules_markdown(gguflint_write_fn w, void *user);
/* The rule table as JSON: {"schema_version":1,"tool":{"name","version"},
 * "profiles":[...],"rules":[{"id","slug","family","default_severity",
 * "severity":{profile: level},"summary","what","why","example","fix","cwe",
 * "security_severity"}]}; fields are only ever added. */
GGUFLINT_API void gguflint_rules_json(gguflint_write_fn w, void *user);
GGUFLINT_API void gguflint_rule_explain(size_t index, gguflint_write_fn w, void *user);

/* ---- architectures ----
 * What gguflint knows of each llama.cpp architecture, from the tables
 * generated out of llama.cpp's loader (data/arch/). */
typedef struct gguflint_arch_info {
    size_t struct_size;        /* sizeof(gguflint_arch_info) as the caller sees
                                  it: set by GGUFLINT_ARCH_INFO_INIT */
    const char *name;          /* the general.architecture value */
    const char *coverage;      /* "full" (keys, tensor set and shapes), "keys"
                                  (hyper-parameter keys only) or "name" */
    size_t key_count;          /* [arch].* keys its own loader code reads (the
                                  keys every loader reads are not counted) */
    size_t tensor_count;       /* tensor rows (create_tensor calls) */
    const char *source;        /* llama.cpp file its tables came from, or NULL */
    const char *source_commit; /* that file's commit, or NULL */
} gguflint_arch_info;

/* Every field zero but struct_size: gguflint_arch_info a = GGUFLINT_ARCH_INFO_INIT; */
#define GGUFLINT_ARCH_INFO_INIT                                                                    \
    {                                                                                              \
        sizeof(gguflint_arch_info), NULL, NULL, 0, 0, NULL, NULL                                   \
    }

/* [MT: yes] */
GGUFLINT_API size_t gguflint_arch_count(void);
/* Fills the first out->struct_size bytes of *out (struct_size itself is
 * kept) for index < gguflint_arch_count() and returns GGUFLINT_OK;
 * GGUFLINT_E_ARG for an index past the end, a NULL out or a struct_size
 * smaller than the first published gguflint_arch_info (0.3). */
GGUFLINT_API int gguflint_arch_get(size_t index, gguflint_arch_info *out);
/* The llama.cpp file the architecture names came from and its commit. */
GGUFLINT_API const char *gguflint_arch_names_source(void);
GGUFLINT_API const char *gguflint_arch_names_commit(void);
/* The stamp of the tables: the date (YYYY-MM-DD) and build (`git describe`
 * of the tree, e.g. "b10573-14", or "") of the llama.cpp tree every table
 * was generated from; its commit is gguflint_arch_names_commit(). */
GGUFLINT_API const char *gguflint_arch_tables_date(void);
GGUFLINT_API const char *gguflint_arch_tables_build(void);

/* A write callback for FILE* (user is the FILE*). [MT: yes] */
GGUFLINT_API void gguflint_write_file(void *user, const char *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif

/* internal.h - the context and the helpers shared by the library's files.
 * Not installed; the CLI must not include it. */
#ifndef GGUFLINT_INTERNAL_H
#define GGUFLINT_INTERNAL_H

#include "gguflint.h"

#include "common/utf8.h"

#include <stdarg.h>

/* Rule indexes, expanded from rules/rules.def. */
enum {
#define RULE(name, ...) R_##name,
#include "../../rules/rules.def"
#undef RULE
    R__COUNT
};
_Static_assert(R__COUNT <= GGUFLINT_MAX_RULES, "too many rules");

/* A growable byte buffer for messages and paths (arena of NUL-terminated strings). */
typedef struct sbuf {
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; contents are incomplete */
} sbuf;

void sb_put(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
void sb_term(sbuf *b);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void sb_free(sbuf *b);
/* Append untrusted bytes escaped for display (see gguflint_escape). */
void sb_escape(sbuf *b, const void *data, size_t len);
/* Write library text (messages, paths: already escaped) for a terminal,
 * escaping any unsafe byte again but leaving backslashes as they are. */
void safe_text(gguflint_write_fn w, void *user, const char *s, size_t len);
/* Append a string for JSON (quotes included), escaping exactly per RFC 8259;
 * invalid UTF-8 becomes U+FFFD-free \u00XX-style escapes of each byte. */
/* (Not json_string: that is libjansson's, linked into the same programs.) */
void json_quote(gguflint_write_fn w, void *user, const char *s, size_t len);
void json_quote_sb(sbuf *b, const char *s, size_t len);

/* A finding as stored: message and path are offsets into ctx->text. */
typedef struct finding_rec {
    int rule;
    gguflint_severity severity;
    uint64_t offset, length;
    size_t path_off, msg_off;
} finding_rec;

typedef struct kv_rec {
    gguflint_kv pub;
} kv_rec;

struct gguflint_ctx {
    gguflint_options opt;
    int status;          /* sticky failing status */
    bool input_set, ran;
    /* input: the file is `size` bytes; its first `avail` bytes are at `data`
     * (avail == size except for a reader input, which holds only the metadata
     * and reads the rest through `reader`, see source_read) */
    const uint8_t *data;
    uint64_t size;
    uint64_t avail;
    gguflint_reader reader; /* reader inputs: read_at != NULL */
    /* The parse ran out of the `avail` bytes before the metadata ended, in a
     * file that goes on (reader prefixes): bytes_needed is the least prefix
     * that lets it read on. No finding is made for such a cut. */
    bool input_cut;
    uint64_t bytes_needed;
    struct url_source *url;  /* URL inputs (src/net/url_input.c), or NULL */
    void *map;           /* owned mapping (munmap) */
    int fd;              /* the mapped file, kept open to notice it shrinking; -1 */
    uint64_t map_size;
    uint8_t *owned;      /* owned buffer (stdin) */
    bool stream_truncated;
    char error_detail[256];
    /* model */
    gguflint_header hdr;
    gguflint_kv *kvs;
    size_t n_kvs, cap_kvs;
    gguflint_tensor *tensors;
    size_t n_tensors, cap_tensors;
    /* lookup indexes for the checks (model.c) */
    uint32_t *kv_slots, *tensor_slots;
    size_t kv_slots_cap, tensor_slots_cap;
    char *name;          /* the file's name as given (for name-based checks), or NULL */
    /* findings */
    finding_rec *recs;
    size_t n_recs, cap_recs;
    gguflint_finding *pub;  /* materialised views for gguflint_finding_get */
    size_t n_pub;
    sbuf text;
    uint32_t per_rule[R__COUNT];
    uint64_t dropped;
};

/* Record a finding. `path` and the formatted message must already be safe
 * (escape untrusted bytes with sb_escape / the %S helpers in findings.c).
 * Returns false when memory ran out (ctx->status is set). */
bool emit(gguflint_ctx *ctx, int rule, uint64_t offset, uint64_t length, const char *path,
          const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Make a logical path such as kv["key"] into buf (escaped, truncated to cap). */
void path_kv(char *buf, size_t cap, const uint8_t *key, uint64_t key_len);
/* Escape untrusted bytes into a fixed buffer, truncating with "..." past max_in bytes. */
void esc_fixed(char *buf, size_t cap, const uint8_t *s, uint64_t n, size_t max_in);


/* The parser (parse.c) and layout checks (layout.c). */
int parse_run(gguflint_ctx *ctx);
/* Offset of a tensor info's offset field. */
uint64_t tensor_offset_field(const gguflint_ctx *ctx, const gguflint_tensor *t);
void layout_check(gguflint_ctx *ctx);

/* Sort the findings by offset and publish them (gguflint_finding_get).
 * Called at the end of a run, and again after findings are added to a
 * finished context (split-set checks). */
int findings_finalize(gguflint_ctx *ctx);

/* The semantic checks (checks.c and check_*.c), run after the layout checks. */
void checks_run(gguflint_ctx *ctx);

/* GGUFLINT_OK when an input may be set now; else the (sticky) status. */
int source_ready(gguflint_ctx *ctx);
/* Release the input mapping or buffer (source.c). */
void source_release(gguflint_ctx *ctx);
/* GGUFLINT_E_IO (and the sticky status) when a mapped file has shrunk since it
 * was opened: reading its mapping past the new end would raise SIGBUS. The
 * check narrows the window; a caller that must survive a file truncated in
 * the middle of a run (the CLI does) also guards SIGBUS. */
int source_check_unchanged(gguflint_ctx *ctx);
/* Close the mapped file's descriptor once a run no longer needs it, so many
 * contexts alive at once (-j, split sets) do not exhaust descriptors. */
void source_close_fd(gguflint_ctx *ctx);
/* Bytes [off, off + len) of the input, wherever they are: a pointer into the
 * input when they are in memory, else read into `scratch` (len bytes) from
 * the mapped file or the reader. NULL when they cannot be read (past the
 * end, an I/O failure: ctx->status becomes GGUFLINT_E_IO with the reason).
 * Thread-safe for reader inputs whose read_at is (the --deep workers). */
const uint8_t *source_read(gguflint_ctx *ctx, uint64_t off, size_t len, uint8_t *scratch);
/* The same without touching the context: on failure *status and err get the
 * reason (for threads that report after joining). */
const uint8_t *source_read_r(const gguflint_ctx *ctx, uint64_t off, size_t len,
                             uint8_t *scratch, int *status, char *err, size_t err_size);
/* The first non-zero byte of [from, to) (read through source_read in pieces
 * when it is not in memory): true with its offset and value. False when all
 * are zero, or on an I/O failure (ctx->status set). */
bool source_first_nonzero(gguflint_ctx *ctx, uint64_t from, uint64_t to, uint64_t *at,
                          uint8_t *byte);
/* URL inputs: release what gguflint_open_url attached (url_input.c). */
void url_source_free(struct url_source *u);

/* Growable arrays: ensure room for one more element; false on NOMEM. */
bool grow(void **arr, size_t *cap, size_t n, size_t elem);

#endif

/* internal.h - the context: the one struct every stage of a run reads and
 * writes (input, model, options, findings), the rule indexes, the options'
 * layout behind the opaque public type, and the finding sink emit(). Not
 * installed; the CLI must not include it. Stage functions are declared in
 * their own folder's header (input/source.h, parse/parse.h, checks/checks.h). */
#ifndef GGUFLINT_INTERNAL_H
#define GGUFLINT_INTERNAL_H

#include "gguflint.h"

#include "common/escape.h"
#include "common/sbuf.h"
#include "common/utf8.h"
#include "common/viewset.h"
#include "core/limits.h"

#include <stdarg.h>

/* Rule indexes, expanded from the rule blocks of rules/rules.def. */
enum {
#define RULE(name, ...) R_##name,
#include "../../rules/rules.def"
#undef RULE
    R__COUNT
};

/* The limits as the library reads them (set through gguflint_options_set_limit). */
typedef struct lint_limits {
    uint64_t max_string_len;
    uint64_t max_array_count;
    uint64_t max_kv_count;
    uint64_t max_tensor_count;
    uint32_t max_depth;
    uint32_t max_findings_per_rule;
} lint_limits;

/* The opaque options of gguflint.h (core/options.c). */
struct gguflint_options {
    lint_limits limits;
    uint8_t severity[R__COUNT]; /* effective severity per rule index (OFF: disabled) */
    bool deep;
    uint32_t deep_jobs;
    uint8_t profile; /* index of the applied profile */
    bool header_only;
    bool config_refused; /* the CLI refused a discovered config file (GG800) */
    /* --deep may read a mapped file's data through its mapping on the
     * calling thread (gguflint_options_set_deep_map: the caller guards SIGBUS) */
    bool deep_map;
    /* --llama-build (gguflint_options_set_llama_build): the pinned llama.cpp,
     * as a build number or an ISO date (GG595); neither set: no pin */
    uint32_t llama_build;
    char llama_date[11];
};

/* A finding as stored: message and path are offsets into ctx->text. */
typedef struct finding_rec {
    int rule;
    gguflint_severity severity;
    uint64_t offset, length;
    size_t path_off, msg_off;
} finding_rec;

struct gguflint_ctx {
    gguflint_options opt;
    int status; /* sticky failing status */
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
    struct url_source *url;                /* URL inputs (src/net/url_input.c), or NULL */
    void (*url_free)(struct url_source *); /* its destructor, set with it */
    void *map;                             /* owned mapping (munmap) */
    int fd; /* the mapped file, kept open to notice it shrinking; -1 */
    uint64_t map_size;
    uint8_t *owned; /* owned buffer (stdin) */
    bool stream_truncated;
    char error_detail[256];
    char *name; /* the file's name as given (for name-based checks), or NULL */
    /* the base model a LoRA adapter is checked against (gguflint_set_base,
     * api/base.c): another context, already run, borrowed read-only; NULL */
    const struct gguflint_ctx *base;
    /* model (parse/parse.c) */
    gguflint_header hdr;
    gguflint_kv *kvs;
    size_t n_kvs, cap_kvs;
    uint8_t *kv_flags; /* KVF_* per KV, beside kvs (what the parse pass learnt) */
    size_t cap_kv_flags;
    struct tok_index *tokens; /* the tokens array as the parse pass read it (parse/tokens.h) */
    gguflint_tensor *tensors;
    size_t n_tensors, cap_tensors;
    /* lookup indexes for the checks (model/model.c); keyed, so O(1) expected
     * whatever the names (common/viewset.h) */
    viewset kv_index, tensor_index;
    bool indexed;        /* built: gguflint_kv_find uses it */
    bool kv_index_ready; /* kv_index is the parser's key set, handed over */
    /* Bloom filters of the keys and tensor names (model/model.c): most
     * lookups of the checks are for keys a file does not have, and two bit
     * tests answer those without hashing the name with SipHash */
    uint64_t kv_bloom[4], name_bloom[4];
    uint64_t probes;    /* hash-table slots visited building this file's tables
                            (the complexity tests bound it; docs/ARCHITECTURE.md) */
    uint64_t data_read; /* tensor-data bytes the --deep scan read (at most the data
                            section's size, however many infos alias it) */
    bool data_mapped;   /* it read them in place from the mapping (deep_map) */
    /* the --deep scan's tables while it runs (checks/check_data.c), NULL
     * otherwise: a caller's SIGBUS guard that jumps out of a scan reading
     * the mapping (a file cut meanwhile) leaves them to gguflint_free */
    void *deep_mem[2];
    /* findings (core/findings.c) */
    finding_rec *recs;
    size_t n_recs, cap_recs;
    gguflint_finding *pub; /* materialised views for gguflint_finding_get */
    size_t n_pub;
    sbuf text;
    uint32_t per_rule[R__COUNT];
    uint64_t dropped;
};

/* kv_flags: the parse pass read every string of this string array and
 * looked for terminal escape sequences in it (KVF_ESC: it may hold one). */
enum { KVF_STR_SCANNED = 1, KVF_ESC = 2 };

/* Record a finding. `path` and the formatted message must already be safe
 * (escape untrusted bytes with esc_fixed / sb_escape first). Returns false
 * when memory ran out (ctx->status is set). */
bool emit(gguflint_ctx *ctx, int rule, uint64_t offset, uint64_t length, const char *path,
          const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Would a finding of `rule` be kept now (enabled, under the per-rule cap)?
 * For checks that skip expensive work whose only output is that rule. */
bool rule_wanted(const gguflint_ctx *ctx, int rule);

/* Sort the findings by offset and publish them (gguflint_finding_get).
 * Called at the end of a run, and again after findings are added to a
 * finished context (split-set checks). Invalidates earlier finding pointers. */
int findings_finalize(gguflint_ctx *ctx);

/* Make a logical path such as kv["key"] into buf (escaped, truncated to cap). */
void path_kv(char *buf, size_t cap, const uint8_t *key, uint64_t key_len);

#endif

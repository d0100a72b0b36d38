/* report.h - the lint report and its writers. report.c holds the public
 * gguflint_report_* functions, counts the findings of every file and
 * dispatches to the writer of the format through a table; each writer
 * (report_text.c, report_json.c, report_sarif.c, report_github.c) knows
 * only its own format, reads findings through the public API, and writes
 * through the shared helpers of out.h. A writer never calls another one. */
#ifndef GGUFLINT_REPORT_REPORT_H
#define GGUFLINT_REPORT_REPORT_H

#include "gguflint.h"

#include "common/sbuf.h"
#include "report/out.h"

struct gguflint_report {
    gguflint_format fmt;
    out o;
    uint64_t files, counts[4], dropped; /* totals over the files so far */
    uint64_t unreadable;                /* files among them that could not be read */
    bool begun;                         /* the writer's begin has run (before the first file) */
    bool first_file;                    /* JSON: no comma before the first file */
    bool first_result;                  /* SARIF: no comma before the first result */
    sbuf notes;                         /* SARIF: toolExecutionNotifications for unreadable files */
    bool any_io_error;
    const char *detail; /* gguflint_report_failure: the failure's detail, else NULL */
    bool color;         /* GGUFLINT_REPORT_COLOR (text) */
    uint64_t *per_rule; /* GGUFLINT_REPORT_STATISTICS: findings per rule index, or NULL */
    bool nomem;         /* an allocation failed: output is missing (gguflint_report_end) */
    bool config_set;    /* gguflint_report_set_config was called */
    char *config;       /* the configuration file used, or NULL */
    char *base;         /* gguflint_report_set_base: the directory of relative paths, or NULL */
    char *help_uri;     /* gguflint_report_set_help_uri: RULES.md's address, or NULL */
    /* the file being reported (gguflint_report_file_ex), valid during file(): */
    const bool *skip;   /* per finding: baselined, left out; or NULL */
    const char *sha256; /* the file's SHA-256 in hex, or NULL */
    uint64_t *fps;      /* per finding: its fingerprint (report_fingerprints), or NULL */
    uint64_t baselined; /* findings left out as baselined, over the files so far */
    uint64_t gone;      /* GGUFLINT_REPORT_BASELINE_GONE */
    sbuf vulns;         /* CycloneDX: the vulnerabilities, written after the components */
    int64_t bom_time;   /* CycloneDX: gguflint_report_set_timestamp, or -1 (none) */
};

/* Whether finding i of the file being reported is shown (not baselined). */
static inline bool report_shown(const gguflint_report *r, size_t i)
{
    return !r->skip || !r->skip[i];
}

/* The fingerprints of the file being reported (gguflint_finding_fingerprints
 * over its path normalised against the report's base), or NULL when out of
 * memory. Computed once per file; freed after it. */
const uint64_t *report_fingerprints(gguflint_report *r, const char *path, const gguflint_ctx *ctx);

/* A path as the reports name it for fingerprints and URIs: lexically
 * normalised, relative to the base when it lies below it (malloc'd; NULL
 * when out of memory). */
char *report_norm_path(gguflint_report *r, const char *path);

/* The detail of a file's failure: the report's (gguflint_report_failure) or
 * the context's. */
static inline const char *report_detail(const gguflint_report *r, const gguflint_ctx *ctx)
{
    return r->detail ? r->detail : ctx ? gguflint_error_detail(ctx) : "";
}

/* One format. begin runs before the first file (or at the end), file once per file (after
 * the totals include it), end in gguflint_report_end; NULL members do nothing. */
typedef struct report_writer {
    void (*begin)(gguflint_report *r);
    void (*file)(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status);
    void (*end)(gguflint_report *r, bool summary);
} report_writer;

/* Write the per-rule statistics of a text or JSON report (only rules seen). */
void report_statistics_text(gguflint_report *r);
void report_statistics_json(gguflint_report *r);

extern const report_writer report_text, report_json, report_sarif, report_github, report_baseline,
    report_cyclonedx;

/* A file's llama.cpp requirement (report_requires.c): JSON's
 * ",\"requires_llama\":{...}" member; text's one line, only under a pin. */
void report_requires_json(const out *o, const gguflint_ctx *ctx);
void report_requires_text(const out *o, const char *path, const gguflint_ctx *ctx);

#endif

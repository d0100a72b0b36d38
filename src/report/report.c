/* report.c - lint reports over several files: the dispatch to the format
 * writers, text (one gcc-style line per finding and a summary) and JSON
 * (schema_version 1, documented in README); SARIF and GitHub annotations are
 * in their own files. Knows nothing of GGUF: it reads findings and header
 * numbers through the public API. Messages and paths are already escaped by
 * the library; the display path given by the caller is escaped here. */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define put rep_put
#define putf rep_putf
#define jstr rep_jstr

void rep_put(gguflint_report *r, const char *s)
{
    r->w(r->u, s, strlen(s));
}

void rep_putf(gguflint_report *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->w(r->u, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void rep_jstr(gguflint_report *r, const char *s)
{
    json_quote(r->w, r->u, s, strlen(s));
}

gguflint_report *gguflint_report_new(gguflint_format fmt, gguflint_write_fn w, void *user)
{
    gguflint_report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fmt = fmt;
    r->w = w;
    r->u = user;
    r->first_file = true;
    r->first_result = true;
    if (fmt == GGUFLINT_FORMAT_SARIF)
        sarif_begin(r);
    if (fmt == GGUFLINT_FORMAT_JSON) {
        put(r, "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":");
        jstr(r, GGUFLINT_VERSION);
        put(r, "},\"files\":[");
    }
    return r;
}

static void text_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx)
{
    size_t n = gguflint_finding_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        gguflint_escape(r->w, r->u, path, strlen(path));
        putf(r, ":0x%" PRIx64 ": %s %s %s: ", f->offset, gguflint_severity_name(f->severity),
             ri->id, ri->slug);
        if (f->path[0]) {
            safe_text(r->w, r->u, f->path, strlen(f->path));
            put(r, ": ");
        }
        safe_text(r->w, r->u, f->message, strlen(f->message));
        put(r, "\n");
    }
    uint64_t d = gguflint_findings_dropped(ctx);
    if (d) {
        gguflint_escape(r->w, r->u, path, strlen(path));
        putf(r, ": note: %" PRIu64 " more findings not shown (per-rule limit)\n", d);
    }
}

static void json_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    if (!r->first_file)
        put(r, ",");
    r->first_file = false;
    put(r, "{\"path\":");
    jstr(r, path);
    if (status != GGUFLINT_OK) {
        put(r, ",\"error\":");
        jstr(r, gguflint_strerror(status));
        put(r, ",\"detail\":");
        jstr(r, gguflint_error_detail(ctx));
        put(r, "}");
        return;
    }
    const gguflint_header *h = gguflint_get_header(ctx);
    putf(r, ",\"size\":%" PRIu64 ",\"gguf\":%s", h->file_size, h->is_gguf ? "true" : "false");
    const char *url;
    uint64_t fetched, requests;
    if (gguflint_fetch_stats(ctx, &url, &fetched, &requests)) {
        put(r, ",\"url\":");
        jstr(r, url);
        putf(r, ",\"bytes_fetched\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"range_requests\":%s",
             fetched, requests, gguflint_fetch_ranges(ctx) ? "true" : "false");
    }
    if (h->is_gguf)
        putf(r,
             ",\"version\":%u,\"big_endian\":%s,\"tensor_count\":%" PRIu64
             ",\"kv_count\":%" PRIu64 ",\"alignment\":%" PRIu64,
             h->version, h->big_endian ? "true" : "false", h->tensor_count, h->kv_count,
             h->alignment);
    put(r, ",\"findings\":[");
    uint64_t c[4] = {0, 0, 0, 0};
    size_t n = gguflint_finding_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        c[f->severity]++;
        put(r, i ? ",{\"rule\":" : "{\"rule\":");
        jstr(r, ri->id);
        put(r, ",\"slug\":");
        jstr(r, ri->slug);
        put(r, ",\"family\":");
        jstr(r, ri->family);
        put(r, ",\"severity\":");
        jstr(r, gguflint_severity_name(f->severity));
        putf(r, ",\"offset\":%" PRIu64 ",\"length\":%" PRIu64 ",\"path\":", f->offset, f->length);
        jstr(r, f->path);
        put(r, ",\"message\":");
        jstr(r, f->message);
        put(r, "}");
    }
    putf(r,
         "],\"dropped\":%" PRIu64 ",\"summary\":{\"error\":%" PRIu64 ",\"warning\":%" PRIu64
         ",\"note\":%" PRIu64 "}}",
         gguflint_findings_dropped(ctx), c[GGUFLINT_ERROR], c[GGUFLINT_WARNING], c[GGUFLINT_NOTE]);
}

void gguflint_report_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx,
                          int status)
{
    if (!r || !path)
        return;
    r->files++;
    if (status == GGUFLINT_OK && ctx) {
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
            r->counts[gguflint_finding_get(ctx, i)->severity]++;
        r->dropped += gguflint_findings_dropped(ctx);
    }
    switch (r->fmt) {
    case GGUFLINT_FORMAT_JSON: json_file(r, path, ctx, status); break;
    case GGUFLINT_FORMAT_SARIF: sarif_file(r, path, ctx, status); break;
    case GGUFLINT_FORMAT_GITHUB: github_file(r, path, ctx, status); break;
    default:
        if (status == GGUFLINT_OK && ctx)
            text_file(r, path, ctx);
        break;
    }
}

void gguflint_report_failure(gguflint_report *r, const char *path, int status,
                             const char *detail)
{
    /* a context carrying only the failure, so every writer shows it alike */
    gguflint_ctx *c = gguflint_new(NULL);
    if (c) {
        snprintf(c->error_detail, sizeof c->error_detail, "%s", detail ? detail : "");
        c->status = status;
    }
    gguflint_report_file(r, path, c, status == GGUFLINT_OK ? GGUFLINT_E_IO : status);
    gguflint_free(c);
}

void gguflint_report_end(gguflint_report *r, bool summary)
{
    if (!r)
        return;
    if (r->fmt == GGUFLINT_FORMAT_SARIF) {
        sarif_end(r);
        return;
    }
    if (r->fmt == GGUFLINT_FORMAT_GITHUB)
        return;
    if (r->fmt == GGUFLINT_FORMAT_JSON) {
        putf(r,
             "],\"summary\":{\"files\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64
             ",\"note\":%" PRIu64 ",\"dropped\":%" PRIu64 "}}\n",
             r->files, r->counts[GGUFLINT_ERROR], r->counts[GGUFLINT_WARNING],
             r->counts[GGUFLINT_NOTE], r->dropped);
        return;
    }
    if (!summary)
        return;
    putf(r, "%" PRIu64 " file%s checked: %" PRIu64 " error%s, %" PRIu64 " warning%s, %" PRIu64
            " note%s\n",
         r->files, r->files == 1 ? "" : "s", r->counts[GGUFLINT_ERROR],
         r->counts[GGUFLINT_ERROR] == 1 ? "" : "s", r->counts[GGUFLINT_WARNING],
         r->counts[GGUFLINT_WARNING] == 1 ? "" : "s", r->counts[GGUFLINT_NOTE],
         r->counts[GGUFLINT_NOTE] == 1 ? "" : "s");
}

void gguflint_report_free(gguflint_report *r)
{
    if (r)
        sb_free(&r->notes);
    free(r);
}

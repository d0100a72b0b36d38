/* report_json.c - the JSON report, schema_version 1 (documented in the
 * README and by docs/gguflint-report.schema.json, which a test checks every
 * output against): one object per file with its header numbers, SHA-256
 * when the caller read the whole file, findings (each with its fingerprint,
 * numeric level, security-severity, CWE and fix), dropped count and summary,
 * then the totals. Baselined findings are left out and counted. Fields are
 * only ever added within a schema version. */
#include "report/report.h"

#include "common/utf8.h"

#include <inttypes.h>
#include <string.h>

static void json_begin(gguflint_report *r)
{
    out_put(&r->o, "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":");
    out_jstr(&r->o, GGUFLINT_VERSION);
    out_put(&r->o, "},\"files\":[");
}

/* What a security team files a finding under: the numeric severity (1
 * note, 2 warning, 3 error), the rule's security-severity and CWE (null when
 * it has none), and the fix. */
static void put_rule_facts(const out *o, const gguflint_finding *f, const gguflint_rule_info *ri)
{
    out_putf(o, ",\"level\":%d,\"security_severity\":%s,\"cwe\":", (int)f->severity,
             ri->security_severity ? ri->security_severity : "null");
    if (ri->cwe > 0)
        out_putf(o, "\"CWE-%d\"", ri->cwe);
    else
        out_put(o, "null");
    out_put(o, ",\"fix\":");
    out_jstr(o, ri->fix ? ri->fix : "");
}

static void json_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    const out *o = &r->o;
    if (!r->first_file)
        out_put(o, ",");
    r->first_file = false;
    out_put(o, "{\"path\":");
    out_jstr(o, path);
    size_t plen = strlen(path);
    if (!utf8_valid((const uint8_t *)path, plen)) {
        /* "path" escapes each byte that is not UTF-8 as a code point, which
         * names another, valid file: the exact bytes ride along in hex */
        static const char hex[] = "0123456789abcdef";
        out_put(o, ",\"path_hex\":\"");
        for (size_t k = 0; k < plen; k++) {
            unsigned char c = (unsigned char)path[k];
            char h[2] = {hex[c >> 4], hex[c & 15]};
            out_putn(o, h, 2);
        }
        out_put(o, "\"");
    }
    if (status != GGUFLINT_OK) {
        out_put(o, ",\"error\":");
        out_jstr(o, gguflint_strerror(status));
        out_put(o, ",\"detail\":");
        out_jstr(o, report_detail(r, ctx));
        out_put(o, "}");
        return;
    }
    const gguflint_header *h = gguflint_get_header(ctx);
    /* complete / bytes_needed: a cut input (a partial download), and how much
     * to fetch to read on */
    out_putf(o, ",\"size\":%" PRIu64 ",\"complete\":%s,\"bytes_needed\":%" PRIu64 ",\"gguf\":%s",
             h->file_size, h->complete ? "true" : "false", h->bytes_needed,
             h->is_gguf ? "true" : "false");
    const char *url;
    uint64_t fetched, requests;
    if (gguflint_fetch_stats(ctx, &url, &fetched, &requests)) {
        out_put(o, ",\"url\":");
        out_jstr(o, url);
        out_putf(o, ",\"bytes_fetched\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"range_requests\":%s",
                 fetched, requests, gguflint_fetch_ranges(ctx) ? "true" : "false");
    }
    if (h->is_gguf)
        out_putf(o,
                 ",\"version\":%u,\"big_endian\":%s,\"tensor_count\":%" PRIu64
                 ",\"kv_count\":%" PRIu64 ",\"alignment\":%" PRIu64,
                 h->version, h->big_endian ? "true" : "false", h->tensor_count, h->kv_count,
                 h->alignment);
    if (r->sha256) {
        out_put(o, ",\"sha256\":");
        out_jstr(o, r->sha256);
    }
    out_put(o, ",\"findings\":[");
    uint64_t c[4] = {0, 0, 0, 0};
    size_t n = gguflint_finding_count(ctx);
    const uint64_t *fps = report_fingerprints(r, path, ctx);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (!report_shown(r, i))
            continue;
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        c[f->severity]++;
        out_put(o, first ? "{\"rule\":" : ",{\"rule\":");
        first = false;
        out_jstr(o, ri->id);
        out_put(o, ",\"slug\":");
        out_jstr(o, ri->slug);
        out_put(o, ",\"family\":");
        out_jstr(o, ri->family);
        out_put(o, ",\"severity\":");
        out_jstr(o, gguflint_severity_name(f->severity));
        out_putf(o, ",\"offset\":%" PRIu64 ",\"length\":%" PRIu64 ",\"path\":", f->offset,
                 f->length);
        out_jstr(o, f->path);
        out_put(o, ",\"message\":");
        out_jstr(o, f->message);
        put_rule_facts(o, f, ri);
        if (fps)
            out_putf(o, ",\"fingerprint\":\"%016" PRIx64 "\"", fps[i]);
        out_put(o, "}");
    }
    out_putf(o,
             "],\"dropped\":%" PRIu64 ",\"summary\":{\"error\":%" PRIu64 ",\"warning\":%" PRIu64
             ",\"note\":%" PRIu64 "}",
             gguflint_findings_dropped(ctx), c[GGUFLINT_ERROR], c[GGUFLINT_WARNING],
             c[GGUFLINT_NOTE]);
    if (h->is_gguf) /* after the findings: the fields before them keep their order */
        report_requires_json(o, ctx);
    out_put(o, "}");
}

static void json_end(gguflint_report *r, bool summary)
{
    (void)summary; /* the totals are part of the document */
    out_put(&r->o, "]");
    if (r->config_set) {
        out_put(&r->o, ",\"config\":");
        if (r->config)
            out_jstr(&r->o, r->config);
        else
            out_put(&r->o, "null");
    }
    out_putf(&r->o,
             ",\"summary\":{\"files\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64
             ",\"note\":%" PRIu64,
             r->files, r->counts[GGUFLINT_ERROR], r->counts[GGUFLINT_WARNING],
             r->counts[GGUFLINT_NOTE]);
    out_putf(&r->o,
             ",\"unreadable\":%" PRIu64 ",\"baselined\":%" PRIu64 ",\"baseline_gone\":%" PRIu64
             ",\"dropped\":%" PRIu64,
             r->unreadable, r->baselined, r->gone, r->dropped);
    report_statistics_json(r); /* "statistics":{"GG106":2,...} with --statistics */
    out_put(&r->o, "}}\n");
}

const report_writer report_json = {json_begin, json_file, json_end};

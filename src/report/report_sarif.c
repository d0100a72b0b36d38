/* report_sarif.c - SARIF 2.1.0 for code scanning (GitHub and others): one run
 * whose tool.driver.rules[] is the rule table (profile-independent default
 * levels; tags with the family and, where the rule block names one, the CWE
 * as external/cwe/cwe-NNN; security-severity from the rule block; help as
 * text and markdown; helpUri into RULES.md when the report was given its
 * address) and whose results carry ruleId, level, a message with the hex
 * offset, the artifact URI (relative to SRCROOT, the base directory, when
 * the path is relative or below it), a region with startLine 1 (the anchor
 * GitHub requires) plus byteOffset/byteLength, the logical path, and the
 * stable fingerprint of fingerprint.c. Baselined findings are left out.
 * Files that could not be read become toolExecutionNotifications. */
#include "report/report.h"
#include "common/alloc.h"

#include "common/escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *level_name(gguflint_severity s)
{
    return s == GGUFLINT_ERROR ? "error" : s == GGUFLINT_WARNING ? "warning" : "note";
}

/* Percent-encode a path into a URI reference: unreserved bytes and '/'
 * kept, the rest escaped, so any file name yields a valid URI. A URL input
 * (http://, https://, hf://) keeps its reserved characters and escapes. */
static void put_uri_chars(gguflint_report *r, const char *path, bool url)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/' ||
            (url && c && strchr(":?#[]@!$&'()*+,;=%", c))) {
            out_putn(&r->o, (const char *)p, 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            out_putn(&r->o, e, 3);
        }
    }
}

/* The artifactLocation of a path: a URL as it is; an absolute path (not
 * below the base) as a file: URI; anything else relative to SRCROOT. */
static void put_artifact(gguflint_report *r, const char *path)
{
    char *norm = report_norm_path(r, path);
    const char *p = norm ? norm : path;
    const bool url = gguflint_url_kind(path) != 0;
    out_put(&r->o, "{\"uri\":\"");
    if (!url && p[0] == '/')
        out_put(&r->o, "file://");
    put_uri_chars(r, url ? path : p, url);
    out_put(&r->o, url || p[0] == '/' ? "\"}" : "\",\"uriBaseId\":\"SRCROOT\"}");
    gl_free(norm);
}

/* help.markdown: the summary, why and fix, and where the full page is. */
static void put_help_markdown(gguflint_report *r, size_t i, const gguflint_rule_info *ri)
{
    char anchor[96];
    gguflint_rule_anchor(i, anchor, sizeof anchor);
    sbuf m = {0};
    sb_printf(&m, "**%s %s**: ", ri->id, ri->slug);
    sb_puts(&m, ri->summary);
    const char *const part[][2] = {{"\n\n**Why.** ", ri->why}, {"\n\n**Fix.** ", ri->fix}};
    for (size_t k = 0; k < 2; k++)
        if (part[k][1] && *part[k][1]) {
            sb_puts(&m, part[k][0]);
            sb_puts(&m, part[k][1]);
        }
    if (ri->cwe > 0)
        sb_printf(&m, "\n\nWeakness: [CWE-%d](https://cwe.mitre.org/data/definitions/%d.html).",
                  ri->cwe, ri->cwe);
    sb_printf(&m, "\n\nFull page: `gguflint explain %s`, or ", ri->id);
    if (r->help_uri)
        sb_printf(&m, "[rules/RULES.md](%s#%s).", r->help_uri, anchor);
    else
        sb_printf(&m, "rules/RULES.md#%s in the gguflint sources.", anchor);
    json_quote(r->o.w, r->o.u, m.data ? m.data : "", m.len);
    sb_free(&m);
}

static void sarif_begin(gguflint_report *r)
{
    out_put(&r->o, "{\"$schema\":\"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/"
                   "schemas/sarif-schema-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":{"
                   "\"driver\":{\"name\":\"gguflint\",\"version\":\"" GGUFLINT_VERSION
                   "\",\"semanticVersion\":\"" GGUFLINT_VERSION "\",\"rules\":[");
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *ri = gguflint_rule(i);
        out_put(&r->o, i ? ",{\"id\":" : "{\"id\":");
        out_jstr(&r->o, ri->id);
        out_put(&r->o, ",\"name\":");
        out_jstr(&r->o, ri->slug);
        out_put(&r->o, ",\"shortDescription\":{\"text\":");
        out_jstr(&r->o, ri->summary);
        out_put(&r->o, "},\"fullDescription\":{\"text\":");
        out_jstr(&r->o, ri->what && *ri->what ? ri->what : ri->summary);
        out_put(&r->o, "},");
        if (r->help_uri) {
            char anchor[96];
            gguflint_rule_anchor(i, anchor, sizeof anchor);
            out_put(&r->o, "\"helpUri\":\"");
            put_uri_chars(r, r->help_uri, true);
            out_put(&r->o, "#");
            out_put(&r->o, anchor);
            out_put(&r->o, "\",");
        }
        out_put(&r->o, "\"help\":{\"text\":");
        out_jstr(&r->o, ri->fix && *ri->fix ? ri->fix : ri->summary);
        out_put(&r->o, ",\"markdown\":");
        put_help_markdown(r, i, ri);
        out_put(&r->o, "},\"defaultConfiguration\":{\"level\":\"");
        out_put(&r->o, level_name(ri->default_severity));
        out_put(&r->o, "\"},\"properties\":{\"tags\":[");
        out_jstr(&r->o, ri->family); /* the security family's tag is already "security" */
        out_put(&r->o, ",\"gguf\"");
        if (ri->security_severity && strcmp(ri->family, "security") != 0)
            out_put(&r->o, ",\"security\"");
        if (ri->cwe > 0)
            out_putf(&r->o, ",\"external/cwe/cwe-%d\"", ri->cwe);
        out_put(&r->o, "]");
        if (ri->security_severity)
            out_putf(&r->o, ",\"security-severity\":\"%s\"", ri->security_severity);
        out_put(&r->o, "}}");
    }
    out_put(&r->o, "]}},\"results\":[");
}

static void sarif_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    if (status != GGUFLINT_OK) {
        r->any_io_error = true;
        if (r->notes.len)
            sb_puts(&r->notes, ",");
        sb_puts(&r->notes, "{\"level\":\"error\",\"message\":{\"text\":");
        char text[1024];
        snprintf(text, sizeof text, "%s: %s: %s", path, gguflint_strerror(status),
                 report_detail(r, ctx));
        json_quote_sb(&r->notes, text, strlen(text));
        sb_puts(&r->notes, "}}");
        return;
    }
    size_t count = gguflint_finding_count(ctx);
    const uint64_t *fps = report_fingerprints(r, path, ctx);
    for (size_t i = 0; i < count; i++) {
        if (!report_shown(r, i))
            continue;
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        out_put(&r->o, r->first_result ? "{\"ruleId\":" : ",{\"ruleId\":");
        r->first_result = false;
        out_jstr(&r->o, ri->id);
        out_putf(&r->o, ",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":", f->rule,
                 level_name(f->severity));
        char head[96];
        snprintf(head, sizeof head, "%s 0x%" PRIx64 ": ", ri->slug, f->offset);
        sbuf m = {0};
        sb_puts(&m, head);
        if (f->path[0]) {
            sb_puts(&m, f->path);
            sb_puts(&m, ": ");
        }
        sb_puts(&m, f->message);
        json_quote(r->o.w, r->o.u, m.data ? m.data : "", m.len);
        sb_free(&m);
        out_put(&r->o, "},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":");
        put_artifact(r, path);
        out_putf(&r->o,
                 ",\"region\":{\"startLine\":1,\"byteOffset\":%" PRIu64 ",\"byteLength\":%" PRIu64
                 "}}",
                 f->offset, f->length);
        if (f->path[0]) {
            out_put(&r->o, ",\"logicalLocations\":[{\"fullyQualifiedName\":");
            out_jstr(&r->o, f->path);
            out_put(&r->o, ",\"kind\":\"member\"}]");
        }
        out_put(&r->o, "}]");
        if (fps)
            out_putf(&r->o, ",\"partialFingerprints\":{\"ggufFinding/v3\":\"%016" PRIx64 "\"}",
                     fps[i]);
        out_put(&r->o, "}");
    }
}

static void sarif_end(gguflint_report *r, bool summary)
{
    (void)summary; /* the invocation record is the summary */
    out_putf(&r->o,
             "],\"invocations\":[{\"executionSuccessful\":%s,"
             "\"toolExecutionNotifications\":[",
             r->any_io_error ? "false" : "true");
    if (r->notes.data)
        out_putn(&r->o, r->notes.data, r->notes.len);
    out_put(&r->o, "]}]");
    if (r->base) { /* what relative artifact URIs are relative to */
        out_put(&r->o, ",\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"file://");
        put_uri_chars(r, r->base, false);
        out_put(&r->o, strcmp(r->base, "/") == 0 ? "\"}}" : "/\"}}");
    }
    /* the configuration file used and the baseline's effect, in the run's properties */
    out_put(&r->o, ",\"properties\":{\"config\":");
    if (r->config)
        out_jstr(&r->o, r->config);
    else
        out_put(&r->o, "null");
    out_putf(&r->o, ",\"baselined\":%" PRIu64 ",\"baselineGone\":%" PRIu64 "}", r->baselined,
             r->gone);
    out_put(&r->o, "}]}\n");
}

const report_writer report_sarif = {sarif_begin, sarif_file, sarif_end};

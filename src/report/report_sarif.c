/* report_sarif.c - SARIF 2.1.0 for code scanning (GitHub and others): one run
 * whose tool.driver.rules[] is the rule table (with profile-independent
 * default levels, tags and, for security rules, security-severity) and whose
 * results carry ruleId, level, a message with the hex offset, the artifact
 * URI as given, a region with startLine 1 (the anchor GitHub requires) plus
 * byteOffset/byteLength, the logical path, and a stable partial fingerprint.
 * Files that could not be read become toolExecutionNotifications. */
#include "report/report.h"

#include "common/escape.h"

#include <inttypes.h>
#include <string.h>

static const char *level_name(gguflint_severity s)
{
    return s == GGUFLINT_ERROR ? "error" : s == GGUFLINT_WARNING ? "warning" : "note";
}

static bool is_security(const gguflint_rule_info *ri)
{
    return strcmp(ri->family, "security") == 0;
}

/* A URI reference for a path as given: unreserved bytes and '/' kept, the
 * rest percent-encoded, so any file name yields a valid relative URI. A URL
 * input (http://, https://, hf://) stays an absolute URI: its reserved
 * characters and escapes are kept too. */
static void put_uri(gguflint_report *r, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    const bool url = gguflint_url_kind(path) != 0;
    out_put(&r->o, "\"");
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
    out_put(&r->o, "\"");
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
        /* no helpUri: the documentation is `gguflint explain ID` and rules/RULES.md
         * in the sources, wherever they are hosted */
        out_put(&r->o, "},\"help\":{\"text\":");
        out_jstr(&r->o, ri->fix && *ri->fix ? ri->fix : ri->summary);
        out_put(&r->o, "},\"defaultConfiguration\":{\"level\":\"");
        out_put(&r->o, level_name(ri->default_severity));
        out_put(&r->o, "\"},\"properties\":{\"tags\":[");
        out_jstr(&r->o, ri->family); /* the security family's tag is already "security" */
        out_put(&r->o, ",\"gguf\"]");
        if (is_security(ri))
            out_putf(&r->o, ",\"security-severity\":\"%s\"",
                     ri->default_severity == GGUFLINT_ERROR     ? "8.0"
                     : ri->default_severity == GGUFLINT_WARNING ? "5.0"
                                                                : "2.0");
        out_put(&r->o, "}}");
    }
    out_put(&r->o, "]}},\"results\":[");
}

/* The stable identity of a finding across runs: FNV-1a over the rule id,
 * the artifact path, the logical path and the offset, then the finding's
 * occurrence among earlier findings of the same file with those same four
 * (a rule can report several problems at one field: six missing keys at
 * general.architecture). So distinct findings never share a fingerprint and
 * the same finding keeps its own from run to run. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    h ^= 0xFF; /* a separator no part contains */
    return h * 1099511628211ull;
}

static uint64_t fingerprint(const char *rule, const char *path, const gguflint_finding *f,
                            unsigned occurrence)
{
    char num[48];
    snprintf(num, sizeof num, "%" PRIu64 "#%u", f->offset, occurrence);
    uint64_t h = 1469598103934665603ull;
    h = fnv(h, rule);
    h = fnv(h, path);
    h = fnv(h, f->path);
    return fnv(h, num);
}

/* How many earlier findings of ctx have f's rule, logical path and offset.
 * Findings are in offset order, so only the run of equal offsets before i
 * is looked at. */
static unsigned occurrence_of(const gguflint_ctx *ctx, size_t i)
{
    const gguflint_finding *f = gguflint_finding_get(ctx, i);
    unsigned n = 0;
    for (size_t j = i; j-- > 0;) {
        const gguflint_finding *g = gguflint_finding_get(ctx, j);
        if (g->offset != f->offset)
            break;
        n += g->rule == f->rule && strcmp(g->path, f->path) == 0;
    }
    return n;
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
    for (size_t i = 0; i < count; i++) {
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
        out_put(&r->o, "},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
        put_uri(r, path);
        out_putf(&r->o,
                 "},\"region\":{\"startLine\":1,\"byteOffset\":%" PRIu64 ",\"byteLength\":%" PRIu64
                 "}}",
                 f->offset, f->length);
        if (f->path[0]) {
            out_put(&r->o, ",\"logicalLocations\":[{\"fullyQualifiedName\":");
            out_jstr(&r->o, f->path);
            out_put(&r->o, ",\"kind\":\"member\"}]");
        }
        out_putf(&r->o, "}],\"partialFingerprints\":{\"ggufFinding/v2\":\"%016" PRIx64 "\"}}",
                 fingerprint(ri->id, path, f, occurrence_of(ctx, i)));
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
    if (r->config_set) { /* the configuration file used, in the run's properties */
        out_put(&r->o, ",\"properties\":{\"config\":");
        if (r->config)
            out_jstr(&r->o, r->config);
        else
            out_put(&r->o, "null");
        out_put(&r->o, "}");
    }
    out_put(&r->o, "}]}\n");
}

const report_writer report_sarif = {sarif_begin, sarif_file, sarif_end};

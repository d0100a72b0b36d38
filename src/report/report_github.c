/* report_github.c - GitHub Actions workflow annotations: one
 * `::error file=PATH,line=1,title=ID slug::message` line per finding
 * (warning -> ::warning, note -> ::notice), with the workflow-command
 * escaping of data (%, CR, LF) and of properties (also ':' and ','), so no
 * file content can inject another command. */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

static void put_escaped(gguflint_report *r, const char *s, bool property)
{
    for (const char *p = s; *p; p++) {
        const char *e = NULL;
        switch (*p) {
        case '%': e = "%25"; break;
        case '\r': e = "%0D"; break;
        case '\n': e = "%0A"; break;
        case ':': e = property ? "%3A" : NULL; break;
        case ',': e = property ? "%2C" : NULL; break;
        default: break;
        }
        if (e)
            rep_put(r, e);
        else
            r->w(r->u, p, 1);
    }
}

void github_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    sbuf safe_path = {0};
    sb_escape(&safe_path, path, strlen(path));
    const char *sp = safe_path.data ? safe_path.data : "";
    if (status != GGUFLINT_OK) {
        rep_put(r, "::error file=");
        put_escaped(r, sp, true);
        rep_put(r, ",title=gguflint::");
        put_escaped(r, gguflint_strerror(status), false);
        rep_put(r, "\n");
        sb_free(&safe_path);
        return;
    }
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        rep_put(r, f->severity == GGUFLINT_ERROR     ? "::error file="
                   : f->severity == GGUFLINT_WARNING ? "::warning file="
                                                     : "::notice file=");
        put_escaped(r, sp, true);
        rep_put(r, ",line=1,title=");
        char title[96];
        snprintf(title, sizeof title, "%s %s", ri->id, ri->slug);
        put_escaped(r, title, true);
        rep_put(r, "::");
        char at[40];
        snprintf(at, sizeof at, "0x%" PRIx64 ": ", f->offset);
        rep_put(r, at);
        if (f->path[0]) {
            put_escaped(r, f->path, false);
            rep_put(r, ": ");
        }
        put_escaped(r, f->message, false);
        rep_put(r, "\n");
    }
    sb_free(&safe_path);
}

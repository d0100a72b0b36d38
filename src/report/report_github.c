/* report_github.c - GitHub Actions workflow annotations: one
 * `::error file=PATH,line=1,title=ID slug::message` line per finding
 * (warning -> ::warning, note -> ::notice), the path normalised against
 * the report's base (the workspace) as code scanning names files, with the workflow-command
 * escaping of data (%, CR, LF) and of properties (also ':' and ','), so no
 * file content can inject another command. */
#include "report/report.h"
#include "common/alloc.h"

#include "common/escape.h"

#include <inttypes.h>
#include <stdlib.h>
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
            out_put(&r->o, e);
        else
            out_putn(&r->o, p, 1);
    }
}

static void github_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    /* the path as the repository names it (./x and /workspace/x are x) */
    char *norm = report_norm_path(r, path);
    const char *p = norm ? norm : path;
    sbuf safe_path = {0};
    sb_escape(&safe_path, p, strlen(p));
    gl_free(norm);
    const char *sp = safe_path.data ? safe_path.data : "";
    if (status != GGUFLINT_OK) {
        out_put(&r->o, "::error file=");
        put_escaped(r, sp, true);
        out_put(&r->o, ",title=gguflint::");
        put_escaped(r, gguflint_strerror(status), false);
        out_put(&r->o, "\n");
        sb_free(&safe_path);
        return;
    }
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        if (!report_shown(r, i))
            continue;
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        out_put(&r->o, f->severity == GGUFLINT_ERROR     ? "::error file="
                       : f->severity == GGUFLINT_WARNING ? "::warning file="
                                                         : "::notice file=");
        put_escaped(r, sp, true);
        out_put(&r->o, ",line=1,title=");
        char title[96];
        snprintf(title, sizeof title, "%s %s", ri->id, ri->slug);
        put_escaped(r, title, true);
        out_put(&r->o, "::");
        char at[40];
        snprintf(at, sizeof at, "0x%" PRIx64 ": ", f->offset);
        out_put(&r->o, at);
        if (f->path[0]) {
            put_escaped(r, f->path, false);
            out_put(&r->o, ": ");
        }
        put_escaped(r, f->message, false);
        out_put(&r->o, "\n");
    }
    sb_free(&safe_path);
}

const report_writer report_github = {NULL, github_file, NULL};

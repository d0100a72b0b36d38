/* report_baseline.c - the baseline format (`--write-baseline FILE`): a
 * comment line, then one line per finding of every file read,
 *
 *   FINGERPRINT<TAB>RULE<TAB>PATH<TAB>LOGICAL-PATH
 *
 * with the fingerprint of fingerprint.c as 16 hex digits, the path as the
 * fingerprints see it (normalised, relative to the base) and both paths
 * escaped for a terminal (no tab or newline survives). Baselined findings
 * are written too: a baseline records every finding of today's run. Files
 * that could not be read have no line; the CLI reads only the first field
 * back (baseline.c), the rest is for people reviewing the file. */
#include "report/report.h"
#include "common/alloc.h"

#include "common/escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void baseline_begin(gguflint_report *r)
{
    out_put(&r->o, "# gguflint baseline 1 (gguflint " GGUFLINT_VERSION
                   "): fingerprint, rule, path, logical path; see docs/CI-GATE.md\n");
}

static void baseline_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    if (status != GGUFLINT_OK || !ctx)
        return;
    size_t n = gguflint_finding_count(ctx);
    const uint64_t *fps = report_fingerprints(r, path, ctx);
    char *norm = report_norm_path(r, path);
    if (!fps || !norm) {
        gl_free(norm);
        return; /* out of memory: r->nomem is set */
    }
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        out_putf(&r->o, "%016" PRIx64 "\t%s\t", fps[i], gguflint_rule((size_t)f->rule)->id);
        out_escape(&r->o, norm, strlen(norm));
        out_put(&r->o, "\t");
        safe_text(r->o.w, r->o.u, f->path, strlen(f->path));
        out_put(&r->o, "\n");
    }
    gl_free(norm);
}

const report_writer report_baseline = {baseline_begin, baseline_file, NULL};

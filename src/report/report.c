/* report.c - lint reports over several files: the public gguflint_report_*
 * functions, the totals (per severity, dropped, and per rule for
 * --statistics), the statistics blocks the text and JSON writers share, and
 * the table of format writers. Knows nothing of GGUF or of any one format. */
#include "report/report.h"
#include "common/alloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const report_writer *const writers[] = {
    [GGUFLINT_FORMAT_TEXT] = &report_text,         [GGUFLINT_FORMAT_JSON] = &report_json,
    [GGUFLINT_FORMAT_SARIF] = &report_sarif,       [GGUFLINT_FORMAT_GITHUB] = &report_github,
    [GGUFLINT_FORMAT_BASELINE] = &report_baseline, [GGUFLINT_FORMAT_CYCLONEDX] = &report_cyclonedx,
};
#define N_WRITERS (sizeof writers / sizeof writers[0])

static const report_writer *writer_of(const gguflint_report *r)
{
    return (size_t)r->fmt < N_WRITERS && writers[r->fmt] ? writers[r->fmt] : &report_text;
}

gguflint_report *gguflint_report_new(gguflint_format fmt, gguflint_write_fn w, void *user)
{
    gguflint_report *r = gl_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fmt = fmt;
    r->o = (out){w, user};
    r->first_file = true;
    r->first_result = true;
    r->bom_time = -1;
    return r;
}

/* The writer's beginning, once, before the first file or at the end: late
 * enough that the settings made after gguflint_report_new (help URI, base)
 * are known to it. */
static void begin_once(gguflint_report *r)
{
    if (r->begun)
        return;
    r->begun = true;
    const report_writer *wr = writer_of(r);
    if (wr->begin)
        wr->begin(r);
}

void gguflint_report_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    gguflint_report_file_ex(r, path, ctx, status, NULL, NULL);
}

void gguflint_report_file_ex(gguflint_report *r, const char *path, const gguflint_ctx *ctx,
                             int status, const bool *baselined, const char *sha256)
{
    if (!r || !path)
        return;
    r->files++;
    r->unreadable += status != GGUFLINT_OK;
    r->skip = status == GGUFLINT_OK && ctx ? baselined : NULL;
    r->sha256 = sha256;
    if (status == GGUFLINT_OK && ctx) {
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            if (!report_shown(r, i)) {
                r->baselined++;
                continue;
            }
            r->counts[f->severity]++;
            if (r->per_rule && (size_t)f->rule < gguflint_rule_count())
                r->per_rule[f->rule]++;
        }
        r->dropped += gguflint_findings_dropped(ctx);
    }
    begin_once(r);
    const report_writer *wr = writer_of(r);
    if (wr->file)
        wr->file(r, path, ctx, status);
    gl_free(r->fps);
    r->fps = NULL;
    r->skip = NULL;
    r->sha256 = NULL;
}

char *report_norm_path(gguflint_report *r, const char *path)
{
    size_t n = gguflint_path_normalize(path, r->base, NULL, 0);
    char *p = gl_malloc(n + 1);
    if (p)
        gguflint_path_normalize(path, r->base, p, n + 1);
    else
        r->nomem = true;
    return p;
}

const uint64_t *report_fingerprints(gguflint_report *r, const char *path, const gguflint_ctx *ctx)
{
    if (r->fps)
        return r->fps;
    size_t n = gguflint_finding_count(ctx);
    char *p = report_norm_path(r, path);
    r->fps = gl_malloc((n ? n : 1) * sizeof *r->fps);
    if (!p || !r->fps || gguflint_finding_fingerprints(ctx, p, r->fps, n) != GGUFLINT_OK) {
        gl_free(r->fps);
        r->fps = NULL;
        r->nomem = true;
    }
    gl_free(p);
    return r->fps;
}

void gguflint_report_failure(gguflint_report *r, const char *path, int status, const char *detail)
{
    /* no context: the writers take the detail from the report (report_detail),
     * so every writer shows the failure as it shows a context's */
    if (!r)
        return;
    r->detail = detail ? detail : "";
    gguflint_report_file(r, path, NULL, status == GGUFLINT_OK ? GGUFLINT_E_IO : status);
    r->detail = NULL;
}

int gguflint_report_set(gguflint_report *r, gguflint_report_setting setting, int value)
{
    if (!r)
        return GGUFLINT_E_ARG;
    switch (setting) {
    case GGUFLINT_REPORT_COLOR: r->color = value != 0; return GGUFLINT_OK;
    case GGUFLINT_REPORT_BASELINE_GONE:
        r->gone = value > 0 ? (uint64_t)value : 0;
        return GGUFLINT_OK;
    case GGUFLINT_REPORT_STATISTICS:
        if (!value) {
            gl_free(r->per_rule);
            r->per_rule = NULL;
        } else if (!r->per_rule) {
            r->per_rule = gl_calloc(gguflint_rule_count(), sizeof *r->per_rule);
            if (!r->per_rule) {
                r->nomem = true;
                return GGUFLINT_E_NOMEM;
            }
        }
        return GGUFLINT_OK;
    default: return GGUFLINT_E_ARG;
    }
}

int gguflint_report_end(gguflint_report *r, bool summary)
{
    if (!r)
        return GGUFLINT_E_ARG;
    begin_once(r);
    const report_writer *wr = writer_of(r);
    if (wr->end)
        wr->end(r, summary);
    return r->nomem ? GGUFLINT_E_NOMEM : GGUFLINT_OK;
}

/* A copy of s (NULL stays NULL) in *slot of report r, the old one freed. */
static int set_copy(gguflint_report *r, char **slot, const char *s)
{
    gl_free(*slot);
    *slot = s ? gl_strdup(s) : NULL;
    if (s && !*slot) {
        r->nomem = true;
        return GGUFLINT_E_NOMEM;
    }
    return GGUFLINT_OK;
}

int gguflint_report_set_config(gguflint_report *r, const char *config_path)
{
    if (!r)
        return GGUFLINT_E_ARG;
    r->config_set = true;
    return set_copy(r, &r->config, config_path);
}

int gguflint_report_set_base(gguflint_report *r, const char *dir)
{
    return r ? set_copy(r, &r->base, dir && dir[0] == '/' ? dir : NULL) : GGUFLINT_E_ARG;
}

int gguflint_report_set_help_uri(gguflint_report *r, const char *url)
{
    return r ? set_copy(r, &r->help_uri, url && *url ? url : NULL) : GGUFLINT_E_ARG;
}

void gguflint_report_free(gguflint_report *r)
{
    if (r) {
        sb_free(&r->notes);
        sb_free(&r->vulns);
        gl_free(r->per_rule);
        gl_free(r->config);
        gl_free(r->base);
        gl_free(r->help_uri);
        gl_free(r->fps);
    }
    gl_free(r);
}

/* One line per rule found ("COUNT  ID slug"), in rule-table order: stable
 * between runs and grouped by family. */
void report_statistics_text(gguflint_report *r)
{
    if (!r->per_rule)
        return;
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        if (!r->per_rule[i])
            continue;
        const gguflint_rule_info *ri = gguflint_rule(i);
        out_putf(&r->o, "%8" PRIu64 "  %s %s\n", r->per_rule[i], ri->id, ri->slug);
    }
}

void report_statistics_json(gguflint_report *r)
{
    if (!r->per_rule)
        return;
    out_put(&r->o, ",\"statistics\":{");
    bool first = true;
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        if (!r->per_rule[i])
            continue;
        out_put(&r->o, first ? "" : ",");
        first = false;
        out_jstr(&r->o, gguflint_rule(i)->id);
        out_putf(&r->o, ":%" PRIu64, r->per_rule[i]);
    }
    out_put(&r->o, "}");
}

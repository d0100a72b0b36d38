/* report.c - lint reports over several files: the public gguflint_report_*
 * functions, the totals (per severity, dropped, and per rule for
 * --statistics), the statistics blocks the text and JSON writers share, and
 * the table of format writers. Knows nothing of GGUF or of any one format. */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const report_writer *const writers[] = {
    [GGUFLINT_FORMAT_TEXT] = &report_text,
    [GGUFLINT_FORMAT_JSON] = &report_json,
    [GGUFLINT_FORMAT_SARIF] = &report_sarif,
    [GGUFLINT_FORMAT_GITHUB] = &report_github,
};
#define N_WRITERS (sizeof writers / sizeof writers[0])

static const report_writer *writer_of(const gguflint_report *r)
{
    return (size_t)r->fmt < N_WRITERS && writers[r->fmt] ? writers[r->fmt] : &report_text;
}

gguflint_report *gguflint_report_new(gguflint_format fmt, gguflint_write_fn w, void *user)
{
    gguflint_report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fmt = fmt;
    r->o = (out){w, user};
    r->first_file = true;
    r->first_result = true;
    const report_writer *wr = writer_of(r);
    if (wr->begin)
        wr->begin(r);
    return r;
}

void gguflint_report_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    if (!r || !path)
        return;
    r->files++;
    if (status != GGUFLINT_OK)
        r->unreadable++;
    if (status == GGUFLINT_OK && ctx) {
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            r->counts[f->severity]++;
            if (r->per_rule && (size_t)f->rule < gguflint_rule_count())
                r->per_rule[f->rule]++;
        }
        r->dropped += gguflint_findings_dropped(ctx);
    }
    const report_writer *wr = writer_of(r);
    if (wr->file)
        wr->file(r, path, ctx, status);
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
    case GGUFLINT_REPORT_STATISTICS:
        if (!value) {
            free(r->per_rule);
            r->per_rule = NULL;
        } else if (!r->per_rule) {
            r->per_rule = calloc(gguflint_rule_count(), sizeof *r->per_rule);
            if (!r->per_rule)
                return GGUFLINT_E_NOMEM;
        }
        return GGUFLINT_OK;
    default: return GGUFLINT_E_ARG;
    }
}

void gguflint_report_end(gguflint_report *r, bool summary)
{
    if (!r)
        return;
    const report_writer *wr = writer_of(r);
    if (wr->end)
        wr->end(r, summary);
}

void gguflint_report_set_config(gguflint_report *r, const char *config_path)
{
    if (!r)
        return;
    free(r->config);
    r->config = NULL;
    r->config_set = true;
    if (config_path) {
        size_t n = strlen(config_path) + 1;
        r->config = malloc(n);
        if (r->config)
            memcpy(r->config, config_path, n);
    }
}

void gguflint_report_free(gguflint_report *r)
{
    if (r) {
        sb_free(&r->notes);
        free(r->per_rule);
        free(r->config);
    }
    free(r);
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

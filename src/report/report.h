/* report.h - the state shared by the report writers (report.c: text and
 * JSON and the dispatch; report_sarif.c; report_github.c). */
#ifndef GGUFLINT_REPORT_H
#define GGUFLINT_REPORT_H

#include "core/internal.h"

struct gguflint_report {
    gguflint_format fmt;
    gguflint_write_fn w;
    void *u;
    uint64_t files, counts[4], dropped;
    bool first_file;
    bool first_result;
    sbuf notes; /* SARIF: toolExecutionNotifications for unreadable files */
    bool any_io_error;
};

void rep_put(gguflint_report *r, const char *s);
void rep_putf(gguflint_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rep_jstr(gguflint_report *r, const char *s);

void sarif_begin(gguflint_report *r);
void sarif_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status);
void sarif_end(gguflint_report *r);
void github_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status);

#endif

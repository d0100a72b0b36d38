/* findings.c - the one sink for findings: applies the effective severity
 * (OFF drops the finding), caps findings per rule, and stores message and
 * path text in one arena; then sorts and publishes them (the finding views of
 * the public API) and removes suppressed ones. */
#include "core/internal.h"
#include "common/alloc.h"
#include "common/order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool emit(gguflint_ctx *ctx, int rule, uint64_t offset, uint64_t length, const char *path,
          const char *fmt, ...)
{
    if (ctx->status != GGUFLINT_OK)
        return false;
    if (rule < 0 || rule >= R__COUNT) {
        ctx->status = GGUFLINT_E_INTERNAL;
        return false;
    }
    gguflint_severity sev = (gguflint_severity)ctx->opt.severity[rule];
    if (sev == GGUFLINT_OFF)
        return true;
    if (ctx->per_rule[rule] >= ctx->opt.limits.max_findings_per_rule) {
        ctx->dropped++;
        return true;
    }
    if (!grow((void **)&ctx->recs, &ctx->cap_recs, ctx->n_recs, sizeof *ctx->recs)) {
        ctx->status = GGUFLINT_E_NOMEM;
        return false;
    }
    finding_rec *r = &ctx->recs[ctx->n_recs];
    r->rule = rule;
    r->severity = sev;
    r->offset = offset;
    r->length = length;
    r->path_off = ctx->text.len;
    sb_put(&ctx->text, path ? path : "", path ? strlen(path) : 0);
    sb_term(&ctx->text);
    r->msg_off = ctx->text.len;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&ctx->text, fmt, ap);
    va_end(ap);
    sb_term(&ctx->text);
    if (ctx->text.failed) {
        ctx->status = GGUFLINT_E_NOMEM;
        return false;
    }
    ctx->n_recs++;
    ctx->per_rule[rule]++;
    return true;
}

bool rule_wanted(const gguflint_ctx *ctx, int rule)
{
    return rule >= 0 && rule < R__COUNT && ctx->opt.severity[rule] != GGUFLINT_OFF &&
           ctx->per_rule[rule] < ctx->opt.limits.max_findings_per_rule;
}

/* Findings in offset order (stable for equal offsets), so output reads like
 * the file. */
static int rec_cmp(const void *a, const void *b)
{
    const finding_rec *x = a, *y = b;
    return 2 * ORDER(x->offset, y->offset) + ORDER(x->msg_off, y->msg_off);
}

int findings_finalize(gguflint_ctx *ctx)
{
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (ctx->n_recs > 1)
        qsort(ctx->recs, ctx->n_recs, sizeof *ctx->recs, rec_cmp);
    gl_free(ctx->pub);
    ctx->pub = NULL;
    ctx->n_pub = 0;
    if (ctx->n_recs) {
        ctx->pub = gl_malloc(ctx->n_recs * sizeof *ctx->pub);
        if (!ctx->pub) {
            ctx->status = GGUFLINT_E_NOMEM;
            return ctx->status;
        }
        for (size_t i = 0; i < ctx->n_recs; i++) {
            const finding_rec *r = &ctx->recs[i];
            ctx->pub[i] = (gguflint_finding){r->rule,
                                             r->severity,
                                             r->offset,
                                             r->length,
                                             ctx->text.data + r->path_off,
                                             ctx->text.data + r->msg_off};
        }
        ctx->n_pub = ctx->n_recs;
    }
    return GGUFLINT_OK;
}

size_t gguflint_suppress(gguflint_ctx *ctx, size_t rule)
{
    if (!ctx || ctx->status != GGUFLINT_OK)
        return 0;
    size_t kept = 0, removed = 0;
    for (size_t i = 0; i < ctx->n_recs; i++) {
        if ((size_t)ctx->recs[i].rule == rule) {
            removed++;
            continue;
        }
        ctx->recs[kept++] = ctx->recs[i];
    }
    if (removed && rule < R__COUNT)
        ctx->per_rule[rule] = 0;
    ctx->n_recs = kept;
    if (removed)
        findings_finalize(ctx);
    return removed;
}

size_t gguflint_finding_count(const gguflint_ctx *ctx)
{
    return ctx ? ctx->n_pub : 0;
}

const gguflint_finding *gguflint_finding_get(const gguflint_ctx *ctx, size_t i)
{
    return ctx && i < ctx->n_pub ? &ctx->pub[i] : NULL;
}

uint64_t gguflint_findings_dropped(const gguflint_ctx *ctx)
{
    return ctx ? ctx->dropped : 0;
}

gguflint_severity gguflint_max_severity(const gguflint_ctx *ctx)
{
    gguflint_severity m = GGUFLINT_OFF;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        if (ctx->pub[i].severity > m)
            m = ctx->pub[i].severity;
    return m;
}

void path_kv(char *buf, size_t cap, const uint8_t *key, uint64_t key_len)
{
    char k[192];
    esc_fixed(k, sizeof k, key, key_len, 120);
    size_t kl = strlen(k);
    if (cap < 8)
        return;
    size_t n = 0;
    memcpy(buf, "kv[\"", 4);
    n = 4;
    if (kl > cap - n - 3)
        kl = cap - n - 3;
    memcpy(buf + n, k, kl);
    n += kl;
    memcpy(buf + n, "\"]", 3);
}

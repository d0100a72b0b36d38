/* ctx.c - the context's life cycle, the run entry point and the accessors of
 * the model and the findings. */
#include "core/internal.h"

#include "checks/checks.h"
#include "format/types.h"

#include <stdlib.h>
#include <string.h>

const char *gguflint_strerror(int st)
{
    switch (st) {
    case GGUFLINT_OK: return "ok";
    case GGUFLINT_E_IO: return "I/O error";
    case GGUFLINT_E_NOT_REGULAR: return "not a regular file";
    case GGUFLINT_E_NOMEM: return "out of memory";
    case GGUFLINT_E_STATE: return "bad call sequence";
    case GGUFLINT_E_ARG: return "bad argument";
    case GGUFLINT_E_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

gguflint_ctx *gguflint_new(const gguflint_options *opt)
{
    gguflint_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    if (opt)
        ctx->opt = *opt;
    else
        gguflint_options_default(&ctx->opt);
    if (ctx->opt.limits.max_findings_per_rule == 0)
        ctx->opt.limits.max_findings_per_rule = 1;
    ctx->hdr.alignment = 32;
    ctx->fd = -1;
    return ctx;
}

void gguflint_free(gguflint_ctx *ctx)
{
    if (!ctx)
        return;
    source_release(ctx);
    free(ctx->kvs);
    free(ctx->tensors);
    free(ctx->recs);
    free(ctx->pub);
    free(ctx->kv_slots);
    free(ctx->tensor_slots);
    free(ctx->name);
    sb_free(&ctx->text);
    free(ctx);
}

int gguflint_set_name(gguflint_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return GGUFLINT_E_ARG;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    size_t n = strlen(name) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, name, n);
    if (!copy) {
        ctx->status = GGUFLINT_E_NOMEM;
        return ctx->status;
    }
    free(ctx->name);
    ctx->name = copy;
    return GGUFLINT_OK;
}

const char *gguflint_error_detail(const gguflint_ctx *ctx)
{
    return ctx ? ctx->error_detail : "";
}

/* Findings in offset order (stable for equal offsets), so output reads like
 * the file. */
static int rec_cmp(const void *a, const void *b)
{
    const finding_rec *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->msg_off < y->msg_off ? -1 : x->msg_off > y->msg_off;
}

int gguflint_run(gguflint_ctx *ctx)
{
    if (!ctx)
        return GGUFLINT_E_ARG;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (!ctx->input_set) {
        ctx->status = GGUFLINT_E_STATE;
        return ctx->status;
    }
    if (ctx->ran)
        return GGUFLINT_OK;
    ctx->ran = true;
    if (source_check_unchanged(ctx) != GGUFLINT_OK)
        return ctx->status;
    if (ctx->stream_truncated)
        emit(ctx, R_TRUNCATED, ctx->size, 0, "input",
             "the stream is longer than the %llu-byte input limit; only its start was read",
             (unsigned long long)ctx->size);
    parse_run(ctx);
    if (ctx->status == GGUFLINT_OK)
        layout_check(ctx);
    if (ctx->status == GGUFLINT_OK)
        checks_run(ctx);
    if (ctx->status == GGUFLINT_OK && ctx->opt.deep)
        check_data(ctx);
    source_close_fd(ctx);
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    return findings_finalize(ctx);
}

int findings_finalize(gguflint_ctx *ctx)
{
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (ctx->n_recs > 1)
        qsort(ctx->recs, ctx->n_recs, sizeof *ctx->recs, rec_cmp);
    free(ctx->pub);
    ctx->pub = NULL;
    ctx->n_pub = 0;
    if (ctx->n_recs) {
        ctx->pub = malloc(ctx->n_recs * sizeof *ctx->pub);
        if (!ctx->pub) {
            ctx->status = GGUFLINT_E_NOMEM;
            return ctx->status;
        }
        for (size_t i = 0; i < ctx->n_recs; i++) {
            const finding_rec *r = &ctx->recs[i];
            ctx->pub[i] = (gguflint_finding){r->rule, r->severity, r->offset, r->length,
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

const gguflint_header *gguflint_get_header(const gguflint_ctx *ctx)
{
    return ctx ? &ctx->hdr : NULL;
}

size_t gguflint_kv_count(const gguflint_ctx *ctx)
{
    return ctx ? ctx->n_kvs : 0;
}

const gguflint_kv *gguflint_kv_get(const gguflint_ctx *ctx, size_t i)
{
    return ctx && i < ctx->n_kvs ? &ctx->kvs[i] : NULL;
}

long gguflint_kv_find(const gguflint_ctx *ctx, const char *key)
{
    if (!ctx || !key)
        return -1;
    size_t n = strlen(key);
    for (size_t i = 0; i < ctx->n_kvs; i++)
        if (ctx->kvs[i].key.len == n && memcmp(ctx->kvs[i].key.ptr, key, n) == 0)
            return (long)i;
    return -1;
}

size_t gguflint_tensor_count(const gguflint_ctx *ctx)
{
    return ctx ? ctx->n_tensors : 0;
}

const gguflint_tensor *gguflint_tensor_get(const gguflint_ctx *ctx, size_t i)
{
    return ctx && i < ctx->n_tensors ? &ctx->tensors[i] : NULL;
}

const char *gguflint_value_type_name(uint32_t t)
{
    return vt_name(t);
}

const char *gguflint_ggml_type_name(uint32_t t)
{
    const ggml_type_info *ti = gt_info(t);
    return ti->status == GT_VALID ? ti->name : NULL;
}

void gguflint_write_file(void *user, const char *data, size_t len)
{
    fwrite(data, 1, len, (FILE *)user);
}

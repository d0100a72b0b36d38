/* report_cyclonedx.c - `--format cyclonedx`: one CycloneDX 1.6 BOM (JSON)
 * for the whole run, an AI-BOM a security team files for the models it
 * admits. Each file is a component of type machine-learning-model whose
 * fields come from its general.* KVs (name, version, organisation as
 * supplier, author, description, licence, tags, base models as pedigree
 * ancestors, datasets and architecture in the model card), with the file's
 * SHA-256 (when the caller read the whole file) and size, quantisation
 * (general.file_type and the tensor types) and parameter count in the
 * model card's properties, and the other general.* scalars and strings as
 * properties. The findings are the BOM's vulnerabilities (id: the rule id;
 * a rating with the severity; affects: the file's component), which 1.6
 * allows for any weakness a tool reports. Deterministic: no serialNumber,
 * and no timestamp unless the caller sets one (gguflint_report_set_timestamp:
 * the CLI's --bom-timestamp or SOURCE_DATE_EPOCH), so two runs over the same
 * files give the same bytes.
 *
 * Array KVs (tags, datasets) are read through model/model.h's iterator,
 * as dump.c does, from the metadata already in memory: never past the
 * value's bytes, and never more than CDX_MAX_LIST elements or base models. */
#include "model/model.h"

#include "common/escape.h"
#include "format/filetypes.h"
#include "gguflint_llama.h"
#include "report/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define CDX_MAX_LIST 256 /* tags, datasets, base models listed per file */

#define CDX_TIME_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */

int gguflint_report_set_timestamp(gguflint_report *r, int64_t when)
{
    if (!r || when < -1 || when > CDX_TIME_MAX)
        return GGUFLINT_E_ARG;
    r->bom_time = when;
    return GGUFLINT_OK;
}

/* Seconds since the epoch (0..CDX_TIME_MAX) as YYYY-MM-DDTHH:MM:SSZ, by the
 * proleptic Gregorian calendar (days to civil date: Hinnant's algorithm),
 * without the C library's time zone state. */
static void iso_time(char buf[32], int64_t t)
{
    int64_t days = t / 86400, sec = t % 86400;
    int64_t z = days + 719468, era = z / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    snprintf(buf, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, (int)m, (int)d, (int)(sec / 3600),
             (int)(sec / 60 % 60), (int)(sec % 60));
}

static void cdx_begin(gguflint_report *r)
{
    out_put(&r->o, "{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"version\":1,"
                   "\"metadata\":{");
    if (r->bom_time >= 0) {
        char when[32];
        iso_time(when, r->bom_time);
        out_putf(&r->o, "\"timestamp\":\"%s\",", when);
    }
    out_put(&r->o, "\"tools\":{\"components\":[{\"type\":\"application\","
                   "\"name\":\"gguflint\",\"version\":");
    out_jstr(&r->o, GGUFLINT_VERSION);
    out_put(&r->o, "}]}},\"components\":[");
}

static const gguflint_kv *str_kv(const gguflint_ctx *ctx, const char *key)
{
    const gguflint_kv *kv = kv_by_key(ctx, key);
    return kv && kv->type == VT_STRING ? kv : NULL;
}

static void put_view(const out *o, gguflint_view v)
{
    gguflint_json_string(o->w, o->u, v.ptr, (size_t)v.len);
}

/* ,"field":"<the string KV key>" when the file has it. */
static bool field(const out *o, const gguflint_ctx *ctx, const char *name, const char *key)
{
    const gguflint_kv *kv = str_kv(ctx, key);
    if (!kv)
        return false;
    out_putf(o, ",\"%s\":", name);
    put_view(o, kv->str);
    return true;
}

/* ,"field":{"name":<the string KV key>} */
static void named(const out *o, const gguflint_ctx *ctx, const char *name, const char *key,
                  const char *open, const char *close)
{
    const gguflint_kv *kv = str_kv(ctx, key);
    if (!kv)
        return;
    out_putf(o, ",\"%s\":%s{\"name\":", name, open);
    put_view(o, kv->str);
    out_put(o, close);
}

/* The strings of a string array KV as JSON array items, each between
 * before and after, a comma before each unless it is the first of the
 * array (*written counts the array's items so far). */
static void string_items(const out *o, const gguflint_ctx *ctx, const gguflint_kv *kv,
                         const char *before, const char *after, size_t *written)
{
    arr_iter it;
    gguflint_view el;
    if (!kv || kv->type != VT_ARRAY || kv->elem_type != VT_STRING || !arr_iter_init(ctx, kv, &it))
        return;
    for (size_t n = 0; n < CDX_MAX_LIST && arr_next(&it, &el, NULL); n++) {
        out_put(o, (*written)++ ? "," : "");
        out_put(o, before);
        put_view(o, el);
        out_put(o, after);
    }
}

/* general.base_model.N.* as pedigree ancestors. */
static void ancestors(const out *o, const gguflint_ctx *ctx)
{
    const gguflint_kv *c = kv_by_key(ctx, "general.base_model.count");
    int64_t n;
    if (!c || !kv_int(c, &n) || n <= 0)
        return;
    out_put(o, ",\"pedigree\":{\"ancestors\":[");
    bool first = true;
    for (int64_t i = 0; i < n && i < CDX_MAX_LIST; i++) {
        const gguflint_kv *name = kv_by_keyf(ctx, "general.base_model.%" PRId64 ".name", i);
        if (!name || name->type != VT_STRING)
            continue;
        out_put(o, first ? "{\"type\":\"machine-learning-model\",\"name\":"
                         : ",{\"type\":\"machine-learning-model\",\"name\":");
        first = false;
        put_view(o, name->str);
        char key[96];
        snprintf(key, sizeof key, "general.base_model.%" PRId64 ".version", i);
        field(o, ctx, "version", key);
        snprintf(key, sizeof key, "general.base_model.%" PRId64 ".organization", i);
        named(o, ctx, "supplier", key, "", "}");
        out_put(o, "}");
    }
    out_put(o, "]}");
}

/* general.dataset.N.name and general.datasets as the model card's datasets. */
static void datasets(const out *o, const gguflint_ctx *ctx, bool comma)
{
    const gguflint_kv *c = kv_by_key(ctx, "general.dataset.count");
    const gguflint_kv *list = kv_by_key(ctx, "general.datasets");
    int64_t n = 0;
    if (!(c && kv_int(c, &n) && n > 0) && !list)
        return;
    out_put(o, comma ? ",\"datasets\":[" : "\"datasets\":[");
    size_t w = 0;
    for (int64_t i = 0; i < n && i < CDX_MAX_LIST; i++) {
        const gguflint_kv *name = kv_by_keyf(ctx, "general.dataset.%" PRId64 ".name", i);
        if (!name || name->type != VT_STRING)
            continue;
        out_put(o, w++ ? ",{\"type\":\"dataset\",\"name\":" : "{\"type\":\"dataset\",\"name\":");
        put_view(o, name->str);
        out_put(o, "}");
    }
    string_items(o, ctx, list, "{\"type\":\"dataset\",\"name\":", "}", &w);
    out_put(o, "]");
}

static void property(const out *o, bool *first, const char *name, const char *value)
{
    out_put(o, *first ? "{\"name\":" : ",{\"name\":");
    *first = false;
    out_jstr(o, name);
    out_put(o, ",\"value\":");
    out_jstr(o, value);
    out_put(o, "}");
}

/* Quantisation and size of the weights: general.file_type, the tensor
 * types with their counts, the parameter count (elements of every tensor;
 * left out when a product overflows). */
static void model_card(const out *o, const gguflint_ctx *ctx)
{
    out_put(o, ",\"modelCard\":{\"modelParameters\":{");
    const gguflint_kv *arch = str_kv(ctx, "general.architecture");
    if (arch) {
        out_put(o, "\"modelArchitecture\":");
        put_view(o, arch->str);
    }
    datasets(o, ctx, arch != NULL);
    out_put(o, "},\"properties\":[");
    bool first = true;
    char buf[160];
    const gguflint_kv *ft = kv_by_key(ctx, "general.file_type");
    int64_t v;
    if (ft && kv_int(ft, &v)) {
        const ftype_info *fi = v >= 0 && v <= UINT32_MAX ? ft_info((uint32_t)v) : NULL;
        snprintf(buf, sizeof buf, "%" PRId64 "%s%s%s", v, fi ? " (" : "", fi ? fi->display : "",
                 fi ? ")" : "");
        property(o, &first, "gguf:file_type", buf);
    }
    uint64_t per_type[64] = {0}, params = 0, other = 0;
    bool overflow = false;
    size_t n = gguflint_tensor_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const gguflint_tensor *t = gguflint_tensor_get(ctx, i);
        if (t->type < 64)
            per_type[t->type]++;
        else
            other++;
        uint64_t e = 1;
        for (uint32_t d = 0; d < 4 && !overflow; d++)
            overflow |= __builtin_mul_overflow(e, t->ne[d], &e);
        overflow |= __builtin_add_overflow(params, e, &params);
    }
    if (!overflow) {
        snprintf(buf, sizeof buf, "%" PRIu64, params);
        property(o, &first, "gguf:parameters", buf);
    }
    sbuf types = {0};
    for (uint32_t t = 0; t < 64; t++)
        if (per_type[t]) {
            const char *name = gguflint_ggml_type_name(t);
            if (name)
                sb_printf(&types, "%s%s=%" PRIu64, types.len ? "," : "", name, per_type[t]);
            else
                sb_printf(&types, "%stype%u=%" PRIu64, types.len ? "," : "", t, per_type[t]);
        }
    if (other)
        sb_printf(&types, "%sother=%" PRIu64, types.len ? "," : "", other);
    if (types.len && !types.failed)
        property(o, &first, "gguf:tensor_types", types.data);
    sb_free(&types);
    out_put(o, "]}");
}

/* The other general.* scalars and strings, the header numbers. */
static void properties(const out *o, const char *path, const gguflint_ctx *ctx)
{
    static const char *const shown[] = {
        "general.name",        "general.version", "general.organization", "general.author",
        "general.description", "general.license", "general.architecture", "general.file_type",
        "general.tags",        "general.datasets"};
    out_put(o, ",\"properties\":[");
    bool first = true;
    property(o, &first, "gguflint:path", path);
    const gguflint_header *h = gguflint_get_header(ctx);
    char buf[64];
    snprintf(buf, sizeof buf, "%" PRIu64, h->file_size);
    property(o, &first, "gguf:size", buf);
    if (h->is_gguf) {
        snprintf(buf, sizeof buf, "%" PRIu32, h->version);
        property(o, &first, "gguf:version", buf);
        snprintf(buf, sizeof buf, "%" PRIu64, h->alignment);
        property(o, &first, "gguf:alignment", buf);
    }
    for (size_t i = 0; i < gguflint_kv_count(ctx); i++) {
        const gguflint_kv *kv = gguflint_kv_get(ctx, i);
        if (!view_starts(kv->key, "general.") || kv->type == VT_ARRAY)
            continue;
        bool skip = false;
        for (size_t k = 0; k < sizeof shown / sizeof shown[0] && !skip; k++)
            skip = view_eq(kv->key, shown[k]);
        if (skip || view_starts(kv->key, "general.base_model.") ||
            view_starts(kv->key, "general.dataset."))
            continue;
        out_put(o, ",{\"name\":\"gguf:");
        sbuf name = {0};
        json_quote_sb(&name, (const char *)kv->key.ptr, (size_t)kv->key.len);
        if (name.len >= 2 && !name.failed) /* the key's escaped text, without its quotes */
            out_putn(o, name.data + 1, name.len - 2);
        sb_free(&name);
        out_put(o, "\",\"value\":");
        double f;
        int64_t n;
        if (kv->type == VT_STRING)
            put_view(o, kv->str);
        else if (kv->type == VT_BOOL)
            out_put(o, kv->u ? "\"true\"" : "\"false\"");
        else if (kv_int(kv, &n))
            out_putf(o, "\"%" PRId64 "\"", n);
        else if (kv->type == VT_UINT64)
            out_putf(o, "\"%" PRIu64 "\"", kv->u);
        else if (kv_num(kv, &f))
            out_putf(o, "\"%.9g\"", f);
        else
            out_put(o, "\"\"");
        out_put(o, "}");
    }
    out_put(o, "]");
}

/* A short base name for a component without general.name. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static const char *rating(gguflint_severity s)
{
    return s == GGUFLINT_ERROR ? "high" : s == GGUFLINT_WARNING ? "medium" : "info";
}

/* The file's findings, appended to r->vulns (written at the end). */
static void vulnerabilities(gguflint_report *r, const char *ref, const gguflint_ctx *ctx)
{
    out v = {sb_write, &r->vulns};
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        if (!report_shown(r, i))
            continue;
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        out_putf(&v, "%s{\"bom-ref\":\"%s-finding-%zu\",\"id\":", r->vulns.len ? "," : "", ref, i);
        out_jstr(&v, ri->id);
        out_put(&v, ",\"source\":{\"name\":\"gguflint\"");
        if (r->help_uri) {
            char anchor[96];
            gguflint_rule_anchor((size_t)f->rule, anchor, sizeof anchor);
            sbuf url = {0};
            sb_printf(&url, "%s#%s", r->help_uri, anchor);
            if (!url.failed && url.data) {
                out_put(&v, ",\"url\":");
                out_jstr(&v, url.data);
            }
            sb_free(&url);
        }
        out_putf(&v, "},\"ratings\":[{\"source\":{\"name\":\"gguflint\"},");
        if (ri->security_severity)
            out_putf(&v, "\"score\":%s,", ri->security_severity);
        out_putf(&v, "\"severity\":\"%s\",\"method\":\"other\"}]", rating(f->severity));
        if (ri->cwe > 0)
            out_putf(&v, ",\"cwes\":[%d]", ri->cwe);
        out_put(&v, ",\"description\":");
        out_jstr(&v, ri->summary);
        out_put(&v, ",\"detail\":");
        out_jstr(&v, f->message);
        if (ri->fix) {
            out_put(&v, ",\"recommendation\":");
            out_jstr(&v, ri->fix);
        }
        out_putf(&v, ",\"affects\":[{\"ref\":\"%s\"}],\"properties\":[", ref);
        bool first = true;
        property(&v, &first, "gguflint:slug", ri->slug);
        property(&v, &first, "gguflint:severity", gguflint_severity_name(f->severity));
        char buf[48];
        snprintf(buf, sizeof buf, "%" PRIu64, f->offset);
        property(&v, &first, "gguflint:offset", buf);
        snprintf(buf, sizeof buf, "%" PRIu64, f->length);
        property(&v, &first, "gguflint:length", buf);
        property(&v, &first, "gguflint:location", f->path);
        out_put(&v, "]}");
    }
}

static void cdx_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    const out *o = &r->o;
    char ref[40];
    snprintf(ref, sizeof ref, "gguflint-file-%" PRIu64, r->files);
    out_putf(o, "%s{\"type\":\"machine-learning-model\",\"bom-ref\":\"%s\",\"name\":",
             r->first_file ? "" : ",", ref);
    r->first_file = false;
    bool ok = status == GGUFLINT_OK && ctx;
    const gguflint_kv *name = ok ? str_kv(ctx, "general.name") : NULL;
    if (name && name->str.len)
        put_view(o, name->str);
    else
        out_jstr(o, base_name(path));
    if (!ok) {
        out_put(o, ",\"properties\":[");
        bool first = true;
        property(o, &first, "gguflint:path", path);
        property(o, &first, "gguflint:error", gguflint_strerror(status));
        property(o, &first, "gguflint:detail", report_detail(r, ctx));
        out_put(o, "]}");
        return;
    }
    field(o, ctx, "version", "general.version");
    field(o, ctx, "description", "general.description");
    named(o, ctx, "supplier", "general.organization", "", "}");
    named(o, ctx, "authors", "general.author", "[", "}]");
    named(o, ctx, "licenses", "general.license", "[{\"license\":", "}}]");
    if (r->sha256) {
        out_put(o, ",\"hashes\":[{\"alg\":\"SHA-256\",\"content\":");
        out_jstr(o, r->sha256);
        out_put(o, "}]");
    }
    const gguflint_kv *tags = kv_by_key(ctx, "general.tags");
    if (tags && tags->type == VT_ARRAY && tags->elem_type == VT_STRING && tags->count) {
        out_put(o, ",\"tags\":[");
        size_t w = 0;
        string_items(o, ctx, tags, "", "", &w);
        out_put(o, "]");
    }
    ancestors(o, ctx);
    model_card(o, ctx);
    properties(o, path, ctx);
    out_put(o, "}");
    vulnerabilities(r, ref, ctx);
}

static void cdx_end(gguflint_report *r, bool summary)
{
    (void)summary;
    out_put(&r->o, "]");
    if (r->vulns.len && !r->vulns.failed) {
        out_put(&r->o, ",\"vulnerabilities\":[");
        out_putn(&r->o, r->vulns.data, r->vulns.len);
        out_put(&r->o, "]");
    }
    out_put(&r->o, "}\n");
}

const report_writer report_cyclonedx = {cdx_begin, cdx_file, cdx_end};

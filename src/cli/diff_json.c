/* diff_json.c - `gguflint diff --format json`: one document, schema_version
 * 1, described by docs/schemas/gguflint-diff.schema.json (a test validates
 * the output against it). Fields are only ever added within a version. */
#include "diff.h"

#include <inttypes.h>
#include <string.h>

#define put diff_put /* the shared writer helpers (diff.h) */

static void jview(const diff_out *j, gguflint_view v)
{
    gguflint_json_string(j->w, j->u, v.ptr, (size_t)v.len);
}

static void jstr(const diff_out *j, const char *s)
{
    gguflint_json_string(j->w, j->u, s, strlen(s));
}

static void value(const diff_out *j, const diff_value *v)
{
    char b[48];
    const gguflint_kv *kv = v->kv;
    put(j, "{\"type\":");
    jstr(j, diff_type_name(kv->type, false, b));
    if (kv->type == 9) {
        put(j, ",\"elem_type\":");
        jstr(j, diff_type_name(kv->elem_type, false, b));
        diff_putf(j, ",\"count\":%" PRIu64, kv->count);
    } else if (kv->type == 8 && !v->summarised) {
        put(j, ",\"value\":");
        jview(j, kv->str);
    } else if (kv->type != 8) {
        diff_scalar(kv, true, b);
        diff_putf(j, ",\"value\":%s", b);
        if (kv->type == 7 && kv->u > 1) /* the byte, when it is not 0 or 1 */
            diff_putf(j, ",\"raw\":%" PRIu64, kv->u);
    }
    if (v->summarised) {
        diff_putf(j, ",\"bytes\":%" PRIu64 ",\"sha256\":", v->bytes);
        if (v->sha256[0])
            jstr(j, v->sha256);
        else
            put(j, "null");
    }
    put(j, "}");
}

static void tensor(const diff_out *j, const gguflint_tensor *x, const char *sha)
{
    char b[24];
    put(j, "{\"type\":");
    jstr(j, diff_type_name(x->type, true, b));
    diff_putf(j, ",\"n_dims\":%" PRIu32 ",\"shape\":[", x->n_dims);
    uint32_t n = x->n_dims < 4 ? x->n_dims : 4;
    for (uint32_t d = 0; d < n; d++)
        diff_putf(j, "%s%" PRIu64, d ? "," : "", x->ne[d]);
    put(j, "]");
    if (sha) {
        put(j, ",\"sha256\":");
        jstr(j, sha);
    }
    put(j, "}");
}

static void side(const diff_out *j, const char *name, const diff_side *s)
{
    diff_putf(j, "\"%s\":{\"paths\":[", name);
    for (size_t k = 0; k < s->n; k++) {
        put(j, k ? "," : "");
        jstr(j, s->paths[k]);
    }
    put(j, "]},");
}

static void keys(const diff_out *j, const diff_result *r)
{
    static const char *const what[] = {"added", "removed", "changed"};
    put(j, ",\"keys\":[");
    for (size_t i = 0; i < r->n_keys; i++) {
        const diff_key *k = &r->keys[i];
        put(j, i ? ",{\"key\":" : "{\"key\":");
        jview(j, k->key);
        diff_putf(j, ",\"change\":\"%s\"", what[k->change]);
        if (k->change != DIFF_ADDED) {
            put(j, ",\"a\":");
            value(j, &k->a);
        }
        if (k->change != DIFF_REMOVED) {
            put(j, ",\"b\":");
            value(j, &k->b);
        }
        put(j, "}");
    }
    put(j, "]");
}

static void tensors(const diff_out *j, const diff_result *r)
{
    static const char *const what[] = {"added", "removed", "changed"};
    put(j, ",\"tensors\":[");
    for (size_t i = 0; i < r->n_tensors; i++) {
        const diff_tensor *d = &r->tensors[i];
        put(j, i ? ",{\"name\":" : "{\"name\":");
        jview(j, (d->a ? d->a : d->b)->name);
        diff_putf(j, ",\"change\":\"%s\",\"what\":[", what[d->change]);
        const char *sep = "";
        if (d->what & DIFF_T_SHAPE) {
            put(j, "\"shape\"");
            sep = ",";
        }
        if (d->what & DIFF_T_TYPE) {
            diff_putf(j, "%s\"type\"", sep);
            sep = ",";
        }
        if (d->what & DIFF_T_DATA)
            diff_putf(j, "%s\"data\"", sep);
        put(j, "]");
        if (d->a) {
            put(j, ",\"a\":");
            tensor(j, d->a, d->sha_a);
        }
        if (d->b) {
            put(j, ",\"b\":");
            tensor(j, d->b, d->sha_b);
        }
        put(j, "}");
    }
    put(j, "]");
}

static void templates(const diff_out *j, const diff_result *r)
{
    put(j, ",\"templates\":[");
    for (size_t i = 0; i < r->n_templates; i++) {
        const line_diff *l = &r->templates[i].lines;
        put(j, i ? ",{\"key\":" : "{\"key\":");
        jview(j, r->templates[i].key);
        diff_putf(j, ",\"removed\":%zu,\"added\":%zu,\"truncated\":%s,\"lines\":[", l->removed,
                  l->added, l->truncated ? "true" : "false");
        for (size_t k = 0; k < l->n; k++) {
            diff_putf(j, "%s{\"op\":\"%c\",\"line\":%zu,\"text\":", k ? "," : "", l->ops[k].op,
                      l->ops[k].line);
            gguflint_json_string(j->w, j->u, l->ops[k].text, l->ops[k].len);
            put(j, "}");
        }
        put(j, "]}");
    }
    put(j, "]");
}

void diff_write_json(const diff_side *a, const diff_side *b, const diff_result *r,
                     gguflint_write_fn w, void *user)
{
    diff_out j = {w, user};
    put(&j, "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":");
    jstr(&j, GGUFLINT_VERSION);
    put(&j, "},");
    side(&j, "a", a);
    side(&j, "b", b);
    diff_putf(&j, "\"same\":%s,\"data_compared\":%s,\"header\":[", diff_any(r) ? "false" : "true",
              r->data_compared ? "true" : "false");
    for (size_t i = 0; i < r->n_header; i++)
        diff_putf(&j, "%s{\"field\":\"%s\",\"a\":%" PRIu64 ",\"b\":%" PRIu64 "}", i ? "," : "",
                  r->header[i].field, r->header[i].a, r->header[i].b);
    put(&j, "]");
    keys(&j, r);
    tensors(&j, r);
    templates(&j, r);
    diff_putf(&j,
              ",\"summary\":{\"header\":%zu,\"keys_added\":%zu,\"keys_removed\":%zu,"
              "\"keys_changed\":%zu,\"tensors_added\":%zu,\"tensors_removed\":%zu,"
              "\"tensors_changed\":%zu}}\n",
              r->n_header, r->keys_added, r->keys_removed, r->keys_changed, r->tensors_added,
              r->tensors_removed, r->tensors_changed);
}

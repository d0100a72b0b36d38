/* diff_text.c - the text form of `gguflint diff`: one line per difference
 * (header fields, keys, tensors), then each template's changed lines, then
 * a count. Every name, value and line from a file is escaped. */
#include "diff.h"

#include <inttypes.h>
#include <string.h>

#define put diff_put /* the shared writer helpers (diff.h) */

static void esc(const diff_out *t, gguflint_view v)
{
    gguflint_escape(t->w, t->u, v.ptr, (size_t)v.len);
}

static void value(const diff_out *t, const diff_value *v)
{
    char b[48];
    const gguflint_kv *kv = v->kv;
    put(t, diff_type_name(kv->type, false, b));
    if (kv->type == 9) {
        diff_putf(t, "[%s] x%" PRIu64, diff_type_name(kv->elem_type, false, b), kv->count);
    } else if (kv->type == 8 && !v->summarised) {
        put(t, " \"");
        esc(t, kv->str);
        put(t, "\"");
    } else if (kv->type != 8) {
        diff_scalar(kv, false, b);
        diff_putf(t, " %s", b);
    }
    if (v->summarised)
        diff_putf(t, " (%" PRIu64 " bytes, sha256 %s)", v->bytes,
                  v->sha256[0] ? v->sha256 : "unavailable");
}

static void shape(const diff_out *t, const gguflint_tensor *x)
{
    char b[24];
    put(t, diff_type_name(x->type, true, b));
    put(t, " [");
    uint32_t n = x->n_dims < 4 ? x->n_dims : 4;
    for (uint32_t d = 0; d < n; d++)
        diff_putf(t, "%s%" PRIu64, d ? ", " : "", x->ne[d]);
    put(t, x->n_dims > 4 ? ", ...]" : "]");
}

static void sides(const diff_out *t, const char *label, const diff_side *s)
{
    put(t, label);
    for (size_t k = 0; k < s->n; k++) {
        put(t, k ? ", " : "");
        gguflint_escape(t->w, t->u, s->paths[k], strlen(s->paths[k]));
    }
    put(t, "\n");
}

static void keys(const diff_out *t, const diff_result *r)
{
    static const char *const what[] = {"added", "removed", "changed"};
    for (size_t i = 0; i < r->n_keys; i++) {
        const diff_key *k = &r->keys[i];
        diff_putf(t, "key %s: ", what[k->change]);
        esc(t, k->key);
        put(t, ": ");
        if (k->lines) {
            diff_putf(t, "%" PRIu64 " -> %" PRIu64 " bytes, lines below\n", k->a.kv->str.len,
                      k->b.kv->str.len);
            continue;
        }
        if (k->change != DIFF_ADDED)
            value(t, &k->a);
        if (k->change == DIFF_CHANGED)
            put(t, " -> ");
        if (k->change != DIFF_REMOVED)
            value(t, &k->b);
        put(t, "\n");
    }
}

static void tensors(const diff_out *t, const diff_result *r)
{
    for (size_t i = 0; i < r->n_tensors; i++) {
        const diff_tensor *d = &r->tensors[i];
        const gguflint_tensor *x = d->a ? d->a : d->b;
        if (d->change != DIFF_CHANGED) {
            put(t, d->change == DIFF_ADDED ? "tensor added: " : "tensor removed: ");
            esc(t, x->name);
            put(t, ": ");
            shape(t, x);
            put(t, "\n");
            continue;
        }
        put(t, "tensor ");
        put(t, d->what & DIFF_T_SHAPE ? "reshaped" : "");
        put(t, (d->what & DIFF_T_SHAPE) && (d->what & DIFF_T_TYPE) ? "+" : "");
        put(t, d->what & DIFF_T_TYPE ? "retyped" : "");
        put(t, (d->what & (DIFF_T_SHAPE | DIFF_T_TYPE)) && (d->what & DIFF_T_DATA) ? "+" : "");
        put(t, d->what & DIFF_T_DATA ? "data" : "");
        put(t, ": ");
        esc(t, x->name);
        put(t, ": ");
        shape(t, d->a);
        put(t, " -> ");
        shape(t, d->b);
        if (d->what & DIFF_T_DATA)
            diff_putf(t, " (sha256 %s -> %s)", d->sha_a, d->sha_b);
        put(t, "\n");
    }
}

static void templates(const diff_out *t, const diff_result *r)
{
    for (size_t i = 0; i < r->n_templates; i++) {
        const line_diff *l = &r->templates[i].lines;
        put(t, "template ");
        esc(t, r->templates[i].key);
        diff_putf(t, ": %zu lines removed, %zu added%s\n", l->removed, l->added,
                  l->truncated ? " (truncated: the line diff's budget ran out; the changed "
                                 "middle is shown whole)"
                               : "");
        for (size_t k = 0; k < l->n; k++) {
            diff_putf(t, "  %c%zu| ", l->ops[k].op, l->ops[k].line);
            gguflint_escape(t->w, t->u, l->ops[k].text, l->ops[k].len);
            put(t, "\n");
        }
    }
}

void diff_write_text(const diff_side *a, const diff_side *b, const diff_result *r,
                     gguflint_write_fn w, void *user)
{
    diff_out t = {w, user};
    sides(&t, "--- ", a);
    sides(&t, "+++ ", b);
    for (size_t i = 0; i < r->n_header; i++)
        diff_putf(&t, "header %s: %" PRIu64 " -> %" PRIu64 "\n", r->header[i].field, r->header[i].a,
                  r->header[i].b);
    keys(&t, r);
    tensors(&t, r);
    templates(&t, r);
    if (!diff_any(r)) {
        put(&t, "the files are the same");
        put(&t, r->data_compared ? " (tensor data compared)\n" : " (tensor data not compared)\n");
        return;
    }
    diff_putf(&t,
              "%zu header, %zu key (%zu added, %zu removed, %zu changed), %zu tensor (%zu added, "
              "%zu removed, %zu changed) differences%s\n",
              r->n_header, r->n_keys, r->keys_added, r->keys_removed, r->keys_changed, r->n_tensors,
              r->tensors_added, r->tensors_removed, r->tensors_changed,
              r->data_compared ? "" : "; tensor data not compared (--data)");
}

/* check_family.c - the files of one model given together (GG744): the
 * quantisations of a model and the shards of a split set must carry the same
 * chat templates. gguflint_check_family is called by the application after
 * running every file of the group; gguflint_model_stem gives the key that
 * groups file names (the name without .gguf, the split suffix and the
 * quantisation tag).
 *
 * For each tokenizer.chat_template* key, the values of the files that have
 * it are sorted (by type, length and bytes) so that equal values are
 * neighbours: O(n log n) comparisons, each at most the bytes of the shorter
 * value, whatever the names and values are. The value most files hold is
 * the reference (a tie: the one of the file given first); every other file
 * gets the finding, at its value. */
#include "checks/checks.h"
#include "common/alloc.h"

#include "format/filetypes.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fam_entry {
    gguflint_ctx *ctx;
    const gguflint_kv *kv;
    size_t input; /* index in the caller's array */
} fam_entry;

static bool is_template_key(gguflint_view k)
{
    return view_eq(k, "tokenizer.chat_template") || view_starts(k, "tokenizer.chat_template.");
}

static int view_cmp(gguflint_view a, gguflint_view b)
{
    if (a.len != b.len)
        return a.len < b.len ? -1 : 1;
    return a.len ? memcmp(a.ptr, b.ptr, (size_t)a.len) : 0;
}

/* Values: a string by its bytes, an array of strings element by element,
 * any other type by its type only (a template of another type is no
 * template and is reported by the metadata checks). */
static int value_cmp(const fam_entry *a, const fam_entry *b)
{
    const gguflint_kv *x = a->kv, *y = b->kv;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->type == VT_STRING)
        return view_cmp(x->str, y->str);
    if (x->type != VT_ARRAY || x->elem_type != VT_STRING || y->elem_type != VT_STRING)
        return 0;
    if (x->count != y->count)
        return x->count < y->count ? -1 : 1;
    arr_iter i, j;
    gguflint_view u, v;
    uint64_t off;
    if (!arr_iter_init(a->ctx, x, &i) || !arr_iter_init(b->ctx, y, &j))
        return 0;
    while (arr_next(&i, &u, &off) && arr_next(&j, &v, &off)) {
        int c = view_cmp(u, v);
        if (c)
            return c;
    }
    return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const fam_entry *a = pa, *b = pb;
    int c = view_cmp(a->kv->key, b->kv->key);
    if (!c)
        c = value_cmp(a, b);
    if (!c && a->input != b->input)
        c = a->input < b->input ? -1 : 1;
    return c;
}

/* Where two string values first differ, as "byte K, line L, column C". */
static void first_difference(gguflint_view a, gguflint_view b, char *buf, size_t cap)
{
    uint64_t n = a.len < b.len ? a.len : b.len, i = 0, line = 1, col = 1;
    while (i < n && a.ptr[i] == b.ptr[i]) {
        if (a.ptr[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        i++;
    }
    snprintf(buf, cap, "; the first difference is at template byte %llu (line %llu, column %llu)",
             (unsigned long long)i, (unsigned long long)line, (unsigned long long)col);
}

/* One key's entries [lo, hi): the largest run of equal values is the
 * reference; every entry outside it is reported. */
static void check_key(fam_entry *e, size_t lo, size_t hi)
{
    size_t best = lo, best_n = 0, best_first = SIZE_MAX;
    for (size_t i = lo; i < hi;) {
        size_t j = i + 1, first = e[i].input;
        while (j < hi && value_cmp(&e[i], &e[j]) == 0) {
            if (e[j].input < first)
                first = e[j].input;
            j++;
        }
        if (j - i > best_n || (j - i == best_n && first < best_first)) {
            best = i;
            best_n = j - i;
            best_first = first;
        }
        i = j;
    }
    if (best_n == hi - lo)
        return; /* all the same */
    const fam_entry *ref = &e[best];
    char path[192], name[160], diff[128];
    esc_fixed(name, sizeof name, (const uint8_t *)(ref->ctx->name ? ref->ctx->name : "(unnamed)"),
              strlen(ref->ctx->name ? ref->ctx->name : "(unnamed)"), 120);
    for (size_t i = lo; i < hi; i++) {
        if (i >= best && i < best + best_n)
            continue;
        diff[0] = '\0';
        if (e[i].kv->type == VT_STRING && ref->kv->type == VT_STRING)
            first_difference(e[i].kv->str, ref->kv->str, diff, sizeof diff);
        kv_path(path, sizeof path, e[i].kv);
        emit(e[i].ctx, R_TEMPLATE_DIFFERS_ACROSS_FILES, e[i].kv->value_offset, e[i].kv->value_size,
             path,
             "this chat template differs from the one held by %zu of the %zu files of this "
             "model given together (for example '%s')%s",
             best_n, hi - lo, name, diff);
    }
}

int gguflint_check_family(gguflint_ctx *const *ctxs, size_t n)
{
    int ready = checks_set_ready(ctxs, n);
    if (ready != GGUFLINT_OK)
        return ready;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const gguflint_ctx *c = ctxs[i];
        if (!c || c->status != GGUFLINT_OK || !c->hdr.is_gguf)
            continue;
        for (size_t k = 0; k < c->n_kvs; k++)
            total += is_template_key(c->kvs[k].key);
    }
    if (total < 2)
        return GGUFLINT_OK;
    if (total > SIZE_MAX / sizeof(fam_entry))
        return GGUFLINT_E_NOMEM;
    fam_entry *e = gl_malloc(total * sizeof *e);
    size_t *before = gl_malloc(n * sizeof *before);
    if (!e || !before) {
        gl_free(e);
        gl_free(before);
        return GGUFLINT_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        before[i] = ctxs[i] ? ctxs[i]->n_recs : 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        gguflint_ctx *c = ctxs[i];
        if (!c || c->status != GGUFLINT_OK || !c->hdr.is_gguf)
            continue;
        for (size_t k = 0; k < c->n_kvs && m < total; k++)
            if (is_template_key(c->kvs[k].key))
                e[m++] = (fam_entry){c, &c->kvs[k], i};
    }
    qsort(e, m, sizeof *e, entry_cmp);
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && view_cmp(e[i].kv->key, e[j].kv->key) == 0)
            j++;
        check_key(e, i, j);
        i = j;
    }
    /* republish the findings of every ctx that gained some */
    int st = GGUFLINT_OK;
    for (size_t i = 0; i < n; i++) {
        gguflint_ctx *c = ctxs[i];
        if (!c || c->status != GGUFLINT_OK || c->n_recs == before[i])
            continue;
        int s = findings_finalize(c);
        before[i] = c->n_recs;
        if (s != GGUFLINT_OK && st == GGUFLINT_OK)
            st = s;
    }
    gl_free(before);
    gl_free(e);
    return st;
}

size_t gguflint_model_stem(const char *path, char *buf, size_t cap)
{
    if (!path)
        return 0;
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".gguf") != 0)
        return 0;
    size_t end = n - 5;
    bool split = false;
    /* -NNNNN-of-MMMMM */
    if (end >= 15 && path[end - 15] == '-' && memcmp(path + end - 9, "-of-", 4) == 0) {
        bool digits = true;
        for (size_t i = 0; i < 5; i++)
            digits &= path[end - 14 + i] >= '0' && path[end - 14 + i] <= '9' &&
                      path[end - 5 + i] >= '0' && path[end - 5 + i] <= '9';
        if (digits) {
            end -= 15;
            split = true;
        }
    }
    /* the quantisation tag (within the base name) and the delimiter before it */
    char name[4096];
    if (end >= sizeof name)
        return 0;
    memcpy(name, path, end);
    name[end] = '\0';
    size_t at = 0, len = 0;
    const ftype_tag *tag = ft_tag_in_name(name, &at, &len);
    size_t cut_from = end, cut_to = end;
    if (tag) {
        cut_from = at > 0 && (name[at - 1] == '-' || name[at - 1] == '.' || name[at - 1] == '_')
                       ? at - 1
                       : at;
        cut_to = at + len;
    } else if (!split) {
        return 0;
    }
    size_t out = cut_from + (end - cut_to);
    if (out + 1 <= cap) {
        memcpy(buf, name, cut_from);
        memcpy(buf + cut_from, name + cut_to, end - cut_to);
        buf[out] = '\0';
    }
    return out;
}

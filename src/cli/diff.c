/* diff.c - the comparison of `gguflint diff` (see diff.h). */
#include "diff.h"

#include "sha256.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE (1u << 16)

/* ---- growing the result's lists ---- */

static void *grow(void *p, size_t *cap, size_t n, size_t elem, bool *nomem)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(p, nc * elem);
    if (!q) {
        *nomem = true;
        return NULL;
    }
    *cap = nc;
    return q;
}

#define PUSH(r, list, n, cap, item)                                                                \
    do {                                                                                           \
        void *q_ = grow((r)->list, &(r)->cap, (r)->n, sizeof *(r)->list, &(r)->nomem);             \
        if (!q_)                                                                                   \
            return false;                                                                          \
        (r)->list = q_;                                                                            \
        (r)->list[(r)->n++] = (item);                                                              \
    } while (0)

/* ---- names, sorted ---- */

/* One record of a side, filed under its name (a key or a tensor name). */
typedef struct named {
    gguflint_view name;
    size_t shard, index;
} named;

static int view_cmp(gguflint_view a, gguflint_view b)
{
    uint64_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.ptr, b.ptr, (size_t)n) : 0;
    if (c)
        return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = view_cmp(a->name, b->name);
    if (c)
        return c;
    if (a->shard != b->shard)
        return a->shard < b->shard ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The records sorted by name, each name once (its first record: lowest
 * shard, then index, as a reader that takes the first one sees it). */
static named *sorted_names(const diff_side *s, bool tensors, size_t *count)
{
    size_t n = 0;
    for (size_t k = 0; k < (tensors ? s->n : (s->n ? 1 : 0)); k++)
        n += tensors ? gguflint_tensor_count(s->ctx[k]) : gguflint_kv_count(s->ctx[k]);
    named *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t j = 0;
    for (size_t k = 0; k < (tensors ? s->n : (s->n ? 1 : 0)); k++) {
        size_t c = tensors ? gguflint_tensor_count(s->ctx[k]) : gguflint_kv_count(s->ctx[k]);
        for (size_t i = 0; i < c; i++) {
            gguflint_view name = tensors ? gguflint_tensor_get(s->ctx[k], i)->name
                                         : gguflint_kv_get(s->ctx[k], i)->key;
            v[j++] = (named){name, k, i};
        }
    }
    qsort(v, n, sizeof *v, named_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (!w || view_cmp(v[w - 1].name, v[i].name) != 0)
            v[w++] = v[i];
    *count = w;
    return v;
}

/* ---- values ---- */

static bool is_string(const gguflint_kv *kv)
{
    return kv->type == 8;
}

static bool is_array(const gguflint_kv *kv)
{
    return kv->type == 9;
}

/* The bytes a value is compared and digested by: a string's bytes (in
 * memory), else the value as stored (read from the input). */
static bool value_equal(gguflint_ctx *ca, const gguflint_kv *a, gguflint_ctx *cb,
                        const gguflint_kv *b, uint8_t *pa, uint8_t *pb, bool *failed)
{
    if (a->type != b->type)
        return false;
    if (is_string(a))
        return view_cmp(a->str, b->str) == 0;
    if (!is_array(a)) /* scalars: the decoded value (byte order applied) */
        return a->u == b->u && a->i == b->i && memcmp(&a->f, &b->f, sizeof a->f) == 0;
    if (a->elem_type != b->elem_type || a->count != b->count || a->value_size != b->value_size)
        return false;
    for (uint64_t at = 0; at < a->value_size;) {
        uint64_t left = a->value_size - at;
        size_t n = left < PIECE ? (size_t)left : PIECE;
        if (gguflint_read(ca, a->value_offset + at, pa, n) != GGUFLINT_OK ||
            gguflint_read(cb, b->value_offset + at, pb, n) != GGUFLINT_OK) {
            *failed = true;
            return false;
        }
        if (memcmp(pa, pb, n) != 0)
            return false;
        at += n;
    }
    return true;
}

/* The summary of a value shown by digest (long strings, arrays). */
static bool summarise(gguflint_ctx *ctx, const gguflint_kv *kv, uint8_t *piece, diff_value *out)
{
    out->kv = kv;
    out->sha256[0] = '\0';
    bool str = is_string(kv);
    if (!is_array(kv) && !(str && kv->str.len > DIFF_INLINE_MAX))
        return true;
    out->summarised = true;
    out->bytes = str ? kv->str.len : kv->value_size;
    sha256 *d = sha256_new();
    bool ok = true;
    if (str) {
        ok = !d || sha256_update(d, kv->str.ptr, (size_t)kv->str.len);
    } else {
        for (uint64_t at = 0; ok && at < kv->value_size;) {
            uint64_t left = kv->value_size - at;
            size_t n = left < PIECE ? (size_t)left : PIECE;
            ok = gguflint_read(ctx, kv->value_offset + at, piece, n) == GGUFLINT_OK &&
                 (!d || sha256_update(d, piece, n));
            at += n;
        }
    }
    if (!d) /* no libcrypto: the digest stays "" */
        return ok;
    if (!ok) {
        sha256_free(d);
        return false;
    }
    return sha256_hex(d, out->sha256);
}

static bool is_template_key(gguflint_view k)
{
    static const char base[] = "tokenizer.chat_template";
    size_t n = sizeof base - 1;
    return k.len >= n && memcmp(k.ptr, base, n) == 0 && (k.len == n || k.ptr[n] == '.');
}

/* ---- the three parts ---- */

static void header_field(diff_result *r, const char *field, uint64_t a, uint64_t b)
{
    if (a != b && r->n_header < sizeof r->header / sizeof r->header[0])
        r->header[r->n_header++] = (diff_header){field, a, b};
}

static void diff_headers(const diff_side *a, const diff_side *b, diff_result *r)
{
    const gguflint_header *ha = gguflint_get_header(a->ctx[0]);
    const gguflint_header *hb = gguflint_get_header(b->ctx[0]);
    uint64_t ta = 0, tb = 0, ca = 1, cb = 1;
    for (size_t k = 0; k < a->n; k++) {
        ta += gguflint_tensor_count(a->ctx[k]);
        ca &= gguflint_get_header(a->ctx[k])->metadata_complete;
    }
    for (size_t k = 0; k < b->n; k++) {
        tb += gguflint_tensor_count(b->ctx[k]);
        cb &= gguflint_get_header(b->ctx[k])->metadata_complete;
    }
    header_field(r, "version", ha->version, hb->version);
    header_field(r, "big_endian", ha->big_endian, hb->big_endian);
    header_field(r, "alignment", ha->alignment, hb->alignment);
    header_field(r, "shards", a->n, b->n);
    header_field(r, "kv_count", gguflint_kv_count(a->ctx[0]), gguflint_kv_count(b->ctx[0]));
    header_field(r, "tensor_count", ta, tb);
    header_field(r, "metadata_complete", ca, cb);
}

static bool add_key(diff_result *r, diff_change ch, const diff_side *a, const named *x,
                    const diff_side *b, const named *y, uint8_t *pa, uint8_t *pb)
{
    diff_key item = {.change = ch};
    if (x) {
        item.key = x->name;
        if (!summarise(a->ctx[0], gguflint_kv_get(a->ctx[0], x->index), pa, &item.a))
            return false;
    }
    if (y) {
        item.key = y->name;
        if (!summarise(b->ctx[0], gguflint_kv_get(b->ctx[0], y->index), pb, &item.b))
            return false;
    }
    r->keys_added += ch == DIFF_ADDED;
    r->keys_removed += ch == DIFF_REMOVED;
    r->keys_changed += ch == DIFF_CHANGED;
    item.lines = ch == DIFF_CHANGED && is_template_key(item.key) && is_string(item.a.kv) &&
                 is_string(item.b.kv);
    PUSH(r, keys, n_keys, cap_keys, item);
    if (item.lines) {
        diff_template t = {.key = item.key};
        if (!line_diff_run(item.a.kv->str.ptr, (size_t)item.a.kv->str.len, item.b.kv->str.ptr,
                           (size_t)item.b.kv->str.len, &t.lines)) {
            r->nomem = true;
            return false;
        }
        void *q = grow(r->templates, &r->cap_templates, r->n_templates, sizeof t, &r->nomem);
        if (!q) {
            line_diff_free(&t.lines);
            return false;
        }
        r->templates = q;
        r->templates[r->n_templates++] = t;
    }
    return true;
}

static bool diff_keys(const diff_side *a, const diff_side *b, diff_result *r)
{
    size_t na = 0, nb = 0;
    named *ka = sorted_names(a, false, &na), *kb = sorted_names(b, false, &nb);
    uint8_t *pa = malloc(PIECE), *pb = malloc(PIECE);
    bool ok = ka && kb && pa && pb, failed = false;
    r->nomem |= !ok;
    for (size_t i = 0, j = 0; ok && (i < na || j < nb);) {
        int c = i == na ? 1 : j == nb ? -1 : view_cmp(ka[i].name, kb[j].name);
        if (c < 0) {
            ok = add_key(r, DIFF_REMOVED, a, &ka[i++], b, NULL, pa, pb);
        } else if (c > 0) {
            ok = add_key(r, DIFF_ADDED, a, NULL, b, &kb[j++], pa, pb);
        } else {
            const gguflint_kv *x = gguflint_kv_get(a->ctx[0], ka[i].index);
            const gguflint_kv *y = gguflint_kv_get(b->ctx[0], kb[j].index);
            if (!value_equal(a->ctx[0], x, b->ctx[0], y, pa, pb, &failed))
                ok = !failed && add_key(r, DIFF_CHANGED, a, &ka[i], b, &kb[j], pa, pb);
            i++;
            j++;
        }
    }
    free(ka);
    free(kb);
    free(pa);
    free(pb);
    return ok;
}

static bool same_shape(const gguflint_tensor *x, const gguflint_tensor *y)
{
    if (x->n_dims != y->n_dims)
        return false;
    for (uint32_t d = 0; d < 4; d++)
        if (x->ne[d] != y->ne[d])
            return false;
    return true;
}

static const char *sha_of(const diff_side *s, const named *t)
{
    return s->tensor_sha ? s->tensor_sha[t->shard] + 65 * t->index : NULL;
}

static bool diff_tensors(const diff_side *a, const diff_side *b, diff_result *r)
{
    size_t na = 0, nb = 0;
    named *ta = sorted_names(a, true, &na), *tb = sorted_names(b, true, &nb);
    bool ok = ta && tb;
    r->nomem |= !ok;
    r->data_compared = a->tensor_sha && b->tensor_sha;
    for (size_t i = 0, j = 0; ok && (i < na || j < nb);) {
        int c = i == na ? 1 : j == nb ? -1 : view_cmp(ta[i].name, tb[j].name);
        diff_tensor item = {0};
        if (c < 0) {
            const named *t = &ta[i++];
            item = (diff_tensor){.change = DIFF_REMOVED,
                                 .a = gguflint_tensor_get(a->ctx[t->shard], t->index),
                                 .sha_a = sha_of(a, t)};
            r->tensors_removed++;
        } else if (c > 0) {
            const named *t = &tb[j];
            item = (diff_tensor){.change = DIFF_ADDED,
                                 .b = gguflint_tensor_get(b->ctx[t->shard], t->index),
                                 .sha_b = sha_of(b, t)};
            j++;
            r->tensors_added++;
        } else {
            const gguflint_tensor *x = gguflint_tensor_get(a->ctx[ta[i].shard], ta[i].index);
            const gguflint_tensor *y = gguflint_tensor_get(b->ctx[tb[j].shard], tb[j].index);
            const char *sx = sha_of(a, &ta[i]), *sy = sha_of(b, &tb[j]);
            unsigned what = (same_shape(x, y) ? 0u : DIFF_T_SHAPE) |
                            (x->type == y->type ? 0u : DIFF_T_TYPE) |
                            (sx && sy && strcmp(sx, sy) != 0 ? DIFF_T_DATA : 0u);
            i++;
            j++;
            if (!what)
                continue;
            item = (diff_tensor){DIFF_CHANGED, what, x, y, sx, sy};
            r->tensors_changed++;
        }
        void *q = grow(r->tensors, &r->cap_tensors, r->n_tensors, sizeof item, &r->nomem);
        if (!q) {
            ok = false;
            break;
        }
        r->tensors = q;
        r->tensors[r->n_tensors++] = item;
    }
    free(ta);
    free(tb);
    return ok;
}

bool diff_run(const diff_side *a, const diff_side *b, diff_result *out)
{
    memset(out, 0, sizeof *out);
    if (!a->n || !b->n)
        return false;
    diff_headers(a, b, out);
    return diff_keys(a, b, out) && diff_tensors(a, b, out);
}

bool diff_any(const diff_result *r)
{
    return r->n_header || r->n_keys || r->n_tensors;
}

void diff_free(diff_result *r)
{
    for (size_t i = 0; i < r->n_templates; i++)
        line_diff_free(&r->templates[i].lines);
    free(r->templates);
    free(r->keys);
    free(r->tensors);
    memset(r, 0, sizeof *r);
}

/* ---- what the writers share ---- */

void diff_put(const diff_out *o, const char *s)
{
    o->w(o->u, s, strlen(s));
}

void diff_putf(const diff_out *o, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->w(o->u, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void diff_scalar(const gguflint_kv *kv, bool json, char buf[48])
{
    switch (kv->type) {
    case 0:
    case 2:
    case 4:
    case 10: snprintf(buf, 48, "%" PRIu64, kv->u); return;
    case 1:
    case 3:
    case 5:
    case 11: snprintf(buf, 48, "%" PRId64, kv->i); return;
    case 7: /* a byte other than 0 and 1 is true to a reader, and shown as it is */
        if (kv->u > 1 && !json)
            snprintf(buf, 48, "true (byte %" PRIu64 ")", kv->u);
        else
            snprintf(buf, 48, "%s", kv->u ? "true" : "false");
        return;
    case 6:
    case 12:
        if (isfinite(kv->f))
            snprintf(buf, 48, kv->type == 6 ? "%.9g" : "%.17g", kv->f);
        else
            snprintf(buf, 48, json ? "\"%s\"" : "%s",
                     isnan(kv->f) ? "nan"
                     : kv->f > 0  ? "inf"
                                  : "-inf");
        return;
    default: snprintf(buf, 48, "%s", json ? "null" : "?"); return;
    }
}

const char *diff_type_name(uint32_t type, bool ggml, char buf[24])
{
    const char *s = ggml ? gguflint_ggml_type_name(type) : gguflint_value_type_name(type);
    if (s)
        return s;
    snprintf(buf, 24, "type %" PRIu32, type);
    return buf;
}

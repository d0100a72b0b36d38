/* check_arch_tensors.c - the tensor set and shapes of an architecture, from
 * the rows llama.cpp's load_tensors creates (data/arch/gen_tensors.def):
 * every tensor of the file must be one the loader creates for these
 * hyper-parameters ("wrong number of tensors" otherwise), have the shape it
 * asks for ("tensor has wrong shape"), and every required one must be there
 * ("missing tensor").
 *
 * Work is bounded: one pass over the file's tensors, each name matched
 * against the architecture's rows (a few dozen); the missing-tensor walk
 * visits at most 512 layers (LLAMA_MAX_LAYERS) per row with O(1) lookups.
 * A row whose condition or dimension the file does not determine is never
 * reported on: no false positive from what the generator could not express. */
#include "checks/arch_check.h"
#include "common/alloc.h"

#include "common/ckd.h"
#include "format/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file tensor name split at its first run of digits: where a layer number
 * sits if the name has one (archgen.py checks that no row's layer prefix
 * holds a digit, so a row's "%d" can only meet this run). Computed once per
 * tensor; the rows are then matched by lengths and two memcmp. */
typedef struct split {
    size_t p, d;    /* the digits are name[p..d) */
    uint16_t gkey;  /* ARCH_GLOBAL_KEY of the name, or 0 */
    uint16_t lkey;  /* ARCH_LAYER_KEY of the digit run when canonical, or 0 */
    bool canonical; /* at least one digit, no leading zero, then a '.' */
    bool big;       /* the number overflows */
    uint64_t layer;
} split;

static split split_name(const uint8_t *s, size_t n)
{
    split sp = {n, n, 0, 0, false, false, 0};
    size_t i = 0;
    while (i < n && (s[i] < '0' || s[i] > '9'))
        i++;
    sp.p = i;
    uint64_t idx = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (ckd_mul64(&idx, idx, 10) || ckd_add64(&idx, idx, (uint64_t)(s[i] - '0')))
            sp.big = true;
        i++;
    }
    sp.d = i;
    size_t digits = sp.d - sp.p;
    sp.canonical = digits > 0 && !(digits > 1 && s[sp.p] == '0') && i < n && s[i] == '.';
    sp.layer = idx;
    if (n < 256)
        sp.gkey = ARCH_GLOBAL_KEY(n);
    if (sp.canonical && sp.p < 128 && n - sp.d < 256)
        sp.lkey = ARCH_LAYER_KEY(sp.p, n - sp.d);
    return sp;
}

/* Does the file name s (split as sp) name row r: exactly for a global row,
 * prefix + canonical decimal layer + suffix for a per-layer one. */
static bool row_hit(const arch_tensor *r, const uint8_t *s, size_t n, const split *sp)
{
    if (r->shape_key != sp->gkey && r->shape_key != sp->lkey)
        return false; /* lengths or layer position differ: most rows stop here */
    const char *rn = arch_str(r->name);
    if (r->layer_at < 0)
        return r->name_len == n && memcmp(rn, s, n) == 0;
    size_t at = (size_t)r->layer_at, suf = (size_t)r->name_len - at - 2;
    return sp->canonical && sp->p == at && n - sp->d == suf && memcmp(rn, s, at) == 0 &&
           memcmp(rn + at + 2, s + sp->d, suf) == 0;
}

/* The name starts with a per-layer row's prefix but no plain decimal layer
 * number follows ("blk.01.", "blk.x."). */
static bool row_malformed(const arch_tensor *r, const uint8_t *s, size_t n, const split *sp)
{
    if (r->layer_at < 0)
        return false;
    size_t at = (size_t)r->layer_at;
    return n >= at && memcmp(arch_str(r->name), s, at) == 0 && !(sp->p == at && sp->canonical);
}

/* Which (row, layer) pairs check_one found in the file: bit l of seen[k]
 * is set when a tensor named row k at layer l (0 for a global row) exists.
 * check_missing consults it first and looks the name up only when the bit
 * is clear (a tensor can name two rows; the bit is set for the first it
 * matched), so it is an accelerator, never the only evidence. */
typedef struct seen_set {
    uint64_t bits[ARCH_MAX_ROWS][ARCH_MAX_LAYERS / 64];
    size_t rows; /* rows of the architecture that fit (the rest: lookups) */
    /* The rows by shape_key, built once per file: bucket b lists the rows
     * whose key hashes to b in table order (head[b], then next[]; 0xFF
     * ends a list). A file name is matched against the rows of its two
     * keys' buckets only. Keys come from the tables, never from the file;
     * a bucket holds at most the architecture's rows. */
    bool indexed; /* false: more rows than the index holds, scan them all */
    uint8_t head[64], next[ARCH_MAX_ROWS];
} seen_set;

static unsigned key_bucket(uint16_t key)
{
    return (unsigned)((key * 0x9E37u) >> 10) & 63u;
}

static void index_rows(seen_set *s, const arch_tensor *rows, size_t n)
{
    s->indexed = n < 0xFF && n <= ARCH_MAX_ROWS;
    if (!s->indexed)
        return;
    memset(s->head, 0xFF, sizeof s->head);
    for (size_t k = n; k-- > 0;) { /* backwards: each list in table order */
        unsigned b = key_bucket(rows[k].shape_key);
        s->next[k] = s->head[b];
        s->head[b] = (uint8_t)k;
    }
}

static void seen_mark(seen_set *s, size_t k, uint64_t layer)
{
    if (k < s->rows && layer < ARCH_MAX_LAYERS)
        s->bits[k][layer / 64] |= 1ull << (layer % 64);
}

static bool seen_has(const seen_set *s, size_t k, uint32_t layer)
{
    return k < s->rows && layer < ARCH_MAX_LAYERS && (s->bits[k][layer / 64] >> (layer % 64) & 1u);
}

/* Is formula f exactly the symbol `sym` ("#N")? */
static bool is_sym(const char *f, int sym)
{
    if (f[0] != '#' || !f[1])
        return false;
    int v = 0;
    for (const char *c = f + 1; *c; c++) {
        if (*c < '0' || *c > '9' || v > 100000)
            return false;
        v = v * 10 + (*c - '0');
    }
    return v == sym;
}

/* "[a, b, c]" of a shape, "?" for dims not compared. */
static void shape_text(char *buf, size_t cap, const int64_t *ne, const bool *cmp, int n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int j = 0; j < n && at < cap; j++) {
        int k = cmp && !cmp[j]
                    ? snprintf(buf + at, cap - at, "%s?", j ? ", " : "[")
                    : snprintf(buf + at, cap - at, "%s%lld", j ? ", " : "[", (long long)ne[j]);
        if (k < 0)
            return;
        at += (size_t)k;
    }
    if (at < cap)
        snprintf(buf + at, cap - at, "]");
}

/* The first dimension of t that differs from row r's formula at `layer`, or
 * -1 when the shape matches (dims that evaluate to unknown or < 0 match
 * anything, and so does a 0 once GG541 or GG546 has reported the absent or
 * zero key behind it). */
static int shape_diff(arch_env *env, const arch_tensor *r, const gguflint_tensor *t, uint32_t layer,
                      int64_t *want, bool *cmp)
{
    int bad = -1;
    const char *rn = arch_str(r->name);
    bool rows = (r->name_len == 17 && memcmp(rn, "token_embd.weight", 17) == 0) ||
                (r->name_len == 13 && memcmp(rn, "output.weight", 13) == 0);
    const gguflint_ctx *ctx = env->ctx;
    bool zero_said = ctx->per_rule[R_HPARAM_MISSING] || ctx->per_rule[R_HEAD_COUNT_ZERO];
    for (int j = 0; j < 4; j++) {
        arch_val v = arch_row_eval(env, r, ARCH_F_NE0 + j, layer);
        want[j] = v.v;
        /* a 0 from an absent key is GG541's (reported once there); a 0 the
         * file states ([arch].embedding_length = 0) is a shape the loader
         * refuses */
        cmp[j] = v.known && (v.v > 0 || (v.v == 0 && !zero_said));
        /* token_embd / output rows against the tokens are the vocabulary
         * rule GG574 (vocab-tensor-rows-mismatch): not reported twice */
        if (rows && env->vocab_from_tokens && is_sym(arch_str(r->ne[j]), SYM_n_vocab))
            cmp[j] = false;
        if (cmp[j] && bad < 0 && t->ne[j] != (uint64_t)v.v)
            bad = j;
    }
    return bad;
}

static void report_unexpected(const arch_file *f, const gguflint_tensor *t, int rule,
                              const char *why)
{
    gguflint_ctx *ctx = f->ctx;
    if (!arch_keep(ctx, rule))
        return;
    char name[160], path[64];
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 100);
    tensor_path(path, sizeof path, ctx, t);
    emit(ctx, rule, t->info_offset, wire_string_size(f->w, t->name.len), path, "tensor '%s' %s",
         name, why);
}

arch_site arch_dim_site(const gguflint_ctx *ctx, unsigned w, const gguflint_tensor *t, uint32_t j,
                        char *path, size_t cap)
{
    size_t ti = tensor_index_of(ctx, t);
    if (j < t->n_dims) {
        snprintf(path, cap, "tensor[%zu].ne[%u]", ti, j);
        return (arch_site){wire_ti_ne_off(w, t, j), w};
    }
    snprintf(path, cap, "tensor[%zu].n_dims", ti);
    return (arch_site){wire_ti_ndims_off(w, t), 4};
}

static void report_shape(const arch_file *f, const gguflint_tensor *t, const arch_tensor *r,
                         const int64_t *want, const bool *cmp, int bad)
{
    gguflint_ctx *ctx = f->ctx;
    if (!arch_keep(ctx, R_TENSOR_SHAPE_MISMATCH))
        return;
    int shown = 1;
    for (int j = 0; j < 4; j++)
        if ((cmp[j] && want[j] != 1) || (uint32_t)j < t->n_dims)
            shown = j + 1;
    char name[160], got[128], exp[128], formula[256], path[64];
    int64_t have[4];
    for (int j = 0; j < 4; j++)
        have[j] = (int64_t)t->ne[j];
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 100);
    shape_text(got, sizeof got, have, NULL, t->n_dims ? (int)t->n_dims : 1);
    shape_text(exp, sizeof exp, want, cmp, shown);
    size_t at = 0;
    formula[0] = '\0';
    for (int j = 0; j < shown && at + 4 < sizeof formula; j++) {
        char one[96];
        arch_formula_text(arch_str(r->ne[j]), one, sizeof one);
        int k = snprintf(formula + at, sizeof formula - at, "%s%s", j ? ", " : "[", one);
        if (k < 0 || (size_t)k >= sizeof formula - at)
            break;
        at += (size_t)k;
    }
    if (at + 1 < sizeof formula)
        snprintf(formula + at, sizeof formula - at, "]");
    arch_site at_dim = arch_dim_site(ctx, f->w, t, (uint32_t)bad, path, sizeof path);
    emit(ctx, R_TENSOR_SHAPE_MISMATCH, at_dim.offset, at_dim.len, path,
         "tensor '%s' has shape %s; '%s' needs %s = %s (ne[%d] differs; llama.cpp: \"tensor "
         "has wrong shape\")",
         name, got, f->arch, formula, exp, bad);
}

/* Is the split name's layer within row r's layer count? Unknown counts
 * pass. */
static bool layer_in_range(arch_env *env, const arch_tensor *r, const split *sp, uint64_t *count)
{
    arch_val c = arch_row_eval(env, r, ARCH_F_COUNT, 0);
    *count = c.known && c.v > 0 ? (uint64_t)c.v : 0;
    if (!c.known)
        return !sp->big;
    return !sp->big && sp->layer < (uint64_t)c.v;
}

static void check_one(const arch_file *f, arch_env *env, const gguflint_tensor *t, seen_set *seen)
{
    const arch_info *a = f->info;
    const uint8_t *p = t->name.ptr;
    size_t n = (size_t)t->name.len;
    bool any = false, out_of_range = false, big = false;
    uint64_t range_count = 0;
    const arch_tensor *first_any = NULL;
    bool shape_ok = false;
    int64_t want[4] = {1, 1, 1, 1};
    bool cmp[4] = {false, false, false, false};
    int bad = -1;
    const arch_tensor *bad_row = NULL;
    bool bad_known = false;
    split sp = split_name(p, n);
    const arch_tensor *rows = &arch_tensors[a->tensor_first];
    /* the candidate rows in table order: every row, or the merged lists of
     * the buckets of the name's two keys */
    unsigned ka = 0xFF, kb = 0xFF;
    if (seen->indexed) {
        ka = sp.gkey ? seen->head[key_bucket(sp.gkey)] : 0xFF;
        kb = sp.lkey ? seen->head[key_bucket(sp.lkey)] : 0xFF;
        if (ka == kb)
            kb = 0xFF; /* one bucket for both keys */
    }
    for (size_t k = 0; seen->indexed ? (ka != 0xFF || kb != 0xFF) : k < a->tensor_count; k++) {
        if (seen->indexed) {
            if (kb == 0xFF || (ka != 0xFF && ka < kb)) {
                k = ka;
                ka = seen->next[ka];
            } else {
                k = kb;
                kb = seen->next[kb];
            }
        }
        const arch_tensor *r = &rows[k];
        if (!row_hit(r, p, n, &sp))
            continue;
        any = true;
        uint32_t layer = 0;
        if (r->layer_at >= 0) {
            uint64_t count;
            if (!layer_in_range(env, r, &sp, &count)) {
                out_of_range = true;
                big = sp.big;
                range_count = count;
                continue;
            }
            layer = (uint32_t)(sp.layer < ARCH_MAX_LAYERS ? sp.layer : ARCH_MAX_LAYERS);
        }
        seen_mark(seen, k, r->layer_at >= 0 ? sp.layer : 0);
        arch_val c = arch_row_eval(env, r, ARCH_F_COND, layer);
        if (c.known && !c.v) {
            if (!first_any)
                first_any = r;
            continue;
        }
        int64_t w4[4];
        bool c4[4];
        int d = shape_diff(env, r, t, layer, w4, c4);
        if (d < 0) {
            shape_ok = true;
            break;
        }
        if (!bad_row || (c.known && !bad_known)) {
            bad_row = r;
            bad_known = c.known;
            bad = d;
            memcpy(want, w4, sizeof want);
            memcpy(cmp, c4, sizeof cmp);
        }
    }
    if (shape_ok)
        return;
    if (bad_row) {
        if (t->n_dims > 4)
            return; /* reported by the parser; dims past 4 were not kept */
        report_shape(f, t, bad_row, want, cmp, bad);
        return;
    }
    char why[320];
    if (out_of_range) {
        if (range_count == 0 && !big)
            snprintf(why, sizeof why,
                     "has a layer number not below the layer count 0 (the "
                     "model has no such layers)");
        else
            snprintf(why, sizeof why,
                     "has a layer number not below the layer count %llu (llama.cpp creates "
                     "layers 0..%llu only)",
                     (unsigned long long)range_count,
                     (unsigned long long)(range_count ? range_count - 1 : 0));
        report_unexpected(f, t, R_BLOCK_INDEX_RANGE, why);
        return;
    }
    bool malformed = false;
    for (uint16_t k = 0; !any && !malformed && k < a->tensor_count; k++)
        malformed = row_malformed(&rows[k], p, n, &sp);
    if (!any && malformed) {
        report_unexpected(f, t, R_BLOCK_INDEX_MALFORMED,
                          "does not have a plain decimal layer number (llama.cpp looks layers up "
                          "as blk.%d.)");
        return;
    }
    if (any && first_any) {
        char cond[120];
        arch_formula_text(arch_str(first_any->cond), cond, sizeof cond);
        snprintf(why, sizeof why,
                 "is not created by the '%s' loader for these hyper-parameters (only when %s); "
                 "llama.cpp fails with \"wrong number of tensors\"",
                 f->arch, cond);
        report_unexpected(f, t, R_TENSOR_UNEXPECTED, why);
        return;
    }
    if (arch_py_lists(a, t->name.ptr, (size_t)t->name.len)) {
        /* gguf-py knows it for this architecture: a file newer than the tables */
        snprintf(why, sizeof why,
                 "is not created by the '%s' loader of llama.cpp of %s (gguflint's tables), but "
                 "gguf-py lists it for the architecture: a file newer than the tables? That "
                 "loader fails with \"wrong number of tensors\"",
                 f->arch, arch_str(arch_stamp_date));
        report_unexpected(f, t, R_TENSOR_UNKNOWN_TO_TABLE, why);
        return;
    }
    snprintf(why, sizeof why,
             "is not a tensor of this architecture ('%s' loader): llama.cpp fails with \"wrong "
             "number of tensors\"",
             f->arch);
    report_unexpected(f, t, R_TENSOR_UNEXPECTED, why);
}

static void missing(const arch_file *f, const char *name)
{
    gguflint_ctx *ctx = f->ctx;
    if (tensor_by_name(ctx, name))
        return;
    if (!arch_keep(ctx, R_TENSOR_MISSING))
        return;
    emit(ctx, R_TENSOR_MISSING, f->arch_kv->value_offset, f->arch_kv->value_size, f->arch_path,
         "architecture '%s' requires the tensor '%s', which is absent (llama.cpp: \"missing "
         "tensor\")",
         f->arch, name);
}

static void check_missing(const arch_file *f, arch_env *env, const seen_set *seen)
{
    const arch_info *a = f->info;
    gguflint_ctx *ctx = f->ctx;
    for (uint16_t k = 0; k < a->tensor_count && ctx->status == GGUFLINT_OK; k++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + k];
        if (!r->required)
            continue;
        char name[160];
        if (r->layer_at < 0) {
            arch_val c = arch_row_eval(env, r, ARCH_F_COND, 0);
            if (c.known && c.v && !seen_has(seen, k, 0) &&
                arch_tensor_name(r, 0, name, sizeof name, NULL))
                missing(f, name);
            continue;
        }
        arch_val cnt = arch_row_eval(env, r, ARCH_F_COUNT, 0);
        if (!cnt.known || cnt.v <= 0)
            continue;
        uint32_t layers = cnt.v < (int64_t)ARCH_MAX_LAYERS ? (uint32_t)cnt.v : ARCH_MAX_LAYERS;
        for (uint32_t l = 0; l < layers && ctx->status == GGUFLINT_OK; l++) {
            if (seen_has(seen, k, l))
                continue;
            arch_val c = arch_row_eval(env, r, ARCH_F_COND, l);
            if (c.known && c.v && arch_tensor_name(r, l, name, sizeof name, NULL))
                missing(f, name);
        }
    }
}

const arch_tensor *arch_row_of(const arch_file *f, arch_env *env, const uint8_t *p, size_t n,
                               uint32_t *layer)
{
    const arch_info *a = f->info;
    if (!a)
        return NULL;
    split sp = split_name(p, n);
    for (uint16_t k = 0; k < a->tensor_count; k++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + k];
        if (!row_hit(r, p, n, &sp))
            continue;
        uint64_t count;
        if (r->layer_at >= 0 && !layer_in_range(env, r, &sp, &count))
            continue;
        *layer = r->layer_at < 0
                     ? 0
                     : (uint32_t)(sp.layer < ARCH_MAX_LAYERS ? sp.layer : ARCH_MAX_LAYERS);
        return r;
    }
    return NULL;
}

void arch_check_tensors(const arch_file *f, arch_env *env)
{
    gguflint_ctx *ctx = f->ctx;
    seen_set *seen = gl_malloc(sizeof *seen); /* 16 KiB: not on a small thread stack */
    if (!seen) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    seen->rows = f->info->tensor_count < ARCH_MAX_ROWS ? f->info->tensor_count : ARCH_MAX_ROWS;
    memset(seen->bits, 0, seen->rows * sizeof seen->bits[0]); /* only the rows in use */
    index_rows(seen, &arch_tensors[f->info->tensor_first], f->info->tensor_count);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++)
        check_one(f, env, &ctx->tensors[i], seen);
    if (f->complete && !f->shard && ctx->status == GGUFLINT_OK)
        check_missing(f, env, seen);
    gl_free(seen);
}

/* check_lora.c - LoRA adapters as llama.cpp's LoRA loader reads them
 * (llama_adapter_lora_init_impl, src/llama-adapter.cpp of upstream
 * 3f545bec, 2026-08-22; line numbers below are of that file):
 *   :202-205 general.type must be "adapter" (a file whose general.type is
 *            not is linted as a model: check_arch.c)
 *   :207-211 general.architecture must name the base model's architecture
 *            (an absent one reads as "", which never does)             GG530
 *   :213-216 adapter.type must be "lora"                               GG562
 *   :218     adapter.lora.alpha is read with gguf_get_val_f32, which
 *            asserts the type (absent: 0, scale by the user's only)    GG567, GG568
 *   :220-238 adapter.alora.invocation_tokens, when present, must be an
 *            array ("invalid gguf type") of u32 ("invalid gguf element
 *            type")                                                    GG531
 *   :271-294 each tensor is a half: a name ending in .lora_a or .lora_b
 *            is filed under the name with every ".lora_a" / ".lora_b"
 *            removed (replace_all), the last of a kind wins; *_norm.weight
 *            is skipped; anything else has "unexpected suffix"         GG563
 *   :325-327 both halves of each name                                  GG564
 *   :330-333 the name is a tensor of the base model                    GG566
 *   :353-364 shapes against the base tensor: ne[0] == lora_a ne[0] and
 *            ne[1] == lora_b ne[1]; token_embd.weight (its halves are
 *            the other way round): ne[0] == lora_b ne[1], ne[1] ==
 *            lora_a ne[1]                                              GG566
 *   :365-367 the rank: lora_a ne[1] == lora_b ne[0] (not for
 *            token_embd.weight)                                        GG565
 * Nothing else is checked at load: not the halves' types, not n_dims, not
 * ne[2] / ne[3]. What the graph then does with them (src/llama-graph.cpp,
 * build_lora_mm, build_lora_mm_id, build_inp_embd) is a deliberate extra:
 * token_embd's rank (GG565) and halves with extra dimensions the base
 * tensor does not have (GG532) make ggml_mul_mat / ggml_get_rows assert at
 * the first decode.
 *
 * Without a base, the architecture's table stands in for it (GG566 only for
 * a name the architecture never has, and shapes only when the adapter
 * carries the base hyper-parameters).
 *
 * Work is bounded: one pass over the tensors; the halves are filed in a
 * keyed hash set (common/viewset.h) under their pair names, copied into one
 * arena (at most the names' bytes); one O(1) lookup in the base per pair. */
#include "checks/arch_check.h"
#include "common/alloc.h"

#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALORA_TOKENS "adapter.alora.invocation_tokens"

/* ------------------------------------------------------- adapter keys */

static void check_keys(const arch_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *gt = kv_by_key(ctx, "general.type");
    const gguflint_kv *at = kv_by_key(ctx, "adapter.type");
    if (!at) {
        if (gt)
            adapter_at_kv(
                ctx, R_ADAPTER_TYPE_INVALID, gt,
                "the adapter has no adapter.type; llama.cpp's adapter loader expects 'lora'");
    } else if (at->type != VT_STRING) {
        adapter_at_kv(ctx, R_ADAPTER_TYPE_INVALID, at, "adapter.type is not a string");
    } else {
        size_t vis = arch_c_string(ctx, at, "adapter.type");
        if (!(vis == 4 && memcmp(at->str.ptr, "lora", 4) == 0)) {
            char shown[80];
            esc_fixed(shown, sizeof shown, at->str.ptr, vis, 60);
            adapter_at_kv(ctx, R_ADAPTER_TYPE_INVALID, at,
                          "adapter.type is '%s'; llama.cpp's adapter loader accepts only 'lora'",
                          shown);
        }
    }
    const gguflint_kv *alpha = kv_by_key(ctx, "adapter.lora.alpha");
    if (!alpha) {
        const gguflint_kv *where = at ? at : gt;
        if (where)
            adapter_at_kv(ctx, R_LORA_ALPHA_MISSING, where,
                          "no adapter.lora.alpha: llama.cpp scales the adapter by 1 instead of "
                          "alpha / rank");
    } else if (alpha->type != VT_FLOAT32) {
        adapter_at_kv(ctx, R_LORA_ALPHA_INVALID, alpha,
                      "adapter.lora.alpha is not an f32: llama.cpp's gguf_get_val_f32 asserts "
                      "the type and aborts");
    } else if (!isfinite(alpha->f) || alpha->f < 0) {
        adapter_at_kv(ctx, R_LORA_ALPHA_INVALID, alpha, "adapter.lora.alpha is %g", alpha->f);
    }
    const gguflint_kv *inv = kv_by_key(ctx, ALORA_TOKENS);
    if (inv && inv->type != VT_ARRAY)
        adapter_at_kv(ctx, R_ALORA_TOKENS_INVALID, inv,
                      "%s is a %s, not an array of u32 token ids (llama.cpp: \"invalid gguf "
                      "type for %s\")",
                      ALORA_TOKENS, gguflint_value_type_name(inv->type), ALORA_TOKENS);
    else if (inv && inv->elem_type != VT_UINT32)
        adapter_at_kv(ctx, R_ALORA_TOKENS_INVALID, inv,
                      "%s is an array of %s, not of u32 token ids (llama.cpp: \"invalid gguf "
                      "element type for %s\")",
                      ALORA_TOKENS, gguflint_value_type_name(inv->elem_type), ALORA_TOKENS);
}

/* general.architecture against the base's, both as C strings (llama.cpp
 * compares the architectures llm_arch_from_string makes of them; the base
 * loaded, so its name is a known one, and equal names are equal
 * architectures). */
static void check_arch_match(const arch_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *bk = kv_by_key(ctx->base, "general.architecture");
    if (!bk || bk->type != VT_STRING)
        return; /* gguflint_set_base refuses such a base */
    const uint8_t *bp = bk->str.ptr;
    const uint8_t *bnul = memchr(bp, 0, (size_t)bk->str.len);
    size_t bn = bnul ? (size_t)(bnul - bp) : (size_t)bk->str.len;
    char base_shown[160], shown[160];
    esc_fixed(base_shown, sizeof base_shown, bp, bn, 100);
    const gguflint_kv *ak = f->arch_kv;
    if (!ak) {
        const gguflint_kv *where = kv_by_key(ctx, "general.type");
        if (where)
            adapter_at_kv(ctx, R_LORA_ARCH_MISMATCH, where,
                          "the adapter has no general.architecture; its base is '%s' (llama.cpp: "
                          "\"model arch and LoRA arch mismatch\")",
                          base_shown);
        return;
    }
    if (ak->type != VT_STRING)
        return; /* a general.* rule reports it */
    const uint8_t *nul = memchr(ak->str.ptr, 0, (size_t)ak->str.len);
    size_t n = nul ? (size_t)(nul - ak->str.ptr) : (size_t)ak->str.len;
    if (n == bn && memcmp(ak->str.ptr, bp, n) == 0)
        return;
    esc_fixed(shown, sizeof shown, ak->str.ptr, n, 100);
    adapter_at_kv(ctx, R_LORA_ARCH_MISMATCH, ak,
                  "the adapter is for '%s' and its base model is '%s' (llama.cpp: \"model arch "
                  "and LoRA arch mismatch\")",
                  shown, base_shown);
}

/* ------------------------------------------------------------- pairs */

/* One pair name: its bytes in the arena and the halves filed under it
 * (tensor index + 1 of the last lora_a and lora_b; 0: none). */
typedef struct pair_rec {
    size_t off, len;
    size_t a, b;
} pair_rec;

typedef struct pairs {
    sbuf names; /* the pair names, NUL-separated */
    pair_rec *rec;
    size_t n, cap;
    viewset set;
} pairs;

static gguflint_view pair_name(const void *owner, size_t i)
{
    const pairs *p = owner;
    return (gguflint_view){(const uint8_t *)p->names.data + p->rec[i].off, p->rec[i].len};
}

/* File tensor `ti` (a half: side 0 lora_a, 1 lora_b) under its name with
 * every `pat` removed, as llama.cpp's replace_all does (left to right, not
 * overlapping). False on NOMEM. */
static bool file_half(pairs *p, const gguflint_tensor *t, size_t ti, int side)
{
    const char *pat = side ? ".lora_b" : ".lora_a";
    size_t off = p->names.len, i = 0, n = (size_t)t->name.len;
    const uint8_t *s = t->name.ptr;
    while (i < n) {
        size_t run = i;
        while (run < n && !(n - run >= 7 && memcmp(s + run, pat, 7) == 0))
            run++;
        sb_put(&p->names, (const char *)s + i, run - i);
        i = run < n ? run + 7 : n;
    }
    size_t len = p->names.len - off;
    sb_term(&p->names);
    if (p->names.failed || !grow((void **)&p->rec, &p->cap, p->n, sizeof *p->rec))
        return false;
    p->rec[p->n] = (pair_rec){off, len, 0, 0};
    gguflint_view v = {(const uint8_t *)p->names.data + off, len};
    long old = viewset_insert(&p->set, pair_name, p, v, p->n);
    if (old == -2)
        return false;
    pair_rec *r;
    if (old >= 0) {
        r = &p->rec[old];
        p->names.len = off; /* the name is there already */
        p->names.data[off] = '\0';
    } else {
        r = &p->rec[p->n++];
    }
    if (side)
        r->b = ti + 1;
    else
        r->a = ti + 1;
    return true;
}

static void pairs_free(pairs *p)
{
    sb_free(&p->names);
    gl_free(p->rec);
    viewset_free(&p->set);
}

/* The pair's halves against the base model's tensor of that name. */
static void against_base(const arch_file *f, const gguflint_tensor *a, const gguflint_tensor *b,
                         const char *name, const char *shown, bool embd)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_tensor *bt = tensor_by_name(ctx->base, name);
    if (!bt) {
        adapter_at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                          "adapts '%s', which is not a tensor of the base model (llama.cpp: "
                          "\"does not exist in base model (hint: maybe wrong base model?)\")",
                          shown);
        return;
    }
    uint64_t got0 = embd ? b->ne[1] : a->ne[0], got1 = embd ? a->ne[1] : b->ne[1];
    if (bt->ne[0] != got0 || bt->ne[1] != got1) {
        adapter_at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                          "gives '%s' the outer shape [%llu, %llu] (%s); the base model's "
                          "tensor is [%llu, %llu] (llama.cpp: \"has incorrect shape (hint: "
                          "maybe wrong base model?)\")",
                          shown, (unsigned long long)got0, (unsigned long long)got1,
                          embd ? "lora_b ne[1], lora_a ne[1]" : "lora_a ne[0], lora_b ne[1]",
                          (unsigned long long)bt->ne[0], (unsigned long long)bt->ne[1]);
        return;
    }
    /* ne[2], ne[3]: the loader ignores them; the graph multiplies by the
     * halves as they are */
    bool experts = bt->ne[2] > 1 || bt->ne[3] > 1;
    for (int h = 0; h < 2; h++) {
        const gguflint_tensor *t = h ? b : a;
        if (t->ne[2] == bt->ne[2] && t->ne[3] == bt->ne[3])
            continue;
        adapter_at_tensor(
            ctx, R_LORA_PAIR_DIMS, t, f->w,
            "is [%llu, %llu, %llu, %llu] and the base tensor '%s' [%llu, %llu, %llu, %llu]: "
            "llama.cpp loads it, but %s",
            (unsigned long long)t->ne[0], (unsigned long long)t->ne[1],
            (unsigned long long)t->ne[2], (unsigned long long)t->ne[3], shown,
            (unsigned long long)bt->ne[0], (unsigned long long)bt->ne[1],
            (unsigned long long)bt->ne[2], (unsigned long long)bt->ne[3],
            !experts
                ? (embd ? "ggml_get_rows or ggml_mul_mat asserts on it at the first decode with "
                          "the adapter applied"
                        : "ggml_mul_mat asserts on it at the first decode with the adapter "
                          "applied")
            : t->ne[3] > 1 ? "ggml_mul_mat_id asserts on it at the first decode"
                           : "the experts past its ne[2] get no (or another expert's) update");
    }
}

/* The pair against the architecture's table (no base): the name must be a
 * tensor of the architecture; the outer shape is known only when the
 * adapter carries the base hyper-parameters. */
static void against_table(const arch_file *f, arch_env *env, const gguflint_tensor *a,
                          const gguflint_tensor *b, const char *name, size_t n, const char *shown,
                          bool embd)
{
    gguflint_ctx *ctx = f->ctx;
    if (!f->info || f->info->coverage != COV_FULL)
        return;
    uint32_t layer = 0;
    const arch_tensor *row = arch_row_of(f, env, (const uint8_t *)name, n, &layer);
    if (!row) {
        adapter_at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                          "adapts '%s', which is not a tensor of '%s' (llama.cpp: \"does not "
                          "exist in base model\")",
                          shown, f->arch);
        return;
    }
    arch_val d0 = arch_row_eval(env, row, ARCH_F_NE0, layer),
             d1 = arch_row_eval(env, row, ARCH_F_NE0 + 1, layer);
    uint64_t got0 = embd ? b->ne[1] : a->ne[0], got1 = embd ? a->ne[1] : b->ne[1];
    bool vocab_dim = embd && !env->vocab_from_tokens;
    if (d0.known && d0.v > 0 && (uint64_t)d0.v != got0)
        adapter_at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                          "adapts a tensor with ne[0] = %lld in '%s'; the pair gives %llu "
                          "(llama.cpp: \"has incorrect shape\")",
                          (long long)d0.v, f->arch, (unsigned long long)got0);
    else if (!vocab_dim && d1.known && d1.v > 0 && (uint64_t)d1.v != got1)
        adapter_at_tensor(ctx, R_LORA_BASE_MISMATCH, a, f->w,
                          "adapts a tensor with ne[1] = %lld in '%s'; the pair gives %llu "
                          "(llama.cpp: \"has incorrect shape\")",
                          (long long)d1.v, f->arch, (unsigned long long)got1);
}

static void check_pair(const arch_file *f, arch_env *env, const pairs *p, const pair_rec *r)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_tensor *a = &ctx->tensors[r->a - 1], *b = &ctx->tensors[r->b - 1];
    const char *name = p->names.data + r->off;
    char shown[160];
    esc_fixed(shown, sizeof shown, (const uint8_t *)name, r->len, 120);
    bool embd = r->len >= 17 && memcmp(name + r->len - 17, "token_embd.weight", 17) == 0;
    /* the rank: llama.cpp's loader checks it for every other tensor; for
     * token_embd its graph multiplies lora_b by rows of lora_a */
    uint64_t ra = embd ? a->ne[0] : a->ne[1], rb = b->ne[0];
    if (ra != rb)
        adapter_at_tensor(ctx, R_LORA_RANK_MISMATCH, b, f->w,
                          embd ? "has rank %llu and its lora_a rank %llu (the halves of "
                                 "token_embd are [rank, n_vocab] and [rank, n_embd]: "
                                 "ggml_mul_mat asserts at the first decode)"
                               : "has rank %llu and its lora_a rank %llu (llama.cpp: \"lora_a "
                                 "tensor is not transposed\")",
                          (unsigned long long)rb, (unsigned long long)ra);
    if (memchr(name, 0, r->len))
        return; /* llama.cpp would look up the part before the NUL: no such tensor */
    if (ctx->base)
        against_base(f, a, b, name, shown, embd);
    else if (env)
        against_table(f, env, a, b, name, r->len, shown, embd);
}

void arch_check_lora(const arch_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    check_keys(f);
    if (ctx->status == GGUFLINT_OK && ctx->base)
        check_arch_match(f);
    if (ctx->status != GGUFLINT_OK)
        return;

    /* on the heap: the evaluator's state is tens of kilobytes (a lint fits
     * a 64 KiB thread stack) */
    arch_env *env = NULL;
    bool have_env = !ctx->base && f->info != NULL;
    if (have_env) {
        env = gl_malloc(sizeof *env);
        if (!env) {
            ctx->status = GGUFLINT_E_NOMEM;
            return;
        }
        arch_env_init(env, ctx, f->info, f->arch);
    }
    pairs p;
    memset(&p, 0, sizeof p);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        int side = adapter_ends_with(t->name, ".lora_a")   ? 0
                   : adapter_ends_with(t->name, ".lora_b") ? 1
                                                           : -1;
        if (side >= 0) {
            if (!file_half(&p, t, i, side)) {
                ctx->status = GGUFLINT_E_NOMEM;
                break;
            }
        } else if (!adapter_ends_with(t->name, "_norm.weight")) {
            adapter_at_tensor(ctx, R_LORA_TENSOR_UNEXPECTED, t, f->w,
                              "is not a .lora_a / .lora_b half: a base-model tensor in an "
                              "adapter (llama.cpp: \"has unexpected suffix\")");
        }
    }
    for (size_t k = 0; k < p.n && ctx->status == GGUFLINT_OK; k++) {
        const pair_rec *r = &p.rec[k];
        if (r->a && r->b) {
            check_pair(f, have_env ? env : NULL, &p, r);
            continue;
        }
        const gguflint_tensor *t = &ctx->tensors[(r->a ? r->a : r->b) - 1];
        adapter_at_tensor(ctx, R_LORA_PAIR_INCOMPLETE, t, f->w,
                          "has no matching %s (llama.cpp: \"LoRA tensor pair is missing one "
                          "component\")",
                          r->a ? ".lora_b" : ".lora_a");
    }
    pairs_free(&p);
    gl_free(env);
}

/* check_arch.c - see checks.h. Architecture hyper-parameters, driven by the
 * tables generated from llama.cpp's loader (data/arch/, arch_tables.h): the
 * [arch].* keys each loader reads (type, required), the per-layer arrays,
 * and the values llama.cpp asserts on. The tensor set and shapes are in
 * check_arch_tensors.c.
 *
 * The architecture is general.architecture as llama.cpp reads it: a C string,
 * so "llama\0x" is llama (and the NUL is reported). general.type changes
 * nothing unless the file really is an adapter (adapter.* keys or lora
 * tensors): llama.cpp's model loader never reads general.type.
 *
 * Work is bounded: a few dozen key lookups (O(1) each), per-layer arrays read
 * at most 512 elements, then one pass over the tensors. Nothing is
 * allocated; no recursion. */
#include "checks/arch_check.h"
#include "common/alloc.h"
#include "checks/arch_names.h"

#include "common/ckd.h"
#include "format/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool arch_keep(gguflint_ctx *ctx, int rule)
{
    if (rule_wanted(ctx, rule))
        return true;
    if (ctx->opt.severity[rule] != GGUFLINT_OFF)
        emit(ctx, rule, 0, 0, "", "%s", ""); /* not kept: counted as dropped */
    return false;
}

/* A key row's KV: "<arch>.<suffix>", or the key itself for a suffix
 * "=key" (a key the loader reads without the architecture prefix). */
static const gguflint_kv *key_of(const arch_file *f, const char *suffix)
{
    if (suffix[0] == '=')
        return kv_by_key(f->ctx, suffix + 1);
    return kv_by_arch_key(f->ctx, f->arch, strlen(f->arch), suffix);
}

/* The key's name for messages. */
static const char *key_name(const arch_file *f, const char *suffix, char *buf, size_t cap)
{
    if (suffix[0] == '=')
        snprintf(buf, cap, "%s", suffix + 1);
    else
        snprintf(buf, cap, "%s.%s", f->arch, suffix);
    return buf;
}

static bool int_of(const gguflint_kv *kv, uint64_t *out)
{
    int64_t v;
    if (!kv || !kv_int(kv, &v) || v < 0)
        return false;
    *out = (uint64_t)v;
    return true;
}

static uint64_t elem_offset(const arch_file *f, const gguflint_kv *kv, uint64_t i)
{
    return wire_array_elem_off(f->w, kv, 4, i);
}

/* ----------------------------------------------------------------- keys */

/* The type check of one present key against what the loader reads. */
static void check_key_type(const arch_file *f, const arch_key *k, const gguflint_kv *kv)
{
    gguflint_ctx *ctx = f->ctx;
    uint32_t want = VT_UINT32, elem = VT_INT32;
    const char *want_text = "u32";
    bool arrays = false;
    switch (k->type) {
    case KT_U32: break;
    case KT_I32:
        want = VT_INT32;
        want_text = "i32";
        break;
    case KT_F32:
        want = VT_FLOAT32;
        want_text = "f32";
        break;
    case KT_BOOL:
        want = VT_BOOL;
        want_text = "bool";
        break;
    case KT_STR:
        want = VT_STRING;
        want_text = "a string";
        break;
    case KT_LAYERS:
        arrays = true;
        want_text = "u32 or an array of i32";
        break;
    case KT_F32_LAYERS:
        want = VT_FLOAT32, elem = VT_FLOAT32, arrays = true, want_text = "f32 or an array of f32";
        break;
    case KT_SECTIONS:
        want = VT_INT32;
        arrays = true;
        want_text = "i32 or an array of i32";
        break;
    case KT_ARR_INT:
        want = VT_ARRAY, elem = VT_INT32, want_text = "an array of i32 or u32";
        if (kv->type == VT_ARRAY &&
            (kv->elem_type == VT_INT32 || kv->elem_type == VT_UINT32 || kv->elem_type == VT_BOOL))
            return;
        break;
    case KT_ARR_F32:
        want = VT_ARRAY, elem = VT_FLOAT32, want_text = "an array of f32";
        if (kv->type == VT_ARRAY && kv->elem_type == VT_FLOAT32)
            return;
        break;
    case KT_ARR_ANY:
        want = VT_ARRAY, elem = VT_INT32, want_text = "an array";
        if (kv->type == VT_ARRAY &&
            (kv->elem_type == VT_INT32 || kv->elem_type == VT_UINT32 || kv->elem_type == VT_BOOL ||
             kv->elem_type == VT_FLOAT32 || kv->elem_type == VT_STRING))
            return;
        break;
    default: /* KT_ARR_STR */
        want = VT_ARRAY, elem = VT_STRING, want_text = "an array of strings";
        if (kv->type == VT_ARRAY && kv->elem_type == VT_STRING)
            return;
        break;
    }
    if (kv->type == want && want != VT_ARRAY)
        return;
    /* the sliding-window layer pattern may be one bool per layer (gemma3n,
     * gemma4: llama.cpp reads it into a per-layer flag array) */
    if (k->type == KT_LAYERS && kv->type == VT_ARRAY && kv->elem_type == VT_BOOL &&
        strcmp(arch_str(k->suffix), "attention.sliding_window_pattern") == 0)
        return;
    if (arrays && kv->type == VT_ARRAY) {
        if (kv->elem_type == elem)
            return;
        if (elem == VT_INT32 && kv->elem_type == VT_UINT32) {
            if (arch_keep(ctx, R_HPARAM_ARRAY_UINT32)) {
                char path[192];
                kv_path(path, sizeof path, kv);
                emit(ctx, R_HPARAM_ARRAY_UINT32, kv->offset, wire_kv_head_size(f->w, kv), path,
                     "array of u32: the llama.cpp loader of Feb 2025 accepts only i32 arrays "
                     "here (newer versions also accept u32)");
            }
            return;
        }
    }
    if (arch_keep(ctx, R_HPARAM_WRONG_TYPE)) {
        char path[192], got[64];
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HPARAM_WRONG_TYPE, kv->offset, wire_kv_head_size(f->w, kv), path,
             "value is %s; llama.cpp reads this key as %s and rejects any other type",
             kv_type_text(got, sizeof got, kv), want_text);
    }
}

static void check_one_key(const arch_file *f, const arch_key *k)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *kv = key_of(f, arch_str(k->suffix));
    if (kv) {
        check_key_type(f, k, kv);
        return;
    }
    if (!f->model_meta || !k->required)
        return;
    char kn[192];
    if (arch_keep(ctx, R_HPARAM_MISSING))
        emit(ctx, R_HPARAM_MISSING, f->arch_kv->value_offset, f->arch_kv->value_size, f->arch_path,
             "architecture '%s' requires the key '%s', which is absent (llama.cpp: \"key not "
             "found in model\")",
             f->arch, key_name(f, arch_str(k->suffix), kn, sizeof kn));
}

/* The architecture's own reads, then the shared part of load_hparams (a key
 * the architecture reads itself is checked once, with its own row). */
static void check_keys(const arch_file *f)
{
    const arch_info *a = f->info;
    for (uint16_t i = 0; i < a->key_count && f->ctx->status == GGUFLINT_OK; i++)
        check_one_key(f, &arch_keys[a->key_first + i]);
    for (uint16_t i = 0; i < arch_common_count && f->ctx->status == GGUFLINT_OK; i++) {
        const arch_key *c = &arch_keys[arch_common_first + i];
        bool own = false;
        for (uint16_t j = 0; j < a->key_count && !own; j++)
            own = arch_keys[a->key_first + j].suffix == c->suffix ||
                  strcmp(arch_str(arch_keys[a->key_first + j].suffix), arch_str(c->suffix)) == 0;
        if (!own)
            check_one_key(f, c);
    }
}

/* ---------------------------------------------------------------- values */

/* Per-layer arrays: length, negative elements, and for attention-only
 * architectures zero head counts. */
static void check_layer_array(const arch_file *f, const char *suffix, bool head, uint64_t L,
                              bool L_known)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *kv = key_of(f, suffix);
    char path[192];
    if (!kv)
        return;
    bool zero_rule = head && (f->info->flags & AF_HEADS);
    if (kv->type != VT_ARRAY) {
        if (zero_rule && kv->type == VT_UINT32 && kv->u == 0) {
            kv_path(path, sizeof path, kv);
            emit(ctx, R_HEAD_COUNT_ZERO, kv->value_offset, 4, path,
                 "%s is 0: '%s' is an attention architecture and head counts are divisors", suffix,
                 f->arch);
        }
        return;
    }
    if (kv->elem_type != VT_INT32 && kv->elem_type != VT_UINT32)
        return; /* reported as the wrong type */
    kv_path(path, sizeof path, kv);
    if (L_known && kv->count != L)
        emit(ctx, R_HPARAM_ARRAY_INVALID, kv->value_offset, kv->value_size, path,
             "array has %llu elements; llama.cpp requires exactly block_count = %llu",
             (unsigned long long)kv->count, (unsigned long long)L);
    arr_iter it;
    gguflint_view el;
    if (!arr_iter_init(ctx, kv, &it))
        return;
    for (uint64_t i = 0;
         i < ARCH_MAX_LAYERS && ctx->status == GGUFLINT_OK && arr_next(&it, &el, NULL); i++) {
        int64_t v = el_int(&it, el);
        if (kv->elem_type == VT_UINT32)
            v = (int64_t)(uint32_t)v;
        char epath[224];
        if (v < 0) {
            snprintf(epath, sizeof epath, "%s[%llu]", path, (unsigned long long)i);
            emit(ctx, R_HPARAM_ARRAY_INVALID, elem_offset(f, kv, i), 4, epath,
                 "element %llu is %lld: a negative count becomes %llu in llama.cpp's unsigned "
                 "hyper-parameter",
                 (unsigned long long)i, (long long)v, (unsigned long long)(uint32_t)v);
        } else if (v == 0 && zero_rule) {
            snprintf(epath, sizeof epath, "%s[%llu]", path, (unsigned long long)i);
            emit(ctx, R_HEAD_COUNT_ZERO, elem_offset(f, kv, i), 4, epath,
                 "layer %llu has %s 0: '%s' is an attention architecture and head counts are "
                 "divisors",
                 (unsigned long long)i, suffix, f->arch);
        }
    }
}

/* head_count must be a multiple of head_count_kv in every layer. */
static void check_gqa(const arch_file *f, arch_env *env, uint64_t L, bool L_known)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *hk = key_of(f, "attention.head_count");
    const gguflint_kv *kk = key_of(f, "attention.head_count_kv");
    if (!hk || !kk)
        return;
    uint32_t n = 1;
    if (env->head.is_array)
        n = env->head.n;
    if (env->head_kv.is_array && env->head_kv.n > n)
        n = env->head_kv.n;
    (void)L;
    (void)L_known;
    for (uint32_t i = 0; i < n; i++) {
        arch_val h = arch_layer_value(&env->head, i), k = arch_layer_value(&env->head_kv, i);
        if (!h.known || !k.known)
            return;
        if (h.v == 0 || k.v == 0 || h.v > INT32_MAX || k.v > INT32_MAX || h.v % k.v == 0)
            continue;
        char path[224];
        kv_path(path, sizeof path, kk);
        uint64_t at = kk->value_offset, len = 4;
        if (env->head_kv.is_array) {
            size_t pl = strlen(path);
            snprintf(path + pl, sizeof path - pl, "[%u]", i);
            at = elem_offset(f, kk, i);
        }
        emit(ctx, R_HEAD_COUNT_MISMATCH, at, len, path,
             "layer %u: head_count %lld is not a multiple of head_count_kv %lld "
             "(grouped-query attention broadcasts each key/value head over whole query heads)",
             i, (long long)h.v, (long long)k.v);
        return; /* one finding: every later layer repeats it */
    }
}

/* Hybrid and recurrent architectures: a layer with key/value heads is an
 * attention layer (is_recr(il) is head_count_kv(il) == 0), so 0 query heads
 * there makes the head size 0 and llama.cpp refuses the tensor shapes
 * (jamba, lfm2, granitehybrid ...). One finding, at head_count. */
static void check_hybrid_heads(const arch_file *f, arch_env *env)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *hk = key_of(f, "attention.head_count");
    /* hybrids only: a per-layer recurrence formula (not every layer) */
    const char *rec = arch_str(f->info->recurrent);
    if (!hk || (f->info->flags & AF_HEADS) || !rec[0] || strcmp(rec, "1") == 0)
        return;
    uint32_t n = env->head.is_array ? env->head.n : 1;
    if (env->head_kv.is_array && env->head_kv.n > n)
        n = env->head_kv.n;
    for (uint32_t i = 0; i < n && i < ARCH_MAX_LAYERS; i++) {
        arch_val h = arch_layer_value(&env->head, i), k = arch_layer_value(&env->head_kv, i);
        if (!h.known || !k.known || h.v != 0 || k.v <= 0)
            continue;
        char path[224];
        kv_path(path, sizeof path, hk);
        uint64_t at = hk->value_offset;
        if (env->head.is_array) {
            size_t pl = strlen(path);
            snprintf(path + pl, sizeof path - pl, "[%u]", i);
            at = elem_offset(f, hk, i);
        }
        emit(ctx, R_HEAD_COUNT_ZERO, at, 4, path,
             "layer %u has head_count 0 but head_count_kv %lld: an attention layer of '%s' "
             "without query heads (llama.cpp sizes its tensors with head size 0 and refuses "
             "them)",
             i, (long long)k.v, f->arch);
        return;
    }
}

static void check_values(const arch_file *f, arch_env *env)
{
    gguflint_ctx *ctx = f->ctx;
    char path[192];
    const gguflint_kv *kv;
    uint64_t L = 0;
    bool L_known = int_of(key_of(f, "block_count"), &L);

    kv = key_of(f, "block_count");
    if (kv && L_known && L > ARCH_MAX_LAYERS) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_BLOCK_COUNT_LIMIT, kv->value_offset, kv->value_size, path,
             "block_count %llu is above llama.cpp's LLAMA_MAX_LAYERS (512); layer checks stop "
             "at 512",
             (unsigned long long)L);
    }

    check_layer_array(f, "feed_forward_length", false, L, L_known);
    check_layer_array(f, "attention.head_count", true, L, L_known);
    check_layer_array(f, "attention.head_count_kv", true, L, L_known);
    if (f->info->flags & AF_HEADS)
        check_gqa(f, env, L, L_known);
    else
        check_hybrid_heads(f, env);

    kv = key_of(f, "rope.dimension_sections");
    if (kv && kv->type == VT_ARRAY && kv->count != 4 &&
        (kv->elem_type == VT_INT32 || kv->elem_type == VT_UINT32)) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HPARAM_ARRAY_INVALID, kv->value_offset, kv->value_size, path,
             "array has %llu elements; llama.cpp requires exactly 4",
             (unsigned long long)kv->count);
    } else if (kv && (kv->type == VT_INT32 || kv->type == VT_UINT32) && kv->u == 0) {
        /* get_key_or_arr fills the four sections with a scalar */
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HPARAM_ASSERT, kv->value_offset, kv->value_size, path,
             "rope.dimension_sections is the scalar 0, which llama.cpp spreads over the four "
             "sections: ggml's multi-section rope asserts one is positive (GGML_ASSERT: the "
             "process aborts at the first decode)");
    } else if (kv && kv->type == VT_ARRAY &&
               (kv->elem_type == VT_INT32 || kv->elem_type == VT_UINT32)) {
        /* ggml's multi-section rope asserts one of the first three is > 0 */
        arr_iter it;
        gguflint_view el;
        bool any = false;
        if (arr_iter_init(ctx, kv, &it))
            for (int i = 0; i < 3 && arr_next(&it, &el, NULL); i++)
                any = any || el_int(&it, el) > 0;
        if (!any && ctx->status == GGUFLINT_OK) {
            kv_path(path, sizeof path, kv);
            emit(ctx, R_HPARAM_ASSERT, kv->value_offset, kv->value_size, path,
                 "rope.dimension_sections has no positive section among its first three: ggml's "
                 "multi-section rope asserts one is (GGML_ASSERT: the process aborts at the first "
                 "decode)");
        }
    }

    /* [E, E] attention: the graph splits it into head_count heads */
    kv = key_of(f, "attention.head_count");
    arch_val h0 = arch_layer_value(&env->head, 0);
    arch_val e = arch_sym_value(env, SYM_n_embd);
    if ((f->info->flags & AF_Q_IS_E) && kv && h0.known && h0.v > 0 && e.known && e.v > 0 &&
        env->head_k.known && env->head_v.known) {
        int64_t qk, qv;
        bool over = __builtin_mul_overflow(env->head_k.v, h0.v, &qk) ||
                    __builtin_mul_overflow(env->head_v.v, h0.v, &qv);
        if (over || qk != e.v || qv != e.v) {
            kv_path(path, sizeof path, kv);
            emit(ctx, R_HEAD_COUNT_MISMATCH, kv->value_offset,
                 kv->type == VT_ARRAY ? kv->value_size : 4, path,
                 "head_count %lld x head size %lld (key) / %lld (value) is not embedding_length "
                 "%lld: '%s' splits its [E, E] attention into head_count heads",
                 (long long)h0.v, (long long)env->head_k.v, (long long)env->head_v.v,
                 (long long)e.v, f->arch);
        }
    }

    /* llama, deci, falcon: rope over the whole head (load_hparams throws) */
    kv = key_of(f, "rope.dimension_count");
    arch_val rot = arch_sym_value(env, SYM_n_rot);
    if ((f->info->flags & AF_ROPE_IS_HEAD) && kv && kv->type == VT_UINT32 && h0.known && h0.v > 0 &&
        env->head_k.known && env->head_k.v > 0 && rot.known && rot.v != env->head_k.v) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_ROPE_DIM_MISMATCH, kv->value_offset, 4, path,
             "rope.dimension_count %lld differs from the head size %lld (%s); llama.cpp: "
             "\"invalid n_rot\"",
             (long long)rot.v, (long long)env->head_k.v,
             key_of(f, "attention.key_length") ? "attention.key_length"
                                               : "embedding_length / head_count");
    }

    /* experts (llama.cpp asserts: abort) */
    const gguflint_kv *xk = key_of(f, "expert_count"), *uk = key_of(f, "expert_used_count");
    uint64_t x = 0, u = 0;
    int_of(xk, &x);
    int_of(uk, &u);
    const gguflint_kv *at = uk ? uk : xk;
    const char *why = NULL;
    if (u > x && x > 0)
        why = "is above expert_count";
    else if (u > 0 && x == 0)
        why = "is set but expert_count is 0 or absent";
    else if (x > 0 && u == 0)
        why = "is 0 or absent but expert_count is set";
    if (why && at) {
        kv_path(path, sizeof path, at);
        emit(ctx, R_EXPERT_COUNT_INVALID, at->value_offset, at->value_size, path,
             "expert_used_count %llu %s (%llu); llama.cpp asserts on it and aborts",
             (unsigned long long)u, why, (unsigned long long)x);
    }

    kv = key_of(f, "rope.scaling.type");
    if (kv && kv->type == VT_STRING && !view_eq(kv->str, "none") && !view_eq(kv->str, "linear") &&
        !view_eq(kv->str, "yarn") && !view_eq(kv->str, "longrope")) {
        char shown[160];
        esc_fixed(shown, sizeof shown, kv->str.ptr, kv->str.len, 100);
        kv_path(path, sizeof path, kv);
        emit(ctx, R_ROPE_SCALING_UNKNOWN, kv->value_offset, kv->value_size, path,
             "rope scaling type '%s' is not none, linear, yarn or longrope; llama.cpp asserts "
             "and aborts",
             shown);
    }
}

/* Keys the shared part of load_hparams reads as optional (default 0) but
 * without which the tensors this file needs cannot be sized: a required
 * tensor whose condition holds uses the symbol in its shape. */
static bool row_uses(const arch_tensor *r, const char *const *syms)
{
    for (int j = 0; j < 4; j++) {
        const char *p = arch_str(r->ne[j]);
        while ((p = strpbrk(p, "#@")) != NULL) {
            long idx = strtol(p + 1, NULL, 10);
            p++;
            if (idx < 0 || (size_t)idx >= arch_sym_count)
                continue;
            for (const char *const *s = syms; *s; s++)
                if (strcmp(arch_str(arch_syms[idx].name), *s) == 0)
                    return true;
        }
    }
    return false;
}

/* Does the loader's shape of row r have a 0 (at layer 0)? A formula with a
 * fallback for the absent key (n_ff_exp ? n_ff_exp : n_ff) does not. */
static bool row_zero_dim(arch_env *env, const arch_tensor *r)
{
    for (int d = 0; d < 4; d++) {
        arch_val v = arch_row_eval(env, r, ARCH_F_NE0 + d, 0);
        if (v.known && v.v == 0)
            return true;
    }
    return false;
}

/* GG541 for an absent key `sfx` that sizes a required tensor (one using one
 * of `syms`, its condition holding) to 0; true when such a tensor exists. */
static bool report_sized(const arch_file *f, arch_env *env, const char *sfx,
                         const char *const *syms)
{
    gguflint_ctx *ctx = f->ctx;
    const arch_info *a = f->info;
    const char *needer = NULL;
    for (uint16_t i = 0; i < a->tensor_count && !needer; i++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + i];
        if (!r->required || !row_uses(r, syms))
            continue;
        arch_val c = arch_row_eval(env, r, ARCH_F_COND, 0);
        if (c.known && c.v && row_zero_dim(env, r))
            needer = arch_str(r->name);
    }
    if (!needer)
        return false;
    char kn[192];
    if (arch_keep(ctx, R_HPARAM_MISSING))
        emit(ctx, R_HPARAM_MISSING, f->arch_kv->value_offset, f->arch_kv->value_size, f->arch_path,
             "architecture '%s' needs the key '%s' to size its tensors (%s ...), and it is "
             "absent: llama.cpp reads it as 0 and the tensors get the wrong shape",
             f->arch, key_name(f, sfx, kn, sizeof kn), needer);
    return true;
}

/* The same for the architecture's own optional keys: a key read as
 * optional into a member that defaults to 0 (rwkv7's gate_lora_rank) and
 * sizes a required tensor whose condition holds. */
static void check_sized_own_keys(const arch_file *f, arch_env *env)
{
    gguflint_ctx *ctx = f->ctx;
    const arch_info *a = f->info;
    for (uint16_t j = 0; j < a->key_count && ctx->status == GGUFLINT_OK; j++) {
        const arch_key *k = &arch_keys[a->key_first + j];
        const char *sfx = arch_str(k->suffix);
        if (k->required || key_of(f, sfx))
            continue;
        const char *sym = NULL;
        for (size_t s = 0; s < arch_sym_count && !sym; s++)
            if (strcmp(arch_str(arch_syms[s].key), sfx) == 0 &&
                (!arch_syms[s].has_default || arch_syms[s].dflt == 0))
                sym = arch_str(arch_syms[s].name);
        if (!sym)
            continue;
        const char *const syms[] = {sym, NULL};
        if (report_sized(f, env, sfx, syms))
            return; /* one finding */
    }
}

static void check_sized_keys(const arch_file *f, arch_env *env)
{
    static const char *const ff_syms[] = {"n_ff", NULL};
    static const char *const head_syms[] = {
        "n_head",       "n_head_kv",    "n_embd_head_k", "n_embd_head_v",
        "n_embd_k_gqa", "n_embd_v_gqa", "n_rot",         NULL};
    static const struct {
        const char *suffix;
        const char *const *syms;
    } sized[] = {{"feed_forward_length", ff_syms}, {"attention.head_count", head_syms}};
    const arch_info *a = f->info;
    check_sized_own_keys(f, env);
    for (size_t k = 0; k < sizeof sized / sizeof sized[0]; k++) {
        if (key_of(f, sized[k].suffix))
            continue;
        bool own = false;
        for (uint16_t j = 0; j < a->key_count && !own; j++)
            own = strcmp(arch_str(arch_keys[a->key_first + j].suffix), sized[k].suffix) == 0 &&
                  arch_keys[a->key_first + j].required;
        if (own)
            continue; /* reported as a required key of the architecture */
        report_sized(f, env, sized[k].suffix, sized[k].syms);
    }
}

/* ------------------------------------------------------------------- entry */

/* A string llama.cpp reads as a C string: what it sees is the part before
 * the first NUL. Reports the NUL (GG514) and returns the visible length. */
size_t arch_c_string(gguflint_ctx *ctx, const gguflint_kv *kv, const char *what)
{
    const uint8_t *nul = kv->str.len ? memchr(kv->str.ptr, 0, (size_t)kv->str.len) : NULL;
    if (!nul)
        return (size_t)kv->str.len;
    size_t vis = (size_t)(nul - kv->str.ptr);
    if (arch_keep(ctx, R_C_STRING_NUL)) {
        char path[192], seen[160], full[240];
        kv_path(path, sizeof path, kv);
        esc_fixed(seen, sizeof seen, kv->str.ptr, vis, 100);
        esc_fixed(full, sizeof full, kv->str.ptr, kv->str.len, 160);
        /* the value is the string's length (4 bytes in v1, else 8), then its bytes */
        emit(ctx, R_C_STRING_NUL, kv->value_offset + wire_width(ctx->hdr.version) + vis, 1, path,
             "%s '%s' has a NUL at byte %zu: llama.cpp reads it as a C string and sees '%s'", what,
             full, vis, seen);
    }
    return vis;
}

/* Is this file really an adapter (what llama.cpp's adapter loader reads):
 * adapter.* keys or LoRA tensors? */
static bool adapter_evidence(gguflint_ctx *ctx)
{
    if (kv_by_key(ctx, "adapter.type") || kv_by_key(ctx, "adapter.lora.alpha"))
        return true;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        size_t n = (size_t)t->name.len;
        if (n > 7 && (memcmp(t->name.ptr + n - 7, ".lora_a", 7) == 0 ||
                      memcmp(t->name.ptr + n - 7, ".lora_b", 7) == 0))
            return true;
    }
    return false;
}

void check_arch(gguflint_ctx *ctx)
{
    /* general.type as llama.cpp reads it (a C string): imatrix files need no
     * architecture, adapters are told apart below */
    const gguflint_kv *gt = kv_by_key(ctx, "general.type");
    size_t gvis = 0;
    if (gt && gt->type == VT_STRING) {
        gvis = arch_c_string(ctx, gt, "general.type");
        if (ctx->status != GGUFLINT_OK)
            return;
        if (gvis == 7 && memcmp(gt->str.ptr, "imatrix", 7) == 0) {
            arch_check_imatrix(ctx, gt);
            return;
        }
    } else {
        gt = NULL;
    }
    const gguflint_kv *akv = kv_by_key(ctx, "general.architecture");
    bool says_adapter = gt && gvis == 7 && memcmp(gt->str.ptr, "adapter", 7) == 0;
    if (ctx->base && says_adapter && adapter_evidence(ctx)) {
        /* an adapter checked against its base model (gguflint_set_base): the
         * base stands in for the table, whatever the adapter's architecture */
        arch_file f;
        memset(&f, 0, sizeof f);
        f.ctx = ctx;
        f.w = wire_width(ctx->hdr.version);
        f.complete = ctx->hdr.metadata_complete;
        if (akv && akv->type == VT_STRING) {
            f.arch_kv = akv;
            kv_path(f.arch_path, sizeof f.arch_path, akv);
            size_t vis = arch_c_string(ctx, akv, "general.architecture");
            if (ctx->status != GGUFLINT_OK)
                return;
            esc_fixed(f.arch, sizeof f.arch, akv->str.ptr, vis, 60);
        } else if (akv) {
            return; /* not a string: general.* rules report it (llama.cpp aborts) */
        }
        arch_check_lora(&f);
        return;
    }
    if (!akv || akv->type != VT_STRING)
        return; /* general.* rules report it */
    arch_file f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.arch_kv = akv;
    f.w = wire_width(ctx->hdr.version);
    kv_path(f.arch_path, sizeof f.arch_path, akv);

    size_t vis = arch_c_string(ctx, akv, "general.architecture");
    if (ctx->status != GGUFLINT_OK)
        return;
    f.info = vis < sizeof f.arch ? arch_find(akv->str.ptr, vis) : NULL;
    if (!f.info) {
        for (size_t i = 0; i < arch_hand_name_count; i++) {
            const char *hn = arch_str(arch_hand_names[i]);
            if (vis == strlen(hn) && memcmp(akv->str.ptr, hn, vis) == 0) {
                /* not a llama_model architecture */
                if (strcmp(hn, "controlvector") == 0) {
                    snprintf(f.arch, sizeof f.arch, "%s", hn);
                    arch_check_cvec(&f);
                }
                return;
            }
        }
        arch_check_unknown(ctx, akv, vis, f.arch_path);
        if (says_adapter && adapter_evidence(ctx)) {
            /* what an adapter holds does not depend on the architecture */
            esc_fixed(f.arch, sizeof f.arch, akv->str.ptr, vis, 60);
            f.complete = ctx->hdr.metadata_complete;
            arch_check_lora(&f);
        }
        return;
    }
    snprintf(f.arch, sizeof f.arch, "%s", arch_str(f.info->name));
    if (strcmp(f.arch, "clip") == 0) {
        f.complete = ctx->hdr.metadata_complete;
        arch_check_clip(&f); /* a projector, not a llama_model */
        return;
    }

    /* What this file must hold. A file without tensors is a vocabulary-only
     * file unless it is the metadata-only first shard of a split; a shard
     * after the first, an adapter or a file whose metadata could not be read
     * to the end is not checked for what is absent. general.type alone does
     * not make an adapter: llama.cpp's model loader never reads it. */
    const gguflint_kv *sc = kv_by_key(ctx, "split.count"), *sn = kv_by_key(ctx, "split.no");
    uint64_t split_count = 0;
    int_of(sc, &split_count);
    int_of(sn, &f.split_no);
    f.shard = split_count > 1;
    bool is_adapter = says_adapter && adapter_evidence(ctx);
    if (says_adapter && !is_adapter) {
        char path[192];
        kv_path(path, sizeof path, gt);
        emit(ctx, R_GENERAL_TYPE_NOT_ADAPTER, gt->value_offset, gt->value_size, path,
             "general.type is 'adapter' but the file has no adapter.* keys and no lora_a/lora_b "
             "tensors: llama.cpp loads it as a model (its model loader ignores general.type), "
             "so it is checked as one");
    }
    if (is_adapter) {
        f.complete = ctx->hdr.metadata_complete;
        arch_check_lora(&f);
        return;
    }
    f.complete = ctx->hdr.metadata_complete;
    bool has_tensors = ctx->hdr.tensor_count > 0;
    f.model_meta = f.info->coverage >= COV_KEYS && f.complete && !(f.shard && f.split_no > 0) &&
                   (has_tensors || f.shard);

    check_keys(&f);
    if (ctx->status != GGUFLINT_OK)
        return;
    /* the evaluator's state is tens of kilobytes: on the heap, so that a
     * lint fits a small thread stack (64 KiB) */
    arch_env *env = gl_malloc(sizeof *env);
    if (!env) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    arch_env_init(env, ctx, f.info, f.arch);
    if (f.model_meta && f.info->coverage == COV_FULL)
        check_sized_keys(&f, env);
    check_values(&f, env);
    if (ctx->status == GGUFLINT_OK && f.model_meta)
        arch_check_asserts(&f, env);
    if (ctx->status == GGUFLINT_OK && f.info->coverage == COV_FULL && has_tensors)
        arch_check_tensors(&f, env);
    gl_free(env);
}

/* check_arch.c - see checks.h. Architecture hyper-parameters and tensor sets,
 * driven by the tables in data/arch/ (each fact in one place):
 *
 *   names.def   every known general.architecture value (else: a note)
 *   archs.def   the modelled architectures: tensor table and flags
 *   keys.def    [arch].* keys: the type llama.cpp reads, who requires them
 *   llama.def   the tensors of the llama loader (llama, refact, minicpm,
 *   qwen2.def   granite, granitemoe) and of the qwen2 loader (qwen2, qwen2vl)
 *
 * Work is bounded: one lookup per table key, one pass over the tensors (each
 * name matched against a table of a few dozen entries), and the missing-tensor
 * walk over at most 512 layers (LLAMA_MAX_LAYERS) with O(1) name lookups.
 * Nothing is allocated; no recursion. */
#include "checks/checks.h"

#include "common/ckd.h"
#include "format/wire.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

#define MAX_LAYERS 512u /* llama.cpp LLAMA_MAX_LAYERS */

/* ------------------------------------------------------------------ tables */

static const char *const known_names[] = {
#define ARCH_NAME(s) s,
#include "../../data/arch/names.def"
#undef ARCH_NAME
};

/* Tensor tables (archs.def TENSORS column) and architecture flags. */
enum { T_NONE, T_LLAMA, T_QWEN2 };
enum { ROPE_IS_HEAD = 1, Q_IS_E = 2, SHARED_EXPERTS = 4 };

enum {
#define ARCH(id, name, tensors, flags) A_##id,
#include "../../data/arch/archs.def"
#undef ARCH
    A__COUNT
};
_Static_assert(A__COUNT <= 30, "arch masks are int bit sets");

enum {
#define ARCH(id, name, tensors, flags) M_##id = 1 << A_##id,
#include "../../data/arch/archs.def"
#undef ARCH
    M_ALL = (1 << A__COUNT) - 1,
    M_LOADER_LLAMA = 0
#define ARCH(id, name, tensors, flags) | (T_##tensors == T_LLAMA ? M_##id : 0)
#include "../../data/arch/archs.def"
#undef ARCH
    ,
    M_LOADER_QWEN2 = 0
#define ARCH(id, name, tensors, flags) | (T_##tensors == T_QWEN2 ? M_##id : 0)
#include "../../data/arch/archs.def"
#undef ARCH
};

typedef struct arch_spec {
    const char *name;
    int tensors;
    unsigned flags;
} arch_spec;

static const arch_spec archs[A__COUNT] = {
#define ARCH(id, name_, tensors_, flags_) [A_##id] = {name_, T_##tensors_, (unsigned)(flags_)},
#include "../../data/arch/archs.def"
#undef ARCH
};

/* Key types (keys.def TYPE column). */
enum { KT_U32, KT_F32, KT_BOOL, KT_STR, KT_LAYERS, KT_SECTIONS };

typedef struct key_spec {
    const char *suffix;
    int type;
    unsigned required_by; /* M_* bits */
} key_spec;

static const key_spec keys[] = {
#define KEY(suffix_, type_, req_) {suffix_, KT_##type_, (unsigned)(req_)},
#include "../../data/arch/keys.def"
#undef KEY
};
#define N_KEYS (sizeof keys / sizeof keys[0])

/* Shape symbols (llama.def NE columns), conditions and needs. */
enum { S_1, S_E, S_V, S_F, S_X, S_FSH, S_DK_H, S_DK_HKV, S_DV_HKV, S_R_HALF, S__COUNT };
enum { W_ALWAYS, W_DENSE, W_MOE, W_SHEXP };
enum { SC_GLOBAL, SC_LAYER };
enum { NEED_OPTIONAL, NEED_REQUIRED };

typedef struct tensor_spec {
    const char *name;
    unsigned char scope, need, when;
    unsigned char ne[3];
} tensor_spec;

#define TENSOR(scope_, name_, a, b, c, when_, need_)                                               \
    {name_, SC_##scope_, NEED_##need_, W_##when_, {S_##a, S_##b, S_##c}},
static const tensor_spec llama_tensors[] = {
#include "../../data/arch/llama.def"
};
static const tensor_spec qwen2_tensors[] = {
#include "../../data/arch/qwen2.def"
};
#undef TENSOR

static const char *const sym_names[S__COUNT] = {
    "1", "E", "V", "F", "X", "Fsh", "Dk*H", "Dk*Hkv", "Dv*Hkv", "R/2",
};

/* ------------------------------------------------------------------ state */

/* Hyper-parameters as llama.cpp derives them. A value of 0 means unknown
 * (absent, unreadable, or not derivable), except X where absent means 0. */
typedef struct hparams {
    uint64_t E, V, L, F, X, Xused, Fsh, Dk, Dv, R;
    uint64_t H0, Hkv0; /* layer 0's head counts (what the loaders use) */
    bool L_known, X_known, Xused_known;
    bool V_tokens; /* V is the length of tokenizer.ggml.tokens */
} hparams;

typedef struct arch_ctx {
    gguflint_ctx *ctx;
    const gguflint_kv *arch_kv; /* general.architecture */
    const char *arch;           /* its value (a known name) */
    int id;                     /* index into archs[], or -1 */
    unsigned mask;              /* M_<id>, or 0 */
    unsigned w;                 /* width of length fields: 4 in v1, else 8 */
    bool model_meta;            /* this file must carry the model's metadata */
    const gguflint_kv *kv[N_KEYS];
    hparams hp;
    char arch_path[160];
} arch_ctx;

/* False when no finding of `rule` would be kept: then only emit() is called
 * (it counts the drop) and nothing is formatted. */
static bool live(const gguflint_ctx *ctx, int rule)
{
    return rule_wanted(ctx, rule);
}

static void drop(gguflint_ctx *ctx, int rule)
{
    if (ctx->opt.severity[rule] != GGUFLINT_OFF)
        emit(ctx, rule, 0, 0, "", "%s", "");
}

static const gguflint_kv *key_kv(const arch_ctx *a, const char *suffix)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].suffix, suffix) == 0)
            return a->kv[i];
    return NULL;
}

/* Integer value of a scalar KV of any integer type, for deriving symbols
 * (the type itself is checked separately); false when absent or unusable. */
static bool int_of(const gguflint_kv *kv, uint64_t *out)
{
    int64_t v;
    if (!kv || !kv_int(kv, &v) || v < 0)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* Layer 0's value of a per-layer key: the scalar, or the array's first
 * element. */
static bool layer0_of(const gguflint_ctx *ctx, const gguflint_kv *kv, uint64_t *out)
{
    if (!kv)
        return false;
    if (kv->type != VT_ARRAY)
        return int_of(kv, out);
    if (kv->elem_type != VT_INT32 && kv->elem_type != VT_UINT32)
        return false;
    arr_iter it;
    gguflint_view el;
    if (!arr_iter_init(ctx, kv, &it) || !arr_next(&it, &el, NULL))
        return false;
    int64_t v = el_int(&it, el);
    if (kv->elem_type == VT_UINT32)
        v = (int64_t)(uint32_t)v;
    if (v < 0)
        return false;
    *out = (uint64_t)v;
    return true;
}

static uint64_t elem_offset(const arch_ctx *a, const gguflint_kv *kv, uint64_t i)
{
    return wire_array_elem_off(a->w, kv, 4, i);
}

/* ------------------------------------------------------------ hyper-params */

static const char *type_text(const gguflint_kv *kv, char *buf, size_t cap)
{
    const char *n = vt_name(kv->type);
    if (kv->type == VT_ARRAY) {
        const char *e = vt_name(kv->elem_type);
        snprintf(buf, cap, "an array of %s", e ? e : "?");
    } else {
        snprintf(buf, cap, "%s", n ? n : "?");
    }
    return buf;
}

/* The type check of one present key. */
static void check_key_type(arch_ctx *a, const key_spec *ks, const gguflint_kv *kv)
{
    gguflint_ctx *ctx = a->ctx;
    uint32_t want = 0;
    const char *want_text = NULL;
    switch (ks->type) {
    case KT_U32:
        want = VT_UINT32;
        want_text = "u32";
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
        want = VT_UINT32;
        want_text = "u32 or an array of i32";
        break;
    default:
        want = VT_INT32;
        want_text = "i32 or an array of i32";
        break;
    }
    bool arrays = ks->type == KT_LAYERS || ks->type == KT_SECTIONS;
    if (kv->type == want)
        return;
    if (arrays && kv->type == VT_ARRAY) {
        if (kv->elem_type == VT_INT32)
            return;
        if (kv->elem_type == VT_UINT32) {
            if (live(ctx, R_HPARAM_ARRAY_UINT32)) {
                char path[192];
                kv_path(path, sizeof path, kv);
                emit(ctx, R_HPARAM_ARRAY_UINT32, kv->offset, wire_kv_head_size(a->w, kv), path,
                     "array of u32: the llama.cpp loader of Feb 2025 accepts only i32 arrays "
                     "here (newer versions also accept u32)");
            } else {
                drop(ctx, R_HPARAM_ARRAY_UINT32);
            }
            return;
        }
    }
    if (live(ctx, R_HPARAM_WRONG_TYPE)) {
        char path[192], got[64];
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HPARAM_WRONG_TYPE, kv->offset, wire_kv_head_size(a->w, kv), path,
             "value is %s; llama.cpp reads this key as %s and rejects any other type",
             type_text(kv, got, sizeof got), want_text);
    } else {
        drop(ctx, R_HPARAM_WRONG_TYPE);
    }
}

/* Find, type-check and (for modelled architectures) require every key. */
static void check_keys(arch_ctx *a)
{
    gguflint_ctx *ctx = a->ctx;
    for (size_t i = 0; i < N_KEYS && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_kv *kv = kv_by_keyf(ctx, "%s.%s", a->arch, keys[i].suffix);
        a->kv[i] = kv;
        if (kv) {
            check_key_type(a, &keys[i], kv);
        } else if (a->model_meta && (keys[i].required_by & a->mask)) {
            if (live(ctx, R_HPARAM_MISSING))
                emit(ctx, R_HPARAM_MISSING, a->arch_kv->value_offset, a->arch_kv->value_size,
                     a->arch_path, "architecture '%s' requires the key '%s.%s', which is absent",
                     a->arch, a->arch, keys[i].suffix);
            else
                drop(ctx, R_HPARAM_MISSING);
        }
    }
}

/* Per-layer arrays: length, negative elements, and for modelled architectures
 * zero head counts. Layer values are read only as far as the check needs. */
static void check_layer_array(arch_ctx *a, const char *suffix, bool head)
{
    gguflint_ctx *ctx = a->ctx;
    const gguflint_kv *kv = key_kv(a, suffix);
    char path[192];
    if (!kv)
        return;
    bool zero_rule = head && a->id >= 0;
    if (kv->type != VT_ARRAY) {
        if (zero_rule && kv->type == VT_UINT32 && kv->u == 0) {
            kv_path(path, sizeof path, kv);
            emit(ctx, R_HEAD_COUNT_ZERO, kv->value_offset, 4, path,
                 "%s is 0: '%s' is an attention architecture and head counts are divisors", suffix,
                 a->arch);
        }
        return;
    }
    if (kv->elem_type != VT_INT32 && kv->elem_type != VT_UINT32)
        return; /* reported as the wrong type */
    kv_path(path, sizeof path, kv);
    if (a->hp.L_known && kv->count != a->hp.L)
        emit(ctx, R_HPARAM_ARRAY_INVALID, kv->value_offset, kv->value_size, path,
             "array has %llu elements; llama.cpp requires exactly block_count = %llu",
             (unsigned long long)kv->count, (unsigned long long)a->hp.L);
    arr_iter it;
    gguflint_view el;
    if (!arr_iter_init(ctx, kv, &it))
        return;
    for (uint64_t i = 0; i < MAX_LAYERS && ctx->status == GGUFLINT_OK && arr_next(&it, &el, NULL);
         i++) {
        int64_t v = el_int(&it, el);
        if (kv->elem_type == VT_UINT32)
            v = (int64_t)(uint32_t)v;
        char epath[224];
        if (v < 0) {
            snprintf(epath, sizeof epath, "%s[%llu]", path, (unsigned long long)i);
            emit(ctx, R_HPARAM_ARRAY_INVALID, elem_offset(a, kv, i), 4, epath,
                 "element %llu is %lld: a negative count becomes %llu in llama.cpp's unsigned "
                 "hyper-parameter",
                 (unsigned long long)i, (long long)v, (unsigned long long)(uint32_t)v);
        } else if (v == 0 && zero_rule) {
            snprintf(epath, sizeof epath, "%s[%llu]", path, (unsigned long long)i);
            emit(ctx, R_HEAD_COUNT_ZERO, elem_offset(a, kv, i), 4, epath,
                 "layer %llu has %s 0: '%s' is an attention architecture and head counts are "
                 "divisors",
                 (unsigned long long)i, suffix, a->arch);
        }
    }
}

/* head_count must be a multiple of head_count_kv in every layer. */
static void check_gqa(arch_ctx *a)
{
    gguflint_ctx *ctx = a->ctx;
    const gguflint_kv *hk = key_kv(a, "attention.head_count");
    const gguflint_kv *kk = key_kv(a, "attention.head_count_kv");
    if (!hk || !kk)
        return;
    uint64_t n = 1;
    if (hk->type == VT_ARRAY)
        n = hk->count;
    if (kk->type == VT_ARRAY && kk->count > n)
        n = kk->count;
    if (n > MAX_LAYERS)
        n = MAX_LAYERS;
    arr_iter ih, ik;
    bool ha = hk->type == VT_ARRAY, ka = kk->type == VT_ARRAY;
    if ((ha && hk->elem_type != VT_INT32 && hk->elem_type != VT_UINT32) ||
        (ka && kk->elem_type != VT_INT32 && kk->elem_type != VT_UINT32))
        return; /* reported as the wrong type */
    if ((ha && !arr_iter_init(ctx, hk, &ih)) || (ka && !arr_iter_init(ctx, kk, &ik)))
        return;
    uint64_t h = 0, k = 0;
    if (!ha && !int_of(hk, &h))
        return;
    if (!ka && !int_of(kk, &k))
        return;
    for (uint64_t i = 0; i < n && ctx->status == GGUFLINT_OK; i++) {
        gguflint_view el;
        if (ha) {
            if (!arr_next(&ih, &el, NULL))
                return;
            h = (uint64_t)(uint32_t)el_int(&ih, el);
        }
        if (ka) {
            if (!arr_next(&ik, &el, NULL))
                return;
            k = (uint64_t)(uint32_t)el_int(&ik, el);
        }
        if (h == 0 || k == 0 || h > INT32_MAX || k > INT32_MAX || h % k == 0)
            continue;
        char path[224];
        kv_path(path, sizeof path, kk);
        uint64_t at = kk->value_offset, len = 4;
        if (ka) {
            size_t pl = strlen(path);
            snprintf(path + pl, sizeof path - pl, "[%llu]", (unsigned long long)i);
            at = elem_offset(a, kk, i);
        }
        emit(ctx, R_HEAD_COUNT_MISMATCH, at, len, path,
             "layer %llu: head_count %llu is not a multiple of head_count_kv %llu "
             "(grouped-query attention broadcasts each key/value head over whole query heads)",
             (unsigned long long)i, (unsigned long long)h, (unsigned long long)k);
        return; /* one finding: every later layer repeats it */
    }
}

/* Derive the symbols of the shape formulas (see data/arch/llama.def). */
static void derive(arch_ctx *a)
{
    gguflint_ctx *ctx = a->ctx;
    hparams *hp = &a->hp;
    uint64_t v;
    int_of(key_kv(a, "embedding_length"), &hp->E);
    hp->L_known = int_of(key_kv(a, "block_count"), &hp->L);
    hp->X_known = int_of(key_kv(a, "expert_count"), &hp->X);
    hp->Xused_known = int_of(key_kv(a, "expert_used_count"), &hp->Xused);
    layer0_of(ctx, key_kv(a, "feed_forward_length"), &hp->F);
    layer0_of(ctx, key_kv(a, "attention.head_count"), &hp->H0);
    hp->Hkv0 = hp->H0;
    if (key_kv(a, "attention.head_count_kv")) {
        hp->Hkv0 = 0;
        layer0_of(ctx, key_kv(a, "attention.head_count_kv"), &hp->Hkv0);
    }
    if (a->id >= 0 && (archs[a->id].flags & SHARED_EXPERTS))
        int_of(key_kv(a, "expert_shared_feed_forward_length"), &hp->Fsh);
    /* llama.cpp: head sizes and rope dims only when n_head() > 0 */
    if (hp->H0 > 0) {
        hp->Dk = hp->Dv = hp->E / hp->H0; /* 0 (unknown) when E is */
        if (int_of(key_kv(a, "attention.key_length"), &v))
            hp->Dk = v;
        if (int_of(key_kv(a, "attention.value_length"), &v))
            hp->Dv = v;
        hp->R = hp->Dk;
        if (int_of(key_kv(a, "rope.dimension_count"), &v))
            hp->R = v;
    }
}

static void check_values(arch_ctx *a)
{
    gguflint_ctx *ctx = a->ctx;
    hparams *hp = &a->hp;
    char path[192];
    const gguflint_kv *kv;

    kv = key_kv(a, "block_count");
    if (kv && hp->L_known && hp->L > MAX_LAYERS) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_BLOCK_COUNT_LIMIT, kv->value_offset, kv->value_size, path,
             "block_count %llu is above llama.cpp's LLAMA_MAX_LAYERS (512); layer checks stop "
             "at 512",
             (unsigned long long)hp->L);
    }

    check_layer_array(a, "feed_forward_length", false);
    check_layer_array(a, "attention.head_count", true);
    check_layer_array(a, "attention.head_count_kv", true);
    if (a->id >= 0)
        check_gqa(a);

    kv = key_kv(a, "rope.dimension_sections");
    if (kv && kv->type == VT_ARRAY && kv->count != 4 &&
        (kv->elem_type == VT_INT32 || kv->elem_type == VT_UINT32)) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HPARAM_ARRAY_INVALID, kv->value_offset, kv->value_size, path,
             "array has %llu elements; llama.cpp requires exactly 4",
             (unsigned long long)kv->count);
    }

    /* qwen2 loader: the [E, E] attention splits into head_count heads */
    kv = key_kv(a, "attention.head_count");
    uint64_t qk = 0, qv = 0;
    bool q_overflow = ckd_mul64(&qk, hp->Dk, hp->H0) || ckd_mul64(&qv, hp->Dv, hp->H0);
    if (a->id >= 0 && (archs[a->id].flags & Q_IS_E) && kv && hp->H0 > 0 && hp->E > 0 &&
        (q_overflow || qk != hp->E || qv != hp->E)) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_HEAD_COUNT_MISMATCH, kv->value_offset,
             kv->type == VT_ARRAY ? kv->value_size : 4, path,
             "head_count %llu x head size %llu (key) / %llu (value) is not embedding_length "
             "%llu: '%s' splits its [E, E] attention into head_count heads",
             (unsigned long long)hp->H0, (unsigned long long)hp->Dk, (unsigned long long)hp->Dv,
             (unsigned long long)hp->E, a->arch);
    }

    /* llama, deci, falcon: rope over the whole head */
    kv = key_kv(a, "rope.dimension_count");
    if (a->id >= 0 && (archs[a->id].flags & ROPE_IS_HEAD) && kv && kv->type == VT_UINT32 &&
        hp->H0 > 0 && hp->Dk > 0 && hp->R != hp->Dk) {
        kv_path(path, sizeof path, kv);
        emit(ctx, R_ROPE_DIM_MISMATCH, kv->value_offset, 4, path,
             "rope.dimension_count %llu differs from the head size %llu (%s); llama.cpp: "
             "\"invalid n_rot\"",
             (unsigned long long)hp->R, (unsigned long long)hp->Dk,
             key_kv(a, "attention.key_length") ? "attention.key_length"
                                               : "embedding_length / head_count");
    }

    /* experts (llama.cpp asserts: abort) */
    const gguflint_kv *xk = key_kv(a, "expert_count"), *uk = key_kv(a, "expert_used_count");
    uint64_t x = hp->X_known ? hp->X : 0, u = hp->Xused_known ? hp->Xused : 0;
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

    kv = key_kv(a, "rope.scaling.type");
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

/* ----------------------------------------------------------------- tensors */

typedef struct tensor_table {
    const tensor_spec *t;
    size_t n;
} tensor_table;

static uint64_t sym_value(const hparams *hp, int s)
{
    uint64_t r = 0;
    switch (s) {
    case S_1: return 1;
    case S_E: return hp->E;
    case S_V: return hp->V;
    case S_F: return hp->F;
    case S_X: return hp->X_known ? hp->X : 0;
    case S_FSH: return hp->Fsh;
    case S_DK_H: return ckd_mul64(&r, hp->Dk, hp->H0) ? 0 : r;
    case S_DK_HKV: return ckd_mul64(&r, hp->Dk, hp->Hkv0) ? 0 : r;
    case S_DV_HKV: return ckd_mul64(&r, hp->Dv, hp->Hkv0) ? 0 : r;
    case S_R_HALF: return hp->R / 2;
    default: return 0;
    }
}

static bool applies(const arch_ctx *a, const tensor_spec *s)
{
    const hparams *hp = &a->hp;
    bool moe = hp->X_known && hp->X > 0;
    switch (s->when) {
    case W_DENSE: return !moe;
    case W_MOE: return moe;
    case W_SHEXP: return moe && hp->Fsh > 0;
    default: return true;
    }
}

static const char *when_text(int when)
{
    switch (when) {
    case W_DENSE: return "only in dense models (expert_count 0)";
    case W_MOE: return "only in MoE models (expert_count > 0)";
    default: return "only in MoE models with expert_shared_feed_forward_length > 0";
    }
}

/* "[a, b, c]" of the expected shape, "?" for unknown dims. */
static void shape_text(char *buf, size_t cap, const uint64_t *ne, int n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int j = 0; j < n && at < cap; j++) {
        int k;
        if (ne[j] == 0)
            k = snprintf(buf + at, cap - at, "%s?", j ? ", " : "[");
        else
            k = snprintf(buf + at, cap - at, "%s%llu", j ? ", " : "[", (unsigned long long)ne[j]);
        if (k < 0)
            return;
        at += (size_t)k;
    }
    if (at < cap)
        snprintf(buf + at, cap - at, "]");
}

static void check_shape(arch_ctx *a, const gguflint_tensor *t, const tensor_spec *s)
{
    gguflint_ctx *ctx = a->ctx;
    if (t->n_dims > 4)
        return; /* reported by the parser; dims past 4 were not kept */
    uint64_t want[4] = {sym_value(&a->hp, s->ne[0]), sym_value(&a->hp, s->ne[1]),
                        sym_value(&a->hp, s->ne[2]), 1};
    /* The rows of token_embd.weight and output.weight against the number of
     * tokens are the vocabulary rule GG574 (vocab-tensor-rows-mismatch): not
     * reported twice. Without tokens, V is token_embd's ne[1] and output must
     * agree with it here. */
    bool rows = strcmp(s->name, "token_embd.weight") == 0 || strcmp(s->name, "output.weight") == 0;
    for (int j = 0; j < 3; j++)
        if (s->ne[j] == S_V && a->hp.V_tokens && rows)
            want[j] = 0;
    int bad = -1;
    for (int j = 0; j < 4; j++)
        if (want[j] != 0 && t->ne[j] != want[j]) {
            bad = j;
            break;
        }
    if (bad < 0)
        return;
    if (!live(ctx, R_TENSOR_SHAPE_MISMATCH)) {
        drop(ctx, R_TENSOR_SHAPE_MISMATCH);
        return;
    }
    int shown_dims = 1;
    for (int j = 0; j < 4; j++)
        if (want[j] != 1 || (uint32_t)j < t->n_dims)
            shown_dims = j + 1;
    char name[160], got[128], exp[128], formula[64], path[64];
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 100);
    shape_text(got, sizeof got, t->ne, t->n_dims ? (int)t->n_dims : 1);
    shape_text(exp, sizeof exp, want, shown_dims);
    snprintf(formula, sizeof formula, "[%s, %s, %s]", sym_names[s->ne[0]], sym_names[s->ne[1]],
             sym_names[s->ne[2]]);
    uint64_t field, len;
    size_t ti = tensor_index_of(ctx, t);
    if ((uint32_t)bad < t->n_dims) {
        field = wire_ti_ne_off(a->w, t, (uint64_t)bad);
        len = a->w;
        snprintf(path, sizeof path, "tensor[%zu].ne[%d]", ti, bad);
    } else {
        field = wire_ti_ndims_off(a->w, t);
        len = 4;
        snprintf(path, sizeof path, "tensor[%zu].n_dims", ti);
    }
    emit(ctx, R_TENSOR_SHAPE_MISMATCH, field, len, path,
         "tensor '%s' has shape %s; '%s' needs %s = %s (ne[%d] differs)", name, got, a->arch,
         formula, exp, bad);
}

static void unexpected(arch_ctx *a, const gguflint_tensor *t, int rule, const char *fmt_tail,
                       const char *detail)
{
    gguflint_ctx *ctx = a->ctx;
    if (!live(ctx, rule)) {
        drop(ctx, rule);
        return;
    }
    char name[160], path[64];
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 100);
    tensor_path(path, sizeof path, ctx, t);
    emit(ctx, rule, t->info_offset, wire_string_size(a->w, t->name.len), path, "tensor '%s' %s%s",
         name, fmt_tail, detail ? detail : "");
}

static const tensor_spec *find_spec(const tensor_table *tt, int scope, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < tt->n; i++) {
        const tensor_spec *s = &tt->t[i];
        if (s->scope == scope && strlen(s->name) == n && memcmp(s->name, p, n) == 0)
            return s;
    }
    return NULL;
}

/* One pass over the tensors: name -> table entry, block index, shape. */
static void check_tensor_names(arch_ctx *a, const tensor_table *tt)
{
    gguflint_ctx *ctx = a->ctx;
    const hparams *hp = &a->hp;
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        const uint8_t *p = t->name.ptr;
        size_t n = (size_t)t->name.len;
        const tensor_spec *s;
        if (n >= 4 && memcmp(p, "blk.", 4) == 0) {
            size_t d = 4;
            uint64_t idx = 0;
            bool big = false;
            while (d < n && p[d] >= '0' && p[d] <= '9') {
                if (ckd_mul64(&idx, idx, 10) || ckd_add64(&idx, idx, (uint64_t)(p[d] - '0')))
                    big = true;
                d++;
            }
            size_t digits = d - 4;
            if (digits == 0 || d >= n || p[d] != '.' || (digits > 1 && p[4] == '0')) {
                unexpected(a, t, R_BLOCK_INDEX_MALFORMED,
                           "does not have a plain decimal layer number after 'blk.' (llama.cpp "
                           "looks layers up as blk.%d.)",
                           NULL);
                continue;
            }
            if (hp->L_known && (big || idx >= hp->L)) {
                char detail[96];
                snprintf(detail, sizeof detail, "%llu (llama.cpp creates layers 0..%llu only)",
                         (unsigned long long)hp->L, (unsigned long long)(hp->L ? hp->L - 1 : 0));
                if (hp->L == 0)
                    snprintf(detail, sizeof detail, "0 (the model has no layers)");
                unexpected(a, t, R_BLOCK_INDEX_RANGE, "has a layer number not below block_count ",
                           detail);
                continue;
            }
            s = find_spec(tt, SC_LAYER, p + d + 1, n - d - 1);
        } else {
            s = find_spec(tt, SC_GLOBAL, p, n);
        }
        if (!s) {
            char detail[128];
            snprintf(detail, sizeof detail,
                     "('%s' loader): llama.cpp fails with \"wrong number "
                     "of tensors\"",
                     a->arch);
            unexpected(a, t, R_TENSOR_UNEXPECTED, "is not a tensor of this architecture ", detail);
            continue;
        }
        if (!applies(a, s)) {
            unexpected(a, t, R_TENSOR_UNEXPECTED, "is used by this architecture ",
                       when_text(s->when));
            continue;
        }
        check_shape(a, t, s);
    }
}

static void missing(arch_ctx *a, const char *name)
{
    gguflint_ctx *ctx = a->ctx;
    if (tensor_by_name(ctx, name))
        return;
    if (!live(ctx, R_TENSOR_MISSING)) {
        drop(ctx, R_TENSOR_MISSING);
        return;
    }
    emit(ctx, R_TENSOR_MISSING, a->arch_kv->value_offset, a->arch_kv->value_size, a->arch_path,
         "architecture '%s' requires the tensor '%s', which is absent", a->arch, name);
}

static void check_missing_tensors(arch_ctx *a, const tensor_table *tt)
{
    gguflint_ctx *ctx = a->ctx;
    for (size_t i = 0; i < tt->n; i++)
        if (tt->t[i].scope == SC_GLOBAL && tt->t[i].need == NEED_REQUIRED && applies(a, &tt->t[i]))
            missing(a, tt->t[i].name);
    if (!a->hp.L_known)
        return;
    uint64_t layers = a->hp.L < MAX_LAYERS ? a->hp.L : MAX_LAYERS;
    for (uint64_t l = 0; l < layers && ctx->status == GGUFLINT_OK; l++)
        for (size_t i = 0; i < tt->n; i++) {
            const tensor_spec *s = &tt->t[i];
            if (s->scope != SC_LAYER || s->need != NEED_REQUIRED || !applies(a, s))
                continue;
            char name[96];
            snprintf(name, sizeof name, "blk.%llu.%s", (unsigned long long)l, s->name);
            missing(a, name);
        }
}

/* V: the number of tokens, else ne[1] of token_embd.weight. */
static void derive_vocab(arch_ctx *a)
{
    const gguflint_kv *tok = kv_by_key(a->ctx, "tokenizer.ggml.tokens");
    if (tok && tok->type == VT_ARRAY) {
        a->hp.V = tok->count;
        a->hp.V_tokens = true;
        return;
    }
    const gguflint_tensor *te = tensor_by_name(a->ctx, "token_embd.weight");
    if (te && te->n_dims >= 2 && te->n_dims <= 4)
        a->hp.V = te->ne[1];
}

/* ------------------------------------------------------------------- entry */

static bool is_known(gguflint_view name)
{
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        if (view_eq(name, known_names[i]))
            return true;
    return false;
}

void check_arch(gguflint_ctx *ctx)
{
    const gguflint_kv *akv = kv_by_key(ctx, "general.architecture");
    if (!akv || akv->type != VT_STRING)
        return; /* general.* rules report it */
    arch_ctx a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.arch_kv = akv;
    a.id = -1;
    a.w = wire_width(ctx->hdr.version);
    kv_path(a.arch_path, sizeof a.arch_path, akv);

    if (!is_known(akv->str)) {
        char shown[160];
        esc_fixed(shown, sizeof shown, akv->str.ptr, akv->str.len, 100);
        emit(ctx, R_ARCH_UNKNOWN, akv->value_offset, akv->value_size, a.arch_path,
             "architecture '%s' is not one gguflint knows; its keys and tensors are not checked "
             "(llama.cpp refuses architectures it does not know)",
             shown);
        return;
    }
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        if (view_eq(akv->str, known_names[i]))
            a.arch = known_names[i];
    for (int i = 0; i < A__COUNT; i++)
        if (view_eq(akv->str, archs[i].name)) {
            a.id = i;
            a.mask = 1u << i;
        }

    /* What this file must hold. A file without tensors is a vocabulary-only
     * file unless it is the metadata-only first shard of a split; a shard
     * after the first, an adapter (general.type other than "model") or a
     * file whose metadata could not be read to the end is not checked for
     * what is absent. */
    const gguflint_kv *sc = kv_by_key(ctx, "split.count"), *sn = kv_by_key(ctx, "split.no");
    const gguflint_kv *gt = kv_by_key(ctx, "general.type");
    uint64_t split_count = 0, split_no = 0;
    int_of(sc, &split_count);
    int_of(sn, &split_no);
    bool shard = split_count > 1;
    bool is_model = !gt || gt->type != VT_STRING || view_eq(gt->str, "model");
    bool complete = ctx->hdr.metadata_complete;
    bool has_tensors = ctx->hdr.tensor_count > 0;
    a.model_meta =
        a.id >= 0 && complete && is_model && !(shard && split_no > 0) && (has_tensors || shard);

    check_keys(&a);
    if (ctx->status != GGUFLINT_OK)
        return;
    derive(&a);
    check_values(&a);
    if (ctx->status != GGUFLINT_OK || a.id < 0 || !is_model || !has_tensors)
        return;

    tensor_table tt = {NULL, 0};
    if (archs[a.id].tensors == T_LLAMA) {
        tt.t = llama_tensors;
        tt.n = sizeof llama_tensors / sizeof llama_tensors[0];
    } else if (archs[a.id].tensors == T_QWEN2) {
        tt.t = qwen2_tensors;
        tt.n = sizeof qwen2_tensors / sizeof qwen2_tensors[0];
    } else {
        return;
    }
    derive_vocab(&a);
    check_tensor_names(&a, &tt);
    if (complete && !shard && ctx->status == GGUFLINT_OK)
        check_missing_tensors(&a, &tt);
}

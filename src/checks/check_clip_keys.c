/* check_clip_keys.c - the keys of a projector file as the mtmd loader reads
 * them (data/arch/clip_keys.def, generated from clip_model_loader): the
 * type each getter expects (GG520), the keys an encoder or its projector
 * type requires (GG557), and the values load_hparams and the graph reject
 * or assert on (GG521).
 *
 * Work is bounded: one pass over the key table (about 170 rows), one keyed
 * lookup per row, a fixed number of lookups per encoder. */
#include "checks/clip_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const prefix[CLIP_NMOD] = {"vision", "audio", "gen.audio"};
static const char *const enc_name[CLIP_NMOD] = {"vision", "audio", "audio generation"};

/* Is row r read by the loader for this file: a file-level key, or a key of
 * an encoder the file enables whose projector type the row names (or every
 * type)? */
static bool row_active(const clip_file *f, const clip_key *r)
{
    if (r->modality == CLIP_F)
        return true;
    const clip_enc *e = &f->enc[r->modality];
    if (!e->on)
        return false;
    if (r->ptype[0] == '\0')
        return true;
    return e->proj && strcmp(e->proj->name, r->ptype) == 0;
}

static bool type_ok(const gguflint_kv *kv, uint8_t want)
{
    switch (want) {
    case CK_BOOL: return kv->type == VT_BOOL;
    case CK_I32: return kv->type == VT_INT32;
    case CK_U32: return kv->type == VT_UINT32;
    case CK_F32: return kv->type == VT_FLOAT32;
    case CK_STR: return kv->type == VT_STRING;
    case CK_ARR_F32: return kv->type == VT_ARRAY && kv->elem_type == VT_FLOAT32;
    default: return kv->type == VT_ARRAY && kv->elem_type == VT_INT32;
    }
}

static const char *const want_name[] = {"bool",   "i32",          "u32",         "f32",
                                        "string", "array of f32", "array of i32"};
static const char *const getter[] = {"gguf_get_val_bool", "gguf_get_val_i32", "gguf_get_val_u32",
                                     "gguf_get_val_f32",  "gguf_get_val_str", "get_arr_f32",
                                     "get_arr_int"};

/* kv's type in the loader's words, as want_name has them: "array of f32"
 * (kv_type_text without its article). */
static const char *type_text(char *buf, size_t cap, const gguflint_kv *kv)
{
    const char *t = kv_type_text(buf, cap, kv);
    return strncmp(t, "an ", 3) == 0 ? t + 3 : t;
}

/* True the first time kv is offered to the set done (*n of cap entries),
 * which then holds it; false when it is there already or the set is full. */
static bool first_time(const gguflint_kv **done, size_t *n, size_t cap, const gguflint_kv *kv)
{
    for (size_t k = 0; k < *n; k++)
        if (done[k] == kv)
            return false;
    if (*n == cap)
        return false;
    done[(*n)++] = kv;
    return true;
}

/* GG520 and GG557. */
void clip_check_keys(const clip_file *f)
{
    gguflint_ctx *ctx = f->ctx;
    const gguflint_kv *typed[256];
    const char *missing[256];
    size_t n_typed = 0, n_missing = 0;
    for (size_t i = 0; i < clip_n_keys && ctx->status == GGUFLINT_OK; i++) {
        const clip_key *r = &clip_keys[i];
        if (!row_active(f, r))
            continue;
        const gguflint_kv *kv = kv_by_key(ctx, r->key);
        if (kv) {
            if (type_ok(kv, r->type))
                continue;
            if (!first_time(typed, &n_typed, sizeof typed / sizeof typed[0], kv))
                continue;
            char buf[48];
            const char *have = type_text(buf, sizeof buf, kv);
            bool scalar = r->type <= CK_STR;
            clip_report(f, R_CLIP_KEY_WRONG_TYPE, kv,
                        "%s is %s; the mtmd loader reads it as %s with %s, which %s", r->key, have,
                        want_name[r->type], getter[r->type],
                        scalar ? "asserts on the type and aborts the process (a crash, not a load "
                                 "error)"
                               : "throws (\"key is not an array\" / \"array has type\"): the "
                                 "projector does not load");
            continue;
        }
        if (!r->required)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n_missing && !seen; k++)
            seen = strcmp(missing[k], r->key) == 0;
        if (seen || n_missing == sizeof missing / sizeof missing[0])
            continue;
        missing[n_missing++] = r->key;
        if (r->ptype[0])
            clip_report(f, R_CLIP_HPARAM_MISSING, f->enc[r->modality].type_kv,
                        "projector type '%s' requires '%s', which is absent (the mtmd loader: "
                        "\"Key not found\")",
                        r->ptype, r->key);
        else
            clip_report(f, R_CLIP_HPARAM_MISSING, NULL,
                        "the %s encoder requires '%s', which is absent (the mtmd loader: \"Key "
                        "not found\")",
                        enc_name[r->modality], r->key);
    }
    bool any = false;
    for (int m = 0; m < CLIP_NMOD; m++) {
        const clip_enc *e = &f->enc[m];
        any = any || e->on;
        if (e->on && !e->type_kv)
            clip_report(f, R_CLIP_HPARAM_MISSING, NULL,
                        "the %s encoder has no projector type (clip.projector_type or "
                        "clip.%s.projector_type): the mtmd loader throws \"unknown projector "
                        "type\"",
                        enc_name[m], prefix[m]);
    }
    if (!any)
        clip_report(f, R_CLIP_HPARAM_MISSING, NULL,
                    "the file enables no encoder (clip.has_vision_encoder and "
                    "clip.has_audio_encoder absent or false): mtmd builds nothing and fails "
                    "(\"Failed to load CLIP model\")");
}

/* ---- GG521: values ---- */

static const gguflint_kv *enc_key(const clip_file *f, int m, const char *suffix)
{
    char key[96];
    snprintf(key, sizeof key, "clip.%s.%s", prefix[m], suffix);
    return kv_by_key(f->ctx, key);
}

static bool u32_of(const gguflint_kv *kv, int64_t *v)
{
    if (!kv || kv->type != VT_UINT32)
        return false;
    *v = (int64_t)kv->u;
    return true;
}

static bool is_type(const clip_enc *e, const char *name)
{
    return e->proj && strcmp(e->proj->name, name) == 0;
}

static void range(const clip_file *f, const gguflint_kv *kv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void range(const clip_file *f, const gguflint_kv *kv, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    clip_report(f, R_CLIP_VALUE_RANGE, kv, "%s", msg);
}

/* Every u32 the loader reads for this file: its get_u32 throws above
 * INT32_MAX. */
static void int32_limits(const clip_file *f)
{
    const gguflint_kv *done[256];
    size_t n = 0;
    for (size_t i = 0; i < clip_n_keys; i++) {
        const clip_key *r = &clip_keys[i];
        if (r->type != CK_U32 || !row_active(f, r))
            continue;
        const gguflint_kv *kv = kv_by_key(f->ctx, r->key);
        int64_t v;
        if (!u32_of(kv, &v) || v <= INT32_MAX)
            continue;
        if (!first_time(done, &n, sizeof done / sizeof done[0], kv))
            continue;
        range(f, kv,
              "value %lld is above INT32_MAX: the loader's get_u32 throws (\"exceeds "
              "INT32_MAX\"); the projector does not load",
              (long long)v);
    }
}

/* The vision values load_hparams caps (u32 keys; above INT32_MAX is
 * int32_limits' finding), in the order it reads them. */
typedef struct vision_cap {
    const char *key;
    int64_t max;
    const char *label, *thrown, *tail;
} vision_cap;
static const vision_cap vision_caps[] = {
    {"clip.vision.image_size", 8192, "image_size is ", "image_size is too large (max 8192)",
     "; the projector does not load"},
    {"clip.vision.patch_size", 65535, "patch_size is ",
     "patch_size must be positive and less than 65536", ""},
    {"clip.vision.projector.scale_factor", 65535, "merge factor ",
     "n_merge must be greater than 0 and less than 65536", ""},
    {"clip.vision.spatial_merge_size", 65535, "merge factor ",
     "n_merge must be greater than 0 and less than 65536", ""},
    {"clip.vision.window_size", 4096, "window_size is ", "attn_window_size is too large (max 4096)",
     ""},
};

static void encoder_values(const clip_file *f, int m)
{
    const clip_enc *e = &f->enc[m];
    int64_t embd = 0, head = 0, v;
    const gguflint_kv *ek = enc_key(f, m, "embedding_length");
    const gguflint_kv *hk = enc_key(f, m, "attention.head_count");
    bool he = u32_of(ek, &embd), hh = u32_of(hk, &head);
    if (he && embd == 0)
        range(f, ek,
              "embedding_length is %lld: load_hparams throws (\"n_embd must be greater than "
              "0\"); the projector does not load",
              (long long)embd);
    int64_t layers = 0;
    const gguflint_kv *bk = enc_key(f, m, "block_count");
    bool vit = e->proj && (e->proj->flags & G_VIT) && u32_of(bk, &layers) &&
               layers > (clip_skips_last_layer(f, e) ? 1 : 0);
    if (vit && hh && head == 0)
        range(f, hk,
              "head_count is %lld: the graph's head size is 0 and the attention reshape "
              "asserts at warmup (a crash: GGML_ASSERT in ggml_reshape_4d)",
              (long long)head);
    else if (vit && he && hh && embd > 0 && embd % head != 0 &&
             !enc_key(f, m, "attention.head_dim"))
        range(f, hk,
              "head_count %lld does not divide embedding_length: the head size is rounded "
              "down and the attention reshape asserts at warmup (a crash: GGML_ASSERT in "
              "ggml_reshape_4d)",
              (long long)head);
    const gguflint_kv *gk = kv_by_key(f->ctx, "clip.use_gelu");
    const gguflint_kv *sk = kv_by_key(f->ctx, "clip.use_silu");
    if (m == CLIP_V && gk && sk && gk->type == VT_BOOL && sk->type == VT_BOOL && gk->u && sk->u)
        range(f, sk,
              "clip.use_gelu and clip.use_silu are both true: load_hparams throws (\"both "
              "use_gelu and use_silu are set to true\")");
    if (m == CLIP_V) {
        for (size_t k = 0; k < sizeof vision_caps / sizeof vision_caps[0]; k++) {
            const vision_cap *c = &vision_caps[k];
            const gguflint_kv *ck = kv_by_key(f->ctx, c->key);
            if (u32_of(ck, &v) && v > c->max && v <= INT32_MAX)
                range(f, ck, "%s%lld: load_hparams throws (\"%s\")%s", c->label, (long long)v,
                      c->thrown, c->tail);
        }
        static const char *const norm[] = {"clip.vision.image_mean", "clip.vision.image_std"};
        for (size_t k = 0; k < 2; k++) {
            const gguflint_kv *nk = kv_by_key(f->ctx, norm[k]);
            if (!nk)
                clip_report(f, R_CLIP_VALUE_RANGE, NULL,
                            "the vision encoder has no %s: load_hparams throws (\"image_mean/"
                            "image_std arrays must have at least 3 elements\")",
                            norm[k]);
            else if (nk->type == VT_ARRAY && nk->elem_type == VT_FLOAT32 && nk->count < 3)
                range(f, nk,
                      "%lld elements, fewer than the 3 colour channels: load_hparams throws "
                      "(\"image_mean/image_std arrays must have at least 3 elements\")",
                      (long long)nk->count);
        }
        const gguflint_kv *gp = kv_by_key(f->ctx, "clip.vision.image_grid_pinpoints");
        if (gp && gp->type == VT_ARRAY && gp->elem_type == VT_INT32 && gp->count % 2 != 0)
            range(f, gp,
                  "%lld elements, an odd number: load_hparams throws (\"image_grid_pinpoints "
                  "must have an even number of elements\")",
                  (long long)gp->count);
        if (e->proj && (e->proj->flags & MERGE_GT1)) {
            const char *mkey = is_type(e, "dots3note_v") ? "clip.vision.spatial_merge_size"
                                                         : "clip.vision.projector.scale_factor";
            const gguflint_kv *mk = kv_by_key(f->ctx, mkey);
            v = 1;
            if (mk && !u32_of(mk, &v))
                v = 2; /* another type: GG520 */
            if (v == 1)
                range(f, mk,
                      "%s is %s1: the %s graph pixel-shuffles by it and build_patch_merge_permute "
                      "asserts it is above 1 (a crash at the warmup encode: GGML_ASSERT)",
                      mkey, mk ? "" : "absent, so the loader's default ", e->proj->name);
        }
        if (is_type(e, "gemma3")) {
            /* models/siglip.cpp: ggml_pool_2d over the patch grid with a
             * kernel of n_merge (default 4) */
            int64_t image = 0, patch = 0, pool = 4;
            const gguflint_kv *sf = kv_by_key(f->ctx, "clip.vision.projector.scale_factor");
            u32_of(sf, &pool);
            if (u32_of(kv_by_key(f->ctx, "clip.vision.image_size"), &image) &&
                u32_of(kv_by_key(f->ctx, "clip.vision.patch_size"), &patch) && patch > 0 &&
                pool > 0 && image / patch < pool && image / patch > 0)
                range(f, sf ? sf : kv_by_key(f->ctx, "clip.vision.image_size"),
                      "the pooling kernel (scale_factor, default 4) is %lld, larger than the "
                      "image_size / patch_size patch grid: gemma3's pool_2d yields nothing and "
                      "the reshape after it asserts (a crash at the warmup encode)",
                      (long long)pool);
        }
        if (is_type(e, "minicpmv4_6")) {
            const gguflint_kv *sf = kv_by_key(f->ctx, "clip.vision.projector.scale_factor");
            if (u32_of(sf, &v) && v != 2 && v != 4)
                range(f, sf,
                      "scale_factor %lld: the minicpmv4_6 loader asserts it is 2 or 4 (a crash: "
                      "GGML_ASSERT in load_hparams)",
                      (long long)v);
        }
        if (is_type(e, "internvl")) {
            int64_t lo = 1, hi = 12;
            const gguflint_kv *lk = kv_by_key(f->ctx, "clip.vision.preproc_min_tiles");
            const gguflint_kv *xk = kv_by_key(f->ctx, "clip.vision.preproc_max_tiles");
            u32_of(lk, &lo);
            u32_of(xk, &hi);
            if (lo > hi && hi <= INT32_MAX && lo <= INT32_MAX)
                range(f, lk ? lk : xk,
                      "preproc_min_tiles %lld is above preproc_max_tiles: the internvl loader "
                      "asserts (a crash: GGML_ASSERT in load_hparams)",
                      (long long)lo);
        }
    }
    if (m == CLIP_A) {
        const gguflint_kv *mk = kv_by_key(f->ctx, "clip.audio.num_mel_bins");
        bool fft = !is_type(e, "gemma4ua") && !is_type(e, "pockettts_spkenc");
        if (u32_of(mk, &v) && (v == 0 || (fft && v > 256)) && v <= INT32_MAX)
            range(f, mk,
                  "num_mel_bins is %lld: load_hparams throws (\"n_mel_bins must be in range [1, "
                  "256]\")",
                  (long long)v);
        if (is_type(e, "parakeet")) {
            const gguflint_kv *sf = kv_by_key(f->ctx, "clip.audio.subsampling_factor");
            if (u32_of(sf, &v) && v != 8)
                range(f, sf,
                      "subsampling_factor %lld: the parakeet loader asserts it is 8 (a crash: "
                      "GGML_ASSERT in load_hparams)",
                      (long long)v);
            const gguflint_kv *ck = kv_by_key(f->ctx, "clip.audio.conv_kernel_size");
            if (u32_of(ck, &v) && (v == 0 || v % 2 == 0))
                range(f, ck,
                      "conv_kernel_size %lld: the parakeet loader asserts a positive odd size (a "
                      "crash: GGML_ASSERT in load_hparams)",
                      (long long)v);
        }
    }
}

void clip_check_values(const clip_file *f)
{
    int32_limits(f);
    for (int m = 0; m < CLIP_NMOD - 1; m++)
        if (f->enc[m].on)
            encoder_values(f, m);
}

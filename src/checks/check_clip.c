/* check_clip.c - multimodal projector files (general.architecture = "clip",
 * mmproj-*.gguf), as llama.cpp's mtmd loader reads them: the projector type
 * (data/arch/clip_projectors.def), the keys the loader requires for each
 * encoder, the projector tensors each type requires (data/arch/
 * clip_tensors.def), and the values that drove the 2026 mtmd memory-safety
 * bugs (#27166 patch grid, #27223 audio chunk size, #27224 pixel limits, the
 * Qwen2-VL merge size). Called by check_arch.
 *
 * Work is bounded: a fixed number of key lookups (O(1) each), a scan of the
 * projector table (about 60 names) and one tensor lookup per row of the
 * tensor table (about 40). Nothing is allocated. */
#include "checks/arch_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MINICPMV = 1, MERGE2 = 2, NEEDS_PIXELS = 4, NEEDS_SCALE = 8 };

/* Names are fixed char arrays, not pointers: the tables need no relocation
 * at start. The assertions keep every name (and its NUL) within them. */
#define CLIP_TYPE_MAX 32
#define CLIP_TENSOR_MAX 48
static const struct {
    char name[CLIP_TYPE_MAX];
    unsigned flags;
} projectors[] = {
#define CLIP_PROJECTOR(name, flags) {name, flags},
#include "../../data/arch/clip_projectors.def"
#undef CLIP_PROJECTOR
};
#define CLIP_PROJECTOR(name, flags)                                                                \
    _Static_assert(sizeof name <= CLIP_TYPE_MAX, "projector type name fits");
#include "../../data/arch/clip_projectors.def"
#undef CLIP_PROJECTOR

/* The projector tensors the loader requires per projector type. */
static const struct {
    char type[CLIP_TYPE_MAX];
    char tensor[CLIP_TENSOR_MAX];
} projector_tensors[] = {
#define CLIP_TENSOR(type, tensor) {type, tensor},
#include "../../data/arch/clip_tensors.def"
#undef CLIP_TENSOR
};
#define CLIP_TENSOR(type, tensor)                                                                  \
    _Static_assert(sizeof type <= CLIP_TYPE_MAX && sizeof tensor <= CLIP_TENSOR_MAX,               \
                   "projector tensor row fits");
#include "../../data/arch/clip_tensors.def"
#undef CLIP_TENSOR

#define PIXELS_LIMIT (1ull << 26)
#define CHUNK_MAX 8192
#define MINICPMV_GRID_MAX 1024 /* bucket_coords_h/w[1024] in clip_encode */

typedef struct clip_file {
    gguflint_ctx *ctx;
    const gguflint_kv *anchor; /* where file-level findings point */
    char anchor_path[160];
    unsigned flags;     /* union of the projector types' flags */
    char type_name[64]; /* a projector type, for messages */
} clip_file;

static bool value_of(const gguflint_kv *kv, int64_t *v)
{
    return kv && kv->type != VT_ARRAY && kv->type != VT_STRING && kv->type != VT_BOOL &&
           kv_int(kv, v);
}

static void report(const clip_file *f, int rule, const gguflint_kv *kv, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(const clip_file *f, int rule, const gguflint_kv *kv, const char *fmt, ...)
{
    gguflint_ctx *ctx = f->ctx;
    if (!arch_live(ctx, rule)) {
        arch_drop(ctx, rule);
        return;
    }
    char msg[320], path[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (kv) {
        kv_path(path, sizeof path, kv);
        emit(ctx, rule, kv->value_offset, kv->value_size, path, "%s", msg);
    } else {
        emit(ctx, rule, f->anchor->value_offset, f->anchor->value_size, f->anchor_path, "%s", msg);
    }
}

/* The projector types: known or not (GG556), their flags, NULs (GG514). */
static bool projector_types(clip_file *f)
{
    static const char *const keys[] = {"clip.projector_type", "clip.vision.projector_type",
                                       "clip.audio.projector_type"};
    bool any = false;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const gguflint_kv *kv = kv_by_key(f->ctx, keys[k]);
        if (!kv || kv->type != VT_STRING)
            continue;
        any = true;
        if (k == 0 || f->anchor == NULL) {
            f->anchor = kv;
            kv_path(f->anchor_path, sizeof f->anchor_path, kv);
        }
        size_t vis = arch_c_string(f->ctx, kv, keys[k]);
        if (f->ctx->status != GGUFLINT_OK)
            return any;
        bool known = false;
        for (size_t i = 0; i < sizeof projectors / sizeof projectors[0] && !known; i++)
            if (strlen(projectors[i].name) == vis &&
                memcmp(projectors[i].name, kv->str.ptr, vis) == 0) {
                known = true;
                f->flags |= projectors[i].flags;
                snprintf(f->type_name, sizeof f->type_name, "%s", projectors[i].name);
            }
        if (!known) {
            char shown[120];
            esc_fixed(shown, sizeof shown, kv->str.ptr, vis, 80);
            report(f, R_CLIP_PROJECTOR_UNKNOWN, kv,
                   "projector type '%s' is not one llama.cpp's mtmd loader knows; its "
                   "projector-specific keys are not checked",
                   shown);
        }
    }
    return any;
}

static bool flag_of(const gguflint_ctx *ctx, const char *key, bool *out)
{
    const gguflint_kv *kv = kv_by_key(ctx, key);
    if (!kv || kv->type != VT_BOOL)
        return false;
    *out = kv->u != 0;
    return true;
}

static bool any_key_with_prefix(const gguflint_ctx *ctx, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < ctx->n_kvs; i++)
        if (ctx->kvs[i].key.len > n && memcmp(ctx->kvs[i].key.ptr, prefix, n) == 0)
            return true;
    return false;
}

static void require(const clip_file *f, const char *const *keys)
{
    for (const char *const *k = keys; *k; k++)
        if (!kv_by_key(f->ctx, *k))
            report(f, R_CLIP_HPARAM_MISSING, NULL,
                   "the mtmd loader requires '%s', which is absent (\"key not found\")", *k);
}

static void required_keys(const clip_file *f)
{
    static const char *const vision[] = {"clip.vision.image_size",
                                         "clip.vision.patch_size",
                                         "clip.vision.embedding_length",
                                         "clip.vision.feed_forward_length",
                                         "clip.vision.block_count",
                                         "clip.vision.attention.head_count",
                                         "clip.vision.attention.layer_norm_epsilon",
                                         NULL};
    static const char *const audio[] = {"clip.audio.embedding_length",
                                        "clip.audio.feed_forward_length",
                                        "clip.audio.block_count",
                                        "clip.audio.attention.head_count",
                                        "clip.audio.attention.layer_norm_epsilon",
                                        "clip.audio.num_mel_bins",
                                        NULL};
    static const char *const pixels[] = {"clip.vision.image_min_pixels",
                                         "clip.vision.image_max_pixels", NULL};
    static const char *const scale[] = {"clip.vision.projector.scale_factor", NULL};
    gguflint_ctx *ctx = f->ctx;
    bool has_v = false, has_a = false;
    bool v_known = flag_of(ctx, "clip.has_vision_encoder", &has_v);
    bool a_known = flag_of(ctx, "clip.has_audio_encoder", &has_a);
    if (!v_known)
        has_v = any_key_with_prefix(ctx, "clip.vision.");
    if (!a_known)
        has_a = any_key_with_prefix(ctx, "clip.audio.");
    if (has_v) {
        require(f, vision);
        if (f->flags & NEEDS_PIXELS)
            require(f, pixels);
        if (f->flags & NEEDS_SCALE)
            require(f, scale);
    }
    if (has_a)
        require(f, audio);
}

static void patch_grid(const clip_file *f)
{
    const gguflint_kv *ik = kv_by_key(f->ctx, "clip.vision.image_size");
    const gguflint_kv *pk = kv_by_key(f->ctx, "clip.vision.patch_size");
    int64_t image = 0, patch = 0;
    bool hi = value_of(ik, &image), hp = value_of(pk, &patch);
    if (hi && image <= 0)
        report(f, R_CLIP_PATCH_GRID, ik,
               "image_size is %lld: the patch grid (image_size / patch_size) is empty",
               (long long)image);
    if (hp && patch <= 0)
        report(f, R_CLIP_PATCH_GRID, pk,
               "patch_size is %lld: the patch grid divides by it (division by zero)",
               (long long)patch);
    if (!hi || !hp || image <= 0 || patch <= 0)
        return;
    if (patch > image) {
        report(f, R_CLIP_PATCH_GRID, pk,
               "patch_size %lld is larger than image_size %lld: the patch grid is empty",
               (long long)patch, (long long)image);
        return;
    }
    if ((f->flags & MINICPMV) && image / patch > MINICPMV_GRID_MAX)
        report(f, R_CLIP_PATCH_GRID, pk,
               "image_size %lld / patch_size %lld = %lld patches per side: MiniCPM-V's "
               "clip_encode writes one entry per patch row into bucket_coords[1024] "
               "(llama.cpp #27166, stack buffer overflow)",
               (long long)image, (long long)patch, (long long)(image / patch));
}

static void merge_sizes(const clip_file *f)
{
    const gguflint_kv *mk = kv_by_key(f->ctx, "clip.vision.spatial_merge_size");
    const gguflint_kv *sk = kv_by_key(f->ctx, "clip.vision.projector.scale_factor");
    int64_t v;
    if (value_of(mk, &v)) {
        if (v <= 0)
            report(f, R_CLIP_MERGE_SIZE, mk,
                   "spatial_merge_size is %lld: the patch grid is divided by it", (long long)v);
        else if ((f->flags & MERGE2) && v != 2)
            report(f, R_CLIP_MERGE_SIZE, mk,
                   "spatial_merge_size is %lld; the %s graph merges 2 x 2 patches and sizes its "
                   "buffers for that (a heap write in mtmd with 1)",
                   (long long)v, f->type_name);
    }
    if (value_of(sk, &v) && v <= 0)
        report(f, R_CLIP_MERGE_SIZE, sk,
               "projector.scale_factor is %lld: the patch grid is divided by it", (long long)v);
}

static void audio_chunk(const clip_file *f)
{
    const gguflint_kv *ck = kv_by_key(f->ctx, "clip.audio.chunk_size");
    int64_t v;
    if (value_of(ck, &v) && (v <= 0 || v > CHUNK_MAX))
        report(f, R_CLIP_CHUNK_SIZE, ck,
               "chunk_size is %lld, outside 1..%d: mtmd allocates chunk_size^2 relative "
               "distances with an int multiply (llama.cpp #27223, heap write)",
               (long long)v, CHUNK_MAX);
}

static void pixel_limits(const clip_file *f)
{
    const gguflint_kv *lo = kv_by_key(f->ctx, "clip.vision.image_min_pixels");
    const gguflint_kv *hi = kv_by_key(f->ctx, "clip.vision.image_max_pixels");
    int64_t a = 0, b = 0;
    bool ha = value_of(lo, &a), hb = value_of(hi, &b);
    if (ha && (a < 0 || (uint64_t)a >= PIXELS_LIMIT))
        report(f, R_CLIP_PIXELS, lo,
               "image_min_pixels is %lld, not below 2^26: the preprocessor upscales every "
               "image to at least this many pixels and its int pixel index overflows "
               "(llama.cpp #27224, heap write)",
               (long long)a);
    if (hb && (b < 0 || (uint64_t)b >= PIXELS_LIMIT))
        report(f, R_CLIP_PIXELS, hi,
               "image_max_pixels is %lld, not below 2^26 (an 8192 x 8192 image): the int pixel "
               "index of the resize overflows (llama.cpp #27224)",
               (long long)b);
    if (ha && hb && a > b)
        report(f, R_CLIP_PIXELS, lo, "image_min_pixels %lld is above image_max_pixels %lld",
               (long long)a, (long long)b);
}

/* The encoders the loader builds: clip.has_vision_encoder /
 * clip.has_audio_encoder, or (without the flag) any clip.vision.* /
 * clip.audio.* key, as required_keys reads them. */
static void modalities(const clip_file *f, bool *has_v, bool *has_a)
{
    *has_v = *has_a = false;
    if (!flag_of(f->ctx, "clip.has_vision_encoder", has_v))
        *has_v = any_key_with_prefix(f->ctx, "clip.vision.");
    if (!flag_of(f->ctx, "clip.has_audio_encoder", has_a))
        *has_a = any_key_with_prefix(f->ctx, "clip.audio.");
}

/* The visible part (up to a NUL, GG514) of a string KV, or 0. */
static size_t visible(const gguflint_kv *kv)
{
    size_t vis = 0;
    if (!kv || kv->type != VT_STRING)
        return 0;
    while (vis < kv->str.len && kv->str.ptr[vis] != 0)
        vis++;
    return vis;
}

/* The projector type the loader uses for one encoder (clip.cpp
 * load_hparams): clip.projector_type when it is set, else the encoder's own
 * key; the legacy "qwen2.5o" is qwen2.5vl_merger for vision and qwen2a for
 * audio. *type / *len name it, *kv is where it was read; false if none. */
static bool type_for(const clip_file *f, bool vision, const char **type, size_t *len,
                     const gguflint_kv **kv)
{
    const gguflint_kv *k = kv_by_key(f->ctx, "clip.projector_type");
    size_t n = visible(k);
    if (n == 0) {
        k = kv_by_key(f->ctx, vision ? "clip.vision.projector_type" : "clip.audio.projector_type");
        n = visible(k);
    }
    if (n == 0)
        return false;
    *kv = k;
    *type = (const char *)k->str.ptr;
    *len = n;
    if (n == 8 && memcmp(k->str.ptr, "qwen2.5o", 8) == 0) {
        *type = vision ? "qwen2.5vl_merger" : "qwen2a";
        *len = strlen(*type);
    }
    return true;
}

/* GG591: every projector tensor the loader requires for the projector type
 * of each encoder it builds (type_for), each distinct type once. One lookup
 * per table row. */
static void required_tensors(const clip_file *f)
{
    bool has[2];
    modalities(f, &has[0], &has[1]);
    const char *done = NULL;
    size_t done_len = 0;
    for (int m = 0; m < 2; m++) {
        const char *type;
        size_t len;
        const gguflint_kv *kv;
        if (!has[m] || !type_for(f, m == 0, &type, &len, &kv))
            continue;
        if (done && done_len == len && memcmp(done, type, len) == 0)
            continue; /* one type for both encoders: checked once */
        done = type;
        done_len = len;
        for (size_t i = 0; i < sizeof projector_tensors / sizeof projector_tensors[0]; i++) {
            const char *t = projector_tensors[i].type;
            if (strlen(t) != len || memcmp(t, type, len) != 0)
                continue;
            if (!tensor_by_name(f->ctx, projector_tensors[i].tensor))
                report(f, R_CLIP_TENSOR_MISSING, kv,
                       "projector type '%s' needs the tensor '%s', which is absent (the mtmd "
                       "loader: \"tensor not found\")",
                       t, projector_tensors[i].tensor);
        }
    }
}

/* GG592: the encoder layers. clip.cpp load_tensors creates, for every layer
 * below clip.{vision,audio}.block_count, "<v|a>.blk.N.attn_out.weight",
 * ".ffn_up.weight" and ".ffn_down.weight" as required, whatever the
 * projector type (gemma3nv's vision tower has no such layers: its loader
 * sets n_layer to 0). One finding per encoder, at its block_count, naming
 * the first absent tensor; the walk stops there, so it costs at most three
 * lookups per layer the file has, plus three. */
static void layer_tensors(const clip_file *f)
{
    static const char *const parts[] = {"attn_out", "ffn_up", "ffn_down"};
    bool has[2];
    modalities(f, &has[0], &has[1]);
    for (int m = 0; m < 2; m++) {
        const char *type;
        size_t len;
        const gguflint_kv *tkv;
        if (!has[m])
            continue;
        if (m == 0 && type_for(f, true, &type, &len, &tkv) && len == 8 &&
            memcmp(type, "gemma3nv", 8) == 0)
            continue;
        const gguflint_kv *bk =
            kv_by_key(f->ctx, m == 0 ? "clip.vision.block_count" : "clip.audio.block_count");
        int64_t n;
        if (!value_of(bk, &n) || n <= 0)
            continue;
        for (int64_t il = 0; il < n && f->ctx->status == GGUFLINT_OK; il++) {
            char name[64];
            const char *miss = NULL;
            for (size_t p = 0; p < 3 && !miss; p++) {
                snprintf(name, sizeof name, "%s.blk.%lld.%s.weight", m == 0 ? "v" : "a",
                         (long long)il, parts[p]);
                if (!tensor_by_name(f->ctx, name))
                    miss = name;
            }
            if (!miss)
                continue;
            report(f, R_CLIP_LAYER_TENSOR_MISSING, bk,
                   "%s block_count is %lld but the tensor '%s' is absent: the mtmd loader "
                   "requires attn_out, ffn_up and ffn_down weights in every layer (\"unable "
                   "to find tensor\")",
                   m == 0 ? "vision" : "audio", (long long)n, miss);
            break;
        }
    }
}

void arch_check_clip(const arch_file *af)
{
    clip_file f;
    memset(&f, 0, sizeof f);
    f.ctx = af->ctx;
    bool typed = projector_types(&f);
    if (f.ctx->status != GGUFLINT_OK)
        return;
    if (!typed) {
        f.anchor = af->arch_kv;
        snprintf(f.anchor_path, sizeof f.anchor_path, "%s", af->arch_path);
    }
    if (af->complete) {
        required_keys(&f);
        required_tensors(&f);
        layer_tensors(&f);
    }
    patch_grid(&f);
    merge_sizes(&f);
    audio_chunk(&f);
    pixel_limits(&f);
}

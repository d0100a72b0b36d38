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

/* GG591: every projector tensor the loader requires for the file's projector
 * types (clip.projector_type, clip.vision.projector_type and
 * clip.audio.projector_type, each distinct type once). One lookup per table
 * row. */
static void required_tensors(const clip_file *f)
{
    static const char *const keys[] = {"clip.projector_type", "clip.vision.projector_type",
                                       "clip.audio.projector_type"};
    const gguflint_kv *seen[3] = {NULL, NULL, NULL};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const gguflint_kv *kv = kv_by_key(f->ctx, keys[k]);
        if (!kv || kv->type != VT_STRING)
            continue;
        bool again = false;
        for (size_t j = 0; j < k && !again; j++)
            again = seen[j] && seen[j]->str.len == kv->str.len &&
                    memcmp(seen[j]->str.ptr, kv->str.ptr, kv->str.len) == 0;
        seen[k] = kv;
        if (again)
            continue; /* the same type under two keys: checked once */
        /* the type as the loader sees it: up to its first NUL (GG514) */
        size_t vis = 0;
        while (vis < kv->str.len && kv->str.ptr[vis] != 0)
            vis++;
        for (size_t i = 0; i < sizeof projector_tensors / sizeof projector_tensors[0]; i++) {
            const char *t = projector_tensors[i].type;
            if (strlen(t) != vis || memcmp(t, kv->str.ptr, vis) != 0)
                continue;
            if (!tensor_by_name(f->ctx, projector_tensors[i].tensor))
                report(f, R_CLIP_TENSOR_MISSING, kv,
                       "projector type '%s' needs the tensor '%s', which is absent (the mtmd "
                       "loader: \"tensor not found\")",
                       t, projector_tensors[i].tensor);
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
    }
    patch_grid(&f);
    merge_sizes(&f);
    audio_chunk(&f);
    pixel_limits(&f);
}

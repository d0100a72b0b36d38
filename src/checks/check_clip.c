/* check_clip.c - multimodal projector files (general.architecture = "clip",
 * mmproj-*.gguf), as llama.cpp's mtmd loader reads them: the encoders and
 * their projector types (data/arch/clip_projectors.def), then the keys
 * (check_clip_keys.c) and tensors (check_clip_tensors.c), and the values that
 * drove the 2026 mtmd memory-safety bugs (#27166 patch grid, #27223 audio
 * chunk size, #27224 pixel limits, the Qwen2-VL merge size). Called by
 * check_arch.
 *
 * Work is bounded: a fixed number of key lookups (O(1) each), a scan of the
 * tables (about 60 projector types, 170 keys, 400 tensor rows), one tensor
 * lookup per table row and a few per encoder layer the file has. Nothing is
 * allocated. */
#include "checks/clip_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Names are fixed char arrays, not pointers: the tables need no relocation
 * at start. The assertions keep every name (and its NUL) within them. */
#define V CLIP_V
#define A CLIP_A
#define G CLIP_G
#define F CLIP_F
const clip_projector clip_projectors[] = {
#define CLIP_PROJECTOR(name, mod, flags, file) {name, mod, flags, file},
#include "../../data/arch/clip_projectors.def"
#undef CLIP_PROJECTOR
};
const size_t clip_n_projectors = sizeof clip_projectors / sizeof clip_projectors[0];
#define CLIP_PROJECTOR(name, mod, flags, file)                                                     \
    _Static_assert(sizeof name <= CLIP_TYPE_MAX && sizeof file <= 24, "projector row fits");
#include "../../data/arch/clip_projectors.def"
#undef CLIP_PROJECTOR

#define BOOL CK_BOOL
#define I32 CK_I32
#define U32 CK_U32
#define F32 CK_F32
#define STR CK_STR
#define ARR_F32 CK_ARR_F32
#define ARR_I32 CK_ARR_I32
#define REQ true
#define OPT false
const clip_key clip_keys[] = {
#define CLIP_KEY(key, type, req, mod, ptype) {key, type, req, mod, ptype},
#include "../../data/arch/clip_keys.def"
#undef CLIP_KEY
};
const size_t clip_n_keys = sizeof clip_keys / sizeof clip_keys[0];
#define CLIP_KEY(key, type, req, mod, ptype)                                                       \
    _Static_assert(sizeof key <= CLIP_KEY_MAX && sizeof ptype <= CLIP_TYPE_MAX, "key row fits");
#include "../../data/arch/clip_keys.def"
#undef CLIP_KEY
#undef BOOL
#undef I32
#undef U32
#undef F32
#undef STR
#undef ARR_F32
#undef ARR_I32
#undef REQ
#undef OPT
#undef V
#undef A
#undef G
#undef F

const clip_tensor_row clip_tensor_rows[] = {
#define CLIP_TENSOR(type, tensor) {type, tensor},
#include "../../data/arch/clip_tensors.def"
#undef CLIP_TENSOR
};
const size_t clip_n_tensor_rows = sizeof clip_tensor_rows / sizeof clip_tensor_rows[0];
#define CLIP_TENSOR(type, tensor)                                                                  \
    _Static_assert(sizeof type <= CLIP_TYPE_MAX && sizeof tensor <= CLIP_TENSOR_MAX,               \
                   "projector tensor row fits");
#include "../../data/arch/clip_tensors.def"
#undef CLIP_TENSOR

#define CLIP_USED(type, tensor, when)
const clip_output_row clip_output_rows[] = {
#define CLIP_OUTPUT(type, tensor, dim) {type, tensor, dim},
#include "../../data/arch/clip_outputs.def"
#undef CLIP_OUTPUT
};
#undef CLIP_USED
#define CLIP_OUTPUT(type, tensor, dim)
const clip_used_row clip_used_rows[] = {
#define CLIP_USED(type, tensor, when) {type, tensor, when},
#include "../../data/arch/clip_outputs.def"
#undef CLIP_USED
};
#undef CLIP_OUTPUT
const size_t clip_n_used_rows = sizeof clip_used_rows / sizeof clip_used_rows[0];
const size_t clip_n_output_rows = sizeof clip_output_rows / sizeof clip_output_rows[0];
#define CLIP_OUTPUT(type, tensor, dim)                                                             \
    _Static_assert(sizeof type <= CLIP_TYPE_MAX && sizeof tensor <= CLIP_TENSOR_MAX,               \
                   "output row fits");
#define CLIP_USED(type, tensor, when)                                                              \
    _Static_assert(sizeof type <= CLIP_TYPE_MAX && sizeof tensor <= CLIP_TENSOR_MAX &&             \
                       sizeof when <= CLIP_TENSOR_MAX,                                             \
                   "used row fits");
#include "../../data/arch/clip_outputs.def"
#undef CLIP_OUTPUT
#undef CLIP_USED

const clip_chain_row clip_chain_rows[] = {
#define CLIP_CHAIN(type, tensor, dim, input) {type, tensor, dim, input},
#include "../../data/arch/clip_chains.def"
#undef CLIP_CHAIN
};
const size_t clip_n_chain_rows = sizeof clip_chain_rows / sizeof clip_chain_rows[0];
#define CLIP_CHAIN(type, tensor, dim, input)                                                       \
    _Static_assert(sizeof type <= CLIP_TYPE_MAX && sizeof tensor <= CLIP_TENSOR_MAX,               \
                   "chain row fits");
#include "../../data/arch/clip_chains.def"
#undef CLIP_CHAIN

#define PIXELS_LIMIT (1ull << 26)
#define CHUNK_MAX 8192
#define MINICPMV_GRID_MAX 1024 /* bucket_coords_h/w[1024] in clip_encode */

bool clip_value(const gguflint_kv *kv, int64_t *v)
{
    return kv && kv->type != VT_ARRAY && kv->type != VT_STRING && kv->type != VT_BOOL &&
           kv_int(kv, v);
}

bool clip_u32(const gguflint_ctx *ctx, const char *key, int64_t *v)
{
    const gguflint_kv *kv = kv_by_key(ctx, key);
    if (!kv || kv->type != VT_UINT32)
        return false;
    *v = (int64_t)kv->u;
    return true;
}

const clip_projector *clip_projector_of(const char *name, size_t len, int modality)
{
    if (len == 8 && memcmp(name, "qwen2.5o", 8) == 0) {
        name = modality == CLIP_V ? "qwen2.5vl_merger" : "qwen2a";
        len = strlen(name);
    }
    for (size_t i = 0; i < clip_n_projectors; i++)
        if (strlen(clip_projectors[i].name) == len &&
            memcmp(clip_projectors[i].name, name, len) == 0)
            return &clip_projectors[i];
    return NULL;
}

bool clip_skips_last_layer(const clip_file *f, const clip_enc *e)
{
    return e->proj && strcmp(e->proj->file, "llava.cpp") == 0 &&
           strcmp(e->proj->name, "adapter") != 0 && !kv_by_key(f->ctx, "clip.vision.feature_layer");
}

static void vreport(const clip_file *f, int rule, uint64_t off, uint64_t len, const char *path,
                    const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
static void vreport(const clip_file *f, int rule, uint64_t off, uint64_t len, const char *path,
                    const char *fmt, va_list ap)
{
    gguflint_ctx *ctx = f->ctx;
    if (!arch_keep(ctx, rule))
        return;
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    emit(ctx, rule, off, len, path, "%s", msg);
}

void clip_report(const clip_file *f, int rule, const gguflint_kv *kv, const char *fmt, ...)
{
    char path[192];
    va_list ap;
    va_start(ap, fmt);
    if (kv) {
        kv_path(path, sizeof path, kv);
        vreport(f, rule, kv->value_offset, kv->value_size, path, fmt, ap);
    } else {
        vreport(f, rule, f->anchor->value_offset, f->anchor->value_size, f->anchor_path, fmt, ap);
    }
    va_end(ap);
}

void clip_report_tensor(const clip_file *f, int rule, const gguflint_tensor *t, const char *fmt,
                        ...)
{
    char path[192];
    tensor_path(path, sizeof path, f->ctx, t);
    va_list ap;
    va_start(ap, fmt);
    vreport(f, rule, t->info_offset, 0, path, fmt, ap);
    va_end(ap);
}

/* A string KV's visible part (up to a NUL, GG514), or 0. */
static size_t visible(const gguflint_kv *kv)
{
    size_t vis = 0;
    if (!kv || kv->type != VT_STRING)
        return 0;
    while (vis < kv->str.len && kv->str.ptr[vis] != 0)
        vis++;
    return vis;
}

/* The projector types: known or not (GG556), their flags, NULs (GG514). */
static bool projector_types(clip_file *f)
{
    static const char *const keys[] = {"clip.projector_type", "clip.vision.projector_type",
                                       "clip.audio.projector_type",
                                       "clip.gen.audio.projector_type"};
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
        const clip_projector *p =
            vis ? clip_projector_of((const char *)kv->str.ptr, vis, CLIP_V) : NULL;
        if (p) {
            f->flags |= p->flags;
            snprintf(f->type_name, sizeof f->type_name, "%s", p->name);
        } else if (vis) {
            char shown[120];
            esc_fixed(shown, sizeof shown, kv->str.ptr, vis, 80);
            clip_report(f, R_CLIP_PROJECTOR_UNKNOWN, kv,
                        "projector type '%s' is not one llama.cpp's mtmd loader knows (the tables "
                        "are of llama.cpp of 2026-08-22); its projector-specific keys are not "
                        "checked",
                        shown);
        }
    }
    return any;
}

/* The encoders the loader builds (clip_init): clip.has_vision_encoder,
 * clip.has_audio_encoder, clip.has_gen_audio_encoder when they are true
 * booleans (absent: false; another type aborts, GG520); the audio encoder
 * is skipped when the vision type is gemma3nv. The type of each: the
 * loader's load_hparams reads clip.projector_type, else the encoder's own
 * key (clip.vision/audio/gen.audio.projector_type). */
static void encoders(clip_file *f)
{
    static const char *const has[] = {"clip.has_vision_encoder", "clip.has_audio_encoder",
                                      "clip.has_gen_audio_encoder"};
    static const char *const own[] = {"clip.vision.projector_type", "clip.audio.projector_type",
                                      "clip.gen.audio.projector_type"};
    for (int m = 0; m < CLIP_NMOD; m++) {
        clip_enc *e = &f->enc[m];
        const gguflint_kv *kv = kv_by_key(f->ctx, has[m]);
        e->on = kv && kv->type == VT_BOOL && kv->u != 0;
        const gguflint_kv *k = kv_by_key(f->ctx, "clip.projector_type");
        if (visible(k) == 0)
            k = kv_by_key(f->ctx, own[m]);
        size_t n = visible(k);
        e->type_kv = n ? k : NULL;
        e->proj = n ? clip_projector_of((const char *)k->str.ptr, n, m) : NULL;
    }
    if (f->enc[CLIP_V].on && f->enc[CLIP_V].proj &&
        strcmp(f->enc[CLIP_V].proj->name, "gemma3nv") == 0)
        f->enc[CLIP_A].on = false;
}

static void patch_grid(const clip_file *f)
{
    const gguflint_kv *ik = kv_by_key(f->ctx, "clip.vision.image_size");
    const gguflint_kv *pk = kv_by_key(f->ctx, "clip.vision.patch_size");
    int64_t image = 0, patch = 0;
    bool hi = clip_value(ik, &image), hp = clip_value(pk, &patch);
    if (hi && image <= 0)
        clip_report(f, R_CLIP_PATCH_GRID, ik,
                    "image_size is %lld: the patch grid (image_size / patch_size) is empty",
                    (long long)image);
    if (hp && patch <= 0)
        clip_report(f, R_CLIP_PATCH_GRID, pk,
                    "patch_size is %lld: the patch grid divides by it (division by zero)",
                    (long long)patch);
    if (!hi || !hp || image <= 0 || patch <= 0)
        return;
    if (patch > image) {
        clip_report(f, R_CLIP_PATCH_GRID, pk,
                    "patch_size %lld is larger than image_size %lld: the patch grid is empty",
                    (long long)patch, (long long)image);
        return;
    }
    if ((f->flags & MINICPMV) && image / patch > MINICPMV_GRID_MAX)
        clip_report(f, R_CLIP_PATCH_GRID, pk,
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
    if (clip_value(mk, &v)) {
        if (v <= 0)
            clip_report(f, R_CLIP_MERGE_SIZE, mk,
                        "spatial_merge_size is %lld: the patch grid is divided by it",
                        (long long)v);
        else if ((f->flags & MERGE2) && v != 2)
            clip_report(f, R_CLIP_MERGE_SIZE, mk,
                        "spatial_merge_size is %lld; the %s graph merges 2 x 2 patches and sizes "
                        "its buffers for that (a heap write in mtmd with 1)",
                        (long long)v, f->type_name);
    }
    if (clip_value(sk, &v) && v <= 0)
        clip_report(f, R_CLIP_MERGE_SIZE, sk,
                    "projector.scale_factor is %lld: the patch grid is divided by it",
                    (long long)v);
}

static void audio_chunk(const clip_file *f)
{
    const gguflint_kv *ck = kv_by_key(f->ctx, "clip.audio.chunk_size");
    int64_t v;
    if (clip_value(ck, &v) && (v <= 0 || v > CHUNK_MAX))
        clip_report(f, R_CLIP_CHUNK_SIZE, ck,
                    "chunk_size is %lld, outside 1..%d: mtmd allocates chunk_size^2 relative "
                    "distances with an int multiply (llama.cpp #27223, heap write)",
                    (long long)v, CHUNK_MAX);
}

static void pixel_limits(const clip_file *f)
{
    const gguflint_kv *lo = kv_by_key(f->ctx, "clip.vision.image_min_pixels");
    const gguflint_kv *hi = kv_by_key(f->ctx, "clip.vision.image_max_pixels");
    int64_t a = 0, b = 0;
    bool ha = clip_value(lo, &a), hb = clip_value(hi, &b);
    if (ha && (a < 0 || (uint64_t)a >= PIXELS_LIMIT))
        clip_report(f, R_CLIP_PIXELS, lo,
                    "image_min_pixels is %lld, not below 2^26: the preprocessor upscales every "
                    "image to at least this many pixels and its int pixel index overflows "
                    "(llama.cpp #27224, heap write)",
                    (long long)a);
    if (hb && (b < 0 || (uint64_t)b >= PIXELS_LIMIT))
        clip_report(f, R_CLIP_PIXELS, hi,
                    "image_max_pixels is %lld, not below 2^26 (an 8192 x 8192 image): the int "
                    "pixel index of the resize overflows (llama.cpp #27224)",
                    (long long)b);
    if (ha && hb && a > b)
        clip_report(f, R_CLIP_PIXELS, lo, "image_min_pixels %lld is above image_max_pixels %lld",
                    (long long)a, (long long)b);
}

void arch_check_clip(const arch_file *af)
{
    clip_file f;
    memset(&f, 0, sizeof f);
    f.ctx = af->ctx;
    f.w = af->w;
    bool typed = projector_types(&f);
    if (f.ctx->status != GGUFLINT_OK)
        return;
    if (!typed) {
        f.anchor = af->arch_kv;
        snprintf(f.anchor_path, sizeof f.anchor_path, "%s", af->arch_path);
    }
    encoders(&f);
    if (af->complete) {
        clip_check_keys(&f);
        clip_check_tensors(&f);
    }
    clip_check_values(&f);
    patch_grid(&f);
    merge_sizes(&f);
    audio_chunk(&f);
    pixel_limits(&f);
}

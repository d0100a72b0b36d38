/* test_clip.c - the projector (mmproj, general.architecture = "clip") rules
 * GG556-GG561, GG591 and GG514 on clip.projector_type: a clean projector as
 * convert_hf_to_gguf.py writes it, then one fault per test, each found
 * exactly once at its KV's value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

/* The projector tensors the loader requires per type: the table the check
 * reads (data/arch/clip_tensors.def); the tiny projectors carry them. */
static const struct {
    const char *type;
    const char *tensor;
} ptensors[] = {
#define CLIP_TENSOR(type, tensor) {type, tensor},
#include "../data/arch/clip_tensors.def"
#undef CLIP_TENSOR
};

/* What one projector file holds; zero fields are written as the clean value,
 * `omit` leaves a key out (or a projector tensor). */
typedef struct pspec {
    const char *ptype;
    size_t ptype_len;       /* 0: strlen */
    int64_t image, patch;   /* -1: absent */
    int64_t merge;          /* 0: absent */
    int64_t chunk;          /* 0: absent (adds an audio encoder when set) */
    int64_t min_px, max_px; /* 0: absent */
    int64_t scale;          /* clip.vision.projector.scale_factor, 0: absent */
    const char *atype;      /* set: no clip.projector_type; ptype is written as
                               clip.vision.projector_type and atype as
                               clip.audio.projector_type (chunk must be set) */
    const char *omit;
    const char *omit_prefix; /* and every projector tensor whose name starts so */
    const char *mark;        /* the key whose value offset is returned */
} pspec;

static size_t mark_at;

static void u32_or_i64(gb *b, const pspec *s, const char *key, int64_t v)
{
    if (s->omit && strcmp(s->omit, key) == 0)
        return;
    if (v < 0 || v > UINT32_MAX)
        gb_kv_i64(b, key, v);
    else
        gb_kv_u32(b, key, (uint32_t)v);
    if (s->mark && strcmp(s->mark, key) == 0)
        mark_at = gb_last(b)->value;
}

static uint8_t *projector(const pspec *s, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    mark_at = 0;
    gb_kv_str(b, "general.architecture", "clip");
    const char *pt = s->ptype ? s->ptype : "mlp";
    if (s->atype) {
        gb_kv_str(b, "clip.vision.projector_type", pt);
        if (s->mark && strcmp(s->mark, "clip.vision.projector_type") == 0)
            mark_at = gb_last(b)->value;
        gb_kv_str(b, "clip.audio.projector_type", s->atype);
        if (s->mark && strcmp(s->mark, "clip.audio.projector_type") == 0)
            mark_at = gb_last(b)->value;
    } else {
        gb_kv_strn(b, "clip.projector_type", pt, s->ptype_len ? s->ptype_len : strlen(pt));
    }
    if (s->mark && strcmp(s->mark, "clip.projector_type") == 0)
        mark_at = gb_last(b)->value;
    gb_kv_bool(b, "clip.has_vision_encoder", 1);
    if (s->image >= 0)
        u32_or_i64(b, s, "clip.vision.image_size", s->image ? s->image : 224);
    if (s->patch >= 0)
        u32_or_i64(b, s, "clip.vision.patch_size", s->patch ? s->patch : 14);
    u32_or_i64(b, s, "clip.vision.embedding_length", 32);
    u32_or_i64(b, s, "clip.vision.feed_forward_length", 64);
    u32_or_i64(b, s, "clip.vision.block_count", 1);
    u32_or_i64(b, s, "clip.vision.attention.head_count", 4);
    if (!(s->omit && strcmp(s->omit, "clip.vision.attention.layer_norm_epsilon") == 0))
        gb_kv_f32(b, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
    u32_or_i64(b, s, "clip.vision.projection_dim", 64);
    static const float mean[3] = {0.5f, 0.5f, 0.5f};
    gb_kv_arr(b, "clip.vision.image_mean", GB_VT_F32, 3, mean, sizeof mean);
    gb_kv_arr(b, "clip.vision.image_std", GB_VT_F32, 3, mean, sizeof mean);
    if (s->merge)
        u32_or_i64(b, s, "clip.vision.spatial_merge_size", s->merge);
    if (s->min_px)
        u32_or_i64(b, s, "clip.vision.image_min_pixels", s->min_px);
    if (s->max_px)
        u32_or_i64(b, s, "clip.vision.image_max_pixels", s->max_px);
    if (s->scale)
        u32_or_i64(b, s, "clip.vision.projector.scale_factor", s->scale);
    if (s->chunk) {
        gb_kv_bool(b, "clip.has_audio_encoder", 1);
        u32_or_i64(b, s, "clip.audio.embedding_length", 32);
        u32_or_i64(b, s, "clip.audio.feed_forward_length", 64);
        u32_or_i64(b, s, "clip.audio.block_count", 1);
        u32_or_i64(b, s, "clip.audio.attention.head_count", 4);
        gb_kv_f32(b, "clip.audio.attention.layer_norm_epsilon", 1e-5f);
        u32_or_i64(b, s, "clip.audio.num_mel_bins", 128);
        u32_or_i64(b, s, "clip.audio.projection_dim", 64);
        u32_or_i64(b, s, "clip.audio.chunk_size", s->chunk);
    }
    uint64_t ne[4] = {14, 14, 3, 32};
    gb_tensor(b, "v.patch_embd.weight", 4, ne, GB_F32, 0);
    uint64_t off = 14 * 14 * 3 * 32 * 4;
    size_t extra = 0;
    for (size_t i = 0; i < sizeof ptensors / sizeof ptensors[0]; i++) {
        if ((strcmp(ptensors[i].type, pt) != 0 &&
             !(s->atype && strcmp(ptensors[i].type, s->atype) == 0)) ||
            (s->omit && strcmp(s->omit, ptensors[i].tensor) == 0) ||
            (s->omit_prefix &&
             strncmp(ptensors[i].tensor, s->omit_prefix, strlen(s->omit_prefix)) == 0))
            continue;
        uint64_t ne1[4] = {8, 1, 1, 1};
        gb_tensor(b, ptensors[i].tensor, 1, ne1, GB_F32, off);
        off += 32;
        extra++;
    }
    /* the encoder layers the loader requires (GG592): attn_out, ffn_up and
     * ffn_down of each of the block_count = 1 layers, per encoder */
    static const char *const layer[] = {"v.blk.0.attn_out.weight", "v.blk.0.ffn_up.weight",
                                        "v.blk.0.ffn_down.weight", "a.blk.0.attn_out.weight",
                                        "a.blk.0.ffn_up.weight",   "a.blk.0.ffn_down.weight"};
    for (size_t i = 0; i < 6; i++) {
        if ((i >= 3 && !s->chunk) || (s->omit && strcmp(s->omit, layer[i]) == 0))
            continue;
        uint64_t ne1[4] = {8, 1, 1, 1};
        gb_tensor(b, layer[i], 1, ne1, GB_F32, off);
        off += 32;
        extra++;
    }
    gb_pad_to(b, 32);
    gb_zeros(b, 14 * 14 * 3 * 32 * 4);
    for (size_t i = 0; i < extra; i++)
        gb_zeros(b, 32);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

/* The tiny projectors of these tests carry 1-D stand-ins for every tensor
 * and only the keys every encoder needs: they are clean for the rules of
 * the projector type, tensor presence and value tests below (GG514,
 * GG556-GG561, GG591, GG592), not for the key-table, graph and shape rules
 * (GG520-GG524), which the realistic projectors further down test. */
static bool tiny_rule(const char *id)
{
    static const char *const ids[] = {"GG514", "GG556", "GG557", "GG558", "GG559",
                                      "GG560", "GG561", "GG591", "GG592"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (strcmp(ids[i], id) == 0)
            return true;
    return false;
}

static void expect_clean(const pspec *s)
{
    size_t len;
    uint8_t *buf = projector(s, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const char *id = gguflint_rule((size_t)f->rule)->id;
        if (tiny_rule(id) && strcmp(id, "GG557") != 0) {
            ex_print_findings(NULL, ctx);
            fail_msg("clean projector reported %s", id);
        }
    }
    gguflint_free(ctx);
    free(buf);
}

static void expect_one(const pspec *s, const char *id, const char *where)
{
    size_t len;
    uint8_t *buf = projector(s, &len);
    assert_true(mark_at != 0);
    ex_expect_at(buf, len, id, mark_at, where);
}

/* The clean spec of a projector type of the tensor table, leaving out
 * tensor `omit` (or none); the values some types need besides their
 * tensors come from the projector rules' own tests above. */
static const pspec *typed_spec(const char *type, const char *omit)
{
    static pspec s;
    memset(&s, 0, sizeof s);
    s.ptype = type;
    s.omit = omit;
    s.mark = "clip.projector_type";
    if (strstr(type, "qwen2"))
        s.merge = 2;
    if (strcmp(type, "resampler") == 0) {
        s.image = 448;
        s.patch = 14;
    }
    if (strcmp(type, "dots_ocr") == 0)
        s.scale = 2;
    if (strcmp(type, "phi4") == 0) {
        s.min_px = 256 * 256;
        s.max_px = 1024 * 1024;
    }
    return &s;
}

static void test_clean_projectors(void **state)
{
    expect_clean(&(pspec){0});
    expect_clean(&(pspec){.ptype = "qwen2vl_merger", .merge = 2});
    expect_clean(&(pspec){.ptype = "resampler", .image = 448, .patch = 14});
    expect_clean(&(pspec){.ptype = "phi4", .min_px = 256 * 256, .max_px = 1024 * 1024});
    expect_clean(&(pspec){.ptype = "granite_speech", .chunk = 200});
    /* a tiny projector of every type with required projector tensors */
    size_t types = 0;
    for (size_t i = 0; i < sizeof ptensors / sizeof ptensors[0]; i++) {
        if (i > 0 && strcmp(ptensors[i - 1].type, ptensors[i].type) == 0)
            continue;
        expect_clean(typed_spec(ptensors[i].type, NULL));
        types++;
    }
    assert_true(types >= 40);
}

/* Each type's tiny projector without one of its required tensors (the
 * first, the last and one in the middle of its rows): exactly one GG591, at
 * the projector type. */
static void test_GG591_every_type(void **state)
{
    size_t n = sizeof ptensors / sizeof ptensors[0];
    for (size_t first = 0, last; first < n; first = last + 1) {
        last = first;
        while (last + 1 < n && strcmp(ptensors[last + 1].type, ptensors[first].type) == 0)
            last++;
        size_t pick[3] = {first, first + (last - first) / 2, last};
        for (size_t k = 0; k < 3; k++) {
            char where[96];
            snprintf(where, sizeof where, "%s without %s", ptensors[first].type,
                     ptensors[pick[k]].tensor);
            expect_one(typed_spec(ptensors[first].type, ptensors[pick[k]].tensor), "GG591", where);
        }
    }
}

/* deepseek-ocr's 12 SAM layers (a constant loop bound in clip-model.h):
 * without the SAM encoder 168 tensors are absent, said as 8 names and one
 * count, all at the projector type */
static void test_GG591_many_missing(void **state)
{
    pspec s = {.ptype = "deepseekocr2", .omit_prefix = "v.sam.blk.", .mark = "clip.projector_type"};
    size_t len;
    uint8_t *buf = projector(&s, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG591", mark_at, NULL), 9);
    assert_int_equal(ex_count(ctx, "GG591"), 9);
    gguflint_free(ctx);
    free(buf);
    expect_one(&(pspec){.ptype = "deepseekocr2",
                        .omit = "v.sam.blk.11.mlp.lin2.bias",
                        .mark = "clip.projector_type"},
               "GG591", "deepseekocr2 without the last SAM layer's lin2 bias");
}

static void test_GG591_tensor_missing(void **state)
{
    expect_one(&(pspec){.ptype = "qwen2vl_merger",
                        .merge = 2,
                        .omit = "mm.2.bias",
                        .mark = "clip.projector_type"},
               "GG591", "merger without mm.2.bias");
    expect_one(&(pspec){.ptype = "gemma3",
                        .omit = "mm.soft_emb_norm.weight",
                        .mark = "clip.projector_type"},
               "GG591", "gemma3 without the soft embedding norm");
    expect_one(&(pspec){.ptype = "resampler",
                        .image = 448,
                        .omit = "resampler.query",
                        .mark = "clip.projector_type"},
               "GG591", "MiniCPM-V resampler without its query");
}

static void test_GG592_layer_tensor_missing(void **state)
{
    expect_one(&(pspec){.omit = "v.blk.0.ffn_down.weight", .mark = "clip.vision.block_count"},
               "GG592", "vision layer without ffn_down");
    expect_one(&(pspec){.omit = "v.blk.0.attn_out.weight", .mark = "clip.vision.block_count"},
               "GG592", "vision layer without attn_out");
    expect_one(&(pspec){.ptype = "granite_speech",
                        .chunk = 200,
                        .omit = "a.blk.0.ffn_up.weight",
                        .mark = "clip.audio.block_count"},
               "GG592", "audio layer without ffn_up");
    /* GG591 with a type per encoder (no clip.projector_type): each
     * encoder's own type, reported at its key */
    expect_clean(&(pspec){.ptype = "gemma3", .atype = "ultravox", .chunk = 200});
    expect_one(&(pspec){.ptype = "gemma3",
                        .atype = "ultravox",
                        .chunk = 200,
                        .omit = "mm.a.norm_mid.weight",
                        .mark = "clip.audio.projector_type"},
               "GG591", "ultravox audio encoder without mm.a.norm_mid");
    expect_one(&(pspec){.ptype = "gemma3",
                        .atype = "ultravox",
                        .chunk = 200,
                        .omit = "mm.soft_emb_norm.weight",
                        .mark = "clip.vision.projector_type"},
               "GG591", "gemma3 vision encoder without its soft embedding norm");
    /* gemma3nv: the MobileNet tower has no such layers (its loader sets
     * n_layer to 0): a projector without them is clean */
    expect_clean(&(pspec){.ptype = "gemma3nv", .omit = "v.blk.0.attn_out.weight"});
}

static void test_GG556_projector_unknown(void **state)
{
    expect_one(&(pspec){.ptype = "qwen2vl-merger", .mark = "clip.projector_type"}, "GG556",
               "unknown projector type");
}

static void test_GG514_projector_type_nul(void **state)
{
    /* "mlp\0x": the loader sees mlp; the NUL is reported at its byte */
    size_t len;
    uint8_t *buf =
        projector(&(pspec){.ptype = "mlp\0x", .ptype_len = 5, .mark = "clip.projector_type"}, &len);
    ex_expect_at(buf, len, "GG514", mark_at + 8 + 3, "projector type NUL");
    buf = projector(&(pspec){.ptype = "mlp\0x", .ptype_len = 5}, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG556", 0, NULL), 0); /* seen as mlp: known */
    gguflint_free(ctx);
    free(buf);
}

static void test_GG557_hparam_missing(void **state)
{
    expect_one(&(pspec){.omit = "clip.vision.block_count", .mark = "clip.projector_type"}, "GG557",
               "vision block_count absent");
    /* phi4 reads the pixel limits as required */
    expect_one(&(pspec){.ptype = "phi4", .min_px = 65536, .mark = "clip.projector_type"}, "GG557",
               "phi4 without image_max_pixels");
    expect_one(
        &(pspec){.chunk = 200, .omit = "clip.audio.num_mel_bins", .mark = "clip.projector_type"},
        "GG557", "audio num_mel_bins absent");
}

static void test_GG558_patch_grid(void **state)
{
    expect_one(&(pspec){.patch = -1, .image = 224, .mark = "clip.projector_type"}, "GG557",
               "patch_size absent is GG557");
    size_t len;
    pspec s = {.patch = 1, .image = 224, .mark = "clip.vision.patch_size"};
    uint8_t *buf = projector(&s, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG558", 0, NULL), 0); /* 224 patches: fine for mlp */
    gguflint_free(ctx);
    free(buf);
    expect_one(&(pspec){.image = 14, .patch = 28, .mark = "clip.vision.patch_size"}, "GG558",
               "patch larger than image");
    /* MiniCPM-V: 2048 patches per side overflow bucket_coords[1024] (#27166) */
    expect_one(
        &(pspec){.ptype = "resampler", .image = 2048, .patch = 1, .mark = "clip.vision.patch_size"},
        "GG558", "minicpmv grid");
    expect_one(
        &(pspec){
            .ptype = "minicpmv4_6", .image = 14336, .patch = 1, .mark = "clip.vision.patch_size"},
        "GG558", "minicpmv4_6 grid");
}

static void test_GG558_zero_patch(void **state)
{
    size_t len;
    /* patch_size 0 (pspec uses 0 for "the clean value") */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "clip");
    gb_kv_str(b, "clip.projector_type", "mlp");
    gb_kv_bool(b, "clip.has_vision_encoder", 1);
    gb_kv_u32(b, "clip.vision.image_size", 224);
    gb_kv_u32(b, "clip.vision.patch_size", 0);
    size_t at = gb_last(b)->value;
    gb_kv_u32(b, "clip.vision.embedding_length", 32);
    gb_kv_u32(b, "clip.vision.feed_forward_length", 64);
    gb_kv_u32(b, "clip.vision.block_count", 1);
    gb_kv_u32(b, "clip.vision.attention.head_count", 4);
    gb_kv_f32(b, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    ex_expect_at(buf, len, "GG558", at, "patch_size 0");
}

static void test_GG559_merge_size(void **state)
{
    expect_one(
        &(pspec){.ptype = "qwen2vl_merger", .merge = 1, .mark = "clip.vision.spatial_merge_size"},
        "GG559", "qwen2vl merge 1");
    expect_one(
        &(pspec){.ptype = "qwen2.5vl_merger", .merge = 4, .mark = "clip.vision.spatial_merge_size"},
        "GG559", "qwen2.5vl merge 4");
    /* other projectors read their own merge size: only 0 is wrong */
    size_t len;
    uint8_t *buf = projector(&(pspec){.ptype = "pixtral", .merge = 1}, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_int_equal(ex_count_id(ctx, "GG559", 0, NULL), 0);
    gguflint_free(ctx);
    free(buf);
    expect_one(&(pspec){.ptype = "pixtral", .merge = -1, .mark = "clip.vision.spatial_merge_size"},
               "GG559", "merge negative");
}

static void test_GG560_chunk_size(void **state)
{
    expect_one(&(pspec){.ptype = "granite_speech", .chunk = 65537, .mark = "clip.audio.chunk_size"},
               "GG560", "chunk 65537");
    expect_one(&(pspec){.ptype = "granite_speech", .chunk = -5, .mark = "clip.audio.chunk_size"},
               "GG560", "chunk negative");
    expect_clean(&(pspec){.ptype = "granite_speech", .chunk = 8192});
}

static void test_GG561_pixels(void **state)
{
    expect_one(&(pspec){.ptype = "phi4",
                        .min_px = 1 << 20,
                        .max_px = 1 << 16,
                        .mark = "clip.vision.image_min_pixels"},
               "GG561", "min above max");
    expect_one(&(pspec){.ptype = "phi4",
                        .min_px = 1 << 16,
                        .max_px = 1 << 26,
                        .mark = "clip.vision.image_max_pixels"},
               "GG561", "max 2^26");
    expect_clean(&(pspec){.ptype = "phi4", .min_px = 1 << 16, .max_px = (1 << 26) - 1});
}

static void test_profiles(void **state)
{
    /* the crash values are errors under ggml and security */
    static const char *const ids[] = {"GG558", "GG559", "GG560", "GG561"};
    for (size_t i = 0; i < 4; i++) {
        int r = gguflint_rule_find(ids[i]);
        assert_true(r >= 0);
        assert_int_equal(gguflint_rule_profile_severity((size_t)r, 0), GGUFLINT_ERROR);
        for (size_t p = 0; gguflint_profile_name(p); p++)
            if (strcmp(gguflint_profile_name(p), "security") == 0)
                assert_int_equal(gguflint_rule_profile_severity((size_t)r, p), GGUFLINT_ERROR);
    }
}

/* ---- realistic projectors: every key and tensor the loader and the graph
 * read, with their real shapes (tiny dimensions), for GG520-GG524 ---- */

enum { MK_U32, MK_I32, MK_F32, MK_BOOL, MK_STR, MK_ARRF32, MK_ARRI32 };

typedef struct mkey {
    char key[64];
    int kind;
    uint64_t u;
    char s[32];
} mkey;

typedef struct mten {
    char name[64];
    uint32_t nd;
    uint64_t ne[4];
} mten;

typedef struct mm {
    mkey k[48];
    size_t nk;
    mten t[48];
    size_t nt;
    int64_t embd, ff, heads, layers, image, patch, proj;
} mm;

static mkey *mm_key(mm *m, const char *key)
{
    for (size_t i = 0; i < m->nk; i++)
        if (strcmp(m->k[i].key, key) == 0)
            return &m->k[i];
    assert_true(m->nk < sizeof m->k / sizeof m->k[0]);
    mkey *k = &m->k[m->nk++];
    memset(k, 0, sizeof *k);
    snprintf(k->key, sizeof k->key, "%s", key);
    return k;
}

static void mm_u32(mm *m, const char *key, uint64_t v)
{
    mkey *k = mm_key(m, key);
    k->kind = MK_U32;
    k->u = v;
}

static void mm_kind(mm *m, const char *key, int kind, uint64_t v)
{
    mkey *k = mm_key(m, key);
    k->kind = kind;
    k->u = v;
}

static void mm_str(mm *m, const char *key, const char *v)
{
    mkey *k = mm_key(m, key);
    k->kind = MK_STR;
    snprintf(k->s, sizeof k->s, "%s", v);
}

static void mm_del_key(mm *m, const char *key)
{
    for (size_t i = 0; i < m->nk; i++)
        if (strcmp(m->k[i].key, key) == 0) {
            m->k[i] = m->k[--m->nk];
            return;
        }
    fail_msg("no key %s to delete", key);
}

static mten *mm_find(mm *m, const char *name)
{
    for (size_t i = 0; i < m->nt; i++)
        if (strcmp(m->t[i].name, name) == 0)
            return &m->t[i];
    return NULL;
}

static void mm_t(mm *m, const char *name, uint32_t nd, uint64_t a, uint64_t b, uint64_t c,
                 uint64_t d)
{
    mten *t = mm_find(m, name);
    if (!t) {
        assert_true(m->nt < sizeof m->t / sizeof m->t[0]);
        t = &m->t[m->nt++];
    }
    snprintf(t->name, sizeof t->name, "%s", name);
    t->nd = nd;
    t->ne[0] = a;
    t->ne[1] = b;
    t->ne[2] = c;
    t->ne[3] = d;
}

static void mm_del_t(mm *m, const char *name)
{
    mten *t = mm_find(m, name);
    assert_non_null(t);
    *t = m->t[--m->nt];
}

static void mm_shape(mm *m, const char *name, unsigned j, uint64_t v)
{
    mten *t = mm_find(m, name);
    assert_non_null(t);
    t->ne[j] = v;
}

/* Written in order; *mark gets the value offset of key `mark_key`, or the
 * field of dimension `mark_dim` of tensor `mark_t`. */
static uint8_t *mm_write(const mm *m, const char *mark_key, const char *mark_t, unsigned mark_dim,
                         size_t *mark, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    *mark = 0;
    gb_kv_str(b, "general.architecture", "clip");
    for (size_t i = 0; i < m->nk; i++) {
        const mkey *k = &m->k[i];
        float fv[4] = {0.5f, 0.5f, 0.5f, 0.5f};
        int32_t iv[4] = {1, 1, 1, 1};
        switch (k->kind) {
        case MK_U32: gb_kv_u32(b, k->key, (uint32_t)k->u); break;
        case MK_I32: gb_kv_i32(b, k->key, (int32_t)k->u); break;
        case MK_F32: gb_kv_f32(b, k->key, 1e-6f); break;
        case MK_BOOL: gb_kv_bool(b, k->key, (uint8_t)k->u); break;
        case MK_STR: gb_kv_str(b, k->key, k->s); break;
        case MK_ARRF32: gb_kv_arr(b, k->key, GB_VT_F32, k->u, fv, (size_t)k->u * 4); break;
        default: gb_kv_arr(b, k->key, GB_VT_I32, k->u, iv, (size_t)k->u * 4); break;
        }
        if (mark_key && strcmp(mark_key, k->key) == 0)
            *mark = gb_last(b)->value;
    }
    uint64_t off = 0, total = 0;
    for (size_t i = 0; i < m->nt; i++) {
        const mten *t = &m->t[i];
        gb_tensor(b, t->name, t->nd, t->ne, GB_F32, off);
        if (mark_t && strcmp(mark_t, t->name) == 0)
            *mark = mark_dim < t->nd ? gb_last(b)->dim[mark_dim] : gb_last(b)->n_dims;
        uint64_t n = gb_align_up(gb_nbytes(GB_F32, t->nd, t->ne), 32);
        off += n;
    }
    total = off;
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)total);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

/* The encoder every vision projector shares: a 1-layer ViT with separate
 * q/k/v, layer norms, a GELU FFN, a post norm. */
static void mm_vision(mm *m, const char *type, int64_t image, int64_t patch, int64_t npos)
{
    memset(m, 0, sizeof *m);
    m->embd = 32;
    m->ff = 64;
    m->heads = 4;
    m->layers = 1;
    m->image = image;
    m->patch = patch;
    m->proj = 48;
    int64_t e = m->embd;
    mm_str(m, "clip.projector_type", type);
    mm_kind(m, "clip.has_vision_encoder", MK_BOOL, 1);
    mm_u32(m, "clip.vision.image_size", (uint64_t)image);
    mm_u32(m, "clip.vision.patch_size", (uint64_t)patch);
    mm_u32(m, "clip.vision.embedding_length", (uint64_t)e);
    mm_u32(m, "clip.vision.feed_forward_length", (uint64_t)m->ff);
    mm_u32(m, "clip.vision.block_count", 1);
    mm_u32(m, "clip.vision.attention.head_count", (uint64_t)m->heads);
    mm_kind(m, "clip.vision.attention.layer_norm_epsilon", MK_F32, 0);
    mm_u32(m, "clip.vision.projection_dim", (uint64_t)m->proj);
    mm_kind(m, "clip.vision.image_mean", MK_ARRF32, 3);
    mm_kind(m, "clip.vision.image_std", MK_ARRF32, 3);
    mm_kind(m, "clip.use_gelu", MK_BOOL, 1);
    mm_t(m, "v.patch_embd.weight", 4, (uint64_t)patch, (uint64_t)patch, 3, (uint64_t)e);
    mm_t(m, "v.patch_embd.bias", 1, (uint64_t)e, 1, 1, 1);
    if (npos)
        mm_t(m, "v.position_embd.weight", 2, (uint64_t)e, (uint64_t)npos, 1, 1);
    static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
    char name[64];
    for (size_t k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "v.blk.0.%s.weight", sq[k]);
        mm_t(m, name, 2, (uint64_t)e, (uint64_t)e, 1, 1);
        snprintf(name, sizeof name, "v.blk.0.%s.bias", sq[k]);
        mm_t(m, name, 1, (uint64_t)e, 1, 1, 1);
    }
    mm_t(m, "v.blk.0.ln1.weight", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.blk.0.ln1.bias", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.blk.0.ln2.weight", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.blk.0.ln2.bias", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.blk.0.ffn_up.weight", 2, (uint64_t)e, (uint64_t)m->ff, 1, 1);
    mm_t(m, "v.blk.0.ffn_up.bias", 1, (uint64_t)m->ff, 1, 1, 1);
    mm_t(m, "v.blk.0.ffn_down.weight", 2, (uint64_t)m->ff, (uint64_t)e, 1, 1);
    mm_t(m, "v.blk.0.ffn_down.bias", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.post_ln.weight", 1, (uint64_t)e, 1, 1, 1);
    mm_t(m, "v.post_ln.bias", 1, (uint64_t)e, 1, 1, 1);
}

/* llava-1.5: mm.0 -> GELU -> mm.2 (models/llava.cpp). 28 / 14: 4 patches. */
static void mm_mlp(mm *m)
{
    mm_vision(m, "mlp", 28, 14, 4);
    uint64_t e = 32, p = 48;
    mm_t(m, "mm.0.weight", 2, e, p, 1, 1);
    mm_t(m, "mm.0.bias", 1, p, 1, 1, 1);
    mm_t(m, "mm.2.weight", 2, p, p, 1, 1);
    mm_t(m, "mm.2.bias", 1, p, 1, 1, 1);
}

/* Gemma 3: 56 / 14 = 4 x 4 patches pooled by scale_factor 2 (models/
 * siglip.cpp); the input projection is [text n_embd, vision n_embd]. */
static void mm_gemma3(mm *m)
{
    mm_vision(m, "gemma3", 56, 14, 16);
    mm_u32(m, "clip.vision.projector.scale_factor", 2);
    mm_t(m, "mm.soft_emb_norm.weight", 1, 32, 1, 1, 1);
    mm_t(m, "mm.input_projection.weight", 2, 48, 32, 1, 1);
}

/* Qwen2.5-VL: two temporal patch convolutions, no position embedding
 * (RoPE), a gated FFN, RMS norms, the 2 x 2 merger mm.0 [4E, 4E] -> mm.2. */
static void mm_qwen25vl(mm *m)
{
    mm_vision(m, "qwen2.5vl_merger", 56, 14, 0);
    mm_del_t(m, "v.patch_embd.bias");
    mm_t(m, "v.patch_embd.weight.1", 4, 14, 14, 3, 32);
    mm_u32(m, "clip.vision.spatial_merge_size", 2);
    mm_u32(m, "clip.vision.n_wa_pattern", 1);
    mm_kind(m, "clip.use_gelu", MK_BOOL, 0);
    mm_kind(m, "clip.use_silu", MK_BOOL, 1);
    mm_t(m, "v.blk.0.ffn_gate.weight", 2, 32, 64, 1, 1);
    mm_t(m, "v.blk.0.ffn_gate.bias", 1, 64, 1, 1, 1);
    mm_t(m, "mm.0.weight", 2, 128, 128, 1, 1);
    mm_t(m, "mm.0.bias", 1, 128, 1, 1, 1);
    mm_t(m, "mm.2.weight", 2, 128, 48, 1, 1);
    mm_t(m, "mm.2.bias", 1, 48, 1, 1, 1);
}

/* LightOnOCR (models/pixtral.cpp): build_vit with 2-D RoPE (no learned
 * position table), an optional im2col patch merger by spatial_merge_size,
 * then mm.1 -> mm.2. */
static void mm_lightonocr(mm *m, bool merger)
{
    mm_vision(m, "lightonocr", 56, 14, 0);
    if (merger) {
        mm_u32(m, "clip.vision.spatial_merge_size", 2);
        mm_t(m, "mm.input_norm.weight", 1, 32, 1, 1, 1);
        mm_t(m, "mm.patch_merger.weight", 2, 128, 32, 1, 1);
    }
    mm_t(m, "mm.1.weight", 2, 32, 48, 1, 1);
    mm_t(m, "mm.2.weight", 2, 48, 48, 1, 1);
}

/* Idefics3 / SmolVLM: pixel shuffle by 2 (4E wide), then mm.model.fc. */
static void mm_idefics3(mm *m)
{
    mm_vision(m, "idefics3", 56, 14, 16);
    mm_u32(m, "clip.vision.projector.scale_factor", 2);
    mm_t(m, "mm.model.fc.weight", 2, 128, 48, 1, 1);
}

/* LFM2-VL: pixel unshuffle by 2, input norm, mm.1 -> GELU -> mm.2. */
static void mm_lfm2(mm *m)
{
    mm_vision(m, "lfm2", 56, 14, 16);
    mm_u32(m, "clip.vision.projector.scale_factor", 2);
    mm_t(m, "mm.input_norm.weight", 1, 128, 1, 1, 1);
    mm_t(m, "mm.input_norm.bias", 1, 128, 1, 1, 1);
    mm_t(m, "mm.1.weight", 2, 128, 48, 1, 1);
    mm_t(m, "mm.1.bias", 1, 48, 1, 1, 1);
    mm_t(m, "mm.2.weight", 2, 48, 48, 1, 1);
    mm_t(m, "mm.2.bias", 1, 48, 1, 1, 1);
}

/* Ultravox: a whisper encoder (two conv1d over 128 mel bins, 1500
 * positions, q and v biases, no k bias), frames stacked by 8, a SwiGLU
 * projector mm.a.mlp.1 [8E, 2H] -> mm.a.mlp.2 [H, text n_embd]. */
static void mm_ultravox(mm *m)
{
    memset(m, 0, sizeof *m);
    uint64_t e = 32, f = 64, mel = 128;
    mm_str(m, "clip.projector_type", "ultravox");
    mm_kind(m, "clip.has_audio_encoder", MK_BOOL, 1);
    mm_u32(m, "clip.audio.embedding_length", e);
    mm_u32(m, "clip.audio.feed_forward_length", f);
    mm_u32(m, "clip.audio.block_count", 1);
    mm_u32(m, "clip.audio.attention.head_count", 4);
    mm_kind(m, "clip.audio.attention.layer_norm_epsilon", MK_F32, 0);
    mm_u32(m, "clip.audio.projection_dim", 48);
    mm_u32(m, "clip.audio.num_mel_bins", mel);
    mm_u32(m, "clip.audio.projector.stack_factor", 8);
    mm_t(m, "a.conv1d.1.weight", 3, 3, mel, e, 1);
    mm_t(m, "a.conv1d.1.bias", 2, 1, e, 1, 1);
    mm_t(m, "a.conv1d.2.weight", 3, 3, e, e, 1);
    mm_t(m, "a.conv1d.2.bias", 2, 1, e, 1, 1);
    mm_t(m, "a.position_embd.weight", 2, e, 1500, 1, 1);
    static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
    char name[64];
    for (size_t k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "a.blk.0.%s.weight", sq[k]);
        mm_t(m, name, 2, e, e, 1, 1);
        if (k != 1) {
            snprintf(name, sizeof name, "a.blk.0.%s.bias", sq[k]);
            mm_t(m, name, 1, e, 1, 1, 1);
        }
    }
    mm_t(m, "a.blk.0.ln1.weight", 1, e, 1, 1, 1);
    mm_t(m, "a.blk.0.ln1.bias", 1, e, 1, 1, 1);
    mm_t(m, "a.blk.0.ln2.weight", 1, e, 1, 1, 1);
    mm_t(m, "a.blk.0.ln2.bias", 1, e, 1, 1, 1);
    mm_t(m, "a.blk.0.ffn_up.weight", 2, e, f, 1, 1);
    mm_t(m, "a.blk.0.ffn_up.bias", 1, f, 1, 1, 1);
    mm_t(m, "a.blk.0.ffn_down.weight", 2, f, e, 1, 1);
    mm_t(m, "a.blk.0.ffn_down.bias", 1, e, 1, 1, 1);
    mm_t(m, "a.post_ln.weight", 1, e, 1, 1, 1);
    mm_t(m, "a.post_ln.bias", 1, e, 1, 1, 1);
    mm_t(m, "mm.a.norm_pre.weight", 1, 8 * e, 1, 1, 1);
    mm_t(m, "mm.a.mlp.1.weight", 2, 8 * e, 128, 1, 1);
    mm_t(m, "mm.a.norm_mid.weight", 1, 64, 1, 1, 1);
    mm_t(m, "mm.a.mlp.2.weight", 2, 64, 48, 1, 1);
}

typedef void (*mm_fn)(mm *);
static const struct {
    const char *name;
    mm_fn fn;
} realistic[] = {
    {"mlp", mm_mlp},           {"gemma3", mm_gemma3}, {"qwen2.5vl_merger", mm_qwen25vl},
    {"idefics3", mm_idefics3}, {"lfm2", mm_lfm2},     {"ultravox", mm_ultravox}};

/* Writes the realistic projectors for the loader check by hand
 * (GGUFLINT_CLIP_DUMP=dir): not part of the test's verdict. */
static void dump(const mm *m, const char *name)
{
    const char *dir = getenv("GGUFLINT_CLIP_DUMP");
    if (!dir)
        return;
    size_t len, mark;
    uint8_t *buf = mm_write(m, NULL, NULL, 0, &mark, &len);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.gguf", dir, name);
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(buf, 1, len, fp);
        fclose(fp);
    }
    free(buf);
}

static void mm_expect_clean(const mm *m, const char *where)
{
    char name[128];
    size_t n = (size_t)snprintf(name, sizeof name, "clean-%s", where);
    for (size_t i = 0; i < n && i < sizeof name; i++)
        if (!(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= '0' && name[i] <= '9') &&
            !(name[i] >= 'A' && name[i] <= 'Z') && name[i] != '.')
            name[i] = '_';
    dump(m, name);
    size_t len, mark;
    uint8_t *buf = mm_write(m, NULL, NULL, 0, &mark, &len);
    static const char *const profiles[] = {NULL, "security"};
    for (size_t p = 0; p < 2; p++) {
        gguflint_options *opt = gguflint_options_new();
        assert_non_null(opt);
        if (profiles[p])
            assert_int_equal(gguflint_options_profile(opt, profiles[p]), GGUFLINT_OK);
        gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
        size_t bad =
            ex_count_severity(ctx, GGUFLINT_ERROR) + ex_count_severity(ctx, GGUFLINT_WARNING);
        if (bad) {
            ex_print_findings(where, ctx);
            fail_msg("%s (%s): %zu errors and warnings", where, profiles[p] ? profiles[p] : "ggml",
                     bad);
        }
        gguflint_free(ctx);
        gguflint_options_free(opt);
    }
    free(buf);
}

/* One finding of `id` at the mark, under the default profile. */
static void mm_expect(const mm *m, const char *id, const char *mark_key, const char *mark_t,
                      unsigned dim, const char *where)
{
    char name[128];
    size_t n = (size_t)snprintf(name, sizeof name, "%s-%s", id, where);
    for (size_t i = 0; i < n && i < sizeof name; i++)
        if (!(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= '0' && name[i] <= '9') &&
            !(name[i] >= 'A' && name[i] <= 'Z') && name[i] != '.')
            name[i] = '_';
    dump(m, name);
    size_t len, mark;
    uint8_t *buf = mm_write(m, mark_key, mark_t, dim, &mark, &len);
    assert_true(mark != 0);
    ex_expect_at(buf, len, id, mark, where);
}

static void test_realistic_clean(void **state)
{
    for (size_t i = 0; i < sizeof realistic / sizeof realistic[0]; i++) {
        mm m;
        realistic[i].fn(&m);
        dump(&m, realistic[i].name);
        mm_expect_clean(&m, realistic[i].name);
    }
}

static void test_GG520_key_wrong_type(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_kind(&m, "clip.vision.image_size", MK_I32, 28);
    mm_expect(&m, "GG520", "clip.vision.image_size", NULL, 0, "image_size as i32");
    mm_mlp(&m);
    mm_kind(&m, "clip.use_gelu", MK_U32, 1);
    mm_expect(&m, "GG520", "clip.use_gelu", NULL, 0, "use_gelu as u32");
    mm_mlp(&m);
    mm_kind(&m, "clip.projector_type", MK_U32, 1);
    mm_expect(&m, "GG520", "clip.projector_type", NULL, 0, "projector_type as u32");
    mm_mlp(&m);
    mm_kind(&m, "clip.vision.image_mean", MK_ARRI32, 3);
    mm_expect(&m, "GG520", "clip.vision.image_mean", NULL, 0, "image_mean of i32");
    mm_mlp(&m);
    mm_kind(&m, "clip.has_vision_encoder", MK_U32, 1);
    mm_expect(&m, "GG520", "clip.has_vision_encoder", NULL, 0, "has_vision_encoder as u32");
    /* a key of another projector type is not read: its type is free */
    mm_mlp(&m);
    mm_kind(&m, "clip.vision.n_wa_pattern", MK_I32, 8);
    mm_expect_clean(&m, "mlp with a qwen2.5vl key of another type");
    mm_ultravox(&m);
    mm_kind(&m, "clip.audio.projector.stack_factor", MK_I32, 8);
    mm_expect(&m, "GG520", "clip.audio.projector.stack_factor", NULL, 0, "stack_factor as i32");
}

static void test_GG521_value_range(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_u32(&m, "clip.vision.image_size", 9000);
    mm_expect(&m, "GG521", "clip.vision.image_size", NULL, 0, "image_size over 8192");
    mm_mlp(&m);
    mm_u32(&m, "clip.vision.embedding_length", 0);
    mm_expect(&m, "GG521", "clip.vision.embedding_length", NULL, 0, "embedding_length 0");
    mm_gemma3(&m);
    mm_u32(&m, "clip.vision.attention.head_count", 0);
    mm_expect(&m, "GG521", "clip.vision.attention.head_count", NULL, 0, "head_count 0");
    /* the llava graph skips the last layer: one layer of attention is never run */
    mm_mlp(&m);
    mm_u32(&m, "clip.vision.attention.head_count", 0);
    mm_expect_clean(&m, "llava, 1 layer, head_count 0");
    mm_gemma3(&m);
    mm_u32(&m, "clip.vision.attention.head_count", 5);
    mm_expect(&m, "GG521", "clip.vision.attention.head_count", NULL, 0, "head_count 5 of 32");
    mm_mlp(&m);
    mm_del_key(&m, "clip.vision.image_mean");
    mm_expect(&m, "GG521", "clip.projector_type", NULL, 0, "image_mean absent");
    mm_mlp(&m);
    mm_kind(&m, "clip.vision.image_std", MK_ARRF32, 2);
    mm_expect(&m, "GG521", "clip.vision.image_std", NULL, 0, "image_std of 2");
    mm_mlp(&m);
    mm_kind(&m, "clip.use_silu", MK_BOOL, 1);
    mm_expect(&m, "GG521", "clip.use_silu", NULL, 0, "gelu and silu");
    mm_idefics3(&m);
    mm_del_key(&m, "clip.vision.projector.scale_factor");
    mm_expect(&m, "GG521", "clip.projector_type", NULL, 0, "idefics3 without scale_factor");
    mm_lfm2(&m);
    mm_u32(&m, "clip.vision.projector.scale_factor", 1);
    mm_expect(&m, "GG521", "clip.vision.projector.scale_factor", NULL, 0, "lfm2 scale 1");
    mm_ultravox(&m);
    mm_u32(&m, "clip.audio.num_mel_bins", 300);
    mm_expect(&m, "GG521", "clip.audio.num_mel_bins", NULL, 0, "300 mel bins");
    mm_mlp(&m);
    mm_u32(&m, "clip.vision.feed_forward_length", 0x80000000u);
    mm_expect(&m, "GG521", "clip.vision.feed_forward_length", NULL, 0, "u32 above INT32_MAX");
    mm_mlp(&m);
    mm_kind(&m, "clip.vision.image_grid_pinpoints", MK_ARRI32, 3);
    mm_expect(&m, "GG521", "clip.vision.image_grid_pinpoints", NULL, 0, "3 pinpoints");
}

static void test_GG522_graph_tensor_missing(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_del_t(&m, "mm.2.weight");
    mm_del_t(&m, "mm.2.bias");
    mm_expect(&m, "GG522", "clip.projector_type", NULL, 0, "mlp without mm.2");
    mm_mlp(&m);
    mm_del_t(&m, "v.patch_embd.weight");
    mm_expect(&m, "GG522", "clip.projector_type", NULL, 0, "mlp without patch embedding");
    mm_mlp(&m);
    mm_del_t(&m, "v.position_embd.weight");
    mm_expect(&m, "GG522", "clip.projector_type", NULL, 0, "mlp without position embedding");
    mm_gemma3(&m);
    mm_del_t(&m, "v.blk.0.attn_q.weight");
    mm_expect(&m, "GG522", "clip.vision.block_count", NULL, 0, "gemma3 without attn_q");
    mm_qwen25vl(&m);
    mm_del_t(&m, "v.patch_embd.weight.1");
    mm_expect(&m, "GG522", "clip.projector_type", NULL, 0, "qwen2.5vl without patch_embd.1");
    mm_ultravox(&m);
    mm_del_t(&m, "a.blk.0.attn_v.bias");
    mm_expect(&m, "GG522", "clip.audio.block_count", NULL, 0, "whisper without v bias");
    mm_ultravox(&m);
    mm_del_t(&m, "a.position_embd.weight");
    mm_expect(&m, "GG522", "clip.projector_type", NULL, 0, "whisper without positions");
    /* a fused qkv replaces q, k and v */
    mm_gemma3(&m);
    mm_del_t(&m, "v.blk.0.attn_q.weight");
    mm_del_t(&m, "v.blk.0.attn_k.weight");
    mm_del_t(&m, "v.blk.0.attn_v.weight");
    mm_del_t(&m, "v.blk.0.attn_q.bias");
    mm_del_t(&m, "v.blk.0.attn_k.bias");
    mm_del_t(&m, "v.blk.0.attn_v.bias");
    mm_t(&m, "v.blk.0.attn_qkv.weight", 2, 32, 96, 1, 1);
    mm_expect_clean(&m, "gemma3 with a fused qkv");
}

static void test_GG523_shape(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_shape(&m, "mm.2.weight", 0, 40);
    mm_expect(&m, "GG523", NULL, "mm.2.weight", 0, "mlp mm.2 input");
    mm_mlp(&m);
    mm_shape(&m, "v.patch_embd.weight", 0, 16);
    mm_expect(&m, "GG523", NULL, "v.patch_embd.weight", 0, "patch width");
    mm_mlp(&m);
    mm_shape(&m, "v.patch_embd.weight", 3, 16);
    mm_expect(&m, "GG523", NULL, "v.patch_embd.weight", 3, "patch filters");
    mm_gemma3(&m);
    mm_shape(&m, "v.blk.0.attn_q.weight", 0, 16);
    mm_expect(&m, "GG523", NULL, "v.blk.0.attn_q.weight", 0, "attn_q input");
    mm_gemma3(&m);
    mm_shape(&m, "v.blk.0.ffn_down.weight", 1, 16);
    mm_expect(&m, "GG523", NULL, "v.blk.0.ffn_down.weight", 1, "ffn_down output");
    /* ... and the llava graph never runs its last layer */
    mm_mlp(&m);
    mm_shape(&m, "v.blk.0.ffn_down.weight", 1, 16);
    mm_expect_clean(&m, "llava, the unused last layer's ffn_down");
    mm_gemma3(&m);
    mm_shape(&m, "mm.input_projection.weight", 1, 16);
    mm_expect(&m, "GG523", NULL, "mm.input_projection.weight", 1, "gemma3 projection");
    mm_qwen25vl(&m);
    mm_shape(&m, "mm.0.weight", 0, 32);
    mm_expect(&m, "GG523", NULL, "mm.0.weight", 0, "qwen merger input not 4E");
    mm_idefics3(&m);
    mm_shape(&m, "mm.model.fc.weight", 0, 32);
    mm_expect(&m, "GG523", NULL, "mm.model.fc.weight", 0, "idefics3 fc input");
    mm_ultravox(&m);
    mm_shape(&m, "mm.a.mlp.2.weight", 0, 128);
    mm_expect(&m, "GG523", NULL, "mm.a.mlp.2.weight", 0, "ultravox swiglu half");
    mm_mlp(&m);
    mm_t(&m, "v.position_embd.weight", 2, 32, 3, 1, 1);
    mm_expect(&m, "GG523", NULL, "v.position_embd.weight", 1, "3 positions for 4 patches");
    mm_mlp(&m);
    mm_shape(&m, "mm.0.bias", 0, 40);
    mm_expect(&m, "GG523", NULL, "mm.0.bias", 0, "mm.0 bias");
    mm_ultravox(&m);
    mm_t(&m, "a.position_embd.weight", 2, 32, 1000, 1, 1);
    mm_expect(&m, "GG523", NULL, "a.position_embd.weight", 1, "1000 audio positions");
    /* pixtral.cpp (found by the loader differential: every reshape of
     * these crashed lightonocr's warmup) */
    mm_lightonocr(&m, false);
    mm_expect_clean(&m, "lightonocr, clean");
    mm_lightonocr(&m, true);
    mm_expect_clean(&m, "lightonocr with a 2 x 2 patch merger, clean");
    mm_lightonocr(&m, false);
    mm_shape(&m, "v.blk.0.attn_k.weight", 0, 33);
    mm_expect(&m, "GG523", NULL, "v.blk.0.attn_k.weight", 0, "lightonocr attn_k input");
    mm_lightonocr(&m, false);
    mm_shape(&m, "v.post_ln.weight", 0, 33);
    mm_expect(&m, "GG523", NULL, "v.post_ln.weight", 0, "lightonocr post_ln");
    mm_lightonocr(&m, false);
    mm_u32(&m, "clip.vision.patch_size", 7);
    mm_expect(&m, "GG523", NULL, "v.patch_embd.weight", 0, "lightonocr patch_size 7");
    mm_lightonocr(&m, false);
    mm_shape(&m, "mm.1.weight", 0, 33);
    mm_expect(&m, "GG523", NULL, "mm.1.weight", 0, "lightonocr mm.1 without a merger");
    mm_lightonocr(&m, true);
    mm_shape(&m, "mm.1.weight", 0, 33);
    mm_expect(&m, "GG523", NULL, "mm.1.weight", 0, "lightonocr mm.1 after the merger");
    mm_lightonocr(&m, true);
    mm_shape(&m, "mm.patch_merger.weight", 0, 64);
    mm_expect(&m, "GG523", NULL, "mm.patch_merger.weight", 0, "merger input not E x 2 x 2");
    mm_lightonocr(&m, false);
    mm_shape(&m, "mm.2.weight", 0, 33);
    mm_expect(&m, "GG523", NULL, "mm.2.weight", 0, "lightonocr mm.2 input");
    mm_lightonocr(&m, false);
    mm_t(&m, "v.position_embd.weight", 2, 33, 5, 1, 1);
    mm_expect_clean(&m, "lightonocr: a position table the graph never reads");
    /* the old converters' swapped up/down (the loader swaps them back) */
    mm_mlp(&m);
    mm_t(&m, "v.blk.0.ffn_up.weight", 2, 64, 32, 1, 1);
    mm_t(&m, "v.blk.0.ffn_up.bias", 1, 32, 1, 1, 1);
    mm_t(&m, "v.blk.0.ffn_down.weight", 2, 32, 64, 1, 1);
    mm_t(&m, "v.blk.0.ffn_down.bias", 1, 64, 1, 1, 1);
    mm_expect_clean(&m, "mlp with swapped ffn_up / ffn_down");
}

static void test_GG524_output_width(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_u32(&m, "clip.vision.projection_dim", 64);
    mm_expect(&m, "GG524", "clip.vision.projection_dim", NULL, 0, "mlp width 48, dim 64");
    mm_gemma3(&m);
    mm_u32(&m, "clip.vision.projection_dim", 64);
    mm_expect(&m, "GG524", "clip.vision.projection_dim", NULL, 0, "gemma3 width 48, dim 64");
    mm_ultravox(&m);
    mm_u32(&m, "clip.audio.projection_dim", 64);
    mm_expect(&m, "GG524", "clip.audio.projection_dim", NULL, 0, "ultravox width 48, dim 64");
}

static void test_GG557_table_keys(void **state)
{
    mm m;
    mm_mlp(&m);
    mm_del_key(&m, "clip.vision.projection_dim");
    mm_expect(&m, "GG557", "clip.projector_type", NULL, 0, "projection_dim absent");
    mm_qwen25vl(&m);
    mm_del_key(&m, "clip.vision.n_wa_pattern");
    mm_expect(&m, "GG557", "clip.projector_type", NULL, 0, "qwen2.5vl without n_wa_pattern");
    mm_ultravox(&m);
    mm_del_key(&m, "clip.audio.projector.stack_factor");
    mm_expect(&m, "GG557", "clip.projector_type", NULL, 0, "ultravox without stack_factor");
    mm_mlp(&m);
    mm_kind(&m, "clip.has_vision_encoder", MK_BOOL, 0);
    mm_expect(&m, "GG557", "clip.projector_type", NULL, 0, "no encoder");
    /* no projector type: findings point at general.architecture's value
     * (8 bytes of length after the header, the key and the type) */
    mm_mlp(&m);
    mm_del_key(&m, "clip.projector_type");
    size_t len, mark;
    uint8_t *buf = mm_write(&m, NULL, NULL, 0, &mark, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    uint64_t at = gguflint_kv_get(ctx, 0)->value_offset;
    gguflint_free(ctx);
    ex_expect_at(buf, len, "GG557", at, "no projector type");
}

static void test_crash_rules_are_errors(void **state)
{
    static const char *const ids[] = {"GG520", "GG521", "GG522", "GG523", "GG557"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int r = gguflint_rule_find(ids[i]);
        assert_true(r >= 0);
        assert_int_equal(gguflint_rule_profile_severity((size_t)r, 0), GGUFLINT_ERROR);
        for (size_t p = 0; gguflint_profile_name(p); p++)
            if (strcmp(gguflint_profile_name(p), "security") == 0)
                assert_int_equal(gguflint_rule_profile_severity((size_t)r, p), GGUFLINT_ERROR);
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_clean_projectors),
            cmocka_unit_test(test_GG556_projector_unknown),
            cmocka_unit_test(test_GG514_projector_type_nul),
            cmocka_unit_test(test_GG557_hparam_missing),
            cmocka_unit_test(test_GG591_tensor_missing),
            cmocka_unit_test(test_GG591_every_type),
            cmocka_unit_test(test_GG591_many_missing),
            cmocka_unit_test(test_GG592_layer_tensor_missing),
            cmocka_unit_test(test_GG558_patch_grid),
            cmocka_unit_test(test_GG558_zero_patch),
            cmocka_unit_test(test_GG559_merge_size),
            cmocka_unit_test(test_GG560_chunk_size),
            cmocka_unit_test(test_GG561_pixels),
            cmocka_unit_test(test_profiles),
            cmocka_unit_test(test_realistic_clean),
            cmocka_unit_test(test_GG520_key_wrong_type),
            cmocka_unit_test(test_GG521_value_range),
            cmocka_unit_test(test_GG522_graph_tensor_missing),
            cmocka_unit_test(test_GG523_shape),
            cmocka_unit_test(test_GG524_output_width),
            cmocka_unit_test(test_GG557_table_keys),
            cmocka_unit_test(test_crash_rules_are_errors),
        })

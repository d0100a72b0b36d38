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
    const char *mark; /* the key whose value offset is returned */
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
            (s->omit && strcmp(s->omit, ptensors[i].tensor) == 0))
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
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
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
    (void)state;
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
    (void)state;
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

static void test_GG591_tensor_missing(void **state)
{
    (void)state;
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
    (void)state;
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
    (void)state;
    expect_one(&(pspec){.ptype = "qwen2vl-merger", .mark = "clip.projector_type"}, "GG556",
               "unknown projector type");
}

static void test_GG514_projector_type_nul(void **state)
{
    (void)state;
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
    (void)state;
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
    (void)state;
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
    (void)state;
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
    (void)state;
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
    (void)state;
    expect_one(&(pspec){.ptype = "granite_speech", .chunk = 65537, .mark = "clip.audio.chunk_size"},
               "GG560", "chunk 65537");
    expect_one(&(pspec){.ptype = "granite_speech", .chunk = -5, .mark = "clip.audio.chunk_size"},
               "GG560", "chunk negative");
    expect_clean(&(pspec){.ptype = "granite_speech", .chunk = 8192});
}

static void test_GG561_pixels(void **state)
{
    (void)state;
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
    (void)state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_projectors),
        cmocka_unit_test(test_GG556_projector_unknown),
        cmocka_unit_test(test_GG514_projector_type_nul),
        cmocka_unit_test(test_GG557_hparam_missing),
        cmocka_unit_test(test_GG591_tensor_missing),
        cmocka_unit_test(test_GG591_every_type),
        cmocka_unit_test(test_GG592_layer_tensor_missing),
        cmocka_unit_test(test_GG558_patch_grid),
        cmocka_unit_test(test_GG558_zero_patch),
        cmocka_unit_test(test_GG559_merge_size),
        cmocka_unit_test(test_GG560_chunk_size),
        cmocka_unit_test(test_GG561_pixels),
        cmocka_unit_test(test_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

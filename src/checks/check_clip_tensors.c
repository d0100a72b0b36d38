/* check_clip_tensors.c - the tensors of a projector file against the mtmd
 * loader and its graph: the tensors load_tensors requires per projector
 * type (GG591, data/arch/clip_tensors.def) and in every encoder layer
 * (GG592); the tensors the graph or clip_n_mmproj_embd dereference although
 * the loader reads them as optional (GG522: the output matrix of
 * data/arch/clip_outputs.def, the patch and position embeddings and the
 * layers' attention of the builders flagged in clip_projectors.def); the
 * shapes the graph's matrix products and additions need (GG523: patch and
 * position embeddings, each layer, the projector chain of
 * data/arch/clip_chains.def, biases); the projector's output width against
 * projection_dim (GG524).
 *
 * Work is bounded: one lookup per row of each table, and per encoder a
 * walk over its layers that stops at the first layer the file lacks, so at
 * most about twenty lookups per layer tensor the file has. */
#include "checks/clip_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const tprefix[CLIP_NMOD] = {"v", "a", "a.gen.code"};
static const char *const kprefix[CLIP_NMOD] = {"vision", "audio", "gen.audio"};
static const char *const enc_name[CLIP_NMOD] = {"vision", "audio", "audio generation"};

static bool is_type(const clip_enc *e, const char *name)
{
    return e->proj && strcmp(e->proj->name, name) == 0;
}

/* The graph builders whose layer and embedding shapes GG523 checks: the
 * ones read for this rule (llava.cpp, siglip.cpp, qwen2vl.cpp,
 * whisper-enc.cpp, pixtral.cpp: all through build_vit). */
static bool shapes_known(const clip_enc *e)
{
    static const char *const files[] = {"llava.cpp", "siglip.cpp", "qwen2vl.cpp", "whisper-enc.cpp",
                                        "pixtral.cpp"};
    if (!e->proj)
        return false;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(e->proj->file, files[i]) == 0)
            return true;
    return false;
}

static const gguflint_tensor *tensorf(const clip_file *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const gguflint_tensor *tensorf(const clip_file *f, const char *fmt, ...)
{
    char name[96];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof name)
        return NULL;
    return tensor_by_name(f->ctx, name);
}

static bool u32_key(const clip_file *f, int m, const char *suffix, int64_t *v)
{
    char key[96];
    snprintf(key, sizeof key, "clip.%s.%s", kprefix[m], suffix);
    const gguflint_kv *kv = kv_by_key(f->ctx, key);
    if (!kv || kv->type != VT_UINT32 || kv->u > INT32_MAX)
        return false;
    *v = (int64_t)kv->u;
    return true;
}

/* ne[j] of t (1 beyond n_dims) as a signed value; dims that do not fit are
 * GG2xx findings and never compared here. */
static int64_t dim(const gguflint_tensor *t, unsigned j)
{
    return j < t->n_dims && t->ne[j] <= INT64_MAX ? (int64_t)t->ne[j] : 1;
}

/* GG523 at dimension j of t. */
static const char crash[] = "ggml asserts at the warmup encode (a crash)";

static void shape(const clip_file *f, const gguflint_tensor *t, unsigned j, int64_t want,
                  const char *why, const char *effect)
{
    gguflint_ctx *ctx = f->ctx;
    if (!arch_keep(ctx, R_CLIP_TENSOR_SHAPE))
        return;
    char name[120], path[64];
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 90);
    arch_site at_dim = arch_dim_site(ctx, f->w, t, j, path, sizeof path);
    emit(ctx, R_CLIP_TENSOR_SHAPE, at_dim.offset, at_dim.len, path,
         "tensor '%s' has ne[%u] = %lld; the projector graph needs %lld (%s): %s", name, j,
         (long long)dim(t, j), (long long)want, why, effect);
}

static bool expect_dim(const clip_file *f, const gguflint_tensor *t, unsigned j, int64_t want,
                       const char *why)
{
    if (!t || want <= 0 || dim(t, j) == want)
        return true;
    shape(f, t, j, want, why, crash);
    return false;
}

/* A vector the graph adds or multiplies onto a width-`want` row
 * (ggml_add / ggml_mul broadcast it: ggml_can_repeat needs its length to
 * divide the width). */
static bool expect_rep(const clip_file *f, const gguflint_tensor *t, unsigned j, int64_t want,
                       const char *why)
{
    if (!t || want <= 0)
        return true;
    int64_t d = dim(t, j);
    if (d > 0 && want % d == 0)
        return true;
    shape(f, t, j, want, why, crash);
    return false;
}

/* A bias "X.bias" next to "X.weight" is added to the product: its ne[0]
 * divides the weight's output width (ne[1]; ne[0] for a 1-D norm weight). */
static void bias_of(const clip_file *f, const gguflint_tensor *w, const char *wname)
{
    size_t n = strlen(wname);
    if (!w || n < 7 || strcmp(wname + n - 7, ".weight") != 0 || w->n_dims > 2)
        return;
    const gguflint_tensor *b = tensorf(f, "%.*s.bias", (int)(n - 7), wname);
    if (b)
        expect_rep(f, b, 0, dim(w, w->n_dims == 2 ? 1 : 0), "the bias of its weight");
}

static void miss(const clip_file *f, const clip_enc *e, int rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void miss(const clip_file *f, const clip_enc *e, int rule, const char *fmt, ...)
{
    char msg[360];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    clip_report(f, rule, e->type_kv, "%s", msg);
}

static bool required_by_loader(const clip_projector *p, const char *tensor)
{
    for (size_t i = 0; i < clip_n_tensor_rows; i++)
        if (strcmp(clip_tensor_rows[i].ptype, p->name) == 0 &&
            strcmp(clip_tensor_rows[i].tensor, tensor) == 0)
            return true;
    return false;
}

/* GG591: the projector tensors load_tensors requires for the type; the
 * first CLIP_MISSING_SAID absent ones by name, the rest as a count (a file
 * without deepseek-ocr's SAM encoder lacks 168). */
#define CLIP_MISSING_SAID 8
static void required_tensors(const clip_file *f, const clip_enc *e)
{
    size_t absent = 0;
    const char *last = NULL;
    for (size_t i = 0; i < clip_n_tensor_rows; i++) {
        const clip_tensor_row *r = &clip_tensor_rows[i];
        if (strcmp(r->ptype, e->proj->name) != 0 || tensor_by_name(f->ctx, r->tensor))
            continue;
        if (++absent > CLIP_MISSING_SAID) {
            last = r->tensor;
            continue;
        }
        miss(f, e, R_CLIP_TENSOR_MISSING,
             "projector type '%s' needs the tensor '%s', which is absent (the mtmd loader: "
             "\"unable to find tensor\")",
             r->ptype, r->tensor);
    }
    if (last)
        miss(f, e, R_CLIP_TENSOR_MISSING,
             "projector type '%s' needs %zu more tensors that are absent, the last '%s' (the "
             "mtmd loader: \"unable to find tensor\")",
             e->proj->name, absent - CLIP_MISSING_SAID, last);
}

/* GG522: what the graph and clip_n_mmproj_embd dereference. */
static void graph_tensors(const clip_file *f, int m, const clip_enc *e)
{
    const clip_projector *p = e->proj;
    for (size_t i = 0; i < clip_n_output_rows; i++) {
        const clip_output_row *r = &clip_output_rows[i];
        if (strcmp(r->ptype, p->name) != 0 || tensor_by_name(f->ctx, r->tensor) ||
            required_by_loader(p, r->tensor))
            continue;
        miss(f, e, R_CLIP_GRAPH_TENSOR_MISSING,
             "projector type '%s' has no '%s': the loader reads it as optional, but "
             "clip_n_mmproj_embd reads its ne[%u] as the output width when mtmd starts (a null "
             "dereference, SIGSEGV)",
             r->ptype, r->tensor, (unsigned)r->dim);
    }
    for (size_t i = 0; i < clip_n_used_rows; i++) {
        const clip_used_row *r = &clip_used_rows[i];
        if (strcmp(r->ptype, p->name) != 0 || tensor_by_name(f->ctx, r->tensor) ||
            (r->when[0] && !tensor_by_name(f->ctx, r->when)))
            continue;
        miss(f, e, R_CLIP_GRAPH_TENSOR_MISSING,
             "projector type '%s' has no '%s': the loader reads it as optional, but the %s "
             "graph uses it without a null check (SIGSEGV at the warmup encode)",
             r->ptype, r->tensor, p->file);
    }
    static const struct {
        unsigned flag;
        const char *tensor, *where;
    } conv[] = {{G_INP, "v.patch_embd.weight", "build_inp; "},
                {G_PE1, "v.patch_embd.weight.1", ""}};
    for (size_t k = 0; k < 2; k++)
        if (m == CLIP_V && (p->flags & conv[k].flag) && !tensor_by_name(f->ctx, conv[k].tensor))
            miss(f, e, R_CLIP_GRAPH_TENSOR_MISSING,
                 "projector type '%s' has no '%s': the loader reads it as optional, but the %s "
                 "graph convolves the image with it (%sa null dereference at the warmup encode, "
                 "SIGSEGV)",
                 p->name, conv[k].tensor, p->file, conv[k].where);
    if ((p->flags & G_POS) && !tensorf(f, "%s.position_embd.weight", tprefix[m]))
        miss(f, e, R_CLIP_GRAPH_TENSOR_MISSING,
             "projector type '%s' has no '%s.position_embd.weight': the loader reads it as "
             "optional, but the %s graph reads it without a null check (SIGSEGV at the warmup "
             "encode)",
             p->name, tprefix[m], p->file);
}

/* The FFN pair as the graph uses it: the loader swaps up and down for the
 * old converters' types when down's ne[0] is n_embd (load_tensors
 * is_ffn_swapped). */
static bool swaps_ffn(const clip_enc *e)
{
    static const char *const types[] = {
        "mlp",     "ldp",    "ldpv2",    "qwen2vl_merger", "qwen2.5vl_merger", "exaone4_5",
        "adapter", "gemma3", "idefics3", "resampler",      "minicpmv4_6"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (is_type(e, types[i]))
            return true;
    return false;
}

static void layer_shapes(const clip_file *f, int m, const clip_enc *e, int64_t il, int64_t embd)
{
    const char *pf = tprefix[m];
    static const char *const in[] = {"attn_q", "attn_k", "attn_v", "attn_qkv"};
    char name[96];
    for (size_t k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "%s.blk.%lld.%s.weight", pf, (long long)il, in[k]);
        const gguflint_tensor *t = tensor_by_name(f->ctx, name);
        expect_dim(f, t, 0, embd, "the layer's input width, embedding_length");
        bias_of(f, t, name);
    }
    snprintf(name, sizeof name, "%s.blk.%lld.attn_out.weight", pf, (long long)il);
    const gguflint_tensor *o = tensor_by_name(f->ctx, name);
    const gguflint_tensor *q = tensorf(f, "%s.blk.%lld.attn_q.weight", pf, (long long)il);
    if (q && o)
        expect_dim(f, o, 0, dim(q, 1), "attn_q's output width");
    expect_dim(f, o, 1, embd, "the residual width, embedding_length");
    bias_of(f, o, name);
    static const char *const norms[] = {"ln1", "ln2"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(name, sizeof name, "%s.blk.%lld.%s.weight", pf, (long long)il, norms[k]);
        const gguflint_tensor *t = tensor_by_name(f->ctx, name);
        expect_rep(f, t, 0, embd, "a layer norm over embedding_length");
        bias_of(f, t, name);
    }
    const gguflint_tensor *up = tensorf(f, "%s.blk.%lld.ffn_up.weight", pf, (long long)il);
    const gguflint_tensor *down = tensorf(f, "%s.blk.%lld.ffn_down.weight", pf, (long long)il);
    const gguflint_tensor *gate = tensorf(f, "%s.blk.%lld.ffn_gate.weight", pf, (long long)il);
    const gguflint_tensor *up_b = tensorf(f, "%s.blk.%lld.ffn_up.bias", pf, (long long)il);
    const gguflint_tensor *down_b = tensorf(f, "%s.blk.%lld.ffn_down.bias", pf, (long long)il);
    const gguflint_tensor *gate_b = tensorf(f, "%s.blk.%lld.ffn_gate.bias", pf, (long long)il);
    if (up && down && swaps_ffn(e) && dim(down, 0) == embd) {
        const gguflint_tensor *t = up;
        up = down;
        down = t;
        t = up_b;
        up_b = down_b;
        down_b = t;
    }
    if (up && expect_dim(f, up, 0, embd, "the FFN's input width, embedding_length") && down)
        expect_dim(f, down, 0, dim(up, 1), "ffn_up's output width");
    if (down)
        expect_dim(f, down, 1, embd, "the residual width, embedding_length");
    if (up && up_b)
        expect_rep(f, up_b, 0, dim(up, 1), "the bias of ffn_up, its output width");
    if (down_b)
        expect_rep(f, down_b, 0, embd, "the bias of ffn_down, embedding_length");
    if (gate && up) {
        expect_dim(f, gate, 0, dim(up, 0), "ffn_up's input width");
        expect_dim(f, gate, 1, dim(up, 1), "ffn_up's output width");
    }
    if (gate && gate_b)
        expect_rep(f, gate_b, 0, dim(gate, 1), "the bias of ffn_gate, its output width");
}

/* The first of attn_q, attn_k and attn_v of layer il without its
 * `suffix` tensor (weight, bias) when the layer has no fused
 * attn_qkv.weight; NULL when none is missing. */
static const char *missing_qkv(const clip_file *f, const char *pf, int64_t il, const char *suffix)
{
    static const char *const qkv[] = {"attn_q", "attn_k", "attn_v"};
    if (tensorf(f, "%s.blk.%lld.attn_qkv.weight", pf, (long long)il))
        return NULL;
    for (size_t k = 0; k < 3; k++)
        if (!tensorf(f, "%s.blk.%lld.%s.%s", pf, (long long)il, qkv[k], suffix))
            return qkv[k];
    return NULL;
}

/* GG592, the layers' attention (GG522) and their shapes (GG523; not the
 * last layer of a llava graph, which it never runs). */
static void layers(const clip_file *f, int m, const clip_enc *e)
{
    if (is_type(e, "gemma3nv") || is_type(e, "qwen3tts_spkenc") || is_type(e, "pockettts_gen"))
        return; /* load_tensors: no standard layers */
    char key[64];
    snprintf(key, sizeof key, "clip.%s.block_count", kprefix[m]);
    const gguflint_kv *bk = kv_by_key(f->ctx, key);
    int64_t n = 0, embd = 0;
    if (!clip_value(bk, &n) || n <= 0)
        return;
    if (!u32_key(f, m, "embedding_length", &embd))
        embd = 0;
    const char *pf = tprefix[m];
    bool vit = e->proj && (e->proj->flags & G_VIT), shapes = shapes_known(e) && embd > 0;
    bool attn_done = false;
    for (int64_t il = 0; il < n && f->ctx->status == GGUFLINT_OK; il++) {
        const char *miss_part = NULL;
        if (!tensorf(f, "%s.blk.%lld.attn_out.weight", pf, (long long)il))
            miss_part = "attn_out";
        bool moe = tensorf(f, "%s.blk.%lld.ffn_gate_exps.weight", pf, (long long)il) != NULL;
        if (!miss_part && !moe && !tensorf(f, "%s.blk.%lld.ffn_up.weight", pf, (long long)il))
            miss_part = "ffn_up";
        if (!miss_part && !moe && !tensorf(f, "%s.blk.%lld.ffn_down.weight", pf, (long long)il))
            miss_part = "ffn_down";
        if (miss_part) {
            clip_report(f, R_CLIP_LAYER_TENSOR_MISSING, bk,
                        "%s block_count is %lld but the tensor '%s.blk.%lld.%s.weight' is absent: "
                        "the mtmd loader requires attn_out, ffn_up and ffn_down weights in every "
                        "layer (\"unable to find tensor\")",
                        enc_name[m], (long long)n, pf, (long long)il, miss_part);
            return;
        }
        bool runs = !(il == n - 1 && clip_skips_last_layer(f, e));
        const char *q = runs && !attn_done && e->proj && (e->proj->flags & G_QKVB)
                            ? missing_qkv(f, pf, il, "bias")
                            : NULL;
        if (q) {
            attn_done = true;
            clip_report(f, R_CLIP_GRAPH_TENSOR_MISSING, bk,
                        "layer %lld of the %s encoder has no '%s.blk.%lld.%s.bias': the "
                        "loader reads it as optional, but the %s graph adds it without "
                        "a null check (SIGSEGV at the warmup encode)",
                        (long long)il, enc_name[m], pf, (long long)il, q, e->proj->file);
        }
        q = runs && vit && !attn_done ? missing_qkv(f, pf, il, "weight") : NULL;
        if (q) {
            attn_done = true;
            clip_report(f, R_CLIP_GRAPH_TENSOR_MISSING, bk,
                        "layer %lld of the %s encoder has neither '%s.blk.%lld.attn_qkv."
                        "weight' nor '%s.blk.%lld.%s.weight': the loader reads them as "
                        "optional, but the %s graph multiplies by them (a null "
                        "dereference at the warmup encode, SIGSEGV)",
                        (long long)il, enc_name[m], pf, (long long)il, pf, (long long)il, q,
                        e->proj->file);
        }
        if (il == 0 && e->proj && strcmp(e->proj->file, "whisper-enc.cpp") == 0) {
            static const char *const need[] = {"ln1.weight", "ln1.bias",    "ln2.weight",
                                               "ln2.bias",   "attn_q.bias", "attn_v.bias"};
            for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
                if (!tensorf(f, "%s.blk.0.%s", pf, need[k])) {
                    clip_report(f, R_CLIP_GRAPH_TENSOR_MISSING, bk,
                                "the %s encoder has no '%s.blk.0.%s': the loader reads it as "
                                "optional, but the whisper-enc.cpp graph asserts it is present "
                                "(a crash at the warmup encode: GGML_ASSERT)",
                                enc_name[m], pf, need[k]);
                    break;
                }
        }
        if (shapes && !(il == n - 1 && clip_skips_last_layer(f, e)))
            layer_shapes(f, m, e, il, embd);
    }
}

/* GG523: patch and position embeddings of the builders read. */
static void embeddings(const clip_file *f, int m, const clip_enc *e)
{
    int64_t embd = 0, patch = 0;
    if (!shapes_known(e) || !u32_key(f, m, "embedding_length", &embd) || embd <= 0)
        return;
    if (m == CLIP_V && !u32_key(f, m, "patch_size", &patch))
        patch = 0;
    if (m == CLIP_V) {
        const gguflint_tensor *pe = tensor_by_name(f->ctx, "v.patch_embd.weight");
        if (pe && patch > 0 && expect_dim(f, pe, 0, patch, "the patch width, patch_size") &&
            expect_dim(f, pe, 1, patch, "the patch height, patch_size") &&
            expect_dim(f, pe, 2, 3, "the image's 3 colour channels"))
            expect_dim(f, pe, 3, embd, "one filter per embedding, embedding_length");
        const gguflint_tensor *p1 = tensor_by_name(f->ctx, "v.patch_embd.weight.1");
        if (pe && p1)
            for (unsigned j = 0; j < 4; j++)
                if (!expect_dim(f, p1, j, dim(pe, j), "the shape of v.patch_embd.weight"))
                    break;
        const gguflint_tensor *pb = tensor_by_name(f->ctx, "v.patch_embd.bias");
        expect_rep(f, pb, 0, embd, "the patch embedding width, embedding_length");
        static const char *const norm[] = {"v.pre_ln.weight", "v.pre_ln.bias", "v.post_ln.weight",
                                           "v.post_ln.bias"};
        for (size_t k = 0; k < 4; k++)
            expect_rep(f, tensor_by_name(f->ctx, norm[k]), 0, embd,
                       "a layer norm over embedding_length");
    }
    if (strcmp(e->proj->file, "pixtral.cpp") == 0)
        return; /* build_vit(..., nullptr, add_pos): 2-D RoPE, no learned table */
    const gguflint_tensor *pos = tensorf(f, "%s.position_embd.weight", tprefix[m]);
    if (!expect_rep(f, pos, 0, embd, "added to each embedding, embedding_length wide") || !pos)
        return;
    if (e->proj->flags & G_RESIZE) {
        int64_t rows = dim(pos, 1), side = 0;
        while ((side + 1) * (side + 1) <= rows)
            side++;
        if (side * side != rows)
            shape(f, pos, 1, (side + 1) * (side + 1),
                  "a square number of rows: the graph resizes the table as a sqrt(ne[1]) x "
                  "sqrt(ne[1]) grid",
                  crash);
        return;
    }
    /* rows: the positions of the warmup encode (the image at image_size, or
     * 3000 audio frames halved by the second conv1d) */
    int64_t image = 0, need = 0;
    const char *why = "", *effect = crash;
    if (strcmp(e->proj->file, "whisper-enc.cpp") == 0) {
        need = 1500;
        why = "at least: one row per position of the 3000-frame warmup, after the stride-2 "
              "conv1d (GGML_ASSERT position_embeddings->ne[1] >= n_pos)";
    } else if (strcmp(e->proj->file, "llava.cpp") == 0 && u32_key(f, m, "image_size", &image) &&
               patch > 0 && image >= patch) {
        need = (image / patch) * (image / patch) + (tensor_by_name(f->ctx, "v.class_embd") ? 1 : 0);
        why = "at least: ggml_get_rows reads one row per patch (and the class embedding)";
        effect = "the first image encode reads rows past the table (an out-of-bounds heap read; "
                 "the warmup only sizes the graph and does not catch it)";
    }
    if (need > 0 && dim(pos, 1) < need)
        shape(f, pos, 1, need, why, effect);
    /* siglip adds the table to the patches (ggml_add: its rows must repeat
     * onto them); lfm2 and phi4 resize it first */
    if (strcmp(e->proj->file, "siglip.cpp") == 0 && !is_type(e, "lfm2") && !is_type(e, "phi4") &&
        u32_key(f, m, "image_size", &image) && patch > 0 && image >= patch) {
        int64_t n = (image / patch) * (image / patch), rows = dim(pos, 1);
        if (rows > 0 && n % rows != 0)
            shape(f, pos, 1, n,
                  "one row per patch of the image_size image: ggml_add repeats the table onto "
                  "the patches",
                  crash);
    }
}

/* GG523: the projector chain (clip_chains.def), and each 2-D weight's
 * bias. Returns nothing; the output width is GG524's. */
static void chain(const clip_file *f, int m, const clip_enc *e)
{
    int64_t embd = 0, merge = 1, smerge = 1, stack = 1, prev = 0;
    bool any = false;
    if (!u32_key(f, m, "embedding_length", &embd) || embd <= 0)
        return;
    if (m == CLIP_V && !u32_key(f, m, "projector.scale_factor", &merge))
        merge = 1;
    if (m == CLIP_V && !u32_key(f, m, "spatial_merge_size", &smerge))
        smerge = 1;
    if (m == CLIP_A && (!u32_key(f, m, "projector.stack_factor", &stack) || stack < 1))
        stack = 1;
    bool stacked = kv_by_key(f->ctx, "clip.vision.feature_layer") != NULL;
    for (size_t i = 0; i < clip_n_chain_rows; i++) {
        const clip_chain_row *r = &clip_chain_rows[i];
        if (strcmp(r->ptype, e->proj->name) != 0)
            continue;
        const gguflint_tensor *t = tensor_by_name(f->ctx, r->tensor);
        if (!t)
            continue;
        int64_t want = 0;
        const char *why = "";
        switch (r->input) {
        case IN_E:
            want = stacked ? 0 : embd; /* feature layers stack several widths */
            why = "the encoder's output width, embedding_length";
            break;
        case IN_E4:
            want = embd * 4;
            why = "4 x embedding_length after the 2 x 2 merge";
            break;
        case IN_EMM:
            want = merge > 1 && merge < 65536 ? embd * merge * merge : 0;
            why = "embedding_length x scale_factor^2 after the pixel shuffle";
            break;
        case IN_ES:
            want = stack <= INT32_MAX ? embd * stack : 0; /* both below 2^31 */
            why = "embedding_length x stack_factor after the frame stacking";
            break;
        case IN_ESM:
            want = smerge >= 1 && smerge < 65536 ? embd * smerge * smerge : 0;
            why = "embedding_length x spatial_merge_size^2 after the im2col merge";
            break;
        case IN_PREV_E:
            want = any ? prev : embd;
            why = any ? "the previous projector matrix's output width"
                      : "the encoder's output width, embedding_length";
            break;
        case IN_PREV:
            want = prev;
            why = "the previous projector matrix's output width";
            break;
        default:
            want = prev % 2 == 0 ? prev / 2 : 0;
            why = "half the previous matrix's output width, after the SwiGLU";
            break;
        }
        expect_dim(f, t, r->dim, want, why);
        any = true;
        if (t->n_dims == 2)
            prev = dim(t, r->dim == 0 ? 1 : 0);
        if (r->dim == 0)
            bias_of(f, t, r->tensor);
    }
}

/* GG524: the output width clip_n_mmproj_embd reads against projection_dim
 * (what convert_hf_to_gguf.py writes: the text model's n_embd). */
static void output_width(const clip_file *f, int m, const clip_enc *e)
{
    char key[64];
    snprintf(key, sizeof key, "clip.%s.projection_dim", kprefix[m]);
    const gguflint_kv *pk = kv_by_key(f->ctx, key);
    if (!pk || pk->type != VT_UINT32 || pk->u == 0 || pk->u > INT32_MAX)
        return;
    for (size_t i = 0; i < clip_n_output_rows; i++) {
        const clip_output_row *r = &clip_output_rows[i];
        if (strcmp(r->ptype, e->proj->name) != 0)
            continue;
        const gguflint_tensor *t = tensor_by_name(f->ctx, r->tensor);
        if (!t || dim(t, r->dim) == (int64_t)pk->u)
            continue;
        char name[120];
        esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 90);
        clip_report(f, R_CLIP_OUTPUT_WIDTH, pk,
                    "projection_dim is %llu but the projector's output width (ne[%u] of '%s', "
                    "what clip_n_mmproj_embd returns) is %lld: mtmd refuses a text model whose "
                    "n_embd differs from the output width (\"mismatch between text model and "
                    "mmproj\")",
                    (unsigned long long)pk->u, (unsigned)r->dim, name, (long long)dim(t, r->dim));
    }
}

void clip_check_tensors(const clip_file *f)
{
    const clip_projector *done = NULL;
    for (int m = 0; m < CLIP_NMOD; m++) {
        const clip_enc *e = &f->enc[m];
        if (!e->on)
            continue;
        if (m != CLIP_G)
            layers(f, m, e);
        if (!e->proj)
            continue;
        if (e->proj != done)
            required_tensors(f, e);
        done = e->proj;
        graph_tensors(f, m, e);
        if (m == CLIP_G)
            continue;
        embeddings(f, m, e);
        chain(f, m, e);
        output_width(f, m, e);
    }
}

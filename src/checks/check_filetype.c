/* check_filetype.c - see checks.h. general.file_type against the tensors
 * (GG510: the 2-D weights cannot have come from the declared file type), the
 * quantized 1-D tensors, norms and biases no tool writes (GG511), and the
 * file name's quantisation tag against both (GG512). The knowledge of what
 * llama-quantize writes for each file type is in filetypes.c.
 *
 * A mixture judgement is conservative: each quantizable weight (outside
 * token_embd / output, which options may set to anything) is checked against
 * every type the file type could have given its role and shape, and a file is
 * reported only when more than half of those weights' parameters are in types
 * the file type never produces. Per-tensor overrides (--tensor-type) and
 * hand-made mixes therefore pass unless they change the bulk of the model. */
#include "checks/checks.h"
#include "common/alloc.h"

#include "format/filetypes.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* Names longer than this are not classified (ggml allows 63 bytes). */

/* Per-tensor classification, one byte each. */
#define CLS_WEIGHT 0x80u /* quantizable by llama-quantize's rules */
#define CLS_ROLE 0x0Fu

typedef struct weights {
    uint8_t *cls;      /* n_tensors entries */
    uint32_t hist[64]; /* quantizable weights per ggml type */
    size_t n_weights;  /* quantizable weights */
    size_t n_checked;  /* of which in a mixed role (not token_embd/output) */
} weights;

typedef struct verdict {
    double total, bad; /* parameters of the checked weights, and of the misfits */
} verdict;

static bool fits(verdict v)
{
    return v.total <= 0 || v.bad * 2 <= v.total;
}

static double elements(const gguflint_tensor *t)
{
    return (double)t->ne[0] * (double)t->ne[1] * (double)t->ne[2] * (double)t->ne[3];
}

static bool ends_with(gguflint_view v, const char *s)
{
    size_t n = strlen(s);
    return v.len >= n && memcmp(v.ptr + v.len - n, s, n) == 0;
}

static bool contains(gguflint_view v, const char *s)
{
    size_t n = strlen(s);
    if (v.len < n)
        return false;
    for (uint64_t i = 0; i + n <= v.len; i++)
        if (v.ptr[i] == (uint8_t)s[0] && memcmp(v.ptr + i, s, n) == 0)
            return true;
    return false;
}

/* GG511 (a quantized type) and GG534 (F16, BF16, F64) on a tensor that is
 * 1-D, a norm or a bias: tensors llama.cpp applies element-wise. */
static void elementwise_type(gguflint_ctx *ctx, const gguflint_tensor *t, unsigned dims)
{
    bool quant = ggt_quantized(t->type);
    if (!quant && t->type != 1 && t->type != 30 && t->type != 28 /* F16, BF16, F64 */)
        return;
    bool bias = ends_with(t->name, ".bias");
    bool norm = t->name.len <= MAX_CLASSIFIED_NAME &&
                (contains(t->name, "_norm.weight") || contains(t->name, ".norm"));
    /* the SSM state tensors go to ggml_ssm_conv / ggml_ssm_scan, which read
     * them as F32 whatever their shape */
    bool ssm = t->name.len <= MAX_CLASSIFIED_NAME &&
               (ends_with(t->name, ".ssm_a") || ends_with(t->name, ".ssm_d") ||
                contains(t->name, ".ssm_conv1d.weight"));
    /* a 1-D router (qwen2moe's ffn_gate_inp_shexp) is a matrix product */
    bool router = t->name.len <= MAX_CLASSIFIED_NAME && contains(t->name, "_gate_inp");
    if (!((dims < 2 && !router) || bias || norm || ssm))
        return;
    char shown[160], path[48];
    esc_fixed(shown, sizeof shown, t->name.ptr, t->name.len, 100);
    snprintf(path, sizeof path, "tensor[%zu].type", tensor_index_of(ctx, t));
    const char *what = norm ? "a norm" : bias ? "a bias" : ssm ? "an SSM state tensor" : "1-D";
    if (quant)
        emit(ctx, R_UNEXPECTED_QUANTIZED, wire_ti_type_off(model_width(ctx), t), 4, path,
             "tensor '%s' is %s but stored as %s: converters and llama-quantize keep 1-D "
             "tensors, norms and biases in F32",
             shown, dims < 2 ? "1-D" : what, gt_info(t->type)->name);
    else
        emit(ctx, R_ELEMENTWISE_NOT_F32, wire_ti_type_off(model_width(ctx), t), 4, path,
             "tensor '%s' is %s stored as %s: llama.cpp applies it to F32 activations "
             "element-wise (ggml_mul / ggml_add) and its CPU backend aborts the process at "
             "the first decode (binary_op: unsupported types)",
             shown, what, gt_info(t->type)->name);
}

/* GG511 and GG534 for one tensor, and its classification. */
static uint8_t classify(gguflint_ctx *ctx, const gguflint_tensor *t, bool has_output)
{
    if (t->n_dims > 4 || gt_info(t->type)->status != GT_VALID)
        return 0;
    unsigned dims = ft_eff_dims(t->ne);
    elementwise_type(ctx, t, dims);
    if (t->name.len > MAX_CLASSIFIED_NAME ||
        !ft_quantizable(t->name.ptr, (size_t)t->name.len, dims))
        return 0;
    ft_role role = ft_role_of(t->name.ptr, (size_t)t->name.len, has_output);
    return (uint8_t)(CLS_WEIGHT | (unsigned)role);
}

/* How the quantizable weights fit file type ft. */
static verdict judge(const gguflint_ctx *ctx, const weights *w, const ftype_info *ft)
{
    verdict v = {0, 0};
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        uint8_t c = w->cls[i];
        if (!(c & CLS_WEIGHT) || (c & CLS_ROLE) >= FTR__MIXED)
            continue;
        const gguflint_tensor *t = &ctx->tensors[i];
        double n = elements(t);
        v.total += n;
        if (!(ft_allowed(ft, (ft_role)(c & CLS_ROLE), t->ne[0], t->ne[2]) & TS(t->type)))
            v.bad += n;
    }
    return v;
}

/* "q8_0 x112, f16 x2" (most frequent first, at most 6 types). */
static void histogram(char *buf, size_t cap, const weights *w)
{
    bool used[64] = {false};
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned shown = 0; shown < 6; shown++) {
        int best = -1;
        for (int t = 0; t < 64; t++)
            if (!used[t] && w->hist[t] && (best < 0 || w->hist[t] > w->hist[best]))
                best = t;
        if (best < 0)
            return;
        used[best] = true;
        int k = snprintf(buf + n, cap - n, "%s%s x%u", n ? ", " : "", gt_info((uint32_t)best)->name,
                         (unsigned)w->hist[best]);
        if (k < 0 || (size_t)k >= cap - n)
            return;
        n += (size_t)k;
    }
    for (int t = 0; t < 64; t++) {
        if (!used[t] && w->hist[t]) {
            snprintf(buf + n, cap - n, ", ...");
            return;
        }
    }
}

/* The file type llama.cpp would guess from the most frequent weight type. */
static const ftype_info *guess(const weights *w)
{
    int best = -1;
    for (int t = 0; t < 64; t++)
        if (w->hist[t] && (best < 0 || w->hist[t] > w->hist[best]))
            best = t;
    return best < 0 ? NULL : ft_guess((uint32_t)best);
}

static void report_mismatch(gguflint_ctx *ctx, const gguflint_kv *kv, const ftype_info *ft,
                            const weights *w, verdict v)
{
    char path[192], hist[256], like[96] = "";
    kv_path(path, sizeof path, kv);
    histogram(hist, sizeof hist, w);
    const ftype_info *g = guess(w);
    if (g && g != ft)
        snprintf(like, sizeof like, "; they look like file type %u (%s)", g->value, g->display);
    emit(ctx, R_FILE_TYPE_MISMATCH, kv->value_offset, 4, path,
         "file_type %u (%s) but 2-D weights are %s: %.0f%% of the parameters outside "
         "token_embd/output are in types that file type never produces (default %s)%s",
         ft->value, ft->display, hist, 100.0 * v.bad / v.total, gt_info(ft->default_type)->name,
         like);
}

static void check_name_tag(gguflint_ctx *ctx, const gguflint_kv *fk, const ftype_info *declared,
                           bool declared_fits, const weights *w)
{
    size_t at = 0, len = 0;
    const ftype_tag *tag = ft_tag_in_name(ctx->name, &at, &len);
    if (!tag)
        return;
    char shown[96];
    esc_fixed(shown, sizeof shown, (const uint8_t *)ctx->name + at, len, 32);
    /* Does some file type the tag names describe the tensors? */
    bool tag_fits = false;
    uint32_t tag_ft = 0;
    for (uint32_t f = 0; f < 64; f++) {
        if (!(tag->ftypes & ((uint64_t)1 << f)))
            continue;
        if (!tag_fits)
            tag_ft = f;
        if (fits(judge(ctx, w, ft_info(f)))) {
            tag_fits = true;
            tag_ft = f;
        }
    }
    const ftype_info *tf = ft_info(tag_ft);
    if (!tf)
        return;
    if (fk && fk->type == VT_UINT32) {
        uint64_t base = fk->u & ~(uint64_t)FT_GUESSED;
        if (base < 64 && (tag->ftypes & ((uint64_t)1 << base)))
            return;
        /* the name describes the tensors and the file type does not: GG510 blames
         * the file type */
        if (declared && !declared_fits && tag_fits)
            return;
        char path[192];
        kv_path(path, sizeof path, fk);
        const ftype_info *ft = ft_info((uint32_t)base);
        emit(ctx, R_FILE_NAME_TAG_MISMATCH, fk->value_offset, 4, path,
             "the file name says %s (file type %u, %s) but general.file_type is %llu (%s); "
             "readers go by the metadata",
             shown, tf->value, tf->display, (unsigned long long)base, ft ? ft->display : "unknown");
    } else if (!fk && w->n_checked > 0 && !tag_fits) {
        char hist[256];
        histogram(hist, sizeof hist, w);
        emit(ctx, R_FILE_NAME_TAG_MISMATCH, 0, 0, "file name",
             "the file name says %s (file type %u, %s) but 2-D weights are %s, which that "
             "file type does not produce",
             shown, tf->value, tf->display, hist);
    }
}

void check_filetype(gguflint_ctx *ctx)
{
    if (ctx->n_tensors == 0) /* vocab-only files carry file_type 1 with no tensors */
        return;
    weights w;
    memset(&w, 0, sizeof w);
    w.cls = gl_malloc(ctx->n_tensors);
    if (!w.cls) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    bool has_output = tensor_by_name(ctx, "output.weight") != NULL;
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        uint8_t c = classify(ctx, &ctx->tensors[i], has_output);
        w.cls[i] = c;
        if (c & CLS_WEIGHT) {
            w.n_weights++;
            w.hist[ctx->tensors[i].type & 63u]++;
            if ((c & CLS_ROLE) < FTR__MIXED)
                w.n_checked++;
        }
    }
    const gguflint_kv *fk = kv_by_key(ctx, "general.file_type");
    const ftype_info *declared = NULL;
    bool declared_fits = true;
    if (fk && fk->type == VT_UINT32 && ctx->status == GGUFLINT_OK) {
        declared = ft_info((uint32_t)(fk->u & ~(uint64_t)FT_GUESSED));
        if (fk->u > UINT32_MAX || !declared || declared->status != FT_CURRENT)
            declared = NULL;
    }
    if (declared && w.n_checked > 0) {
        verdict v = judge(ctx, &w, declared);
        declared_fits = fits(v);
        if (!declared_fits)
            report_mismatch(ctx, fk, declared, &w, v);
    }
    if (ctx->status == GGUFLINT_OK)
        check_name_tag(ctx, fk, declared, declared_fits, &w);
    gl_free(w.cls);
}

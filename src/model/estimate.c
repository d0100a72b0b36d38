/* estimate.c - the memory estimate of model/estimate.h, following how
 * llama.cpp 3f545bec (2026-08-22) sizes its buffers (facts, not code):
 * the context is padded to 256 cells (llama-context.cpp); a KV layer holds
 * n_embd_head_k(il) * n_head_kv(il) K values and the same for V per cell,
 * MLA layers no V (llama-kv-cache.cpp); a sliding-window layer holds
 * min(n_ctx, pad256(n_swa + n_ubatch)) cells (llama-kv-cache-iswa.cpp); a
 * recurrent layer one f32 conv state of n_embd_r and one of n_embd_s values
 * (llama-hparams.cpp, llama-memory-recurrent.cpp); the output buffer holds
 * the logits of n_seq_max (1) outputs at start (llama-context.cpp
 * output_reserve). */
#include "model/estimate.h"

#include "common/ckd.h"

#include <string.h>

typedef enum { W_ALWAYS, W_KEY } swa_when;
typedef enum { H_DEFAULT, H_BOTH, H_FF0 } hybrid_layout;
typedef struct mem_hybrid {
    const char *arch;
    uint8_t layout;
} mem_hybrid;
typedef struct mem_swa {
    const char *arch;
    uint8_t when;
    uint32_t period;
    bool dense_first;
    uint32_t window;
} mem_swa;

typedef struct mem_act {
    const char *arch;
    uint32_t per_token; /* MEM_ACT; MEM_LA: the ubatch x ubatch matrices per head */
} mem_act;

/* Each table includes memory.def with one row macro defined, the others
 * empty. */
/* clang-format off */
#define ALWAYS W_ALWAYS
#define KEY W_KEY
#define DEFAULT H_DEFAULT
#define BOTH H_BOTH
#define FF0 H_FF0
#define MEM_SWA(a, w, p, d, n)
#define MEM_RECURRENT(a)
#define MEM_HYBRID(a, l)
#define MEM_NONE(a)
#define MEM_ACT(a, n)
#define MEM_LA(a, n)
#undef MEM_SWA
#define MEM_SWA(a, w, p, d, n) {a, w, p, d, n},
static const mem_swa mem_swa_rows[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_SWA
#define MEM_SWA(a, w, p, d, n)
#undef MEM_RECURRENT
#define MEM_RECURRENT(a) a,
static const char *const mem_recurrent[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_RECURRENT
#define MEM_RECURRENT(a)
#undef MEM_HYBRID
#define MEM_HYBRID(a, l) {a, l},
static const mem_hybrid mem_hybrid_rows[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_HYBRID
#define MEM_HYBRID(a, l)
#undef MEM_NONE
#define MEM_NONE(a) a,
static const char *const mem_none[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_NONE
#define MEM_NONE(a)
#undef MEM_ACT
#define MEM_ACT(a, n) {a, n},
static const mem_act mem_act_rows[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_ACT
#define MEM_ACT(a, n)
#undef MEM_LA
#define MEM_LA(a, n) {a, n},
static const mem_act mem_la_rows[] = {
#include "../../data/llama/memory.def"
};
#undef MEM_SWA
#undef MEM_RECURRENT
#undef MEM_HYBRID
#undef MEM_NONE
#undef MEM_ACT
#undef MEM_LA
#undef ALWAYS
#undef KEY
#undef DEFAULT
#undef BOTH
#undef FF0
/* clang-format on */

static bool in_list(const char *const *l, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(l[i], name) == 0)
            return true;
    return false;
}

/* Sums and products saturate at UINT64_MAX and say so in e. */
static uint64_t saturate(estimate *e)
{
    e->saturated = true;
    return UINT64_MAX;
}

static uint64_t add(estimate *e, uint64_t a, uint64_t b)
{
    uint64_t r;
    return ckd_add64(&r, a, b) ? saturate(e) : r;
}

static uint64_t mul(estimate *e, uint64_t a, uint64_t b)
{
    uint64_t r;
    return ckd_mul64(&r, a, b) ? saturate(e) : r;
}

static uint64_t pad256(estimate *e, uint64_t x)
{
    uint64_t r;
    if (ckd_align64(&r, x, 256)) {
        e->saturated = true;
        return UINT64_MAX;
    }
    return r;
}

/* Bytes of n elements of ggml type t (ggml_row_size). */
static uint64_t row_bytes(estimate *e, uint32_t t, uint64_t n)
{
    const ggml_type_info *ti = gt_info(t);
    if (ti->block == 0)
        return 0;
    if (n % ti->block)
        e->notes |= EST_N_CACHE_BLOCK;
    return mul(e, n / ti->block + (n % ti->block != 0), ti->size);
}

/* A scalar [arch].suffix as u64 (0 when absent, negative or not an integer). */
static uint64_t akey(arch_env *env, const char *suffix, uint64_t dflt)
{
    const gguflint_kv *kv = kv_by_arch_key(env->ctx, env->arch_name, env->arch_len, suffix);
    int64_t v;
    if (!kv)
        return dflt;
    return kv_int(kv, &v) && v >= 0 ? (uint64_t)v : 0;
}

static uint64_t lval(const arch_layers *l, uint32_t il, bool *ok)
{
    arch_val v = arch_layer_value(l, il);
    if (!v.known || v.v < 0) {
        *ok = false;
        return 0;
    }
    return (uint64_t)v.v;
}

static uint64_t sval(arch_val v, bool *ok)
{
    if (!v.known || v.v < 0) {
        *ok = false;
        return 0;
    }
    return (uint64_t)v.v;
}

/* Which layers slide: a per-layer array, else the architecture's pattern. */
static bool layer_slides(arch_env *env, const mem_swa *m, uint64_t period, uint32_t il)
{
    if (env->swa.is_array) {
        arch_val v = arch_layer_value(&env->swa, il);
        return v.known && v.v != 0;
    }
    if (!m)
        return false;
    if (period == 0)
        return true;
    return m->dense_first ? il % period != 0 : il % period < period - 1;
}

/* A state key as llama.cpp's hparams hold it: the file's value when the
 * architecture's loader reads the key (the generated key table), else the
 * member's default - a key the loader ignores does not size anything. */
static uint64_t lkey(arch_env *env, const char *suffix, uint64_t dflt)
{
    const arch_info *ai = env->arch;
    for (uint32_t i = ai->key_first; i < (uint32_t)ai->key_first + ai->key_count; i++)
        if (strcmp(arch_str(arch_keys[i].suffix), suffix) == 0)
            return akey(env, suffix, dflt);
    return dflt;
}

/* The recurrent state of one layer in f32 values, as llama-hparams.cpp's
 * n_embd_r() / n_embd_s() choose it: RWKV (wkv.head_size: token_shift_count
 * x n_embd, n_embd x head size), LFM2's short convolution (n_embd x
 * (l_cache - 1)), Kimi's KDA (3 x (conv_kernel - 1, else 3) x n_head x
 * head_dim, head_dim^2 x n_head), linear attention (memory.def MEM_LA: the
 * attention head size squared x n_head), else mamba's convolution and SSM
 * states. llama.cpp computes both in 32 bits: a larger row wraps there. */
static void rs_layer(arch_env *env, estimate *e, est_layer *L, bool la)
{
    uint64_t n_embd = e->n_embd;
    uint64_t wkv = lkey(env, "wkv.head_size", 0), lc = lkey(env, "shortconv.l_cache", 0);
    uint64_t kda = lkey(env, "kda.head_dim", 0);
    uint64_t conv = lkey(env, "ssm.conv_kernel", 0), st = lkey(env, "ssm.state_size", 0);
    uint64_t inner = lkey(env, "ssm.inner_size", 0), groups = lkey(env, "ssm.group_count", 0);
    bool hok = true;
    uint64_t n_head = kda || la ? lval(&env->head, 0, &hok) : 0;
    uint64_t hla = la ? sval(env->head_k, &hok) : 0;
    if (!hok)
        e->notes |= EST_N_HEADS_UNKNOWN;
    uint64_t r, s;
    if (wkv)
        r = mul(e, lkey(env, "token_shift_count", 2), n_embd);
    else if (lc)
        r = mul(e, n_embd, lc - 1);
    else if (kda)
        r = mul(e, mul(e, 3, conv ? conv - 1 : 3), mul(e, n_head, kda));
    else
        r = mul(e, conv ? conv - 1 : 0, add(e, inner, mul(e, 2, mul(e, groups, st))));
    if (wkv)
        s = mul(e, n_embd, wkv);
    else if (kda)
        s = mul(e, mul(e, kda, kda), n_head);
    else if (hla)
        s = mul(e, mul(e, hla, hla), n_head);
    else
        s = mul(e, st, inner);
    if (r > UINT32_MAX || s > UINT32_MAX)
        e->notes |= EST_N_RS_WRAPS;
    L->r = mul(e, r, 4); /* f32, one sequence */
    L->s = mul(e, s, 4);
}

static void weights(const gguflint_ctx *ctx, estimate *e)
{
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint32_t k = t->type < GGML_TYPE_TABLE_COUNT ? t->type : GGML_TYPE_TABLE_COUNT;
        uint64_t b = t->size_ok ? t->nbytes : 0;
        e->by_type[k] = add(e, e->by_type[k], b);
        e->count_by_type[k]++;
        e->weights = add(e, e->weights, b);
        e->tensors++;
    }
}

void estimate_run(gguflint_ctx *ctx, arch_env *env, estimate *e, uint64_t n_ctx, uint64_t n_batch,
                  uint64_t n_ubatch, uint32_t type_k, uint32_t type_v)
{
    memset(e, 0, sizeof *e);
    e->memory = "none";
    e->n_ctx_req = n_ctx;
    e->type_k = type_k;
    e->type_v = type_v;
    /* llama_context: n_ctx padded to 256; n_batch at most n_ctx, n_ubatch
     * at most n_batch (causal models) */
    e->n_ctx = pad256(e, n_ctx);
    e->n_batch = n_batch ? n_batch : 2048;
    if (e->n_batch > n_ctx) /* before the padding */
        e->n_batch = n_ctx;
    e->n_ubatch = n_ubatch ? n_ubatch : 512;
    if (e->n_ubatch > e->n_batch)
        e->n_ubatch = e->n_batch;
    weights(ctx, e);

    const gguflint_kv *a = kv_by_key(ctx, "general.architecture");
    gguflint_view an;
    char name[64];
    const arch_info *ai = NULL;
    if (a && kv_str(a, &an) && an.len < sizeof name) {
        ai = arch_find(an.ptr, (size_t)an.len);
        view_cstr(name, sizeof name, an);
    }
    if (!ai || strlen(name) != an.len) {
        e->notes |= EST_N_UNKNOWN_ARCH;
        e->total = e->weights;
        return;
    }
    arch_env_init(env, ctx, ai, name);
    bool ok = true;
    e->n_embd = sval(arch_sym_value(env, SYM_n_embd), &ok);
    arch_val voc = arch_sym_value(env, SYM_n_vocab);
    e->n_vocab = voc.known && voc.v > 0 ? (uint64_t)voc.v : 0;
    uint64_t n_layer = akey(env, "block_count", 0);
    uint64_t cap = ctx->n_tensors < ARCH_MAX_LAYERS ? ctx->n_tensors : ARCH_MAX_LAYERS;
    if (n_layer > cap) {
        e->notes |= EST_N_LAYERS_CAPPED;
        n_layer = cap;
    }
    e->n_layer = (uint32_t)n_layer;

    bool none = in_list(mem_none, sizeof mem_none / sizeof mem_none[0], name);
    if (none)
        e->n_layer = 0; /* no memory module: no cache */
    bool recurrent = in_list(mem_recurrent, sizeof mem_recurrent / sizeof mem_recurrent[0], name);
    const mem_hybrid *hy = NULL;
    for (size_t i = 0; i < sizeof mem_hybrid_rows / sizeof mem_hybrid_rows[0]; i++)
        if (strcmp(mem_hybrid_rows[i].arch, name) == 0)
            hy = &mem_hybrid_rows[i];
    bool hybrid = hy != NULL;
    const mem_act *la_row = NULL;
    for (size_t i = 0; i < sizeof mem_la_rows / sizeof mem_la_rows[0]; i++)
        if (strcmp(mem_la_rows[i].arch, name) == 0)
            la_row = &mem_la_rows[i];
    bool la = la_row != NULL;
    /* is_recurrent(il): the architecture table's formula */
    const char *rec_rpn = arch_str(ai->recurrent);
    if (hybrid && env->recurrent_array)
        e->notes |= EST_N_RECURRENT_ARRAY;
    const mem_swa *m = NULL;
    for (size_t i = 0; i < sizeof mem_swa_rows / sizeof mem_swa_rows[0]; i++)
        if (strcmp(mem_swa_rows[i].arch, name) == 0)
            m = &mem_swa_rows[i];
    const gguflint_kv *win = kv_by_arch_key(ctx, name, an.len, "attention.sliding_window");
    uint64_t window = akey(env, "attention.sliding_window", m ? m->window : 0);
    if (m && m->when == W_KEY && (!win || window == 0))
        m = NULL;
    uint64_t period = m ? akey(env, "attention.sliding_window_pattern", m->period) : 0;
    bool swa_layers = m || env->swa.is_array;
    if (!swa_layers && win && window > 0)
        e->notes |= EST_N_SWA_UNMODELLED;
    e->n_swa = swa_layers ? window : 0;
    e->mla = akey(env, "attention.key_length_mla", 0) && akey(env, "attention.value_length_mla", 0);
    uint64_t swa_cells = 0;
    if (swa_layers) {
        swa_cells = pad256(e, add(e, window, e->n_ubatch));
        if (swa_cells > e->n_ctx)
            swa_cells = e->n_ctx;
    }
    e->memory = none         ? "none"
                : recurrent  ? "recurrent"
                : hybrid     ? "hybrid"
                : swa_layers ? "iswa"
                             : "kv";

    for (uint32_t il = 0; il < e->n_layer; il++) {
        est_layer *L = &e->layer[il];
        bool lok = true;
        uint64_t hkv = lval(&env->head_kv, il, &lok);
        bool rec = recurrent, attn = !recurrent;
        if (hybrid) {
            arch_val r = rec_rpn[0] ? arch_eval(env, rec_rpn, il, 0) : (arch_val){0, false};
            bool is_rec = r.known ? r.v != 0 : lok && hkv == 0;
            rec = hy->layout == H_BOTH || is_rec;
            attn = hy->layout == H_BOTH || !is_rec;
            bool fok = true;
            if (hy->layout == H_FF0 && lval(&env->ff, il, &fok) != 0)
                rec = attn = false; /* a feed-forward layer keeps neither */
        }
        L->kind = EST_NONE;
        if (rec) {
            rs_layer(env, e, L, la);
            e->rs_r = add(e, e->rs_r, L->r);
            e->rs_s = add(e, e->rs_s, L->s);
            L->kind = EST_RS;
        }
        if (!attn)
            continue;
        bool slides = swa_layers && layer_slides(env, m, period, il);
        uint64_t hk = sval(slides ? env->head_k_swa : env->head_k, &lok);
        uint64_t hv = sval(slides ? env->head_v_swa : env->head_v, &lok);
        if (!lok)
            e->notes |= EST_N_HEADS_UNKNOWN;
        L->kind = rec ? EST_BOTH : slides ? EST_SWA : EST_ATTN;
        L->cells = slides ? swa_cells : e->n_ctx;
        L->k = mul(e, row_bytes(e, type_k, mul(e, hk, hkv)), L->cells);
        L->v = e->mla ? 0 : mul(e, row_bytes(e, type_v, mul(e, hv, hkv)), L->cells);
        e->kv_k = add(e, e->kv_k, L->k);
        e->kv_v = add(e, e->kv_v, L->v);
    }
    e->output = mul(e, e->n_vocab, 4);
    /* compute buffer (rough, fitted to llama.cpp's CPU graphs with flash
     * attention, its default there): one f16 attention mask of cells x
     * ubatch per cache (full, sliding-window), plus the ubatch's logits and
     * about four activations of n_embd floats per token */
    bool any_full = false, any_swa = false;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        any_full |= e->layer[il].kind == EST_ATTN || e->layer[il].kind == EST_BOTH;
        any_swa |= e->layer[il].kind == EST_SWA;
    }
    uint64_t mask_cells = add(e, any_full ? e->n_ctx : 0, any_swa ? swa_cells : 0);
    e->compute = mul(e, mul(e, mask_cells, e->n_ubatch), 2);
    uint64_t act = add(e, e->n_vocab, mul(e, 4, e->n_embd));
    e->compute = add(e, e->compute, mul(e, mul(e, e->n_ubatch, act), 4));
    /* linear attention's ubatch x ubatch matrices per head (MEM_LA) */
    if (la_row && e->rs_s) {
        bool hok = true;
        uint64_t sq = mul(e, mul(e, e->n_ubatch, e->n_ubatch), lval(&env->head, 0, &hok));
        e->compute = add(e, e->compute, mul(e, mul(e, sq, la_row->per_token), 4));
    }
    /* an architecture whose layers peak above that (memory.def MEM_ACT) */
    for (size_t i = 0; i < sizeof mem_act_rows / sizeof mem_act_rows[0]; i++) {
        if (strcmp(mem_act_rows[i].arch, name) != 0)
            continue;
        uint64_t peak =
            mul(e, mul(e, mul(e, e->n_ubatch, mem_act_rows[i].per_token), e->n_embd), 4);
        if (peak > e->compute)
            e->compute = peak;
    }
    e->total = add(e, add(e, add(e, e->weights, e->kv_k), add(e, e->kv_v, e->rs_r)),
                   add(e, add(e, e->rs_s, e->output), e->compute));
}

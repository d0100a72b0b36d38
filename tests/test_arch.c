/* test_arch.c - the architecture rules (GG540-GG569, data/arch.def): tiny
 * llama and qwen2 models built with the gguf_builder (E = 32, L = 2, small
 * vocabulary, f32/f16 tensors with zero data at contiguous padded offsets)
 * that must get no finding from these rules, then one variant per rule that
 * must get exactly that rule at exactly the offending field's offset. The
 * shapes here are written out independently of the tables in data/arch/, from
 * GGUF-REFERENCE.md 7.3, so the tables are tested rather than restated. */
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

/* ------------------------------------------------------------------ linting */

static gguflint_ctx *lint(const uint8_t *buf, size_t len, const gguflint_options *opt)
{
    return ex_lint_opt(buf, len, opt, NULL);
}

/* A rule of this suite: GG540 .. GG569. */
static bool arch_rule(const char *id)
{
    return strncmp(id, "GG5", 3) == 0 && strlen(id) == 5 && id[3] >= '4' && id[3] <= '6';
}

/* No finding of GG540..GG569. */
static void assert_arch_clean_at(const uint8_t *buf, size_t len, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, NULL);
    bool bad = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        bad |= arch_rule(ex_id(gguflint_finding_get(ctx, i)));
    if (bad) {
        print_message("%s: expected no GG54x-GG56x finding\n", where);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: arch findings on a clean model", where);
    }
    gguflint_free(ctx);
}
#define assert_arch_clean(buf, len) assert_arch_clean_at(buf, len, __func__)

/* A finding of `id` at `offset`, and no finding of another GG540..GG569 rule
 * (a variant must trigger only the rule it is about). */
static void assert_arch_only_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                                const char *id, uint64_t offset, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t at = 0;
    bool other = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const char *got = ex_id(f);
        if (strcmp(got, id) == 0)
            at += f->offset == offset;
        else if (arch_rule(got))
            other = true;
    }
    if (at == 0 || other) {
        print_message("%s: expected %s at offset %llu%s\n", where, id, (unsigned long long)offset,
                      other ? " and no other arch rule" : "");
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: %s", where, at == 0 ? "missing finding" : "unexpected arch finding");
    }
    gguflint_free(ctx);
}
#define assert_arch_only(buf, len, id, offset)                                                     \
    assert_arch_only_at(buf, len, NULL, id, offset, __func__)

/* Number of findings of `id`. */
static size_t count_of_opt(const uint8_t *buf, size_t len, const gguflint_options *opt,
                           const char *id)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t n = ex_count(ctx, id);
    gguflint_free(ctx);
    return n;
}

static size_t count_of(const uint8_t *buf, size_t len, const char *id)
{
    return count_of_opt(buf, len, NULL, id);
}

/* The finding of `id` (first one) has this severity. */
static void assert_severity(const uint8_t *buf, size_t len, const char *id, gguflint_severity s)
{
    gguflint_ctx *ctx = lint(buf, len, NULL);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), id) == 0) {
            assert_int_equal(f->severity, s);
            gguflint_free(ctx);
            return;
        }
    }
    ex_print_findings(NULL, ctx);
    gguflint_free(ctx);
    fail_msg("no %s finding", id);
}

/* ------------------------------------------------------------ the models */

enum { LAYOUT_NONE, LAYOUT_LLAMA, LAYOUT_QWEN2 };

#define MAXKV 48
#define MAXT 96

typedef struct tdef {
    char name[64];
    uint32_t nd;
    uint64_t ne[4];
} tdef;

typedef struct mspec mspec;
struct mspec {
    const char *arch; /* general.architecture */
    int layout;       /* the tensors written */
    uint32_t version; /* 0: 3 */
    uint32_t E, L, H, Hkv, F, X, Xused, V;
    uint32_t Dk;          /* 0: key_length/value_length not written (E / H) */
    bool tied;            /* no output.weight */
    bool no_hparams;      /* only general.architecture and the tokenizer */
    bool no_tokens;       /* no tokenizer.* keys */
    const char *omit_key; /* a key not written */
    const char *omit_tensor;
    void (*kv_hook)(gb *b, const mspec *m); /* more KVs, after the standard ones */
    tdef extra[4];                          /* more tensors, after the standard ones */
    size_t n_extra;
    tdef reshape;                   /* replaces the shape of the tensor of that name */
    bool keep_layer0_only;          /* a split shard: only global and blk.0 tensors */
    uint16_t split_no, split_count; /* split.* keys when split_count > 0 */
    bool keep_none;                 /* tensors: none at all */
};

typedef struct mark {
    char name[64];
    gb_marks m;
} mark;

static mark kv_marks[MAXKV], t_marks[MAXT];
static size_t n_kv_marks, n_t_marks;

static void mark_kv(gb *b, const char *key)
{
    assert_true(n_kv_marks < MAXKV);
    snprintf(kv_marks[n_kv_marks].name, sizeof kv_marks[0].name, "%s", key);
    kv_marks[n_kv_marks++].m = *gb_last(b);
}

/* The marks of a KV / tensor written by the last build_model (fails the
 * test when there is none; never NULL). */
static const gb_marks no_marks;

static const gb_marks *kvm(const char *key)
{
    for (size_t i = 0; i < n_kv_marks; i++)
        if (strcmp(kv_marks[i].name, key) == 0)
            return &kv_marks[i].m;
    fail_msg("no KV %s was written", key);
    return &no_marks;
}

static const gb_marks *tm(const char *name)
{
    for (size_t i = 0; i < n_t_marks; i++)
        if (strcmp(t_marks[i].name, name) == 0)
            return &t_marks[i].m;
    fail_msg("no tensor %s was written", name);
    return &no_marks;
}

/* "<arch>.<suffix>" */
static const char *ak(const mspec *m, const char *suffix)
{
    static char buf[4][128];
    static int next;
    char *p = buf[next++ & 3];
    snprintf(p, sizeof buf[0], "%s.%s", m->arch, suffix);
    return p;
}

static bool omitted(const mspec *m, const char *key)
{
    return m->omit_key && strcmp(m->omit_key, key) == 0;
}

static void kv_u32(gb *b, const mspec *m, const char *suffix, uint32_t v)
{
    const char *key = ak(m, suffix);
    if (omitted(m, key))
        return;
    gb_kv_u32(b, key, v);
    mark_kv(b, key);
}

static void kv_f32(gb *b, const mspec *m, const char *suffix, float v)
{
    const char *key = ak(m, suffix);
    if (omitted(m, key))
        return;
    gb_kv_f32(b, key, v);
    mark_kv(b, key);
}

static void add_t(tdef *t, size_t *n, const char *name, uint32_t nd, uint64_t a, uint64_t b2,
                  uint64_t c)
{
    assert_true(*n < MAXT);
    tdef *d = &t[(*n)++];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->nd = nd;
    d->ne[0] = a;
    d->ne[1] = b2;
    d->ne[2] = c;
    d->ne[3] = 1;
}

static void add_l(tdef *t, size_t *n, uint32_t l, const char *name, uint32_t nd, uint64_t a,
                  uint64_t b2, uint64_t c)
{
    char full[64];
    snprintf(full, sizeof full, "blk.%u.%s", l, name);
    add_t(t, n, full, nd, a, b2, c);
}

/* The tensors of the model, shapes from GGUF-REFERENCE.md 7.3. */
static size_t model_tensors(const mspec *m, tdef *t)
{
    size_t n = 0;
    if (m->layout == LAYOUT_NONE || m->keep_none)
        return 0;
    uint64_t E = m->E, V = m->V, F = m->F, X = m->X;
    uint64_t Dk = m->Dk ? m->Dk : m->E / m->H;
    uint64_t Hkv = m->Hkv ? m->Hkv : m->H;
    add_t(t, &n, "token_embd.weight", 2, E, V, 1);
    add_t(t, &n, "output_norm.weight", 1, E, 1, 1);
    if (!m->tied)
        add_t(t, &n, "output.weight", 2, E, V, 1);
    for (uint32_t l = 0; l < m->L; l++) {
        if (m->keep_layer0_only && l > 0)
            break;
        add_l(t, &n, l, "attn_norm.weight", 1, E, 1, 1);
        if (m->layout == LAYOUT_LLAMA) {
            add_l(t, &n, l, "attn_q.weight", 2, E, Dk * m->H, 1);
            add_l(t, &n, l, "attn_k.weight", 2, E, Dk * Hkv, 1);
            add_l(t, &n, l, "attn_v.weight", 2, E, Dk * Hkv, 1);
            add_l(t, &n, l, "attn_output.weight", 2, Dk * m->H, E, 1);
        } else {
            add_l(t, &n, l, "attn_q.weight", 2, E, E, 1);
            add_l(t, &n, l, "attn_k.weight", 2, E, Dk * Hkv, 1);
            add_l(t, &n, l, "attn_v.weight", 2, E, Dk * Hkv, 1);
            add_l(t, &n, l, "attn_output.weight", 2, E, E, 1);
            add_l(t, &n, l, "attn_q.bias", 1, E, 1, 1);
            add_l(t, &n, l, "attn_k.bias", 1, Dk * Hkv, 1, 1);
            add_l(t, &n, l, "attn_v.bias", 1, Dk * Hkv, 1, 1);
        }
        add_l(t, &n, l, "ffn_norm.weight", 1, E, 1, 1);
        if (X == 0) {
            add_l(t, &n, l, "ffn_gate.weight", 2, E, F, 1);
            add_l(t, &n, l, "ffn_down.weight", 2, F, E, 1);
            add_l(t, &n, l, "ffn_up.weight", 2, E, F, 1);
        } else {
            add_l(t, &n, l, "ffn_gate_inp.weight", 2, E, X, 1);
            add_l(t, &n, l, "ffn_gate_exps.weight", 3, E, F, X);
            add_l(t, &n, l, "ffn_down_exps.weight", 3, F, E, X);
            add_l(t, &n, l, "ffn_up_exps.weight", 3, E, F, X);
        }
    }
    return n;
}

typedef struct model {
    uint8_t *buf;
    size_t len;
} model;

static model build_model(const mspec *m)
{
    static char tok_text[256][16];
    static const char *toks[256];
    static float scores[256];
    static int32_t types[256];
    tdef t[MAXT];
    model r = {NULL, 0};
    n_kv_marks = n_t_marks = 0;

    gb *b = gb_new(m->version ? m->version : 3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", m->arch);
    mark_kv(b, "general.architecture");
    gb_kv_str(b, "general.name", "gguflint arch test");
    if (!m->no_hparams) {
        kv_u32(b, m, "context_length", 128);
        kv_u32(b, m, "embedding_length", m->E);
        kv_u32(b, m, "block_count", m->L);
        kv_u32(b, m, "feed_forward_length", m->F);
        kv_u32(b, m, "attention.head_count", m->H);
        if (m->Hkv)
            kv_u32(b, m, "attention.head_count_kv", m->Hkv);
        kv_f32(b, m, "attention.layer_norm_rms_epsilon", 1e-5f);
        kv_f32(b, m, "rope.freq_base", 10000.0f);
        if (m->Dk) {
            kv_u32(b, m, "attention.key_length", m->Dk);
            kv_u32(b, m, "attention.value_length", m->Dk);
        }
        if (m->layout == LAYOUT_LLAMA)
            kv_u32(b, m, "rope.dimension_count", m->Dk ? m->Dk : m->E / m->H);
        if (m->X) {
            kv_u32(b, m, "expert_count", m->X);
            kv_u32(b, m, "expert_used_count", m->Xused);
        }
    }
    if (m->split_count) {
        gb_kv_u16(b, "split.no", m->split_no);
        mark_kv(b, "split.no");
        gb_kv_u16(b, "split.count", m->split_count);
        mark_kv(b, "split.count");
        gb_kv_i32(b, "split.tensors.count", 100);
        mark_kv(b, "split.tensors.count");
    }
    if (!m->no_tokens) {
        assert_true(m->V >= 3 && m->V <= 256);
        for (uint32_t i = 0; i < m->V; i++) {
            snprintf(tok_text[i], sizeof tok_text[i], "t%u", i);
            toks[i] = i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : tok_text[i];
            scores[i] = -(float)i;
            types[i] = i == 0 ? 2 : i < 3 ? 3 : 1;
        }
        gb_kv_str(b, "tokenizer.ggml.model", "llama");
        gb_kv_arr_str(b, "tokenizer.ggml.tokens", toks, m->V);
        gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, m->V, scores, m->V * sizeof scores[0]);
        gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, m->V, types, m->V * sizeof types[0]);
        gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
        gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    }
    if (m->kv_hook)
        m->kv_hook(b, m);

    size_t n = model_tensors(m, t);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (m->omit_tensor && strcmp(t[i].name, m->omit_tensor) == 0)
            continue;
        if (m->reshape.name[0] && strcmp(t[i].name, m->reshape.name) == 0)
            t[i] = m->reshape;
        t[k++] = t[i];
    }
    for (size_t i = 0; i < m->n_extra; i++) {
        assert_true(k < MAXT);
        t[k++] = m->extra[i];
    }
    uint64_t off = 0, sizes[MAXT];
    for (size_t i = 0; i < k; i++) {
        uint32_t type = t[i].nd == 1 ? GB_F32 : GB_F16;
        sizes[i] = gb_nbytes(type, t[i].nd, t[i].ne);
        assert_true(sizes[i] != UINT64_MAX && sizes[i] < (1u << 22));
        gb_tensor(b, t[i].name, t[i].nd, t[i].ne, type, off);
        assert_true(n_t_marks < MAXT);
        memcpy(t_marks[n_t_marks].name, t[i].name, sizeof t_marks[0].name);
        t_marks[n_t_marks++].m = *gb_last(b);
        off += gb_align_up(sizes[i], 32);
    }
    gb_pad_to(b, 32);
    for (size_t i = 0; i < k; i++) {
        gb_zeros(b, (size_t)sizes[i]);
        gb_pad_to(b, 32);
    }
    r.buf = gb_finish(b, &r.len);
    gb_free(b);
    assert_non_null(r.buf);
    return r;
}

/* The base models: E 32, 2 layers, 4 heads of 8, 2 key/value heads, F 64,
 * 16 tokens. */
static mspec llama_spec(void)
{
    mspec m;
    memset(&m, 0, sizeof m);
    m.arch = "llama";
    m.layout = LAYOUT_LLAMA;
    m.E = 32;
    m.L = 2;
    m.H = 4;
    m.Hkv = 2;
    m.F = 64;
    m.V = 16;
    return m;
}

static mspec qwen2_spec(void)
{
    mspec m = llama_spec();
    m.arch = "qwen2";
    m.layout = LAYOUT_QWEN2;
    m.tied = true;
    return m;
}

static mspec moe_spec(void)
{
    mspec m = llama_spec();
    m.X = 4;
    m.Xused = 2;
    return m;
}

static void tdef_set(tdef *d, const char *name, uint32_t nd, uint64_t a, uint64_t b2, uint64_t c)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->nd = nd;
    d->ne[0] = a;
    d->ne[1] = b2;
    d->ne[2] = c;
    d->ne[3] = 1;
}

static void extra(mspec *m, const char *name, uint32_t nd, uint64_t a, uint64_t b2, uint64_t c)
{
    assert_true(m->n_extra < 4);
    tdef_set(&m->extra[m->n_extra++], name, nd, a, b2, c);
}

/* Offset of a tensor's dim field j (v2/v3: 8-byte dims). */
static uint64_t dim_off(const char *tensor, unsigned j)
{
    return tm(tensor)->dim[j];
}

static uint64_t arch_value(void)
{
    return kvm("general.architecture")->value;
}

/* ============================================================ clean models */

static void test_llama_clean(void **state)
{
    (void)state;
    mspec s = llama_spec();
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* tied output, explicit key/value length, no head_count_kv (= head_count) */
    s.tied = true;
    s.Dk = 8; /* not E / H = 16 */
    s.H = 2;
    s.Hkv = 0;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_llama_family_clean(void **state)
{
    (void)state;
    static const char *const names[] = {"refact", "minicpm"};
    for (size_t i = 0; i < 2; i++) {
        mspec s = llama_spec();
        s.arch = names[i];
        model m = build_model(&s);
        assert_arch_clean(m.buf, m.len);
        free(m.buf);
    }
}

static void test_llama_optional_tensors_clean(void **state)
{
    (void)state;
    mspec s = llama_spec();
    extra(&s, "rope_freqs.weight", 1, 4, 1, 1); /* R / 2 = 8 / 2 */
    extra(&s, "blk.0.attn_q.bias", 1, 32, 1, 1);
    extra(&s, "blk.1.attn_k.bias", 1, 16, 1, 1);
    extra(&s, "blk.1.ffn_up.bias", 1, 64, 1, 1);
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_qwen2_clean(void **state)
{
    (void)state;
    mspec s = qwen2_spec();
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    s.tied = false;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void sections_hook(gb *b, const mspec *m)
{
    static const int32_t sec[4] = {2, 1, 1, 0};
    const char *key = ak(m, "rope.dimension_sections");
    gb_kv_arr(b, key, GB_VT_I32, 4, sec, sizeof sec);
    mark_kv(b, key);
}

static void test_qwen2vl_clean(void **state)
{
    (void)state;
    mspec s = qwen2_spec();
    s.arch = "qwen2vl";
    s.kv_hook = sections_hook;
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* without the sections: required */
    s.kv_hook = NULL;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG541", arch_value());
    free(m.buf);
}

static void test_moe_clean(void **state)
{
    (void)state;
    mspec s = moe_spec();
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* ffn_gate_exps is optional */
    s.omit_tensor = "blk.1.ffn_gate_exps.weight";
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void granite_hook(gb *b, const mspec *m)
{
    static const char *const f[] = {"logit_scale", "residual_scale", "embedding_scale",
                                    "attention.scale"};
    for (size_t i = 0; i < 4; i++)
        kv_f32(b, m, f[i], 1.0f);
}

static void test_granite(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.arch = "granite";
    s.kv_hook = granite_hook;
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    s.omit_key = "granite.residual_scale";
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG541", arch_value());
    free(m.buf);
}

static void shexp_hook(gb *b, const mspec *m)
{
    granite_hook(b, m);
    kv_u32(b, m, "expert_shared_feed_forward_length", 48);
}

static void test_granitemoe_shared_experts(void **state)
{
    (void)state;
    mspec s = moe_spec();
    s.arch = "granitemoe";
    s.kv_hook = shexp_hook;
    s.L = 1;
    extra(&s, "blk.0.ffn_gate_shexp.weight", 2, 32, 48, 1);
    extra(&s, "blk.0.ffn_up_shexp.weight", 2, 32, 48, 1);
    extra(&s, "blk.0.ffn_down_shexp.weight", 2, 48, 32, 1);
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* the same tensors in plain llama MoE: the llama arch does not read the key */
    s.arch = "llama";
    s.kv_hook = NULL;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG552", tm("blk.0.ffn_gate_shexp.weight")->start);
    assert_int_equal(count_of(m.buf, m.len, "GG552"), 3);
    free(m.buf);
}

static void test_vocab_only_clean(void **state)
{
    (void)state;
    /* hyper-parameters and tokenizer, no tensors (llama.cpp's vocab files) */
    mspec s = llama_spec();
    s.layout = LAYOUT_NONE;
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* no hyper-parameters at all: still legal for a vocabulary-only file */
    s.no_hparams = true;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_split_shard_clean(void **state)
{
    (void)state;
    /* shard 2 of 3: global tensors and layer 0 only */
    mspec s = llama_spec();
    s.split_no = 1;
    s.split_count = 3;
    s.keep_layer0_only = true;
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* a shard's tensors still must be known and well shaped */
    tdef_set(&s.reshape, "blk.0.attn_q.weight", 2, 32, 16, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("blk.0.attn_q.weight", 1));
    free(m.buf);
    /* the metadata-only first shard (no tensors) needs the hyper-parameters */
    s = llama_spec();
    s.split_no = 0;
    s.split_count = 3;
    s.keep_none = true;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    s.omit_key = "llama.attention.layer_norm_rms_epsilon";
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG541", arch_value());
    free(m.buf);
}

static void test_known_unmodelled_clean(void **state)
{
    (void)state;
    /* a known architecture whose tensors are not modelled: nothing reported */
    mspec s = llama_spec();
    s.arch = "gptneox";
    extra(&s, "blk.0.attn_qkv.weight", 2, 32, 96, 1);
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    s.arch = "controlvector";
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_adapter_clean(void **state)
{
    (void)state;
    /* a LoRA adapter of a llama model: no hyper-parameters, lora tensors */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.type", "adapter");
    gb_kv_str(b, "adapter.type", "lora");
    gb_kv_f32(b, "adapter.lora.alpha", 16.0f);
    uint64_t a[2] = {32, 4}, bb[2] = {4, 32};
    gb_tensor(b, "blk.0.attn_q.weight.lora_a", 2, a, GB_F32, 0);
    gb_tensor(b, "blk.0.attn_q.weight.lora_b", 2, bb, GB_F32, 512);
    gb_pad_to(b, 32);
    gb_zeros(b, 1024);
    size_t len;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    assert_non_null(buf);
    assert_arch_clean(buf, len);
    free(buf);
}

/* ============================================================ one rule each */

static void test_GG540_unknown_architecture(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.arch = "llama-custom";
    extra(&s, "whatever.weight", 1, 7, 1, 1);
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG540", arch_value());
    assert_severity(m.buf, m.len, "GG540", GGUFLINT_NOTE);
    assert_int_equal(count_of(m.buf, m.len, "GG540"), 1);
    free(m.buf);
    /* control bytes in the name are escaped in the message */
    s.arch = "ll\x1b[31mama";
    m = build_model(&s);
    gguflint_ctx *ctx = lint(m.buf, m.len, NULL);
    assert_int_equal(gguflint_finding_count(ctx) > 0, 1);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        assert_null(strchr(gguflint_finding_get(ctx, i)->message, 0x1b));
    gguflint_free(ctx);
    free(m.buf);
}

static void test_GG541_hparam_missing(void **state)
{
    (void)state;
    /* without embedding_length or head_count the shapes that need them are
     * not compared: only the missing key is reported */
    static const char *const keys[] = {"llama.context_length", "llama.embedding_length",
                                       "llama.attention.layer_norm_rms_epsilon",
                                       "llama.attention.head_count", "llama.feed_forward_length"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        mspec s = llama_spec();
        s.omit_key = keys[i];
        if (strcmp(keys[i], "llama.attention.head_count") == 0)
            s.Hkv = 0; /* head_count_kv would default to the missing head_count */
        model m = build_model(&s);
        assert_arch_only(m.buf, m.len, "GG541", arch_value());
        assert_int_equal(count_of(m.buf, m.len, "GG541"), 1);
        free(m.buf);
    }
}

static void ctx_u64_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "context_length");
    gb_kv_u64(b, key, 128);
    mark_kv(b, key);
}

static void eps_f64_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "attention.layer_norm_rms_epsilon");
    gb_kv_f64(b, key, 1e-5);
    mark_kv(b, key);
}

static void heads_f32_arr_hook(gb *b, const mspec *m)
{
    static const float h[2] = {4.0f, 4.0f};
    const char *key = ak(m, "attention.head_count");
    gb_kv_arr(b, key, GB_VT_F32, 2, h, sizeof h);
    mark_kv(b, key);
}

static void test_GG542_hparam_wrong_type(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.omit_key = "llama.context_length";
    s.kv_hook = ctx_u64_hook;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG542", kvm("llama.context_length")->start);
    free(m.buf);

    s.omit_key = "llama.attention.layer_norm_rms_epsilon";
    s.kv_hook = eps_f64_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG542", kvm("llama.attention.layer_norm_rms_epsilon")->start);
    free(m.buf);

    /* a per-layer array of f32 (aborted llama.cpp in Feb 2025); head_count
     * is then unknown, so no shape depending on it is compared */
    s.omit_key = "llama.attention.head_count";
    s.kv_hook = heads_f32_arr_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG542", kvm("llama.attention.head_count")->start);
    free(m.buf);

    /* also for known architectures that are not modelled */
    s = llama_spec();
    s.arch = "baichuan";
    s.layout = LAYOUT_NONE;
    s.omit_key = "baichuan.context_length";
    s.kv_hook = ctx_u64_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG542", kvm("baichuan.context_length")->start);
    free(m.buf);
}

static void kv_arr_i32_hook_impl(gb *b, const mspec *m, const char *suffix, const int32_t *v,
                                 size_t n, uint32_t vt)
{
    const char *key = ak(m, suffix);
    gb_kv_arr(b, key, vt, n, v, n * sizeof v[0]);
    mark_kv(b, key);
}

static void hkv_arr3_hook(gb *b, const mspec *m)
{
    static const int32_t v[3] = {2, 2, 2};
    kv_arr_i32_hook_impl(b, m, "attention.head_count_kv", v, 3, GB_VT_I32);
}

static void ff_arr_neg_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {64, -64};
    kv_arr_i32_hook_impl(b, m, "feed_forward_length", v, 2, GB_VT_I32);
}

static void ff_arr_ok_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {64, 64};
    kv_arr_i32_hook_impl(b, m, "feed_forward_length", v, 2, GB_VT_I32);
}

static void sections3_hook(gb *b, const mspec *m)
{
    static const int32_t v[3] = {2, 1, 1};
    kv_arr_i32_hook_impl(b, m, "rope.dimension_sections", v, 3, GB_VT_I32);
}

static void test_GG543_hparam_array_invalid(void **state)
{
    (void)state;
    /* i32 per-layer arrays of block_count elements are fine */
    mspec s = llama_spec();
    s.omit_key = "llama.feed_forward_length";
    s.kv_hook = ff_arr_ok_hook;
    model m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);

    /* 3 elements for 2 layers: at the value */
    s = llama_spec();
    s.omit_key = "llama.attention.head_count_kv";
    s.kv_hook = hkv_arr3_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG543", kvm("llama.attention.head_count_kv")->value);
    free(m.buf);

    /* a negative element: at the element (layer 1's shapes then use layer 0) */
    s = llama_spec();
    s.omit_key = "llama.feed_forward_length";
    s.kv_hook = ff_arr_neg_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG543", kvm("llama.feed_forward_length")->arr_elems + 4);
    free(m.buf);

    /* rope sections of qwen2vl: exactly 4 elements */
    s = qwen2_spec();
    s.arch = "qwen2vl";
    s.kv_hook = sections3_hook;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG543", kvm("qwen2vl.rope.dimension_sections")->value);
    free(m.buf);
}

static void hkv_u32_arr_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {2, 2};
    kv_arr_i32_hook_impl(b, m, "attention.head_count_kv", v, 2, GB_VT_U32);
}

static void test_GG544_hparam_array_uint32(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.omit_key = "llama.attention.head_count_kv";
    s.kv_hook = hkv_u32_arr_hook;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG544", kvm("llama.attention.head_count_kv")->start);
    assert_severity(m.buf, m.len, "GG544", GGUFLINT_WARNING);
    free(m.buf);
}

static void test_GG545_block_count_over_limit(void **state)
{
    (void)state;
    /* a vocabulary-only file: no tensors to miss */
    mspec s = llama_spec();
    s.layout = LAYOUT_NONE;
    s.L = 513;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG545", kvm("llama.block_count")->value);
    free(m.buf);
    s.L = 512;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);

    /* a hostile block_count with tensors: the layer walk stops at 512 and
     * the missing-tensor findings are capped, the run stays fast */
    s = llama_spec();
    s.L = 0xFFFFFFFFu;
    s.keep_layer0_only = true;
    m = build_model(&s);
    assert_true(count_of(m.buf, m.len, "GG545") == 1);
    assert_true(count_of(m.buf, m.len, "GG551") == 100); /* max_findings_per_rule */
    free(m.buf);
}

static void hkv_zero_arr_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {2, 0};
    kv_arr_i32_hook_impl(b, m, "attention.head_count_kv", v, 2, GB_VT_I32);
}

static void test_GG546_head_count_zero(void **state)
{
    (void)state;
    /* no tensors, so that only the hyper-parameter rule speaks */
    mspec s = llama_spec();
    s.layout = LAYOUT_NONE;
    s.split_count = 2; /* metadata-only first shard */
    s.Hkv = 0;
    s.omit_key = "llama.attention.head_count_kv";
    s.kv_hook = hkv_zero_arr_hook;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG546", kvm("llama.attention.head_count_kv")->arr_elems + 4);
    free(m.buf);

    s = llama_spec();
    s.layout = LAYOUT_NONE;
    s.H = 0;
    s.Hkv = 0;
    /* model_tensors is not called for LAYOUT_NONE, E / H is not computed */
    s.E = 32;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG546", kvm("llama.attention.head_count")->value);
    free(m.buf);

    /* not for a known architecture without attention (mamba writes 0) */
    s.arch = "mamba";
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_GG547_head_count_inconsistent(void **state)
{
    (void)state;
    /* 4 query heads over 3 key/value heads */
    mspec s = llama_spec();
    s.layout = LAYOUT_NONE;
    s.Hkv = 3;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG547", kvm("llama.attention.head_count_kv")->value);
    free(m.buf);

    /* qwen2: 5 heads do not split E = 40 ... they do; E = 32 with 5 heads does not */
    s = qwen2_spec();
    s.layout = LAYOUT_NONE;
    s.H = 5;
    s.Hkv = 1;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG547", kvm("qwen2.attention.head_count")->value);
    free(m.buf);
    /* the same numbers are fine for llama (q is [E, Dk * H]) */
    s.arch = "llama";
    s.layout = LAYOUT_NONE;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void rope_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "rope.dimension_count");
    gb_kv_u32(b, key, 4);
    mark_kv(b, key);
}

static void test_GG548_rope_dimension_mismatch(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.omit_key = "llama.rope.dimension_count";
    s.kv_hook = rope_hook;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG548", kvm("llama.rope.dimension_count")->value);
    free(m.buf);
    /* refact does not tie the rope to the head */
    s.arch = "refact";
    s.omit_key = "refact.rope.dimension_count";
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_GG549_expert_count_invalid(void **state)
{
    (void)state;
    mspec s = moe_spec();
    s.Xused = 5;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG549", kvm("llama.expert_used_count")->value);
    free(m.buf);
    s.Xused = 0;
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG549", kvm("llama.expert_used_count")->value);
    free(m.buf);
    /* no expert_used_count at all: at expert_count */
    s.Xused = 2;
    s.omit_key = "llama.expert_used_count";
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG549", kvm("llama.expert_count")->value);
    free(m.buf);
}

static void scaling_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "rope.scaling.type");
    gb_kv_str(b, key, "dynamic");
    mark_kv(b, key);
}

static void scaling_ok_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "rope.scaling.type");
    gb_kv_str(b, key, "yarn");
    mark_kv(b, key);
}

static void test_GG550_rope_scaling_type_unknown(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.kv_hook = scaling_hook;
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG550", kvm("llama.rope.scaling.type")->value);
    free(m.buf);
    s.kv_hook = scaling_ok_hook;
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
}

static void test_GG551_tensor_missing(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.omit_tensor = "blk.1.attn_v.weight";
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG551", arch_value());
    assert_int_equal(count_of(m.buf, m.len, "GG551"), 1);
    free(m.buf);
    /* qwen2: the biases are required */
    s = qwen2_spec();
    s.omit_tensor = "blk.0.attn_k.bias";
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG551", arch_value());
    free(m.buf);
    /* MoE: the router */
    s = moe_spec();
    s.omit_tensor = "blk.0.ffn_gate_inp.weight";
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG551", arch_value());
    free(m.buf);
}

static void test_GG552_tensor_unexpected(void **state)
{
    (void)state;
    mspec s = llama_spec();
    extra(&s, "blk.0.attn_rot_embd.weight", 1, 4, 1, 1);
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG552", tm("blk.0.attn_rot_embd.weight")->start);
    free(m.buf);
    /* dense feed-forward tensors in a MoE model */
    s = moe_spec();
    extra(&s, "blk.1.ffn_up.weight", 2, 32, 64, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG552", tm("blk.1.ffn_up.weight")->start);
    free(m.buf);
    /* llama's optional biases are not qwen2's... but rope_freqs is not qwen2's at all */
    s = qwen2_spec();
    extra(&s, "rope_freqs.weight", 1, 4, 1, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG552", tm("rope_freqs.weight")->start);
    free(m.buf);
    /* a name with a control byte is escaped */
    s = llama_spec();
    extra(&s, "x\x1b[2Jy.weight", 1, 4, 1, 1);
    m = build_model(&s);
    gguflint_ctx *ctx = lint(m.buf, m.len, NULL);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        assert_null(strchr(gguflint_finding_get(ctx, i)->message, 0x1b));
    gguflint_free(ctx);
    free(m.buf);
}

static void test_GG553_tensor_shape_mismatch(void **state)
{
    (void)state;
    /* attn_k written for 4 key/value heads instead of 2: ne[1] */
    mspec s = llama_spec();
    tdef_set(&s.reshape, "blk.1.attn_k.weight", 2, 32, 32, 1);
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("blk.1.attn_k.weight", 1));
    free(m.buf);
    /* token_embd rows against the number of tokens are the vocabulary rule
     * GG574, not reported twice; ne[0] is still E */
    tdef_set(&s.reshape, "token_embd.weight", 2, 32, 17, 1);
    m = build_model(&s);
    assert_int_equal(count_of(m.buf, m.len, "GG553"), 0);
    free(m.buf);
    tdef_set(&s.reshape, "token_embd.weight", 2, 16, 16, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("token_embd.weight", 0));
    free(m.buf);
    /* a norm with a second dim */
    tdef_set(&s.reshape, "output_norm.weight", 2, 32, 2, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("output_norm.weight", 1));
    free(m.buf);
    /* a trailing dim of 1 is the same shape to llama.cpp */
    tdef_set(&s.reshape, "output_norm.weight", 2, 32, 1, 1);
    m = build_model(&s);
    assert_arch_clean(m.buf, m.len);
    free(m.buf);
    /* MoE: experts stored 2-D: the n_dims field */
    s = moe_spec();
    tdef_set(&s.reshape, "blk.0.ffn_down_exps.weight", 2, 64, 32, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", tm("blk.0.ffn_down_exps.weight")->n_dims);
    free(m.buf);
    /* MoE: the expert count */
    tdef_set(&s.reshape, "blk.1.ffn_up_exps.weight", 3, 32, 64, 8);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("blk.1.ffn_up_exps.weight", 2));
    free(m.buf);
    /* qwen2: q is [E, E] */
    s = qwen2_spec();
    tdef_set(&s.reshape, "blk.0.attn_output.weight", 2, 32, 16, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("blk.0.attn_output.weight", 1));
    free(m.buf);
    /* without tokens, V is token_embd's ne[1]: output must agree */
    s = llama_spec();
    s.no_tokens = true;
    tdef_set(&s.reshape, "output.weight", 2, 32, 15, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG553", dim_off("output.weight", 1));
    free(m.buf);
}

static void test_GG553_v1_offsets(void **state)
{
    (void)state;
    /* GGUF v1: 4-byte dims */
    mspec s = llama_spec();
    s.version = 1;
    tdef_set(&s.reshape, "blk.0.ffn_gate.weight", 2, 32, 48, 1);
    model m = build_model(&s);
    uint64_t at = dim_off("blk.0.ffn_gate.weight", 1);
    assert_int_equal(at, tm("blk.0.ffn_gate.weight")->dim[0] + 4);
    assert_arch_only(m.buf, m.len, "GG553", at);
    free(m.buf);
}

static void test_GG554_block_index_out_of_range(void **state)
{
    (void)state;
    mspec s = llama_spec();
    extra(&s, "blk.2.attn_norm.weight", 1, 32, 1, 1);
    model m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG554", tm("blk.2.attn_norm.weight")->start);
    free(m.buf);
    s = llama_spec();
    extra(&s, "blk.99999999999999999999999.attn_norm.weight", 1, 32, 1, 1);
    m = build_model(&s);
    assert_arch_only(m.buf, m.len, "GG554",
                     tm("blk.99999999999999999999999.attn_norm.weight")->start);
    free(m.buf);
}

static void test_GG555_block_index_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {"blk.01.attn_norm.weight", "blk.+1.attn_norm.weight",
                                      "blk..attn_norm.weight", "blk.1", "blk.1x.attn_norm.weight"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mspec s = llama_spec();
        extra(&s, bad[i], 1, 32, 1, 1);
        model m = build_model(&s);
        assert_arch_only(m.buf, m.len, "GG555", tm(bad[i])->start);
        free(m.buf);
    }
}

/* ================================================================ profiles */

static void test_profiles(void **state)
{
    (void)state;
    mspec s = llama_spec();
    s.omit_key = "llama.context_length";
    s.kv_hook = ctx_u64_hook;
    model m = build_model(&s);
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    assert_int_equal(gguflint_options_profile(o, "spec"), GGUFLINT_OK);
    gguflint_ctx *ctx = lint(m.buf, m.len, o);
    bool seen = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), "GG542") == 0) {
            assert_int_equal(f->severity, GGUFLINT_WARNING);
            seen = true;
        }
    }
    assert_true(seen);
    gguflint_free(ctx);
    /* an ignored rule is not reported */
    gguflint_options_default(o);
    assert_int_equal(gguflint_options_select(o, "GG542", false, NULL, 0), GGUFLINT_OK);
    assert_int_equal(count_of_opt(m.buf, m.len, o, "GG542"), 0);
    /* strict: an unknown architecture is a warning */
    free(m.buf);
    s = llama_spec();
    s.arch = "llama-custom";
    m = build_model(&s);
    gguflint_options_default(o);
    assert_int_equal(gguflint_options_profile(o, "strict"), GGUFLINT_OK);
    assert_int_equal(count_of_opt(m.buf, m.len, o, "GG540"), 1);
    ctx = lint(m.buf, m.len, o);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), "GG540") == 0)
            assert_int_equal(f->severity, GGUFLINT_WARNING);
    }
    gguflint_free(ctx);
    free(m.buf);
    gguflint_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_clean),
        cmocka_unit_test(test_llama_family_clean),
        cmocka_unit_test(test_llama_optional_tensors_clean),
        cmocka_unit_test(test_qwen2_clean),
        cmocka_unit_test(test_qwen2vl_clean),
        cmocka_unit_test(test_moe_clean),
        cmocka_unit_test(test_granite),
        cmocka_unit_test(test_granitemoe_shared_experts),
        cmocka_unit_test(test_vocab_only_clean),
        cmocka_unit_test(test_split_shard_clean),
        cmocka_unit_test(test_known_unmodelled_clean),
        cmocka_unit_test(test_adapter_clean),
        cmocka_unit_test(test_GG540_unknown_architecture),
        cmocka_unit_test(test_GG541_hparam_missing),
        cmocka_unit_test(test_GG542_hparam_wrong_type),
        cmocka_unit_test(test_GG543_hparam_array_invalid),
        cmocka_unit_test(test_GG544_hparam_array_uint32),
        cmocka_unit_test(test_GG545_block_count_over_limit),
        cmocka_unit_test(test_GG546_head_count_zero),
        cmocka_unit_test(test_GG547_head_count_inconsistent),
        cmocka_unit_test(test_GG548_rope_dimension_mismatch),
        cmocka_unit_test(test_GG549_expert_count_invalid),
        cmocka_unit_test(test_GG550_rope_scaling_type_unknown),
        cmocka_unit_test(test_GG551_tensor_missing),
        cmocka_unit_test(test_GG552_tensor_unexpected),
        cmocka_unit_test(test_GG553_tensor_shape_mismatch),
        cmocka_unit_test(test_GG553_v1_offsets),
        cmocka_unit_test(test_GG554_block_index_out_of_range),
        cmocka_unit_test(test_GG555_block_index_malformed),
        cmocka_unit_test(test_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

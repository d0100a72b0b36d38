/* test_arch.c - the architecture rules (GG516, GG540-GG569, data/arch.def): tiny
 * llama and qwen2 models built with the gguf_builder (E = 32, L = 2, small
 * vocabulary, f32/f16 tensors with zero data at contiguous padded offsets)
 * that must get no finding from these rules, then one variant per rule that
 * must get exactly that rule at exactly the offending field's offset. The
 * shapes here are written out independently of the tables in data/arch/, from
 * GGUF-REFERENCE.md 7.3, so the tables are tested rather than restated.
 *
 * The cases are tables: each row is a model (a base model with some fields
 * changed) and what the linter must say about it (no architecture finding,
 * exactly one architecture rule at a field of the built file, counts of
 * rules, a severity, under a profile); one loop builds, lints and checks the
 * rows of each test. What does not fit a row is written out after its table. */
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

#include "checks/arch_names.h"   /* the neighbour search, against brute force */
#include "checks/arch_asserts.h" /* the GG533 table */
#include "model/arch_tables.h"

/* A row starts from a base model and overrides some of its fields: in an
 * initializer the last designator of a field wins (C11 6.7.9p19). */
#pragma GCC diagnostic ignored "-Woverride-init"

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
static void assert_arch_clean_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                                 const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
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

/* Exactly `n` findings of `id`. */
static void assert_count_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                            const char *id, size_t n, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t got = ex_count(ctx, id);
    if (got != n) {
        print_message("%s: expected %zu findings of %s, got %zu\n", where, n, id, got);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: count of %s", where, id);
    }
    gguflint_free(ctx);
}

/* At least one finding of `id`, and every one of them at severity `s`. */
static void assert_severity_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                               const char *id, gguflint_severity s, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t seen = 0, wrong = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), id) == 0) {
            seen++;
            wrong += f->severity != s;
        }
    }
    if (seen == 0 || wrong > 0) {
        print_message("%s: expected %s at severity %d\n", where, id, (int)s);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: %s", where, seen == 0 ? "no finding" : "wrong severity");
    }
    gguflint_free(ctx);
}

/* Some finding, and no message holds an ESC byte (untrusted names from the
 * file are escaped). */
static void assert_escaped_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                              const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    bool esc = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        esc |= strchr(gguflint_finding_get(ctx, i)->message, 0x1b) != NULL;
    if (esc || gguflint_finding_count(ctx) == 0) {
        print_message("%s: expected findings with escaped messages\n", where);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: %s", where, esc ? "unescaped ESC in a message" : "no finding");
    }
    gguflint_free(ctx);
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
    size_t arch_len;  /* 0: strlen(arch); else the value's bytes (NULs allowed) */
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
    tdef extra[4];                          /* more tensors, after the standard ones (up
                                               to the first without a name) */
    tdef reshape;                           /* replaces the shape of the tensor of that name */
    bool keep_layer0_only;                  /* a split shard: only global and blk.0 tensors */
    uint16_t split_no, split_count;         /* split.* keys when split_count > 0 */
    bool keep_none;                         /* tensors: none at all */
};

typedef struct mark {
    char name[64];
    gb_marks m;
} mark;

/* The marks of the KVs and of the tensors written by the last build_model,
 * by name. */
typedef struct markset {
    mark m[MAXT];
    size_t n, max;
    const char *what;
} markset;

static markset kv_marks = {.max = MAXKV, .what = "KV"}, t_marks = {.max = MAXT, .what = "tensor"};

static void mark_add(markset *s, const gb *b, const char *name)
{
    assert_true(s->n < s->max);
    snprintf(s->m[s->n].name, sizeof s->m[0].name, "%s", name);
    s->m[s->n++].m = *gb_last(b);
}

static void mark_kv(gb *b, const char *key)
{
    mark_add(&kv_marks, b, key);
}

/* The marks of `name` (fails the test when there is none; never NULL). */
static const gb_marks *mark_find(const markset *s, const char *name)
{
    static const gb_marks no_marks;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->m[i].name, name) == 0)
            return &s->m[i].m;
    fail_msg("no %s %s was written", s->what, name);
    return &no_marks;
}
#define kvm(key) mark_find(&kv_marks, key)
#define tm(name) mark_find(&t_marks, name)

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

/* Write "<arch>.<suffix>" (an f32 or a u32) and mark it, unless the spec
 * omits that key. */
static void kv_num(gb *b, const mspec *m, const char *suffix, bool f32, uint32_t u, float f)
{
    const char *key = ak(m, suffix);
    if (omitted(m, key))
        return;
    if (f32)
        gb_kv_f32(b, key, f);
    else
        gb_kv_u32(b, key, u);
    mark_kv(b, key);
}
#define kv_u32(b, m, suffix, v) kv_num(b, m, suffix, false, v, 0.0f)
#define kv_f32(b, m, suffix, v) kv_num(b, m, suffix, true, 0, v)

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
    kv_marks.n = t_marks.n = 0;

    gb *b = gb_new(m->version ? m->version : 3);
    assert_non_null(b);
    if (m->arch_len)
        gb_kv_strn(b, "general.architecture", m->arch, m->arch_len);
    else
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
    for (size_t i = 0; i < 4 && m->extra[i].name[0]; i++) {
        assert_true(k < MAXT);
        t[k++] = m->extra[i];
    }
    uint64_t off = 0, sizes[MAXT];
    for (size_t i = 0; i < k; i++) {
        uint32_t type = t[i].nd == 1 ? GB_F32 : GB_F16;
        sizes[i] = gb_nbytes(type, t[i].nd, t[i].ne);
        assert_true(sizes[i] != UINT64_MAX && sizes[i] < (1u << 22));
        gb_tensor(b, t[i].name, t[i].nd, t[i].ne, type, off);
        mark_add(&t_marks, b, t[i].name);
        off += gb_align_up(sizes[i], 32);
    }
    gb_zero_data(b, sizes, k, 32);
    r.buf = ex_finish(b, &r.len);
    return r;
}

/* The base models: E 32, 2 layers, 4 heads of 8, 2 key/value heads, F 64,
 * 16 tokens; qwen2 ties the output; the MoE model has 4 experts, 2 used.
 * Arguments override fields: LLAMA(.arch = "refact", .tied = true). */
#define LLAMA(...)                                                                                 \
    {                                                                                              \
        .arch = "llama", .layout = LAYOUT_LLAMA, .E = 32, .L = 2, .H = 4, .Hkv = 2, .F = 64,       \
        .V = 16, __VA_ARGS__                                                                       \
    }
#define QWEN2(...) LLAMA(.arch = "qwen2", .layout = LAYOUT_QWEN2, .tied = true, __VA_ARGS__)
#define MOE(...) LLAMA(.X = 4, .Xused = 2, __VA_ARGS__)

/* A tensor definition of 1, 2 or 3 dims (the unused dims are 1). */
#define T1(name, a)                                                                                \
    {                                                                                              \
        name, 1,                                                                                   \
        {                                                                                          \
            a, 1, 1, 1                                                                             \
        }                                                                                          \
    }
#define T2(name, a, b)                                                                             \
    {                                                                                              \
        name, 2,                                                                                   \
        {                                                                                          \
            a, b, 1, 1                                                                             \
        }                                                                                          \
    }
#define T3(name, a, b, c)                                                                          \
    {                                                                                              \
        name, 3,                                                                                   \
        {                                                                                          \
            a, b, c, 1                                                                             \
        }                                                                                          \
    }

/* An offset in the built file: a field of the marks of a KV or a tensor
 * (by its full name), plus a constant. */
typedef struct at {
    bool tensor;
    const char *name;
    size_t field; /* offsetof(gb_marks, ...) */
    uint64_t plus;
} at;
#define AT_KV(key, field, plus)                                                                    \
    {                                                                                              \
        false, key, offsetof(gb_marks, field), plus                                                \
    }
#define AT_T(name, field)                                                                          \
    {                                                                                              \
        true, name, offsetof(gb_marks, field), 0                                                   \
    }
#define AT_ARCH AT_KV("general.architecture", value, 0)

static uint64_t at_offset(const at *a)
{
    const gb_marks *m = a->tensor ? tm(a->name) : kvm(a->name);
    size_t v;
    memcpy(&v, (const char *)m + a->field, sizeof v);
    return (uint64_t)v + a->plus;
}

/* One case: a model and what is said about it, checked in this order. */
typedef struct acase {
    const char *what; /* printed when the case fails */
    mspec spec;
    const char *profile; /* lint under this profile (NULL: defaults) */
    const char *ignore;  /* and with this rule deselected */
    bool clean;          /* no finding of GG540..GG569 */
    const char *id;      /* a finding of `id` at `at` and of no other arch rule */
    at at;
    struct {
        const char *id;
        size_t n;
    } count[2]; /* exactly n findings of id */
    struct {
        const char *id;
        gguflint_severity s;
    } sev;        /* the findings of id have this severity */
    bool escaped; /* findings, and no ESC byte in their messages */
} acase;

static gguflint_options *case_options(const acase *c)
{
    if (!c->profile && !c->ignore)
        return NULL;
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    if (c->profile)
        assert_int_equal(gguflint_options_profile(o, c->profile), GGUFLINT_OK);
    if (c->ignore)
        assert_int_equal(gguflint_options_select(o, c->ignore, false, NULL, 0), GGUFLINT_OK);
    return o;
}

/* Build, lint and check every case of a table (the marks of the last model
 * built stay readable through kvm/tm afterwards). */
static void run_cases_n(const acase *cases, size_t n, const char *test)
{
    for (size_t i = 0; i < n; i++) {
        const acase *c = &cases[i];
        char where[256];
        snprintf(where, sizeof where, "%s: %s", test, c->what);
        gguflint_options *o = case_options(c);
        model m = build_model(&c->spec);
        if (c->clean)
            assert_arch_clean_at(m.buf, m.len, o, where);
        if (c->id)
            assert_arch_only_at(m.buf, m.len, o, c->id, at_offset(&c->at), where);
        for (size_t j = 0; j < 2 && c->count[j].id; j++)
            assert_count_at(m.buf, m.len, o, c->count[j].id, c->count[j].n, where);
        if (c->sev.id)
            assert_severity_at(m.buf, m.len, o, c->sev.id, c->sev.s, where);
        if (c->escaped)
            assert_escaped_at(m.buf, m.len, o, where);
        gguflint_options_free(o);
        free(m.buf);
    }
}
#define run_cases(table) run_cases_n(table, sizeof table / sizeof table[0], __func__)

/* A cmocka test that is one table (TABLE_TEST in main). */
static void run_table(void **state)
{
    const ex_table *t = *state;
    run_cases_n(t->rows, t->n, t->name);
}
#define TABLE_TEST(table) EX_TABLE_TEST(run_table, table)

/* ------------------------------------------------------ extra KVs (hooks) */

static void kv_i32s(gb *b, const mspec *m, const char *suffix, const int32_t *v, size_t n,
                    uint32_t vt)
{
    const char *key = ak(m, suffix);
    gb_kv_arr(b, key, vt, n, v, n * sizeof v[0]);
    mark_kv(b, key);
}

static void sections_hook(gb *b, const mspec *m)
{
    static const int32_t v[4] = {2, 1, 1, 0};
    kv_i32s(b, m, "rope.dimension_sections", v, 4, GB_VT_I32);
}

static void sections3_hook(gb *b, const mspec *m)
{
    static const int32_t v[3] = {2, 1, 1};
    kv_i32s(b, m, "rope.dimension_sections", v, 3, GB_VT_I32);
}

static void hkv_arr3_hook(gb *b, const mspec *m)
{
    static const int32_t v[3] = {2, 2, 2};
    kv_i32s(b, m, "attention.head_count_kv", v, 3, GB_VT_I32);
}

static void hkv_u32_arr_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {2, 2};
    kv_i32s(b, m, "attention.head_count_kv", v, 2, GB_VT_U32);
}

static void hkv_zero_arr_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {2, 0};
    kv_i32s(b, m, "attention.head_count_kv", v, 2, GB_VT_I32);
}

static void ff_arr_neg_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {64, -64};
    kv_i32s(b, m, "feed_forward_length", v, 2, GB_VT_I32);
}

static void ff_arr_ok_hook(gb *b, const mspec *m)
{
    static const int32_t v[2] = {64, 64};
    kv_i32s(b, m, "feed_forward_length", v, 2, GB_VT_I32);
}

static void granite_hook(gb *b, const mspec *m)
{
    static const char *const f[] = {"logit_scale", "residual_scale", "embedding_scale",
                                    "attention.scale"};
    for (size_t i = 0; i < 4; i++)
        kv_f32(b, m, f[i], 1.0f);
}

static void shexp_hook(gb *b, const mspec *m)
{
    granite_hook(b, m);
    kv_u32(b, m, "expert_shared_feed_forward_length", 48);
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

/* written even though omit_key names it (the standard one is omitted) */
static void rope_hook(gb *b, const mspec *m)
{
    const char *key = ak(m, "rope.dimension_count");
    gb_kv_u32(b, key, 4);
    mark_kv(b, key);
}

static void kv_str_hook(gb *b, const char *key, const char *v)
{
    gb_kv_str(b, key, v);
    mark_kv(b, key);
}

static void scaling_hook(gb *b, const mspec *m)
{
    kv_str_hook(b, ak(m, "rope.scaling.type"), "dynamic");
}

static void scaling_ok_hook(gb *b, const mspec *m)
{
    kv_str_hook(b, ak(m, "rope.scaling.type"), "yarn");
}

static void adapter_type_hook(gb *b, const mspec *m)
{
    (void)m;
    kv_str_hook(b, "general.type", "adapter");
}

/* ============================================================ clean models */

static const acase test_llama_clean[] = {
    {"llama", LLAMA(), .clean = true},
    {"tied output, explicit key/value length (not E / H = 16), no head_count_kv",
     LLAMA(.tied = true, .Dk = 8, .H = 2, .Hkv = 0), .clean = true},
};

static const acase test_llama_family_clean[] = {
    {"refact", LLAMA(.arch = "refact"), .clean = true},
    {"minicpm", LLAMA(.arch = "minicpm"), .clean = true},
};

static const acase test_llama_optional_tensors_clean[] = {
    {"rope_freqs (R / 2 = 8 / 2) and biases",
     LLAMA(.extra = {T1("rope_freqs.weight", 4), T1("blk.0.attn_q.bias", 32),
                     T1("blk.1.attn_k.bias", 16), T1("blk.1.ffn_up.bias", 64)}),
     .clean = true},
};

static const acase test_qwen2_clean[] = {
    {"qwen2, tied", QWEN2(), .clean = true},
    {"qwen2, output.weight", QWEN2(.tied = false), .clean = true},
};

static const acase test_qwen2vl_clean[] = {
    {"qwen2vl", QWEN2(.arch = "qwen2vl", .kv_hook = sections_hook), .clean = true},
    {"qwen2vl without the rope sections: required", QWEN2(.arch = "qwen2vl"), .id = "GG541",
     .at = AT_ARCH},
};

static const acase test_moe_clean[] = {
    {"llama MoE", MOE(), .clean = true},
    {"ffn_gate_exps is optional", MOE(.omit_tensor = "blk.1.ffn_gate_exps.weight"), .clean = true},
};

static const acase test_granite[] = {
    {"granite", LLAMA(.arch = "granite", .kv_hook = granite_hook), .clean = true},
    /* llama.cpp of 2026-08-22 reads residual_scale, embedding_scale and
     * attention.scale as optional (the tables of Oct 2025 required them);
     * logit_scale stays required */
    {"granite without residual_scale",
     LLAMA(.arch = "granite", .kv_hook = granite_hook, .omit_key = "granite.residual_scale"),
     .clean = true},
    {"granite without embedding_scale",
     LLAMA(.arch = "granite", .kv_hook = granite_hook, .omit_key = "granite.embedding_scale"),
     .clean = true},
    {"granite without attention.scale",
     LLAMA(.arch = "granite", .kv_hook = granite_hook, .omit_key = "granite.attention.scale"),
     .clean = true},
    {"granite without logit_scale",
     LLAMA(.arch = "granite", .kv_hook = granite_hook, .omit_key = "granite.logit_scale"),
     .id = "GG541", .at = AT_ARCH},
};

#define SHEXP                                                                                      \
    .L = 1,                                                                                        \
    .extra = {T2("blk.0.ffn_gate_shexp.weight", 32, 48), T2("blk.0.ffn_up_shexp.weight", 32, 48),  \
              T2("blk.0.ffn_down_shexp.weight", 48, 32)}
static const acase test_granitemoe_shared_experts[] = {
    {"granitemoe with shared experts", MOE(.arch = "granitemoe", .kv_hook = shexp_hook, SHEXP),
     .clean = true},
    {"the same tensors in plain llama MoE: the llama arch does not read the key", MOE(SHEXP),
     .id = "GG552", .at = AT_T("blk.0.ffn_gate_shexp.weight", start), .count = {{"GG552", 3}}},
};
#undef SHEXP

static const acase test_vocab_only_clean[] = {
    {"hyper-parameters and tokenizer, no tensors (llama.cpp's vocab files)",
     LLAMA(.layout = LAYOUT_NONE), .clean = true},
    {"no hyper-parameters at all: still legal for a vocabulary-only file",
     LLAMA(.layout = LAYOUT_NONE, .no_hparams = true), .clean = true},
};

#define SHARD2 .split_no = 1, .split_count = 3, .keep_layer0_only = true
#define SHARD1 .split_no = 0, .split_count = 3, .keep_none = true
static const acase test_split_shard_clean[] = {
    {"shard 2 of 3: global tensors and layer 0 only", LLAMA(SHARD2), .clean = true},
    {"a shard's tensors still must be known and well shaped",
     LLAMA(SHARD2, .reshape = T2("blk.0.attn_q.weight", 32, 16)), .id = "GG553",
     .at = AT_T("blk.0.attn_q.weight", dim[1])},
    {"the metadata-only first shard (no tensors)", LLAMA(SHARD1), .clean = true},
    {"the metadata-only first shard needs the hyper-parameters",
     LLAMA(SHARD1, .omit_key = "llama.attention.layer_norm_rms_epsilon"), .id = "GG541",
     .at = AT_ARCH},
};
#undef SHARD1
#undef SHARD2

/* a known architecture whose loader is not in the tables (name only:
     * gptj has no load_tensors case in the llama.cpp source of the tables):
     * nothing reported (control vectors: test_adapter.c) */
static const acase test_known_unmodelled_clean[] = {
    {"gptj", LLAMA(.arch = "gptj", .extra = {T2("blk.0.attn_qkv.weight", 32, 96)}), .clean = true},
};

static void test_adapter_clean(void **state)
{
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
    uint8_t *buf = ex_finish(b, &len);
    assert_arch_clean_at(buf, len, NULL, __func__);
    free(buf);
}

/* ============================================================ one rule each */

/* issue 9: general.type = "adapter" on an ordinary model turned every tensor
 * check off, yet llama.cpp's model loader never reads that key */
static const acase test_GG513_general_type_not_adapter[] = {
    {"general.type adapter on a model", LLAMA(.kv_hook = adapter_type_hook), .id = "GG513",
     .at = AT_KV("general.type", value, 0), .count = {{"GG513", 1}}},
    {"the model is still checked as one: a wrong shape is found",
     LLAMA(.kv_hook = adapter_type_hook, .reshape = T2("blk.1.attn_k.weight", 32, 32)),
     .count = {{"GG553", 1}, {"GG513", 1}}},
    {"and a required tensor removed is still missing",
     LLAMA(.kv_hook = adapter_type_hook, .omit_tensor = "blk.0.ffn_up.weight"),
     .count = {{"GG551", 1}}},
};

/* issue 9: general.architecture = "llama\0" is llama to llama.cpp (a C
 * string); gguflint checked nothing (unknown architecture) */
static const acase test_GG514_c_string_nul[] = {
    {"llama\\0x: at the NUL (value: u64 length, then 5 bytes)",
     LLAMA(.arch = "llama\0x", .arch_len = 7), .id = "GG514",
     .at = AT_KV("general.architecture", value, 8 + 5), .count = {{"GG514", 1}, {"GG540", 0}}},
    {"GGUF v1: the NUL after a 4-byte length (it was put 4 bytes further, past a file that ends "
     "there; fuzz_deep, regression gguflint-15-v1-c-string-nul-offset)",
     LLAMA(.version = 1, .arch = "llama\0x", .arch_len = 7), .id = "GG514",
     .at = AT_KV("general.architecture", value, 4 + 5), .count = {{"GG514", 1}, {"GG540", 0}}},
    {"checked as llama: a wrong shape is found",
     LLAMA(.arch = "llama\0x", .arch_len = 7, .reshape = T2("blk.0.attn_q.weight", 32, 16)),
     .count = {{"GG553", 1}}},
    {"checked as llama: a missing key is found",
     LLAMA(.arch = "llama\0", .arch_len = 6, .omit_key = "llama.attention.layer_norm_rms_epsilon"),
     .count = {{"GG541", 1}, {"GG514", 1}}},
    {"an error under the security profile", LLAMA(.arch = "llama\0", .arch_len = 6),
     .profile = "security", .sev = {"GG514", GGUFLINT_ERROR}},
};

static const acase test_GG540_unknown_architecture[] = {
    {"llama-custom", LLAMA(.arch = "llama-custom", .extra = {T1("whatever.weight", 7)}),
     .id = "GG540", .at = AT_ARCH, .sev = {"GG540", GGUFLINT_NOTE}, .count = {{"GG540", 1}}},
    {"control bytes in the name are escaped in the message",
     LLAMA(.arch = "ll\x1b[31mama", .extra = {T1("whatever.weight", 7)}), .escaped = true},
};

/* issue 22: a case variant or a one-letter slip of a known name is an
 * error (llama.cpp refuses it like any unknown name); a name one digit away
 * is a newer version of a family (qwen2 / qwen3 are both real), so it stays
 * the note, as does a name far from every known one. */
static const acase test_GG516_architecture_misspelled[] = {
    {"llamax", LLAMA(.arch = "llamax"), .id = "GG516", .at = AT_ARCH,
     .sev = {"GG516", GGUFLINT_ERROR}, .count = {{"GG516", 1}, {"GG540", 0}}},
    {"LLAMA (case)", LLAMA(.arch = "LLAMA"), .id = "GG516", .at = AT_ARCH,
     .count = {{"GG516", 1}, {"GG540", 0}}},
    {"Qwen2 (case)", QWEN2(.arch = "Qwen2"), .id = "GG516", .at = AT_ARCH,
     .count = {{"GG516", 1}, {"GG540", 0}}},
    {"qwen2x (an added letter)", QWEN2(.arch = "qwen2x"), .id = "GG516", .at = AT_ARCH,
     .count = {{"GG516", 1}, {"GG540", 0}}},
    {"lama (a dropped letter)", LLAMA(.arch = "lama"), .id = "GG516", .at = AT_ARCH,
     .count = {{"GG516", 1}, {"GG540", 0}}},
    {"gpt_oss (a replaced separator)", LLAMA(.arch = "gpt_oss"), .id = "GG516", .at = AT_ARCH},
    {"a warning in the spec profile", LLAMA(.arch = "llamax"), .profile = "spec",
     .sev = {"GG516", GGUFLINT_WARNING}},
    {"llama\\0x is llama to llama.cpp, not a misspelling", LLAMA(.arch = "llama\0x", .arch_len = 7),
     .count = {{"GG516", 0}, {"GG540", 0}}},
    {"llamax\\0: the visible part is compared", LLAMA(.arch = "llamax\0", .arch_len = 7),
     .count = {{"GG516", 1}, {"GG514", 1}}},
    {"the value is escaped in the message", LLAMA(.arch = "llam\x1b"), .escaped = true,
     .count = {{"GG516", 1}}},
    {"qwen4: one digit from qwen2 / qwen3, a newer family member: the note", LLAMA(.arch = "qwen4"),
     .id = "GG540", .at = AT_ARCH, .sev = {"GG540", GGUFLINT_NOTE}, .count = {{"GG516", 0}}},
    {"llama2: one digit from llama: the note", LLAMA(.arch = "llama2"), .id = "GG540",
     .at = AT_ARCH, .count = {{"GG516", 0}}},
    {"far from every known name: the note", LLAMA(.arch = "zyxwvut"), .id = "GG540", .at = AT_ARCH,
     .sev = {"GG540", GGUFLINT_NOTE}, .count = {{"GG516", 0}}},
    /* known names one edit from other known names are never misspelled */
    {"qwen3", QWEN2(.arch = "qwen3"), .count = {{"GG516", 0}, {"GG540", 0}}},
    {"gemma2", LLAMA(.arch = "gemma2"), .count = {{"GG516", 0}, {"GG540", 0}}},
    {"rwkv7", LLAMA(.arch = "rwkv7"), .count = {{"GG516", 0}, {"GG540", 0}}},
    {"olmoe", LLAMA(.arch = "olmoe"), .count = {{"GG516", 0}, {"GG540", 0}}},
};

/* general.architecture of 1 MB (an attacker's value): the note, at the
 * value, nothing compared (it is longer than every known name). */
static void test_GG516_long_name(void **state)
{
    enum { N = 1 << 20 };
    char *name = malloc(N);
    assert_non_null(name);
    memset(name, 'l', N);
    memcpy(name, "llama", 5);
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_strn(b, "general.architecture", name, N);
    gb_marks m = *gb_last(b);
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    gguflint_ctx *ctx = lint(buf, len, NULL);
    assert_int_equal(ex_count(ctx, "GG516"), 0);
    size_t there = 0;
    assert_int_equal(ex_count_id(ctx, "GG540", m.value, &there), 1);
    assert_int_equal(there, 1);
    gguflint_free(ctx);
    free(buf);
    free(name);
    /* the search itself refuses it outright */
    arch_near near;
    arch_near_names((const uint8_t *)"llamax", 6, &near);
    assert_int_equal(near.kind, NEAR_EDIT);
    arch_near_names((const uint8_t *)"llamax", (size_t)ARCH_NEAR_LEN_MAX + 1, &near);
    assert_int_equal(near.kind, NEAR_NONE);
}

/* Reference: the Levenshtein distance of a (case folded) and b, and whether
 * the one edit (distance 1) is a digit. */
static int ref_kind(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    char fa[80];
    for (size_t i = 0; i < la; i++)
        fa[i] = (char)(a[i] >= 'A' && a[i] <= 'Z' ? a[i] + 32 : a[i]);
    if (la == lb && memcmp(fa, b, la) == 0)
        return NEAR_CASE;
    unsigned d[81][81];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = d[i - 1][j - 1] + (fa[i - 1] != b[j - 1]);
            unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    if (d[la][lb] != 1)
        return NEAR_NONE;
    /* the differing byte: strip the common prefix and suffix */
    size_t p = 0;
    while (p < la && p < lb && fa[p] == b[p])
        p++;
    char x = p < la ? fa[p] : 0, y = p < lb ? b[p] : 0;
    if (la == lb)
        return x >= '0' && x <= '9' && y >= '0' && y <= '9' ? NEAR_DIGIT : NEAR_EDIT;
    /* an insertion or deletion: the extra byte may sit anywhere in a run of
     * equal bytes, so look at the longer string's byte at p */
    char e = la > lb ? x : y;
    return e >= '0' && e <= '9' ? NEAR_DIGIT : NEAR_EDIT;
}

/* The neighbour search against brute force: every known name, and 20000
 * random edits of them (up to two bytes changed, added or dropped). */
static void test_GG516_neighbours_brute_force(void **state)
{
    static const char alpha[] = "abcdelmnoqrstwxyzLAMQW0123456789-_";
    uint32_t rng = 12345;
    for (int t = 0; t < 20000 + (int)arch_info_count; t++) {
        char s[80];
        size_t n;
        if (t < (int)arch_info_count) {
            const char *k = arch_str(arch_infos[t].name);
            n = strlen(k);
            memcpy(s, k, n);
        } else {
            rng = rng * 1103515245u + 12345u;
            const char *k = arch_str(arch_infos[(rng >> 8) % arch_info_count].name);
            n = strlen(k);
            memcpy(s, k, n);
            int edits = 1 + (int)((rng >> 20) % 2);
            for (int e = 0; e < edits; e++) {
                rng = rng * 1103515245u + 12345u;
                size_t pos = n ? (rng >> 8) % (n + 1) : 0;
                char c = alpha[(rng >> 16) % (sizeof alpha - 1)];
                int op = (int)((rng >> 24) % 3);
                if (op == 0 && pos < n)
                    s[pos] = c;
                else if (op == 1 && n < 70) {
                    memmove(s + pos + 1, s + pos, n - pos);
                    s[pos] = c;
                    n++;
                } else if (pos < n && n > 1) {
                    memmove(s + pos, s + pos + 1, n - pos - 1);
                    n--;
                }
            }
        }
        /* the expected best kind and its count, over the names not equal to s */
        bool known = false;
        for (size_t i = 0; i < arch_info_count; i++) {
            const char *k = arch_str(arch_infos[i].name);
            known |= strlen(k) == n && memcmp(k, s, n) == 0;
        }
        if (known)
            continue; /* the search is only asked about unknown names */
        int best = NEAR_NONE;
        size_t count = 0;
        for (size_t i = 0; i < arch_info_count; i++) {
            int k = ref_kind(s, n, arch_str(arch_infos[i].name));
            if (k == NEAR_NONE || k < best)
                continue;
            if (k > best) {
                best = k;
                count = 0;
            }
            count++;
        }
        arch_near near;
        arch_near_names((const uint8_t *)s, n, &near);
        if (near.kind != best || near.count != count)
            fail_msg("'%.*s': kind %d count %zu, brute force %d count %zu", (int)n, s, near.kind,
                     near.count, best, count);
    }
}

/* without embedding_length or head_count the shapes that need them are
     * not compared: only the missing key is reported */
#define MISSING(key)                                                                               \
    {                                                                                              \
        key, LLAMA(.omit_key = key), .id = "GG541", .at = AT_ARCH, .count = { {"GG541", 1} }       \
    }
static const acase test_GG541_hparam_missing[] = {
    MISSING("llama.context_length"),
    MISSING("llama.embedding_length"),
    MISSING("llama.attention.layer_norm_rms_epsilon"),
    /* head_count_kv would default to the missing head_count */
    {"llama.attention.head_count", LLAMA(.omit_key = "llama.attention.head_count", .Hkv = 0),
     .id = "GG541", .at = AT_ARCH, .count = {{"GG541", 1}}},
    MISSING("llama.feed_forward_length"),
};
#undef MISSING

static const acase test_GG542_hparam_wrong_type[] = {
    {"context_length as u64", LLAMA(.omit_key = "llama.context_length", .kv_hook = ctx_u64_hook),
     .id = "GG542", .at = AT_KV("llama.context_length", start, 0)},
    {"the epsilon as f64",
     LLAMA(.omit_key = "llama.attention.layer_norm_rms_epsilon", .kv_hook = eps_f64_hook),
     .id = "GG542", .at = AT_KV("llama.attention.layer_norm_rms_epsilon", start, 0)},
    /* (aborted llama.cpp in Feb 2025); head_count is then unknown, so no
         * shape depending on it is compared */
    {"head_count as a per-layer array of f32",
     LLAMA(.omit_key = "llama.attention.head_count", .kv_hook = heads_f32_arr_hook), .id = "GG542",
     .at = AT_KV("llama.attention.head_count", start, 0)},
    {"also for known architectures that are not modelled",
     LLAMA(.arch = "baichuan", .layout = LAYOUT_NONE, .omit_key = "baichuan.context_length",
           .kv_hook = ctx_u64_hook),
     .id = "GG542", .at = AT_KV("baichuan.context_length", start, 0)},
};

static const acase test_GG543_hparam_array_invalid[] = {
    {"i32 per-layer arrays of block_count elements are fine",
     LLAMA(.omit_key = "llama.feed_forward_length", .kv_hook = ff_arr_ok_hook), .clean = true},
    {"3 elements for 2 layers: at the value",
     LLAMA(.omit_key = "llama.attention.head_count_kv", .kv_hook = hkv_arr3_hook), .id = "GG543",
     .at = AT_KV("llama.attention.head_count_kv", value, 0)},
    {"a negative element: at the element (layer 1's shapes then use layer 0)",
     LLAMA(.omit_key = "llama.feed_forward_length", .kv_hook = ff_arr_neg_hook), .id = "GG543",
     .at = AT_KV("llama.feed_forward_length", arr_elems, 4)},
    {"rope sections of qwen2vl: exactly 4 elements",
     QWEN2(.arch = "qwen2vl", .kv_hook = sections3_hook), .id = "GG543",
     .at = AT_KV("qwen2vl.rope.dimension_sections", value, 0)},
};

static const acase test_GG544_hparam_array_uint32[] = {
    {"head_count_kv as an array of u32",
     LLAMA(.omit_key = "llama.attention.head_count_kv", .kv_hook = hkv_u32_arr_hook), .id = "GG544",
     .at = AT_KV("llama.attention.head_count_kv", start, 0), .sev = {"GG544", GGUFLINT_WARNING}},
};

static const acase test_GG545_block_count_over_limit[] = {
    {"513 blocks in a vocabulary-only file (no tensors to miss)",
     LLAMA(.layout = LAYOUT_NONE, .L = 513), .id = "GG545",
     .at = AT_KV("llama.block_count", value, 0)},
    {"512 blocks", LLAMA(.layout = LAYOUT_NONE, .L = 512), .clean = true},
    /* the layer walk stops at 512 and the missing-tensor findings are
         * capped (max_findings_per_rule), the run stays fast */
    {"a hostile block_count with tensors", LLAMA(.L = 0xFFFFFFFFu, .keep_layer0_only = true),
     .count = {{"GG545", 1}, {"GG551", 100}}},
};

/* GG533: the loader's asserts (data/arch/hparam_asserts.def); a
 * metadata-only first shard with only the keys under test (GG541, the
 * other required keys, deselected) */
static void grove_zero_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "experts_per_group", 0);
}
static void grove_two_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "experts_per_group", 2);
}
static void jamba_inner_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "ssm.inner_size", m->F); /* F carries the value under test */
}
static void minimax_block_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "attention.indexer.block_size", 0);
}
static void sections_zero_hook(gb *b, const mspec *m)
{
    static const int32_t v[4] = {0, 0, 0, 0};
    kv_i32s(b, m, "rope.dimension_sections", v, 4, GB_VT_I32);
}
static void sections_ok_hook(gb *b, const mspec *m)
{
    static const int32_t v[4] = {0, 2, 2, 0};
    kv_i32s(b, m, "rope.dimension_sections", v, 4, GB_VT_I32);
}
static void sections_scalar_zero_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "rope.dimension_sections", 0);
}
static void gating_zero_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "expert_gating_func", 0);
}
static void gating_two_hook(gb *b, const mspec *m)
{
    kv_u32(b, m, "expert_gating_func", 2);
}
#define SHARD(...) LLAMA(.layout = LAYOUT_NONE, .split_count = 2, __VA_ARGS__), .ignore = "GG541"

static const acase test_GG533_hparam_assert[] = {
    {"grovemoe with experts_per_group 0 (GGML_ASSERT n_group_experts > 0)",
     SHARD(.arch = "grovemoe", .kv_hook = grove_zero_hook), .id = "GG533",
     .at = AT_KV("grovemoe.experts_per_group", value, 0), .count = {{"GG533", 1}}},
    {"grovemoe with experts_per_group 2", SHARD(.arch = "grovemoe", .kv_hook = grove_two_hook),
     .count = {{"GG533", 0}}},
    {"grovemoe without experts_per_group: its default 0 fails, at the architecture",
     SHARD(.arch = "grovemoe"), .id = "GG533", .at = AT_ARCH, .count = {{"GG533", 1}}},
    {"jamba with ssm.inner_size 48 for embedding_length 32 (needs 64)",
     SHARD(.arch = "jamba", .F = 48, .kv_hook = jamba_inner_hook), .id = "GG533",
     .at = AT_KV("jamba.ssm.inner_size", value, 0), .count = {{"GG533", 1}}},
    {"jamba with ssm.inner_size 64 = 2 x embedding_length",
     SHARD(.arch = "jamba", .F = 64, .kv_hook = jamba_inner_hook), .count = {{"GG533", 0}}},
    {"minimax-m3 with indexer.block_size 0 (a K: key)",
     SHARD(.arch = "minimax-m3", .kv_hook = minimax_block_hook), .id = "GG533",
     .at = AT_KV("minimax-m3.attention.indexer.block_size", value, 0), .count = {{"GG533", 1}}},
    {"minimax-m3 without the key: undecided here (the missing key is GG541's)",
     SHARD(.arch = "minimax-m3"), .count = {{"GG533", 0}}},
    {"qwen2vl: rope.dimension_sections all 0 (ggml's multi-section rope asserts)",
     SHARD(.arch = "qwen2vl", .kv_hook = sections_zero_hook), .id = "GG533",
     .at = AT_KV("qwen2vl.rope.dimension_sections", value, 0), .count = {{"GG533", 1}}},
    /* (GG542 also speaks: a scalar where the table reads an array) */
    {"qwen2vl: rope.dimension_sections as the scalar 0 (spread over the four)",
     SHARD(.arch = "qwen2vl", .kv_hook = sections_scalar_zero_hook), .count = {{"GG533", 1}}},
    {"qwen2vl: one positive section", SHARD(.arch = "qwen2vl", .kv_hook = sections_ok_hook),
     .count = {{"GG533", 0}}},
    {"exaone-moe: expert_gating_func 0 (build_moe_ffn aborts)",
     SHARD(.arch = "exaone-moe", .kv_hook = gating_zero_hook), .id = "GG533",
     .at = AT_KV("exaone-moe.expert_gating_func", value, 0), .count = {{"GG533", 1}}},
    {"exaone-moe: expert_gating_func 2 (sigmoid)",
     SHARD(.arch = "exaone-moe", .kv_hook = gating_two_hook), .count = {{"GG533", 0}}},
    {"qwen: head_count 3 does not divide embedding_length 32",
     SHARD(.arch = "qwen", .H = 3, .Hkv = 3), .id = "GG533",
     .at = AT_KV("qwen.attention.head_count", value, 0), .count = {{"GG533", 1}}},
    {"qwen: head_count_kv 8 over head_count 4", SHARD(.arch = "qwen", .H = 4, .Hkv = 8),
     .id = "GG533", .at = AT_KV("qwen.attention.head_count_kv", value, 0), .count = {{"GG533", 1}}},
    {"qwen: 4 heads of 8", SHARD(.arch = "qwen", .H = 4, .Hkv = 4), .count = {{"GG533", 0}}},
    {"a llama model: no row of its own, and block_count 2 passes the '*' row", SHARD(),
     .count = {{"GG533", 0}}},
    {"block_count 0: every architecture (load_hparams asserts n_layer > 0)", SHARD(.L = 0),
     .id = "GG533", .at = AT_KV("llama.block_count", value, 0), .count = {{"GG533", 1}}},
};

/* GG574 compares output.weight's rows with the tokens only where the
 * architecture makes it one row per token (found by the loader
 * differential: wavtokenizer-dec's output is [n_embd, n_embd_out]) */
static const acase test_GG574_output_rows[] = {
    {"llama: an output.weight of 32 rows for 16 tokens",
     LLAMA(.layout = LAYOUT_NONE, .extra = {T2("output.weight", 32, 32)}), .count = {{"GG574", 1}}},
    {"wavtokenizer-dec: output.weight is [n_embd, n_embd_out]",
     LLAMA(.arch = "wavtokenizer-dec", .layout = LAYOUT_NONE,
           .extra = {T2("output.weight", 32, 32)}),
     .count = {{"GG574", 0}}},
};

static void test_rows_are_vocab(void **state)
{
    const arch_info *l = arch_find((const uint8_t *)"llama", 5);
    const arch_info *w = arch_find((const uint8_t *)"wavtokenizer-dec", 16);
    assert_non_null(l);
    assert_non_null(w);
    assert_true(arch_rows_are_vocab(l, "output.weight"));
    assert_true(arch_rows_are_vocab(l, "token_embd.weight"));
    assert_false(arch_rows_are_vocab(w, "output.weight"));
    assert_true(arch_rows_are_vocab(w, "token_embd.weight"));
    assert_true(arch_rows_are_vocab(NULL, "output.weight"));
    assert_true(arch_rows_are_vocab(l, "no.such.tensor"));
}

/* Every row of the table names a known architecture and translates. */
static void test_GG533_table(void **state)
{
    assert_true(arch_assert_count() > 0);
    for (size_t i = 0; i < arch_assert_count(); i++) {
        const char *a = arch_assert_arch(i);
        assert_non_null(a);
        if (strcmp(a, "*") != 0)
            assert_non_null(arch_find((const uint8_t *)a, strlen(a)));
    }
    char out[64];
    assert_true(arch_assert_translate(NULL, "n_embd 2 * K:x.y ==", out, sizeof out));
    assert_string_equal(out, "#1 2 * U ==");
    assert_false(arch_assert_translate(NULL, "no_such_symbol 0 >", out, sizeof out));
    assert_false(arch_assert_translate(NULL, "n_embd 0 >", out, 4));
}

/* no tensors, so that only the hyper-parameter rule speaks */
static const acase test_GG546_head_count_zero[] = {
    {"a zero in the head_count_kv array of a metadata-only first shard",
     LLAMA(.layout = LAYOUT_NONE, .split_count = 2, .Hkv = 0,
           .omit_key = "llama.attention.head_count_kv", .kv_hook = hkv_zero_arr_hook),
     .id = "GG546", .at = AT_KV("llama.attention.head_count_kv", arr_elems, 4)},
    /* model_tensors is not called for LAYOUT_NONE, E / H is not computed */
    {"head_count 0", LLAMA(.layout = LAYOUT_NONE, .H = 0, .Hkv = 0), .id = "GG546",
     .at = AT_KV("llama.attention.head_count", value, 0)},
    {"not for a known architecture without attention (mamba writes 0)",
     LLAMA(.arch = "mamba", .layout = LAYOUT_NONE, .H = 0, .Hkv = 0), .clean = true},
};

static const acase test_GG547_head_count_inconsistent[] = {
    {"4 query heads over 3 key/value heads", LLAMA(.layout = LAYOUT_NONE, .Hkv = 3), .id = "GG547",
     .at = AT_KV("llama.attention.head_count_kv", value, 0)},
    {"qwen2: E = 32 with 5 heads does not split", QWEN2(.layout = LAYOUT_NONE, .H = 5, .Hkv = 1),
     .id = "GG547", .at = AT_KV("qwen2.attention.head_count", value, 0)},
    {"the same numbers are fine for llama (q is [E, Dk * H])",
     QWEN2(.arch = "llama", .layout = LAYOUT_NONE, .H = 5, .Hkv = 1), .clean = true},
};

static const acase test_GG548_rope_dimension_mismatch[] = {
    {"rope.dimension_count 4 for heads of 8",
     LLAMA(.omit_key = "llama.rope.dimension_count", .kv_hook = rope_hook), .id = "GG548",
     .at = AT_KV("llama.rope.dimension_count", value, 0)},
    {"refact does not tie the rope to the head",
     LLAMA(.arch = "refact", .omit_key = "refact.rope.dimension_count", .kv_hook = rope_hook),
     .clean = true},
};

static const acase test_GG549_expert_count_invalid[] = {
    {"5 of 4 experts used", MOE(.Xused = 5), .id = "GG549",
     .at = AT_KV("llama.expert_used_count", value, 0)},
    {"0 experts used", MOE(.Xused = 0), .id = "GG549",
     .at = AT_KV("llama.expert_used_count", value, 0)},
    {"no expert_used_count at all: at expert_count", MOE(.omit_key = "llama.expert_used_count"),
     .id = "GG549", .at = AT_KV("llama.expert_count", value, 0)},
};

static const acase test_GG550_rope_scaling_type_unknown[] = {
    {"dynamic", LLAMA(.kv_hook = scaling_hook), .id = "GG550",
     .at = AT_KV("llama.rope.scaling.type", value, 0)},
    {"yarn", LLAMA(.kv_hook = scaling_ok_hook), .clean = true},
};

static const acase test_GG551_tensor_missing[] = {
    {"llama without blk.1.attn_v", LLAMA(.omit_tensor = "blk.1.attn_v.weight"), .id = "GG551",
     .at = AT_ARCH, .count = {{"GG551", 1}}},
    /* the q/k/v biases are optional in llama.cpp of 2026-08-22 (required in
     * the tables of Oct 2025) */
    {"qwen2: the biases are optional", QWEN2(.omit_tensor = "blk.0.attn_k.bias"), .clean = true},
    {"qwen2: the output norm is required", QWEN2(.omit_tensor = "output_norm.weight"),
     .id = "GG551", .at = AT_ARCH},
    {"MoE: the router", MOE(.omit_tensor = "blk.0.ffn_gate_inp.weight"), .id = "GG551",
     .at = AT_ARCH},
};

static const acase test_GG552_tensor_unexpected[] = {
    {"a name neither llama's table nor gguf-py knows",
     LLAMA(.extra = {T1("blk.0.attn_bogus.weight", 4)}), .id = "GG552",
     .at = AT_T("blk.0.attn_bogus.weight", start)},
    {"dense feed-forward tensors in a MoE model", MOE(.extra = {T2("blk.1.ffn_up.weight", 32, 64)}),
     .id = "GG552", .at = AT_T("blk.1.ffn_up.weight", start)},
    {"ssm_in is not qwen2's at all", QWEN2(.extra = {T2("blk.0.ssm_in.weight", 32, 64)}),
     .id = "GG552", .at = AT_T("blk.0.ssm_in.weight", start)},
    {"a name with a control byte is escaped", LLAMA(.extra = {T1("x\x1b[2Jy.weight", 4)}),
     .escaped = true},
};

/* A tensor the table does not create but gguf-py's MODEL_TENSORS lists for
 * the architecture: a warning (a file newer than the tables), not GG552. */
static const acase test_GG594_tensor_unknown_to_table[] = {
    {"attn_rot_embd in llama: gguf-py lists it",
     LLAMA(.extra = {T1("blk.0.attn_rot_embd.weight", 4)}), .id = "GG594",
     .at = AT_T("blk.0.attn_rot_embd.weight", start), .count = {{"GG552", 0}},
     .sev = {"GG594", GGUFLINT_WARNING}},
    {"rope_freqs in qwen2: gguf-py lists it", QWEN2(.extra = {T1("rope_freqs.weight", 4)}),
     .id = "GG594", .at = AT_T("rope_freqs.weight", start), .count = {{"GG552", 0}}},
    {"any suffix of a listed name", LLAMA(.extra = {T1("blk.1.attn_rot_embd.bias", 4)}),
     .id = "GG594", .at = AT_T("blk.1.attn_rot_embd.bias", start)},
    {"a listed name with a padded layer number is not it",
     LLAMA(.extra = {T1("blk.01.attn_rot_embd.weight", 4)}), .count = {{"GG594", 0}}},
    {"a listed name with two suffixes is not it",
     LLAMA(.extra = {T1("blk.0.attn_rot_embd.weight.x", 4)}), .count = {{"GG594", 0}}},
    {"the clean llama model", LLAMA(), .clean = true, .count = {{"GG594", 0}, {"GG552", 0}}},
};

/* feed_forward_length written as 0: llama.cpp sizes the FFN tensors [E, 0]
 * and refuses the file (found by the loader differential, ci/loader-oracle) */
static void ff_zero_hook(gb *b, const mspec *m)
{
    (void)m;
    gb_kv_u32(b, "llama.feed_forward_length", 0);
}

static const acase test_GG553_tensor_shape_mismatch[] = {
    {"feed_forward_length written as 0: the FFN tensors no longer fit",
     LLAMA(.omit_key = "llama.feed_forward_length", .kv_hook = ff_zero_hook), .id = "GG553",
     .at = AT_T("blk.0.ffn_gate.weight", dim[1])},
    {"attn_k written for 4 key/value heads instead of 2: ne[1]",
     LLAMA(.reshape = T2("blk.1.attn_k.weight", 32, 32)), .id = "GG553",
     .at = AT_T("blk.1.attn_k.weight", dim[1])},
    /* token_embd rows against the number of tokens are the vocabulary
         * rule GG574, not reported twice */
    {"token_embd with 17 rows for 16 tokens", LLAMA(.reshape = T2("token_embd.weight", 32, 17)),
     .count = {{"GG553", 0}}},
    {"token_embd's ne[0] is still E", LLAMA(.reshape = T2("token_embd.weight", 16, 16)),
     .id = "GG553", .at = AT_T("token_embd.weight", dim[0])},
    {"a norm with a second dim", LLAMA(.reshape = T2("output_norm.weight", 32, 2)), .id = "GG553",
     .at = AT_T("output_norm.weight", dim[1])},
    {"a trailing dim of 1 is the same shape to llama.cpp",
     LLAMA(.reshape = T2("output_norm.weight", 32, 1)), .clean = true},
    {"MoE: experts stored 2-D: the n_dims field",
     MOE(.reshape = T2("blk.0.ffn_down_exps.weight", 64, 32)), .id = "GG553",
     .at = AT_T("blk.0.ffn_down_exps.weight", n_dims)},
    {"MoE: the expert count", MOE(.reshape = T3("blk.1.ffn_up_exps.weight", 32, 64, 8)),
     .id = "GG553", .at = AT_T("blk.1.ffn_up_exps.weight", dim[2])},
    {"qwen2: attn_output is [E, E]", QWEN2(.reshape = T2("blk.0.attn_output.weight", 32, 16)),
     .id = "GG553", .at = AT_T("blk.0.attn_output.weight", dim[1])},
    {"without tokens, V is token_embd's ne[1]: output must agree",
     LLAMA(.no_tokens = true, .reshape = T2("output.weight", 32, 15)), .id = "GG553",
     .at = AT_T("output.weight", dim[1])},
};

static void test_GG553_v1_offsets(void **state)
{
    static const acase cases[] = {
        {"GGUF v1: 4-byte dims",
         LLAMA(.version = 1, .reshape = T2("blk.0.ffn_gate.weight", 32, 48)), .id = "GG553",
         .at = AT_T("blk.0.ffn_gate.weight", dim[1])},
    };
    run_cases(cases);
    /* the marks of the model just built */
    assert_int_equal(tm("blk.0.ffn_gate.weight")->dim[1], tm("blk.0.ffn_gate.weight")->dim[0] + 4);
}

#define BLK "blk.99999999999999999999999.attn_norm.weight"
static const acase test_GG554_block_index_out_of_range[] = {
    {"blk.2 of 2 blocks", LLAMA(.extra = {T1("blk.2.attn_norm.weight", 32)}), .id = "GG554",
     .at = AT_T("blk.2.attn_norm.weight", start)},
    {"an index over 64 bits", LLAMA(.extra = {T1(BLK, 32)}), .id = "GG554", .at = AT_T(BLK, start)},
};
#undef BLK

#define BAD(name)                                                                                  \
    {                                                                                              \
        name, LLAMA(.extra = {T1(name, 32)}), .id = "GG555", .at = AT_T(name, start)               \
    }
static const acase test_GG555_block_index_malformed[] = {
    BAD("blk.01.attn_norm.weight"), BAD("blk.+1.attn_norm.weight"),
    BAD("blk..attn_norm.weight"),   BAD("blk.1"),
    BAD("blk.1x.attn_norm.weight"),
};
#undef BAD

/* ================================================================ profiles */

#define CTX_U64 LLAMA(.omit_key = "llama.context_length", .kv_hook = ctx_u64_hook)
static const acase test_profiles[] = {
    {"spec: a wrong hyper-parameter type is a warning", CTX_U64, .profile = "spec",
     .sev = {"GG542", GGUFLINT_WARNING}},
    {"an ignored rule is not reported", CTX_U64, .ignore = "GG542", .count = {{"GG542", 0}}},
    {"strict: an unknown architecture is a warning", LLAMA(.arch = "llama-custom"),
     .profile = "strict", .count = {{"GG540", 1}}, .sev = {"GG540", GGUFLINT_WARNING}},
};
#undef CTX_U64

/* Real model files (optional: ../shared/gguf-realfiles) raise no architecture
 * error: the generated tables must not reject what llama.cpp loads. */
static void test_real_files_arch_clean(void **state)
{
    ex_dir_clean(GGUFLINT_REALFILES_DIR, ".gguf", "GG54", GGUFLINT_ERROR);
    ex_dir_clean(GGUFLINT_REALFILES_DIR, ".gguf", "GG55", GGUFLINT_ERROR);
    ex_dir_clean(GGUFLINT_REALFILES_DIR, ".gguf", "GG56", GGUFLINT_ERROR);
}

EX_MAIN(NULL, NULL,
        {
            TABLE_TEST(test_llama_clean),
            TABLE_TEST(test_llama_family_clean),
            TABLE_TEST(test_llama_optional_tensors_clean),
            TABLE_TEST(test_qwen2_clean),
            TABLE_TEST(test_qwen2vl_clean),
            TABLE_TEST(test_moe_clean),
            TABLE_TEST(test_granite),
            TABLE_TEST(test_granitemoe_shared_experts),
            TABLE_TEST(test_vocab_only_clean),
            TABLE_TEST(test_split_shard_clean),
            TABLE_TEST(test_known_unmodelled_clean),
            cmocka_unit_test(test_adapter_clean),
            TABLE_TEST(test_GG513_general_type_not_adapter),
            TABLE_TEST(test_GG514_c_string_nul),
            TABLE_TEST(test_GG516_architecture_misspelled),
            cmocka_unit_test(test_GG516_long_name),
            cmocka_unit_test(test_GG516_neighbours_brute_force),
            TABLE_TEST(test_GG540_unknown_architecture),
            TABLE_TEST(test_GG541_hparam_missing),
            TABLE_TEST(test_GG542_hparam_wrong_type),
            TABLE_TEST(test_GG543_hparam_array_invalid),
            TABLE_TEST(test_GG544_hparam_array_uint32),
            TABLE_TEST(test_GG545_block_count_over_limit),
            TABLE_TEST(test_GG533_hparam_assert),
            cmocka_unit_test(test_GG533_table),
            TABLE_TEST(test_GG574_output_rows),
            cmocka_unit_test(test_rows_are_vocab),
            TABLE_TEST(test_GG546_head_count_zero),
            TABLE_TEST(test_GG547_head_count_inconsistent),
            TABLE_TEST(test_GG548_rope_dimension_mismatch),
            TABLE_TEST(test_GG549_expert_count_invalid),
            TABLE_TEST(test_GG550_rope_scaling_type_unknown),
            TABLE_TEST(test_GG551_tensor_missing),
            TABLE_TEST(test_GG552_tensor_unexpected),
            TABLE_TEST(test_GG594_tensor_unknown_to_table),
            TABLE_TEST(test_GG553_tensor_shape_mismatch),
            cmocka_unit_test(test_GG553_v1_offsets),
            TABLE_TEST(test_GG554_block_index_out_of_range),
            TABLE_TEST(test_GG555_block_index_malformed),
            TABLE_TEST(test_profiles),
            cmocka_unit_test(test_real_files_arch_clean),
        })

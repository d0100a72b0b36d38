/* test_arch_models.c - a tiny model for every architecture with full tables
 * (data/arch/gen_*.def), written the way convert_hf_to_gguf.py writes one:
 * general.architecture, the hyper-parameters the loader requires (plus the
 * usual block_count / embedding_length / heads / feed-forward keys, and
 * experts for mixture-of-experts loaders), a 16-token vocabulary, and every
 * tensor the loader requires for those values with the shape it asks for.
 *
 * Each model must lint with no error. Then three broken copies must each give
 * exactly one error, at the expected offset:
 *   - a required tensor left out:       GG551 at general.architecture's value;
 *   - one dimension of a tensor off by one: GG553 at that dim field;
 *   - context_length written as u64:    GG542 at that KV.
 *
 * The tensor list comes from the same tables the checks read, evaluated by
 * the same evaluator on a metadata-only copy of the model: the test pins that
 * the tables are self-consistent (a loader's required tensors satisfy its own
 * shape rules) and that every rule fires at its place for every
 * architecture. It does not prove the tables match llama.cpp: the freshness
 * test (arch_tables_fresh) ties them to the generator's input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "tiny_llama.h"

#include "gguf_builder.h"
#include "gguflint.h"
#include "model/arch_eval.h"

#define V_TOKENS 16
#define MAX_TENSORS 2048
#define MAX_LAYERS_BUILT 4

typedef struct tensor_plan {
    char name[96];
    uint32_t nd;
    uint64_t ne[4];
    bool per_layer;
} tensor_plan;

typedef enum { BROKEN_NONE, BROKEN_OMIT, BROKEN_SHAPE, BROKEN_TYPE } broken;

typedef struct build_opts {
    broken how;
    size_t victim; /* tensor index for OMIT / SHAPE */
} build_opts;

typedef struct built {
    uint8_t *buf;
    size_t len;
    size_t arch_value;  /* offset of general.architecture's value (length field) */
    size_t ctx_kv;      /* offset of [arch].context_length's KV */
    size_t victim_dim0; /* offset of the victim tensor's ne[0] field */
    size_t zero_value;  /* offset of knob.zero_key's value */
} built;

/* ------------------------------------------------------------ key values */

/* The tiny model's choices, tried in turn until the metadata determines every
 * required tensor: experts for loaders with a mixture-of-experts branch (or
 * not), and a rope dimension below the head size (MLA loaders size tensors
 * with head size - rope dimension). */
static struct {
    bool moe;
    uint32_t rope_dim; /* 0: not written */
    bool no_tokens;    /* write no tokenizer.ggml.tokens (see output_not_vocab) */
    /* the variants of test_llama_cpp_2026_08_22 */
    const char *omit_key;    /* [arch].suffix not written */
    const char *zero_key;    /* [arch].suffix written as u32 0 */
    const char *const *add;  /* optional rows (table names) planned too */
    const char *const *drop; /* required rows (table names) not planned */
} knob;

static bool listed(const char *const *list, const arch_tensor *r)
{
    for (const char *const *p = list; p && *p; p++)
        if (strcmp(*p, arch_str(r->name)) == 0)
            return true;
    return false;
}

/* An architecture whose output.weight is not [n_embd, n_vocab] (wavtokenizer-dec:
 * [convnext.embedding_length, embedding_length], audio features): its
 * converter writes no vocabulary (convert_hf_to_gguf's _set_vocab_none), so
 * the tiny model has none either once its tensors are planned (the plan
 * needs the tokens to size token_embd.weight; without them n_vocab is that
 * tensor's rows, as in llama.cpp). */
static bool output_not_vocab(const arch_info *a)
{
    int v = arch_sym_index("n_vocab");
    char tok[16];
    snprintf(tok, sizeof tok, "#%d", v);
    for (uint16_t i = 0; i < a->tensor_count; i++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + i];
        if (strcmp(arch_str(r->name), "output.weight") == 0 && r->required)
            return strcmp(arch_str(r->ne[1]), tok) != 0;
    }
    return false;
}

static bool is_moe(const arch_info *a)
{
    for (uint16_t i = 0; i < a->tensor_count; i++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + i];
        if (r->required && strstr(arch_str(r->name), "_exps"))
            return true;
    }
    return false;
}

static uint32_t u32_value(const char *suffix)
{
    static const struct {
        const char *key;
        uint32_t v;
    } known[] = {
        {"block_count", 2},
        {"embedding_length", 32},
        {"context_length", 64},
        {"feed_forward_length", 48},
        {"attention.head_count", 4},
        {"attention.head_count_kv", 2},
        {"attention.key_length", 8},
        {"attention.value_length", 8},
        {"rope.dimension_count", 8},
        {"expert_count", 4},
        {"expert_used_count", 2},
        {"expert_feed_forward_length", 16},
        {"expert_shared_feed_forward_length", 16},
        {"expert_shared_count", 1},
        {"leading_dense_block_count", 1},
        {"vocab_size", V_TOKENS},
        {"ssm.conv_kernel", 4},
        {"ssm.inner_size", 64},
        {"ssm.state_size", 8},
        {"ssm.time_step_rank", 4},
        {"ssm.group_count", 1},
        {"wkv.head_size", 8},
        {"attention.kv_lora_rank", 8},
        {"attention.q_lora_rank", 8},
        {"attention.key_length_mla", 12},
        {"attention.value_length_mla", 8},
        {"attention.sliding_window", 4},
        {"pooling_type", 1},
        {"decoder_block_count", 2},
        /* no multi-token-prediction layers: every block is a trunk block */
        {"nextn_predict_layers", 0},
        {"attention.key_length_swa", 4},
        {"attention.value_length_swa", 4},
        {"embedding_length_per_layer_input", 4},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].key, suffix) == 0)
            return known[i].v;
    return 4;
}

static float f32_value(const char *suffix)
{
    return strstr(suffix, "epsilon") ? 1e-5f : 1.0f;
}

/* Does a required tensor row of `a` use a symbol read from key `suffix`
 * (in its shape or layer count)? Such a key is written even when the loader
 * reads it as optional: a converter writes what the weights need. */
static bool needed_by_tensors(const arch_info *a, const char *suffix)
{
    for (uint16_t i = 0; i < a->tensor_count; i++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + i];
        if (!r->required)
            continue;
        const char *f[5] = {arch_str(r->ne[0]), arch_str(r->ne[1]), arch_str(r->ne[2]),
                            arch_str(r->ne[3]), arch_str(r->count)};
        for (int j = 0; j < 5; j++)
            for (const char *p = f[j]; (p = strpbrk(p, "#@")) != NULL;) {
                long s = strtol(p + 1, NULL, 10);
                p++;
                if (s >= 0 && (size_t)s < arch_sym_count && arch_str(arch_syms[s].key)[0] &&
                    strcmp(arch_str(arch_syms[s].key), suffix) == 0)
                    return true;
            }
    }
    return false;
}

/* Is key row `k` one the tiny model writes? */
static bool writes_key(const arch_info *a, const arch_key *k, bool moe)
{
    static const char *const always[] = {"block_count",
                                         "embedding_length",
                                         "context_length",
                                         "feed_forward_length",
                                         "attention.head_count",
                                         "attention.head_count_kv",
                                         NULL};
    if (k->required || needed_by_tensors(a, arch_str(k->suffix)))
        return true;
    for (const char *const *s = always; *s; s++)
        if (strcmp(*s, arch_str(k->suffix)) == 0)
            return true;
    if (knob.rope_dim && strcmp(arch_str(k->suffix), "rope.dimension_count") == 0)
        return true;
    return moe && (strcmp(arch_str(k->suffix), "expert_count") == 0 ||
                   strcmp(arch_str(k->suffix), "expert_used_count") == 0);
}

static void write_key(gb *b, const char *arch, const arch_key *k, bool as_u64, built *out)
{
    char key[160];
    if (arch_str(k->suffix)[0] == '=')
        snprintf(key, sizeof key, "%s", arch_str(k->suffix) + 1);
    else
        snprintf(key, sizeof key, "%s.%s", arch, arch_str(k->suffix));
    switch (k->type) {
    case KT_U32:
    case KT_LAYERS:
        if (strncmp(arch, "gemma4", 6) == 0 &&
            strcmp(arch_str(k->suffix), "attention.sliding_window_pattern") == 0) {
            /* as convert_hf_to_gguf.py writes Gemma 4: one bool per layer,
             * the last layer full attention */
            uint8_t swa[2] = {1, 0};
            gb_kv_arr(b, key, GB_VT_BOOL, 2, swa, sizeof swa);
            break;
        }
        if (knob.rope_dim && strcmp(arch_str(k->suffix), "rope.dimension_count") == 0)
            gb_kv_u32(b, key, knob.rope_dim);
        else if (as_u64)
            gb_kv_u64(b, key, u32_value(arch_str(k->suffix)));
        else
            gb_kv_u32(b, key, u32_value(arch_str(k->suffix)));
        break;
    case KT_I32: gb_kv_i32(b, key, (int32_t)u32_value(arch_str(k->suffix))); break;
    case KT_F32:
    case KT_F32_LAYERS: gb_kv_f32(b, key, f32_value(arch_str(k->suffix))); break;
    case KT_BOOL: gb_kv_bool(b, key, false); break;
    case KT_STR: gb_kv_str(b, key, "none"); break;
    case KT_SECTIONS: {
        int32_t s[4] = {2, 1, 1, 0};
        gb_kv_arr(b, key, GB_VT_I32, 4, s, sizeof s);
        break;
    }
    case KT_ARR_INT:
    case KT_ARR_ANY: {
        /* one element per layer (is_swa / rope patterns, deepstack maps) */
        int32_t v[2] = {0, 0};
        gb_kv_arr(b, key, GB_VT_I32, 2, v, sizeof v);
        break;
    }
    case KT_ARR_F32: {
        float v[2] = {1.0f, 1.0f};
        gb_kv_arr(b, key, GB_VT_F32, 2, v, sizeof v);
        break;
    }
    default: {
        const char *labels[1] = {"label"};
        gb_kv_arr_str(b, key, labels, 1);
        break;
    }
    }
    if (strcmp(arch_str(k->suffix), "context_length") == 0)
        out->ctx_kv = gb_last(b)->start;
}

/* The architecture's own key rows then the shared ones, each suffix once. */
static size_t key_rows(const arch_info *a, const arch_key **rows, size_t cap)
{
    size_t n = 0;
    for (uint16_t i = 0; i < a->key_count && n < cap; i++)
        rows[n++] = &arch_keys[a->key_first + i];
    for (uint16_t i = 0; i < arch_common_count && n < cap; i++) {
        const arch_key *c = &arch_keys[arch_common_first + i];
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++)
            dup = strcmp(arch_str(rows[j]->suffix), arch_str(c->suffix)) == 0;
        if (!dup)
            rows[n++] = c;
    }
    return n;
}

static void write_kvs(gb *b, const arch_info *a, bool ctx_u64, built *out)
{
    static char tok_text[V_TOKENS][8];
    static const char *toks[V_TOKENS];
    static float scores[V_TOKENS];
    static int32_t types[V_TOKENS];

    gb_kv_str(b, "general.architecture", arch_str(a->name));
    out->arch_value = gb_last(b)->value;
    gb_kv_str(b, "general.name", "gguflint tiny model");
    const arch_key *rows[512];
    size_t n = key_rows(a, rows, 512);
    bool moe = knob.moe;
    for (size_t i = 0; i < n; i++) {
        const char *sfx = arch_str(rows[i]->suffix);
        if (knob.omit_key && strcmp(knob.omit_key, sfx) == 0)
            continue;
        if (knob.zero_key && strcmp(knob.zero_key, sfx) == 0) {
            char key[160];
            snprintf(key, sizeof key, "%s.%s", arch_str(a->name), sfx);
            gb_kv_u32(b, key, 0);
            out->zero_value = gb_last(b)->value;
            continue;
        }
        if (writes_key(a, rows[i], moe))
            write_key(b, arch_str(a->name), rows[i], ctx_u64 && strcmp(sfx, "context_length") == 0,
                      out);
    }
    for (uint32_t i = 0; i < V_TOKENS; i++) {
        snprintf(tok_text[i], sizeof tok_text[i], "t%u", i);
        toks[i] = i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : tok_text[i];
        scores[i] = -(float)i;
        types[i] = i == 0 ? 2 : i < 3 ? 3 : 1;
    }
    if (knob.no_tokens) {
        gb_kv_str(b, "tokenizer.ggml.model", "none");
        return;
    }
    gb_llama_vocab(b, toks, scores, types, V_TOKENS);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    gb_kv_u32(b, "tokenizer.ggml.token_type_count", 2);
}

/* ---------------------------------------------------------------- tensors */

/* The required tensors of the tiny model, from the tables evaluated on its
 * metadata. Returns the count, or 0 with *why set when a required tensor's
 * condition or shape is not determined by the metadata. */
static size_t plan_tensors(const arch_info *a, tensor_plan *plan, const char **why)
{
    built meta = {0};
    gb *b = gb_new(3);
    assert_non_null(b);
    write_kvs(b, a, false, &meta);
    meta.buf = ex_finish(b, &meta.len);

    gguflint_options opt;
    gguflint_options_default(&opt);
    gguflint_ctx *ctx = gguflint_new(&opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, meta.buf, meta.len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    arch_env env;
    arch_env_init(&env, ctx, a, arch_str(a->name));

    size_t n = 0;
    *why = NULL;
    for (uint16_t k = 0; k < a->tensor_count && !*why; k++) {
        const arch_tensor *r = &arch_tensors[a->tensor_first + k];
        if ((!r->required && !listed(knob.add, r)) || listed(knob.drop, r))
            continue;
        bool per_layer = strstr(arch_str(r->name), "%d") != NULL;
        uint32_t layers = 1;
        if (per_layer) {
            arch_val c = arch_eval(&env, arch_str(r->count), 0, 0);
            if (!c.known) {
                *why = "a layer count the metadata does not determine";
                break;
            }
            layers = c.v > 0 ? (uint32_t)(c.v < MAX_LAYERS_BUILT ? c.v : MAX_LAYERS_BUILT) : 0;
        }
        for (uint32_t l = 0; l < layers && !*why; l++) {
            arch_val c = arch_eval(&env, arch_str(r->cond), l, 1);
            if (!c.known) {
                static char text[512];
                char f[160];
                arch_formula_text(arch_str(r->cond), f, sizeof f);
                snprintf(text, sizeof text, "the condition of %s (%s) is not determined",
                         arch_str(r->name), f);
                *why = text;
                break;
            }
            if (!c.v)
                continue;
            tensor_plan t;
            memset(&t, 0, sizeof t);
            assert_true(arch_tensor_name(r, l, t.name, sizeof t.name, NULL));
            t.per_layer = per_layer;
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++)
                dup = strcmp(plan[j].name, t.name) == 0;
            if (dup)
                continue;
            for (int d = 0; d < 4; d++) {
                arch_val v = arch_eval(&env, arch_str(r->ne[d]), l, 1);
                if (!v.known || v.v <= 0 || v.v > 4096) {
                    static char text[512];
                    char f[160];
                    arch_formula_text(arch_str(r->ne[d]), f, sizeof f);
                    snprintf(text, sizeof text, "%s ne[%d] = %s is %s", t.name, d, f,
                             v.known ? "out of range" : "not determined");
                    *why = text;
                    break;
                }
                t.ne[d] = (uint64_t)v.v;
                if (arch_str(r->ne[d])[0])
                    t.nd = (uint32_t)d + 1;
            }
            if (t.nd == 0)
                t.nd = 1;
            assert_true(n < MAX_TENSORS);
            plan[n++] = t;
        }
    }
    gguflint_free(ctx);
    free(meta.buf);
    return *why ? 0 : n;
}

static built build(const arch_info *a, const tensor_plan *plan, size_t n, build_opts o)
{
    built out = {0};
    gb *b = gb_new(3);
    assert_non_null(b);
    write_kvs(b, a, o.how == BROKEN_TYPE, &out);
    static uint64_t sizes[MAX_TENSORS];
    uint64_t off = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (o.how == BROKEN_OMIT && i == o.victim)
            continue;
        uint64_t ne[4];
        memcpy(ne, plan[i].ne, sizeof ne);
        if (o.how == BROKEN_SHAPE && i == o.victim)
            ne[0] += 1;
        sizes[k] = gb_nbytes(GB_F32, plan[i].nd, ne);
        gb_tensor(b, plan[i].name, plan[i].nd, ne, GB_F32, off);
        if (o.how == BROKEN_SHAPE && i == o.victim)
            out.victim_dim0 = gb_last(b)->dim[0];
        off += gb_align_up(sizes[k], 32);
        k++;
    }
    gb_zero_data(b, sizes, k, 32);
    out.buf = ex_finish(b, &out.len);
    return out;
}

/* Lint with the default options; the error-severity findings. */
typedef struct errs {
    size_t n;
    char id[8][8];
    uint64_t off[8];
    char msg[4][240];
} errs;

static void print_errs(const errs *e, const char *arch, const char *what)
{
    for (size_t i = 0; i < e->n && i < 4; i++)
        print_message("  %s (%s): %s\n", arch, what, e->msg[i]);
}

static errs lint_errors(const built *m)
{
    errs e;
    memset(&e, 0, sizeof e);
    gguflint_options opt;
    gguflint_options_default(&opt);
    gguflint_ctx *ctx = gguflint_new(&opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, m->buf, m->len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (f->severity != GGUFLINT_ERROR)
            continue;
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        if (e.n < 8) {
            snprintf(e.id[e.n], sizeof e.id[0], "%s", r ? r->id : "?");
            e.off[e.n] = f->offset;
        }
        e.n++;
        if (e.n <= 4)
            snprintf(e.msg[e.n - 1], sizeof e.msg[0], "%s at 0x%llx: %s", r ? r->id : "?",
                     (unsigned long long)f->offset, f->message ? f->message : "");
    }
    gguflint_free(ctx);
    return e;
}

static bool exactly(const errs *e, const char *id, uint64_t off)
{
    return e->n == 1 && strcmp(e->id[0], id) == 0 && e->off[0] == off;
}

/* The victims: the last per-layer tensor (required) for OMIT, the first
 * per-layer one for SHAPE (a global one when there is none). */
static size_t pick(const tensor_plan *plan, size_t n, bool last)
{
    size_t best = 0;
    bool found = false;
    for (size_t i = 0; i < n; i++)
        if (plan[i].per_layer) {
            best = i;
            found = true;
            if (!last)
                break;
        }
    return found ? best : (last ? n - 1 : 0);
}

static void dump(const built *m, const char *arch, const char *tag);

/* Architectures whose required tensors the metadata alone does not size
 * (a "?" the generator cannot express, or a value the loader reads from
 * the file's own tensors), with the reason. */
static const struct {
    const char *arch, *why;
} no_tiny[] = {
    {"clip", "projector files: the text-model loader creates no required tensor"},
    {"jina-bert-v2", "ffn_up's width is read from the file's own tensor (get_tensor_meta)"},
    {"gemma4-assistant", "nextn.post_projection's width comes from the target model"},
    {"rwkv6qwen2", "attn_key_value_size dimensions the generator cannot express"},
    {"arwkv7", "time_mix_lerp_fused under try/catch: conditional"},
    {"graniteswitch", "the LoRA rank and slots come from adapter metadata arrays"},
    {"dots3note", "MLA head sizes per sliding-window layer: a per-layer array the tiny model "
                  "does not write"},
    {"laguna", "attn_gate's width is read from the file's own tensor (get_tensor_meta)"},
    {"eagle3", "d2t's condition involves the target model"},
    {"dflash", "d2t's condition involves the target model"},
};

static bool no_tiny_model_expected(const char *arch)
{
    for (size_t i = 0; i < sizeof no_tiny / sizeof no_tiny[0]; i++)
        if (strcmp(no_tiny[i].arch, arch) == 0)
            return true;
    return false;
}

static void test_tiny_model_per_architecture(void **state)
{
    static tensor_plan plan[MAX_TENSORS];
    size_t full = 0, clean = 0, skipped = 0, bad = 0, variants_ok = 0;
    for (size_t i = 0; i < arch_info_count; i++) {
        const arch_info *a = &arch_infos[i];
        if (a->coverage != COV_FULL)
            continue;
        full++;
        const char *why = NULL;
        size_t n = 0;
        const struct {
            bool moe;
            uint32_t rope_dim;
        } tries[] = {{is_moe(a), 0}, {false, 0}, {is_moe(a), 4}, {false, 4}};
        for (size_t k = 0; k < 4 && n == 0; k++) {
            if (k % 2 == 1 && !is_moe(a))
                continue;
            if (tries[k].rope_dim && (a->flags & AF_ROPE_IS_HEAD))
                continue;
            knob.moe = tries[k].moe;
            knob.rope_dim = tries[k].rope_dim;
            knob.no_tokens = false;
            n = plan_tensors(a, plan, &why);
        }
        knob.no_tokens = output_not_vocab(a);
        if (n == 0) {
            print_message("  %s: no tiny model (%s)\n", arch_str(a->name),
                          why ? why : "no tensors");
            skipped++;
            if (!no_tiny_model_expected(arch_str(a->name))) {
                print_message("  %s: a tiny model was expected\n", arch_str(a->name));
                bad++;
            }
            continue;
        }
        built m = build(a, plan, n, (build_opts){BROKEN_NONE, 0});
        dump(&m, arch_str(a->name), "tiny");
        errs e = lint_errors(&m);
        free(m.buf);
        if (e.n) {
            print_errs(&e, arch_str(a->name), "tiny model");
            bad++;
            continue;
        }
        clean++;

        size_t ok = 0;
        size_t victim = pick(plan, n, true);
        m = build(a, plan, n, (build_opts){BROKEN_OMIT, victim});
        e = lint_errors(&m);
        if (exactly(&e, "GG551", m.arch_value))
            ok++;
        else
            print_errs(&e, arch_str(a->name), "tensor left out"),
                print_message("  %s: leaving out %s gave %zu errors, not GG551 at 0x%zx\n",
                              arch_str(a->name), plan[victim].name, e.n, m.arch_value);
        free(m.buf);

        victim = pick(plan, n, false);
        m = build(a, plan, n, (build_opts){BROKEN_SHAPE, victim});
        e = lint_errors(&m);
        if (exactly(&e, "GG553", m.victim_dim0))
            ok++;
        else
            print_errs(&e, arch_str(a->name), "shape changed"),
                print_message("  %s: reshaping %s gave %zu errors, not GG553 at 0x%zx\n",
                              arch_str(a->name), plan[victim].name, e.n, m.victim_dim0);
        free(m.buf);

        m = build(a, plan, n, (build_opts){BROKEN_TYPE, 0});
        e = lint_errors(&m);
        if (exactly(&e, "GG542", m.ctx_kv))
            ok++;
        else
            print_errs(&e, arch_str(a->name), "context_length u64"),
                print_message("  %s: context_length as u64 gave %zu errors, not GG542 at 0x%zx\n",
                              arch_str(a->name), e.n, m.ctx_kv);
        free(m.buf);
        if (ok == 3)
            variants_ok++;
        else
            bad++;
    }
    print_message("  %zu architectures with full tables: %zu tiny models lint clean, %zu with "
                  "all three broken copies exact, %zu without a tiny model, %zu failing\n",
                  full, clean, variants_ok, skipped, bad);
    assert_int_equal(bad, 0);
    assert_true(skipped <= sizeof no_tiny / sizeof no_tiny[0]);
    assert_int_equal(variants_ok, clean);
}

/* ------------------------------------------- llama.cpp of 2026-08-22 */

/* Errors and warnings of a lint (the default profile). */
static errs lint_findings(const built *m)
{
    errs e;
    memset(&e, 0, sizeof e);
    gguflint_options opt;
    gguflint_options_default(&opt);
    gguflint_ctx *ctx = gguflint_new(&opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, m->buf, m->len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (f->severity != GGUFLINT_ERROR && f->severity != GGUFLINT_WARNING)
            continue;
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        if (e.n < 8) {
            snprintf(e.id[e.n], sizeof e.id[0], "%s", r ? r->id : "?");
            e.off[e.n] = f->offset;
        }
        e.n++;
        if (e.n <= 4)
            snprintf(e.msg[e.n - 1], sizeof e.msg[0], "%s at 0x%llx: %s", r ? r->id : "?",
                     (unsigned long long)f->offset, f->message ? f->message : "");
    }
    gguflint_free(ctx);
    return e;
}

/* GGUFLINT_TINY_DUMP=DIR writes every model of this test to DIR (to load
 * them by hand with llama.cpp's loader). */
static void dump(const built *m, const char *arch, const char *tag)
{
    const char *dir = getenv("GGUFLINT_TINY_DUMP");
    if (!dir || !dir[0])
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%s.gguf", dir, arch, tag);
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == ' ' || *p == '/')
            *p = '_';
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return;
    fwrite(m->buf, 1, m->len, fp);
    fclose(fp);
}

enum { AT_NONE, AT_ARCH_VALUE, AT_ZERO_KEY };

/* A tiny model of `arch` changed one way, and what gguflint must say. */
typedef struct variant {
    const char *arch, *what;
    const char *add[8];      /* optional tensor rows planned too */
    const char *drop[4];     /* required rows not planned (the split q/k/v of a fused qkv) */
    const char *omit_key;    /* a key not written */
    const char *zero_key;    /* a key written as u32 0 */
    const char *omit_tensor; /* a planned tensor left out */
    const char *id;          /* NULL: no error or warning at all; else exactly this rule */
    int at;                  /* where (AT_*) */
    bool errors;             /* id at `at` among errors only, not alone */
} variant;

#define QKV_BIASES "blk.%d.attn_q.bias", "blk.%d.attn_k.bias", "blk.%d.attn_v.bias"
#define SPLIT_QKV "blk.%d.attn_q.weight", "blk.%d.attn_k.weight", "blk.%d.attn_v.weight"

/* rows name only the fields they change */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* What the tables of Oct 2025 got wrong (issue 22), checked against the
 * tables of llama.cpp 3f545bec (2026-08-22). The "clean" rows were false
 * errors of the old tables (llama.cpp loads these files), the others
 * refusals of llama.cpp the old tables did not report. */
static const variant v2026[] = {
    /* q/k/v biases: optional */
    {"qwen2", "without q/k/v biases"},
    {"qwen2", "with q/k/v biases", {QKV_BIASES}},
    {"starcoder2", "without q/k/v biases"},
    {"starcoder2", "with q/k/v biases", {QKV_BIASES}},
    {"gpt-oss", "without q/k/v biases"},
    {"gpt-oss", "with q/k/v biases", {QKV_BIASES}},
    {"bert", "without q/k/v biases"},
    {"bert", "with q/k/v biases", {QKV_BIASES}},
    {"nomic-bert", "fused qkv without its bias", {"blk.%d.attn_qkv.weight"}, {SPLIT_QKV}},
    {"nomic-bert",
     "fused qkv with its bias",
     {"blk.%d.attn_qkv.weight", "blk.%d.attn_qkv.bias"},
     {SPLIT_QKV}},
    /* hyper-parameters read as optional */
    {"bert", "without attention.causal", .omit_key = "attention.causal"},
    {"bert", "without pooling_type", .omit_key = "pooling_type"},
    {"command-r", "without logit_scale", .omit_key = "logit_scale"},
    {"granite", "without residual_scale", .omit_key = "residual_scale"},
    {"granite", "without embedding_scale", .omit_key = "embedding_scale"},
    {"granite", "without attention.scale", .omit_key = "attention.scale"},
    {"granite", "without logit_scale (still required)", .omit_key = "logit_scale", .id = "GG541",
     .at = AT_ARCH_VALUE},
    {"gemma3", "without attention.sliding_window", .omit_key = "attention.sliding_window"},
    {"deepseek2", "without leading_dense_block_count", .omit_key = "leading_dense_block_count"},
    {"deepseek2", "without expert_weights_scale", .omit_key = "expert_weights_scale"},
    {"deepseek2", "without output.weight (tied)"},
    {"deepseek2", "with output.weight", {"output.weight"}},
    /* phi3: fused or split attention */
    {"phi3", "fused attn_qkv", {"blk.%d.attn_qkv.weight"}},
    {"phi3", "split q/k/v", {SPLIT_QKV}},
    /* LFM2's optional dense_2 projection (ColBERT / embedding models) */
    {"lfm2", "with dense_2 weight and bias", {"dense_2.weight", "dense_2.bias"}},
    /* refusals the old tables missed */
    {"rwkv7", "without gate_lora_rank", .omit_key = "attention.gate_lora_rank", .id = "GG541",
     .at = AT_ARCH_VALUE},
    /* llama.cpp: "key not found" unless the model is a lite one (26, 27 or 48
     * layers); the table cannot say which, so the tensors sized by the rank
     * are what is reported */
    {"deepseek2", "without q_lora_rank", .omit_key = "attention.q_lora_rank", .id = "GG551",
     .at = AT_ARCH_VALUE, .errors = true},
    {"bert", "head_count 0", .zero_key = "attention.head_count", .id = "GG546", .at = AT_ZERO_KEY},
    {"jamba", "head_count 0", .zero_key = "attention.head_count", .id = "GG546", .at = AT_ZERO_KEY},
    {"jamba", "without head_count", .omit_key = "attention.head_count", .id = "GG541",
     .at = AT_ARCH_VALUE},
    /* architectures the old tables did not know */
    {"kimi-k3", "a tiny model"},
    {"minimax-m3", "a tiny model"},
    {"nanbeige", "a tiny model"},
    {"muse-glimmer", "a tiny model"},
    {"qwen3tts", "a tiny model"},
    {"pockettts", "a tiny model"},
    {"nanbeige", "without output_norm", .omit_tensor = "output_norm.weight", .id = "GG551",
     .at = AT_ARCH_VALUE},
    {"kimi-k3", "without token_embd", .omit_tensor = "token_embd.weight", .id = "GG551",
     .at = AT_ARCH_VALUE},
};

static bool run_variant(const variant *v, tensor_plan *plan)
{
    const arch_info *a = arch_find((const uint8_t *)v->arch, strlen(v->arch));
    char where[200];
    snprintf(where, sizeof where, "%s: %s", v->arch, v->what);
    if (!a || a->coverage != COV_FULL) {
        print_message("  %s: no full table\n", where);
        return false;
    }
    const char *why = NULL;
    size_t n = 0;
    memset(&knob, 0, sizeof knob);
    knob.omit_key = v->omit_key;
    knob.zero_key = v->zero_key;
    knob.add = v->add;
    knob.drop = v->drop;
    /* the plan needs the key the variant leaves out: plan with it */
    const char *omit = knob.omit_key, *zero = knob.zero_key;
    knob.omit_key = knob.zero_key = NULL;
    for (int moe = is_moe(a) ? 1 : 0; moe >= 0 && n == 0; moe--) {
        knob.moe = moe;
        n = plan_tensors(a, plan, &why);
    }
    knob.omit_key = omit;
    knob.zero_key = zero;
    knob.no_tokens = output_not_vocab(a);
    if (n == 0) {
        print_message("  %s: no tiny model (%s)\n", where, why ? why : "no tensors");
        return false;
    }
    build_opts o = {BROKEN_NONE, 0};
    if (v->omit_tensor) {
        o.how = BROKEN_OMIT;
        o.victim = n;
        for (size_t i = 0; i < n; i++)
            if (strcmp(plan[i].name, v->omit_tensor) == 0)
                o.victim = i;
        if (o.victim == n) {
            print_message("  %s: the tiny model has no %s\n", where, v->omit_tensor);
            return false;
        }
    }
    built m = build(a, plan, n, o);
    dump(&m, v->arch, v->what);
    errs e = lint_findings(&m);
    uint64_t at = v->at == AT_ARCH_VALUE ? m.arch_value : m.zero_value;
    bool ok = v->id ? exactly(&e, v->id, at) : e.n == 0;
    if (v->id && v->errors) {
        ok = e.n > 0;
        bool seen = false;
        for (size_t i = 0; i < e.n && i < 8; i++)
            seen |= strcmp(e.id[i], v->id) == 0 && e.off[i] == at;
        ok = ok && seen && lint_errors(&m).n == e.n;
    }
    if (!ok) {
        print_errs(&e, v->arch, v->what);
        if (v->id)
            print_message("  %s: %zu findings, not exactly %s at 0x%llx\n", where, e.n, v->id,
                          (unsigned long long)at);
        else
            print_message("  %s: %zu findings, not clean\n", where, e.n);
    }
    free(m.buf);
    return ok;
}

static void test_llama_cpp_2026_08_22(void **state)
{
    static tensor_plan plan[MAX_TENSORS];
    size_t bad = 0;
    for (size_t i = 0; i < sizeof v2026 / sizeof v2026[0]; i++)
        bad += !run_variant(&v2026[i], plan);
    memset(&knob, 0, sizeof knob);
    assert_int_equal(bad, 0);
}

/* Every architecture whose loader creates q/k/v biases as optional: its
 * tiny model with them is clean (no GG552: 13 more architectures got it
 * from the Oct 2025 tables). */
static void test_optional_biases_accepted(void **state)
{
    static tensor_plan plan[MAX_TENSORS];
    size_t bad = 0, tried = 0;
    for (size_t i = 0; i < arch_info_count; i++) {
        const arch_info *a = &arch_infos[i];
        if (a->coverage != COV_FULL || no_tiny_model_expected(arch_str(a->name)))
            continue;
        /* the three as optional rows whose condition the metadata decides (a
         * "?" condition accepts the tensor whatever the file holds) */
        static const char *const qkv[] = {QKV_BIASES};
        size_t has = 0, unknown = 0;
        for (size_t q = 0; q < 3; q++)
            for (uint16_t k = 0; k < a->tensor_count; k++) {
                const arch_tensor *r = &arch_tensors[a->tensor_first + k];
                if (strcmp(arch_str(r->name), qkv[q]) != 0)
                    continue;
                if (strcmp(arch_str(r->cond), "?") == 0)
                    unknown++;
                else if (!r->required)
                    has++;
            }
        if (has < 3 || unknown)
            continue;
        variant v = {arch_str(a->name), "with the optional q/k/v biases", {QKV_BIASES}};
        tried++;
        bad += !run_variant(&v, plan);
    }
    memset(&knob, 0, sizeof knob);
    print_message("  %zu architectures with optional q/k/v biases: %zu not clean with them\n",
                  tried, bad);
    assert_true(tried >= 80);
    assert_int_equal(bad, 0);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_tiny_model_per_architecture),
            cmocka_unit_test(test_llama_cpp_2026_08_22),
            cmocka_unit_test(test_optional_biases_accepted),
        })

/* test_vocab.c - the tokenizer rules (GG570-GG586, GG593, check_vocab.c): for each
 * rule a file built with the gguf_builder that triggers it, asserting the
 * exact rule id at the exact byte offset of the offending field, and a clean
 * variant of the same file without it. Clean means no finding of the
 * tokenizer family (other families belong to other checks). Plus a large
 * generated vocabulary (duplicate detection at scale) and a big-endian file. */
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

#include "checks/vocab_tables.h" /* the table's date, for the messages */

#define TK "tokenizer.ggml."

/* ------------------------------------------------------------------ helpers */

typedef struct built {
    uint8_t *buf;
    size_t len;
} built;

static built finish(gb *b)
{
    built r;
    assert_non_null(b);
    r.buf = ex_finish(b, &r.len);
    return r;
}

static gguflint_ctx *lint(built f)
{
    return ex_lint(f.buf, f.len);
}

static bool is_tokenizer_rule(const gguflint_finding *f)
{
    const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
    return r && strcmp(r->family, "tokenizer") == 0;
}

/* Assert exactly `times` findings of `id` in the file, one at `offset`. */
static void expect_at(built f, const char *id, uint64_t offset, size_t times, const char *where)
{
    gguflint_ctx *ctx = lint(f);
    size_t at, n = ex_count_id(ctx, id, offset, &at);
    if (at == 0 || n != times) {
        print_message("%s: expected %zu x %s, one at offset %llu; got %zu (%zu there)\n", where,
                      times, id, (unsigned long long)offset, n, at);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        free(f.buf);
        fail_msg("%s: %s not reported as expected", where, id);
    }
    gguflint_free(ctx);
    free(f.buf);
}
#define expect(f, id, offset) expect_at(f, id, offset, 1, __func__)
#define expect_n(f, id, offset, n) expect_at(f, id, offset, n, __func__)

/* Assert no finding of rule `id`. */
static void absent_at(built f, const char *id, const char *where)
{
    gguflint_ctx *ctx = lint(f);
    if (ex_count_id(ctx, id, 0, NULL) != 0) {
        print_message("%s: %s must not be reported\n", where, id);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        free(f.buf);
        fail_msg("%s: unexpected %s", where, id);
    }
    gguflint_free(ctx);
    free(f.buf);
}
#define absent(f, id) absent_at(f, id, __func__)

/* Assert no finding of the tokenizer family. */
static void clean_at(built f, const char *where)
{
    gguflint_ctx *ctx = lint(f);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        if (is_tokenizer_rule(gguflint_finding_get(ctx, i))) {
            print_message("%s: expected no tokenizer findings\n", where);
            ex_print_findings(NULL, ctx);
            gguflint_free(ctx);
            free(f.buf);
            fail_msg("%s: the file is not clean", where);
        }
    }
    gguflint_free(ctx);
    free(f.buf);
}
#define clean(f) clean_at(f, __func__)

/* Offset of element i of a string array written from `strs`. */
static uint64_t str_elem(const gb_marks *m, const char *const *strs, size_t i)
{
    uint64_t off = m->arr_elems;
    for (size_t j = 0; j < i; j++)
        off += 8 + strlen(strs[j]);
    return off;
}

/* ------------------------------------------------------- the base vocabulary */

static const char *const base_tokens[] = {"<unk>",  "<s>", "</s>", "<0x00>",
                                          "<0x0A>", "a",   "b",    "ab"};
#define N_BASE 8
static const int32_t base_types[N_BASE] = {2, 3, 3, 6, 6, 1, 1, 1};
static const float base_scores[N_BASE] = {0, 0, 0, 0, 0, -1, -2, -3};

/* Parts of the base file a test replaces or drops. */
typedef struct vopt {
    const char *model;         /* NULL: "llama"; "" : no model key */
    const char *const *tokens; /* NULL: base_tokens */
    size_t n_tokens;
    const int32_t *types; /* NULL: base_types */
    size_t n_types;       /* 0: n_tokens */
    bool no_tokens, no_scores, no_types, no_ids;
    void (*extra)(gb *b, gb_marks *m); /* more KVs, marks of interest into *m */
} vopt;

typedef struct vfile {
    built f;
    gb_marks model, tokens, scores, types, extra;
} vfile;

static vfile vocab_file(const vopt *o)
{
    vfile v;
    memset(&v, 0, sizeof v);
    const char *const *toks = o->tokens ? o->tokens : base_tokens;
    size_t n = o->tokens ? o->n_tokens : N_BASE;
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    if (!o->model || o->model[0]) {
        gb_kv_str(b, TK "model", o->model ? o->model : "llama");
        v.model = *gb_last(b);
    }
    if (!o->no_tokens) {
        gb_kv_arr_str(b, TK "tokens", toks, n);
        v.tokens = *gb_last(b);
    }
    if (!o->no_scores) {
        float *sc = calloc(n ? n : 1, sizeof *sc);
        assert_non_null(sc);
        for (size_t i = 0; i < n && i < N_BASE; i++)
            sc[i] = base_scores[i];
        gb_kv_arr(b, TK "scores", GB_VT_F32, n, sc, n * sizeof *sc);
        v.scores = *gb_last(b);
        free(sc);
    }
    if (!o->no_types) {
        size_t nt = o->n_types ? o->n_types : n;
        int32_t *ty = calloc(nt ? nt : 1, sizeof *ty);
        assert_non_null(ty);
        for (size_t i = 0; i < nt; i++)
            ty[i] = o->types ? o->types[i] : i < N_BASE && !o->tokens ? base_types[i] : 1;
        gb_kv_arr(b, TK "token_type", GB_VT_I32, nt, ty, nt * sizeof *ty);
        v.types = *gb_last(b);
        free(ty);
    }
    if (!o->no_ids) {
        gb_kv_u32(b, TK "bos_token_id", 1);
        gb_kv_u32(b, TK "eos_token_id", 2);
        gb_kv_u32(b, TK "unknown_token_id", 0);
    }
    if (o->extra)
        o->extra(b, &v.extra);
    v.f = finish(b);
    return v;
}

/* =================================================================== tests */

static void test_base_clean(void **state)
{
    vopt o = {0};
    clean(vocab_file(&o).f);
    /* the real files' layout: gpt2 with merges and pre, bert with the misspelled key */
    static const char *const merges[] = {"a b"};
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "gpt2");
    gb_kv_str(b, TK "model", "gpt2");
    gb_kv_str(b, TK "pre", "gpt-2");
    gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
    gb_kv_arr_str(b, TK "merges", merges, 1);
    gb_kv_u32(b, TK "bos_token_id", 7);
    gb_kv_u32(b, TK "eos_token_id", 7);
    clean(finish(b));

    static const char *bert[104];
    char names[104][8];
    for (int i = 0; i < 104; i++) {
        snprintf(names[i], sizeof names[i], "w%d", i);
        bert[i] = names[i];
    }
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "bert");
    gb_kv_u32(b, TK "token_type_count", 2);
    gb_kv_str(b, TK "model", "bert");
    gb_kv_str(b, TK "pre", "bert-bge");
    gb_kv_arr_str(b, TK "tokens", bert, 104);
    gb_kv_u32(b, TK "unknown_token_id", 100);
    gb_kv_u32(b, TK "seperator_token_id", 102);
    gb_kv_u32(b, TK "padding_token_id", 0);
    gb_kv_u32(b, TK "cls_token_id", 101);
    gb_kv_u32(b, TK "mask_token_id", 103);
    clean(finish(b));

    /* a file without any tokenizer */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    clean(finish(b));
}

static void test_GG570_tokenizer_model_unknown(void **state)
{
    vopt o = {.model = "sentencepiece"};
    vfile v = vocab_file(&o);
    expect(v.f, "GG570", v.model.value);
    /* the message names the table's date */
    o.model = "sentencepiece";
    v = vocab_file(&o);
    gguflint_ctx *ctx = lint(v.f);
    const gguflint_finding *f = ex_find(ctx, "GG570");
    assert_non_null(f);
    char want[96];
    snprintf(want, sizeof want, "unknown to llama.cpp of %s (%s)", vocab_source_date,
             vocab_source_build);
    assert_non_null(strstr(f->message, want));
    assert_non_null(strstr(f->message, "plamo3"));
    gguflint_free(ctx);
    free(v.f.buf);
    /* plamo3 from newer upstream files, next to the generated names */
    static const char *const known[] = {"llama", "t5", "rwkv", "plamo2", "plamo3", "none"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        o.model = known[i];
        clean(vocab_file(&o).f);
    }
    /* close, but not a name: case and suffix matter */
    static const char *const wrong[] = {"Llama", "plamo", "gpt-2", "bpe"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        o.model = wrong[i];
        v = vocab_file(&o);
        expect(v.f, "GG570", v.model.value);
    }
}

static void w_scores_u8(gb *b, gb_marks *m)
{
    static const uint8_t s[N_BASE];
    gb_kv_arr(b, TK "scores", GB_VT_U8, N_BASE, s, sizeof s);
    *m = *gb_last(b);
}

static void w_tokens_str(gb *b, gb_marks *m)
{
    gb_kv_str(b, TK "tokens", "abc");
    *m = *gb_last(b);
}

static void w_pad_i32(gb *b, gb_marks *m)
{
    gb_kv_i32(b,
              TK "pad"
                 "ding_token_id",
              0);
    *m = *gb_last(b);
}

static void w_types_u32(gb *b, gb_marks *m)
{
    static const uint32_t t[N_BASE] = {2, 3, 3, 6, 6, 1, 1, 1};
    gb_kv_arr(b, TK "token_type", GB_VT_U32, N_BASE, t, sizeof t);
    *m = *gb_last(b);
}

static void w_scores_i32(gb *b, gb_marks *m)
{
    static const int32_t s[N_BASE];
    gb_kv_arr(b, TK "scores", GB_VT_I32, N_BASE, s, sizeof s);
    *m = *gb_last(b);
}

static void w_add_bos_u8(gb *b, gb_marks *m)
{
    gb_kv_u8(b, TK "add_bos_token", 1);
    *m = *gb_last(b);
}

static void test_GG571_tokenizer_wrong_type(void **state)
{
    /* scores as 1-byte elements: the #24888 type confusion, at the element type */
    vopt o = {.no_scores = true, .extra = w_scores_u8};
    vfile v = vocab_file(&o);
    expect(v.f, "GG571", v.extra.value);
    /* token_type as u32 */
    o = (vopt){.no_types = true, .extra = w_types_u32};
    v = vocab_file(&o);
    expect(v.f, "GG571", v.extra.value);
    /* tokens as a string: at the value-type field */
    o = (vopt){.no_tokens = true, .no_scores = true, .no_types = true, .extra = w_tokens_str};
    v = vocab_file(&o);
    expect(v.f, "GG571", v.extra.vtype);
    /* a special id as i32 */
    o = (vopt){.extra = w_pad_i32};
    v = vocab_file(&o);
    expect(v.f, "GG571", v.extra.vtype);
    /* a flag as u8 */
    o = (vopt){.extra = w_add_bos_u8};
    v = vocab_file(&o);
    expect(v.f, "GG571", v.extra.vtype);
    /* clean: i32 scores are accepted (current llama.cpp converts them) */
    o = (vopt){.no_scores = true, .extra = w_scores_i32};
    clean(vocab_file(&o).f);
}

static void test_GG572_tokenizer_length_mismatch(void **state)
{
    vopt o = {.n_types = N_BASE - 1};
    vfile v = vocab_file(&o);
    expect(v.f, "GG572", v.types.arr_count);
    o.n_types = N_BASE + 1;
    v = vocab_file(&o);
    expect(v.f, "GG572", v.types.arr_count);
    o = (vopt){0};
    clean(vocab_file(&o).f);
}

static void w_vocab_size_9(gb *b, gb_marks *m)
{
    gb_kv_u32(b, "llama.vocab_size", 9);
    *m = *gb_last(b);
}

static void w_vocab_size_8(gb *b, gb_marks *m)
{
    gb_kv_u32(b, "llama.vocab_size", 8);
    *m = *gb_last(b);
}

static void test_GG573_vocab_size_mismatch(void **state)
{
    vopt o = {.extra = w_vocab_size_9};
    vfile v = vocab_file(&o);
    expect(v.f, "GG573", v.extra.value);
    o.extra = w_vocab_size_8;
    clean(vocab_file(&o).f);
}

/* The base vocabulary plus token_embd.weight [4, rows] and output.weight [4, 8]. */
static built with_tensors(uint64_t rows, gb_marks *embd)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, TK "model", "llama");
    gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
    uint64_t ne[2] = {4, rows}, ne2[2] = {4, N_BASE};
    uint64_t sz = gb_align_up(gb_nbytes(GB_F32, 2, ne), 32);
    gb_tensor(b, "token_embd.weight", 2, ne, GB_F32, 0);
    *embd = *gb_last(b);
    gb_tensor(b, "output.weight", 2, ne2, GB_F32, sz);
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)(sz + gb_nbytes(GB_F32, 2, ne2)));
    gb_pad_to(b, 32);
    return finish(b);
}

static void test_GG574_vocab_tensor_rows_mismatch(void **state)
{
    gb_marks m;
    built f = with_tensors(9, &m);
    expect(f, "GG574", m.dim[1]);
    clean(with_tensors(N_BASE, &m));
}

static void w_eos_8(gb *b, gb_marks *m)
{
    gb_kv_u32(b, TK "eot_token_id", 8);
    *m = *gb_last(b);
}

static void w_eos_7(gb *b, gb_marks *m)
{
    gb_kv_u32(b, TK "eot_token_id", 7);
    *m = *gb_last(b);
}

static void w_fim_huge(gb *b, gb_marks *m)
{
    gb_kv_u32(b, TK "fim_pre_token_id", 0xFFFFFFFFu);
    *m = *gb_last(b);
}

static void w_sep_spec(gb *b, gb_marks *m)
{
    gb_kv_u32(b, TK "separator_token_id", 50);
    *m = *gb_last(b);
}

static void test_GG575_special_token_id_out_of_range(void **state)
{
    vopt o = {.extra = w_eos_8};
    vfile v = vocab_file(&o);
    expect(v.f, "GG575", v.extra.value);
    o.extra = w_fim_huge;
    v = vocab_file(&o);
    expect(v.f, "GG575", v.extra.value);
    o.extra = w_sep_spec; /* the spec's spelling is checked as well */
    v = vocab_file(&o);
    expect(v.f, "GG575", v.extra.value);
    o.extra = w_eos_7;
    clean(vocab_file(&o).f);
}

static void w_eos_1(gb *b, gb_marks *m)
{
    gb_kv_u32(b, TK "eos_token_id", 1);
    *m = *gb_last(b);
}

static void test_GG576_default_special_id_out_of_range(void **state)
{
    /* two llama tokens and no eos key: the default eos 2 is past the table */
    static const char *const two[] = {"<unk>", "<s>"};
    vopt o = {.tokens = two, .n_tokens = 2, .no_ids = true};
    vfile v = vocab_file(&o);
    expect(v.f, "GG576", v.tokens.arr_count);
    /* declared explicitly: no default applies */
    o.extra = w_eos_1;
    clean(vocab_file(&o).f);
    /* three tokens hold llama's defaults */
    static const char *const three[] = {"<unk>", "<s>", "</s>"};
    o = (vopt){.tokens = three, .n_tokens = 3, .no_ids = true};
    clean(vocab_file(&o).f);
}

static void test_GG577_duplicate_token(void **state)
{
    static const char *const toks[] = {"<unk>", "<s>", "</s>", "x", "y", "x"};
    vopt o = {.tokens = toks, .n_tokens = 6};
    vfile v = vocab_file(&o);
    expect(v.f, "GG577", str_elem(&v.tokens, toks, 5));
    clean(vocab_file(&(vopt){0}).f);
}

static void test_GG578_empty_token(void **state)
{
    static const char *const toks[] = {"<unk>", "<s>", "</s>", "", "y", ""};
    vopt o = {.tokens = toks, .n_tokens = 6};
    vfile v = vocab_file(&o);
    /* two empty tokens: both reported, neither as a duplicate */
    expect_n(v.f, "GG578", str_elem(&v.tokens, toks, 3), 2);
    absent(vocab_file(&o).f, "GG577");
    clean(vocab_file(&(vopt){0}).f);
}

static void test_GG579_byte_token_malformed(void **state)
{
    static const int32_t types[] = {2, 3, 3, 6, 6, 6};
    static const char *const lower[] = {"<unk>", "<s>", "</s>", "<0x00>", "<0x0a>", "<0x0B>"};
    vopt o = {.tokens = lower, .n_tokens = 6, .types = types};
    vfile v = vocab_file(&o);
    expect(v.f, "GG579", str_elem(&v.tokens, lower, 4));
    static const char *const sign[] = {"<unk>", "<s>", "</s>", "<0x00>", "<0x-1>", "<0x0B>"};
    o.tokens = sign;
    v = vocab_file(&o);
    expect(v.f, "GG579", str_elem(&v.tokens, sign, 4));
    static const char *const good[] = {"<unk>", "<s>", "</s>", "<0x00>", "<0xFF>", "<0x0B>"};
    o.tokens = good;
    clean(vocab_file(&o).f);
}

static void test_GG580_token_type_unknown(void **state)
{
    static const int32_t types[N_BASE] = {2, 3, 3, 6, 6, 7, 1, -1};
    vopt o = {.types = types};
    vfile v = vocab_file(&o);
    expect_n(v.f, "GG580", v.types.arr_elems + 5 * 4, 2);
    static const int32_t zero[N_BASE] = {0, 3, 3, 6, 6, 5, 4, 1};
    o.types = zero;
    clean(vocab_file(&o).f);
}

/* Base tokens with token 5 replaced by a string of `len` 'x' bytes; assert
 * that rule `id` is reported on it, or not reported at all. */
static void long_token(size_t len, const char *id, bool expect_it)
{
    char *s = malloc(len + 1);
    assert_non_null(s);
    memset(s, 'x', len);
    s[len] = '\0';
    const char *toks[N_BASE];
    memcpy(toks, base_tokens, sizeof toks);
    toks[5] = s;
    vopt o = {.tokens = toks, .n_tokens = N_BASE, .types = base_types};
    vfile v = vocab_file(&o);
    if (expect_it)
        expect_at(v.f, id, str_elem(&v.tokens, toks, 5), 1, id);
    else
        absent_at(v.f, id, id);
    free(s);
}

static void test_GG581_token_too_long(void **state)
{
    long_token(64 * 1024 + 1, "GG581", true);
    long_token(64 * 1024, "GG581", false); /* exactly 64 KiB: GG582 only */
}

static void test_GG582_token_long(void **state)
{
    long_token(1025, "GG582", true);
    long_token(64 * 1024, "GG582", true);
    long_token(1024, "GG582", false); /* the longest real tokens (gpt-neox) */
    const char *toks[N_BASE];
    memcpy(toks, base_tokens, sizeof toks);
    char s[1025];
    memset(s, 'y', 1024);
    s[1024] = '\0';
    toks[5] = s;
    vopt o = {.tokens = toks, .n_tokens = N_BASE, .types = base_types};
    clean(vocab_file(&o).f);
}

static void w_charsmap_3(gb *b, gb_marks *m)
{
    static const uint8_t c[3] = {1, 0, 0};
    gb_kv_arr(b, TK "precompiled_charsmap", GB_VT_U8, 3, c, 3);
    *m = *gb_last(b);
}

static void w_charsmap_bad_size(gb *b, gb_marks *m)
{
    static const uint8_t c[8] = {4, 0, 0, 0, 1, 2, 3, 4}; /* 4 + 4 is not < 8 */
    gb_kv_arr(b, TK "precompiled_charsmap", GB_VT_U8, 8, c, 8);
    *m = *gb_last(b);
}

static void w_charsmap_ok(gb *b, gb_marks *m)
{
    static const uint8_t c[8] = {3, 0, 0, 0, 1, 2, 3, 0};
    gb_kv_arr(b, TK "precompiled_charsmap", GB_VT_U8, 8, c, 8);
    *m = *gb_last(b);
}

static void w_charsmap_huge(gb *b, gb_marks *m)
{
    static const uint8_t c[8] = {0xFC, 0xFF, 0xFF, 0xFF, 1, 2, 3, 0}; /* wraps in 32 bits */
    gb_kv_arr(b, TK "precompiled_charsmap", GB_VT_I8, 8, c, 8);
    *m = *gb_last(b);
}

static void test_GG583_precompiled_charsmap_inconsistent(void **state)
{
    vopt o = {.model = "t5", .extra = w_charsmap_3};
    vfile v = vocab_file(&o);
    expect(v.f, "GG583", v.extra.arr_count);
    o.extra = w_charsmap_bad_size;
    v = vocab_file(&o);
    expect(v.f, "GG583", v.extra.arr_elems);
    o.extra = w_charsmap_huge;
    v = vocab_file(&o);
    expect(v.f, "GG583", v.extra.arr_elems);
    o.extra = w_charsmap_ok;
    clean(vocab_file(&o).f);
}

static void w_pre(gb *b, gb_marks *m)
{
    gb_kv_str(b, TK "pre", "gpt-2");
    *m = *gb_last(b);
}

static void w_merges_pre(gb *b, gb_marks *m)
{
    static const char *const merges[] = {"a b"};
    gb_kv_arr_str(b, TK "merges", merges, 1);
    w_pre(b, m);
}

static void w_pre_unknown(gb *b, gb_marks *m)
{
    gb_kv_str(b, TK "pre", "qwen4");
    *m = *gb_last(b);
}

static void w_merges(gb *b, gb_marks *m)
{
    static const char *const merges[] = {"a b"};
    gb_kv_arr_str(b, TK "merges", merges, 1);
    *m = *gb_last(b);
}

/* A BPE file (merges, no scores) with tokenizer.ggml.pre = `pre` last;
 * `model` NULL: gpt2. */
static vfile bpe_file(const char *model, const char *pre, bool merges)
{
    vfile v;
    memset(&v, 0, sizeof v);
    static const char *const mg[] = {"a b"};
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, TK "model", model ? model : "gpt2");
    v.model = *gb_last(b);
    gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
    v.tokens = *gb_last(b);
    gb_kv_arr(b, TK "token_type", GB_VT_I32, N_BASE, base_types, sizeof base_types);
    gb_kv_u32(b, TK "bos_token_id", 1);
    gb_kv_u32(b, TK "eos_token_id", 2);
    if (merges)
        gb_kv_arr_str(b, TK "merges", mg, 1);
    if (pre) {
        gb_kv_str(b, TK "pre", pre);
        v.extra = *gb_last(b);
    }
    v.f = finish(b);
    return v;
}

static void test_GG584_bpe_merges_missing(void **state)
{
    vopt o = {.model = "gpt2", .no_scores = true, .extra = w_pre};
    vfile v = vocab_file(&o);
    expect(v.f, "GG584", v.model.value);
    o.extra = w_merges_pre;
    clean(vocab_file(&o).f);
}

static void test_GG585_bpe_pre_missing(void **state)
{
    vopt o = {.model = "gpt2", .no_scores = true, .extra = w_merges};
    vfile v = vocab_file(&o);
    gguflint_ctx *ctx = lint(v.f);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), "GG585") == 0)
            assert_int_equal(f->severity, GGUFLINT_NOTE); /* the real gpt-neox file */
    }
    gguflint_free(ctx);
    expect(v.f, "GG585", v.model.value);
    o.extra = w_merges_pre;
    clean(vocab_file(&o).f);
    /* an empty value is read as missing: at the value */
    v = bpe_file(NULL, "", true);
    expect(v.f, "GG585", v.extra.value);
}

static void test_GG593_pre_tokenizer_unknown(void **state)
{
    /* a name no llama.cpp has: at the value of the key, a warning */
    vfile v = bpe_file(NULL, "qwen4", true);
    gguflint_ctx *ctx = lint(v.f);
    const gguflint_finding *f = ex_find(ctx, "GG593");
    assert_non_null(f);
    assert_int_equal(f->severity, GGUFLINT_WARNING);
    char want[96];
    snprintf(want, sizeof want, "unknown to llama.cpp of %s (%s)", vocab_source_date,
             vocab_source_build);
    assert_non_null(strstr(f->message, want));
    assert_string_equal(f->path, "kv[\"tokenizer.ggml.pre\"]");
    gguflint_free(ctx);
    expect(v.f, "GG593", v.extra.value);
    /* a warning under --profile security too (a clean refusal, nothing to exploit) */
    v = bpe_file(NULL, "llama-3", true);
    gguflint_options *opt = ex_options(NULL);
    assert_int_equal(gguflint_options_profile(opt, "security"), GGUFLINT_OK);
    ctx = ex_lint_opt(v.f.buf, v.f.len, opt, NULL);
    f = ex_find(ctx, "GG593");
    assert_non_null(f);
    assert_int_equal(f->offset, v.extra.value);
    assert_int_equal(f->severity, GGUFLINT_WARNING);
    gguflint_free(ctx);
    gguflint_options_free(opt);
    free(v.f.buf);
    /* the other BPE models read it too; case matters */
    v = bpe_file("whitespace", "Qwen2", true);
    expect(v.f, "GG593", v.extra.value);
    v = bpe_file("hybriddna", "gpt2", true); /* the model's name, not a pre-tokenizer */
    expect(v.f, "GG593", v.extra.value);

    /* known names: the oldest, and names added in 2026 (qwen35 2026-02-10,
     * mellum2 2026-06-02, cohere2moe 2026-06-14 per llama.cpp-history.tsv) */
    static const char *const known[] = {"default",     "gpt-2",  "llama-bpe", "qwen2",
                                        "deepseek-v3", "qwen35", "mellum2",   "cohere2moe",
                                        "a.x-4.0",     "hy_v4"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        clean(bpe_file(NULL, known[i], true).f);
    /* kimi-k2 needs no merges */
    clean(bpe_file(NULL, "kimi-k2", false).f);
    /* llama.cpp reads the value as a C string: "gpt-2\0zz" is gpt-2 (it loads),
     * "zz\0gpt-2" is zz; likewise the model "gpt2\0x" is gpt2 */
    static const char *const mg[] = {"a b"};
    for (int k = 0; k < 3; k++) {
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        if (k == 2)
            gb_kv_strn(b, TK "model", "gpt2\0x", 6);
        else
            gb_kv_str(b, TK "model", "gpt2");
        gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
        gb_kv_u32(b, TK "bos_token_id", 1);
        gb_kv_u32(b, TK "eos_token_id", 2);
        gb_kv_arr_str(b, TK "merges", mg, 1);
        gb_kv_strn(b, TK "pre", k == 1 ? "zz\0gpt-2" : "gpt-2\0zz", 8);
        gb_marks pm = *gb_last(b);
        if (k == 1)
            expect(finish(b), "GG593", pm.value);
        else
            clean(finish(b));
    }
    /* tokenizers that do not read the key: SPM, WPM, UGM ignore it, gemma4
     * forces its own (but still needs merges) */
    vopt o = {.model = "llama", .extra = w_pre_unknown};
    clean(vocab_file(&o).f);
    o.model = "t5";
    clean(vocab_file(&o).f);
    clean(bpe_file("gemma4", "qwen4", true).f);
    v = bpe_file("gemma4", "kimi-k2", false);
    expect(v.f, "GG584", v.model.value);
}

/* glm4's pre-tokenizer clears the default BOS id (11): only eos=11 is out of
 * range in an 8-token gpt2 vocabulary without id keys. */
static void test_pre_clears_default_bos(void **state)
{
    static const char *const mg[] = {"a b"};
    const char *pres[] = {"glm4", "gpt-2"};
    for (int k = 0; k < 2; k++) {
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        gb_kv_str(b, TK "model", "gpt2");
        gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
        gb_marks t = *gb_last(b);
        gb_kv_arr_str(b, TK "merges", mg, 1);
        gb_kv_str(b, TK "pre", pres[k]);
        built f = finish(b);
        gguflint_ctx *ctx = lint(f);
        const gguflint_finding *g = ex_find(ctx, "GG576");
        assert_non_null(g);
        assert_int_equal(g->offset, t.arr_count);
        assert_non_null(strstr(g->message, "eos=11"));
        if (k == 0)
            assert_null(strstr(g->message, "bos=11"));
        else
            assert_non_null(strstr(g->message, "bos=11"));
        gguflint_free(ctx);
        free(f.buf);
    }
}

static void test_GG586_tokenizer_incomplete(void **state)
{
    vopt o = {.no_tokens = true, .no_scores = true, .no_types = true, .no_ids = true};
    vfile v = vocab_file(&o);
    expect(v.f, "GG586", v.model.value);
    o = (vopt){.model = ""};
    v = vocab_file(&o);
    expect(v.f, "GG586", v.tokens.start);
    /* "none" needs no vocabulary */
    o = (vopt){
        .model = "none", .no_tokens = true, .no_scores = true, .no_types = true, .no_ids = true};
    clean(vocab_file(&o).f);
}

/* 200000 generated tokens (the size of the largest real vocabularies): clean,
 * then with the last token repeating one in the middle. */
static void test_large_vocabulary(void **state)
{
    enum { N = 200000 };
    char(*names)[16] = malloc((size_t)N * sizeof *names);
    const char **toks = malloc((size_t)N * sizeof *toks);
    assert_non_null(names);
    assert_non_null(toks);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "tok%d", i);
        toks[i] = names[i];
    }
    vopt o = {.tokens = toks, .n_tokens = N};
    clean(vocab_file(&o).f);
    toks[N - 1] = names[123456];
    vfile v = vocab_file(&o);
    expect(v.f, "GG577", str_elem(&v.tokens, toks, N - 1));
    free(toks);
    free(names);
}

/* A big-endian file: the element decoders honour the byte order. */
static void test_big_endian(void **state)
{
    static const int32_t types[N_BASE] = {2, 3, 3, 6, 6, 1, 1, 9};
    gb *b = gb_new(3);
    gb_set_big_endian(b, true);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, TK "model", "llama");
    gb_kv_arr_str(b, TK "tokens", base_tokens, N_BASE);
    gb_kv_arr(b, TK "token_type", GB_VT_I32, N_BASE, types, sizeof types);
    gb_marks m = *gb_last(b);
    gb_kv_u32(b, TK "eos_token_id", 2);
    expect(finish(b), "GG580", m.arr_elems + 7 * 4);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_base_clean),
            cmocka_unit_test(test_GG570_tokenizer_model_unknown),
            cmocka_unit_test(test_GG571_tokenizer_wrong_type),
            cmocka_unit_test(test_GG572_tokenizer_length_mismatch),
            cmocka_unit_test(test_GG573_vocab_size_mismatch),
            cmocka_unit_test(test_GG574_vocab_tensor_rows_mismatch),
            cmocka_unit_test(test_GG575_special_token_id_out_of_range),
            cmocka_unit_test(test_GG576_default_special_id_out_of_range),
            cmocka_unit_test(test_GG577_duplicate_token),
            cmocka_unit_test(test_GG578_empty_token),
            cmocka_unit_test(test_GG579_byte_token_malformed),
            cmocka_unit_test(test_GG580_token_type_unknown),
            cmocka_unit_test(test_GG581_token_too_long),
            cmocka_unit_test(test_GG582_token_long),
            cmocka_unit_test(test_GG583_precompiled_charsmap_inconsistent),
            cmocka_unit_test(test_GG584_bpe_merges_missing),
            cmocka_unit_test(test_GG585_bpe_pre_missing),
            cmocka_unit_test(test_GG586_tokenizer_incomplete),
            cmocka_unit_test(test_GG593_pre_tokenizer_unknown),
            cmocka_unit_test(test_pre_clears_default_bos),
            cmocka_unit_test(test_large_vocabulary),
            cmocka_unit_test(test_big_endian),
        })

/* test_split.c - the split rules (GG401-GG416, check_split.c): the split.*
 * keys of one shard, each rule with a triggering file and a clean one at the
 * exact rule id and byte offset; and gguflint_check_set on 3-shard sets built
 * in memory and named m-0000N-of-00003.gguf: the clean set (in any order),
 * then a missing shard, an extra shard, a duplicated shard, a tensor in two
 * shards, a wrong tensor total, disagreeing counts and metadata outside the
 * first shard, each reported on the shard holding the field (those broken
 * sets are tables run by one loop). Clean means no finding of the split
 * family. */
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

/* ------------------------------------------------------------------ helpers */

/* A shard as written: its bytes and the offsets of its fields. */
typedef struct shard {
    uint8_t *buf;
    size_t len;
    gb_marks no, count, total, meta, tensor[4];
    char name[64];
} shard;

static void shard_free(shard *s)
{
    free(s->buf);
    s->buf = NULL;
}

/* Key types of the split keys (defaults u16, u16, i32). */
typedef struct keys {
    bool no_u32;     /* split.no as u32 */
    bool no_tensors; /* omit split.tensors.count */
    bool none;       /* no split keys at all */
} keys;

/* Shard `no` (0-based) of `count`, declaring `total` tensors over the set and
 * holding the f32 [4] tensors named in `tensors`; `meta` writes the model
 * metadata (general.architecture and a tokenizer model) first. */
static shard make_shard(long no, long count, long total, const char *const *tensors, size_t nt,
                        bool meta, keys k)
{
    shard s;
    memset(&s, 0, sizeof s);
    gb *b = gb_new(3);
    assert_non_null(b);
    if (meta) {
        gb_kv_str(b, "general.architecture", "llama");
        s.meta = *gb_last(b);
        gb_kv_str(b, "general.name", "m");
    }
    if (!k.none) {
        if (k.no_u32)
            gb_kv_u32(b, "split.no", (uint32_t)no);
        else
            gb_kv_u16(b, "split.no", (uint16_t)no);
        s.no = *gb_last(b);
        gb_kv_u16(b, "split.count", (uint16_t)count);
        s.count = *gb_last(b);
        if (!k.no_tensors) {
            gb_kv_i32(b, "split.tensors.count", (int32_t)total);
            s.total = *gb_last(b);
        }
    }
    uint64_t ne[1] = {4};
    for (size_t i = 0; i < nt && i < 4; i++) {
        gb_tensor(b, tensors[i], 1, ne, GB_F32, 32 * i);
        s.tensor[i] = *gb_last(b);
    }
    gb_pad_to(b, 32);
    gb_zeros(b, 32 * nt);
    s.buf = ex_finish(b, &s.len);
    snprintf(s.name, sizeof s.name, "m-%05ld-of-%05ld.gguf", no + 1, count);
    return s;
}

static gguflint_ctx *lint_named(const shard *s, const char *name)
{
    return ex_lint_opt(s->buf, s->len, NULL, name);
}

/* One shard linted under `name`: rule `id` exactly `times` times, one at
 * `offset` (times 0: never). */
static void shard_expect_at(shard s, const char *name, const char *id, uint64_t offset,
                            size_t times, const char *where)
{
    gguflint_ctx *ctx = lint_named(&s, name);
    size_t at, n = ex_count_id(ctx, id, offset, &at);
    bool ok = times ? at > 0 && n == times : n == 0;
    if (!ok)
        ex_print_findings(name, ctx);
    gguflint_free(ctx);
    shard_free(&s);
    if (!ok)
        fail_msg("%s: expected %zu x %s at offset %llu, got %zu (%zu there)", where, times, id,
                 (unsigned long long)offset, n, at);
}
#define shard_expect(s, name, id, offset) shard_expect_at(s, name, id, offset, 1, __func__)
#define shard_absent(s, name, id) shard_expect_at(s, name, id, 0, 0, __func__)

static void shard_clean_at(shard s, const char *name, const char *where)
{
    gguflint_ctx *ctx = lint_named(&s, name);
    size_t n = ex_count_family(ctx, "split");
    if (n)
        ex_print_findings(name, ctx);
    gguflint_free(ctx);
    shard_free(&s);
    if (n)
        fail_msg("%s: %zu split finding(s) on a clean shard", where, n);
}
#define shard_clean(s, name) shard_clean_at(s, name, __func__)

static const char *const t_a[] = {"a"}, *const t_b[] = {"b"}, *const t_c[] = {"c"};
static const keys K0 = {0};

/* ------------------------------------------------------------------ one shard */

static void test_shard_clean(void **state)
{
    shard s = make_shard(0, 3, 3, t_a, 1, true, K0);
    shard_clean(s, "dir/m-00001-of-00003.gguf");
    s = make_shard(1, 3, 3, t_b, 1, false, K0);
    shard_clean(s, NULL); /* no name: nothing to compare */
    /* a plain model without split keys, under a plain name */
    s = make_shard(0, 1, 1, t_a, 1, true, (keys){.none = true});
    shard_clean(s, "model.gguf");
}

/* Shard 2 of 3 written with the split keys `k`: `id` at its split.no's
 * value type (at_vtype) or start; written whole: no `id`. */
static void second_shard_keys(keys k, const char *id, bool at_vtype, const char *where)
{
    shard s = make_shard(1, 3, 3, t_b, 1, false, k);
    shard_expect_at(s, "m-00002-of-00003.gguf", id, at_vtype ? s.no.vtype : s.no.start, 1, where);
    s = make_shard(1, 3, 3, t_b, 1, false, K0);
    shard_expect_at(s, "m-00002-of-00003.gguf", id, 0, 0, where);
}

static void test_GG401_split_key_wrong_type(void **state)
{
    second_shard_keys((keys){.no_u32 = true}, "GG401", true, __func__);
}

static void test_GG402_split_key_missing(void **state)
{
    second_shard_keys((keys){.no_tensors = true}, "GG402", false, __func__);
}

static void test_GG403_split_count_zero(void **state)
{
    shard s = make_shard(0, 0, 1, t_a, 1, true, K0);
    shard_expect(s, NULL, "GG403", s.count.value);
    s = make_shard(0, 1, 1, t_a, 1, true, K0);
    shard_clean(s, "m-00001-of-00001.gguf");
}

static void test_GG404_split_no_out_of_range(void **state)
{
    shard s = make_shard(3, 3, 3, t_a, 1, false, K0);
    shard_expect(s, NULL, "GG404", s.no.value);
    s = make_shard(2, 3, 3, t_a, 1, false, K0);
    shard_clean(s, NULL);
}

static void test_GG405_split_tensors_count_invalid(void **state)
{
    static const char *const two[] = {"a", "b"};
    shard s = make_shard(0, 2, 1, two, 2, true, K0);
    shard_expect(s, NULL, "GG405", s.total.value);
    s = make_shard(0, 2, -1, t_a, 1, true, K0);
    shard_expect(s, NULL, "GG405", s.total.value);
    s = make_shard(0, 2, 2, two, 2, true, K0);
    shard_clean(s, NULL);
}

static void test_GG406_split_name_mismatch(void **state)
{
    /* the name says shard 2, split.no says shard 1 */
    shard s = make_shard(0, 3, 3, t_a, 1, true, K0);
    shard_expect(s, "m-00002-of-00003.gguf", "GG406", s.no.value);
    /* the name says 4 shards */
    s = make_shard(0, 3, 3, t_a, 1, true, K0);
    shard_expect(s, "x/m-00001-of-00004.gguf", "GG406", s.count.value);
    /* a shard of a 3-file set under a plain name */
    s = make_shard(0, 3, 3, t_a, 1, true, K0);
    shard_expect(s, "model.gguf", "GG406", s.count.value);
    /* a shard name on a file without split keys */
    s = make_shard(0, 3, 3, t_a, 1, true, (keys){.none = true});
    shard_expect(s, "m-00002-of-00003.gguf", "GG406", 0);
    /* clean: the matching name; a one-file "set" name without keys */
    s = make_shard(1, 3, 3, t_b, 1, false, K0);
    shard_clean(s, "m-00002-of-00003.gguf");
    s = make_shard(0, 1, 1, t_a, 1, true, (keys){.none = true});
    shard_clean(s, "m-00001-of-00001.gguf");
}

/* ------------------------------------------------------------------ sets */

#define MAXS 6

typedef struct set {
    shard s[MAXS];
    gguflint_ctx *ctx[MAXS];
    size_t n;
} set;

static void set_add(set *st, shard s, const char *name)
{
    assert_true(st->n < MAXS);
    st->s[st->n] = s;
    st->ctx[st->n] = lint_named(&st->s[st->n], name ? name : s.name);
    st->n++;
}

static void set_free(set *st)
{
    for (size_t i = 0; i < st->n; i++) {
        gguflint_free(st->ctx[i]);
        shard_free(&st->s[i]);
    }
    st->n = 0;
}

/* The clean 3-shard set: metadata and tensor a in shard 1, b and c after. */
static void clean_set(set *st)
{
    memset(st, 0, sizeof *st);
    set_add(st, make_shard(0, 3, 3, t_a, 1, true, K0), NULL);
    set_add(st, make_shard(1, 3, 3, t_b, 1, false, K0), NULL);
    set_add(st, make_shard(2, 3, 3, t_c, 1, false, K0), NULL);
}

static void check(set *st)
{
    assert_int_equal(gguflint_check_set(st->ctx, st->n), GGUFLINT_OK);
}

/* Exactly `times` findings of `id` on shard k, one at `offset`, and none of
 * `id` on the other shards. */
static void set_expect_at(set *st, size_t k, const char *id, uint64_t offset, size_t times,
                          const char *where)
{
    size_t at, n = ex_count_id(st->ctx[k], id, offset, &at);
    size_t total = 0;
    for (size_t i = 0; i < st->n; i++)
        total += ex_count_id(st->ctx[i], id, 0, NULL);
    if (at == 0 || n != times || total != times) {
        for (size_t i = 0; i < st->n; i++)
            ex_print_findings(st->s[i].name, st->ctx[i]);
        fail_msg("%s: expected %zu x %s on shard %zu at offset %llu; got %zu there (%zu at the "
                 "offset), %zu in the set",
                 where, times, id, k, (unsigned long long)offset, n, at, total);
    }
}
#define set_expect(st, k, id, offset) set_expect_at(st, k, id, offset, 1, __func__)

static void set_clean_at(set *st, const char *where)
{
    for (size_t i = 0; i < st->n; i++) {
        if (ex_count_family(st->ctx[i], "split")) {
            for (size_t j = 0; j < st->n; j++)
                ex_print_findings(st->s[j].name, st->ctx[j]);
            fail_msg("%s: split findings on a clean set", where);
        }
    }
}
#define set_clean(st) set_clean_at(st, __func__)

static void test_set_clean(void **state)
{
    set st;
    clean_set(&st);
    check(&st);
    set_clean(&st);
    /* idempotent */
    check(&st);
    set_clean(&st);
    set_free(&st);

    /* any order, and with unrelated files and NULLs among them */
    memset(&st, 0, sizeof st);
    set_add(&st, make_shard(2, 3, 3, t_c, 1, false, K0), NULL);
    set_add(&st, make_shard(0, 1, 1, t_a, 1, true, (keys){.none = true}), "other.gguf");
    set_add(&st, make_shard(0, 3, 3, t_a, 1, true, K0), NULL);
    set_add(&st, make_shard(1, 3, 3, t_b, 1, false, K0), NULL);
    gguflint_ctx *with_null[MAXS + 1];
    for (size_t i = 0; i < st.n; i++)
        with_null[i] = st.ctx[i];
    with_null[st.n] = NULL;
    assert_int_equal(gguflint_check_set(with_null, st.n + 1), GGUFLINT_OK);
    set_clean(&st);
    set_free(&st);

    /* two sets in one call, told apart by their name prefix */
    memset(&st, 0, sizeof st);
    set_add(&st, make_shard(0, 2, 2, t_a, 1, true, K0), "x-00001-of-00002.gguf");
    set_add(&st, make_shard(0, 2, 2, t_a, 1, true, K0), "y-00001-of-00002.gguf");
    set_add(&st, make_shard(1, 2, 2, t_b, 1, false, K0), "y-00002-of-00002.gguf");
    set_add(&st, make_shard(1, 2, 2, t_b, 1, false, K0), "x-00002-of-00002.gguf");
    check(&st);
    set_clean(&st);
    set_free(&st);

    /* unnamed buffers: one set */
    memset(&st, 0, sizeof st);
    shard a = make_shard(0, 2, 2, t_a, 1, true, K0), b = make_shard(1, 2, 2, t_b, 1, false, K0);
    st.s[0] = a;
    st.ctx[0] = lint_named(&st.s[0], NULL);
    st.s[1] = b;
    st.ctx[1] = lint_named(&st.s[1], NULL);
    st.n = 2;
    check(&st);
    set_clean(&st);
    set_free(&st);
}

static void test_set_not_run(void **state)
{
    shard s = make_shard(0, 1, 1, t_a, 1, true, K0);
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, s.buf, s.len), GGUFLINT_OK);
    assert_int_equal(gguflint_check_set(&ctx, 1), GGUFLINT_E_STATE);
    assert_int_equal(gguflint_check_set(NULL, 1), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_check_set(NULL, 0), GGUFLINT_OK);
    gguflint_free(ctx);
    shard_free(&s);
}

/* ---------------------------------------------------------- broken sets */

/* A shard of a set case: make_shard's arguments (no split-key changes) and
 * the name it is linted under (NULL: its own m-0000N-of-0000M.gguf). */
typedef struct sdef {
    long no, count, total;
    const char *const *tensors;
    size_t nt;
    bool meta;
    const char *name;
} sdef;

/* The field of a shard a finding must point at. */
typedef enum { AT_COUNT, AT_NO, AT_TOTAL, AT_META, AT_TENSOR1 } sfield;

/* A set checked with gguflint_check_set: rule `id` `times` times (0: once)
 * on shard k, one at its field `at`, nowhere else; and, when `none` is set,
 * no finding of that rule on shard none_k (-1: on any shard). */
typedef struct setcase {
    const char *what;
    sdef shards[MAXS]; /* up to the first without tensors */
    size_t k;
    const char *id;
    sfield at;
    size_t times;
    const char *none;
    int none_k;
} setcase;

static uint64_t shard_field(const shard *s, sfield f)
{
    switch (f) {
    case AT_COUNT: return s->count.value;
    case AT_NO: return s->no.value;
    case AT_TOTAL: return s->total.value;
    case AT_META: return s->meta.start;
    default: return s->tensor[1].start;
    }
}

static void run_set_cases(void **state)
{
    const ex_table *t = *state;
    const setcase *cases = t->rows;
    for (size_t i = 0; i < t->n; i++) {
        const setcase *c = &cases[i];
        char where[256];
        snprintf(where, sizeof where, "%s: %s", t->name, c->what);
        set st;
        memset(&st, 0, sizeof st);
        for (size_t j = 0; j < MAXS && c->shards[j].tensors; j++) {
            const sdef *d = &c->shards[j];
            set_add(&st, make_shard(d->no, d->count, d->total, d->tensors, d->nt, d->meta, K0),
                    d->name);
        }
        check(&st);
        set_expect_at(&st, c->k, c->id, shard_field(&st.s[c->k], c->at), c->times ? c->times : 1,
                      where);
        for (size_t j = 0; c->none && j < st.n; j++)
            if (c->none_k < 0 || (size_t)c->none_k == j)
                if (ex_count_id(st.ctx[j], c->none, 0, NULL) != 0)
                    fail_msg("%s: %s on shard %zu", where, c->none, j);
        set_free(&st);
    }
}

static const char *const t_d[] = {"d"}, *const t_cb[] = {"c", "b"};

/* the shards of the clean 3-shard set (clean_set) */
#define SHARD_A                                                                                    \
    {                                                                                              \
        0, 3, 3, t_a, 1, true, NULL                                                                \
    }
#define SHARD_B                                                                                    \
    {                                                                                              \
        1, 3, 3, t_b, 1, false, NULL                                                               \
    }
#define SHARD_C                                                                                    \
    {                                                                                              \
        2, 3, 3, t_c, 1, false, NULL                                                               \
    }

static const setcase test_GG410_split_shard_missing[] = {
    {"shard 2 of 3 missing",
     {SHARD_A, SHARD_C},
     0,
     "GG410",
     .at = AT_COUNT,
     .none = "GG415",
     .none_k = 0 /* not with a gap */},
    {"shard 1 missing: reported on the lowest shard present",
     {SHARD_C, SHARD_B},
     1,
     "GG410",
     .at = AT_COUNT},
};

static const setcase test_GG411_split_shard_extra[] = {
    {"shard 4 of 3",
     {SHARD_A, SHARD_B, SHARD_C, {3, 3, 4, t_d, 1, false, "m-00004-of-00003.gguf"}},
     3,
     "GG411",
     .at = AT_NO},
};

static const setcase test_GG412_split_shard_duplicate[] = {
    {"shard 2 twice; the copy takes no part in the tensor checks",
     {SHARD_A, SHARD_B, SHARD_C, SHARD_B},
     3,
     "GG412",
     .at = AT_NO,
     .none = "GG414",
     .none_k = -1},
};

static const setcase test_GG413_split_set_inconsistent[] = {
    {"shard 2 says 4 shards",
     {SHARD_A, {1, 4, 3, t_b, 1, false, "m-00002-of-00003.gguf"}, SHARD_C},
     1,
     "GG413",
     .at = AT_COUNT},
    {"shard 3 says 5 tensors",
     {SHARD_A, SHARD_B, {2, 3, 5, t_c, 1, false, NULL}},
     2,
     "GG413",
     .at = AT_TOTAL},
};

#define SHARD_A4                                                                                   \
    {                                                                                              \
        0, 3, 4, t_a, 1, true, NULL                                                                \
    }
#define SHARD_B4                                                                                   \
    {                                                                                              \
        1, 3, 4, t_b, 1, false, NULL                                                               \
    }
#define SHARD_CB4                                                                                  \
    {                                                                                              \
        2, 3, 4, t_cb, 2, false, NULL                                                              \
    }

static const setcase test_GG414_split_duplicate_tensor[] = {
    {"b in shards 2 and 3", {SHARD_A4, SHARD_B4, SHARD_CB4}, 2, "GG414", .at = AT_TENSOR1},
    {"given in another order, the later shard (by number) still gets it",
     {SHARD_CB4, SHARD_B4, SHARD_A4},
     0,
     "GG414",
     .at = AT_TENSOR1},
};

static const setcase test_GG415_split_tensor_total_mismatch[] = {
    {"4 tensors declared, 3 found",
     {SHARD_A4, SHARD_B4, {2, 3, 4, t_c, 1, false, NULL}},
     0,
     "GG415",
     .at = AT_TOTAL},
};

static const setcase test_GG416_split_metadata_not_first[] = {
    /* general.architecture and general.name: two findings, the first at the key */
    {"metadata in shard 2",
     {SHARD_A, {1, 3, 3, t_b, 1, true, NULL}, SHARD_C},
     1,
     "GG416",
     .at = AT_META,
     .times = 2},
};

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_shard_clean),
            cmocka_unit_test(test_GG401_split_key_wrong_type),
            cmocka_unit_test(test_GG402_split_key_missing),
            cmocka_unit_test(test_GG403_split_count_zero),
            cmocka_unit_test(test_GG404_split_no_out_of_range),
            cmocka_unit_test(test_GG405_split_tensors_count_invalid),
            cmocka_unit_test(test_GG406_split_name_mismatch),
            cmocka_unit_test(test_set_clean),
            cmocka_unit_test(test_set_not_run),
            EX_TABLE_TEST(run_set_cases, test_GG410_split_shard_missing),
            EX_TABLE_TEST(run_set_cases, test_GG411_split_shard_extra),
            EX_TABLE_TEST(run_set_cases, test_GG412_split_shard_duplicate),
            EX_TABLE_TEST(run_set_cases, test_GG413_split_set_inconsistent),
            EX_TABLE_TEST(run_set_cases, test_GG414_split_duplicate_tensor),
            EX_TABLE_TEST(run_set_cases, test_GG415_split_tensor_total_mismatch),
            EX_TABLE_TEST(run_set_cases, test_GG416_split_metadata_not_first),
        })

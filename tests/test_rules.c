/* test_rules.c - one test per rule of rules/rules.def: a file built with the
 * gguf_builder that triggers the rule, and an assertion that a finding with
 * exactly that rule id is reported at exactly the byte offset the offset
 * conventions name (the offending field). Plus negative checks: the clean
 * variants of the same files do not report the rule, and the canned small
 * model reports nothing at all. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gguf_builder.h"
#include "gguflint.h"

/* ------------------------------------------------------------------ helpers */

static void print_findings(const gguflint_ctx *ctx)
{
    size_t n = gguflint_finding_count(ctx);
    print_message("  %zu finding(s):\n", n);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        print_message("    %s %-24s %-8s off=%llu len=%llu %s: %s\n", r ? r->id : "?",
                      r ? r->slug : "?", gguflint_severity_name(f->severity),
                      (unsigned long long)f->offset, (unsigned long long)f->length,
                      f->path ? f->path : "", f->message ? f->message : "");
    }
}

/* The structural rules this file tests: the semantic families (model,
 * tokenizer, split, security) have their own test files, and the small files
 * built here are not meant to be complete models. */
static gguflint_options *structural(void)
{
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    gguflint_options_clear(o);
    gguflint_options_select(o, "container,kv,tensor,data", true, NULL, 0);
    return o;
}

/* Lint a buffer; the returned context is freed by the caller. NULL options
 * mean the structural rules at their default severities. */
static gguflint_ctx *lint(const uint8_t *buf, size_t len, const gguflint_options *opt)
{
    static const uint8_t empty[1];
    gguflint_options *dflt = opt ? NULL : structural();
    gguflint_ctx *ctx = gguflint_new(opt ? opt : dflt);
    gguflint_options_free(dflt);
    assert_non_null(ctx);
    int st = gguflint_set_buffer(ctx, buf ? (const void *)buf : (const void *)empty, len);
    if (st != GGUFLINT_OK) {
        gguflint_free(ctx);
        fail_msg("gguflint_set_buffer: %s", gguflint_strerror(st));
    }
    st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        gguflint_free(ctx);
        fail_msg("gguflint_run: %s", gguflint_strerror(st));
    }
    return ctx;
}

static const char *rule_id(const gguflint_finding *f)
{
    const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
    return r ? r->id : "";
}

/* Number of findings of rule `id` (any offset); *at_offset counts those at `offset`. */
static size_t count_rule(const gguflint_ctx *ctx, const char *id, uint64_t offset,
                         size_t *at_offset)
{
    size_t n = 0, at = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(rule_id(f), id) == 0) {
            n++;
            if (f->offset == offset)
                at++;
        }
    }
    if (at_offset)
        *at_offset = at;
    return n;
}

/* Assert a finding of rule `id` at exactly `offset`; print all findings if not. */
static void assert_finding_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                              const char *id, uint64_t offset, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t at;
    size_t n = count_rule(ctx, id, offset, &at);
    if (at == 0) {
        print_message("%s: expected %s at offset %llu (file of %zu bytes); %s reported %zu "
                      "time(s) elsewhere\n",
                      where, id, (unsigned long long)offset, len, id, n);
        print_findings(ctx);
        gguflint_free(ctx);
        fail_msg("%s: missing %s at offset %llu", where, id, (unsigned long long)offset);
    }
    gguflint_free(ctx);
}
#define assert_finding(buf, len, opt, id, offset) \
    assert_finding_at(buf, len, opt, id, offset, __func__)

static void assert_no_rule_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                              const char *id, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    size_t n = count_rule(ctx, id, 0, NULL);
    if (n != 0) {
        print_message("%s: %s must not be reported\n", where, id);
        print_findings(ctx);
        gguflint_free(ctx);
        fail_msg("%s: unexpected %s", where, id);
    }
    gguflint_free(ctx);
}
#define assert_no_rule(buf, len, opt, id) assert_no_rule_at(buf, len, opt, id, __func__)

/* Assert that the findings are exactly the listed rule ids (a NULL-terminated
 * list, any order, each at least once; nothing else). */
static void assert_only_rules_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                                 const char *const *ids, const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    bool bad = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const char *got = rule_id(gguflint_finding_get(ctx, i));
        bool listed = false;
        for (size_t j = 0; ids[j]; j++)
            listed |= strcmp(ids[j], got) == 0;
        if (!listed) {
            print_message("%s: unexpected %s\n", where, got);
            bad = true;
        }
    }
    for (size_t j = 0; ids[j]; j++) {
        if (count_rule(ctx, ids[j], 0, NULL) == 0) {
            print_message("%s: expected %s\n", where, ids[j]);
            bad = true;
        }
    }
    if (bad) {
        print_findings(ctx);
        gguflint_free(ctx);
        fail_msg("%s: findings differ from the expected set", where);
    }
    gguflint_free(ctx);
}
#define assert_only_rules(buf, len, opt, ...)                                       \
    do {                                                                           \
        static const char *const ids_[] = {__VA_ARGS__, NULL};                     \
        assert_only_rules_at(buf, len, opt, ids_, __func__);                       \
    } while (0)

static void assert_clean_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                            const char *where)
{
    gguflint_ctx *ctx = lint(buf, len, opt);
    if (gguflint_finding_count(ctx) != 0) {
        print_message("%s: expected no findings\n", where);
        print_findings(ctx);
        gguflint_free(ctx);
        fail_msg("%s: file is not clean", where);
    }
    gguflint_free(ctx);
}
#define assert_clean(buf, len, opt) assert_clean_at(buf, len, opt, __func__)

static uint8_t *finish(gb *b, size_t *len)
{
    assert_non_null(b);
    uint8_t *p = gb_finish(b, len);
    gb_free(b);
    assert_non_null(p);
    return p;
}

static gguflint_options *defaults(void)
{
    return structural();
}

/* A v3 file holding one KV written by `fn` (and nothing else): returns the
 * buffer; *m gets the KV's field offsets. */
typedef void (*kv_writer)(gb *b);
static uint8_t *one_kv_file(kv_writer fn, gb_marks *m, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    fn(b);
    *m = *gb_last(b);
    return finish(b, len);
}

/* --- tensor layouts ---------------------------------------------------- */

#define AUTO UINT64_MAX
#define MAXT 4

typedef struct tspec {
    const char *name;
    size_t namelen;    /* 0: strlen(name) */
    uint32_t n_dims;
    uint64_t ne[5];
    uint32_t type;
    uint64_t offset;   /* AUTO: running sum of padded sizes */
} tspec;

typedef struct layout {
    tspec t[MAXT];
    size_t nt;
    uint32_t align_kv;      /* 0: no general.alignment KV (default 32) */
    bool stop_after_infos;  /* no padding and no data at all */
    bool data_len_set;
    uint64_t data_len;      /* bytes of data section (default: what the tensors need) */
} layout;

typedef struct built {
    uint8_t *buf;
    size_t len;
    gb_marks t[MAXT];
    size_t info_end;   /* end of the tensor infos */
    size_t data_start; /* info_end padded to the alignment */
} built;

static built build(const layout *l)
{
    built r;
    memset(&r, 0, sizeof r);
    uint64_t align = l->align_kv ? l->align_kv : 32;
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    if (l->align_kv)
        gb_kv_u32(b, "general.alignment", l->align_kv);
    uint64_t run = 0, need = 0;
    for (size_t i = 0; i < l->nt; i++) {
        const tspec *t = &l->t[i];
        uint64_t nb = t->n_dims <= 4 ? gb_nbytes(t->type, t->n_dims, t->ne) : UINT64_MAX;
        if (nb == UINT64_MAX)
            nb = 0;
        uint64_t off = t->offset == AUTO ? run : t->offset;
        gb_tensorn(b, t->name, t->namelen ? t->namelen : strlen(t->name), t->n_dims, t->ne,
                   t->type, off);
        r.t[i] = *gb_last(b);
        run += gb_align_up(nb, align);
        /* Data for tensors that fit in a small file; hostile offsets or
         * sizes get none (the file then simply ends early). */
        if (off <= (1u << 20) && nb <= (1u << 20) && gb_align_up(off + nb, align) > need)
            need = gb_align_up(off + nb, align);
    }
    r.info_end = gb_offset(b);
    r.data_start = (size_t)gb_align_up(r.info_end, align);
    if (!l->stop_after_infos) {
        gb_pad_to(b, align);
        gb_zeros(b, (size_t)(l->data_len_set ? l->data_len : need));
    }
    r.buf = finish(b, &r.len);
    return r;
}

/* ============================================================ the builder */

/* The builder writes the bytes the tests' offsets are computed from: check it
 * against hand-written encodings. */
static void test_builder_encoding(void **state)
{
    (void)state;
    size_t len;
    /* v3 little-endian: header, a u16 KV, a u32 array, a tensor. */
    gb *b = gb_new(3);
    assert_int_equal(gb_offset(b), 24);
    assert_int_equal(gb_kv_u16(b, "k", 0x1234), 24);
    gb_marks m = *gb_last(b);
    assert_int_equal(m.start, 24);
    assert_int_equal(m.key, 32);
    assert_int_equal(m.vtype, 33);
    assert_int_equal(m.value, 37);
    assert_int_equal(m.end, 39);
    uint32_t el[2] = {1, 0x01020304};
    gb_kv_arr(b, "a", GB_VT_U32, 2, el, sizeof el);
    m = *gb_last(b);
    assert_int_equal(m.value, 39 + 13);
    assert_int_equal(m.arr_count, 39 + 17);
    assert_int_equal(m.arr_elems, 39 + 25);
    uint64_t ne[2] = {256, 3};
    gb_tensor(b, "t", 2, ne, GB_Q4_K, 64);
    m = *gb_last(b);
    assert_int_equal(m.n_dims, m.start + 9);
    assert_int_equal(m.dim[0], m.start + 13);
    assert_int_equal(m.dim[1], m.start + 21);
    assert_int_equal(m.ttype, m.start + 29);
    assert_int_equal(m.offset, m.start + 33);
    assert_int_equal(m.end, m.start + 41);
    assert_int_equal(gb_kv_written(b), 2);
    assert_int_equal(gb_tensors_written(b), 1);
    uint8_t *buf = finish(b, &len);
    static const uint8_t head[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                   2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                   'k', 2, 0, 0, 0, 0x34, 0x12};
    assert_memory_equal(buf, head, sizeof head);
    static const uint8_t arr[] = {4, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 3, 2, 1};
    assert_memory_equal(buf + 39 + 13, arr, sizeof arr);
    free(buf);

    /* Big-endian: magic kept, everything after swapped. */
    b = gb_new(3);
    gb_set_big_endian(b, true);
    gb_kv_f32(b, "f", 1.0f);
    gb_kv_arr(b, "a", GB_VT_U32, 2, el, sizeof el);
    buf = finish(b, &len);
    static const uint8_t be[] = {'G', 'G', 'U', 'F', 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1,
                                 'f', 0, 0, 0, 6, 0x3f, 0x80, 0, 0};
    assert_memory_equal(buf, be, sizeof be);
    static const uint8_t beel[] = {0, 0, 0, 1, 1, 2, 3, 4};
    assert_memory_equal(buf + len - 8, beel, 8);
    free(buf);

    /* v1: u32 counts and lengths; override counts. */
    b = gb_new(1);
    assert_int_equal(gb_offset(b), 16);
    gb_kv_str(b, "s", "xy");
    gb_override_counts(b, 7, 9);
    buf = finish(b, &len);
    static const uint8_t v1[] = {'G', 'G', 'U', 'F', 1, 0, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0,
                                 1, 0, 0, 0, 's', 8, 0, 0, 0, 2, 0, 0, 0, 'x', 'y'};
    assert_int_equal(len, sizeof v1);
    assert_memory_equal(buf, v1, sizeof v1);
    free(buf);

    /* Padding, sizes, NULL safety, finish twice. */
    b = gb_new(3);
    gb_u8(b, 1);
    gb_pad_to(b, 32);
    assert_int_equal(gb_offset(b), 32);
    gb_pad_to(b, 32);
    assert_int_equal(gb_offset(b), 32);
    buf = gb_finish(b, &len);
    assert_non_null(buf);
    assert_null(gb_finish(b, &len));
    assert_false(gb_ok(b));
    gb_free(b);
    free(buf);
    assert_int_equal(gb_kv_u32(NULL, "x", 1), 0);
    assert_null(gb_finish(NULL, &len));
    assert_int_equal(len, 0);
    gb_free(NULL);
    uint64_t q[2] = {256, 3};
    assert_int_equal(gb_nbytes(GB_Q4_K, 2, q), 432);
    uint64_t r[1] = {33};
    assert_true(gb_nbytes(GB_Q8_0, 1, r) == UINT64_MAX);
    assert_true(gb_nbytes(4, 1, r) == UINT64_MAX);
    assert_true(gb_nbytes(99, 1, r) == UINT64_MAX);
    uint64_t z[2] = {8, 0};
    assert_int_equal(gb_nbytes(GB_F32, 2, z), 0);
    assert_int_equal(gb_nbytes(GB_F16, 0, NULL), 2);
    assert_int_equal(gb_align_up(33, 32), 64);
    assert_int_equal(gb_align_up(48, 48), 48);
}

/* ================================================================ clean files */

static void test_small_model_clean(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    gguflint_options *o = defaults();
    assert_clean(buf, len, o);
    assert_clean(buf, len, NULL);
    gguflint_options_set_deep(o, true);
    /* the builder's tensors hold zeros: GG312 (test_deep.c) would fire */
    gguflint_options_select(o, "GG312", false, NULL, 0);
    assert_clean(buf, len, o);

    /* The model as parsed matches what the builder wrote. */
    gguflint_ctx *ctx = lint(buf, len, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_non_null(h);
    assert_true(h->is_gguf);
    assert_int_equal(h->version, 3);
    assert_false(h->big_endian);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    assert_int_equal(h->kv_parsed, 12);
    assert_int_equal(h->tensors_parsed, 3);
    assert_int_equal(h->alignment, 32);
    assert_true(h->metadata_complete);
    assert_int_equal(h->data_start % 32, 0);
    assert_int_equal(h->data_start + 64 + 32 + 96, len);
    assert_int_equal(gguflint_tensor_count(ctx), 3);
    const gguflint_tensor *t = gguflint_tensor_get(ctx, 2);
    assert_non_null(t);
    assert_int_equal(t->offset, 96);
    assert_int_equal(t->nbytes, 68);
    assert_int_equal(t->type, GB_Q8_0);
    long ai = gguflint_kv_find(ctx, "general.alignment");
    assert_true(ai >= 0);
    assert_int_equal(gguflint_kv_get(ctx, (size_t)ai)->u, 32);
    gguflint_free(ctx);
    free(buf);
    gguflint_options_free(o);
}

static void test_header_only_clean(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = finish(gb_new(3), &len);
    assert_int_equal(len, 24);
    assert_clean(buf, len, NULL);
    free(buf);
}

static void test_builder_layouts_clean(void **state)
{
    (void)state;
    /* Every tensor type family, auto offsets: no findings. */
    layout l = {.nt = 4,
                .t = {{.name = "a", .n_dims = 2, .ne = {256, 3}, .type = GB_Q4_K, .offset = AUTO},
                      {.name = "b", .n_dims = 1, .ne = {5}, .type = GB_F32, .offset = AUTO},
                      {.name = "c", .n_dims = 3, .ne = {32, 2, 2}, .type = GB_Q4_0, .offset = AUTO},
                      {.name = "d", .n_dims = 4, .ne = {3, 1, 1, 2}, .type = GB_BF16,
                       .offset = AUTO}}};
    built r = build(&l);
    assert_clean(r.buf, r.len, NULL);
    free(r.buf);
    /* The same with general.alignment 64. */
    l.align_kv = 64;
    r = build(&l);
    assert_clean(r.buf, r.len, NULL);
    free(r.buf);
}

/* ========================================================== container GG0xx */

static void test_GG001_empty_file(void **state)
{
    (void)state;
    static const uint8_t one[1] = {0};
    assert_finding(one, 0, NULL, "GG001", 0);
}

static void test_GG002_not_gguf(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    buf[3] = 'X';
    assert_finding(buf, len, NULL, "GG002", 0);
    static const uint8_t fugg[24] = {'F', 'U', 'G', 'G', 3};
    assert_finding(fugg, sizeof fugg, NULL, "GG002", 0);
    static const uint8_t elf[24] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    assert_finding(elf, sizeof elf, NULL, "GG002", 0);
    free(buf);
}

static void test_GG003_truncated_header(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = finish(gb_new(3), &len);
    /* Each cut lands inside a field: version (4), tensor_count (8), kv_count (16). */
    assert_finding(buf, 6, NULL, "GG003", 4);
    assert_finding(buf, 10, NULL, "GG003", 8);
    assert_finding(buf, 20, NULL, "GG003", 16);
    assert_finding(buf, 23, NULL, "GG003", 16);
    /* Cut exactly at a field boundary: the next field is missing. */
    assert_finding(buf, 16, NULL, "GG003", 16);
    assert_no_rule(buf, 24, NULL, "GG003");
    free(buf);
    /* v1: 16-byte header, kv_count at 12. */
    buf = finish(gb_new(1), &len);
    assert_int_equal(len, 16);
    assert_finding(buf, 14, NULL, "GG003", 12);
    free(buf);
}

static void header_with_version(uint32_t v, uint8_t **buf, size_t *len)
{
    gb *b = gb_new(v);
    *buf = finish(b, len);
}

static void test_GG004_unsupported_version(void **state)
{
    (void)state;
    uint32_t bad[] = {0, 4, 99, 0x7fffffffu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *buf;
        size_t len;
        header_with_version(bad[i], &buf, &len);
        assert_finding(buf, len, NULL, "GG004", 4);
        free(buf);
    }
    uint8_t *buf;
    size_t len;
    header_with_version(3, &buf, &len);
    assert_no_rule(buf, len, NULL, "GG004");
    free(buf);
}

static void test_GG005_legacy_v1(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model_ex(1, false, &len);
    assert_non_null(buf);
    assert_finding(buf, len, NULL, "GG005", 4);
    /* v1 is parsed with u32 widths: nothing else is wrong with the file. */
    assert_only_rules(buf, len, NULL, "GG005");
    gguflint_ctx *ctx = lint(buf, len, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_int_equal(h->version, 1);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    assert_true(h->metadata_complete);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG006_version_2(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model_ex(2, false, &len);
    assert_non_null(buf);
    assert_finding(buf, len, NULL, "GG006", 4);
    assert_only_rules(buf, len, NULL, "GG006");
    free(buf);
    buf = gb_small_model(&len);
    assert_no_rule(buf, len, NULL, "GG006");
    free(buf);
}

static void test_GG007_byte_swapped(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model_ex(3, true, &len);
    assert_non_null(buf);
    assert_memory_equal(buf, "GGUF\0\0\0\3", 8);
    assert_finding(buf, len, NULL, "GG007", 4);
    /* The file is parsed byte-swapped: nothing else is wrong with it. */
    assert_only_rules(buf, len, NULL, "GG007");
    gguflint_ctx *ctx = lint(buf, len, NULL);
    const gguflint_header *h = gguflint_get_header(ctx);
    assert_true(h->big_endian);
    assert_int_equal(h->version, 3);
    assert_int_equal(h->tensor_count, 3);
    assert_int_equal(h->kv_count, 12);
    long ai = gguflint_kv_find(ctx, "general.alignment");
    assert_true(ai >= 0);
    assert_int_equal(gguflint_kv_get(ctx, (size_t)ai)->u, 32);
    gguflint_free(ctx);
    free(buf);
    buf = gb_small_model(&len);
    assert_no_rule(buf, len, NULL, "GG007");
    free(buf);
}

static void test_GG008_kv_count_impossible(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_override_counts(b, 0, UINT64_C(1) << 32);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG008", 16);
    free(buf);
    /* One real KV, a thousand declared. */
    b = gb_new(3);
    gb_kv_u32(b, "a", 1);
    gb_override_counts(b, 0, 1000);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG008", 16);
    free(buf);
    /* v1: kv_count at 12. */
    b = gb_new(1);
    gb_override_counts(b, 0, 0x7fffffff);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG008", 12);
    free(buf);
    /* Feasible count: no GG008. */
    b = gb_new(3);
    gb_kv_u32(b, "a", 1);
    buf = finish(b, &len);
    assert_no_rule(buf, len, NULL, "GG008");
    free(buf);
}

static void test_GG009_tensor_count_impossible(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_override_counts(b, UINT64_C(1) << 40, 0);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG009", 8);
    free(buf);
    b = gb_new(1);
    gb_override_counts(b, 0xffffffffu, 0);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG009", 8);
    free(buf);
    buf = gb_small_model(&len);
    assert_no_rule(buf, len, NULL, "GG009");
    free(buf);
}

static void test_GG010_truncated(void **state)
{
    (void)state;
    size_t len;
    /* Long keys keep the declared counts feasible (no GG008) at every cut. */
    static const char k1[] = "general.some_long_key_name";
    static const char k2[] = "general.another_long_key";
    /* A KV's u32 value cut after 2 bytes: GG010 at the value. */
    gb *b = gb_new(3);
    gb_kv_u32(b, k1, 1);
    gb_marks m = *gb_last(b);
    uint8_t *buf = finish(b, &len);
    assert_int_equal(m.value, 24 + 8 + strlen(k1) + 4);
    assert_finding(buf, len - 2, NULL, "GG010", m.value);
    /* Cut inside the value-type field. */
    assert_finding(buf, m.vtype + 2, NULL, "GG010", m.vtype);
    free(buf);

    /* The second KV's key length field cut after 3 bytes. */
    b = gb_new(3);
    gb_kv_u8(b, k1, 1);
    gb_kv_u8(b, k2, 2);
    m = *gb_last(b);
    buf = finish(b, &len);
    assert_finding(buf, m.start + 3, NULL, "GG010", m.start);
    free(buf);

    /* A tensor's second dim cut after 4 bytes. */
    b = gb_new(3);
    uint64_t ne[2] = {8, 8};
    gb_tensor(b, "t", 2, ne, GB_F32, 0);
    m = *gb_last(b);
    buf = finish(b, &len);
    assert_int_equal(m.dim[1], 24 + 8 + 1 + 4 + 8);
    assert_finding(buf, m.dim[1] + 4, NULL, "GG010", m.dim[1]);
    /* Cut inside the offset field and inside the type field. */
    assert_finding(buf, m.offset + 7, NULL, "GG010", m.offset);
    assert_finding(buf, m.ttype + 1, NULL, "GG010", m.ttype);
    free(buf);
}

static void test_GG011_kv_count_over_limit(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    gguflint_options *o = defaults();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 2);
    assert_finding(buf, len, o, "GG011", 16);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_KV_COUNT, 12);
    assert_no_rule(buf, len, o, "GG011");
    free(buf);
    gguflint_options_free(o);
}

static void test_GG012_tensor_count_over_limit(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    gguflint_options *o = defaults();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_TENSOR_COUNT, 1);
    assert_finding(buf, len, o, "GG012", 8);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_TENSOR_COUNT, 3);
    assert_no_rule(buf, len, o, "GG012");
    free(buf);
    gguflint_options_free(o);
}

/* ================================================================= kv GG1xx */

static void w_empty_key(gb *b) { gb_kv_u32(b, "", 7); }
static void w_good_key(gb *b) { gb_kv_u32(b, "general.file_type", 7); }

static void test_GG101_empty_key(void **state)
{
    (void)state;
    gb_marks m;
    size_t len;
    uint8_t *buf = one_kv_file(w_empty_key, &m, &len);
    assert_int_equal(m.start, 24);
    assert_finding(buf, len, NULL, "GG101", 24);
    free(buf);
    buf = one_kv_file(w_good_key, &m, &len);
    assert_clean(buf, len, NULL);
    free(buf);
}

static void test_GG102_key_too_long(void **state)
{
    (void)state;
    size_t len;
    char *key = malloc(65537);
    assert_non_null(key);
    memset(key, 'a', 65536);
    key[65536] = 0;
    gb *b = gb_new(3);
    gb_kv_u8(b, "general.x", 1);
    size_t at = gb_kv_u8(b, key, 1);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG102", at);
    free(buf);
    key[65535] = 0; /* 65535 bytes: the limit itself is fine */
    b = gb_new(3);
    gb_kv_u8(b, key, 1);
    buf = finish(b, &len);
    assert_no_rule(buf, len, NULL, "GG102");
    free(buf);
    free(key);
}

static void test_GG103_key_invalid_utf8(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_u8(b, "general.x", 1);
    size_t at = gb_kv_u8(b, "general.\xff\xfe", 1);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG103", at);
    free(buf);
    /* Overlong encoding of '/' */
    b = gb_new(3);
    at = gb_kv_u8(b, "a\xc0\xaf", 1);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG103", at);
    free(buf);
}

static void test_GG104_key_control_bytes(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    size_t at = gb_kv_u8(b, "general\x01name", 1);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG104", at);
    free(buf);
    /* An embedded NUL. */
    b = gb_new(3);
    gb_kv_u8(b, "general.a", 1);
    at = gb_kv_beginn(b, "general.b\0x", 11, GB_VT_U8);
    gb_u8(b, 1);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG104", at);
    free(buf);
    /* ESC */
    b = gb_new(3);
    at = gb_kv_u8(b, "general.\x1b[31m", 1);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG104", at);
    free(buf);
}

static void test_GG105_key_not_snake_case(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_u8(b, "general.ok_key", 1);
    size_t at = gb_kv_u8(b, "General.Name", 1);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG105", at);
    free(buf);
    b = gb_new(3);
    at = gb_kv_u8(b, "general name", 1);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG105", at);
    free(buf);
    b = gb_new(3);
    gb_kv_u8(b, "general.ok_key", 1);
    gb_kv_u32(b, "llama.attention.head_count_kv", 1);
    buf = finish(b, &len);
    assert_no_rule(buf, len, NULL, "GG105");
    free(buf);
}

static void test_GG106_duplicate_key(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_u32(b, "general.a", 1);
    gb_kv_u32(b, "general.b", 1);
    size_t at = gb_kv_str(b, "general.a", "again");
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG106", at);
    /* The first occurrence is not the duplicate. */
    gguflint_ctx *ctx = lint(buf, len, NULL);
    size_t at24;
    assert_int_equal(count_rule(ctx, "GG106", 24, &at24), 1);
    assert_int_equal(at24, 0);
    gguflint_free(ctx);
    free(buf);
}

static void test_GG107_unknown_value_type(void **state)
{
    (void)state;
    uint32_t bad[] = {13, 0xffffffffu, 0x80000000u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len;
        gb *b = gb_new(3);
        gb_kv_u8(b, "general.a", 1);
        gb_kv_begin(b, "general.b", bad[i]);
        size_t at = gb_last(b)->vtype;
        gb_u32(b, 0);
        uint8_t *buf = finish(b, &len);
        assert_finding(buf, len, NULL, "GG107", at);
        free(buf);
    }
}

static void test_GG108_unknown_array_type(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", 13, 0, NULL, 0);
    size_t at = gb_last(b)->value;
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG108", at);
    free(buf);
    b = gb_new(3);
    gb_kv_u8(b, "general.x", 1);
    gb_kv_arr(b, "general.a", 0xffffffffu, 2, "\0\0", 2);
    at = gb_last(b)->value;
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG108", at);
    free(buf);
}

/* An array of `levels` nested arrays whose innermost holds two u8. Returns
 * the offsets of each level's element-type field in et[]. */
static uint8_t *nested_array_file(int levels, size_t *et, size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.nested", GB_VT_ARR);
    for (int i = 0; i < levels; i++) {
        et[i] = gb_arr_header(b, i + 1 < levels ? GB_VT_ARR : GB_VT_U8, i + 1 < levels ? 1 : 2);
    }
    gb_u8(b, 1);
    gb_u8(b, 2);
    return finish(b, len);
}

static void test_GG109_nested_array(void **state)
{
    (void)state;
    size_t len, et[4];
    uint8_t *buf = nested_array_file(2, et, &len);
    assert_finding(buf, len, NULL, "GG109", et[0]);
    /* Within the default depth limit: only the nesting is reported. */
    assert_only_rules(buf, len, NULL, "GG109");
    free(buf);
    buf = nested_array_file(1, et, &len);
    assert_clean(buf, len, NULL);
    free(buf);
}

static void test_GG110_array_too_deep(void **state)
{
    (void)state;
    size_t len, et[4];
    gguflint_options *o = defaults();
    uint8_t *buf = nested_array_file(2, et, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 1);
    assert_finding(buf, len, o, "GG110", et[1]);
    assert_finding(buf, len, o, "GG109", et[0]);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 2);
    assert_no_rule(buf, len, o, "GG110");
    free(buf);
    buf = nested_array_file(3, et, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_DEPTH, 2);
    assert_finding(buf, len, o, "GG110", et[2]);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG111_array_count_impossible(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_U32, UINT64_C(1) << 40, NULL, 0);
    size_t at = gb_last(b)->arr_count;
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG111", at);
    free(buf);
    /* Strings: each element needs at least its 8-byte length. */
    b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_STR, 3, "\0\0\0\0\0\0\0\0", 8);
    at = gb_last(b)->arr_count;
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG111", at);
    free(buf);
}

static void test_GG112_string_past_eof(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_begin(b, "general.name", GB_VT_STR);
    size_t at = gb_str_decl(b, 100, "abc", 3);
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG112", at);
    free(buf);
    /* A key whose length runs past the end. */
    b = gb_new(3);
    at = gb_str_decl(b, 1000, "general.name", 12);
    gb_override_counts(b, 0, 1);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG112", at);
    free(buf);
    /* A string-array element. */
    b = gb_new(3);
    gb_kv_begin(b, "general.tags", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 2);
    gb_str(b, "x", 1);
    at = gb_str_decl(b, 50, "yz", 2);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG112", at);
    free(buf);
}

static void test_GG113_string_over_limit(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_str(b, "n", "hello"); /* the key, a string too, stays under the limit */
    size_t at = gb_last(b)->value;
    uint8_t *buf = finish(b, &len);
    gguflint_options *o = defaults();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 4);
    assert_finding(buf, len, o, "GG113", at);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 5);
    assert_no_rule(buf, len, o, "GG113");
    free(buf);
    /* Keys are strings too. */
    b = gb_new(3);
    at = gb_kv_u8(b, "general.name", 1);
    buf = finish(b, &len);
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_STRING_LEN, 11);
    assert_finding(buf, len, o, "GG113", at);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG114_bool_not_0_1(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_bool(b, "general.flag", 2);
    size_t at = gb_last(b)->value;
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG114", at);
    free(buf);
    /* A bool array element. */
    b = gb_new(3);
    gb_kv_arr(b, "general.flags", GB_VT_BOOL, 3, "\x01\x00\xff", 3);
    at = gb_last(b)->arr_elems + 2;
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG114", at);
    free(buf);
    /* 0 and 1 are fine. */
    b = gb_new(3);
    gb_kv_bool(b, "general.a", 1);
    gb_kv_bool(b, "general.b", 0);
    gb_kv_arr(b, "general.c", GB_VT_BOOL, 2, "\x01\x00", 2);
    buf = finish(b, &len);
    assert_clean(buf, len, NULL);
    free(buf);
}

static void test_GG115_alignment_wrong_type(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_u64(b, "general.alignment", 32);
    size_t at = gb_last(b)->vtype;
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG115", at);
    free(buf);
    b = gb_new(3);
    uint32_t a[1] = {32};
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_arr(b, "general.alignment", GB_VT_U32, 1, a, sizeof a);
    at = gb_last(b)->vtype;
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG115", at);
    free(buf);
    b = gb_new(3);
    gb_kv_i32(b, "general.alignment", 32);
    at = gb_last(b)->vtype;
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG115", at);
    free(buf);
}

static void alignment_case(uint32_t value, const char *id, bool expect)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", value);
    size_t at = gb_last(b)->value;
    uint8_t *buf = finish(b, &len);
    if (expect)
        assert_finding_at(buf, len, NULL, id, at, id);
    else
        assert_no_rule_at(buf, len, NULL, id, id);
    free(buf);
}

static void test_GG116_alignment_zero(void **state)
{
    (void)state;
    alignment_case(0, "GG116", true);
    alignment_case(32, "GG116", false);
}

static void test_GG117_alignment_not_pow2(void **state)
{
    (void)state;
    alignment_case(48, "GG117", true);
    alignment_case(24, "GG117", true);
    alignment_case(64, "GG117", false);
}

static void test_GG118_alignment_not_mult8(void **state)
{
    (void)state;
    alignment_case(4, "GG118", true);
    alignment_case(1, "GG118", true);
    alignment_case(8, "GG118", false);
    alignment_case(32, "GG118", false);
}

/* Only with tensors: without any, no padding is read or written. */
static void alignment_case_tensor(uint32_t value, const char *id, bool expect)
{
    size_t len;
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", value);
    size_t at = gb_last(b)->value;
    uint64_t ne[1] = {8};
    gb_tensor(b, "t", 1, ne, GB_F32, 0);
    uint8_t *buf = finish(b, &len);
    if (expect)
        assert_finding_at(buf, len, NULL, id, at, id);
    else
        assert_no_rule_at(buf, len, NULL, id, id);
    free(buf);
}

static void test_GG119_alignment_too_large(void **state)
{
    (void)state;
    alignment_case_tensor(1u << 21, "GG119", true);
    alignment_case_tensor(1u << 31, "GG119", true);
    alignment_case_tensor(1u << 20, "GG119", false);
    alignment_case(1u << 21, "GG119", false); /* no tensors: harmless */
}

static void test_GG120_array_count_over_limit(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_arr(b, "general.a", GB_VT_U8, 4, "\1\2\3\4", 4);
    size_t at = gb_last(b)->arr_count;
    uint8_t *buf = finish(b, &len);
    gguflint_options *o = defaults();
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_ARRAY_COUNT, 3);
    assert_finding(buf, len, o, "GG120", at);
    assert_no_rule(buf, len, o, "GG111");
    gguflint_options_set_limit(o, GGUFLINT_LIMIT_ARRAY_COUNT, 4);
    assert_no_rule(buf, len, o, "GG120");
    free(buf);
    gguflint_options_free(o);
}

static void test_GG121_string_invalid_utf8(void **state)
{
    (void)state;
    size_t len;
    gb *b = gb_new(3);
    gb_kv_strn(b, "general.name", "ab\xc3\x28", 4);
    size_t at = gb_last(b)->value;
    uint8_t *buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG121", at);
    free(buf);
    /* A string-array element (the second). */
    b = gb_new(3);
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 3);
    gb_str(b, "ok", 2);
    at = gb_str(b, "\xed\xa0\x80", 3); /* a UTF-16 surrogate */
    gb_str(b, "fine", 4);
    buf = finish(b, &len);
    assert_finding(buf, len, NULL, "GG121", at);
    free(buf);
    /* Valid multi-byte UTF-8 is fine. */
    b = gb_new(3);
    gb_kv_str(b, "general.name", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    buf = finish(b, &len);
    assert_clean(buf, len, NULL);
    free(buf);
}

/* ============================================================= tensor GG2xx */

#define T1(nm, nd, t, ...) {.name = nm, .n_dims = nd, .ne = {__VA_ARGS__}, .type = t, .offset = AUTO}

static void test_GG201_tensor_name_empty(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG201", r.t[1].start);
    free(r.buf);
}

static void test_GG202_tensor_name_too_long(void **state)
{
    (void)state;
    char name[65];
    memset(name, 'n', 64);
    name[64] = 0;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1(name, 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG202", r.t[1].start);
    assert_no_rule(r.buf, r.len, NULL, "GG220"); /* 64 bytes: the spec allows it */
    free(r.buf);
    name[63] = 0;
    r = build(&l);
    assert_clean(r.buf, r.len, NULL);
    free(r.buf);
}

static void test_GG220_tensor_name_over_spec_limit(void **state)
{
    (void)state;
    char name[66];
    memset(name, 'n', 65);
    name[65] = 0;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1(name, 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG220", r.t[1].start);
    free(r.buf);
}

static void test_GG203_tensor_name_invalid_utf8(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("w\xff", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG203", r.t[1].start);
    free(r.buf);
}

static void test_GG204_tensor_name_nul(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b\0c", 1, GB_F32, 8)}};
    l.t[1].namelen = 3;
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG204", r.t[1].start);
    free(r.buf);
}

static void test_GG205_duplicate_tensor_name(void **state)
{
    (void)state;
    layout l = {.nt = 3, .t = {T1("a", 1, GB_F32, 8), T1("b", 1, GB_F32, 8),
                               T1("a", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG205", r.t[2].start);
    gguflint_ctx *ctx = lint(r.buf, r.len, NULL);
    size_t first;
    count_rule(ctx, "GG205", r.t[0].start, &first);
    assert_int_equal(first, 0);
    gguflint_free(ctx);
    free(r.buf);
}

static void test_GG206_n_dims_zero(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), {.name = "s", .n_dims = 0,
                                                       .type = GB_F32, .offset = AUTO}}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG206", r.t[1].n_dims);
    assert_only_rules(r.buf, r.len, NULL, "GG206");
    free(r.buf);
}

static void test_GG207_n_dims_too_large(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 5, GB_F32, 8, 1, 1, 1, 1)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG207", r.t[1].n_dims);
    free(r.buf);
}

static void test_GG208_dim_negative(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 2, GB_F32, 8, UINT64_MAX)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG208", r.t[1].dim[1]);
    free(r.buf);
    layout l2 = {.nt = 1, .t = {T1("a", 3, GB_F32, 8, 1, UINT64_C(1) << 63)}};
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG208", r.t[0].dim[2]);
    free(r.buf);
}

static void test_GG209_dim_zero(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 2, GB_F32, 8, 0), T1("b", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG209", r.t[0].dim[1]);
    assert_only_rules(r.buf, r.len, NULL, "GG209");
    free(r.buf);
}

static void test_GG210_element_count_overflow(void **state)
{
    (void)state;
    uint64_t big = UINT64_C(1) << 32;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 2, GB_F32, big, big)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG210", r.t[1].start);
    free(r.buf);
    /* Four dims of 2^16: 2^64 elements. */
    uint64_t d = UINT64_C(1) << 16;
    layout l2 = {.nt = 1, .t = {T1("c", 4, GB_F32, d, d, d, d)}};
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG210", r.t[0].start);
    free(r.buf);
}

static void test_GG211_byte_size_overflow(void **state)
{
    (void)state;
    /* 2^62 f32 elements fit int64, 2^64 bytes do not fit uint64. */
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8),
                               T1("b", 1, GB_F32, UINT64_C(1) << 62)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG211", r.t[1].start);
    assert_no_rule(r.buf, r.len, NULL, "GG210");
    free(r.buf);
}

static void test_GG212_unknown_ggml_type(void **state)
{
    (void)state;
    uint32_t bad[] = {43, 99, 0xffffffffu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 1, bad[i], 32)}};
        built r = build(&l);
        assert_finding(r.buf, r.len, NULL, "GG212", r.t[1].ttype);
        assert_no_rule(r.buf, r.len, NULL, "GG213");
        free(r.buf);
    }
}

static void test_GG213_removed_ggml_type(void **state)
{
    (void)state;
    uint32_t bad[] = {4, 5, 31, 32, 33, 36, 37, 38};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 1, bad[i], 32)}};
        built r = build(&l);
        assert_finding(r.buf, r.len, NULL, "GG213", r.t[1].ttype);
        assert_no_rule(r.buf, r.len, NULL, "GG212");
        free(r.buf);
    }
}

static void test_GG214_row_not_block_multiple(void **state)
{
    (void)state;
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 2, GB_Q8_0, 33, 2)}};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG214", r.t[1].dim[0]);
    free(r.buf);
    layout l2 = {.nt = 1, .t = {T1("k", 1, GB_Q4_K, 128)}};
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG214", r.t[0].dim[0]);
    free(r.buf);
}

static void test_GG215_offset_misaligned(void **state)
{
    (void)state;
    /* a: 16 bytes at 0; b at 16 (not a multiple of 32, no overlap). */
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 4), T1("b", 1, GB_F32, 4)}};
    l.t[1].offset = 16;
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG215", r.t[1].offset);
    assert_no_rule(r.buf, r.len, NULL, "GG217");
    free(r.buf);
    /* Aligned: no GG215. */
    l.t[1].offset = 32;
    r = build(&l);
    assert_no_rule(r.buf, r.len, NULL, "GG215");
    free(r.buf);
    /* Custom alignment 64: offset 32 is misaligned. */
    l.align_kv = 64;
    l.t[1].offset = 32;
    r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG215", r.t[1].offset);
    free(r.buf);
}

static void test_GG216_data_past_eof(void **state)
{
    (void)state;
    layout l = {.nt = 1, .t = {T1("a", 1, GB_F32, 1024)}, .data_len_set = true, .data_len = 32};
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG216", r.t[0].offset);
    free(r.buf);
    /* Offset beyond the end of the file. */
    layout l2 = {.nt = 2, .t = {T1("a", 1, GB_F32, 8), T1("b", 1, GB_F32, 8)}};
    l2.t[1].offset = UINT64_C(1) << 40;
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG216", r.t[1].offset);
    free(r.buf);
    /* Offset near 2^64: offset + size wraps. */
    l2.t[1].offset = UINT64_MAX - 31;
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG216", r.t[1].offset);
    free(r.buf);
}

static void test_GG217_tensors_overlap(void **state)
{
    (void)state;
    /* a: 64 bytes at 0; b at 32 overlaps it. */
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 16), T1("b", 1, GB_F32, 16)}};
    l.t[1].offset = 32;
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG217", r.t[1].offset);
    free(r.buf);
    /* Listed in the other order: the later-offset tensor is the first one. */
    l.t[0].offset = 32;
    l.t[1].offset = 0;
    r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG217", r.t[0].offset);
    free(r.buf);
    /* Adjacent, not overlapping. */
    l.t[0].offset = 0;
    l.t[1].offset = 64;
    r = build(&l);
    assert_no_rule(r.buf, r.len, NULL, "GG217");
    free(r.buf);
}

static void test_GG218_offset_not_contiguous(void **state)
{
    (void)state;
    /* a: 16 bytes (padded 32) at 0; b at 64 leaves a gap. */
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 4), T1("b", 1, GB_F32, 4)}};
    l.t[1].offset = 64;
    built r = build(&l);
    assert_finding(r.buf, r.len, NULL, "GG218", r.t[1].offset);
    assert_no_rule(r.buf, r.len, NULL, "GG215");
    free(r.buf);
    /* First tensor not at 0. */
    layout l2 = {.nt = 1, .t = {T1("a", 1, GB_F32, 4)}};
    l2.t[0].offset = 32;
    r = build(&l2);
    assert_finding(r.buf, r.len, NULL, "GG218", r.t[0].offset);
    free(r.buf);
}

static void test_GG219_data_start_past_eof(void **state)
{
    (void)state;
    layout l = {.nt = 1, .t = {T1("a", 1, GB_F32, 8)}, .stop_after_infos = true};
    built r = build(&l);
    assert_true(r.info_end % 32 != 0);
    assert_int_equal(r.len, r.info_end);
    assert_finding(r.buf, r.len, NULL, "GG219", r.info_end);
    /* Part of the padding present. */
    free(r.buf);
    l.stop_after_infos = false;
    r = build(&l);
    assert_true(r.data_start - r.info_end > 1);
    assert_finding(r.buf, r.info_end + 1, NULL, "GG219", r.info_end);
    free(r.buf);
}

/* =============================================================== data GG3xx */

static void test_GG301_nonzero_padding(void **state)
{
    (void)state;
    layout l = {.nt = 1, .t = {T1("a", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_true(r.data_start - r.info_end > 3);
    assert_clean(r.buf, r.len, NULL);
    r.buf[r.info_end + 2] = 0x55;
    r.buf[r.info_end + 3] = 0x01;
    assert_finding(r.buf, r.len, NULL, "GG301", r.info_end + 2);
    free(r.buf);
}

/* Padding inside the data section is only read with opt.deep. */
static void test_GG301_nonzero_padding_deep(void **state)
{
    (void)state;
    gguflint_options *deep = defaults();
    gguflint_options_set_deep(deep, true);
    gguflint_options_select(deep, "GG312", false, NULL, 0); /* zero data is fine here */
    /* Between tensors: a is 16 bytes padded to 32, b follows at 32. */
    layout l = {.nt = 2, .t = {T1("a", 1, GB_F32, 4), T1("b", 1, GB_F32, 8)}};
    built r = build(&l);
    assert_clean(r.buf, r.len, deep);
    size_t at = r.data_start + 20;
    r.buf[at] = 0x01;
    assert_finding(r.buf, r.len, deep, "GG301", at);
    assert_no_rule(r.buf, r.len, NULL, "GG301");
    free(r.buf);
    /* After the last tensor. */
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    buf[len - 3] = 0xEE;
    buf[len - 1] = 0xEE;
    assert_finding(buf, len, deep, "GG301", len - 3);
    assert_no_rule(buf, len, NULL, "GG301");
    free(buf);
    gguflint_options_free(deep);
}

static void test_GG302_trailing_bytes(void **state)
{
    (void)state;
    size_t len;
    uint8_t *model = gb_small_model(&len);
    assert_non_null(model);
    uint8_t *buf = malloc(len + 5);
    assert_non_null(buf);
    memcpy(buf, model, len);
    memset(buf + len, 0xAB, 5);
    assert_finding(buf, len + 5, NULL, "GG302", len);
    /* Trailing zeros after a complete data section are trailing bytes too. */
    memset(buf + len, 0, 5);
    assert_finding(buf, len + 5, NULL, "GG302", len);
    free(buf);
    free(model);

    /* 0 tensors: zero padding to the alignment is fine, other bytes are not. */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    size_t end = gb_offset(b);
    gb_pad_to(b, 32);
    assert_true(gb_offset(b) > end);
    buf = finish(b, &len);
    assert_clean(buf, len, NULL);
    assert_clean(buf, end, NULL); /* unpadded, like gguf-py vocab files */
    buf[end] = 0x01;
    assert_finding(buf, len, NULL, "GG302", end);
    free(buf);
}

/* --header-only: a prefix of a valid file gets one note, no bounds errors. */
static void test_GG304_data_not_checked(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    gguflint_options *o = defaults();
    gguflint_options_set_header_only(o, true);
    gguflint_ctx *ctx = lint(buf, len, NULL);
    uint64_t metadata_end = gguflint_get_header(ctx)->metadata_end;
    gguflint_free(ctx);
    /* cut inside the data section: only the note */
    assert_finding(buf, 800, o, "GG304", metadata_end);
    assert_only_rules(buf, 800, o, "GG304");
    /* cut right after the metadata, inside the padding */
    assert_only_rules(buf, (size_t)metadata_end + 3, o, "GG304");
    /* the whole file: still only the note (nothing is wrong with it) */
    assert_only_rules(buf, len, o, "GG304");
    /* without --header-only the prefix is an error, the whole file clean */
    assert_finding(buf, 800, NULL, "GG216", 0x2e3);
    assert_no_rule(buf, len, NULL, "GG304");
    /* a hostile offset is still caught in a prefix */
    gguflint_options_set_header_only(o, true);
    free(buf);
    gguflint_options_free(o);
}

static void test_GG303_missing_final_padding(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    /* The last tensor, q8_0 [32, 2], is 68 bytes padded to 96: the file may be
     * cut anywhere in those 28 padding bytes. */
    uint64_t ne[2] = {32, 2};
    uint64_t last = gb_nbytes(GB_Q8_0, 2, ne);
    size_t tail = (size_t)(gb_align_up(last, 32) - last);
    assert_int_equal(tail, 28);
    assert_finding(buf, len - 1, NULL, "GG303", len - 1);
    assert_finding(buf, len - tail, NULL, "GG303", len - tail);
    assert_only_rules(buf, len - 5, NULL, "GG303");
    /* One byte of tensor data missing: that is data-past-eof, not GG303. */
    assert_no_rule(buf, len - tail - 1, NULL, "GG303");
    assert_no_rule(buf, len, NULL, "GG303");
    free(buf);
}

/* ============================================================ rule coverage */

static const char *const tested_ids[] = {
    "GG001", "GG002", "GG003", "GG004", "GG005", "GG006", "GG007", "GG008", "GG009",
    "GG010", "GG011", "GG012", "GG101", "GG102", "GG103", "GG104", "GG105", "GG106",
    "GG107", "GG108", "GG109", "GG110", "GG111", "GG112", "GG113", "GG114", "GG115",
    "GG116", "GG117", "GG118", "GG119", "GG120", "GG121", "GG201", "GG202", "GG203",
    "GG204", "GG205", "GG206", "GG207", "GG208", "GG209", "GG210", "GG211", "GG212",
    "GG213", "GG214", "GG215", "GG216", "GG217", "GG218", "GG219", "GG301", "GG302",
    "GG303", "GG304", "GG220",
};

/* Every rule of the table has a test: the structural rules here (tested_ids),
 * the others in the test file of their check (a quoted "GGnnn" in some
 * tests/test_*.c); and every id tested here is a rule. */
static char *slurp_tests(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cat %s/tests/test_*.c", GGUFLINT_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, p);
        len += got;
        if (got == 0)
            break;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    pclose(p);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static void test_every_rule_is_tested(void **state)
{
    (void)state;
    size_t n = gguflint_rule_count();
    assert_true(n > 0);
    size_t ntested = sizeof tested_ids / sizeof tested_ids[0];
    char *all = slurp_tests();
    assert_non_null(all);
    for (size_t i = 0; i < n; i++) {
        const gguflint_rule_info *r = gguflint_rule(i);
        assert_non_null(r);
        bool found = false;
        for (size_t j = 0; j < ntested; j++)
            found |= strcmp(tested_ids[j], r->id) == 0;
        char quoted[16];
        snprintf(quoted, sizeof quoted, "\"%s\"", r->id);
        if (!found && !strstr(all, quoted))
            fail_msg("rule %s (%s) has no test in tests/test_*.c", r->id, r->slug);
    }
    free(all);
    for (size_t j = 0; j < ntested; j++) {
        int idx = gguflint_rule_find(tested_ids[j]);
        if (idx < 0)
            fail_msg("tested id %s is not a rule", tested_ids[j]);
        assert_string_equal(gguflint_rule((size_t)idx)->id, tested_ids[j]);
    }
    assert_null(gguflint_rule(n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_rule_is_tested),
        cmocka_unit_test(test_builder_encoding),
        cmocka_unit_test(test_small_model_clean),
        cmocka_unit_test(test_header_only_clean),
        cmocka_unit_test(test_builder_layouts_clean),
        cmocka_unit_test(test_GG001_empty_file),
        cmocka_unit_test(test_GG002_not_gguf),
        cmocka_unit_test(test_GG003_truncated_header),
        cmocka_unit_test(test_GG004_unsupported_version),
        cmocka_unit_test(test_GG005_legacy_v1),
        cmocka_unit_test(test_GG006_version_2),
        cmocka_unit_test(test_GG007_byte_swapped),
        cmocka_unit_test(test_GG008_kv_count_impossible),
        cmocka_unit_test(test_GG009_tensor_count_impossible),
        cmocka_unit_test(test_GG010_truncated),
        cmocka_unit_test(test_GG011_kv_count_over_limit),
        cmocka_unit_test(test_GG012_tensor_count_over_limit),
        cmocka_unit_test(test_GG101_empty_key),
        cmocka_unit_test(test_GG102_key_too_long),
        cmocka_unit_test(test_GG103_key_invalid_utf8),
        cmocka_unit_test(test_GG104_key_control_bytes),
        cmocka_unit_test(test_GG105_key_not_snake_case),
        cmocka_unit_test(test_GG106_duplicate_key),
        cmocka_unit_test(test_GG107_unknown_value_type),
        cmocka_unit_test(test_GG108_unknown_array_type),
        cmocka_unit_test(test_GG109_nested_array),
        cmocka_unit_test(test_GG110_array_too_deep),
        cmocka_unit_test(test_GG111_array_count_impossible),
        cmocka_unit_test(test_GG112_string_past_eof),
        cmocka_unit_test(test_GG113_string_over_limit),
        cmocka_unit_test(test_GG114_bool_not_0_1),
        cmocka_unit_test(test_GG115_alignment_wrong_type),
        cmocka_unit_test(test_GG116_alignment_zero),
        cmocka_unit_test(test_GG117_alignment_not_pow2),
        cmocka_unit_test(test_GG118_alignment_not_mult8),
        cmocka_unit_test(test_GG119_alignment_too_large),
        cmocka_unit_test(test_GG120_array_count_over_limit),
        cmocka_unit_test(test_GG121_string_invalid_utf8),
        cmocka_unit_test(test_GG201_tensor_name_empty),
        cmocka_unit_test(test_GG202_tensor_name_too_long),
        cmocka_unit_test(test_GG220_tensor_name_over_spec_limit),
        cmocka_unit_test(test_GG203_tensor_name_invalid_utf8),
        cmocka_unit_test(test_GG204_tensor_name_nul),
        cmocka_unit_test(test_GG205_duplicate_tensor_name),
        cmocka_unit_test(test_GG206_n_dims_zero),
        cmocka_unit_test(test_GG207_n_dims_too_large),
        cmocka_unit_test(test_GG208_dim_negative),
        cmocka_unit_test(test_GG209_dim_zero),
        cmocka_unit_test(test_GG210_element_count_overflow),
        cmocka_unit_test(test_GG211_byte_size_overflow),
        cmocka_unit_test(test_GG212_unknown_ggml_type),
        cmocka_unit_test(test_GG213_removed_ggml_type),
        cmocka_unit_test(test_GG214_row_not_block_multiple),
        cmocka_unit_test(test_GG215_offset_misaligned),
        cmocka_unit_test(test_GG216_data_past_eof),
        cmocka_unit_test(test_GG217_tensors_overlap),
        cmocka_unit_test(test_GG218_offset_not_contiguous),
        cmocka_unit_test(test_GG219_data_start_past_eof),
        cmocka_unit_test(test_GG301_nonzero_padding),
        cmocka_unit_test(test_GG301_nonzero_padding_deep),
        cmocka_unit_test(test_GG302_trailing_bytes),
        cmocka_unit_test(test_GG303_missing_final_padding),
        cmocka_unit_test(test_GG304_data_not_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

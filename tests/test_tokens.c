/* test_tokens.c - the tokens record the parse pass builds (parse/tokens.c):
 * duplicate, empty and over-long tokens found while the array is read must
 * be exactly those a brute-force comparison finds, whatever the lengths
 * (around the 16-, 32- and 64-byte steps of the hash, the 128-byte step of
 * the parse loop, the 1 KiB warning), whatever the near misses (equal
 * prefixes, equal bytes of another length, NUL padding), at the end of the
 * input (the general path), and the same as the walk check_vocab does
 * itself for arrays the parse pass does not record (a v1 file); and
 * structured vocabularies (progressions) cost the index no more probes than
 * random ones, and no byte compares: a slot's tag does not repeat the slot
 * bits, so distinct tokens probing from one slot almost never share a tag
 * (a shared tag means a compare with an earlier token, whose pages the
 * parse pass has given back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/fpscan.h"
#include "core/internal.h"
#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"
#include "parse/tokens.h"

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct tok {
    char *s;
    size_t n;
} tok;

/* A length, mostly around the steps of the hash and the parser. */
static size_t pick_len(void)
{
    static const size_t edges[] = {0,  1,  2,  7,  8,  9,   15,  16,  17,  31,   32,   33,
                                   47, 48, 63, 64, 65, 100, 127, 128, 129, 1023, 1024, 1025};
    unsigned r = (unsigned)(rnd() % 100);
    if (r < 40)
        return edges[rnd() % (sizeof edges / sizeof edges[0])];
    return 1 + (size_t)(rnd() % 40);
}

/* n tokens: fresh random ones, exact copies of earlier ones, and near
 * misses of earlier ones (one byte changed, one byte longer or shorter,
 * a NUL appended). */
static tok *make_vocab(size_t n)
{
    tok *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(rnd() % 10);
        if (i > 0 && r < 3) {
            const tok *o = &v[rnd() % i];
            size_t len = o->n;
            if (r == 1 && len > 0)
                len += (rnd() & 1) ? 1 : (size_t)-1;
            else if (r == 2)
                len += 1;
            v[i].s = calloc(len + 1, 1);
            assert_non_null(v[i].s);
            memcpy(v[i].s, o->s, len < o->n ? len : o->n);
            if (r == 1 && len == o->n && len > 0)
                v[i].s[rnd() % len] ^= 0x20; /* one byte changed */
            v[i].n = len;
        } else {
            size_t len = pick_len();
            v[i].s = calloc(len + 1, 1);
            assert_non_null(v[i].s);
            for (size_t k = 0; k < len; k++)
                v[i].s[k] = (char)('a' + rnd() % 3); /* few letters: many near misses */
            v[i].n = len;
        }
    }
    return v;
}

static void free_vocab(tok *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].s);
    free(v);
}

/* The tokens given type BYTE: scattered, some far apart, some adjacent. */
static bool byte_type(size_t i)
{
    return i % 97 == 5 || i % 131 == 7 || (i > 200 && i < 204);
}

/* Token types no reader knows (GG580), at scattered places: just past
 * the last good one, with high bits set, negative. */
static int32_t bad_type(size_t i)
{
    static const int32_t bad[] = {7, 0x10005, -1, 0x50000, 6 + 0x10000};
    return i % 211 == 17 ? bad[(i / 211) % 5] : 0;
}

/* The file: the tokens array, then (when `tail`) nothing after it, so its
 * last tokens are at the very end of the input. */
static uint8_t *vocab_file(const tok *v, size_t n, unsigned version, bool tail, size_t *offs,
                           size_t *len)
{
    gb *b = gb_new(version);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    for (size_t i = 0; i < n; i++)
        offs[i] = gb_str(b, v[i].s, v[i].n);
    if (!tail) {
        /* token types: every byte_type()-th token BYTE (none of them is
         * <0xNN>, so each is a GG579 found through the record's checkpoints) */
        int32_t *types = malloc(n * sizeof *types);
        assert_non_null(types);
        for (size_t i = 0; i < n; i++)
            types[i] = byte_type(i) ? 6 : bad_type(i) ? bad_type(i) : (int32_t)(i % 6);
        gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, n, types, n * sizeof *types);
        free(types);
        gb_kv_u32(b, "general.file_type", 1);
    }
    uint8_t *buf = gb_finish(b, len);
    assert_non_null(buf);
    gb_free(b);
    return buf;
}

/* Findings of rule `id` at token offsets, as a per-token count. */
static void count_at(const gguflint_ctx *ctx, const char *id, const size_t *offs, size_t n,
                     unsigned *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t k = 0; k < gguflint_finding_count(ctx); k++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, k);
        if (strcmp(ex_id(f), id) != 0)
            continue;
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (offs[mid] < f->offset)
                lo = mid + 1;
            else
                hi = mid;
        }
        assert_true(lo < n && offs[lo] == f->offset);
        out[lo]++;
    }
}

static void check_vocab_findings(const tok *v, size_t n, unsigned version, bool tail)
{
    size_t *offs = calloc(n, sizeof *offs), len;
    unsigned *got = calloc(n, sizeof *got);
    assert_non_null(offs);
    assert_non_null(got);
    uint8_t *buf = vocab_file(v, n, version, tail, offs, &len);

    gguflint_options *opt = ex_options("GG577,GG578,GG579,GG580,GG581,GG582");
    gguflint_options_set_limit(opt, GGUFLINT_LIMIT_FINDINGS_PER_RULE, 1000000);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    /* duplicates: token i equals an earlier token (not empty: llama.cpp
     * renames empty tokens, they are GG578's) */
    count_at(ctx, "GG577", offs, n, got);
    for (size_t i = 0; i < n; i++) {
        unsigned want = 0;
        for (size_t j = 0; j < i && !want && v[i].n; j++)
            want = v[j].n == v[i].n && memcmp(v[j].s, v[i].s, v[i].n) == 0;
        if (got[i] != want)
            fail_msg("v%u%s token %zu (%zu bytes): %u duplicate findings, expected %u", version,
                     tail ? " at the end" : "", i, v[i].n, got[i], want);
    }
    /* and each names the first earlier copy */
    for (size_t k = 0; k < gguflint_finding_count(ctx); k++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, k);
        if (strcmp(ex_id(f), "GG577") != 0)
            continue;
        unsigned long long i = 0, prev = 0;
        assert_int_equal(sscanf(f->message, "token %llu", &i), 1);
        const char *r = strstr(f->message, "repeats token ");
        assert_non_null(r);
        assert_int_equal(sscanf(r, "repeats token %llu", &prev), 1);
        size_t first = 0;
        while (first < i && !(v[first].n == v[i].n && memcmp(v[first].s, v[i].s, v[i].n) == 0))
            first++;
        if (prev != first)
            fail_msg("v%u token %llu: names token %llu as its copy, the first is %zu", version, i,
                     prev, first);
    }
    size_t n_bad = 0;
    for (size_t i = 0; i < n; i++)
        n_bad += !tail && !byte_type(i) && bad_type(i);
    assert_int_equal(ex_count_id(ctx, "GG580", 0, NULL), n_bad);
    count_at(ctx, "GG579", offs, n, got);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], !tail && byte_type(i));
    count_at(ctx, "GG578", offs, n, got);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], v[i].n == 0);
    count_at(ctx, "GG582", offs, n, got);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], v[i].n > 1024);
    gguflint_free(ctx);
    gguflint_options_free(opt);
    free(buf);
    free(offs);
    free(got);
}

/* ... with the parse pass's token walk at each vector level
 * (fp_force_level): AVX2, SSE2, and 0, every token through tok_add_slow,
 * the reference the vector walks must agree with. */
static void test_random_vocabularies(void **state)
{
    for (int round = 0; round < 12; round++) {
        size_t n = 200 + (size_t)(rnd() % 3000);
        tok *v = make_vocab(n);
        for (int lv = 2; lv >= 0; lv--) {
            fp_force_level(lv);
            check_vocab_findings(v, n, 3, false);
            check_vocab_findings(v, n, 3, true);
        }
        fp_force_level(2);
        check_vocab_findings(v, n, 1, false); /* v1: check_vocab's own walk */
        free_vocab(v, n);
    }
}

/* Tokens that differ only in their last byte, for every length up to 70:
 * each hashes through a different step of the hash. */
static void test_near_misses(void **state)
{
    enum { L = 70 };
    tok v[3 * L];
    size_t n = 0;
    for (size_t len = 1; len <= L; len++) {
        for (int k = 0; k < 3; k++) {
            v[n].s = calloc(len + 1, 1);
            assert_non_null(v[n].s);
            memset(v[n].s, 'x', len);
            if (k == 1)
                v[n].s[len - 1] = 'y';
            v[n].n = len;
            n++;
        }
    }
    tok *copy = malloc(n * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, v, n * sizeof *copy);
    check_vocab_findings(copy, n, 3, false);
    check_vocab_findings(copy, n, 3, true);
    for (size_t i = 0; i < n; i++)
        free(v[i].s);
    free(copy);
}

/* Structured vocabularies, the sets adversary's test_viewset_progressions
 * runs through the view sets: 8- and 12-byte tokens whose 32-bit words run
 * through arithmetic progressions with power-of-two and odd steps. NH is
 * linear in each word, so unmixed such a set hashes to a progression, and
 * under linear probing some keys then make long probe runs: without the
 * mixing, up to 21 probes per insert (7 keys tried; this test failed for 4).
 * Mixed (tokens.c), each set costs what random tokens cost: about 0.5
 * probes per insert (the empty slot not counted) at the index's load, at
 * most 0.53 over 40 keys; the bound is 2. */
enum { NAP = 1 << 16 };

static uint64_t progression_probes(uint64_t step, size_t len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, NAP);
    for (size_t i = 0; i < NAP; i++) {
        uint8_t t[12] = {0};
        uint64_t v = (uint64_t)(i + 1) * step;
        if (len == 8) {
            memcpy(t, &v, 8);
        } else { /* the progression in the first and third words */
            uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
            memcpy(t, &lo, 4);
            memcpy(t + 8, &hi, 4);
        }
        gb_str(b, t, len);
    }
    gb_kv_u32(b, "general.file_type", 1);
    size_t n;
    uint8_t *buf = gb_finish(b, &n);
    assert_non_null(buf);
    gb_free(b);
    gguflint_options *opt = ex_options("GG577");
    gguflint_ctx *ctx = ex_lint_opt(buf, n, opt, NULL);
    assert_non_null(ctx);
    assert_non_null(ctx->tokens); /* recorded by the parse pass, */
    assert_true(ctx->tokens->complete && ctx->tokens->dup_checked); /* indexed there */
    assert_int_equal(ex_count_id(ctx, "GG577", 0, NULL), 0);
    uint64_t p = ctx->probes;
    /* distinct tokens: a compare is a 2^-31 accident per probe, so more
     * than 2 in a run means the tag repeats slot bits */
    if (ctx->tokens->compares > 2)
        print_error("step %llu, %zu bytes: %llu byte compares for %d distinct tokens\n",
                    (unsigned long long)step, len, (unsigned long long)ctx->tokens->compares, NAP);
    assert_true(ctx->tokens->compares <= 2);
    gguflint_free(ctx);
    gguflint_options_free(opt);
    free(buf);
    return p;
}

static void test_progressions(void **state)
{
    static const uint64_t steps[] = {1,       3,       256,        65536,      1ull << 20,
                                     1 << 22, 1 << 24, 1ull << 28, 1ull << 31, 1ull << 32,
                                     0x101,   12345,   0x01010101, 1ull << 40, 0x10001};
    uint64_t worst = 0;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        for (size_t len = 8; len <= 12; len += 4) {
            uint64_t p = progression_probes(steps[k], len);
            if (p > worst)
                worst = p;
            if (p > 2ull * NAP)
                print_error("step %llu, %zu bytes: %llu probes for %d tokens\n",
                            (unsigned long long)steps[k], len, (unsigned long long)p, NAP);
            assert_true(p <= 2ull * NAP);
        }
    print_message("progressions: at most %.2f probes per token\n", (double)worst / NAP);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Hashes that pick the same slot of the largest index (equal top
 * TOK_SLOT_BITS_MAX bits) and differ below must get different tags: with
 * the tag taken from the top 32 bits, 2^14 such hashes had only 2^7 tags
 * between them. */
static void test_tag_below_slot(void **state)
{
    enum { N = 1 << 14 };
    uint32_t *tags = calloc(N, sizeof *tags);
    assert_non_null(tags);
    const uint64_t slot = rnd() << (64 - TOK_SLOT_BITS_MAX);
    for (size_t i = 0; i < N; i++)
        tags[i] = tok_tag(slot | (rnd() >> TOK_SLOT_BITS_MAX));
    qsort(tags, N, sizeof *tags, cmp_u32);
    size_t same = 0; /* hashes whose tag an earlier one has */
    for (size_t i = 1; i < N; i++)
        same += tags[i] == tags[i - 1];
    /* N^2/2 pairs at 2^-31 each: 0.06 repeats expected */
    if (same > 2)
        print_error("%zu repeated tags among %d hashes of one slot\n", same, N);
    assert_true(same <= 2);
    free(tags);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_random_vocabularies),
            cmocka_unit_test(test_near_misses),
            cmocka_unit_test(test_progressions),
            cmocka_unit_test(test_tag_below_slot),
        })

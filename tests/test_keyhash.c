/* test_keyhash.c - the keyed hashing every table built from file data uses
 * (src/common/keyhash.h, viewset.h) and the complexity contract it buys:
 * SipHash against its reference vectors and CPython's siphash13, the
 * multilinear hash's spread on inputs built to collide, the view set's
 * answers, and - through the whole library - a bound on the hash-table
 * probes of files whose keys, tensor names and tokens collide in the
 * unkeyed hashes gguflint used before (tests/support/collide.h). Without
 * keyed hashing those files cost a probe per earlier entry (quadratic); the
 * bound here is linear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collide.h"
#include "common/keyhash.h"
#include "common/viewset.h"
#include "core/internal.h"
#include "expect.h"
#include "gguf_builder.h"

/* ---- SipHash ---- */

static void test_siphash_vectors(void **state)
{
    /* SipHash-2-4 reference: key 00..0f, message 00..len-1 (the paper's
     * appendix and the reference implementation's vectors) */
    keyhash_key k = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    uint8_t m[64];
    for (int i = 0; i < 64; i++)
        m[i] = (uint8_t)i;
    assert_true(siphash_cd(&k, m, 0, 2, 4) == 0x726fdb47dd0e0e31ull);
    assert_true(siphash_cd(&k, m, 1, 2, 4) == 0x74f839c593dc67fdull);
    assert_true(siphash_cd(&k, m, 15, 2, 4) == 0xa129ca6149be45e5ull);
    /* SipHash-1-3 with a zero key is CPython 3.11's hash of bytes under
     * PYTHONHASHSEED=0 (python3 -c 'print(hash(b"a") & (2**64-1))') */
    keyhash_key z = {0, 0};
    assert_true(siphash_cd(&z, "a", 1, 1, 3) == 4644417185603328019ull);
    assert_true(siphash_cd(&z, "abcdefgh", 8, 1, 3) == 4574395652268504554ull);
    assert_true(siphash_cd(&z, "abcdefghi", 9, 1, 3) == 17913969820989044453ull);
    assert_true(siphash_cd(&z, m, 15, 1, 3) == 17514137373579004394ull);
    /* the inline 1-3 entry point is the same function */
    assert_true(keyhash13(&z, m, 15) == siphash_cd(&z, m, 15, 1, 3));
    assert_true(keyhash("abc", 3) == keyhash13(keyhash_process_key(), "abc", 3));
}

static void test_process_key(void **state)
{
    const keyhash_key *a = keyhash_process_key(), *b = keyhash_process_key();
    assert_ptr_equal(a, b);
    /* drawn, not a constant of the code (2^-128 chance of a false failure) */
    assert_false(a->k0 == 0 && a->k1 == 0);
}

/* ---- the multilinear hash ---- */

/* Largest bucket when n values are spread by their top `bits` bits. */
static size_t max_bucket(const uint64_t *h, size_t n, unsigned bits)
{
    size_t nb = (size_t)1 << bits, max = 0;
    uint32_t *count = calloc(nb, sizeof *count);
    assert_non_null(count);
    for (size_t i = 0; i < n; i++) {
        size_t b = (size_t)(h[i] >> (64 - bits));
        if (++count[b] > max)
            max = count[b];
    }
    free(count);
    return max;
}

static void test_ml_spread(void **state)
{
    keyhash_ml ml;
    keyhash_ml_init(&ml);
    enum { N = 1 << 14 };
    uint64_t *h = malloc(N * sizeof *h);
    uint8_t *buf = calloc(N, 80);
    assert_non_null(h);
    assert_non_null(buf);
    /* 8-byte tokens that all landed in one slot of the old index */
    for (uint64_t j = 0; j < N; j++) {
        uint64_t w = collide_golden_token(j);
        memcpy(buf + 8 * j, &w, 8);
    }
    for (size_t j = 0; j < N; j++)
        h[j] = keyhash_ml_hash(&ml, buf + 8 * j, 8, buf + 8 * (size_t)N);
    /* 16 384 values in 16 384 buckets: a uniform hash's largest bucket is
     * about 7; the old hash put them all in one */
    assert_true(max_bucket(h, N, 14) < 20);
    /* strings of every length 0..80 differing in one byte, and the same
     * bytes with different lengths (zero padding must not collide) */
    size_t k = 0;
    for (size_t len = 0; len <= 80 && k < N; len++)
        for (size_t pos = 0; pos < (len ? len : 1) && k < N; pos++, k++) {
            uint8_t *s = buf + 80 * k;
            s[pos % 80] = (uint8_t)(len + 1);
            h[k] = keyhash_ml_hash(&ml, s, len, buf + 80 * (size_t)N);
        }
    assert_true(max_bucket(h, k, 10) < 20 + 4 * k / 1024);
    /* lengths differ, bytes equal (all zero) */
    uint8_t zeros[80] = {0};
    for (size_t a = 0; a <= 64; a++)
        for (size_t b = a + 1; b <= 64; b++)
            assert_true(keyhash_ml_hash(&ml, zeros, a, zeros + 80) >> 32 !=
                        keyhash_ml_hash(&ml, zeros, b, zeros + 80) >> 32);
    free(h);
    free(buf);
}

/* ---- the view set ---- */

static const char *const words[] = {
    "alpha", "beta", "", "alpha", "gamma", "beta", "", "delta",
    /* 69 bytes: the same length bit (69 % 64 = 5) as alpha */
    "a-string-of-sixty-nine-bytes-that-shares-its-length-bit-with-alpha-5."};

static gguflint_view word_of(const void *owner, size_t i)
{
    const char *const *w = owner;
    return (gguflint_view){(const uint8_t *)w[i], strlen(w[i])};
}

static gguflint_view view_of(const char *s)
{
    return (gguflint_view){(const uint8_t *)s, strlen(s)};
}

static void test_viewset(void **state)
{
    viewset vs = {0};
#define FIND(s) viewset_find(&vs, word_of, words, (const uint8_t *)(s), strlen(s))
    assert_int_equal(FIND("alpha"), -1);
    long expect[] = {-1, -1, -1, 0, -1, 1, 2, -1, -1};
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(viewset_insert(&vs, word_of, words, view_of(words[i]), i), expect[i]);
    assert_int_equal(FIND("alpha"), 0);
    assert_int_equal(FIND("beta"), 1);
    assert_int_equal(FIND(""), 2);
    assert_int_equal(FIND("delta"), 7);
    assert_int_equal(FIND("alph"), -1);
    assert_int_equal(FIND("alphaa"), -1);
    /* lengths never inserted are answered by the length bits; shared bits
     * still compare the bytes */
    assert_int_equal(FIND("a-string-of-sixty-nine-bytes-that-shares-its-length-bit-with-alpha-5."),
                     8);
    assert_int_equal(FIND("b-string-of-sixty-nine-bytes-that-shares-its-length-bit-with-alpha-5."),
                     -1);
    assert_int_equal(FIND("omega"), -1);
    assert_int_equal(FIND("a-sixty-four-byte-string-shares-the-length-bit-of-the-empty-one."), -1);
#undef FIND
    viewset_free(&vs);
}

/* Growth keeps every entry findable and the first index of each. */
static char grow_names[5000][12];

static gguflint_view grow_of(const void *owner, size_t i)
{
    (void)owner;
    return view_of(grow_names[i]);
}

static void test_viewset_growth(void **state)
{
    viewset vs = {0};
    for (size_t i = 0; i < 5000; i++) {
        snprintf(grow_names[i], sizeof grow_names[i], "n%zu", i % 3000);
        long r = viewset_insert(&vs, grow_of, NULL, view_of(grow_names[i]), i);
        assert_int_equal(r, i < 3000 ? -1 : (long)(i - 3000));
    }
    for (size_t i = 0; i < 3000; i++)
        assert_int_equal(
            viewset_find(&vs, grow_of, NULL, (const uint8_t *)grow_names[i], strlen(grow_names[i])),
            (long)i);
    assert_true(vs.probes < 4 * 5000);
    viewset_free(&vs);
}

/* Structured sets, the ones that defeat weak hash families under linear
 * probing: 8- and 12-byte strings whose 32-bit chunks run through arithmetic
 * progressions with power-of-two and odd steps. Random strings cost about
 * 1.5 probes per insert at the table's load (the empty slot counted); the
 * unmixed multilinear sum cost up to 680 for some keys. */
enum { NAP = 1 << 16 };
static uint8_t ap_strings[NAP][12];
static size_t ap_len;

static gguflint_view ap_of(const void *owner, size_t i)
{
    (void)owner;
    return (gguflint_view){ap_strings[i], ap_len};
}

static void test_viewset_progressions(void **state)
{
    static const uint64_t steps[] = {1,       3,       256,        65536,      1ull << 20,
                                     1 << 22, 1 << 24, 1ull << 28, 1ull << 31, 1ull << 32,
                                     0x101,   12345,   0x01010101, 1ull << 40, 0x10001};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        for (ap_len = 8; ap_len <= 12; ap_len += 4) {
            viewset vs = {0};
            for (size_t i = 0; i < NAP; i++) {
                uint64_t v = (uint64_t)(i + 1) * steps[k];
                memset(ap_strings[i], 0, sizeof ap_strings[i]);
                if (ap_len == 8) {
                    memcpy(ap_strings[i], &v, 8);
                } else { /* the progression in the first and third chunks */
                    uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
                    memcpy(ap_strings[i], &lo, 4);
                    memcpy(ap_strings[i] + 8, &hi, 4);
                }
                assert_int_equal(viewset_insert(&vs, ap_of, NULL, ap_of(NULL, i), i), -1);
            }
            if (vs.probes > 3ull * NAP)
                print_error("step %llu, %zu bytes: %llu probes for %d inserts\n",
                            (unsigned long long)steps[k], ap_len, (unsigned long long)vs.probes,
                            NAP);
            assert_true(vs.probes <= 3ull * NAP);
            viewset_free(&vs);
        }
    /* the view sets and the token index hash alike */
    uint8_t s[80];
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof s; n++)
        assert_true(viewset_hash(s, n) == keyhash_ml_hash(keyhash_ml_process(), s, n, s + n));
}

/* ---- the complexity contract, through the library ---- */

static const char KEY_ALPHA[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
static const char NAME_ALPHA[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";

enum { NCOLL = 2048 };

/* Lint a buffer and return its hash-table probes; the findings of `id`
 * (NULL: none) must number `expect`. */
static uint64_t probes_of(uint8_t *buf, size_t len, const char *id, size_t expect)
{
    assert_non_null(buf);
    gguflint_ctx *ctx = ex_lint(buf, len);
    assert_non_null(ctx);
    if (id)
        assert_int_equal(ex_count_id(ctx, id, 0, NULL), expect);
    uint64_t p = ctx->probes;
    gguflint_free(ctx);
    free(buf);
    return p;
}

/* The file of b linted (with `expect` findings of `id`): its probes for n
 * colliding `what`, printed, below per * n. */
static void probes_below(gb *b, const char *id, size_t expect, const char *what, int n, int per)
{
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    uint64_t p = probes_of(buf, len, id, expect);
    print_message("colliding %s: %llu probes for %d %s\n", what, (unsigned long long)p, n, what);
    assert_true(p < (uint64_t)per * (uint64_t)n);
}

/* 2048 KVs whose keys share the low 20 bits of FNV-1a, plus one duplicate
 * (found, and only one). Before keyed hashing: about 2 x 2048^2 / 2 probes. */
static void test_colliding_keys(void **state)
{
    collide_family f;
    assert_true(collide_fnv(&f, "k.", KEY_ALPHA, 4, NCOLL));
    gb *b = gb_new(3);
    char key[300];
    for (uint64_t j = 0; j < NCOLL; j++) {
        collide_fnv_string(&f, j, key);
        gb_kv_u8(b, key, 1);
    }
    collide_fnv_string(&f, 77, key);
    gb_kv_u8(b, key, 1);
    probes_below(b, "GG106", 1, "keys", NCOLL, 8);
}

/* 2048 tensors whose names share the low 20 bits of FNV-1a. */
static void test_colliding_names(void **state)
{
    collide_family f;
    assert_true(collide_fnv(&f, "t.", NAME_ALPHA, 3, NCOLL));
    gb *b = gb_new(3);
    gb_kv_u32(b, "general.alignment", 8);
    char name[300];
    uint64_t ne[1] = {8};
    for (uint64_t j = 0; j < NCOLL; j++) {
        collide_fnv_string(&f, j, name);
        gb_tensor(b, name, 1, ne, GB_I8, 8 * j);
    }
    gb_pad_to(b, 8);
    gb_zeros(b, 8 * NCOLL);
    probes_below(b, "GG205", 0, "names", NCOLL, 8);
}

/* 16 384 tokens in one slot of the old duplicate-token index, and one
 * duplicate (found). */
static void test_colliding_tokens(void **state)
{
    enum { N = 1 << 14 };
    uint8_t *toks = malloc(16 * (N + 1));
    assert_non_null(toks);
    for (uint64_t j = 0; j <= N; j++) {
        uint64_t l = 8, w = collide_golden_token(j == N ? 5 : j);
        memcpy(toks + 16 * j, &l, 8);
        memcpy(toks + 16 * j + 8, &w, 8);
    }
    gb *b = gb_new(3);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, N + 1);
    gb_bytes(b, toks, 16 * (N + 1));
    free(toks);
    probes_below(b, "GG577", 1, "tokens", N, 4);
}

/* The named regression files (corpus/regressions/gguflint-9-colliding-*,
 * written by gen_corpus): linear probes, and the one repeat found. */
static void test_colliding_corpus(void **state)
{
    static const ex_str_case files[] = {
        {"gguflint-9-colliding-keys.gguf", "GG106"},
        {"gguflint-9-colliding-tensor-names.gguf", "GG205"},
        {"gguflint-9-colliding-tokens.gguf", "GG577"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/corpus/regressions/%s", GGUFLINT_SOURCE_DIR, files[i].in);
        gguflint_ctx *ctx = gguflint_new(NULL);
        assert_non_null(ctx);
        assert_int_equal(gguflint_open_file(ctx, path), GGUFLINT_OK);
        assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
        uint64_t size = gguflint_get_header(ctx)->file_size;
        print_message("%s: %llu probes, %llu bytes\n", files[i].in, (unsigned long long)ctx->probes,
                      (unsigned long long)size);
        /* each entry takes more than 8 bytes and costs a few probes in each
         * of two tables; unkeyed, these files cost 130 000 to 2 million */
        assert_true(ctx->probes < size / 2);
        assert_int_equal(ex_count_id(ctx, files[i].want, 0, NULL), 1);
        gguflint_free(ctx);
    }
}

/* Memory per input byte stays bounded on the shapes that cost the most per
 * byte: a million-KV file of minimal KVs is 8-9x its size in records and
 * indexes, nothing is held for the mapped file after the run. */
static void test_memory_per_byte(void **state)
{
    enum { N = 1 << 16 };
    gb *b = gb_new(3);
    char key[16];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "k%x", (unsigned)i);
        gb_kv_u8(b, key, 1);
    }
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    gguflint_ctx *ctx = ex_lint(buf, len);
    size_t mem = gguflint_memory_used(ctx);
    print_message("%d minimal KVs: %zu bytes of memory for %zu input bytes (%.1fx)\n", N, mem, len,
                  (double)mem / (double)len);
    assert_true(mem <= 10 * len + (1u << 20));
    gguflint_free(ctx);
    free(buf);
    b = gb_new(3);
    uint64_t ne[1] = {1};
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "t%x", (unsigned)i);
        gb_tensor(b, key, 1, ne, GB_I8, 32 * (uint64_t)i);
    }
    buf = ex_finish(b, &len);
    ctx = ex_lint(buf, len);
    mem = gguflint_memory_used(ctx);
    print_message("%d minimal tensor infos: %zu bytes for %zu input bytes (%.1fx)\n", N, mem, len,
                  (double)mem / (double)len);
    assert_true(mem <= 10 * len + (1u << 20));
    gguflint_free(ctx);
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_siphash_vectors),
            cmocka_unit_test(test_process_key),
            cmocka_unit_test(test_ml_spread),
            cmocka_unit_test(test_viewset),
            cmocka_unit_test(test_viewset_growth),
            cmocka_unit_test(test_viewset_progressions),
            cmocka_unit_test(test_colliding_keys),
            cmocka_unit_test(test_colliding_names),
            cmocka_unit_test(test_colliding_tokens),
            cmocka_unit_test(test_colliding_corpus),
            cmocka_unit_test(test_memory_per_byte),
        })

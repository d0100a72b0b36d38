/* test_fpscan.c - the --deep kernels (common/fpscan.c): on every vector level
 * the host has (AVX2, SSE2, scalar), the NaN/Inf counts, the first index and
 * the non-zero answer must equal the scalar reference's, on random finite
 * data with NaN, Inf and edge values (largest finite, -0, subnormals, every
 * NaN payload bit) planted at random places, at every length around the
 * vector and sub-block sizes, at unaligned addresses, in both byte orders;
 * and the block-scale scan on every block layout --deep uses. Each buffer is
 * an exact-size heap copy, so ASan sees any read past its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "common/fpscan.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void put(uint8_t *p, unsigned sz, uint64_t v, bool be)
{
    for (unsigned i = 0; i < sz; i++)
        p[be ? sz - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* A value of kind k: mostly finite, sometimes NaN, Inf or an edge case. */
static uint64_t value(fp_kind k, unsigned bad_per_1000)
{
    static const uint64_t inf[] = {0x7C00u, 0x7F80u, 0x7F800000u, 0x7FF0000000000000ull};
    static const uint64_t sign[] = {0x8000u, 0x8000u, 0x80000000u, 0x8000000000000000ull};
    uint64_t r = rnd(), s = (r & 1) ? sign[k] : 0;
    uint64_t mant_mask = k == FP_F16    ? 0x3FFu
                         : k == FP_BF16 ? 0x7Fu
                         : k == FP_F32  ? 0x7FFFFFu
                                        : 0xFFFFFFFFFFFFFull;
    unsigned pick = (unsigned)(r >> 8) % 1000;
    if (pick < bad_per_1000 / 2)
        return s | inf[k]; /* Inf */
    if (pick < bad_per_1000) {
        uint64_t m = (r >> 20) & mant_mask;
        return s | inf[k] | (m ? m : 1); /* NaN, any payload */
    }
    switch ((r >> 40) % 8) {
    case 0: return s;                           /* +-0 */
    case 1: return s | (inf[k] - 1);            /* largest finite */
    case 2: return s | ((r >> 12) & mant_mask); /* subnormal */
    default: {
        uint64_t v = (r >> 3) & (inf[k] | mant_mask);
        if ((v & inf[k]) == inf[k])
            v &= ~(inf[k] & (inf[k] << 1)); /* clear exponent bits: finite */
        return s | v;
    }
    }
}

/* The same counts, and the same first bad element when there is one. */
static bool same_count(const fp_count *got, const fp_count *ref)
{
    return got->nan == ref->nan && got->inf == ref->inf &&
           (ref->nan + ref->inf == 0 || got->first == ref->first);
}

static void agree(fp_kind k, const uint8_t *src, size_t n, bool be)
{
    uint8_t *p = ex_dup(src, n);
    fp_count ref, got;
    fp_scan_ref(k, p, n, be, &ref);
    for (int lv = 2; lv >= 0; lv--) {
        fp_force_level(lv);
        fp_scan(k, p, n, be, &got);
        if (!same_count(&got, &ref))
            fail_msg("kind %d level %d n %zu be %d: nan %llu/%llu inf %llu/%llu first %llu/%llu",
                     (int)k, lv, n, (int)be, (unsigned long long)got.nan,
                     (unsigned long long)ref.nan, (unsigned long long)got.inf,
                     (unsigned long long)ref.inf, (unsigned long long)got.first,
                     (unsigned long long)ref.first);
        bool nz = false;
        for (size_t i = 0; i < n; i++)
            nz |= p[i] != 0;
        assert_int_equal(fp_any_nonzero(p, n), nz);
    }
    fp_force_level(2);
    free(p);
}

static void fill(fp_kind k, uint8_t *buf, size_t n, unsigned bad, bool be)
{
    unsigned sz = fp_size(k);
    for (size_t i = 0; i + sz <= n; i += sz)
        put(buf + i, sz, value(k, bad), be);
    for (size_t i = n - n % sz; i < n; i++)
        buf[i] = (uint8_t)rnd();
}

static void test_floats(void **state)
{
    enum { MAX = 5000 };
    uint8_t *buf = malloc(MAX + 64);
    assert_non_null(buf);
    static const size_t lens[] = {0,    1,    2,    3,    7,    8,    15,   16,   31,   32,
                                  33,   63,   64,   65,   127,  128,  129,  1023, 1024, 1025,
                                  2047, 2048, 2049, 3071, 3072, 4096, 4099, 4999, 5000};
    for (int k = FP_F16; k <= FP_F64; k++)
        for (int be = 0; be < 2; be++)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
                for (unsigned bad = 0; bad <= 200; bad = bad ? bad * 10 : 2) {
                    for (unsigned shift = 0; shift < 3; shift++) {
                        fill((fp_kind)k, buf + shift, lens[l], bad, be);
                        agree((fp_kind)k, buf + shift, lens[l], be);
                    }
                }
    free(buf);
}

/* One bad value at every position of a buffer two sub-blocks long, and the
 * first of two at every position: the first index must follow exactly. */
static void test_positions(void **state)
{
    enum { N = 2100 };
    uint8_t buf[N];
    for (int k = FP_F16; k <= FP_F64; k++) {
        unsigned sz = fp_size((fp_kind)k);
        for (size_t at = 0; at + sz <= N; at += sz) {
            memset(buf, 0x11, sizeof buf); /* finite in every kind */
            put(buf + at, sz, value((fp_kind)k, 1000), false);
            agree((fp_kind)k, buf, N, false);
        }
    }
}

/* All zero, all NaN, all Inf: the worst and best cases agree too. */
static void test_uniform(void **state)
{
    enum { N = 8192 + 24 };
    uint8_t *buf = malloc(N);
    assert_non_null(buf);
    memset(buf, 0, N);
    for (int k = FP_F16; k <= FP_F64; k++)
        agree((fp_kind)k, buf, N, false);
    memset(buf, 0xFF, N); /* NaN in every kind */
    for (int k = FP_F16; k <= FP_F64; k++)
        agree((fp_kind)k, buf, N, false);
    buf[N - 1] = 0;
    memset(buf, 0, N - 1);
    buf[N - 3] = 1; /* the only non-zero byte near the end */
    agree(FP_F16, buf, N, false);
    free(buf);
}

static void blocks_agree(const fp_blocks *b, const uint8_t *src, size_t nb, bool be)
{
    size_t n = nb * b->stride;
    uint8_t *p = ex_dup(src, n);
    fp_count ref, got;
    fp_scan_blocks_ref(b, p, nb, be, &ref);
    for (int lv = 2; lv >= 0; lv--) {
        fp_force_level(lv);
        fp_scan_blocks(b, p, nb, be, &got);
        if (!same_count(&got, &ref))
            fail_msg("blocks kind %d stride %u nb %zu be %d: nan %llu/%llu inf %llu/%llu",
                     (int)b->kind, b->stride, nb, (int)be, (unsigned long long)got.nan,
                     (unsigned long long)ref.nan, (unsigned long long)got.inf,
                     (unsigned long long)ref.inf);
    }
    fp_force_level(2);
    free(p);
}

static void test_blocks(void **state)
{
    /* the layouts of check_data.c: q4_0, q4_1, q2_K (d, dmin last), q3_K,
     * q6_K, q8_K (f32), mxfp4 (e8m0), tq1_0 */
    static const fp_blocks layouts[] = {
        {FIELD_F16, 1, {0, 0}, 18},    {FIELD_F16, 2, {0, 2}, 20},    {FIELD_F16, 2, {80, 82}, 84},
        {FIELD_F16, 1, {108, 0}, 110}, {FIELD_F16, 1, {208, 0}, 210}, {FIELD_F32, 1, {0, 0}, 292},
        {FIELD_E8M0, 1, {0, 0}, 17},   {FIELD_F16, 1, {52, 0}, 54},
    };
    enum { MAXB = 300 };
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        const fp_blocks *b = &layouts[l];
        uint8_t *buf = malloc((size_t)MAXB * b->stride);
        assert_non_null(buf);
        for (int be = 0; be < 2; be++)
            for (unsigned bad = 0; bad <= 500; bad = bad ? bad * 5 : 4)
                for (size_t nb = 0; nb <= MAXB; nb += nb < 70 ? 1 : 23) {
                    for (size_t i = 0; i < nb * b->stride; i++)
                        buf[i] = (uint8_t)rnd();
                    for (size_t i = 0; i < nb; i++) {
                        uint8_t *blk = buf + i * b->stride;
                        if (b->kind == FIELD_F32)
                            put(blk + b->off[0], 4, value(FP_F32, bad), be);
                        else if (b->kind == FIELD_E8M0)
                            blk[b->off[0]] = (rnd() % 1000) < bad ? 0xFF : (uint8_t)(rnd() % 255);
                        else
                            for (unsigned f = 0; f < b->nf; f++)
                                put(blk + b->off[f], 2, value(FP_F16, bad), be);
                    }
                    blocks_agree(b, buf, nb, be);
                }
        free(buf);
    }
    /* a layout whose field does not fit its stride is refused, not read */
    fp_blocks bad = {FIELD_F32, 1, {16, 0}, 18};
    uint8_t blk[18] = {0};
    fp_count c;
    fp_scan_blocks(&bad, blk, 1, false, &c);
    assert_int_equal(c.nan + c.inf, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_blocks),
    };
    printf("fpscan: vector level %d on this host\n", fp_level());
    return cmocka_run_group_tests(tests, NULL, NULL);
}

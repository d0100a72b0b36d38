/* fpscan.c - see fpscan.h. A value is NaN or Inf exactly when its magnitude
 * (the value with the sign bit cleared, read as an unsigned integer) is at
 * least the magnitude of Inf, and NaN when it is greater. The vector paths
 * use that twice: a running maximum of the magnitudes over a sub-block finds
 * out whether the sub-block holds any (one AND and one MAX per 32 bytes for
 * 16- and 32-bit floats), and only then does an exact pass compare each lane
 * with Inf and count the lanes with popcount. Magnitudes fit in the signed
 * range of their lane, so the signed SSE2/AVX2 compares and maxima are exact.
 *
 * Block scales are found with SWAR: adding (Inf's magnitude - the top bit)
 * to a field's magnitude carries into the top bit exactly when the field is
 * NaN or Inf, and OR-ing those sums over a group of blocks says whether the
 * group needs the exact (reference) pass. */
#include "common/fpscan.h"
#include "common/cpu.h"

#include <string.h>

enum {
    SUB_BYTES = 1024, /* bytes per candidate test of the vector paths */
    GROUP_BLOCKS = 64 /* blocks per candidate test of the block scan */
};

unsigned fp_size(fp_kind k)
{
    return k == FP_F64 ? 8 : k == FP_F32 ? 4 : 2;
}

/* ---- the scalar reference ---- */

static uint64_t load(const uint8_t *p, unsigned n, bool be)
{
    uint64_t v = 0;
    if (be)
        for (unsigned i = 0; i < n; i++)
            v = (v << 8) | p[i];
    else
        for (unsigned i = n; i-- > 0;)
            v = (v << 8) | p[i];
    return v;
}

/* Magnitude mask and Inf's magnitude per kind. */
static uint64_t abs_mask(fp_kind k)
{
    return k == FP_F64 ? 0x7FFFFFFFFFFFFFFFull : k == FP_F32 ? 0x7FFFFFFFull : 0x7FFFull;
}

static uint64_t inf_bits(fp_kind k)
{
    switch (k) {
    case FP_F16: return 0x7C00u;
    case FP_BF16: return 0x7F80u;
    case FP_F32: return 0x7F800000u;
    default: return 0x7FF0000000000000ull;
    }
}

static inline void note(fp_count *c, uint64_t index, bool is_nan)
{
    if (c->nan + c->inf == 0)
        c->first = index;
    if (is_nan)
        c->nan++;
    else
        c->inf++;
}

/* Count over elements [0, count) at p; indexes start at `base`. */
static void ref_range(fp_kind k, const uint8_t *p, size_t count, uint64_t base, bool be,
                      fp_count *c)
{
    const unsigned sz = fp_size(k);
    const uint64_t m = abs_mask(k), inf = inf_bits(k);
    for (size_t i = 0; i < count; i++) {
        uint64_t a = load(p + i * sz, sz, be) & m;
        if (a >= inf)
            note(c, base + i, a > inf);
    }
}

void fp_scan_ref(fp_kind k, const uint8_t *p, size_t n, bool be, fp_count *out)
{
    memset(out, 0, sizeof *out);
    ref_range(k, p, n / fp_size(k), 0, be, out);
}

static void ref_blocks(const fp_blocks *b, const uint8_t *p, size_t nblocks, uint64_t base, bool be,
                       fp_count *c)
{
    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *blk = p + i * b->stride;
        if (b->kind == FIELD_F16) {
            for (unsigned f = 0; f < b->nf; f++) {
                uint64_t a = load(blk + b->off[f], 2, be) & 0x7FFFu;
                if (a >= 0x7C00u) {
                    note(c, base + i, a > 0x7C00u);
                    break;
                }
            }
        } else if (b->kind == FIELD_F32) {
            uint64_t a = load(blk + b->off[0], 4, be) & 0x7FFFFFFFu;
            if (a >= 0x7F800000u)
                note(c, base + i, a > 0x7F800000u);
        } else if (blk[b->off[0]] == 0xFF) {
            note(c, base + i, true);
        }
    }
}

/* A layout whose fields do not fit in its stride is not scanned. */
static bool blocks_ok(const fp_blocks *b)
{
    unsigned w = b->kind == FIELD_F16 ? 2u * b->nf : b->kind == FIELD_F32 ? 4u : 1u;
    if (b->kind == FIELD_F16 &&
        (b->nf < 1 || b->nf > 2 || (b->nf == 2 && b->off[1] != b->off[0] + 2)))
        return false;
    return b->stride > 0 && (uint32_t)b->off[0] + w <= b->stride;
}

void fp_scan_blocks_ref(const fp_blocks *b, const uint8_t *p, size_t nblocks, bool be,
                        fp_count *out)
{
    memset(out, 0, sizeof *out);
    if (blocks_ok(b))
        ref_blocks(b, p, nblocks, 0, be, out);
}

/* ---- dispatch ---- */

static int forced = 2; /* the highest level the tests allow */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FP_X86 1
#include <immintrin.h>

static int host_level(void)
{
    unsigned need = CPU_AVX2 | CPU_POPCNT;
    return (cpu_features() & need) == need ? 2 : 1;
}
#else
static int host_level(void)
{
    return 0;
}
#endif

int fp_level(void)
{
    int h = host_level(), f = __atomic_load_n(&forced, __ATOMIC_RELAXED);
    return h < f ? h : f;
}

void fp_force_level(int level)
{
    __atomic_store_n(&forced, level < 0 ? 0 : level > 2 ? 2 : level, __ATOMIC_RELAXED);
}

static bool host_le(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return true;
#else
    return false;
#endif
}

#ifdef FP_X86
/* One vector's comparison masks counted: me flags lanes equal to Inf, mg
 * lanes above it (NaN), per mask bits a lane; lane0 is its first lane. */
static inline void tally(fp_count *c, uint64_t lane0, unsigned me, unsigned mg, unsigned per)
{
    if (!(me | mg))
        return;
    if (c->nan + c->inf == 0)
        c->first = lane0 + (unsigned)__builtin_ctz(me | mg) / per;
    c->inf += (unsigned)__builtin_popcount(me) / per;
    c->nan += (unsigned)__builtin_popcount(mg) / per;
}

/* ---- AVX2 ---- */
#define AVX2 __attribute__((target("avx2,popcnt")))
#define LD256(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))

/* Exact counts over the whole vectors of p[0..n) (n a multiple of 32), then
 * the scalar tail; indexes from `base`. */
AVX2 static void exact_avx2(fp_kind k, const uint8_t *p, size_t n, uint64_t base, fp_count *c)
{
    const unsigned sz = fp_size(k);
    size_t v = n - n % 32;
    for (size_t j = 0; j < v; j += 32) {
        __m256i x = LD256(p + j);
        unsigned me, mg, per;
        if (k == FP_F64) {
            __m256i a = _mm256_and_si256(x, _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
            __m256i inf = _mm256_set1_epi64x(0x7FF0000000000000ll);
            me = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, inf)));
            mg = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, inf)));
            per = 1;
        } else if (k == FP_F32) {
            __m256i a = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF));
            __m256i inf = _mm256_set1_epi32(0x7F800000);
            me = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, inf)));
            mg = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, inf)));
            per = 1;
        } else {
            __m256i a = _mm256_and_si256(x, _mm256_set1_epi16(0x7FFF));
            __m256i inf = _mm256_set1_epi16((short)inf_bits(k));
            me = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(a, inf));
            mg = (unsigned)_mm256_movemask_epi8(_mm256_cmpgt_epi16(a, inf));
            per = 2; /* two mask bits per lane */
        }
        tally(c, base + j / sz, me, mg, per);
    }
    ref_range(k, p + v, (n - v) / sz, base + v / sz, false, c);
}

/* True when the SUB_BYTES at p may hold a NaN or Inf. */
AVX2 static bool candidate_avx2(fp_kind k, const uint8_t *p)
{
    __m256i m0 = _mm256_setzero_si256(), m1 = m0, m2 = m0, m3 = m0;
    if (k == FP_F64) {
        const __m256i abs = _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll);
        const __m256i lim = _mm256_set1_epi64x(0x7FEFFFFFFFFFFFFFll);
        for (size_t j = 0; j < SUB_BYTES; j += 64) {
            m0 = _mm256_or_si256(m0, _mm256_cmpgt_epi64(_mm256_and_si256(LD256(p + j), abs), lim));
            m1 = _mm256_or_si256(m1,
                                 _mm256_cmpgt_epi64(_mm256_and_si256(LD256(p + j + 32), abs), lim));
        }
        m0 = _mm256_or_si256(m0, m1);
        return !_mm256_testz_si256(m0, m0);
    }
    __m256i abs, lim;
    if (k == FP_F32) {
        abs = _mm256_set1_epi32(0x7FFFFFFF);
        lim = _mm256_set1_epi32(0x7F7FFFFF);
        for (size_t j = 0; j < SUB_BYTES; j += 128) {
            m0 = _mm256_max_epi32(m0, _mm256_and_si256(LD256(p + j), abs));
            m1 = _mm256_max_epi32(m1, _mm256_and_si256(LD256(p + j + 32), abs));
            m2 = _mm256_max_epi32(m2, _mm256_and_si256(LD256(p + j + 64), abs));
            m3 = _mm256_max_epi32(m3, _mm256_and_si256(LD256(p + j + 96), abs));
        }
        m0 = _mm256_max_epi32(_mm256_max_epi32(m0, m1), _mm256_max_epi32(m2, m3));
        m0 = _mm256_cmpgt_epi32(m0, lim);
    } else {
        abs = _mm256_set1_epi16(0x7FFF);
        lim = _mm256_set1_epi16((short)(inf_bits(k) - 1));
        for (size_t j = 0; j < SUB_BYTES; j += 128) {
            m0 = _mm256_max_epi16(m0, _mm256_and_si256(LD256(p + j), abs));
            m1 = _mm256_max_epi16(m1, _mm256_and_si256(LD256(p + j + 32), abs));
            m2 = _mm256_max_epi16(m2, _mm256_and_si256(LD256(p + j + 64), abs));
            m3 = _mm256_max_epi16(m3, _mm256_and_si256(LD256(p + j + 96), abs));
        }
        m0 = _mm256_max_epi16(_mm256_max_epi16(m0, m1), _mm256_max_epi16(m2, m3));
        m0 = _mm256_cmpgt_epi16(m0, lim);
    }
    return !_mm256_testz_si256(m0, m0);
}

AVX2 static void scan_avx2(fp_kind k, const uint8_t *p, size_t n, fp_count *c)
{
    const unsigned sz = fp_size(k);
    size_t i = 0;
    for (; n - i >= SUB_BYTES; i += SUB_BYTES)
        if (candidate_avx2(k, p + i))
            exact_avx2(k, p + i, SUB_BYTES, i / sz, c);
    exact_avx2(k, p + i, n - i, i / sz, c);
}

AVX2 static bool nonzero_avx2(const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; n - i >= SUB_BYTES; i += SUB_BYTES) {
        __m256i a = _mm256_setzero_si256(), b = a;
        for (size_t j = i; j < i + SUB_BYTES; j += 128) {
            a = _mm256_or_si256(a, _mm256_or_si256(LD256(p + j), LD256(p + j + 32)));
            b = _mm256_or_si256(b, _mm256_or_si256(LD256(p + j + 64), LD256(p + j + 96)));
        }
        a = _mm256_or_si256(a, b);
        if (!_mm256_testz_si256(a, a))
            return true;
    }
    for (; i < n; i++)
        if (p[i])
            return true;
    return false;
}

/* ---- SSE2 (every x86-64) ---- */
#define LD128(q) _mm_loadu_si128((const __m128i *)(const void *)(q))

static void exact_sse2(fp_kind k, const uint8_t *p, size_t n, uint64_t base, fp_count *c)
{
    const unsigned sz = fp_size(k);
    size_t v = n - n % 16;
    for (size_t j = 0; j < v; j += 16) {
        __m128i x = LD128(p + j);
        unsigned me, mg, per;
        if (k == FP_F32) {
            __m128i a = _mm_and_si128(x, _mm_set1_epi32(0x7FFFFFFF));
            __m128i inf = _mm_set1_epi32(0x7F800000);
            me = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, inf)));
            mg = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(a, inf)));
            per = 1;
        } else {
            __m128i a = _mm_and_si128(x, _mm_set1_epi16(0x7FFF));
            __m128i inf = _mm_set1_epi16((short)inf_bits(k));
            me = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(a, inf));
            mg = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi16(a, inf));
            per = 2;
        }
        tally(c, base + j / sz, me, mg, per);
    }
    ref_range(k, p + v, (n - v) / sz, base + v / sz, false, c);
}

static bool candidate_sse2(fp_kind k, const uint8_t *p)
{
    __m128i m0 = _mm_setzero_si128(), m1 = m0;
    if (k == FP_F32) {
        const __m128i abs = _mm_set1_epi32(0x7FFFFFFF), lim = _mm_set1_epi32(0x7F7FFFFF);
        for (size_t j = 0; j < SUB_BYTES; j += 32) {
            m0 = _mm_or_si128(m0, _mm_cmpgt_epi32(_mm_and_si128(LD128(p + j), abs), lim));
            m1 = _mm_or_si128(m1, _mm_cmpgt_epi32(_mm_and_si128(LD128(p + j + 16), abs), lim));
        }
        return _mm_movemask_epi8(_mm_or_si128(m0, m1)) != 0;
    }
    const __m128i abs = _mm_set1_epi16(0x7FFF), lim = _mm_set1_epi16((short)(inf_bits(k) - 1));
    for (size_t j = 0; j < SUB_BYTES; j += 32) {
        m0 = _mm_max_epi16(m0, _mm_and_si128(LD128(p + j), abs));
        m1 = _mm_max_epi16(m1, _mm_and_si128(LD128(p + j + 16), abs));
    }
    return _mm_movemask_epi8(_mm_cmpgt_epi16(_mm_max_epi16(m0, m1), lim)) != 0;
}

static void scan_sse2(fp_kind k, const uint8_t *p, size_t n, fp_count *c)
{
    const unsigned sz = fp_size(k);
    size_t i = 0;
    for (; n - i >= SUB_BYTES; i += SUB_BYTES)
        if (candidate_sse2(k, p + i))
            exact_sse2(k, p + i, SUB_BYTES, i / sz, c);
    exact_sse2(k, p + i, n - i, i / sz, c);
}

static bool nonzero_sse2(const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; n - i >= SUB_BYTES; i += SUB_BYTES) {
        __m128i a = _mm_setzero_si128(), b = a;
        for (size_t j = i; j < i + SUB_BYTES; j += 64) {
            a = _mm_or_si128(a, _mm_or_si128(LD128(p + j), LD128(p + j + 16)));
            b = _mm_or_si128(b, _mm_or_si128(LD128(p + j + 32), LD128(p + j + 48)));
        }
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(a, b), _mm_setzero_si128())) != 0xFFFF)
            return true;
    }
    for (; i < n; i++)
        if (p[i])
            return true;
    return false;
}
#endif /* FP_X86 */

/* ---- entry points ---- */

void fp_scan(fp_kind k, const uint8_t *p, size_t n, bool be, fp_count *out)
{
    memset(out, 0, sizeof *out);
    if (be || !host_le()) {
        ref_range(k, p, n / fp_size(k), 0, be, out);
        return;
    }
#ifdef FP_X86
    int lv = fp_level();
    if (lv == 2) {
        scan_avx2(k, p, n, out);
        return;
    }
    if (lv == 1 && k != FP_F64) { /* SSE2 has no 64-bit compares */
        scan_sse2(k, p, n, out);
        return;
    }
#endif
    ref_range(k, p, n / fp_size(k), 0, false, out);
}

/* Blocks [0, nblocks): OR the carries of each group, and count exactly only
 * in the groups that have one. Little-endian data on a little-endian host. */
static void blocks_swar(const fp_blocks *b, const uint8_t *p, size_t nblocks, fp_count *c)
{
    const size_t stride = b->stride;
    for (size_t i = 0; i < nblocks; i += GROUP_BLOCKS) {
        size_t g = nblocks - i < GROUP_BLOCKS ? nblocks - i : GROUP_BLOCKS;
        const uint8_t *q = p + i * stride + b->off[0];
        uint32_t acc = 0, flag;
        if (b->kind == FIELD_F16 && b->nf == 1) {
            for (size_t k = 0; k < g; k++, q += stride) {
                uint16_t h;
                memcpy(&h, q, 2);
                acc |= (uint32_t)(h & 0x7FFFu) + 0x0400u;
            }
            flag = 0x8000u;
        } else if (b->kind == FIELD_F16) { /* two adjacent fields */
            for (size_t k = 0; k < g; k++, q += stride) {
                uint32_t w;
                memcpy(&w, q, 4);
                acc |= (w & 0x7FFF7FFFu) + 0x04000400u;
            }
            flag = 0x80008000u;
        } else if (b->kind == FIELD_F32) {
            for (size_t k = 0; k < g; k++, q += stride) {
                uint32_t w;
                memcpy(&w, q, 4);
                acc |= (w & 0x7FFFFFFFu) + 0x00800000u;
            }
            flag = 0x80000000u;
        } else {
            for (size_t k = 0; k < g; k++, q += stride)
                acc |= (uint32_t)*q + 1u;
            flag = 0x100u;
        }
        if (acc & flag)
            ref_blocks(b, p + i * stride, g, i, false, c);
    }
}

void fp_scan_blocks(const fp_blocks *b, const uint8_t *p, size_t nblocks, bool be, fp_count *out)
{
    memset(out, 0, sizeof *out);
    if (!blocks_ok(b))
        return;
    if (be || !host_le())
        ref_blocks(b, p, nblocks, 0, be, out);
    else
        blocks_swar(b, p, nblocks, out);
}

bool fp_any_nonzero(const uint8_t *p, size_t n)
{
#ifdef FP_X86
    int lv = fp_level();
    if (lv == 2)
        return nonzero_avx2(p, n);
    if (lv == 1)
        return nonzero_sse2(p, n);
#endif
    size_t i = 0;
    uint64_t acc = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
        if ((i & 1023) == 1016 && acc)
            return true;
    }
    for (; i < n; i++)
        acc |= p[i];
    return acc != 0;
}

/* utf8_avx2.c - UTF-8 validation (and the printable-ASCII span of long
 * strings) 32 bytes at a time with AVX2, for hosts
 * that have it (chosen at run time; the build needs no special flags). It is
 * the table-lookup method of Keiser and Lemire ("Validating UTF-8 in less
 * than one instruction per byte", 2021): three 16-entry nibble tables
 * classify each byte pair, a saturating subtraction finds the bytes that
 * must be the 2nd or 3rd continuation of a 3- or 4-byte sequence, and any
 * disagreement is an error.
 *
 * A string shorter than its last 32-byte block is read from the caller's
 * memory up to `limit` (the end of the readable buffer the string sits in)
 * and masked to zeros past its end, so no copy is needed in the common case;
 * when fewer than 32 bytes are readable the tail is copied. Zeros after the
 * end are ASCII, so a sequence cut by the end of the string is caught as
 * "too short"; a string ending exactly on a block boundary gets one more
 * all-zero block for the same reason. */
#include "common/cpu.h"
#include "common/fpscan.h"
#include "common/utf8.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

enum {
    TOO_SHORT = 1 << 0,
    TOO_LONG = 1 << 1,
    OVERLONG_3 = 1 << 2,
    TOO_LARGE = 1 << 3,
    SURROGATE = 1 << 4,
    OVERLONG_2 = 1 << 5,
    TOO_LARGE_1000 = 1 << 6,
    OVERLONG_4 = 1 << 6,
    TWO_CONTS = 1 << 7,
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS
};

static const uint8_t mask_tab[64] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* The 16-entry table t, repeated in both 128-bit lanes. */
#define TABLE(...) _mm256_setr_epi8(__VA_ARGS__, __VA_ARGS__)
#define C(x) ((char)(unsigned char)(x))

/* Bytes of `in` shifted by n positions, the first n taken from the end of `prev`. */
AVX2 static inline __m256i shifted(__m256i in, __m256i prev, int n)
{
    __m256i joined = _mm256_permute2x128_si256(prev, in, 0x21);
    switch (n) {
    case 1: return _mm256_alignr_epi8(in, joined, 15);
    case 2: return _mm256_alignr_epi8(in, joined, 14);
    default: return _mm256_alignr_epi8(in, joined, 13);
    }
}

AVX2 static inline __m256i block_errors(__m256i in, __m256i prev)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i t1 =
        TABLE(C(TOO_LONG), C(TOO_LONG), C(TOO_LONG), C(TOO_LONG), C(TOO_LONG), C(TOO_LONG),
              C(TOO_LONG), C(TOO_LONG), C(TWO_CONTS), C(TWO_CONTS), C(TWO_CONTS), C(TWO_CONTS),
              C(TOO_SHORT | OVERLONG_2), C(TOO_SHORT), C(TOO_SHORT | OVERLONG_3 | SURROGATE),
              C(TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4));
    const __m256i t2 = TABLE(
        C(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), C(CARRY | OVERLONG_2), C(CARRY), C(CARRY),
        C(CARRY | TOO_LARGE), C(CARRY | TOO_LARGE | TOO_LARGE_1000),
        C(CARRY | TOO_LARGE | TOO_LARGE_1000), C(CARRY | TOO_LARGE | TOO_LARGE_1000),
        C(CARRY | TOO_LARGE | TOO_LARGE_1000), C(CARRY | TOO_LARGE | TOO_LARGE_1000),
        C(CARRY | TOO_LARGE | TOO_LARGE_1000), C(CARRY | TOO_LARGE | TOO_LARGE_1000),
        C(CARRY | TOO_LARGE | TOO_LARGE_1000), C(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE),
        C(CARRY | TOO_LARGE | TOO_LARGE_1000), C(CARRY | TOO_LARGE | TOO_LARGE_1000));
    const __m256i t3 =
        TABLE(C(TOO_SHORT), C(TOO_SHORT), C(TOO_SHORT), C(TOO_SHORT), C(TOO_SHORT), C(TOO_SHORT),
              C(TOO_SHORT), C(TOO_SHORT),
              C(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4),
              C(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE),
              C(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),
              C(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE), C(TOO_SHORT),
              C(TOO_SHORT), C(TOO_SHORT), C(TOO_SHORT));
    __m256i prev1 = shifted(in, prev, 1);
    __m256i b1h = _mm256_shuffle_epi8(t1, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low4));
    __m256i b1l = _mm256_shuffle_epi8(t2, _mm256_and_si256(prev1, low4));
    __m256i b2h = _mm256_shuffle_epi8(t3, _mm256_and_si256(_mm256_srli_epi16(in, 4), low4));
    __m256i sc = _mm256_and_si256(_mm256_and_si256(b1h, b1l), b2h);
    __m256i prev2 = shifted(in, prev, 2), prev3 = shifted(in, prev, 3);
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must23, sc);
}

/* The bytes at the end of a block that start a sequence it does not finish:
 * a 2-, 3- or 4-byte lead in the last, last two or last three positions. */
AVX2 static inline __m256i incomplete(__m256i in)
{
    const __m256i max =
        _mm256_setr_epi8(C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF),
                         C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF),
                         C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF),
                         C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xFF), C(0xEF), C(0xDF), C(0xBF));
    return _mm256_subs_epu8(in, max);
}

/* Whether an ESC (0x1B) at one of the positions i + (set bits of m) is
 * followed, inside s[0..n), by a printable ASCII byte. */
static inline __attribute__((always_inline)) bool esc_at(const uint8_t *s, uint64_t n, uint64_t i,
                                                         uint64_t m)
{
    for (; m; m &= m - 1) {
        uint64_t at = i + (uint64_t)__builtin_ctzll(m);
        if (at + 1 < n && (uint8_t)(s[at + 1] - 0x20u) < 0x5Fu)
            return true;
    }
    return false;
}

/* The 2-byte path's constants. Left as they are, the compiler rebuilds them
 * from immediates in every step (three instructions each); hide_const()
 * makes it keep them in registers instead. */
#define hide_const(v) __asm__("" : "+x"(v))

typedef struct two_k {
    __m256i df, c40, cont_max;
} two_k;

AVX2 static inline two_k two_consts(void)
{
    /* cont_max: -64, the signed bytes below it are 0x80..0xBF */
    two_k k = {_mm256_set1_epi8(C(0xDF)), _mm256_set1_epi8(0x40), _mm256_set1_epi8(C(0xC0))};
    hide_const(k.df);
    hide_const(k.c40);
    hide_const(k.cont_max);
    return k;
}

/* The 64-bit masks of a 64-byte step: bit i set when byte i is not ASCII
 * (non) and when it is a continuation byte, 0x80..0xBF (cont). */
AVX2 static inline uint64_t mask64(__m256i a, __m256i b)
{
    return (uint32_t)_mm256_movemask_epi8(a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
}

/* An all-ASCII block needs no classification: it is valid, and it is an
 * error only when the block before it left a sequence unfinished. 64 bytes
 * per step. */
/* The validator's state between 64-byte steps: the previous block, the
 * errors so far, and the unfinished sequence at the end of the last
 * non-ASCII block. */
typedef struct u8state {
    __m256i prev, err, inc;
} u8state;

/* block_errors of a 64-byte step, out of line: the 2-byte loop keeps its
 * registers. */
AVX2 __attribute__((noinline)) static __m256i exact_errors(__m256i a, __m256i b, __m256i prev)
{
    return _mm256_or_si256(block_errors(a, prev), block_errors(b, a));
}

/* A byte of 0xE0 or more in the step a, b or the three bytes before it
 * (the end of prev): a 3- or 4-byte sequence has a byte here, which the
 * 2-byte check cannot judge. */
AVX2 static inline __m256i big_bytes(__m256i a, __m256i b, __m256i prev, __m256i df)
{
    return _mm256_subs_epu8(_mm256_max_epu8(shifted(a, prev, 3), _mm256_max_epu8(a, b)), df);
}

/* The ESC bytes (0x1B) of the 64-byte step a, b at s + i, when it has one:
 * *esc is set when one is followed by a printable byte (esc_at, as
 * esc_seq_avx2 finds them: the byte after may be in the next step). */
AVX2 static inline __m256i esc_bytes(__m256i a, __m256i b)
{
    const __m256i e = _mm256_set1_epi8(0x1B);
    return _mm256_or_si256(_mm256_cmpeq_epi8(a, e), _mm256_cmpeq_epi8(b, e));
}

/* In line, without a call: the loops keep their vector registers. */
AVX2 static inline __attribute__((always_inline)) void
step_esc(const uint8_t *s, uint64_t n, uint64_t i, __m256i a, __m256i b, bool *esc)
{
    const __m256i e = _mm256_set1_epi8(0x1B);
    if (esc_at(s, n, i, mask64(_mm256_cmpeq_epi8(a, e), _mm256_cmpeq_epi8(b, e))))
        *esc = true;
}

/* step_esc over the steps from `from` to `to`, the ones exact_run took: a
 * loop of its own, as exact_run's needs every vector register. */
AVX2 __attribute__((noinline)) static void esc_steps(const uint8_t *s, uint64_t n, uint64_t from,
                                                     uint64_t to, bool *esc)
{
    for (uint64_t i = from; i < to; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i e = esc_bytes(a, b);
        if (!_mm256_testz_si256(e, e))
            step_esc(s, n, i, a, b, esc);
    }
}

/* The steps from i on that hold a byte of 0xE0 or more, checked exactly in
 * line (SPM's U+2581 and CJK text put one in nearly every step): returns
 * the first step that holds none (or is all ASCII), for run_steps, which
 * calls this at a step that holds one. Out of line, so that run_steps's
 * 2-byte loop keeps its registers. */
AVX2 __attribute__((noinline)) static uint64_t exact_run(const uint8_t *s, uint64_t n, uint64_t i,
                                                         u8state *st)
{
    __m256i prev = st->prev, err = st->err;
    const __m256i df = _mm256_set1_epi8(C(0xDF));
    const uint64_t from = i;
    for (; n - i >= 64; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i big = big_bytes(a, b, prev, df);
        if (_mm256_testz_si256(big, big))
            break;
        err = _mm256_or_si256(err, _mm256_or_si256(block_errors(a, prev), block_errors(b, a)));
        prev = b;
    }
    /* the last step's unfinished sequence, once (a register less in the loop) */
    if (i != from)
        st->inc = incomplete(prev);
    st->prev = prev, st->err = err;
    return i;
}

/* 64-byte steps, checked first as ASCII and 2-byte text and again exactly
 * (block_errors) when that finds something; a step with a byte of 0xE0 or
 * more goes to exact_run, with the steps after it that have one too. Most
 * steps of a byte-level BPE vocabulary hold only ASCII and 2-byte
 * sequences.
 *
 * The 2-byte check works on 64-bit masks, where a shift moves the whole
 * step by a byte: with no byte of 0xE0 or more in the step, its non-ASCII
 * bytes are continuations (0x80..0xBF, `cont`) and leads (0xC0..0xDF,
 * `lead` = non-ASCII and not cont), and the step is valid UTF-8 exactly when
 * every byte is a continuation if and only if the byte before it is a lead
 * ((lead << 1 | carry) == cont, carry: the step before ended with a lead),
 * and no lead is 0xC0 or 0xC1 (overlong; those add 0x40 to below 2, kept
 * in a running minimum `ov` and judged once at the end). A lead in the
 * last byte carries into the next step: its first byte must continue it
 * (a 2-byte step), or the step is an error (all ASCII: `bad`), or
 * block_errors sees it in prev (exact). carry is set only by this check, so
 * after an exact step it is 0: a continuation there (of the exact step's
 * sequence) fails the mask test and the step is checked exactly, with
 * prev, which is always right. A step that fails the mask test is checked
 * exactly too: the test decides nothing on its own but "valid". */
AVX2 static inline __attribute__((always_inline)) void run_steps(const uint8_t *s, uint64_t n,
                                                                 u8state *st, bool *esc)
{
    __m256i prev = st->prev, err = st->err;
    __m256i ov = _mm256_set1_epi8(C(0xFF));
    const two_k k = two_consts();
    /* st->inc: an exact step's unfinished sequence before this call */
    uint64_t carry = 0, bad = 0, pend = !_mm256_testz_si256(st->inc, st->inc);
    for (uint64_t i = 0; i + 64 <= n;) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        const uint64_t non = mask64(a, b);
        if (non == 0) {
            bad |= carry | pend; /* a sequence the step before left unfinished */
            carry = pend = 0;
            if (esc) {
                __m256i e = esc_bytes(a, b);
                if (!_mm256_testz_si256(e, e))
                    step_esc(s, n, i, a, b, esc);
            }
        } else {
            __m256i big = _mm256_subs_epu8(_mm256_max_epu8(a, b), k.df);
            /* one test for both: a big byte or an ESC is rare */
            __m256i e = esc ? esc_bytes(a, b) : _mm256_setzero_si256();
            __m256i any = esc ? _mm256_or_si256(big, e) : big;
            if (__builtin_expect(!_mm256_testz_si256(any, any), 0)) {
                if (esc && !_mm256_testz_si256(e, e))
                    step_esc(s, n, i, a, b, esc);
                if (!_mm256_testz_si256(big, big)) {
                    st->prev = prev, st->err = err, st->inc = incomplete(prev);
                    const uint64_t from = i;
                    i = exact_run(s, n, i, st);
                    if (esc) /* its steps' ESC bytes (this one's again) */
                        esc_steps(s, n, from, i, esc);
                    prev = st->prev, err = st->err;
                    /* an unfinished sequence: the next step is checked exactly */
                    pend = !_mm256_testz_si256(st->inc, st->inc);
                    carry = 0;
                    continue;
                }
            }
            const uint64_t cont =
                mask64(_mm256_cmpgt_epi8(k.cont_max, a), _mm256_cmpgt_epi8(k.cont_max, b));
            const uint64_t lead = non & ~cont;
            /* (in a step checked exactly too: an error either way) */
            ov = _mm256_min_epu8(
                ov, _mm256_min_epu8(_mm256_add_epi8(a, k.c40), _mm256_add_epi8(b, k.c40)));
            if (__builtin_expect(((((lead << 1) | carry) ^ cont) | pend) != 0, 0))
                err = _mm256_or_si256(err, exact_errors(a, b, prev));
            carry = lead >> 63;
            pend = 0;
        }
        prev = b;
        i += 64;
    }
    /* a byte of ov below 2: an 0xC0 or 0xC1 */
    __m256i over = _mm256_cmpeq_epi8(_mm256_min_epu8(ov, _mm256_set1_epi8(1)), ov);
    err = _mm256_or_si256(err, over);
    if (bad)
        err = _mm256_or_si256(err, _mm256_set1_epi8(C(0xFF)));
    st->prev = prev, st->err = err, st->inc = incomplete(prev);
}

/* valid_avx2 and, with esc, whether s[0..n) holds an ESC followed by a
 * printable byte (esc_seq_avx2's answer), in the same pass: the 64-byte
 * steps look at their ESC bytes (run_steps), the tail byte by byte. */
AVX2 static inline __attribute__((always_inline)) bool valid_impl(const uint8_t *s, uint64_t n,
                                                                  const uint8_t *limit, bool *esc)
{
    u8state st = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    run_steps(s, n, &st, esc);
    uint64_t i = n - n % 64;
    if (esc)
        for (uint64_t j = i; j < n && !*esc; j++)
            *esc = s[j] == 0x1B && j + 1 < n && (uint8_t)(s[j + 1] - 0x20u) < 0x5Fu;
    __m256i prev = st.prev, err = st.err, inc = st.inc;
    for (; n - i >= 32; i += 32) {
        __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        if (_mm256_movemask_epi8(in) == 0) {
            err = _mm256_or_si256(err, inc);
            inc = _mm256_setzero_si256();
        } else {
            err = _mm256_or_si256(err, block_errors(in, prev));
            inc = incomplete(in);
        }
        prev = in;
    }
    /* the tail (possibly empty) padded with zeros: also ends any sequence */
    uint64_t k = n - i;
    __m256i in;
    if ((uint64_t)(limit - (s + i)) >= 32) {
        in = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        in = _mm256_and_si256(
            in, _mm256_loadu_si256((const __m256i *)(const void *)(mask_tab + 32 - k)));
    } else {
        uint8_t tmp[32] = {0};
        for (uint64_t j = 0; j < k; j++)
            tmp[j] = s[i + j];
        in = _mm256_loadu_si256((const __m256i *)(const void *)tmp);
    }
    err = _mm256_or_si256(err, block_errors(in, prev));
    return _mm256_testz_si256(err, err);
}

AVX2 static bool valid_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit)
{
    return valid_impl(s, n, limit, NULL);
}

AVX2 static bool valid_esc_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc)
{
    *esc = false;
    return valid_impl(s, n, limit, esc);
}

/* The vector check runs when the host has AVX2 and fp_level allows it:
 * fp_force_level(0 or 1) (tests, the twin fuzz harness) sends every string
 * to the scalar check, the reference this one must agree with. */
static bool host_avx2(void)
{
    return (cpu_features() & CPU_AVX2) != 0 && fp_level() >= 2;
}

bool utf8_valid_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *done)
{
    *done = host_avx2();
    return *done ? valid_avx2(s, n, limit) : false;
}

/* ascii_print_span 32 bytes a step: the offset of the first byte that is
 * not printable ASCII (nor, with text, a tab or line feed) among the
 * n - n % 32 first bytes, or that many when there is none. The tab / line
 * feed mask is only made for the blocks that are not all printable. */
AVX2 static uint64_t print_span_avx2(const uint8_t *s, uint64_t n, bool text)
{
    const __m256i lo = _mm256_set1_epi8(0x1F), hi = _mm256_set1_epi8(0x7F);
    const __m256i tab = _mm256_set1_epi8('\t'), lf = _mm256_set1_epi8('\n');
    uint64_t i = 0;
    for (; n - i >= 32; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        unsigned m = (unsigned)_mm256_movemask_epi8(
            _mm256_and_si256(_mm256_cmpgt_epi8(a, lo), _mm256_cmpgt_epi8(hi, a)));
        if (m == 0xFFFFFFFFu)
            continue;
        if (text)
            m |= (unsigned)_mm256_movemask_epi8(
                _mm256_or_si256(_mm256_cmpeq_epi8(a, tab), _mm256_cmpeq_epi8(a, lf)));
        if (m != 0xFFFFFFFFu)
            return i + (unsigned)__builtin_ctz(~m);
    }
    return i;
}

uint64_t utf8_print_span_avx2(const uint8_t *s, uint64_t n, bool text, bool *done)
{
    *done = host_avx2();
    return *done ? print_span_avx2(s, n, text) : 0;
}

bool utf8_valid_esc_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc, bool *done)
{
    *done = host_avx2();
    if (!*done)
        return false;
    /* one pass: the ESC bytes are found with the steps' other tests */
    return valid_esc_avx2(s, n, limit, esc);
}

#else

bool utf8_valid_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *done)
{
    (void)s, (void)n, (void)limit;
    *done = false;
    return false;
}

uint64_t utf8_print_span_avx2(const uint8_t *s, uint64_t n, bool text, bool *done)
{
    (void)s, (void)n, (void)text;
    *done = false;
    return 0;
}

bool utf8_valid_esc_avx2(const uint8_t *s, uint64_t n, const uint8_t *limit, bool *esc, bool *done)
{
    (void)s, (void)n, (void)limit, (void)esc;
    *done = false;
    return false;
}

#endif

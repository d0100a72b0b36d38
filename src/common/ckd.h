/* ckd.h - checked 64-bit arithmetic for every size and offset computed from
 * file data. Each helper stores the result through `out` and returns true when
 * the operation overflowed (the C23 ckd_* convention), so a caller writes
 * `if (ckd_add64(&end, off, len)) -> report overflow`. Built on the compiler's
 * __builtin_*_overflow, which gcc and clang lower to one instruction plus a
 * flag test. */
#ifndef GGUFLINT_CKD_H
#define GGUFLINT_CKD_H

#include <stdbool.h>
#include <stdint.h>

static inline bool ckd_add64(uint64_t *out, uint64_t a, uint64_t b)
{
    return __builtin_add_overflow(a, b, out);
}

static inline bool ckd_mul64(uint64_t *out, uint64_t a, uint64_t b)
{
    return __builtin_mul_overflow(a, b, out);
}

static inline bool ckd_muls64(int64_t *out, int64_t a, int64_t b)
{
    return __builtin_mul_overflow(a, b, out);
}

/* Round `x` up to a multiple of `a` (any a > 0, not only powers of two, so a
 * spec-legal alignment such as 48 is handled). a == 0 is reported as overflow:
 * there is no multiple of zero to round to. */
static inline bool ckd_align64(uint64_t *out, uint64_t x, uint64_t a)
{
    if (a == 0) {
        *out = x;
        return true;
    }
    uint64_t rem = x % a;
    if (rem == 0) {
        *out = x;
        return false;
    }
    return __builtin_add_overflow(x, a - rem, out);
}

static inline bool is_pow2_u64(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

#endif

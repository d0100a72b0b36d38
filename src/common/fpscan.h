/* fpscan.h - the kernels of the --deep scan: count NaN and Inf values in
 * arrays of IEEE floats (f16, bf16, f32, f64), in fp16/f32/E8M0 fields found
 * at fixed offsets of fixed-size blocks (the scales of quantized data), and
 * find whether a byte range holds any non-zero byte. They know float formats
 * and strides only, nothing of GGUF.
 *
 * Each kernel has a scalar reference (any host, either byte order) and, for
 * little-endian data on x86-64, an AVX2 path and an SSE2 fallback chosen at
 * run time (the build needs no special flags). The vector paths first look
 * for a candidate in a whole sub-block with a few instructions per 32 bytes
 * (a running maximum of the magnitudes) and count exactly only in sub-blocks
 * that hold one, so clean data costs well under one instruction per byte and
 * data made entirely of NaN still costs a bounded amount per byte. Results
 * are identical on every path (tests/test_fpscan.c compares them). */
#ifndef GGUFLINT_FPSCAN_H
#define GGUFLINT_FPSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fp_kind { FP_F16, FP_BF16, FP_F32, FP_F64 } fp_kind;

/* What a scan found: NaN and Inf counts (values, or blocks), and the index
 * of the first one (element or block index within the call) when any. */
typedef struct fp_count {
    uint64_t nan, inf;
    uint64_t first;
} fp_count;

/* Bytes per element of a kind. */
unsigned fp_size(fp_kind k);

/* Count NaN/Inf among the n / fp_size(k) whole elements at p (a partial
 * element at the end is ignored). `be`: the elements are big-endian. */
void fp_scan(fp_kind k, const uint8_t *p, size_t n, bool be, fp_count *out);

/* Scale fields of `nblocks` blocks of `stride` bytes at p. F16: nf (1 or 2)
 * fp16 fields at off[0], off[1] (off[1] == off[0] + 2 when nf is 2); a block
 * counts once, as NaN or Inf by its first non-finite field. F32: one f32 at
 * off[0]. E8M0: one byte at off[0]; 0xFF is NaN (there is no Inf). */
typedef enum fp_field { FIELD_F16, FIELD_F32, FIELD_E8M0 } fp_field;
typedef struct fp_blocks {
    fp_field kind;
    unsigned nf;
    uint16_t off[2];
    uint32_t stride;
} fp_blocks;
void fp_scan_blocks(const fp_blocks *b, const uint8_t *p, size_t nblocks, bool be, fp_count *out);

/* True when p[0..n) holds a non-zero byte. */
bool fp_any_nonzero(const uint8_t *p, size_t n);

/* The reference versions (scalar, any byte order), for the tests. */
void fp_scan_ref(fp_kind k, const uint8_t *p, size_t n, bool be, fp_count *out);
void fp_scan_blocks_ref(const fp_blocks *b, const uint8_t *p, size_t nblocks, bool be,
                        fp_count *out);

/* Which vector path runs: 2 AVX2, 1 SSE2, 0 scalar. fp_force_level lowers it
 * (tests run every path on one host); a level the host lacks is ignored. */
int fp_level(void);
void fp_force_level(int level);

#endif

/* collide.h - inputs built to collide in the hash functions gguflint once
 * used for its tables (before they were keyed): for the adversarial
 * benchmark (tests/tools/gen_adversarial.c), the regression corpus and the
 * complexity tests. Against keyed hashing they are ordinary inputs, which is
 * what the tests check.
 *
 *  - FNV-1a as gguflint had it (keys, tensor names, the model index, split
 *    sets; its offset basis was 1469598103934665603): the low k
 *    bits of the state evolve on their own, s' = (s ^ byte) * 0x1b3 mod 2^k,
 *    so a birthday search finds two blocks that take one state to the same
 *    state, and m such pairs chained give 2^m strings with one low-k-bit
 *    hash (Joux's multicollision).
 *  - the golden-ratio multiplicative hash of the duplicate-token index,
 *    h = (w + 8) * K for an 8-byte token w: tokens w_j = (H0 + j) * K^-1 - 8
 *    give hashes H0 + j, whose top 32 bits (the slot) are all equal. */
#ifndef GGUFLINT_TESTS_COLLIDE_H
#define GGUFLINT_TESTS_COLLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct collide_family {
    char prefix[32];
    size_t block; /* bytes per block */
    unsigned stages;
    uint8_t pair[32][2][8]; /* the two blocks of each stage */
} collide_family;

/* Low bits made equal: enough for tables of up to 2^20 slots. */
#define COLLIDE_FNV_MASK 0xFFFFFu

/* A family of at least n strings "prefix + blocks" over the alphabet, all
 * with one FNV-1a value in the COLLIDE_FNV_MASK bits. False when no
 * collision was found (never for the alphabets used here). */
bool collide_fnv(collide_family *f, const char *prefix, const char *alpha, size_t block,
                 uint64_t n);
/* String j (< 2^stages) of the family into out (room for prefix + 8 *
 * stages + 1 bytes, NUL-terminated); returns its length. */
size_t collide_fnv_string(const collide_family *f, uint64_t j, char *out);

/* The 8 bytes of colliding token j for the old duplicate-token index. */
uint64_t collide_golden_token(uint64_t j);

#endif

/* collide.c - see collide.h. */
#include "collide.h"
#include "genkit.h"

#include <stdlib.h>
#include <string.h>

/* gguflint's FNV-1a started from 1469598103934665603 (0x14650fb0739d0383),
 * the standard offset basis with its last digit lost; low 32 bits: */
#define FNV_LOW_BASIS 0x739d0383u
#define FNV_LOW_PRIME 0x1b3u /* low 32 bits of the 64-bit prime */

static uint32_t fnv_low(uint32_t s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s = (s ^ p[i]) * FNV_LOW_PRIME;
    return s;
}

static void block_of(uint64_t idx, const char *alpha, size_t na, size_t len, uint8_t *out)
{
    for (size_t i = 0; i < len; i++) {
        out[i] = (uint8_t)alpha[idx % na];
        idx /= na;
    }
}

bool collide_fnv(collide_family *f, const char *prefix, const char *alpha, size_t block, uint64_t n)
{
    memset(f, 0, sizeof *f);
    size_t pl = strlen(prefix);
    if (pl >= sizeof f->prefix || block == 0 || block > 8)
        return false;
    memcpy(f->prefix, prefix, pl + 1);
    f->block = block;
    while (((uint64_t)1 << f->stages) < n)
        f->stages++;
    if (f->stages == 0)
        f->stages = 1;
    if (f->stages > 32)
        return false;
    size_t na = strlen(alpha);
    uint64_t space = 1;
    for (size_t i = 0; i < block; i++)
        space *= na;
    const size_t cap = (size_t)1 << 21;
    uint32_t *keys = calloc(cap, sizeof *keys);
    uint64_t *vals = calloc(cap, sizeof *vals); /* block index + 1 */
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return false;
    }
    uint32_t s = fnv_low(FNV_LOW_BASIS, (const uint8_t *)prefix, pl) & COLLIDE_FNV_MASK;
    uint64_t seed = 0x1234567ull;
    bool ok = true;
    for (unsigned k = 0; k < f->stages && ok; k++) {
        memset(vals, 0, cap * sizeof *vals);
        bool found = false;
        for (uint64_t tries = 0; tries < cap / 2 && !found; tries++) {
            uint64_t idx = gk_rng_next(&seed) % space;
            uint8_t blk[8];
            block_of(idx, alpha, na, block, blk);
            uint32_t e = fnv_low(s, blk, block) & COLLIDE_FNV_MASK;
            size_t h = (size_t)(e * 2654435761u) & (cap - 1);
            while (vals[h] && keys[h] != e)
                h = (h + 1) & (cap - 1);
            if (vals[h] && vals[h] - 1 != idx) {
                block_of(vals[h] - 1, alpha, na, block, f->pair[k][0]);
                memcpy(f->pair[k][1], blk, block);
                s = e;
                found = true;
            } else if (!vals[h]) {
                keys[h] = e;
                vals[h] = idx + 1;
            }
        }
        ok = found;
    }
    free(keys);
    free(vals);
    return ok;
}

size_t collide_fnv_string(const collide_family *f, uint64_t j, char *out)
{
    size_t n = strlen(f->prefix);
    memcpy(out, f->prefix, n);
    for (unsigned k = 0; k < f->stages; k++) {
        memcpy(out + n, f->pair[k][(j >> k) & 1], f->block);
        n += f->block;
    }
    out[n] = '\0';
    return n;
}

uint64_t collide_golden_token(uint64_t j)
{
    const uint64_t K = 0x9E3779B97F4A7C15ull;
    uint64_t inv = K; /* Newton's iteration for K^-1 mod 2^64 */
    for (int i = 0; i < 6; i++)
        inv *= 2 - K * inv;
    return (0x4000000000000000ull + j) * inv - 8;
}

/* gguf_mutator.h - a structure-aware libFuzzer mutator for GGUF. Included
 * with -include into the *_sa variants of the harnesses (the same sources),
 * it defines LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver.
 *
 * A tolerant reader walks the input (v1/v2/v3, either byte order), records
 * the position and width of every structural field (counts, string lengths,
 * value types, array element types and counts, n_dims, dims, ggml types,
 * offsets, the general.alignment value, key bytes) and the byte range of each
 * KV and tensor info. A mutation then either sets one field to a boundary
 * value (0, 1, max, max-1, 2^31, 2^32, 2^63, just past the bytes remaining, a
 * removed type id), or removes, duplicates or swaps a whole KV / tensor info
 * (fixing the header count), or falls back to LLVMFuzzerMutate. The reader
 * stops at the first field it cannot read; everything it recorded is still
 * usable. No recursion: nested arrays are walked with a bounded stack. */
#ifndef GGUFLINT_GGUF_MUTATOR_H
#define GGUFLINT_GGUF_MUTATOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define GM_MAX_FIELDS 512
#define GM_MAX_ITEMS 128

enum gm_kind {
    GM_COUNT_T,
    GM_COUNT_KV,
    GM_STRLEN,
    GM_VTYPE,
    GM_ETYPE,
    GM_ACOUNT,
    GM_NDIMS,
    GM_DIM,
    GM_GTYPE,
    GM_OFFSET,
    GM_ALIGN,
    GM_KEYBYTE
};

typedef struct gm_field {
    uint32_t at, width;
    uint8_t kind;
} gm_field;

typedef struct gm_item {
    uint32_t start, end; /* byte range of one KV or tensor info */
    uint8_t is_tensor;
} gm_item;

typedef struct gm_map {
    gm_field f[GM_MAX_FIELDS];
    size_t nf;
    gm_item it[GM_MAX_ITEMS];
    size_t ni;
    int be;
    unsigned w; /* 4 in v1, 8 otherwise */
    uint32_t kv_count_at, t_count_at;
    int valid;
} gm_map;

static uint64_t gm_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t gm_get(const gm_map *m, const uint8_t *d, size_t at, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++) {
        unsigned k = m->be ? i : w - 1 - i;
        v = (v << 8) | d[at + k];
    }
    return v;
}

static void gm_put(const gm_map *m, uint8_t *d, size_t at, unsigned w, uint64_t v)
{
    for (unsigned i = 0; i < w; i++) {
        unsigned k = m->be ? w - 1 - i : i;
        d[at + k] = (uint8_t)(v >> (8 * i));
    }
}

static void gm_add(gm_map *m, size_t at, unsigned width, int kind)
{
    if (m->nf < GM_MAX_FIELDS)
        m->f[m->nf++] = (gm_field){(uint32_t)at, width, (uint8_t)kind};
}

/* Walk the input, recording fields. Returns silently at the first unreadable field. */
static void gm_scan(gm_map *m, const uint8_t *d, size_t n)
{
    memset(m, 0, sizeof *m);
    if (n < 8 || memcmp(d, "GGUF", 4) != 0)
        return;
    uint32_t v = (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
    if (v != 0 && (v & 0xFFFF) == 0) {
        m->be = 1;
        v = __builtin_bswap32(v);
    }
    m->w = v == 1 ? 4 : 8;
    size_t p = 8, w = m->w;
    if (n < p + 2 * w)
        return;
    m->valid = 1;
    m->t_count_at = (uint32_t)p;
    gm_add(m, p, m->w, GM_COUNT_T);
    uint64_t tc = gm_get(m, d, p, m->w);
    p += w;
    m->kv_count_at = (uint32_t)p;
    gm_add(m, p, m->w, GM_COUNT_KV);
    uint64_t kc = gm_get(m, d, p, m->w);
    p += w;
#define NEED(k)                                                                                    \
    if ((k) > n - p)                                                                               \
    return
    for (uint64_t i = 0; i < kc && i < 4096; i++) {
        size_t start = p;
        NEED(w);
        uint64_t kl = gm_get(m, d, p, m->w);
        gm_add(m, p, m->w, GM_STRLEN);
        p += w;
        NEED(kl);
        if (kl > 0)
            gm_add(m, p, 1, GM_KEYBYTE);
        int is_align = kl == 17 && memcmp(d + p, "general.alignment", 17) == 0;
        p += kl;
        NEED(4);
        gm_add(m, p, 4, GM_VTYPE);
        uint32_t t = (uint32_t)gm_get(m, d, p, 4);
        p += 4;
        /* value: scalars, strings, arrays (nested via a bounded stack) */
        static const unsigned sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
        uint64_t stack_left[8];
        uint32_t stack_t[8];
        int depth = 0;
        uint32_t cur = t;
        uint64_t left = 1;
        for (;;) {
            if (left == 0) {
                if (depth == 0)
                    break;
                depth--;
                cur = stack_t[depth];
                left = stack_left[depth];
                continue;
            }
            if (cur >= 13)
                return;
            if (cur == 8) {
                NEED(w);
                uint64_t sl = gm_get(m, d, p, m->w);
                gm_add(m, p, m->w, GM_STRLEN);
                p += w;
                NEED(sl);
                p += sl;
                left--;
            } else if (cur == 9) {
                NEED(4 + w);
                gm_add(m, p, 4, GM_ETYPE);
                uint32_t et = (uint32_t)gm_get(m, d, p, 4);
                gm_add(m, p + 4, m->w, GM_ACOUNT);
                uint64_t c = gm_get(m, d, p + 4, m->w);
                p += 4 + w;
                left--;
                if (depth >= 8)
                    return;
                stack_t[depth] = cur;
                stack_left[depth] = left;
                depth++;
                cur = et;
                left = c;
            } else {
                uint64_t bytes = (uint64_t)sz[cur] * left;
                if (left != 0 && bytes / left != sz[cur])
                    return;
                NEED(bytes);
                if (is_align && depth == 0 && cur == 4)
                    gm_add(m, p, 4, GM_ALIGN);
                p += bytes;
                left = 0;
            }
        }
        if (m->ni < GM_MAX_ITEMS)
            m->it[m->ni++] = (gm_item){(uint32_t)start, (uint32_t)p, 0};
    }
    for (uint64_t i = 0; i < tc && i < 4096; i++) {
        size_t start = p;
        NEED(w);
        uint64_t nl = gm_get(m, d, p, m->w);
        gm_add(m, p, m->w, GM_STRLEN);
        p += w;
        NEED(nl);
        p += nl;
        NEED(4);
        gm_add(m, p, 4, GM_NDIMS);
        uint32_t nd = (uint32_t)gm_get(m, d, p, 4);
        p += 4;
        if (nd > 8)
            return;
        for (uint32_t j = 0; j < nd; j++) {
            NEED(w);
            gm_add(m, p, m->w, GM_DIM);
            p += w;
        }
        NEED(12);
        gm_add(m, p, 4, GM_GTYPE);
        gm_add(m, p + 4, 8, GM_OFFSET);
        p += 12;
        if (m->ni < GM_MAX_ITEMS)
            m->it[m->ni++] = (gm_item){(uint32_t)start, (uint32_t)p, 1};
    }
#undef NEED
}

static uint64_t gm_boundary(uint64_t *rng, const gm_field *f, size_t size)
{
    static const uint64_t removed[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 13, 9};
    uint64_t max = f->width == 4 ? 0xFFFFFFFFull : f->width == 1 ? 0xFF : UINT64_MAX;
    uint64_t past = size - f->at + 1;
    switch (gm_rng(rng) % 12) {
    case 0: return 0;
    case 1: return 1;
    case 2: return max;
    case 3: return max - 1;
    case 4: return 1ull << 31;
    case 5: return 1ull << 32;
    case 6: return 1ull << 63;
    case 7: return past;
    case 8: return past - 2;
    case 9: return removed[gm_rng(rng) % (sizeof removed / sizeof removed[0])];
    case 10: return f->kind == GM_ALIGN ? (gm_rng(rng) % 2 ? 48 : 1u << 21) : 5;
    default: return gm_rng(rng) % 64;
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    uint64_t rng = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
    static _Thread_local gm_map m;
    gm_scan(&m, data, size);
    unsigned choice = (unsigned)(gm_rng(&rng) % 10);
    if (!m.valid || choice >= 8)
        return LLVMFuzzerMutate(data, size, max_size);
    if (choice < 6 && m.nf > 0) {
        const gm_field *f = &m.f[gm_rng(&rng) % m.nf];
        if (f->kind == GM_KEYBYTE) {
            static const uint8_t bytes[] = {0, 0x1b, 0x7f, 0x80, 0xff, 'A', '.', '-', 0xe2};
            data[f->at] = bytes[gm_rng(&rng) % sizeof bytes];
        } else {
            gm_put(&m, data, f->at, f->width, gm_boundary(&rng, f, size));
        }
        return size;
    }
    if (m.ni == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    const gm_item *it = &m.it[gm_rng(&rng) % m.ni];
    size_t len = it->end - it->start;
    size_t count_at = it->is_tensor ? m.t_count_at : m.kv_count_at;
    uint64_t count = gm_get(&m, data, count_at, m.w);
    if (choice == 6 && size > len) { /* remove the item */
        memmove(data + it->start, data + it->end, size - it->end);
        gm_put(&m, data, count_at, m.w, count - 1);
        return size - len;
    }
    if (size + len <= max_size) { /* duplicate it in place */
        memmove(data + it->end + len, data + it->end, size - it->end);
        memcpy(data + it->end, data + it->start, len);
        gm_put(&m, data, count_at, m.w, count + 1);
        return size + len;
    }
    return LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned seed);
/* Splice: the header and first items of one input, the rest of another, at an
 * item boundary of each when both parse, else at a random point. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned seed)
{
    uint64_t rng = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 7;
    static _Thread_local gm_map a, b;
    gm_scan(&a, d1, s1);
    gm_scan(&b, d2, s2);
    size_t cut1 = s1 ? (size_t)(gm_rng(&rng) % s1) : 0;
    size_t cut2 = s2 ? (size_t)(gm_rng(&rng) % s2) : 0;
    if (a.ni && b.ni) {
        cut1 = a.it[gm_rng(&rng) % a.ni].end;
        cut2 = b.it[gm_rng(&rng) % b.ni].end;
    }
    size_t n1 = cut1 < max_out ? cut1 : max_out;
    memcpy(out, d1, n1);
    size_t n2 = s2 - cut2;
    if (n2 > max_out - n1)
        n2 = max_out - n1;
    memcpy(out + n1, d2 + cut2, n2);
    return n1 + n2;
}

#endif

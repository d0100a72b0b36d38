/* viewset.c - the view set (see viewset.h). */
#include "common/viewset.h"
#include "common/alloc.h"

#include "common/keyhash.h"

#include <stdlib.h>
#include <string.h>

/* Keyed multilinear hashing (keyhash_ml_hash, mixed) of keys and names; the
 * last chunk of a string of 8 bytes or more is one load ending at its last
 * byte, shifted, so no load leaves the string. */
uint64_t viewset_hash(const uint8_t *s, uint64_t n)
{
    const keyhash_ml *m = keyhash_ml_process();
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8 && n <= KEYHASH_ML_MAX) {
        uint64_t h = m->k[0] + n * m->k[1], w;
        const uint64_t *k = m->k + 2;
        const uint8_t *p = s;
        uint64_t rem = n;
        for (; rem > 8; rem -= 8, p += 8, k += 2) {
            memcpy(&w, p, 8);
            h += (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1];
        }
        memcpy(&w, s + n - 8, 8);
        w >>= 8 * (8 - rem);
        return keyhash_mix(h + (w & 0xFFFFFFFFu) * k[0] + (w >> 32) * k[1]);
    }
#endif
    return keyhash_ml_hash(m, s, (size_t)n, s + n);
}

static uint32_t tag_of(const uint8_t *s, uint64_t n)
{
    return (uint32_t)(viewset_hash(s, n) >> 32);
}

static size_t slot_of(const viewset *set, uint32_t tag)
{
    return set->shift >= 32 ? 0 : (size_t)(tag >> set->shift);
}

/* Move every slot into a table of nc slots (a power of two, 16 .. 2^32):
 * the stored tags place them, nothing is hashed again. */
static bool regrow(viewset *set, size_t nc)
{
    vs_slot *ns = gl_calloc(nc, sizeof *ns);
    if (!ns)
        return false;
    unsigned bits = 0;
    while (((size_t)1 << bits) < nc)
        bits++;
    vs_slot *old = set->slots;
    size_t old_cap = set->cap;
    set->slots = ns;
    set->cap = nc;
    set->shift = 32 - bits;
    for (size_t i = 0; i < old_cap; i++) {
        vs_slot s = old[i];
        if (!s.index)
            continue;
        size_t h = slot_of(set, s.tag);
        while (ns[h].index)
            h = (h + 1) & (nc - 1);
        ns[h] = s;
    }
    gl_free(old);
    return true;
}

bool viewset_reserve(viewset *set, size_t n, viewset_get get, const void *owner)
{
    (void)get;
    (void)owner;
    if (n > ((size_t)1 << 31))
        return false;
    size_t nc = set->cap ? set->cap : 16;
    while (nc < n * 2 + 2)
        nc *= 2;
    return nc == set->cap || regrow(set, nc);
}

/* The earlier index equal to s, or -1 with *at the empty slot where it goes. */
static long lookup(const viewset *set, viewset_get get, const void *owner, const uint8_t *s,
                   uint64_t n, uint32_t tag, size_t *at, uint64_t *probes)
{
    for (size_t h = slot_of(set, tag);; h = (h + 1) & (set->cap - 1)) {
        vs_slot sl = set->slots[h];
        ++*probes;
        if (!sl.index) {
            *at = h;
            return -1;
        }
        if (sl.tag != tag)
            continue;
        gguflint_view e = get(owner, sl.index - 1);
        if (e.len == n && (n == 0 || memcmp(e.ptr, s, (size_t)n) == 0))
            return (long)(sl.index - 1);
    }
}

long viewset_insert(viewset *set, viewset_get get, const void *owner, gguflint_view v, size_t index)
{
    if (index >= UINT32_MAX)
        return -2;
    if ((set->used + 1) * 2 > set->cap && !viewset_reserve(set, set->used + 1, NULL, NULL))
        return -2;
    uint32_t tag = tag_of(v.ptr, v.len);
    size_t at;
    long prev = lookup(set, get, owner, v.ptr, v.len, tag, &at, &set->probes);
    if (prev >= 0)
        return prev;
    set->slots[at] = (vs_slot){tag, (uint32_t)index + 1};
    set->used++;
    set->lens |= 1ull << (v.len & 63);
    return -1;
}

long viewset_find(const viewset *set, viewset_get get, const void *owner, const uint8_t *s,
                  uint64_t n)
{
    if (!set->cap || !(set->lens >> (n & 63) & 1))
        return -1;
    size_t at;
    uint64_t probes = 0;
    return lookup(set, get, owner, s, n, tag_of(s, n), &at, &probes);
}

void viewset_free(viewset *set)
{
    gl_free(set->slots);
    set->slots = NULL;
    set->cap = set->used = 0;
    set->shift = 0;
    set->lens = 0;
}

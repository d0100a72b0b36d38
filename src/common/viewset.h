/* viewset.h - a set of byte strings that live elsewhere (views into the
 * input), stored as indexes into their owner's array: duplicate keys and
 * tensor names while parsing, key and name lookup for the checks, tensor
 * names across the shards of a split set. Open addressing with linear
 * probing, at most half full; the owner is asked for an entry's bytes
 * through a callback, so nothing is copied. Every table built from file data
 * goes through here or through keyhash.h (one home for their hashing).
 *
 * The hash is keyed under the per-process random key (keyhash.h): keyed
 * multilinear hashing for strings of up to 64 bytes (strongly universal in
 * its top 32 bits, about twice as cheap as SipHash on keys and names),
 * SipHash-1-3 beyond. No input can be built to collide without the key,
 * and the answers (the first index holding a string) never depend on it.
 * Each slot keeps the top 32 bits of the hash beside the index:
 * they pick the slot (their top bits), filter comparisons, and let the table
 * grow without hashing anything again. 8 bytes per slot, at most 16 per
 * entry. A zeroed viewset is an empty set. */
#ifndef GGUFLINT_COMMON_VIEWSET_H
#define GGUFLINT_COMMON_VIEWSET_H

#include "gguflint.h"

typedef struct vs_slot {
    uint32_t tag;   /* 32 bits of the hash */
    uint32_t index; /* entry index + 1; 0 = empty */
} vs_slot;

typedef struct viewset {
    vs_slot *slots;
    size_t cap; /* a power of two (at most 2^32), or 0 before the first insert */
    size_t used;
    unsigned shift;  /* 32 - log2(cap) */
    uint64_t probes; /* slots visited by inserts: the complexity tests bound it */
    uint64_t lens;   /* bit len % 64 of every string inserted: a find of a length
                      * never inserted answers without hashing (most key lookups
                      * of a small file miss); a file can at most set every bit */
} viewset;

/* The bytes of the owner's entry `index`. */
typedef gguflint_view (*viewset_get)(const void *owner, size_t index);

/* The string hash of every view set (keyed; see keyhash.h). */
uint64_t viewset_hash(const uint8_t *s, uint64_t n);
/* Make room for n entries without growing; false on NOMEM. `get` and
 * `owner` are not needed (growth never rehashes) and may be NULL. */
bool viewset_reserve(viewset *set, size_t n, viewset_get get, const void *owner);
/* Look `v` up; when absent insert it as entry `index`. Returns the index of
 * the earlier equal entry, -1 when inserted, -2 when memory ran out or the
 * index does not fit in 32 bits. */
long viewset_insert(viewset *set, viewset_get get, const void *owner, gguflint_view v,
                    size_t index);
/* The index of the first-inserted entry equal to s[0..n), or -1. */
long viewset_find(const viewset *set, viewset_get get, const void *owner, const uint8_t *s,
                  uint64_t n);
void viewset_free(viewset *set);

#endif

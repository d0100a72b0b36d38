/* viewset.h - a set of byte strings that live elsewhere (views into the
 * input), stored as indexes into their owner's array: duplicate keys and
 * tensor names while parsing, key and name lookup for the checks. Open
 * addressing with linear probing, at most half full; the owner is asked for
 * an entry's bytes through a callback, so nothing is copied. Every table
 * built from file data goes through here (one home for its hash). */
#ifndef GGUFLINT_COMMON_VIEWSET_H
#define GGUFLINT_COMMON_VIEWSET_H

#include "gguflint.h"

typedef struct viewset {
    uint32_t *slots; /* index + 1 into the owner's array; 0 = empty */
    size_t cap;      /* a power of two, or 0 before the first insert */
    size_t used;
} viewset;

/* The bytes of the owner's entry `index`. */
typedef gguflint_view (*viewset_get)(const void *owner, size_t index);

/* The string hash of every view set. */
uint64_t viewset_hash(const uint8_t *s, uint64_t n);
/* Make room for n entries without rehashing; false on NOMEM. */
bool viewset_reserve(viewset *set, size_t n, viewset_get get, const void *owner);
/* Look `v` up; when absent insert it as entry `index`. Returns the index of
 * the earlier equal entry, -1 when inserted, -2 when memory ran out. Indexes
 * must fit in 32 bits (the callers' counts are bounded far below). */
long viewset_insert(viewset *set, viewset_get get, const void *owner, gguflint_view v,
                    size_t index);
/* The index of the first-inserted entry equal to s[0..n), or -1. */
long viewset_find(const viewset *set, viewset_get get, const void *owner, const uint8_t *s,
                  uint64_t n);
void viewset_free(viewset *set);

#endif

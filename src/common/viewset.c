/* viewset.c - the view set (see viewset.h). */
#include "common/viewset.h"

#include <stdlib.h>
#include <string.h>

uint64_t viewset_hash(const uint8_t *s, uint64_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (uint64_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Rehash every entry into a table of nc slots (a power of two). */
static bool rehash(viewset *set, size_t nc, viewset_get get, const void *owner)
{
    uint32_t *ns = calloc(nc, sizeof *ns);
    if (!ns)
        return false;
    for (size_t i = 0; i < set->cap; i++) {
        uint32_t v = set->slots[i];
        if (!v)
            continue;
        gguflint_view e = get(owner, v - 1);
        size_t h = (size_t)viewset_hash(e.ptr, e.len) & (nc - 1);
        while (ns[h])
            h = (h + 1) & (nc - 1);
        ns[h] = v;
    }
    free(set->slots);
    set->slots = ns;
    set->cap = nc;
    return true;
}

bool viewset_reserve(viewset *set, size_t n, viewset_get get, const void *owner)
{
    size_t nc = set->cap ? set->cap : 16;
    while (nc < n * 2 + 2) {
        if (nc > SIZE_MAX / 4)
            return false;
        nc *= 2;
    }
    return nc == set->cap || rehash(set, nc, get, owner);
}

long viewset_insert(viewset *set, viewset_get get, const void *owner, gguflint_view v, size_t index)
{
    if ((set->used + 1) * 2 > set->cap && !rehash(set, set->cap ? set->cap * 2 : 64, get, owner))
        return -2;
    size_t h = (size_t)viewset_hash(v.ptr, v.len) & (set->cap - 1);
    while (set->slots[h]) {
        gguflint_view e = get(owner, set->slots[h] - 1);
        if (e.len == v.len && memcmp(e.ptr, v.ptr, (size_t)v.len) == 0)
            return (long)(set->slots[h] - 1);
        h = (h + 1) & (set->cap - 1);
    }
    set->slots[h] = (uint32_t)(index + 1);
    set->used++;
    return -1;
}

long viewset_find(const viewset *set, viewset_get get, const void *owner, const uint8_t *s,
                  uint64_t n)
{
    if (!set->slots)
        return -1;
    size_t h = (size_t)viewset_hash(s, n) & (set->cap - 1);
    while (set->slots[h]) {
        gguflint_view e = get(owner, set->slots[h] - 1);
        if (e.len == n && memcmp(e.ptr, s, (size_t)n) == 0)
            return (long)set->slots[h] - 1;
        h = (h + 1) & (set->cap - 1);
    }
    return -1;
}

void viewset_free(viewset *set)
{
    free(set->slots);
    set->slots = NULL;
    set->cap = set->used = 0;
}

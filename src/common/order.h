/* order.h - three-way comparison for qsort comparators, and the order of
 * tensor data spans; header only (the CLI includes it too). */
#ifndef GGUFLINT_COMMON_ORDER_H
#define GGUFLINT_COMMON_ORDER_H

/* -1, 0 or 1 as a is below, equal to or above b, for any two values of one
 * arithmetic type (no subtraction, so no overflow). A comparator orders by
 * several keys at once with weights that are powers of two: in
 * 4 * ORDER(k1) + 2 * ORDER(k2) + ORDER(k3) each key outweighs all after it,
 * so the sign is that of the first key that differs. That sum compares
 * every key every time: a comparator on a hot path (one call per tensor or
 * more) tests the next key only on a tie, as order_span_cmp does. */
#define ORDER(a, b) (((a) > (b)) - ((a) < (b)))

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* qsort the n elements of `size` bytes at base by cmp, unless they are in
 * strictly increasing order already (n - 1 comparisons): a file's tensors
 * mostly are, and sorting sorted input still costs n log n calls. */
static inline void order_sort(void *base, size_t n, size_t size,
                              int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t k = 1; k < n; k++)
        if (cmp(p + (k - 1) * size, p + k * size) >= 0) {
            qsort(base, n, size, cmp);
            return;
        }
}

/* The bytes [start, end) of tensor `index` (both ends relative to one base),
 * as the layout check looks for overlaps and the digests plan their one read. */
typedef struct order_span {
    uint64_t start, end;
    size_t index;
} order_span;

/* qsort order of spans: by start, then end, then index (so it is total).
 * Called once per tensor or more: a later key is compared only on a tie. */
static inline int order_span_cmp(const void *a, const void *b)
{
    const order_span *x = a, *y = b;
    int c = ORDER(x->start, y->start);
    if (!c)
        c = ORDER(x->end, y->end);
    return c ? c : ORDER(x->index, y->index);
}

#endif

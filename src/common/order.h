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

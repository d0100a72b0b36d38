/* order.h - three-way comparison for qsort comparators, header only (the CLI
 * includes it too). */
#ifndef GGUFLINT_COMMON_ORDER_H
#define GGUFLINT_COMMON_ORDER_H

/* -1, 0 or 1 as a is below, equal to or above b, for any two values of one
 * arithmetic type (no subtraction, so no overflow). A comparator orders by
 * several keys at once with weights that are powers of two: in
 * 4 * ORDER(k1) + 2 * ORDER(k2) + ORDER(k3) each key outweighs all after it,
 * so the sign is that of the first key that differs. */
#define ORDER(a, b) (((a) > (b)) - ((a) < (b)))

#endif

/* arch_asserts.h - the table of GG533 (data/arch/hparam_asserts.def), as
 * its tests see it. check_arch_asserts.c holds it. */
#ifndef GGUFLINT_ARCH_ASSERTS_H
#define GGUFLINT_ARCH_ASSERTS_H

#include <stdbool.h>
#include <stddef.h>

struct arch_file;

/* The row count and a row's architecture (NULL past the end). */
size_t arch_assert_count(void);
const char *arch_assert_arch(size_t i);
/* A row's condition translated for arch_eval: symbols as #N, K:suffix as the
 * key's value in f (U without f or a readable value). False when it names
 * an unknown symbol or does not fit cap. */
bool arch_assert_translate(const struct arch_file *f, const char *rpn, char *out, size_t cap);

#endif

/* genkit.h - what the generators under tests/tools (and the support code
 * that writes big inputs) share: allocation that ends the program when
 * memory runs out, and one small deterministic random generator. For
 * programs, not for the cmocka suites (which assert instead). */
#ifndef GGUFLINT_TEST_GENKIT_H
#define GGUFLINT_TEST_GENKIT_H

#include <stddef.h>
#include <stdint.h>

/* malloc and calloc of at least one byte; on failure "out of memory" on
 * stderr and exit status 1. */
void *gk_malloc(size_t n);
void *gk_calloc(size_t n, size_t size);

/* xorshift64*: the next value of the sequence whose state is *s (non-zero). */
uint64_t gk_rng_next(uint64_t *s);

#endif

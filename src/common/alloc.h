/* alloc.h - the library's one allocation home. Every allocation the library
 * makes (everything under src/ but the CLI, which is a program of its own)
 * goes through these, so the allocator a caller installs with
 * gguflint_set_allocator sees all of them (the ctest no_raw_alloc fails on
 * a direct malloc, calloc, realloc, free, strdup or strndup call).
 * Semantics are the C library's: NULL on failure, gl_free(NULL) does
 * nothing, gl_calloc checks n * size for overflow, gl_realloc(NULL, n) is
 * gl_malloc(n). A size of 0 is asked of the installed allocator as 1. */
#ifndef GGUFLINT_COMMON_ALLOC_H
#define GGUFLINT_COMMON_ALLOC_H

#include <stddef.h>

void *gl_malloc(size_t n);
void *gl_calloc(size_t n, size_t size);
void *gl_realloc(void *p, size_t n);
void gl_free(void *p);
/* The n strings of the array v, then v (NULL: nothing). */
void gl_free_strings(char **v, size_t n);
/* Copies of a NUL-terminated string (of at most n bytes for gl_strndup). */
char *gl_strdup(const char *s);
char *gl_strndup(const char *s, size_t n);

/* Blocks that live as long as the process (tables built once, under
 * pthread_once, and never freed): taken from the C library's allocator,
 * never from the installed one, which a caller may replace or tear down
 * while they live (gguflint.h says so). */
void *gl_process_malloc(size_t n);
void *gl_process_calloc(size_t n, size_t size);
void gl_process_free(void *p);

#endif

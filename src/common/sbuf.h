/* sbuf.h - growable buffers that know nothing of GGUF: a byte buffer used as
 * an arena of NUL-terminated strings (finding messages and paths, output
 * assembled in memory) and a doubling helper for growable arrays. Allocation
 * failure is remembered (sbuf.failed) or returned, never fatal. */
#ifndef GGUFLINT_COMMON_SBUF_H
#define GGUFLINT_COMMON_SBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sbuf {
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; contents are incomplete */
} sbuf;

/* Append n bytes (data stays NUL-terminated after each append). */
void sb_put(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
/* End the current string: keep its NUL and start the next one after it. */
void sb_term(sbuf *b);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void sb_free(sbuf *b);
/* A write callback (gguflint_write_fn) that appends to the sbuf `user`. */
void sb_write(void *user, const char *data, size_t len);

/* Growable arrays: ensure room for element n of *arr (doubling *cap, from
 * 16); false when the size would overflow or memory ran out. */
bool grow(void **arr, size_t *cap, size_t n, size_t elem);

#endif

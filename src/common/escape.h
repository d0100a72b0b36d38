/* escape.h - making untrusted bytes safe to show, for any output: terminal
 * text and JSON strings. Every byte that came from a file goes through one of
 * these before it reaches any output. Knows nothing of GGUF; the write
 * callback type is the public gguflint_write_fn. */
#ifndef GGUFLINT_COMMON_ESCAPE_H
#define GGUFLINT_COMMON_ESCAPE_H

#include "gguflint.h"

#include "common/sbuf.h"

/* gguflint_escape (public) is the terminal escape: printable ASCII and safe
 * UTF-8 kept, controls, bidi, zero-width and invalid bytes as \xNN / \u{N}. */

/* Append untrusted bytes escaped for display (see gguflint_escape). */
void sb_escape(sbuf *b, const void *data, size_t len);
/* Write library text (messages, paths: already escaped) for a terminal,
 * escaping any unsafe byte again but leaving backslashes as they are. */
void safe_text(gguflint_write_fn w, void *user, const char *s, size_t len);
/* Write a string for JSON (quotes included), escaping exactly per RFC 8259;
 * unsafe code points become \uXXXX and each invalid UTF-8 byte \u00XX.
 * (Not json_string: that is libjansson's, linked into the same programs.) */
void json_quote(gguflint_write_fn w, void *user, const char *s, size_t len);
void json_quote_sb(sbuf *b, const char *s, size_t len);
/* Escape untrusted bytes into a fixed buffer, truncating with "..." past
 * max_in input bytes (never inside a UTF-8 sequence) or when cap is reached. */
void esc_fixed(char *buf, size_t cap, const uint8_t *s, uint64_t n, size_t max_in);

#endif

/* out.h - the output helpers every writer shares (report writers, dump,
 * rules documentation): a write callback and its user pointer, with plain,
 * formatted and JSON-string writes. A leaf: it calls nothing above common/. */
#ifndef GGUFLINT_REPORT_OUT_H
#define GGUFLINT_REPORT_OUT_H

#include "gguflint.h"

typedef struct out {
    gguflint_write_fn w;
    void *u;
} out;

void out_put(const out *o, const char *s);
void out_putn(const out *o, const char *s, size_t n);
/* Formatted output; a result longer than 511 bytes is cut (callers format
 * numbers and library text here, never file data). */
void out_putf(const out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string, quoted and escaped exactly (see json_quote). */
void out_jstr(const out *o, const char *s);
/* Untrusted bytes escaped for a terminal (gguflint_escape). */
void out_escape(const out *o, const void *s, size_t n);

#endif
